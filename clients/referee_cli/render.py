"""Text for people: views, events and commands as plain strings (pure functions, no I/O).

Each game has its own module (``render_vampire_queen``, ``render_dracula``,
``render_sleeping_queens``, ``render_mau_mau``) exporting a
:class:`~referee_cli.render_common.GameText`; this module dispatches to it by game type
(views) or by the message's ``game`` oneof (events, commands). Adding a game is one entry in
:data:`GAMES`. A game without an entry is shown as protobuf text.

Vampire Queen's card helpers are re-exported here:

>>> format_hand([3, 3, 5, 8, 8, 14, 14, 15])
'3 3 5 8 8 Q Q [H15]'
>>> describe_set(8, 3, 1)
'three 8s (1 queen)'
"""

from __future__ import annotations

from google.protobuf import text_format

from referee.v1 import referee_pb2
from referee_cli import (
    render_dracula,
    render_mau_mau,
    render_sleeping_queens,
    render_vampire_queen,
)
from referee_cli.render_common import GameText, render_results, seat_name
from referee_cli.render_vampire_queen import (
    card,
    describe_card,
    describe_set,
    format_hand,
    number_word,
)

__all__ = [
    "GAMES",
    "GameText",
    "card",
    "describe_card",
    "describe_command",
    "describe_event",
    "describe_set",
    "format_hand",
    "game_text",
    "menu_columns",
    "menu_groups",
    "number_word",
    "redraw_for_spectator",
    "render_menu",
    "render_results",
    "render_view",
    "seat_name",
]

#: The text of each game, by game type id.
GAMES: dict[str, GameText] = {
    "vampire-queen": render_vampire_queen.TEXT,
    "dracula-vs-van-helsing": render_dracula.TEXT,
    "sleeping-queens": render_sleeping_queens.TEXT,
    "mau-mau-vampires": render_mau_mau.TEXT,
}


def game_text(game_type: str = "", field: str | None = None) -> GameText | None:
    """The entry of a game type, or of the ``game`` oneof field of a message."""
    if game_type in GAMES:
        return GAMES[game_type]
    return next((g for g in GAMES.values() if field is not None and g.field == field), None)


def _of_view(view: referee_pb2.View) -> GameText | None:
    text = game_text(view.game_type, view.WhichOneof("game"))
    return text if text is not None and text.field == view.WhichOneof("game") else None


def render_view(view: referee_pb2.View) -> str:
    """The whole screen of a view."""
    text = _of_view(view)
    return text_format.MessageToString(view) if text is None else text.render_view(view)


def describe_event(
    event: referee_pb2.Event, view: referee_pb2.View | None = None, me: int | None = None
) -> str | None:
    """One line for an event (``view`` is the view right after it, for context), or None for
    an event not worth a line (another seat's hidden deal)."""
    if event.WhichOneof("game") == "referee":
        return describe_referee_event(event.referee, view)
    text = game_text(field=event.WhichOneof("game"))
    if text is None:  # a game this client has no text for: the server's line
        return event.description or text_format.MessageToString(event, as_one_line=True)
    return text.describe_event(event, view, me)


