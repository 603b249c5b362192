"""Text for people: views, events and commands as plain strings (pure functions, no I/O).

Nothing here knows a game. The words come from the server: each event's ``description``, each
legal command's label (``View.legal_command_labels``), the game's name and options
(``ListGameTypes``, as :class:`~referee_cli.screen.GameInfo`), the game's lines of the view
(``View.view_lines``, printed as they come); the seat table is laid out from the
view's fields by :mod:`referee_cli.screen`. A game is played here the day the server runs it.

Everything is sized for an 80x24 terminal: a screen, the menu's title, the menu and the prompt
fit on it (long menus go in columns, or are asked in two steps).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf import text_format

from referee.v1 import referee_pb2
from referee_cli.screen import (
    SCREEN_WIDTH,
    GameInfo,
    game_lines,
    holder_names,
    join,
    named,
    pack,
    seat_name,
    wrap,
)

__all__ = [
    "SCREEN_HEIGHT",
    "SCREEN_WIDTH",
    "GameInfo",
    "command_label",
    "describe_event",
    "holder_names",
    "menu_columns",
    "menu_groups",
    "menu_texts",
    "named",
    "redraw_for_spectator",
    "render_left",
    "render_menu",
    "render_results",
    "render_view",
    "screen",
    "seat_name",
]

SCREEN_HEIGHT = 24
#: Lines of the screen around the menu: the blank line before the screen, the menu's title
#: ("Your move:") and the prompt.
MENU_FRAME = 3
#: The game's lines of the view shown however long the menu (the last one "..." when cut).
MIN_VIEW_LINES = 3


def viewer(view: referee_pb2.View) -> int | None:
    """The seat the view is for, None for a spectator."""
    return view.seat if view.HasField("seat") else None


#: How a seat that left the game ended, in a word (``SeatEnd``).
LEFT_WORDS = {
    referee_pb2.SEAT_END_RESIGNED: "resigned",
    referee_pb2.SEAT_END_FORFEITED: "forfeited on time",
    referee_pb2.SEAT_END_ABANDONED: "abandoned",
    referee_pb2.SEAT_END_ABSENT: "absent",
}


def render_results(view: referee_pb2.View) -> list[str]:
    """Final standings, best first (one line, or one per seat when they do not fit): the
    referee's ranks, a seat that left the game named so (it ranks below every seat that
    finished in a rated or tournament game)."""
    me = viewer(view)
    ranked = sorted(view.results, key=lambda r: (r.rank, r.seat))
    names = holder_names(view)
    items = [
        f"{r.rank}. {seat_name(r.seat, me, names)} ({r.score}"
        + (f", {LEFT_WORDS[r.end]})" if r.end in LEFT_WORDS else ")")
        for r in ranked
    ]
    return wrap("Final standings:", items, SCREEN_WIDTH, "   ")


def render_left(view: referee_pb2.View) -> list[str]:
    """The seats that left the game before its end (``View.seats_left``): the referee plays
    for them; none is ever asked to decide again."""
    if not view.seats_left or view.game_over:
        return []
    me, names = viewer(view), holder_names(view)
    items = [
        f"{seat_name(gone.seat, me, names)} {LEFT_WORDS.get(gone.end, 'left')}"
        for gone in view.seats_left
    ]
    return wrap("Left the game:", items, SCREEN_WIDTH, "  ")


def _status(view: referee_pb2.View) -> str:
    """Whose decision the game waits for, and what about (the decisions' kinds and rules)."""
    if view.aborted:
        return "The game was aborted."
    if view.game_over:
        return "Game over."
    me = viewer(view)
    names = holder_names(view)
    about: dict[str, list[str]] = {}  # seats asked the same thing are named together
    for d in view.decisions:
        who = "you" if d.seat == me else seat_name(d.seat, me, names)
        what = ", ".join(part for part in (d.kind.replace("_", " "), d.rule_id) if part)
        about.setdefault(what, []).append(who)
    asked = [f"{join(seats)} ({what})" for what, seats in about.items()]
    if view.referee_to_move:
        asked.append("the referee, for a seat that left the game")
    if not asked:
        return ""
    mine = me is not None and me in view.pending_seats and view.legal_commands
    return ("Deciding: " if mine else "Waiting for ") + ", ".join(asked) + "."


def _clocks(view: referee_pb2.View) -> list[str]:
    if not view.clocks:
        return []
    me, names = viewer(view), holder_names(view)
    items = [
        f"{seat_name(c.seat, me, names)} {c.remaining_ms / 1000:.1f}s+{c.bank_ms / 1000:.0f}s"
        + (" running" if c.pending else "")
        for c in view.clocks
    ]
    return wrap("Clocks:", items, SCREEN_WIDTH, "  ")


def render_view(
    view: referee_pb2.View, info: GameInfo | None = None, room: int = SCREEN_HEIGHT - 1
) -> str:
    """The whole screen of a view in at most ``room`` lines where it can be: the header, whose
    move, the game's hand, seat table and facts (long ones cut to fit), the standings. The
    game's own lines (``view_lines``), when the server sends them, stand for hand and facts."""
    info = info or GameInfo()
    me = viewer(view)
    who = "spectator" if me is None else f"you are seat {me}"
    lines = [f"== {info.name or view.game_type} | game {view.game_id} | {who} =="]
    status = _status(view)
    if status:
        lines.extend(wrap("", status.split(" "), SCREEN_WIDTH, " "))
    fixed, facts, seats = game_lines(view, info)
    lines.extend(fixed)
    after = render_left(view) + _clocks(view)
    after += render_results(view) if view.game_over and view.results else []
    left = max(1, room - len(lines) - len(after))
    given = _named_lines(view)
    if given:  # the game's words, from the top (the game puts the hand first), as room allows
        left = max(left, min(len(given), MIN_VIEW_LINES))
        lines.extend(given if len(given) <= left else [*given[: left - 1], "..."])
    else:
        lines.extend(pack(facts, left, first=seats))
    if len(lines) + len(after) > room > len(fixed) + 2:  # the last facts give way, said so
        lines[room - len(after) - 1 :] = ["... (the last facts are cut to fit the screen)"]
    return "\n".join(lines + after)


def _named_lines(view: referee_pb2.View) -> list[str]:
    """The game's lines of the view, seats named by their players; a line a name made longer
    than the screen wrapped at its words."""
    names = holder_names(view)
    lines = []
    for line in view.view_lines:
        text = named(line, names)
        fits = len(text) <= SCREEN_WIDTH
        lines.extend([text] if fits else wrap("", text.split(" "), SCREEN_WIDTH, " "))
    return lines


def describe_event(event: referee_pb2.Event, holders: Sequence[str] = ()) -> str:
    """One line for an event: the server's description of it (as this viewer received it),
    its seats named by their players (``holders``, :func:`holder_names`)."""
    if event.description:
        return named(event.description, holders)
    return text_format.MessageToString(event, as_one_line=True)


def command_label(view: referee_pb2.View, index: int) -> str:
    """The label of ``view.legal_commands[index]``, from the server."""
    if index < len(view.legal_command_labels):
        return named(view.legal_command_labels[index], holder_names(view))
    return text_format.MessageToString(view.legal_commands[index], as_one_line=True)


def menu_texts(view: referee_pb2.View) -> list[str]:
    return [command_label(view, i) for i in range(len(view.legal_commands))]


def render_menu(view: referee_pb2.View) -> str:
    """The numbered legal commands: ``1) play two 8s``, one per line."""
    return "\n".join(f"{i}) {text}" for i, text in enumerate(menu_texts(view), 1))


#: Menus up to this long are never split in columns.
ONE_COLUMN_MENU = 10


def menu_columns(texts: Sequence[str], width: int = SCREEN_WIDTH) -> str:
    """``1) ...`` lines, in as many columns as fit ``width`` (numbered down each column) when
    there are more than :data:`ONE_COLUMN_MENU`.

    >>> print(menu_columns(["pass", "play a 7"]))
    1) pass
    2) play a 7
    >>> print(menu_columns([f"play {n}" for n in range(1, 12)]))
    1) play 1   5) play 5   9) play 9
    2) play 2   6) play 6   10) play 10
    3) play 3   7) play 7   11) play 11
    4) play 4   8) play 8
    """
    items = [f"{i}) {text}" for i, text in enumerate(texts, 1)]
    if len(items) <= ONE_COLUMN_MENU or any(len(item) > width // 2 for item in items):
        return "\n".join(line for item in items for line in wrap("", item.split(" "), width, " "))
    for count in (3, 2):
        rows = -(-len(items) // count)
        columns = [items[c * rows : (c + 1) * rows] for c in range(count)]
        sizes = [max(len(item) for item in column) for column in columns if column]
        if sum(sizes) + 3 * (len(sizes) - 1) <= width:
            lines = []
            for row in range(rows):
                cells = [
                    f"{column[row]:<{size}}"
                    for column, size in zip(columns, sizes, strict=False)
                    if row < len(column)
                ]
                lines.append("   ".join(cells).rstrip())
            return "\n".join(lines)
    return "\n".join(line for item in items for line in wrap("", item.split(" "), width, " "))


def menu_height(texts: Sequence[str]) -> int:
    return menu_columns(texts).count("\n") + 1


def _group_key(command: referee_pb2.Command, coarse: bool) -> str:
    """The kind of a command (``play_set``), and unless ``coarse`` its first field's value
    (``value: 8``): commands alike enough to be chosen among in a second step."""
    which = command.WhichOneof("game")
    if which is None:
        return ""
    inner = getattr(command, which)
    kind = inner.WhichOneof("kind") if "kind" in inner.DESCRIPTOR.oneofs_by_name else None
    message = getattr(inner, kind) if kind else inner
    fields = message.ListFields()
    if coarse or not fields:
        return f"{which}.{kind}"
    descriptor, value = fields[0]
    if descriptor.is_repeated:
        value = value[0] if len(value) else ""
    return f"{which}.{kind}.{descriptor.name}={value}"


def menu_groups(view: referee_pb2.View, room: int) -> list[tuple[str, list[int]]] | None:
    """The first step of a two-step menu, when the menu does not fit in ``room`` lines:
    (label, indices of its legal commands) per group, in the order of the commands. Commands
    group by kind and first field (Vampire Queen's sets by value), else by kind alone (every
    King of Sleeping Queens); a group is shown as its shortest label and how many ways there
    are. None when the menu fits as it is."""
    texts = menu_texts(view)
    if menu_height(texts) <= room or len(texts) <= 1:
        return None
    best: list[tuple[str, list[int]]] | None = None
    for coarse in (False, True):
        order: dict[str, list[int]] = {}
        for index, command in enumerate(view.legal_commands):
            order.setdefault(_group_key(command, coarse), []).append(index)
        if len(order) in (1, len(texts)):
            continue  # nothing to group at this level, or one group: a step that asks nothing
        best = [
            (
                texts[members[0]]
                if len(members) == 1
                else f"{min((texts[i] for i in members), key=len)} ... ({len(members)} ways)",
                members,
            )
            for members in order.values()
        ]
        if menu_height([label for label, _ in best]) <= room:
            break
    return best


@dataclass(frozen=True)
class Screen:
    """What the terminal shows when a seat is asked: the table and the first menu."""

    text: str
    #: The first step of a two-step menu, or None for the legal commands themselves.
    groups: list[tuple[str, list[int]]] | None
    #: The first menu's lines.
    menu: list[str]


def screen(view: referee_pb2.View, info: GameInfo | None = None) -> Screen:
    """The screen and the first menu of a seat asked to decide, on one 80x24 terminal: the menu
    in one step when it fits beside the table with its facts cut to one line each, else in two
    steps; then the table with as much of its facts as the menu leaves room for."""
    texts = menu_texts(view)
    smallest = render_view(view, info, room=1).count("\n") + 1
    groups = menu_groups(view, SCREEN_HEIGHT - MENU_FRAME - smallest)
    menu = [label for label, _ in groups] if groups is not None else texts
    room = SCREEN_HEIGHT - MENU_FRAME - menu_height(menu)
    return Screen(render_view(view, info, room=room), groups, menu)


#: A spectator sees the whole screen again after a batch of at least this many events.
REDRAW_BATCH = 3


def redraw_for_spectator(event: referee_pb2.Event, batch_events: int) -> bool:
    """True when a spectator should see the whole screen after ``event``, the
    ``batch_events``-th of its batch: at the end of a batch of several events (a trick or a
    round that ends and the next that begins), not after every single move.

    >>> redraw_for_spectator(referee_pb2.Event(sequence=9, batch_end_sequence=9), 4)
    True
    >>> redraw_for_spectator(referee_pb2.Event(sequence=8, batch_end_sequence=9), 4)
    False
    """
    return event.sequence >= event.batch_end_sequence and batch_events >= REDRAW_BATCH
