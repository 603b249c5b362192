"""Table settings chosen at creation, and the per-seat clocks of a live game.

Clocks are not part of the rules engine (it reads no clock): the server measures time. Every
batch of events records when it was appended (``Event.recorded_unix_ms``) and, for a batch a
seat's decision caused, whose decision it was and how long it took (``Event.decided``). Folding
those stamps in log order gives, for every pending decision, when it started and how much of
each seat's bank is left, so a restarted server recovers every deadline from the log alone.

A seat's decision *starts* with the batch after which the game first asks it (or asks it
something else, or asks it again after its own decision); batches other seats cause while it
keeps thinking about the same decision do not restart it. It may take ``decision_ms``; beyond
that its bank drains; when both are used up, the decision times out.

No clock runs before a seat is *present*: a game that waits for players deals (and so asks
anything) only when its table is full, and every claimed seat is present from its claim. A
seat whose token went to the creator (today's flow) is present from its first call (a view,
a stream, a command with its token) or ``connect_grace_ms`` after the start, whichever comes
first; until then its decision has not started. Presence is kept in the store's seat
counters (``present_ms``: how long after the start the seat first called, at least 1), so a
restarted server and other replicas agree on every deadline. Counters only add up: two
replicas recording the same first call at once add their offsets, which the grace period
bounds, so a deadline is never later than the grace period allows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.engine.game import Decision
from referee.engine.outcomes import Ranking
from referee.engine.table_events import TableSettings
from referee.stored import Decided, DecidedBy

#: Bounds of the settings a client may choose (milliseconds unless named otherwise).
MIN_DECISION_MS = 50
MAX_DECISION_MS = 24 * 3600 * 1000
MAX_BANK_MS = 7 * 24 * 3600 * 1000
MAX_FORFEIT_AFTER = 1000
MAX_DELAY_EVENTS = 1_000_000
MAX_DELAY_MS = 24 * 3600 * 1000
#: A game waiting for players is aborted if not full this long after its creation.
DEFAULT_JOIN_DEADLINE_MS = 600_000
MAX_JOIN_DEADLINE_MS = 7 * 24 * 3600 * 1000
#: A token seat's clock starts at the latest this long after the start (today's flow).
DEFAULT_CONNECT_GRACE_MS = 30_000
MAX_CONNECT_GRACE_MS = 3600 * 1000
#: How a seat is taken (``CreateGameRequest.seat_requests``).
SEAT_MODES = ("token", "open", "reserved", "creator")
#: The rankings a creator may ask for (``""``: the game's default) and what a no-show costs.
RANKINGS = ("", "rules", "finishers_first")
NO_SHOWS = ("", "loss", "void")


@dataclass(frozen=True, slots=True)
class Clock:
    """``CreateGameRequest.clock``; ``decision_ms == 0`` means no clock."""

    decision_ms: int = 0
    bank_ms: int = 0
    forfeit_after_timeouts: int = 0

    @classmethod
    def of(cls, decision_ms: int, bank_ms: int, forfeit_after_timeouts: int) -> Clock:
        """The clock of these values: :data:`NO_CLOCK` when all are 0 (shared by every game
        without a clock, as a live game holds its settings for its whole life)."""
        if not (decision_ms or bank_ms or forfeit_after_timeouts):
            return NO_CLOCK
        return cls(decision_ms, bank_ms, forfeit_after_timeouts)

    @property
    def enabled(self) -> bool:
        return self.decision_ms > 0

    def check(self) -> None:
        """:class:`ValueError` ``"clock.<field>: ..."`` for a clock beyond the bounds."""
        if self.decision_ms and not MIN_DECISION_MS <= self.decision_ms <= MAX_DECISION_MS:
            raise ValueError(
                f"clock.decision_ms: must be 0 (no clock) or {MIN_DECISION_MS}..{MAX_DECISION_MS}"
            )
        if self.bank_ms > MAX_BANK_MS:
            raise ValueError(f"clock.bank_ms: at most {MAX_BANK_MS}")
        if self.forfeit_after_timeouts > MAX_FORFEIT_AFTER:
            raise ValueError(f"clock.forfeit_after_timeouts: at most {MAX_FORFEIT_AFTER}")
        if not self.decision_ms and (self.bank_ms or self.forfeit_after_timeouts):
            raise ValueError("clock.decision_ms: required with bank_ms or forfeit_after_timeouts")


#: No clock (see :meth:`Clock.of`).
NO_CLOCK = Clock()


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """How one seat is to be taken: its token to the creator (``token``, today's flow),
    ``open`` (a claim code, or the lobby when the game is listed), ``reserved`` for the
    named ``player``, or held by the signed-in ``creator``."""

    mode: str = "token"
    player: str = ""

    @property
    def waits(self) -> bool:
        """True for a seat someone still has to claim (the game waits for it)."""
        return self.mode in ("open", "reserved")

    def check(self, seat: int) -> None:
        """:class:`ValueError` ``"seat_requests[i]...: ..."`` for a plan that makes no sense."""
        where = f"seat_requests[{seat}]"
        if self.mode not in SEAT_MODES:
            raise ValueError(f"{where}.mode: one of {', '.join(SEAT_MODES)}")
        if self.mode == "reserved" and not self.player:
            raise ValueError(f"{where}.player: required for a reserved seat")
        if self.mode != "reserved" and self.player:
            raise ValueError(f"{where}.player: only a reserved seat names its player")


@dataclass(frozen=True, slots=True)
class GameSettings:
    """The table settings of a game (not game options), stored with it as JSON."""

    clock: Clock = NO_CLOCK
    organiser_delay_events: int = 0
    organiser_delay_ms: int = 0
    defer_seed_reveal: bool = False
    #: The creator waived the rules' end-of-game secrecy: the reveal and ExportGame are public.
    public_reveal: bool = False
    #: The creator's seed may be guessed: the deal is public and reproducible.
    public_seed: bool = False
    #: Per-card commitments and openings (every new game; games from before have none).
    card_commitments: bool = False
    #: The event limit asked for at creation (None: the game type's default; 0: none).
    max_events: int | None = None
    #: How each seat is taken, by seat (empty: every seat's token to the creator).
    seats: tuple[SeatPlan, ...] = ()
    #: Listed in the lobby while it has open seats.
    listed: bool = False
    #: A game waiting for players is aborted if not full this long after its creation.
    join_deadline_ms: int = DEFAULT_JOIN_DEADLINE_MS
    #: A token seat's clock starts at its first call or this long after the start.
    connect_grace_ms: int = DEFAULT_CONNECT_GRACE_MS
    #: The players' ratings are updated at the end.
    rated: bool = False
    #: The organiser may export the full log after the end even with claimed seats (their
    #: claimants saw this setting in the summary before claiming).
    organiser_audit: bool = False
    #: The ranking asked for: ``"rules"``, ``"finishers_first"`` or ``""`` (the default:
    #: finishers first in a rated game, the rules' otherwise). Read :attr:`results_ranking`.
    ranking: str = ""
    #: What a reserved seat never claimed by the join deadline costs: ``"loss"``, ``"void"``
    #: or ``""`` (the default: a loss in a rated game, void otherwise). Read
    #: :attr:`no_show_loses`.
    no_show: str = ""
    #: Reserved seats show their player only to that player until the game starts.
    hide_reservations: bool = False

    @property
    def results_ranking(self) -> Ranking:
        """The ranking the results follow: finishers first in every rated game."""
        if self.rated or self.ranking == "finishers_first":
            return Ranking.FINISHERS_FIRST
        return Ranking.RULES

    @property
    def no_show_loses(self) -> bool:
        """True when a reserved seat never claimed by the join deadline loses the game
        (the game ends with ``SeatsAbsent``) rather than voiding it (an abort)."""
        return self.no_show == "loss" or (not self.no_show and self.rated)

    @property
    def hides_reservations(self) -> bool:
        """True when reserved seats show their player only to that player before the start:
        asked for, or a rated game with a reserved seat (nobody can dodge an opponent)."""
        return self.hide_reservations or (
            self.rated and any(plan.mode == "reserved" for plan in self.seats)
        )

    @property
    def waits(self) -> bool:
        """True for a game that deals only once its claimed seats are all held."""
        return any(plan.waits for plan in self.seats)

    def plan(self, seat: int) -> SeatPlan:
        """How ``seat`` is taken (a token seat for games without plans)."""
        return self.seats[seat] if seat < len(self.seats) else SeatPlan()

    def table(self) -> TableSettings:
        """The part the rules engine needs (forfeit limit, reveal policy)."""
        return TableSettings(
            forfeit_after_timeouts=self.clock.forfeit_after_timeouts,
            defer_reveal=self.defer_seed_reveal,
            public_reveal=self.public_reveal,
            card_commitments=self.card_commitments,
            max_events=self.max_events,
            ranking=self.results_ranking,
        )

    @property
    def delayed(self) -> bool:
        return bool(self.organiser_delay_events or self.organiser_delay_ms)

    def to_json(self) -> dict[str, Any]:
        return {
            "clock": {
                "decision_ms": self.clock.decision_ms,
                "bank_ms": self.clock.bank_ms,
                "forfeit_after_timeouts": self.clock.forfeit_after_timeouts,
            },
            "organiser_delay_events": self.organiser_delay_events,
            "organiser_delay_ms": self.organiser_delay_ms,
            "defer_seed_reveal": self.defer_seed_reveal,
            "public_reveal": self.public_reveal,
            "public_seed": self.public_seed,
            "card_commitments": self.card_commitments,
            "max_events": self.max_events,
            "seats": [{"mode": p.mode, "player": p.player} for p in self.seats],
            "listed": self.listed,
            "join_deadline_ms": self.join_deadline_ms,
            "connect_grace_ms": self.connect_grace_ms,
            "rated": self.rated,
            "organiser_audit": self.organiser_audit,
            "ranking": self.ranking,
            "no_show": self.no_show,
            "hide_reservations": self.hide_reservations,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameSettings:
        """Settings as stored; missing entries (games from before settings) take defaults."""
        clock = data.get("clock") or {}
        return cls(
            clock=Clock.of(
                decision_ms=int(clock.get("decision_ms", 0)),
                bank_ms=int(clock.get("bank_ms", 0)),
                forfeit_after_timeouts=int(clock.get("forfeit_after_timeouts", 0)),
            ),
            organiser_delay_events=int(data.get("organiser_delay_events", 0)),
            organiser_delay_ms=int(data.get("organiser_delay_ms", 0)),
            defer_seed_reveal=bool(data.get("defer_seed_reveal", False)),
            public_reveal=bool(data.get("public_reveal", False)),
            public_seed=bool(data.get("public_seed", False)),
            card_commitments=bool(data.get("card_commitments", False)),
            max_events=None if data.get("max_events") is None else int(data["max_events"]),
            seats=tuple(
                SeatPlan(str(p.get("mode", "token")), str(p.get("player", "")))
                for p in data.get("seats") or ()
            ),
            listed=bool(data.get("listed", False)),
            join_deadline_ms=int(data.get("join_deadline_ms", DEFAULT_JOIN_DEADLINE_MS)),
            connect_grace_ms=int(data.get("connect_grace_ms", DEFAULT_CONNECT_GRACE_MS)),
            rated=bool(data.get("rated", False)),
            organiser_audit=bool(data.get("organiser_audit", False)),
            ranking=str(data.get("ranking", "")),
            no_show=str(data.get("no_show", "")),
            hide_reservations=bool(data.get("hide_reservations", False)),
        )

    def check(self) -> None:
        """:class:`ValueError` ``"<field>: ..."`` for settings a creator may not choose."""
        self.clock.check()
        if self.organiser_delay_events > MAX_DELAY_EVENTS:
            raise ValueError(f"organiser_delay_events: at most {MAX_DELAY_EVENTS}")
        if self.organiser_delay_ms > MAX_DELAY_MS:
            raise ValueError(f"organiser_delay_ms: at most {MAX_DELAY_MS}")
        if not 0 < self.join_deadline_ms <= MAX_JOIN_DEADLINE_MS:
            raise ValueError(f"join_deadline_ms: 1..{MAX_JOIN_DEADLINE_MS} (0: the default)")
        if not 0 <= self.connect_grace_ms <= MAX_CONNECT_GRACE_MS:
            raise ValueError(f"connect_grace_ms: at most {MAX_CONNECT_GRACE_MS}")
        for seat, plan in enumerate(self.seats):
            plan.check(seat)
        if self.listed and not any(plan.mode == "open" for plan in self.seats):
            raise ValueError("listed: only a game with an open seat is listed")
        if self.rated and any(plan.mode == "token" for plan in self.seats or [SeatPlan()]):
            raise ValueError(
                "rated: every seat must be held by a named player (open, reserved or creator "
                "seats, no token seats)"
            )
        if self.ranking not in RANKINGS:
            raise ValueError("ranking: not a Ranking")
        if self.rated and self.ranking == "rules":
            raise ValueError(
                "ranking: a rated game ranks every seat that finished above every seat that "
                "left (RANKING_FINISHERS_FIRST)"
            )
        if self.no_show not in NO_SHOWS:
            raise ValueError("no_show: not a NoShow")


@dataclass(frozen=True, slots=True)
class SeatClock:
    """One seat's clock as of some moment (``referee.v1.SeatClock``): its bank, and for a
    pending decision the decision time left and when it times out (a forfeited seat, whose
    decisions the referee plays, has no deadline)."""

    seat: int
    bank_ms: int
    pending: bool = False
    remaining_ms: int = 0
    deadline_unix_ms: int = 0


@dataclass(slots=True)
class SeatClocks:
    """When each pending decision started, each seat's bank, and decision-time totals; and
    when each seat became present (see the module's docstring)."""

    clock: Clock
    players: int
    #: seat -> (unix ms the decision started, the decision), for every pending seat.
    starts: dict[int, tuple[int, Decision]] = field(default_factory=dict)
    #: Each seat's bank left; None without a clock (nothing reads it then).
    bank: list[int] | None = None
    #: Each seat's commands and their decision time in all; None until the first command
    #: (a game just dealt has none: :meth:`tally` reads them).
    commands: list[int] | None = None
    decision_ms_total: list[int] | None = None
    #: The seats whose clock waits for their presence (token seats of a clocked game).
    gated: frozenset[int] = frozenset()
    #: A gated seat's clock starts at its first call or this long after the start.
    grace_ms: int = DEFAULT_CONNECT_GRACE_MS
    #: When the game dealt (unix ms; None before).
    started_ms: int | None = None
    #: seat -> milliseconds after the start it first called (at least 1), for gated seats;
    #: None until the first (most games have no gated seat: no empty dict each).
    present_after: dict[int, int] | None = None

    def __post_init__(self) -> None:
        if self.clock.enabled:
            self.bank = [self.clock.bank_ms] * self.players

    def tally(self, seat: int) -> tuple[int, int]:
        """The seat's commands and their decision time in all (ms)."""
        if self.commands is None or self.decision_ms_total is None:
            return 0, 0
        return self.commands[seat], self.decision_ms_total[seat]

    def fold(
        self, decisions: Iterable[Decision], recorded_ms: int, decided: Decided | None
    ) -> None:
        """Account for one batch: ``decided`` (its stamp, if a decision caused it), and the
        ``decisions`` pending after it, recorded at ``recorded_ms``."""
        actor = -1
        if decided is not None:
            actor = decided.seat
            if decided.by is DecidedBy.COMMAND:
                if self.commands is None or self.decision_ms_total is None:
                    self.commands = [0] * self.players
                    self.decision_ms_total = [0] * self.players
                self.commands[actor] += 1
                self.decision_ms_total[actor] += decided.decision_ms
            bank = self.bank
            if bank is not None and decided.by is not DecidedBy.FORFEIT:
                over = max(0, decided.decision_ms - self.clock.decision_ms)
                bank[actor] = max(0, bank[actor] - over)
        starts: dict[int, tuple[int, Decision]] = {}
        for decision in decisions:
            before = self.starts.get(decision.seat)
            if before is None or before[1] != decision or decision.seat == actor:
                starts[decision.seat] = (recorded_ms, decision)
            else:
                starts[decision.seat] = before
        self.starts = starts

    def present_from(self, seat: int) -> int:
        """Unix ms from which ``seat`` counts as present (0: always, as a claimed seat)."""
        if seat not in self.gated or self.started_ms is None:
            return 0
        after = (
            self.grace_ms
            if self.present_after is None
            else self.present_after.get(seat, self.grace_ms)
        )
        return self.started_ms + min(after, self.grace_ms)

    def is_present(self, seat: int) -> bool:
        """True once the seat's first call was recorded (or its seat needs none)."""
        return seat not in self.gated or (
            self.present_after is not None and seat in self.present_after
        )

    def mark_present(self, seat: int, after_ms: int) -> None:
        """``seat`` first called ``after_ms`` after the start (at least 1)."""
        if self.present_after is None:
            self.present_after = {}
        self.present_after[seat] = after_ms

    def _start(self, seat: int) -> int | None:
        """When the seat's pending decision started counting (None: no decision)."""
        start = self.starts.get(seat)
        return None if start is None else max(start[0], self.present_from(seat))

    def elapsed(self, seat: int, now_ms: int) -> int:
        """Milliseconds the seat has been deciding (0 when it has no decision)."""
        start = self._start(seat)
        return max(0, now_ms - start) if start is not None else 0

    def deadline(self, seat: int) -> int | None:
        """When the seat's pending decision times out (unix ms); None without clock or
        decision."""
        start = self._start(seat)
        if start is None or self.bank is None:  # no clock
            return None
        return start + self.clock.decision_ms + self.bank[seat]

    def next_deadline(self, skip: Iterable[int] = ()) -> tuple[int, int] | None:
        """``(deadline, seat)`` of the earliest pending decision, not counting ``skip``."""
        skipped = set(skip)
        found = [
            (deadline, seat)
            for seat in self.starts
            if seat not in skipped and (deadline := self.deadline(seat)) is not None
        ]
        return min(found) if found else None

    def readings(self, now_ms: int, forfeited: Iterable[int] = ()) -> tuple[SeatClock, ...]:
        """Every seat's clock as of ``now_ms`` (empty without a clock)."""
        bank = self.bank
        if bank is None:  # no clock
            return ()
        out = set(forfeited)
        clocks = []
        for seat in range(self.players):
            start = self._start(seat)
            if start is None:
                clocks.append(SeatClock(seat, bank[seat]))
                continue
            used = max(0, now_ms - start)
            clocks.append(
                SeatClock(
                    seat,
                    bank_ms=max(0, bank[seat] - max(0, used - self.clock.decision_ms)),
                    pending=True,
                    remaining_ms=max(0, self.clock.decision_ms - used),
                    deadline_unix_ms=0
                    if seat in out
                    else start + self.clock.decision_ms + bank[seat],
                )
            )
        return tuple(clocks)


__all__ = [
    "DEFAULT_CONNECT_GRACE_MS",
    "DEFAULT_JOIN_DEADLINE_MS",
    "NO_CLOCK",
    "NO_SHOWS",
    "RANKINGS",
    "Clock",
    "GameSettings",
    "SeatClock",
    "SeatClocks",
    "SeatPlan",
]
