"""What one game of a tournament gave: per-seat results and the bots' faults."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee_tournament.schedule import GameSpec

#: Fault kinds the runner sees itself. ``absent``: a remote bot (``account:``) that did not
#: claim its reserved seat before the join deadline (the game is void, see STATUSES).
RUNNER_FAULTS = ("crash", "hang", "game_timeout", "absent")
#: Fault kinds only the referee can count (GameSummary.seat_stats, when it has them):
#: commands it refused (illegal, malformed, out of turn), clock timeouts (it played the
#: default command), streams the bot dropped during the game, a forfeit after too many timeouts.
REFEREE_FAULTS = ("rejected", "timeout", "disconnect", "clock_forfeit", "resigned")

#: Game statuses. ``ok``: no fault; ``fallback``: a faulty seat was finished by the fallback
#: strategy; ``forfeit``: the game was stopped and the faulty seats ranked last; ``failed``: the
#: runner could not play it (not a bot's fault; left out of the standings); ``void``: a remote
#: bot never took its seat, the game never started and is left out of the ratings (its
#: absence is counted against that bot only, never scored against the bots that were there).
STATUSES = ("ok", "fallback", "forfeit", "failed", "void")


@dataclass
class Fault:
    """Something a bot did wrong in one game."""

    bot: str
    seat: int
    kind: str
    count: int = 1
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "seat": self.seat,
            "kind": self.kind,
            "count": self.count,
            "detail": self.detail,
        }


@dataclass
class SeatRecord:
    seat: int
    bot: str
    rank: int
    #: The game's score (None for a forfeited game).
    score: int | None
    #: True when the fallback strategy finished this seat.
    replaced: bool = False
    #: The seat's own commands and their total decision time as the referee measured them
    #: (GameSummary.seat_stats; None without).
    commands: int | None = None
    decision_ms: int | None = None
    #: The seat forfeited by the clock (``forfeit_after_timeouts``) or resigned: the referee
    #: played its default commands from then on.
    forfeited: bool = False
    #: Decisions the referee made for this seat by default (``Decided.by`` TIMEOUT or
    #: FORFEIT: a timeout, a forfeited or resigned seat's default play).
    default_moves: int = 0

    @property
    def lost_by_fault(self) -> bool:
        """Someone else finished the seat: the fallback strategy, or the referee's default
        commands after a clock forfeit or a resignation."""
        return self.replaced or self.forfeited

    def credited_rank(self, players: int) -> int:
        """The rank the bot itself earned: last when the fallback or the referee's default
        commands finished its seat (what they made of it is never credited to the bot; the
        fallback's is reported apart)."""
        return players if self.lost_by_fault else self.rank

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "rank": self.rank,
            "score": self.score,
            "replaced": self.replaced,
            "commands": self.commands,
            "decision_ms": self.decision_ms,
            "forfeited": self.forfeited,
            "default_moves": self.default_moves,
        }


@dataclass
class GameRecord:
    spec: GameSpec
    status: str
    seats: list[SeatRecord] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    game_id: str = ""
    #: Commands the referee accepted (one per batch of events after the opening one).
    commands: int = 0
    seconds: float = 0.0
    #: The replay file, relative to the report.
    replay: str | None = None
    detail: str = ""
    #: The referee's commitment to the game's seed (docs/fairness.md), when it publishes one.
    seed_commitment: str = ""
    #: Whether the seed was revealed after the tournament (None: the referee cannot).
    seed_revealed: bool | None = None
    #: Whether ``referee verify`` passed on the game after the reveal (None: not checked).
    verified: bool | None = None

    #: The referee rated the game for the players' persisted ratings (a rated tournament).
    referee_rated: bool = False
    #: A remote bot held a seat (reserved for its account, claimed by the bot itself).
    remote: bool = False

    @property
    def rated(self) -> bool:
        """Counted in the standings: played (not failed, not void) with every seat."""
        return self.status not in ("failed", "void") and len(self.seats) == self.spec.players

    def to_json(self) -> dict[str, Any]:
        return {
            **self.spec.to_json(),
            "status": self.status,
            "game_id": self.game_id,
            "seats": [s.to_json() for s in self.seats],
            "faults": [f.to_json() for f in self.faults],
            "commands": self.commands,
            "seconds": round(self.seconds, 3),
            "replay": self.replay,
            "detail": self.detail,
            "seed_commitment": self.seed_commitment,
            "seed_revealed": self.seed_revealed,
            "verified": self.verified,
            "referee_rated": self.referee_rated,
            "remote": self.remote,
        }


def forfeit_seats(spec: GameSpec, offenders: set[int]) -> list[SeatRecord]:
    """A stopped game: the offending seats share the last rank, the others share rank 1.

    >>> from referee_tournament.schedule import GameSpec
    >>> spec = GameSpec(0, 0, "g", 3, {}, "s", ("a", "b", "c"), 0)
    >>> [(s.bot, s.rank) for s in forfeit_seats(spec, {1})]
    [('a', 1), ('b', 3), ('c', 1)]
    """
    return [
        SeatRecord(
            seat=seat,
            bot=bot,
            rank=spec.players if seat in offenders else 1,
            score=None,
        )
        for seat, bot in enumerate(spec.seating)
    ]
