"""Events of the referee itself, the same for every game, and the small state they build.

A game's log holds the game's own events and, next to them, these *table events*: the seed
commitment (the first event of a refereed game), the seed reveal at the end, timeouts,
forfeits, default plays and an abort. :class:`~referee.engine.table.Table` folds them into a
:class:`TableStatus` and passes only the game's events to ``game.apply``, so games never see
them. Like everything under ``referee.engine`` this is sans-I/O: the server decides *when* a
clock runs out; the table only knows what a timeout does.

The commitment is ``SHA-256(salt || seed)`` in lowercase hex (``docs/fairness.md``), where the
salt is 32 bytes of the referee's own randomness, revealed only with the seed: a guessable seed
cannot be found from the commitment. Games from before salts have an empty salt:

>>> commitment(b"seed")
'19b25856e1c150ca834cffc8b59b23adbd0ec0389e58eb22b3b64768098d002b'
>>> commitment(b"seed", bytes(32)) == commitment(bytes(32) + b"seed")
True
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, fields
from typing import Any

from referee.engine import endings, outcomes
from referee.engine.game import Command, FixedDeal, Seat, SeatResult, Viewer
from referee.engine.outcomes import Ranking, SeatEnd, SeatLeft


def commitment(seed: bytes, salt: bytes = b"") -> str:
    """The published commitment to a seed: SHA-256 of the salt then the seed, lowercase hex."""
    return hashlib.sha256(salt + seed).hexdigest()


def deal_text(deal: FixedDeal) -> bytes:
    """The canonical form of a fixed deal that its commitment hashes: compact JSON, keys in
    this order, ASCII only.

    >>> deal_text(FixedDeal(decks=(("1", "Q"),), picks=(2,)))
    b'{"decks":[["1","Q"]],"picks":[2]}'
    """
    data = {"decks": [list(deck) for deck in deal.decks], "picks": list(deal.picks)}
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True).encode()


def deal_commitment(seed: bytes, deal: FixedDeal | None, salt: bytes = b"") -> str:
    """SHA-256 of the salt, the seed and :func:`deal_text`, lowercase hex; ``""`` without a
    fixed deal. The secrets in front keep a small deal from being guessed by trying every
    possibility against the commitment."""
    if deal is None:
        return ""
    return hashlib.sha256(salt + seed + deal_text(deal)).hexdigest()


@dataclass(frozen=True, slots=True)
class TableSettings:
    """The rules of the table around the game (chosen at creation, not game options).

    ``forfeit_after_timeouts``: after that many timeouts a seat forfeits and the referee plays
    its default commands to the end (0 = never). ``defer_reveal``: the seed is not revealed
    when the game ends but only on request (:meth:`Table.reveal`), e.g. while other games of a
    duplicate tournament are dealt from the same seed. ``public_reveal``: the reveal is public
    (every viewer sees the seed, so every hand of the game); by default only the full log,
    which only the organiser reads, carries it (the rules keep hands secret after the end).
    """

    forfeit_after_timeouts: int = 0
    defer_reveal: bool = False
    public_reveal: bool = False
    #: Per-card commitments and openings (docs/fairness.md section 6); off for games from
    #: before them, whose logs have none.
    card_commitments: bool = False
    #: The game ends (:class:`EventLimitReached`) once its log holds this many events;
    #: ``None``: the game's default (``GameInfo.max_events``), 0: no limit.
    max_events: int | None = None
    #: Which ranking the results follow (:mod:`referee.engine.outcomes`): the rules' own, or
    #: every seat that finished above every seat that left (rated and tournament games).
    ranking: Ranking = Ranking.RULES


@dataclass(frozen=True, slots=True)
class TableEvent:
    """Base class of the referee's own events (not passed to the game)."""

    def redacted(self, viewer: Viewer) -> TableEvent:
        """The event as ``viewer`` may see it (public unless a subclass hides a part)."""
        return self


@dataclass(frozen=True, slots=True)
class SeedCommitted(TableEvent):
    """The first event of a refereed game: SHA-256 of the salted secret seed (and of a fixed
    deal)."""

    commitment: str
    deal_commitment: str = ""


