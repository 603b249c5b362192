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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.engine.openings import CardsOpened, DeckCommitted
from referee.engine.table_events import (
    DefaultPlayed,
    GameAborted,
    SeatForfeited,
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
        shown = len(event.openings)
        return f"the referee proved {plural(shown, 'card')} against the committed decks"
    if isinstance(event, TimedOut):
        return f"{seat(event.seat)} ran out of time ({event.rule_id}); the referee played for it"
    if isinstance(event, SeatForfeited):
        return f"{seat(event.seat)} forfeited after {plural(event.timeouts, 'timeout')}"
    if isinstance(event, DefaultPlayed):
        return f"the referee played for {seat(event.seat)}, which has forfeited"
    if isinstance(event, GameAborted):
        return (
            f"the organiser aborted the game: {event.reason}"
            if event.reason
            else ("the organiser aborted the game")
        )
    return fallback(event)


@dataclass(frozen=True)
class _Example:
    value: int
    count: int
