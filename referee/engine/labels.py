"""Display text shared by the games' ``labels`` modules: words for numbers, seats and lists,
the fallback for a command or event a game has no text for, and the referee's own events.

Labels are for people to read next to a command or an event (``View.legal_command_labels``,
``Event.description``), never for programs to parse: the wording may change.

>>> number_word(3), plural(1, "queen"), plural(2, "queen"), join(["a", "b", "c"])
('three', '1 queen', '2 queens', 'a, b and c')
>>> fallback(_Example(value=8, count=3))
'example (value 8, count 3)'
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.engine.openings import CardsOpened, DeckCommitted
from referee.engine.registry import LABELS, game_module
from referee.engine.table_events import (
    DefaultPlayed,
    EventLimitReached,
    GameAborted,
    PlayerKind,
    SeatAbandoned,
    SeatClaimed,
    SeatForfeited,
    SeatResigned,
    SeatsAbsent,
    SeedCommitted,
    SeedRevealed,
    TableEvent,
    TimedOut,
)
from referee.engine.words import plain_words

_NUMBERS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]


def number_word(count: int) -> str:
    return _NUMBERS[count] if 0 <= count < len(_NUMBERS) else str(count)


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else many or word + 's'}"


def join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def seat(number: int) -> str:
    return f"seat {number}"


def fallback(value: Any) -> str:
    """A command or event in plain words from its type and fields (used where a game has no
    text of its own, so a label is never empty): :func:`referee.engine.words.plain_words`."""
    return plain_words(value)


def table_event_text(event: TableEvent) -> str:
    """The referee's own events, the same in every game."""
    if isinstance(event, SeedCommitted):
        return "the referee committed to a secret seed for the deals (checkable at the end)"
    if isinstance(event, SeedRevealed):
        if event.public:
            return "the referee revealed the seed: anyone can now re-check every deal"
        return "the referee gave the seed to the organiser, who can re-check every deal"
    if isinstance(event, DeckCommitted):
        return (
            f"the referee committed to the order of shuffle {event.shuffle} "
            f"({plural(event.size, 'card')}) before dealing from it"
        )
    if isinstance(event, CardsOpened):
        shown = event.count  # not the openings themselves: their proofs cost 22 hashes a card
        return f"the referee proved {plural(shown, 'card')} against the committed decks"
    if isinstance(event, TimedOut):
        return f"{seat(event.seat)} ran out of time ({event.rule_id}); the referee played for it"
    if isinstance(event, SeatForfeited):
        return f"{seat(event.seat)} forfeited after {plural(event.timeouts, 'timeout')}"
    if isinstance(event, DefaultPlayed):
        return f"the referee played for {seat(event.seat)}, which has left the game"
    if isinstance(event, GameAborted):
        return event.end_reason  # "the organiser aborted the game: <reason>"
    if isinstance(event, EventLimitReached):
        return f"game over: {event.end_reason} ({event.end_rule_id})"
    if isinstance(event, SeatClaimed):
        hidden = "a player (named once the game starts)" if event.hidden else "a player"
        who = event.player or hidden
        what = {PlayerKind.BOT: " (a bot)", PlayerKind.PERSON: ""}.get(event.kind, "")
        return f"{who}{what} took {seat(event.seat)}"
    if isinstance(event, SeatResigned):
        return f"{seat(event.seat)} resigned; the referee plays for it"
    if isinstance(event, SeatAbandoned):
        return f"{seat(event.seat)} abandoned the game ({event.reason}); the referee plays for it"
    if isinstance(event, SeatsAbsent):
        return f"game over: {event.end_reason} ({event.end_rule_id})"
    return fallback(event)


#: How wide and how many the lines of a view may be (``View.view_lines``): they must fit an
#: 80-column terminal next to the seats and the menu.
LINE_WIDTH, MOST_LINES = 78, 8


#: A text of a view's lines already wrapped (:func:`wrapped`): the lines every viewer of a
#: game at one version shares are wrapped once for all their views.
Wrapped = tuple[str, ...]
#: What every viewer's lines of a game at one version have alike (a game's ``public_text``):
#: its texts, each wrapped, in the game's order.
PublicText = tuple[Wrapped, ...]


