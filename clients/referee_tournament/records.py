"""What one game of a tournament gave: each seat's result as the referee gave it (how the
seat ended, its rank by the one rule) and the bots' faults.

The runner computes no rank of its own: a seat's ``rank``, ``end`` and ``end_reason`` are the
referee's ``SeatResult`` (docs/lobby.md, "Results"): every tournament game ranks the seats that
finished above the seats that left (resigned, forfeited on time, abandoned, absent), whatever
the referee's default moves made of a seat that left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee_tournament.schedule import GameSpec

#: Fault kinds the runner sees itself. ``absent``: a remote bot (``account:``) that did not
#: claim its reserved seat before the join deadline, or was offline when its game was made.
RUNNER_FAULTS = ("crash", "hang", "game_timeout", "absent")
#: Fault kinds only the referee can count (GameSummary.seat_stats, when it has them):
#: commands it refused (illegal, malformed, out of turn), clock timeouts (it played the
#: default command), streams the bot dropped during the game.
REFEREE_FAULTS = ("rejected", "timeout", "disconnect")

#: Game statuses. ``ok``: played to its end (the seats that left are in each seat's ``end``);
#: ``no_show``: ended by the referee at the join deadline, the absent bots ranked last
#: (scored); ``void``: a bot never took its seat and the referee voided the game (``no_show:
#: void``: replayed, see docs/tournaments.md); ``failed``: the runner could not play it (not a
#: bot's fault; left out of the standings).
STATUSES = ("ok", "no_show", "failed", "void")
#: How a seat's game ended (``SeatEnd``), as results.json names it.
ENDS = ("finished", "resigned", "forfeited", "abandoned", "absent")


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
    """One seat's result, as the referee gave it."""

    seat: int
    bot: str
    #: The rank by the one rule (1 = best; ties share).
    rank: int
    #: The game's score (what the default moves made of it, for a seat that left).
    score: int | None
    #: How the seat's game ended (:data:`ENDS`), the rule and the reason in words.
    end: str = "finished"
    end_rule_id: str = ""
    end_reason: str = ""
    #: The rank the rules alone gave the seat (what the default moves made of a seat that
    #: left): reported, never scored.
    rules_rank: int | None = None
    #: The seat's own commands and their total decision time as the referee measured them
    #: (GameSummary.seat_stats; None without).
    commands: int | None = None
    decision_ms: int | None = None
    #: Decisions the referee made for this seat by default (``Decided.by`` TIMEOUT or
    #: FORFEIT: a timeout, the default play of a seat that left).
    default_moves: int = 0

    @property
    def finished(self) -> bool:
        """True when the seat played to the end (its score is its own)."""
        return self.end == "finished"

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "rank": self.rank,
            "score": self.score,
            "end": self.end,
            "end_rule_id": self.end_rule_id,
            "end_reason": self.end_reason,
            "rules_rank": self.rules_rank,
            "commands": self.commands,
            "decision_ms": self.decision_ms,
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
    #: Earlier attempts of this deal and seating that were void (a bot absent), replayed.
    replays: int = 0

    @property
    def rated(self) -> bool:
        """Counted in the standings: scored by the referee (played, or a no-show) with every
        seat's result."""
        return self.status in ("ok", "no_show") and len(self.seats) == self.spec.players

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
            "replays": self.replays,
        }
