"""The one rule for a game's results: how each seat ended, and the ranking that applies.

A game's rules rank its seats (:meth:`referee.engine.game.Game.results`). The referee adds
how each seat's game ended: it **finished** (played to the end), or it left before the end:
it **resigned** (``RESIGNED``), **forfeited** on time (``FORFEIT``: the clock's forfeit
limit), was **abandoned** (``ABANDONED``: its player went away, or the organiser removed it)
or was **absent** (``NO-SHOW``: its reserved seat was never claimed). From the moment a seat
leaves, the referee plays the game's default commands for it to the end; what they make of
its hand is the rules' business, not the seat's merit.

Which ranking applies is a table setting (:class:`Ranking`):

* ``RULES``: the rules' ranks as they are (a casual, unrated game may keep them);
* ``FINISHERS_FIRST`` (rule ``FINISHERS-FIRST``; every rated game, every tournament game):
  every seat that finished ranks above every seat that left, the finishers in the rules'
  order among themselves, the seats that left by when they left (the later, the better;
  seats that left together share a rank). A seat that left so ranks below each finisher,
  which is a loss to each finisher in any rating.

Everything here is sans-I/O, like the rest of the engine: the referee, the tournament
runner's in-process mode and a platform embedding the engine compute results with the one
function :func:`rank_outcomes`.

>>> from referee.engine.game import SeatResult
>>> rules = [SeatResult(0, 1, 1), SeatResult(1, 0, 2)]
>>> left = {0: SeatLeft(0, SeatEnd.RESIGNED, RESIGNED, "seat 0 resigned", 12)}
>>> [(o.seat, o.rank, o.rules_rank, o.end.name) for o in rank_outcomes(rules, left,
...     Ranking.FINISHERS_FIRST)]
[(0, 2, 1, 'RESIGNED'), (1, 1, 2, 'FINISHED')]
>>> [o.rank for o in rank_outcomes(rules, left, Ranking.RULES)]
[1, 2]
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.engine.game import SeatResult

#: The rule ids of the ways a seat leaves a game before its end, and of the ranking that puts
#: the seats that finished first.
RESIGNED = "RESIGNED"
FORFEIT = "FORFEIT"
ABANDONED = "ABANDONED"
NO_SHOW = "NO-SHOW"
FINISHERS_FIRST = "FINISHERS-FIRST"


class SeatEnd(enum.IntEnum):
    """How a seat's game ended (``referee.v1.SeatEnd``)."""

    #: Not said: the game runs, or a result from before seat ends were recorded.
    UNSPECIFIED = 0
    #: It played to the end.
    FINISHED = 1
    #: It resigned.
    RESIGNED = 2
    #: It forfeited on time (the clock's forfeit limit of timeouts).
    FORFEITED = 3
    #: Its player went away (its stream closed and did not come back within the reconnect
    #: window), or the organiser removed it (a bot that crashed or hung).
    ABANDONED = 4
    #: Its reserved seat was never claimed by the join deadline.
    ABSENT = 5

    @property
    def word(self) -> str:
        """The end as results files and reports name it (``"forfeited"``)."""
        return self.name.lower()

    @property
    def left(self) -> bool:
        """True for the ends of a seat that did not finish."""
        return self not in (SeatEnd.UNSPECIFIED, SeatEnd.FINISHED)


class Ranking(enum.IntEnum):
    """Which ranking a game's results follow (``referee.v1.Ranking``)."""

    UNSPECIFIED = 0
    #: The rules' ranks as they are, whatever the referee's default moves made of a seat
    #: that left (unrated casual games).
    RULES = 1
    #: Every seat that finished above every seat that left (rated and tournament games).
    FINISHERS_FIRST = 2


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """A seat that left the game before its end (``referee.v1.SeatLeft``): how, under which
    rule, why in words (public information only), and the sequence number of the event that
    recorded it (what orders the seats that left)."""

    seat: int
    end: SeatEnd
    rule_id: str
    reason: str
    version: int


