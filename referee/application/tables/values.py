"""What the referee application hands out: frozen values made of engine values.

A transport turns them into its messages (:mod:`referee.server.convert` for ``referee.v1``);
an embedding platform reads them as they are. A seat's view and a stamped event, which
streams send, also carry their ``referee.v1`` bytes (``data``), encoded once when the value
is made (by the stored-form mapper, :mod:`referee.stored`): the live game makes one view per
viewer and one stamped event per distinct redaction for each batch
(:class:`~referee.application.tables.live.LiveGame`), so every stream that sends them sends the same
bytes. ``data`` never takes part in equality.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field
from typing import Any

from referee.application.tables.clocks import Clock, SeatClock
from referee.codec import ViewCommon
from referee.engine.game import Decision, Viewer
from referee.engine.outcomes import Ranking, SeatEnd, SeatLeft, SeatOutcome
from referee.engine.table import View
from referee.stored import Decided, DecidedBy, described, event_bytes, view_bytes

__all__ = [
    "Claimed",
    "Created",
    "Decided",
    "DecidedBy",
    "Exported",
    "Page",
    "RecordedCommand",
    "SeatHolder",
    "SeatStats",
    "SeatView",
    "StampedEvent",
    "Submitted",
    "Summary",
    "Unreadable",
    "Update",
    "Watcher",
]


@dataclass(frozen=True, slots=True)
class Watcher:
    """Who reads a view or stream: the viewer (a seat, ``None`` for the spectator), and
    whether it is the organiser (who may watch any seat, behind by the organiser delay)."""

    viewer: Viewer
    organiser: bool = False


@dataclass(frozen=True, slots=True)
class SeatHolder:
    """Who holds a seat (``referee.v1.SeatHolder``): ``state`` is ``"open"``, ``"reserved"``
    (for ``player``, not claimed yet) or ``"held"``; ``player`` is empty for an open seat and
    for one held anonymously (its token went to the creator, or a claim code without an
    account). Never a token."""

    seat: int
    state: str
    player: str = ""
    kind: str = ""
    resigned: bool = False
    #: How the seat left the game before its end (unspecified while it plays, or finished).
    left: SeatEnd = SeatEnd.UNSPECIFIED
    #: The game keeps its players from each other until it starts (``player`` is empty).
    hidden: bool = False
    #: The player has a player stream open on any replica (set in the lobby's tables).
    online: bool = False


@dataclass(frozen=True, slots=True)
class SeatView:
    """A viewer's view of a game at one version, with every seat's clock when the game runs
    one (as of when the view was taken), and who holds each seat when seats were claimed."""

    game_id: str
    players: int
    view: View
    clocks: tuple[SeatClock, ...] = ()
    holders: tuple[SeatHolder, ...] = ()
    #: The view as a serialized ``referee.v1.View``.
    data: bytes = field(init=False, compare=False, repr=False)
    #: The fields every viewer's view of the game at this version shares, encoded already
    #: (the live game's, for the views of its latest batch); not kept.
    common: InitVar[ViewCommon | None] = None

    def __post_init__(self, common: ViewCommon | None) -> None:
        data = view_bytes(self.game_id, self.players, self.view, self.clocks, self.holders, common)
        object.__setattr__(self, "data", data)  # a frozen value: set once, here


@dataclass(frozen=True, slots=True)
class StampedEvent:
    """One event of the log, as some viewer may see it, with its batch's stamps."""

    sequence: int
    event: Any
    #: The sequence number of the last event of the batch this one belongs to.
    batch_end: int
    #: When the batch was appended (unix ms).
    recorded_ms: int
    #: What caused the batch (first event of a batch a decision caused only).
    decided: Decided | None = None
    #: The game type, which says how the event is written.
    game_type: str = field(kw_only=True)
    #: The event as a viewer receives it: a serialized ``referee.v1.Event`` with its stamps
    #: and display text.
    data: bytes = field(init=False, compare=False, repr=False)
    #: The event as stored (:func:`referee.stored.event_bytes` of the same event and stamps),
    #: when the caller has it: ``data`` is made from it, the event not encoded again; not
    #: kept.
    stored: InitVar[bytes | None] = field(default=None, kw_only=True)

    def __post_init__(self, stored: bytes | None) -> None:
        if stored is not None:
            data = described(self.game_type, self.event, stored)
        else:
            data = event_bytes(
                self.game_type,
                self.event,
                self.sequence,
                self.batch_end,
                self.recorded_ms,
                self.decided,
                described=True,
            )
        object.__setattr__(self, "data", data)  # a frozen value: set once, here


