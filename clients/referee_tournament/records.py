"""What one game of a tournament gave: per-seat results and the bots' faults."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee_tournament.schedule import GameSpec

#: Fault kinds the runner sees itself.
RUNNER_FAULTS = ("crash", "hang", "game_timeout")
#: Fault kinds only the referee can count (GameSummary.seat_stats, when it has them):
#: commands it refused (illegal, malformed, out of turn), clock timeouts (it played the
#: default command), streams the bot dropped during the game, a forfeit after too many timeouts.
REFEREE_FAULTS = ("rejected", "timeout", "disconnect", "clock_forfeit")

#: Game statuses. ``ok``: no fault; ``fallback``: a faulty seat was finished by the fallback
#: strategy; ``forfeit``: the game was stopped and the faulty seats ranked last; ``failed``: the
#: runner could not play it (not a bot's fault; left out of the standings).
STATUSES = ("ok", "fallback", "forfeit", "failed")


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

    def credited_rank(self, players: int) -> int:
        """The rank the bot itself earned: last when the fallback finished its seat (what the
        fallback then made of the seat is reported apart, never credited to the bot)."""
        return players if self.replaced else self.rank

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "rank": self.rank,
            "score": self.score,
            "replaced": self.replaced,
            "commands": self.commands,
            "decision_ms": self.decision_ms,
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

    @property
    def rated(self) -> bool:
        return self.status != "failed" and len(self.seats) == self.spec.players

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