def describe_referee_event(
    event: referee_pb2.RefereeEvent, view: referee_pb2.View | None = None
) -> str:
    """The referee's own events (fairness, clocks, aborts), the same for every game."""
    kind = event.WhichOneof("kind")
    if kind == "seed_committed":
        return f"the referee commits to the deal: SHA-256 {event.seed_committed.commitment[:16]}..."
    if kind == "seed_revealed":
        if not event.seed_revealed.seed:  # the default: hands stay secret after the end
            return "the referee hands the seed to the organiser (referee verify, organiser token)"
        return f"the referee reveals the seed {event.seed_revealed.seed.hex()} (referee verify)"
    if kind == "timed_out":
        timed = event.timed_out
        return f"seat {timed.seat} ran out of time ({timed.kind}); the referee plays for it"
    if kind == "seat_forfeited":
        return f"seat {event.seat_forfeited.seat} forfeits: the referee plays for it from now on"
    if kind == "default_played":
        played = event.default_played
        move = describe_command(played.command, view) if played.HasField("command") else "?"
        return f"the referee plays for seat {played.seat}: {move}"
    if kind == "game_aborted":
        return f"the game was aborted: {event.game_aborted.reason or 'no reason given'}"
    if kind == "deck_committed":
        deck = event.deck_committed
        root = deck.root[:16]
        return f"the referee commits to shuffle {deck.shuffle} ({deck.size} cards): {root}..."
    if kind == "cards_opened":
        count = len(event.cards_opened.openings)
        return f"the referee proves {count} card(s) you see against the committed decks"
    return text_format.MessageToString(event, as_one_line=True)


def describe_command(command: referee_pb2.Command, view: referee_pb2.View | None = None) -> str:
    """A legal command in words, for a menu."""
    text = game_text(field=command.WhichOneof("game"))
    if text is None:
        return text_format.MessageToString(command, as_one_line=True)
    return text.describe_command(command, view)


def render_menu(view: referee_pb2.View) -> str:
    """The numbered legal commands: ``1) play two 8s``, one per line. For a game this client
    has no text for, the server's labels (``View.legal_command_labels``)."""
    labels = list(view.legal_command_labels)
    known = _of_view(view) is not None
    return "\n".join(
        f"{i}) {describe_command(c, view) if known or i > len(labels) else labels[i - 1]}"
        for i, c in enumerate(view.legal_commands, 1)
    )


#: Menus longer than this are asked in two steps, when the game groups its commands.
ONE_STEP_MENU = 9
#: Menus longer than this are laid out in two columns (one 80x24 screen for table and menu).
ONE_COLUMN_MENU = 10
SCREEN_WIDTH = 80


def menu_groups(view: referee_pb2.View) -> list[tuple[str, list[int]]] | None:
    """The first step of a two-step menu: (label, indices of its legal commands) per group, in
    the order of the commands; None when the menu is short or the game does not group."""
    text = _of_view(view)
    commands = view.legal_commands
    if text is None or text.menu_group is None or len(commands) <= ONE_STEP_MENU:
        return None
    groups: dict[str, list[int]] = {}
    order: list[tuple[str, list[int]]] = []
    for index, command in enumerate(commands):
        label = text.menu_group(command, view)
        if label is None:
            order.append((text.describe_command(command, view), [index]))
        elif label in groups:
            groups[label].append(index)
        else:
            groups[label] = [index]
            order.append((label, groups[label]))
    if len(order) == len(commands):
        return None  # nothing to group
    return [
        (
            label if len(members) == 1 or label not in groups else f"{label} ({len(members)} ways)",
            members,
        )
        for label, members in order
    ]


def menu_columns(texts: list[str], width: int = SCREEN_WIDTH) -> str:
    """``1) ...`` lines, in two columns (numbered down the first, then the second) when there
    are many and they fit ``width``.

    >>> print(menu_columns(["pass", "play a 7"]))
    1) pass
    2) play a 7
    """
    items = [f"{i}) {text}" for i, text in enumerate(texts, 1)]
    half = (len(items) + 1) // 2
    column = max((len(item) for item in items[:half]), default=0) + 2
    if len(items) <= ONE_COLUMN_MENU or column + max(len(i) for i in items[half:]) > width:
        return "\n".join(items)
    rows = []
    for row in range(half):
        right = items[row + half] if row + half < len(items) else ""
        rows.append(f"{items[row]:<{column}}{right}".rstrip())
    return "\n".join(rows)


def redraw_for_spectator(event: referee_pb2.Event, view: referee_pb2.View) -> bool:
    """True when a spectator should see the whole screen after this event."""
    text = _of_view(view)
    return text is not None and text.redraw_for_spectator(event, view)
