"""One game held in memory: its table (state and full log), record, stamps, clocks and the
values built from them that many callers share (each viewer's view, the latest batch).

A :class:`LiveGame` changes only through :meth:`LiveGame.absorb`, one committed batch at a
time; everything it hands out is a frozen value (:mod:`referee.application.tables.values`).

This is where the referee's one cache lives, :class:`LatestBatch`: what the viewers of the
latest committed batch receive, made once and dropped when the next batch is absorbed. A view
and a stamped event carry their encoding (made once, with the value), so a batch's events are
encoded once per distinct redaction and its views once per viewer (the fields every viewer's
view shares, worked out and encoded once for all of them), for every stream, command answer and
view request of that batch.
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from referee.application.tables.clocks import GameSettings, SeatClocks
from referee.application.tables.errors import RefereeError
from referee.application.tables.subscriber import Subscriber
from referee.application.tables.values import (
    SeatHolder,
    SeatStats,
    SeatView,
    StampedEvent,
    Summary,
    Update,
)
from referee.codec import ViewCommon, view_common
from referee.engine.game import Viewer
from referee.engine.outcomes import SeatEnd
from referee.engine.table import Table, View
from referee.store import CommandOutcome, GameRecord, SeatClaim
from referee.stored import Decided, read_batches

#: Per-seat counters kept in the store (timeouts and forfeits are in the log itself).
REJECTED, DISCONNECTS = "rejected", "disconnects"
#: Streams a seat opened: a counter in the store too, so that a replica can tell that a seat
#: that hung up here resumed on another one (not shown to clients).
OPENS = "stream_opens"
#: How long after the start a token seat first called, plus 1 (clocks.py): a counter in
#: the store so that restarts and replicas start its clock alike.
PRESENT = "present_ms"


def now_ms() -> int:
    """Unix time in milliseconds (clocks outlive the process, so wall-clock time)."""
    return int(time.time() * 1000)


#: The record's settings entry holding the claim codes' hashes: ``{str(seat): sha256 hex}``.
CLAIM_CODES = "claim_codes"
#: The record's settings entry set (true) when the game's reserved seats have ``reservation``
#: documents: only then does a claim look for one to delete (the lobby's games have none, and
#: their claims follow the creation at once: a paired player asks for its seat right away).
ANNOUNCED = "announced"
#: The only entries of its record's settings a live game reads: the rest is
#: :attr:`LiveGame.settings`, parsed (and the salt, in the table's config).
LIVE_SETTINGS = (CLAIM_CODES, ANNOUNCED)
#: A live record's settings when it has neither (shared by most games: nothing changes a
#: record's settings).
_NO_SETTINGS: dict[str, Any] = {}


#: A token's place in :attr:`LiveGame.token_digests` when the record holds no hash of it.
NO_DIGEST = bytes(32)


def live_record(record: GameRecord) -> tuple[GameRecord, bytes]:
    """``record`` as a live game holds it: only the settings it reads
    (:data:`LIVE_SETTINGS`: the whole dict, about 600 bytes, would be held for the game's
    life beside its parsed settings), and its token hashes apart, as the
    :attr:`LiveGame.token_digests` (hex strings, 113 bytes each, hold 32)."""
    settings = record.settings
    kept = {key: settings[key] for key in LIVE_SETTINGS if key in settings}
    hashes = (record.organiser_token_hash, *record.seat_token_hashes)
    digests = b"".join(bytes.fromhex(h) if h else NO_DIGEST for h in hashes)
    cut = dataclasses.replace(
        record, settings=kept or _NO_SETTINGS, seat_token_hashes=(), organiser_token_hash=""
    )
    return cut, digests


#: A redacted event whose encoding is at least this long is not kept for other viewers: in
#: the games only a deal's openings are (each seat's its own, with their salts and Merkle
#: paths: about 3.7 KB a seat in Vampire Queen), so no other viewer would share it, and an
#: idle game would hold every seat's until its next batch.
KEEP_REDACTED_BYTES = 1024


#: Messages made for the streams behind the latest batch (:meth:`LiveGame.absorb`): a
#: batched stream's by viewer and the version the batch starts after, a plain stream's
#: views by viewer and version; each with how many streams have yet to take it.
Carried = dict[tuple[Viewer, int], tuple[Update, int]]
Steps = dict[tuple[Viewer, int], tuple[SeatView, int]]


@dataclass(eq=False, slots=True)
class LatestBatch:
    """The latest committed batch as its viewers receive it, each part made once (the live
    game starts a new one for every batch)."""

    #: Each viewer's view after the batch (for a game without a running clock).
    views: dict[Viewer, SeatView] = field(default_factory=dict)
    #: The batch's events that the viewers so far saw whole, one value each for all of them
    #: (found by index: the redaction gave the event itself, so nothing to compare):
    #: ``{index: value}``.
    public: dict[int, StampedEvent] = field(default_factory=dict)
    #: The rest, one value per distinct redaction (seats that see the same part of an event
    #: share one value, so one encoding), but for long ones (:data:`KEEP_REDACTED_BYTES`):
    #: ``{(index, redacted event): value}``.
    events: dict[tuple[int, Any], StampedEvent] = field(default_factory=dict)
    #: The batch as each viewer's batched streams send it (a spectator's, a seat's), but for
    #: one that holds a long redaction (:data:`KEEP_REDACTED_BYTES`).
    updates: dict[Viewer, Update] = field(default_factory=dict)
    #: The views after each event of the batch but its last, for the plain streams that
    #: were following the game when it came (:meth:`LiveGame.past_view`), and those of
    #: earlier batches made for the plain streams behind when this one came
    #: (:meth:`LiveGame.absorb`), each with how many of its viewer's streams have yet to
    #: take it (then it goes): ``{(viewer, version): (view, streams)}``.
    steps: Steps = field(default_factory=dict)
    #: The batches before this one as each viewer's batched streams that had not taken
    #: them yet when this one came send them, each with how many of them have yet to take
    #: it: ``{(viewer, version it starts after): (update, streams)}`` (see
    #: :meth:`LiveGame.absorb`).
    carried: Carried = field(default_factory=dict)
    #: The first view made after the batch, and its fields that every viewer's view shares
    #: encoded: the other viewers' views take those fields from them, worked out and encoded
    #: once for all.
    common: tuple[View, ViewCommon] | None = None
    #: The batch's events as the store holds them (when this process appended it), from log
    #: index ``stored_from`` on: a viewer's copy of an event it sees whole is these bytes and
    #: its display text, the event and its stamps not encoded again.
    stored: Sequence[bytes] = ()
    stored_from: int = 0


#: No seat (shared: every game without gated seats has this one; an empty frozenset is
#: 216 bytes).
_NO_SEATS: frozenset[int] = frozenset()
#: No entries: a live game's claims and counters until its first (an empty dict takes 64
#: bytes; read-only, so what adds one gives the game a dict of its own).
_NO_ENTRIES: Mapping[Any, Any] = MappingProxyType({})


def _no_entries() -> Mapping[Any, Any]:
    return _NO_ENTRIES


@dataclass(eq=False, slots=True)
class LiveGame:
    game_id: str
    #: The game's record, its settings cut to those a live game reads and its token hashes
    #: in :attr:`token_digests` (:func:`live_record`).
    record: GameRecord
    table: Table[Any]
    #: The game's lock, made when a call first takes it (read through :attr:`lock`: an
    #: asyncio.Lock takes 100 bytes, and an idle game need not hold one).
    made_lock: asyncio.Lock | None = None
    #: The open streams, in the order they opened (a dict as an ordered set, the game's own
    #: from the first: :meth:`subscribe`; an empty one takes 64 bytes, and an idle game
    #: holds none).
    subscribers: Mapping[Subscriber, None] = field(default_factory=_no_entries)
    #: The commands accepted here, by id (None until the first: an idle game holds none).
    accepted: dict[str, CommandOutcome] | None = None
    #: Recently refused command ids, oldest first (a plain dict keeps the order; an empty
    #: OrderedDict takes twice its bytes; None until the first refusal).
    rejected: dict[str, tuple[str, RefereeError]] | None = None
    #: batch_ends[i] = sequence of the last event appended together with event i + 1.
    batch_ends: list[int] = field(default_factory=list)
    #: The version our append in flight reaches (0 if none): the store's notice of it is ours.
    writing: int = 0
    settings: GameSettings = field(default_factory=GameSettings)
    #: recorded_ms[i] = when the batch of event i + 1 was appended (unix ms).
    recorded_ms: list[int] = field(default_factory=list)
    #: sequence -> the stamp of the first event of a batch a decision caused (None until
    #: the first: a game just dealt has none).
    decided: dict[int, Decided] | None = None
    clocks: SeatClocks | None = None
    #: Per-seat counters kept in the store: {seat: {"rejected": n, "disconnects": n}} (a
    #: dict of its own from the first: :meth:`counters`).
    stats: Mapping[int, dict[str, int]] = field(default_factory=_no_entries)
    #: The timer of the next clock deadline.
    timer: asyncio.TimerHandle | None = None
    #: True once the game's end was recorded (store flag, active-games count).
    ended: bool = False
    #: When a call last used the game (monotonic seconds): idle games leave memory.
    touched: float = field(default_factory=time.monotonic)
    #: What the viewers of the latest batch receive (dropped by every new batch; made when
    #: a viewer first asks: an idle game holds none). Read through :attr:`latest`.
    made_for_latest: LatestBatch | None = None
    #: The store's claims of seats (their token hashes), by seat; refreshed from the store
    #: when the log names a claim made elsewhere (read-only: replaced, never changed).
    claims: Mapping[int, SeatClaim] = field(default_factory=_no_entries)
    #: A copy of the table that follows the log for the plain streams' past views (made
    #: when one first needs it; see :meth:`past_view`): one for the game rather than one per
    #: stream.
    stepper: Table[Any] | None = None
    #: The record's token hashes as SHA-256 digests, one bytes object: the organiser's, then
    #: each seat's (:data:`NO_DIGEST` where the record holds none); read through
    #: :meth:`seat_digest` and :meth:`organiser_digest`.
    token_digests: bytes = b""

    def __post_init__(self) -> None:
        self.record, self.token_digests = live_record(self.record)
        if self.clocks is None:
            settings = self.settings
            gated = _NO_SEATS
            if settings.clock.enabled:  # token seats start their clocks when they show up
                gated = frozenset(
                    seat
                    for seat in range(self.record.players)
                    if settings.plan(seat).mode == "token"
                )
            self.clocks = SeatClocks(
                settings.clock,
                self.record.players,
                gated=gated,
                grace_ms=settings.connect_grace_ms,
            )
        clocks = self.clocks
        for seat, counters in self.stats.items():
            if counters.get(PRESENT):
                clocks.mark_present(seat, counters[PRESENT])

    def subscribe(self, sub: Subscriber) -> None:
        subscribers = self.subscribers
        if not isinstance(subscribers, dict):
            subscribers = self.subscribers = {}
        subscribers[sub] = None

    def unsubscribe(self, sub: Subscriber) -> None:
        subscribers = self.subscribers
        if isinstance(subscribers, dict):
            subscribers.pop(sub, None)

    def counters(self, seat: int) -> dict[str, int]:
        """The seat's counters, to add to (the game's own dict of them made at the first)."""
        stats = self.stats
        if not isinstance(stats, dict):
            stats = self.stats = {}
        return stats.setdefault(seat, {})

    def seat_digest(self, seat: int) -> bytes | None:
        """The digest of ``seat``'s token as the record holds it; None when it holds none
        (a seat taken by a claim: its token's hash is the claim's)."""
        return self._digest(seat + 1) if seat >= 0 else None

    def organiser_digest(self) -> bytes | None:
        """The digest of the organiser's token; None for a game without one."""
        return self._digest(0)

    def _digest(self, place: int) -> bytes | None:
        digest = self.token_digests[32 * place : 32 * place + 32]
        return digest if len(digest) == 32 and digest != NO_DIGEST else None

    @property
    def lock(self) -> asyncio.Lock:
        """The game's lock (made at the first call that takes it)."""
        lock = self.made_lock
        if lock is None:
            lock = self.made_lock = asyncio.Lock()
        return lock

    @property
    def locked(self) -> bool:
        """A call holds the game's lock (asks without making one)."""
        return self.made_lock is not None and self.made_lock.locked()

    def accepted_outcome(self, command_id: str) -> CommandOutcome | None:
        """The outcome of ``command_id`` if this process accepted it."""
        return None if self.accepted is None else self.accepted.get(command_id)

    def accept(self, command_id: str, outcome: CommandOutcome) -> None:
        if self.accepted is None:
            self.accepted = {}
        self.accepted[command_id] = outcome

    def refusal(self, command_id: str) -> tuple[str, RefereeError] | None:
        """The fingerprint and refusal of ``command_id`` if it was refused recently here."""
        return None if self.rejected is None else self.rejected.get(command_id)

    def refuse(self, command_id: str, fingerprint: str, error: RefereeError, keep: int) -> None:
        """Remember a refusal, the latest ``keep`` of them (the oldest leave first)."""
        rejected = self.rejected
        if rejected is None:
            rejected = self.rejected = {}
        rejected[command_id] = (fingerprint, error)
        while len(rejected) > keep:
            del rejected[next(iter(rejected))]  # the oldest

    @property
    def latest(self) -> LatestBatch:
        """What the viewers of the latest batch receive, made at the first ask."""
        latest = self.made_for_latest
        if latest is None:
            latest = self.made_for_latest = LatestBatch()
        return latest

    @property
    def seat_clocks(self) -> SeatClocks:
        assert self.clocks is not None
        return self.clocks

    @property
    def over(self) -> bool:
        """The game ended (results, or an abort)."""
        return self.table.over

    @property
    def finished(self) -> bool:
        """Over, and nothing more to come on its own (the seed reveal is not pending)."""
        return self.table.over and not self.table.reveal_due()

    def absorb(
        self,
        events: Sequence[Any],
        recorded: int,
        decided: Decided | None,
        payloads: Sequence[bytes] = (),
    ) -> None:
        """Fold in one committed batch and its stamps (the table, clocks and metadata).
        ``payloads``: the batch as it was appended (:func:`referee.stored.encode_batch` of
        the same events and stamps), when the caller made it: kept with the batch while
        streams are open to send it (an idle game holds none)."""
        table = self.table
        first = table.version + 1
        behind = self._behind() if self.subscribers else None
        self.made_for_latest = None
        if payloads and self.subscribers:
            self.made_for_latest = LatestBatch(stored=payloads, stored_from=first - 1)
        if behind is not None:
            latest = self.latest
            latest.carried, latest.steps = behind
        table.extend(events)
        count = len(events)
        self.batch_ends.extend([table.version] * count)
        self.recorded_ms.extend([recorded] * count)
        if decided is not None and count:
            if self.decided is None:
                self.decided = {}
            self.decided[first] = decided
        clocks = self.seat_clocks
        if clocks.started_ms is None and table.started:
            clocks.started_ms = recorded  # connect grace counts from the deal
        clocks.fold(table.decisions(), recorded, decided)

    def _behind(self) -> tuple[Carried, Steps] | None:
        """The messages that open streams have yet to take of the latest batch, made now
        while the table is as they show it, and those made so of earlier batches that are
        still to be taken (called as the next batch comes); None if none.

        A stream takes a batch when its task next runs: after the next command, which may
        run in the same turn of the loop (a command on the memory store is done in its
        caller's turn, and the seats that decide together may each send theirs before
        another's stream runs), or once it has written its last message. Made here they cost
        what the stream would have spent on them; made later, from a copy of the table
        replayed from the start, they would cost the whole log. A stream that missed a
        batch's messages still replays, as does the organiser's delayed stream."""
        version = self.table.version
        if not version:
            return None
        start = bisect.bisect_left(self.batch_ends, version)  # where the latest batch starts
        before = self.made_for_latest
        carried: Carried = {}
        steps: Steps = {}
        for sub in tuple(self.subscribers):
            if sub.delayed or sub.sent >= version:
                continue
            if sub.plain:
                self._carry_views(sub, start, before.steps if before else {}, steps)
            else:
                self._carry_batches(sub, start, before.carried if before else {}, carried)
        return (carried, steps) if carried or steps else None

    def _carry_batches(self, sub: Subscriber, start: int, made: Carried, carried: Carried) -> None:
        """A batched stream's messages up to the latest batch: those ``made`` before that it
        has yet to take, then the latest batch's, into ``carried``."""
        viewer, at = sub.viewer, sub.sent
        while at < start:
            found = made.get((viewer, at))
            if found is None:
                return  # it missed one: it replays
            carried[(viewer, at)] = found
            at = self.batch_ends[at]
        if at != start:
            return
        found = carried.get((viewer, start))
        if found is None:
            found = (self.batch_update(viewer, start, self.table.version, None), 0)
        carried[(viewer, start)] = (found[0], found[1] + 1)

    def _carry_views(self, sub: Subscriber, start: int, made: Steps, steps: Steps) -> None:
        """A plain stream's views up to the latest version: those ``made`` before that it
        has yet to take, then the latest batch's, into ``steps``."""
        viewer, at = sub.viewer, sub.sent
        version = self.table.version
        while at < start:
            found = made.get((viewer, at + 1))
            if found is None:
                return  # it missed one: it replays
            at += 1
            steps[(viewer, at)] = found
        for after in range(at + 1, version + 1):
            key = (viewer, after)
            step = steps.get(key)
            if step is None:
                seen = self.view(viewer) if after == version else self.past_view(viewer, after)
                if seen is None:
                    return  # the game's stepper passed it: the stream makes its own
                step = (seen, 0)
            steps[key] = (step[0], step[1] + 1)

    def carried(self, viewer: Viewer, sent: int) -> Update | None:
        """The batch after event ``sent`` (the one before the latest) as ``viewer``'s batched
        stream sends it, if it was made for the stream when the latest came (then it goes
        once each of the viewer's streams that were behind took it)."""
        latest = self.made_for_latest
        if latest is None:
            return None
        found = latest.carried.get((viewer, sent))
        if found is None:
            return None
        update, streams = found
        if streams > 1:
            latest.carried[(viewer, sent)] = (update, streams - 1)
        else:
            del latest.carried[(viewer, sent)]
        return update

    def absorb_stored(self, payloads: Sequence[bytes]) -> None:
        """Fold in stored events (their payloads), batch by batch (loading, catching up)."""
        for batch in read_batches(payloads):
            recorded = batch.recorded_ms or now_ms()  # events from before stamps
            self.absorb(batch.events, recorded, batch.decided)

    def stamped(self, index: int, viewer: Viewer, *, redact: bool = True) -> StampedEvent:
        """Event ``index + 1`` as ``viewer`` may see it (or unredacted), with its stamps.
        Events of the latest batch are shared by every viewer who sees them alike."""
        table = self.table
        log = table.log
        whole = log[index]
        event = table.redact(whole, viewer) if redact else whole
        if self.batch_ends[index] != len(log):  # not of the latest batch: made each time
            return self._stamp(index, event, None)
        latest = self.latest
        if event is whole:  # the audience that sees it as it is: most events, most seats
            found = latest.public.get(index)
            if found is None:
                stored, offset = latest.stored, index - latest.stored_from
                kept = stored[offset] if 0 <= offset < len(stored) else None
                found = latest.public[index] = self._stamp(index, event, kept)
            return found
        key = (index, event)
        found = latest.events.get(key)
        if found is None:
            found = self._stamp(index, event, None)
            if len(found.data) < KEEP_REDACTED_BYTES:
                latest.events[key] = found
        return found

    def _stamp(self, index: int, event: Any, stored: bytes | None) -> StampedEvent:
        """Event ``index + 1`` as ``event`` (a viewer's copy), with its batch's stamps;
        ``stored``: its bytes as appended, when it is the event itself."""
        return StampedEvent(
            index + 1,
            event,
            self.batch_ends[index],
            self.recorded_ms[index],
            None if self.decided is None else self.decided.get(index + 1),
            game_type=self.record.game_type,
            stored=stored,
        )

    def past_view(self, viewer: Viewer, version: int) -> SeatView | None:
        """The view ``viewer`` had right after event ``version`` of the latest batch (not its
        last, whose view is :meth:`view`), for a plain stream that was following the game
        when the batch came. The game's :attr:`stepper` passes each event of the batch once,
        making the view of every plain stream's viewer after it; None when this one was not
        made (``version`` is outside the latest batch but its last, or the stepper passed
        it before the viewer's stream was listed): the stream then makes its own."""
        latest = self.latest
        found = _take(latest.steps, (viewer, version))
        if found is not None:
            return found
        table = self.table
        start = bisect.bisect_left(self.batch_ends, table.version)  # where the batch starts
        stepper = self.stepper
        if not start < version < table.version or (
            stepper is not None and stepper.version >= version
        ):
            return None
        if stepper is None:
            stepper = self.stepper = Table.replay(table.config, table.log[:start], table.settings)
        streams = Counter(sub.viewer for sub in self.subscribers if sub.plain)
        streams[viewer] = max(streams[viewer], 1)
        holders = self.view_holders()
        players = self.record.players
        while stepper.version < version:
            stepper.extend((table.log[stepper.version],))
            if stepper.version > start:
                for each, count in streams.items():
                    seen = SeatView(self.game_id, players, stepper.view(each), holders=holders)
                    latest.steps[(each, stepper.version)] = (seen, count)
        return _take(latest.steps, (viewer, version))

    def batch_update(
        self, viewer: Viewer, start: int, end: int, replica: Table[Any] | None
    ) -> Update:
        """Events ``start + 1 .. end`` (one batch, or the rest of one) as ``viewer`` may see
        them, with the view after them: the live view (and shared by every stream of
        ``viewer``) when ``end`` is the current version, else ``replica``'s at ``end``."""
        current = end == self.table.version
        first_of_batch = start == 0 or self.batch_ends[start - 1] == start
        if current and first_of_batch:
            cached = self.latest.updates.get(viewer)
            if cached is not None:
                return cached
        stamped = self.stamped
        events = tuple([stamped(i, viewer) for i in range(start, end)])
        if current:
            update = Update(events, self.view(viewer))
            # Not kept when it holds a long redaction (a seat's deal openings): that update is
            # its seat's alone, seldom asked for twice, and an idle game would hold it until
            # its next batch.
            if first_of_batch and all(len(e.data) < KEEP_REDACTED_BYTES for e in events):
                self.latest.updates[viewer] = update
            return update
        assert replica is not None and replica.version == end
        past = replica.view(viewer)
        return Update(
            events, SeatView(self.game_id, self.record.players, past, holders=self.view_holders())
        )

    def seat_stats(self) -> tuple[SeatStats, ...]:
        status = self.table.status
        clocks = self.seat_clocks
        out = []
        for seat in range(self.record.players):
            counters = self.stats.get(seat, {})
            commands, decision_ms_total = clocks.tally(seat)
            out.append(
                SeatStats(
                    seat=seat,
                    rejected_commands=counters.get(REJECTED, 0),
                    timeouts=status.timeouts[seat],
                    disconnects=counters.get(DISCONNECTS, 0),
                    forfeited=seat in status.forfeited,
                    commands=commands,
                    decision_ms_total=decision_ms_total,
                )
            )
        return tuple(out)

    @property
    def join_deadline_ms(self) -> int:
        """When a game waiting for players is aborted (unix ms); 0 once it started or ended,
        and for a game that never waits."""
        table = self.table
        if not self.settings.waits or table.started or table.over:
            return 0
        return int(self.record.created_at * 1000) + self.settings.join_deadline_ms

    def holders(self) -> tuple[SeatHolder, ...]:
        """Who holds each seat: from the log's claims and the game's seat plans. A game that
        keeps its players from each other until it starts names nobody before then."""
        status = self.table.status
        claims = status.claims
        if self.hides_players:
            return tuple(self._hidden_holder(seat) for seat in range(self.record.players))
        out = []
        left = status.left
        for seat in range(self.record.players):
            claimed = claims.get(seat)
            resigned = seat in status.resigned
            gone = left[seat].end if seat in left else SeatEnd.UNSPECIFIED
            if claimed is not None:
                holder = SeatHolder(seat, "held", claimed.player, claimed.kind.word, resigned, gone)
            else:
                plan = self.settings.plan(seat)
                if plan.mode == "open":
                    holder = SeatHolder(seat, "open", resigned=resigned, left=gone)
                elif plan.mode == "reserved":
                    holder = SeatHolder(seat, "reserved", plan.player, resigned=resigned, left=gone)
                else:
                    holder = SeatHolder(seat, "held", resigned=resigned, left=gone)
            out.append(holder)
        return tuple(out)

    @property
    def hides_players(self) -> bool:
        """True while the game keeps its players from each other: it hides its reservations
        and has neither started nor ended."""
        table = self.table
        return self.settings.hides_reservations and not table.started and not table.over

    def _hidden_holder(self, seat: int) -> SeatHolder:
        """A seat of a game that hides its players: held or reserved (or open), no name."""
        if seat in self.table.status.claims:
            return SeatHolder(seat, "held", hidden=True)
        mode = self.settings.plan(seat).mode
        if mode == "reserved":
            return SeatHolder(seat, "reserved", hidden=True)
        return SeatHolder(seat, "open" if mode == "open" else "held")

    def open_seats(self) -> list[int]:
        """The seats still to be claimed by anyone (not reserved ones)."""
        claims = self.table.status.claims
        return [
            seat
            for seat in range(self.record.players)
            if seat not in claims and self.settings.plan(seat).mode == "open"
        ]

    def view_holders(self) -> tuple[SeatHolder, ...]:
        """Holders for views: only in games whose seats were claimed or are to be (the views
        of token games stay as they were)."""
        if not self.settings.seats and not self.table.status.claims:
            return ()
        return self.holders()

    def summary(self, *, organiser: bool = False) -> Summary:
        """The game's description; the revealed seed only for the ``organiser`` (or for all
        when the game was created with ``public_reveal_waives_secrecy``)."""
        table = self.table
        status = table.status
        settings = self.settings
        revealed = None
        ending = table.ending()
        if status.revealed is not None and (organiser or settings.public_reveal):
            revealed = status.revealed.seed
        return Summary(
            game_id=self.game_id,
            game_type=self.record.game_type,
            players=self.record.players,
            options=dict(self.record.options),
            version=table.version,
            pending_seats=tuple(table.pending()),
            decisions=table.asked(),
            game_over=self.over,
            results=table.outcomes(),
            created_unix_ms=int(self.record.created_at * 1000),
            seed_commitment=status.commitment,
            deal_commitment=status.deal_commitment,
            seat_stats=self.seat_stats(),
            aborted=status.aborted is not None,
            abort_reason=status.aborted or "",
            defer_seed_reveal=settings.defer_seed_reveal,
            public_reveal_waives_secrecy=settings.public_reveal,
            public_reproducible_seed=settings.public_seed,
            seed_released=status.revealed is not None,
            card_commitments=settings.card_commitments,
            max_events=table.max_events,
            clock=settings.clock if settings.clock.enabled else None,
            revealed_seed=revealed,
            end_rule_id=ending.rule_id if ending is not None else "",
            end_reason=ending.reason if ending is not None else "",
            seat_holders=self.holders(),
            started=table.started,
            join_deadline_unix_ms=self.join_deadline_ms,
            listed=settings.listed,
            rated=settings.rated,
            organiser_audit=settings.organiser_audit,
            ranking=table.ranking,
            seats_left=table.seats_left(),
            referee_to_move=table.referee_to_move,
            no_show_loses=settings.no_show_loses,
            hide_reservations=settings.hides_reservations,
        )

    def view(self, viewer: Viewer) -> SeatView:
        """``viewer``'s current view. Built once per version for a game without a running
        clock (a command's answer and every stream of the seat share it)."""
        clocked = self.settings.clock.enabled and not self.over
        if not clocked:
            cached = self.latest.views.get(viewer)
            if cached is not None:
                return cached
        latest = self.latest
        if latest.common is None:
            view = self.table.view(viewer)
            latest.common = (view, view_common(self.game_id, self.record.players, view))
            common = latest.common[1]
        else:
            like, common = latest.common
            view = self.table.view(viewer, like)
        holders = self.view_holders()
        if clocked:  # the clocks say how much time is left now: never shared
            readings = self.seat_clocks.readings(now_ms(), self.table.status.forfeited)
            return SeatView(self.game_id, self.record.players, view, readings, holders, common)
        shared = SeatView(self.game_id, self.record.players, view, holders=holders, common=common)
        latest.views[viewer] = shared
        return shared

    def visible_version(self, now: int) -> int:
        """The last event the organiser may see now: ``organiser_delay_events`` behind and
        ``organiser_delay_ms`` old, at the end of a batch; everything once the game is over."""
        version = self.table.version
        if self.over or not self.settings.delayed:
            return version
        visible = max(0, version - self.settings.organiser_delay_events)
        if self.settings.organiser_delay_ms:
            cutoff = now - self.settings.organiser_delay_ms
            while visible > 0 and self.recorded_ms[visible - 1] > cutoff:
                visible -= 1
        while visible > 0 and self.batch_ends[visible - 1] != visible:
            visible -= 1
        return visible

    def view_at(self, viewer: Viewer, version: int) -> SeatView:
        """``viewer``'s view as of event ``version`` (the current one with clocks)."""
        if version >= self.table.version:
            return self.view(viewer)
        table = self.table
        past = Table.replay(table.config, table.log[:version], table.settings)
        return SeatView(
            self.game_id, self.record.players, past.view(viewer), holders=self.view_holders()
        )


def _take(
    steps: dict[tuple[Viewer, int], tuple[SeatView, int]], key: tuple[Viewer, int]
) -> SeatView | None:
    """A stream's view from ``steps``, gone once each of its viewer's streams took it (an
    idle game holds none of a batch's past views)."""
    found = steps.get(key)
    if found is None:
        return None
    seen, streams = found
    if streams > 1:
        steps[key] = (seen, streams - 1)
    else:
        del steps[key]
    return seen


__all__ = ["DISCONNECTS", "OPENS", "PRESENT", "REJECTED", "LatestBatch", "LiveGame", "now_ms"]