@dataclass(frozen=True, slots=True)
class Update:
    """One message of a game's stream: events (none in the first update; one per update in
    the plain form; one batch, or the rest of one, when batched) and the view after them."""

    events: tuple[StampedEvent, ...]
    view: SeatView


@dataclass(frozen=True, slots=True)
class SeatStats:
    """A seat's conduct so far (rejected commands, timeouts, disconnects, decision times)."""

    seat: int
    rejected_commands: int = 0
    timeouts: int = 0
    disconnects: int = 0
    forfeited: bool = False
    commands: int = 0
    decision_ms_total: int = 0


@dataclass(frozen=True, slots=True)
class Summary:
    """A game's public description (the revealed seed only for its organiser, or for all
    when the game waived end-of-game secrecy)."""

    game_id: str
    game_type: str
    players: int
    options: Mapping[str, str]
    version: int
    pending_seats: tuple[int, ...]
    decisions: tuple[Decision, ...]
    game_over: bool
    #: Each seat's result by the one rule (:mod:`referee.engine.outcomes`).
    results: tuple[SeatOutcome, ...] | None
    created_unix_ms: int
    seed_commitment: str
    deal_commitment: str
    seat_stats: tuple[SeatStats, ...]
    aborted: bool
    abort_reason: str
    defer_seed_reveal: bool
    public_reveal_waives_secrecy: bool
    public_reproducible_seed: bool
    seed_released: bool
    card_commitments: bool
    max_events: int
    clock: Clock | None
    revealed_seed: bytes | None = None
    #: Who holds each seat, by seat.
    seat_holders: tuple[SeatHolder, ...] = ()
    #: Every seat is held and the game has dealt (its clocks run from then on).
    started: bool = True
    #: A game waiting for players is aborted if not full by then (unix ms; 0: none).
    join_deadline_unix_ms: int = 0
    listed: bool = False
    rated: bool = False
    #: The organiser may export the full log after the end, claimed seats included.
    organiser_audit: bool = False
    #: Why the game ended (the rule and the reason in words); ``""`` while it runs.
    end_rule_id: str = ""
    end_reason: str = ""
    #: Which ranking the results follow; the seats that left before the end; whether the
    #: referee plays next for a seat that left.
    ranking: Ranking = Ranking.RULES
    seats_left: tuple[SeatLeft, ...] = ()
    referee_to_move: bool = False
    #: A reserved seat never claimed by the join deadline loses (else the game is void).
    no_show_loses: bool = False
    #: Reserved seats show their player only to that player until the start.
    hide_reservations: bool = False


@dataclass(frozen=True, slots=True)
class Created:
    """A new game: its summary, one token per seat (in seat order; ``""`` for a seat that is
    to be claimed, whose token only its claimant gets), the organiser's, and one claim code
    per open seat (``(seat, code)``: what a join link carries)."""

    summary: Summary
    seat_tokens: tuple[str, ...]
    organiser_token: str
    invitations: tuple[tuple[int, str], ...] = ()

    @property
    def game_id(self) -> str:
        return self.summary.game_id


@dataclass(frozen=True, slots=True)
class Claimed:
    """A seat taken: the game after the claim, the seat, and its token (for the claimant
    only; ``""`` for a seat claimed for a player who plays with its credential)."""

    summary: Summary
    seat: int
    token: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class Submitted:
    """An accepted command (or a retry of one): the events it appended and the seat's view
    right after them."""

    game_type: str
    seat: int
    first_sequence: int
    last_sequence: int
    #: True for a retry of a command already accepted (nothing was appended again).
    duplicate: bool
    view: SeatView
    #: The game's version when the answer was made.
    version: int


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A command a transport could not read (it still counts against the seat that sent it)."""

    field: str
    description: str


@dataclass(frozen=True, slots=True)
class RecordedCommand:
    """A command the referee accepted, as recorded: who, which events, how long it took."""

    seat: int
    first_sequence: int
    last_sequence: int
    decision_ms: int
    command: Any


@dataclass(frozen=True, slots=True)
class Exported:
    """The full log of a game whose seed is released, unredacted, and its commands."""

    summary: Summary
    events: tuple[StampedEvent, ...]
    commands: tuple[RecordedCommand, ...]


@dataclass(frozen=True, slots=True)
class Page:
    """A page of game summaries, newest first; ``next_offset`` is ``None`` on the last."""

    games: tuple[Summary, ...]
    next_offset: int | None