def lines(*texts: str | Wrapped) -> tuple[str, ...]:
    """``texts`` (empty ones dropped) wrapped to :data:`LINE_WIDTH`, a wrapped text's further
    lines indented; at most :data:`MOST_LINES` lines, the last ending in "..." if cut. A text
    given wrapped already (:func:`wrapped`) is taken as it is.

    >>> lines("hand: " + " ".join(["Q"] * 40), "", "round 1 of 3")[1:]
    ('  Q Q Q Q', 'round 1 of 3')
    >>> len(lines(*["x"] * 20)), lines(*["x"] * 20)[-1]
    (8, 'x...')
    >>> lines(wrapped("round 1 of 3"), "your hand: Q") == lines("round 1 of 3", "your hand: Q")
    True
    """
    out: list[str] = []
    for text in texts:
        if type(text) is str:
            if text:
                out += _wrapped(text)
        else:
            out += text
    if len(out) > MOST_LINES:
        out = [*out[: MOST_LINES - 1], out[MOST_LINES - 1][: LINE_WIDTH - 3] + "..."]
    return tuple(out)


def wrapped(text: str) -> Wrapped:
    """``text`` as :func:`lines` lays it out (none for an empty one), for a text every viewer
    shares: wrapped once, then given to :func:`lines` as it is."""
    return tuple(_wrapped(text)) if text else ()


def _wrapped(text: str) -> list[str]:
    """``text`` as :func:`textwrap.wrap` lays it out (broken at spaces, further lines
    indented by two), by a plain greedy fill where every word fits a line: the wrapper's
    regular expressions cost more than the rest of a view's lines, and every view a stream
    sends has them. Other texts (runs of spaces, tabs, words longer than a line: no game
    writes them) go to the wrapper."""
    fits = 0 < len(text) <= LINE_WIDTH and text.isprintable() and "  " not in text
    if fits and text[0] != " " and text[-1] != " ":
        # One line (most of a view's texts): the fill below would give it back whole, word
        # by word, on every view.
        return [text]
    words = text.split(" ")
    plain = text.isprintable() and "" not in words  # one space between words, none around
    if not plain or any(len(word) > LINE_WIDTH - 2 for word in words):
        return textwrap.wrap(text, LINE_WIDTH, subsequent_indent="  ", break_on_hyphens=False)
    out: list[str] = []
    line = ""
    for word in words:
        if not line:
            line = word if not out else "  " + word
        elif len(line) + 1 + len(word) <= LINE_WIDTH:
            line = f"{line} {word}"
        else:
            out.append(line)
            line = "  " + word
    if line:
        out.append(line)
    return out


def view_lines(type_id: str, view: Any, public: PublicText | None = None) -> tuple[str, ...]:
    """A few lines of ``view`` (a seat's game view, already redacted) in the game's words
    (``View.view_lines``): the ``view_text(view)`` of the game's ``labels`` module, written
    from that view only; none for a game without one, so a new game needs nothing here.

    ``public``: what every viewer's lines of the game at this version have alike
    (:func:`public_text` of any viewer's view of it), for a game that writes its lines in two
    parts: its ``seat_text(view, public)`` then writes only the seat's own. The lines are
    those ``view_text(view)`` writes either way."""
    module = game_module(type_id, LABELS)
    if public is not None:
        assert module is not None, "public text comes from the game's labels module"
        return tuple(module.seat_text(view, public))
    text = getattr(module, "view_text", None)
    return tuple(text(view)) if text is not None else ()


def public_text(type_id: str, view: Any) -> PublicText | None:
    """What every viewer's lines (:func:`view_lines`) of the game at ``view``'s version have
    alike, from ``view`` (any viewer's): the ``public_text(view)`` of the game's ``labels``
    module, which writes its lines in two parts (``public_text`` from the fields every viewer
    sees alike, ``seat_text(view, public)`` the rest); ``None`` for a game that writes them
    in one (``view_text`` only), whose every view's lines are written whole."""
    text = getattr(game_module(type_id, LABELS), "public_text", None)
    return None if text is None else tuple(text(view))


#: The referee's own events a log may fold away: its commitments and proofs.
_TABLE_BOOKKEEPING = (SeedCommitted, SeedRevealed, DeckCommitted, CardsOpened)


def bookkeeping(type_id: str, event: Any) -> bool:
    """Whether a game log may fold ``event`` away by default (``Event.bookkeeping``): the
    referee's commitments and proofs, and the event types the game's ``labels`` module lists
    in ``BOOKKEEPING`` (a turn starting, a shuffle): nothing a player decides from."""
    if isinstance(event, _TABLE_BOOKKEEPING):
        return True
    if isinstance(event, TableEvent):
        return False
    listed: Any = getattr(game_module(type_id, LABELS), "BOOKKEEPING", ())
    return type(event) in listed


@dataclass(frozen=True)
class _Example:
    value: int
    count: int