@dataclass(frozen=True, slots=True)
class SeedRevealed(TableEvent):
    """The seed, the salt and any fixed deal, released once the game is over.

    Unless ``public`` (a game created to waive the rules' end-of-game secrecy), every viewer
    sees it without them: the seed rebuilds every hand, which the rules keep secret for good
    (e.g. VQ-21/VQ-22). Only the unredacted log (the organiser's ``ExportGame``) holds them.
    """

    seed: bytes = field(repr=False)
    deal: FixedDeal | None = field(default=None, repr=False)
    salt: bytes = field(default=b"", repr=False)
    public: bool = False

    def redacted(self, viewer: Viewer) -> TableEvent:
        return self if self.public else _SEED_WITHHELD


#: The reveal as a viewer without the seed sees it: one object for all (encoded once).
_SEED_WITHHELD = SeedRevealed(b"")


@dataclass(frozen=True, slots=True)
class TimedOut(TableEvent):
    """``seat`` ran out of time deciding ``kind``; the game's events for ``command`` (its
    default command) follow. Only ``seat`` sees the command itself."""

    seat: Seat
    kind: str
    rule_id: str
    command: Command | None
    timeouts: int

    def redacted(self, viewer: Viewer) -> TableEvent:
        if viewer == self.seat or self.command is None:
            return self
        return TimedOut(self.seat, self.kind, self.rule_id, None, self.timeouts)


@dataclass(frozen=True, slots=True)
class SeatForfeited(TableEvent):
    """``seat`` reached the forfeit limit: from now on its default commands are played."""

    seat: Seat
    timeouts: int


@dataclass(frozen=True, slots=True)
class DefaultPlayed(TableEvent):
    """The referee played ``command`` (the default) for ``seat``, which has forfeited."""

    seat: Seat
    kind: str
    rule_id: str
    command: Command | None

    def redacted(self, viewer: Viewer) -> TableEvent:
        if viewer == self.seat or self.command is None:
            return self
        return DefaultPlayed(self.seat, self.kind, self.rule_id, None)


@dataclass(frozen=True, slots=True)
class GameAborted(TableEvent):
    """The organiser ended the game; it has no results. ``end_rule_id`` and ``end_reason``
    say so in words (filled in when not given, as in events stored before them)."""

    reason: str
    end_rule_id: str = ""
    end_reason: str = ""

    def __post_init__(self) -> None:
        if not self.end_reason:
            ending = endings.aborted(self.reason)
            object.__setattr__(self, "end_rule_id", ending.rule_id)
            object.__setattr__(self, "end_reason", ending.reason)


@dataclass(frozen=True, slots=True)
class EventLimitReached(TableEvent):
    """The game reached its event limit (``TableSettings.max_events``) without an end by its
    rules, and ends here, in public, with ``results``: the game's standing at this point
    (``Game.limit_results``: its scores so far, or a draw where the game has none)."""

    limit: int
    results: tuple[SeatResult, ...]
    #: Why the game ended, in words (filled in when not given, as in events stored before).
    end_rule_id: str = ""
    end_reason: str = ""

    def __post_init__(self) -> None:
        if not self.end_reason:
            ending = endings.limit_reached(self.limit)
            object.__setattr__(self, "end_rule_id", ending.rule_id)
            object.__setattr__(self, "end_reason", ending.reason)


class PlayerKind(enum.IntEnum):
    """What the player in a seat is (``referee.v1.PlayerKind``): unsaid for a seat held
    anonymously."""

    UNSPECIFIED = 0
    PERSON = 1
    BOT = 2

    @classmethod
    def named(cls, name: str) -> PlayerKind:
        """``"person"``, ``"bot"`` or ``""`` (as accounts and seat claims name kinds)."""
        return {"person": cls.PERSON, "bot": cls.BOT}.get(name, cls.UNSPECIFIED)

    @property
    def word(self) -> str:
        """The kind as accounts name it (``""`` when unsaid)."""
        return {PlayerKind.PERSON: "person", PlayerKind.BOT: "bot"}.get(self, "")


