"""Why a game ended, in words and by rule: what every client shows at the end.

A game says why it ended through :meth:`referee.engine.game.Game.ending` (and, on the wire,
the fields ``end_rule_id`` and ``end_reason`` of its own end event); the table adds its own
ends, an abort and the event limit. The words are for people; programs read ``rule_id`` and
the results. They are written from public information only (the end event's fields, which
every viewer receives), so they never tell a seat what it may not see.

>>> winners_text([2, 1, 1], "wins", "win")
'seat 1 and seat 2 win'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Ending:
    """How a game ended: the rule that ended it (``"SQ-15"``, ``"EVENT-LIMIT"``,
    ``"ABORTED"``) and the reason in words (``"seat 2 woke 5 queens"``)."""

    rule_id: str
    reason: str


#: The rule ids of the table's own ends (also what a later command cites).
ABORTED = "ABORTED"
EVENT_LIMIT = "EVENT-LIMIT"
NO_SHOW = "NO-SHOW"


def winners_of(ranks: Sequence[int]) -> list[int]:
    """The seats ranked first."""
    return [seat for seat, rank in enumerate(ranks) if rank == 1]


def seats_text(seats: Sequence[int]) -> str:
    """``"seat 0"``, ``"seat 0 and seat 2"``, ``"seat 0, seat 1 and seat 3"``."""
    names = [f"seat {seat}" for seat in seats]
    if len(names) <= 1:
        return "".join(names) or "nobody"
    return ", ".join(names[:-1]) + " and " + names[-1]


def winners_text(ranks: Sequence[int], one: str, many: str) -> str:
    """The winners and the verb in number: ``"seat 1 wins"``, ``"seat 0 and seat 2 win"``."""
    winners = winners_of(ranks)
    return f"{seats_text(winners)} {one if len(winners) == 1 else many}"


def aborted(reason: str) -> Ending:
    """The organiser's abort (``GameAborted``): no results.

    >>> aborted("server maintenance").reason
    'the organiser aborted the game: server maintenance'
    """
    words = "the organiser aborted the game"
    return Ending(ABORTED, f"{words}: {reason}" if reason else words)


def limit_reached(limit: int) -> Ending:
    """The end at the event limit (``EventLimitReached``): the standing at that point."""
    return Ending(
        EVENT_LIMIT,
        f"the game reached its event limit of {limit} events without ending by its rules; "
        "the standing at that point is the result",
    )


def no_show(absent: Sequence[int]) -> Ending:
    """The end at the join deadline with reserved seats never claimed
    (``SeatsAbsent``): the absent seats lose.

    >>> no_show([1]).reason
    'seat 1 did not claim its reserved seat before the join deadline and loses'
    """
    verb = "did not claim its reserved seat" if len(absent) == 1 else "did not claim their seats"
    loses = "loses" if len(absent) == 1 else "lose"
    return Ending(NO_SHOW, f"{seats_text(absent)} {verb} before the join deadline and {loses}")


__all__ = [
    "ABORTED",
    "EVENT_LIMIT",
    "NO_SHOW",
    "Ending",
    "aborted",
    "limit_reached",
    "no_show",
    "seats_text",
    "winners_of",
    "winners_text",
]