@dataclass(frozen=True, slots=True)
class SeatOutcome:
    """One seat's result (``referee.v1.SeatResult``): ``rank`` is the one that applies (the
    ranking of the game's results), ``rules_rank`` the one the rules alone gave, ``score``
    the rules' score (what the default moves made of it, for a seat that left), ``end`` how
    its game ended, with the rule and the reason in words, and ``left_at_version`` the
    sequence number of the event that recorded its leaving (0 for a seat that finished)."""

    seat: int
    score: int
    rank: int
    end: SeatEnd = SeatEnd.FINISHED
    end_rule_id: str = ""
    end_reason: str = ""
    rules_rank: int = 0
    left_at_version: int = 0

    @property
    def finished(self) -> bool:
        return not self.end.left


def left_reason(seat: int, end: SeatEnd, detail: object = "") -> str:
    """Why ``seat`` left, in words from public information: ``detail`` is a forfeit's
    timeouts or an abandonment's cause.

    >>> left_reason(2, SeatEnd.FORFEITED, 3)
    'seat 2 forfeited on time after 3 timeouts'
    >>> left_reason(0, SeatEnd.ABANDONED, "the organiser removed it: no move within 10 s")
    'seat 0 abandoned the game: the organiser removed it: no move within 10 s'
    """
    if end is SeatEnd.RESIGNED:
        return f"seat {seat} resigned"
    if end is SeatEnd.FORFEITED:
        return f"seat {seat} forfeited on time after {detail} timeout{'' if detail == 1 else 's'}"
    if end is SeatEnd.ABANDONED:
        return f"seat {seat} abandoned the game" + (f": {detail}" if detail else "")
    if end is SeatEnd.ABSENT:
        return f"seat {seat} did not claim its reserved seat before the join deadline"
    return ""


def rank_outcomes(
    results: Sequence[SeatResult], left: Mapping[int, SeatLeft], ranking: Ranking
) -> tuple[SeatOutcome, ...]:
    """Every seat's outcome, by seat, from the rules' ``results``, the seats that ``left``
    and the ``ranking`` that applies (see the module's docstring). Ranks are competition
    ranks ("1224"): equal standing, equal rank.

    >>> from referee.engine.game import SeatResult
    >>> rules = [SeatResult(s, 0, r) for s, r in enumerate([1, 2, 2, 4])]
    >>> gone = {0: SeatLeft(0, SeatEnd.FORFEITED, FORFEIT, "", 30),
    ...         3: SeatLeft(3, SeatEnd.ABANDONED, ABANDONED, "", 10)}
    >>> [o.rank for o in rank_outcomes(rules, gone, Ranking.FINISHERS_FIRST)]
    [3, 1, 1, 4]
    """
    finishers_first = ranking is Ranking.FINISHERS_FIRST
    stayed = [r for r in results if r.seat not in left]
    outcomes = []
    for result in sorted(results, key=lambda r: r.seat):
        gone = left.get(result.seat)
        if gone is None:
            rank = result.rank
            if finishers_first:
                rank = 1 + sum(1 for other in stayed if other.rank < result.rank)
            outcomes.append(SeatOutcome(result.seat, result.score, rank, rules_rank=result.rank))
            continue
        rank = result.rank
        if finishers_first:
            later = sum(1 for other in left.values() if other.version > gone.version)
            rank = len(stayed) + 1 + later
        outcomes.append(
            SeatOutcome(
                result.seat,
                result.score,
                rank,
                gone.end,
                gone.rule_id,
                gone.reason,
                result.rank,
                gone.version,
            )
        )
    return tuple(outcomes)


__all__ = [
    "ABANDONED",
    "FINISHERS_FIRST",
    "FORFEIT",
    "NO_SHOW",
    "RESIGNED",
    "Ranking",
    "SeatEnd",
    "SeatLeft",
    "SeatOutcome",
    "left_reason",
    "rank_outcomes",
]