@dataclass(frozen=True, slots=True)
class SeatClaimed(TableEvent):
    """A player took ``seat`` (a claim, an accepted challenge, a pairing or the creator's
    own seat). Public: who sits where is part of the game's record, so replays and spectators
    see it. ``player`` is empty for a seat claimed anonymously (a claim code, no account).
    The claim that fills the table is in the batch that deals.

    ``hidden``: a claim of a game that keeps its players from each other until it starts (a
    rated game's reserved seats, so nobody can dodge an opponent): every viewer but the
    seat itself sees it without the player (the full log keeps it; the views show who sits
    where once the game has started)."""

    seat: Seat
    player: str
    kind: PlayerKind = PlayerKind.UNSPECIFIED
    hidden: bool = False

    def redacted(self, viewer: Viewer) -> TableEvent:
        if not self.hidden or viewer == self.seat:
            return self
        return SeatClaimed(self.seat, "", PlayerKind.UNSPECIFIED, True)


@dataclass(frozen=True, slots=True)
class SeatResigned(TableEvent):
    """``seat`` gave up: from now on the referee plays its default commands, as for a
    forfeited seat, to the end of the game (the game's rules decide what that costs it)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class SeatAbandoned(TableEvent):
    """``seat`` was abandoned: its player went away (its stream closed and did not come back
    within the reconnect window) or the organiser removed it (``reason`` says which, in
    public words). From now on the referee plays its default commands, as for a forfeited
    seat, to the end of the game."""

    seat: Seat
    reason: str


@dataclass(frozen=True, slots=True)
class SeatsAbsent(TableEvent):
    """The join deadline passed with ``seats`` reserved and never claimed, in a game that
    scores a no-show as a loss: the game ends here, before its deal, in public, with
    ``results``: the seats that were there share rank 1, the absent ones rank after them
    (scores 0: nothing was played)."""

    seats: tuple[int, ...]
    results: tuple[SeatResult, ...]
    end_rule_id: str = ""
    end_reason: str = ""

    def __post_init__(self) -> None:
        if not self.end_reason:
            ending = endings.no_show(self.seats)
            object.__setattr__(self, "end_rule_id", ending.rule_id)
            object.__setattr__(self, "end_reason", ending.reason)


def absent_results(players: int, absent: tuple[int, ...]) -> tuple[SeatResult, ...]:
    """The results of a game ended by :class:`SeatsAbsent`: the seats that were there share
    rank 1, the absent ones share the rank after them (competition ranks, as
    :func:`referee.engine.outcomes.rank_outcomes` gives: two seats ahead, so rank 3).

    >>> [r.rank for r in absent_results(3, (1,))]
    [1, 3, 1]
    """
    there = players - len(absent)
    return tuple(SeatResult(seat, 0, there + 1 if seat in absent else 1) for seat in range(players))


TABLE_EVENT_TYPES: tuple[type[TableEvent], ...] = (
    SeedCommitted,
    SeedRevealed,
    TimedOut,
    SeatForfeited,
    DefaultPlayed,
    GameAborted,
    EventLimitReached,
    SeatClaimed,
    SeatResigned,
    SeatAbandoned,
    SeatsAbsent,
)


#: No seat: the seat sets of a status before any seat forfeits or resigns (shared).
_NO_SEATS: frozenset[int] = frozenset()
#: Nobody left: the map of a status before any seat leaves, shared by every idle table. A
#: seat that leaves replaces the map, never changes it (typed read-only); a plain dict rather
#: than a MappingProxyType so that a table's status survives copy.deepcopy, as a search's
#: copies need.
_NOBODY_LEFT: Mapping[int, SeatLeft] = {}


@dataclass(slots=True)
class TableStatus:
    """What the table events built: commitment, reveal, timeouts, forfeits, abort, claims and
    resignations (a resigned seat is also forfeited, so the referee plays for it)."""

    players: int
    commitment: str = ""
    deal_commitment: str = ""
    revealed: SeedRevealed | None = None
    timeouts: list[int] = field(default_factory=list)
    #: The forfeited seats. Both seat sets start as one shared empty frozenset (every live
    #: game holds two for its whole life, and an empty set of its own would cost each game more
    #: than the seats it ever holds) and become a new set when a seat is added: :meth:`fold`
    #: never changes one in place.
    forfeited: AbstractSet[int] = _NO_SEATS
    aborted: str | None = None
    limit_reached: EventLimitReached | None = None
    #: Who claimed each seat (seats whose token went to the creator have none).
    claims: dict[int, SeatClaimed] = field(default_factory=dict)
    resigned: AbstractSet[int] = _NO_SEATS
    #: How many table events were folded (the table started once a game event came after).
    count: int = 0
    #: The seats that left before the end (resigned, forfeited, abandoned, absent), by seat
    #: (shared empty until the first leaves: :meth:`fold` makes a new dict then).
    left: Mapping[int, SeatLeft] = field(default_factory=lambda: _NOBODY_LEFT)
    #: The end at the join deadline with absent seats.
    absent: SeatsAbsent | None = None

    def __post_init__(self) -> None:
        if not self.timeouts:
            self.timeouts = [0] * self.players

    def copy(self) -> TableStatus:
        """An independent status: every list, set and dict field copied (what folding changes
        in place), the frozen events in them shared. A field added later is covered as long
        as it holds immutable values or such containers of them (it is checked by
        ``tests/engine/test_search.py``)."""
        twin = TableStatus.__new__(TableStatus)
        for spec in fields(self):
            value = getattr(self, spec.name)
            if isinstance(value, list | set | dict):
                value = value.copy()
            setattr(twin, spec.name, value)
        return twin

    def fold(self, event: TableEvent, at: int = 0) -> None:
        """Fold in ``event``, the log's event number ``at`` (what orders the seats that
        leave)."""
        self.count += 1
        if isinstance(event, SeedCommitted):
            self.commitment = event.commitment
            self.deal_commitment = event.deal_commitment
        elif isinstance(event, SeedRevealed):
            self.revealed = event
        elif isinstance(event, TimedOut):
            self.timeouts[event.seat] = event.timeouts
        elif isinstance(event, SeatForfeited):
            self.forfeited = {*self.forfeited, event.seat}
            self._leave(event.seat, SeatEnd.FORFEITED, outcomes.FORFEIT, at, event.timeouts)
        elif isinstance(event, GameAborted):
            self.aborted = event.reason
        elif isinstance(event, EventLimitReached):
            self.limit_reached = event
        elif isinstance(event, SeatClaimed):
            self.claims[event.seat] = event
        elif isinstance(event, SeatResigned):
            self.resigned = {*self.resigned, event.seat}
            self.forfeited = {*self.forfeited, event.seat}
            self._leave(event.seat, SeatEnd.RESIGNED, outcomes.RESIGNED, at)
        elif isinstance(event, SeatAbandoned):
            self.forfeited = {*self.forfeited, event.seat}
            self._leave(event.seat, SeatEnd.ABANDONED, outcomes.ABANDONED, at, event.reason)
        elif isinstance(event, SeatsAbsent):
            self.absent = event
            for seat in event.seats:
                self._leave(seat, SeatEnd.ABSENT, outcomes.NO_SHOW, at)

    def _leave(self, seat: int, end: SeatEnd, rule_id: str, at: int, detail: object = "") -> None:
        """Record the first way ``seat`` left (a resigned seat that times out stays resigned)."""
        if seat in self.left:
            return
        reason = outcomes.left_reason(seat, end, detail)
        self.left = {**self.left, seat: SeatLeft(seat, end, rule_id, reason, at)}

    @property
    def refereed(self) -> bool:
        """True for a game that committed to its seed (and so reveals it at the end)."""
        return bool(self.commitment)


def describe(event: Any) -> str:
    """A short name of a table event for messages, e.g. ``TimedOut(seat 2)``."""
    seat = getattr(event, "seat", None)
    name = type(event).__name__
    return f"{name}(seat {seat})" if seat is not None else name


__all__ = [
    "TABLE_EVENT_TYPES",
    "DefaultPlayed",
    "EventLimitReached",
    "GameAborted",
    "PlayerKind",
    "SeatAbandoned",
    "SeatClaimed",
    "SeatForfeited",
    "SeatResigned",
    "SeatsAbsent",
    "SeedCommitted",
    "SeedRevealed",
    "TableEvent",
    "TableSettings",
    "TableStatus",
    "TimedOut",
    "absent_results",
    "commitment",
    "deal_commitment",
    "deal_text",
    "describe",
]
