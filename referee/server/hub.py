"""Live games in memory, backed by an event store.

The hub owns every loaded game: its table (state + full log), its seat-token hashes, a lock that
serialises its commands, and its open streams. Store calls run on one writer thread so nothing
blocks the event loop; the in-memory table changes only after the store has committed.

The hub is also the referee's own hand at the table (:meth:`GameHub._referee`): it times out
decisions whose clock ran out, plays the default commands of forfeited seats, reveals the seed
when a game ends, and keeps each seat's error accounting.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import structlog

from referee import codec
from referee.engine.game import Rejection, SetupRefused, Viewer
from referee.engine.registry import get_game
from referee.engine.table import Table, make_config
from referee.engine.table_events import SeatForfeited, TimedOut
from referee.server import errors, seeds
from referee.server.clocks import GameSettings, SeatClocks
from referee.server.errors import ClientError
from referee.server.metrics import Metrics
from referee.store import (
    CommandOutcome,
    DuplicateCommand,
    EventStore,
    GameNotFound,
    GameRecord,
    StoreError,
    VersionConflict,
)
from referee.stored import (
    decode_command,
    decode_deal,
    decode_events,
    encode_batch,
    encode_command,
    encode_deal,
    read_batches,
    stamp,
)
from referee.v1 import referee_pb2 as pb

log = structlog.get_logger("referee")

T = TypeVar("T")

#: How many rejected command ids per game are remembered (a retry returns the first outcome).
REJECTED_MEMORY = 256
#: Longest game id, game type or command id accepted (errors echo them; keep them short).
MAX_ID_LENGTH = 128
#: Longest abort reason (it is public, in the log).
MAX_REASON_LENGTH = 300
#: Most batches the referee appends in a row on its own (default plays of forfeited seats);
#: beyond it the game is aborted rather than played on forever.
AUTO_PLAY_LIMIT = 2000
#: How often a command is decided again after another writer appended first.
CONFLICT_RETRIES = 5
#: Per-seat counters kept in the store (timeouts and forfeits are in the log itself).
REJECTED, DISCONNECTS = "rejected", "disconnects"


def now_ms() -> int:
    """Unix time in milliseconds (clocks outlive the process, so wall-clock time)."""
    return int(time.time() * 1000)


@dataclass
class Limits:
    max_games: int = 10_000
    max_streams: int = 20_000
    stream_buffer: int = 256
    #: A stream whose client has not taken a message for this long is ended (0 = never).
    stream_stall_seconds: float = 10.0
    #: Most games held in memory; beyond it the least recently used idle ones are dropped
    #: (they load again from the store on demand).
    max_live_games: int = 2000
    #: A game nobody has used for this long (no call, no stream, no clock running) is
    #: dropped from memory.
    evict_idle_seconds: float = 120.0
    #: A game without a clock that has had no event and no open seat stream for this long
    #: is aborted as abandoned (0 = never).
    idle_expiry_seconds: float = 24 * 3600.0
    #: Summaries of finished games dropped from memory kept for ListGames.
    summary_cache: int = 1000


class StreamEnded(Exception):
    """Ends one stream with a status (overflow, shutdown)."""

    def __init__(self, error: ClientError) -> None:
        self.error = error


@dataclass(eq=False)
class Subscriber:
    queue: asyncio.Queue[int]
    overflowed: bool = False
    closing: ClientError | None = None
    #: The seat whose stream this is (``None``: a spectator or the organiser).
    seat: int | None = None


@dataclass(eq=False)
class LiveGame:
    game_id: str
    record: GameRecord
    table: Table[Any]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    accepted: dict[str, CommandOutcome] = field(default_factory=dict)
    rejected: OrderedDict[str, tuple[str, ClientError]] = field(default_factory=OrderedDict)
    #: batch_ends[i] = sequence of the last event appended together with event i + 1.
    batch_ends: list[int] = field(default_factory=list)
    #: The version our append in flight reaches (0 if none): the store's notice of it is ours.
    writing: int = 0
    settings: GameSettings = field(default_factory=GameSettings)
    #: recorded_ms[i] = when the batch of event i + 1 was appended (unix ms).
    recorded_ms: list[int] = field(default_factory=list)
    #: sequence -> the stamp of the first event of a batch a decision caused.
    decided: dict[int, pb.Decided] = field(default_factory=dict)
    clocks: SeatClocks | None = None
    #: Per-seat counters kept in the store: {seat: {"rejected": n, "disconnects": n}}.
    stats: dict[int, dict[str, int]] = field(default_factory=dict)
    #: The timer of the next clock deadline.
    timer: asyncio.TimerHandle | None = None
    #: True once the game's end was recorded (store flag, active-games count).
    ended: bool = False
    #: When a call last used the game (monotonic seconds): idle games leave memory.
    touched: float = field(default_factory=time.monotonic)
    #: The latest batch as each viewer's batched streams send it, built once for all of
    #: them (a spectator's, a seat's): ``{viewer: message}``; emptied by every new batch.
    latest_batch: dict[Viewer, pb.StreamGameResponse] = field(default_factory=dict)
    #: Each viewer's current view, once built (see :meth:`view`); emptied by every new batch.
    views: dict[Viewer, pb.View] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.clocks is None:
            self.clocks = SeatClocks(self.settings.clock, self.record.players)

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

    def absorb(self, events: Sequence[Any], recorded: int, decided: pb.Decided | None) -> None:
        """Fold in one committed batch and its stamps (the table, clocks and metadata)."""
        table = self.table
        first = table.version + 1
        self.latest_batch.clear()
        self.views.clear()
        table.extend(events)
        count = len(events)
        self.batch_ends.extend([table.version] * count)
        self.recorded_ms.extend([recorded] * count)
        if decided is not None and count:
            self.decided[first] = decided
        self.seat_clocks.fold(table.decisions(), recorded, decided)

    def absorb_messages(self, messages: Sequence[pb.Event]) -> None:
        """Fold in stored events, batch by batch (loading, catching up)."""
        for batch in read_batches(messages):
            recorded = batch.recorded_ms or now_ms()  # events from before stamps
            self.absorb(batch.events, recorded, batch.decided)

    def event_message(self, index: int, viewer: Viewer, *, redact: bool = True) -> pb.Event:
        """Event ``index + 1`` as ``viewer`` may see it (or unredacted), with its stamps."""
        table = self.table
        event = table.log[index]
        if redact:
            event = table.redact(event, viewer)
        message = codec.event_to_proto(self.record.game_type, event, index + 1, describe=True)
        return stamp(
            message, self.batch_ends[index], self.recorded_ms[index], self.decided.get(index + 1)
        )

    def batch_message(
        self, viewer: Viewer, start: int, end: int, replica: Table[Any] | None
    ) -> pb.StreamGameResponse:
        """Events ``start + 1 .. end`` (one batch, or the rest of one) as ``viewer`` may see
        them, with the view after them: the live view (and cached for every stream of
        ``viewer``) when ``end`` is the current version, else ``replica``'s at ``end``."""
        current = end == self.table.version
        first_of_batch = start == 0 or self.batch_ends[start - 1] == start
        if current and first_of_batch:
            cached = self.latest_batch.get(viewer)
            if cached is not None:
                return cached
        message = pb.StreamGameResponse()
        message.events.extend(self.event_message(i, viewer) for i in range(start, end))
        if current:
            message.view.CopyFrom(self.view(viewer))
            if first_of_batch:
                self.latest_batch[viewer] = message
        else:
            assert replica is not None and replica.version == end
            view = replica.view(viewer)
            message.view.CopyFrom(codec.view_to_proto(self.game_id, self.record.players, view))
        return message

    def seat_stats(self) -> list[pb.SeatStats]:
        status = self.table.status
        clocks = self.seat_clocks
        out = []
        for seat in range(self.record.players):
            counters = self.stats.get(seat, {})
            out.append(
                pb.SeatStats(
                    seat=seat,
                    rejected_commands=counters.get(REJECTED, 0),
                    timeouts=status.timeouts[seat],
                    disconnects=counters.get(DISCONNECTS, 0),
                    forfeited=seat in status.forfeited,
                    commands=clocks.commands[seat],
                    decision_ms_total=clocks.decision_ms_total[seat],
                )
            )
        return out

    def summary(self, *, organiser: bool = False) -> pb.GameSummary:
        """The game's description; the revealed seed only for the ``organiser`` (or for all
        when the game was created with ``public_reveal_waives_secrecy``)."""
        table = self.table
        status = table.status
        message = pb.GameSummary(
            game_id=self.game_id,
            game_type=self.record.game_type,
            players=self.record.players,
            options=dict(self.record.options),
            version=table.version,
            pending_seats=table.pending(),
            decisions=codec.decisions_to_proto(table.decisions()),
            game_over=self.over,
            results=codec.results_to_proto(table.results()),
            created_unix_ms=int(self.record.created_at * 1000),
            seed_commitment=status.commitment,
            deal_commitment=status.deal_commitment,
            seat_stats=self.seat_stats(),
            aborted=status.aborted is not None,
            abort_reason=status.aborted or "",
            defer_seed_reveal=self.settings.defer_seed_reveal,
            public_reveal_waives_secrecy=self.settings.public_reveal,
            public_reproducible_seed=self.settings.public_seed,
            seed_released=status.revealed is not None,
            card_commitments=self.settings.card_commitments,
            max_events=table.max_events,
        )
        if status.revealed is not None and (organiser or self.settings.public_reveal):
            message.revealed_seed = status.revealed.seed
        if self.settings.clock.enabled:
            message.clock.CopyFrom(self.settings.clock.to_proto())
        return message

    def view(self, viewer: Viewer) -> pb.View:
        """``viewer``'s current view. Built once per version for a game without a running
        clock (a command's response and every stream of the seat share it); callers copy it,
        never change it."""
        clocked = self.settings.clock.enabled and not self.over
        if not clocked:
            cached = self.views.get(viewer)
            if cached is not None:
                return cached
        message = codec.view_to_proto(self.game_id, self.record.players, self.table.view(viewer))
        if clocked:  # the clocks say how much time is left now: never cached
            message.clocks.extend(self.seat_clocks.to_proto(now_ms(), self.table.status.forfeited))
        else:
            self.views[viewer] = message
        return message

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

    def view_at(self, viewer: Viewer, version: int) -> pb.View:
        """``viewer``'s view as of event ``version`` (the current one with clocks)."""
        if version >= self.table.version:
            return self.view(viewer)
        table = self.table
        past = Table.replay(table.config, table.log[:version], table.settings)
        return codec.view_to_proto(self.game_id, self.record.players, past.view(viewer))


@dataclass(frozen=True, slots=True)
class Watcher:
    """Who reads a view or stream: the viewer, and whether it is the (delayed) organiser."""

    viewer: Viewer
    organiser: bool = False


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _fingerprint(seat: int, command: pb.Command) -> str:
    return hashlib.sha256(
        seat.to_bytes(4, "big") + command.SerializeToString(deterministic=True)
    ).hexdigest()


class GameHub:
    def __init__(self, store: EventStore, metrics: Metrics, limits: Limits) -> None:
        self.store = store
        self.metrics = metrics
        self.limits = limits
        self.games: dict[str, LiveGame] = {}
        self.streams = 0
        self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="store")
        self._loading: dict[str, asyncio.Future[LiveGame]] = {}
        self._tasks: set[asyncio.Future[Any]] = set()
        self._stop_listening: Callable[[], None] = lambda: None
        #: Games another replica announced that we looked at once (see :meth:`_appended`).
        self._heard_of: set[str] = set()
        self._active = 0
        # Loads decode and replay whole logs: on threads of their own, never on the event
        # loop (a cold load of a long game stalled every other call, issue 10).
        self._loader = concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="load")
        #: Summaries of finished games no longer in memory, least recently used first.
        self._summaries: OrderedDict[str, pb.GameSummary] = OrderedDict()
        #: Unix ms of the last event of every unfinished game (idle expiry), in memory or not.
        self._activity: dict[str, int] = {}
        self._sweeper: asyncio.Future[None] | None = None

    async def _store(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._writer, fn, *args)

    async def recover(self) -> int:
        """Count the unfinished games in the store (they load on first use) and listen to the
        store for appends made elsewhere; returns the number of games."""
        loop = asyncio.get_running_loop()

        def appended(game_id: str, version: int) -> None:  # called on a store thread
            loop.call_soon_threadsafe(self._appended, game_id, version)

        self._stop_listening = self.store.add_listener(appended)
        listed = await self._store(self.store.list_games)
        self._active = sum(1 for _, _, finished in listed if not finished)
        self.metrics.games_active.set(self._active)
        # Games with a clock run without anyone asking: load them now so their timers run.
        for record, _, finished in listed:
            if not finished and GameSettings.from_json(record.settings).clock.enabled:
                self._spawn(self._preload(record.game_id))
        unfinished = [record.game_id for record, _, finished in listed if not finished]
        self._spawn(self._read_activity(unfinished))
        self._sweeper = self._spawn(self._sweep())
        return len(listed)

    async def _read_activity(self, game_ids: list[str]) -> None:
        """When each unfinished game last had an event (the idle expiry's clock)."""
        for game_id in game_ids:
            try:
                version = await self._store(self.store.version, game_id)
                last = await self._store(self.store.read, game_id, max(0, version - 1), 1)
            except StoreError:
                continue
            stamp = decode_events(e.payload for e in last)[0].recorded_unix_ms if last else 0
            self._activity.setdefault(game_id, stamp or now_ms())

    async def _sweep(self) -> None:
        """Now and then: drop idle games from memory, abort abandoned ones."""
        limits = self.limits
        periods = [limits.evict_idle_seconds, limits.idle_expiry_seconds, 120.0]
        period = max(0.05, min(p for p in periods if p > 0) / 4)
        while True:
            await asyncio.sleep(period)
            try:
                await self._expire_abandoned()
                self._evict()
            except Exception:
                log.exception("sweep_failed")

    async def _expire_abandoned(self) -> None:
        expiry = self.limits.idle_expiry_seconds
        if expiry <= 0:
            return
        cutoff = now_ms() - int(expiry * 1000)
        for game_id, last in list(self._activity.items()):
            if last > cutoff:
                continue
            live = self.games.get(game_id) or await self.get(game_id)
            seats_here = any(sub.seat is not None for sub in live.subscribers)
            if live.over or live.settings.clock.enabled or seats_here:
                if live.over or live.settings.clock.enabled:
                    self._activity.pop(game_id, None)
                continue
            hours = expiry / 3600
            reason = (
                f"abandoned: no move and no seat connected for {hours:g} h"
                if hours >= 1
                else f"abandoned: no move and no seat connected for {expiry:g} s"
            )
            with contextlib.suppress(ClientError):
                await self._unit(self._abort_unit(live, reason))
                log.info("game_expired", game_id=game_id, reason=reason)

    def _keep(self, live: LiveGame) -> None:
        """Hold ``live`` in memory (dropping others beyond the bound)."""
        self.games[live.game_id] = live
        self._summaries.pop(live.game_id, None)
        live.touched = time.monotonic()
        if len(self.games) > self.limits.max_live_games:
            self._evict()

    def _evictable(self, live: LiveGame, now: float, idle: float) -> bool:
        """Nobody uses ``live``: no stream, no call holding it, no clock to run."""
        return (
            not live.subscribers
            and not live.lock.locked()
            and live.timer is None
            and live.game_id not in self._loading
            and now - live.touched >= idle
        )

    def _evict(self) -> None:
        """Drop the games idle for ``evict_idle_seconds``, then, while more than
        ``max_live_games`` are held, the least recently used of those nobody uses."""
        now = time.monotonic()
        idle = self.limits.evict_idle_seconds
        for live in list(self.games.values()):
            if self._evictable(live, now, idle):
                self._drop(live)
        excess = len(self.games) - self.limits.max_live_games
        if excess > 0:
            unused = [live for live in self.games.values() if self._evictable(live, now, 0)]
            unused.sort(key=lambda live: live.touched)
            for live in unused[:excess]:
                self._drop(live)

    def _drop(self, live: LiveGame) -> None:
        del self.games[live.game_id]
        if live.finished:  # nothing changes it without loading it again: keep its summary
            self._summaries[live.game_id] = live.summary()
            while len(self._summaries) > self.limits.summary_cache:
                self._summaries.popitem(last=False)

    async def _preload(self, game_id: str) -> None:
        try:
            await self.get(game_id)
        except Exception:
            log.exception("preload_failed", game_id=game_id)

    def _spawn(self, coroutine: Awaitable[T]) -> asyncio.Future[T]:
        """Run ``coroutine`` in the background, kept referenced until it is done."""
        task: asyncio.Future[T] = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_retrieve)
        return task

    async def _unit(self, coroutine: Awaitable[T]) -> T:
        """Run ``coroutine`` to its end whatever happens to the caller, and return its result.

        A client whose deadline expires, or which hangs up, cancels its call's task. Work that
        changes a game (decide, append to the store, fold into the live table, publish) must
        happen as a unit or not at all: cancelled half-way, the store would hold events the
        live game never saw, and every later command would conflict (issue 10). So such work
        runs in a task of its own that the caller only waits for; its outcome is dropped if
        nobody is left to hear it.
        """
        return await asyncio.shield(self._spawn(coroutine))

    # --- games ------------------------------------------------------------------------------

    async def create(self, request: pb.CreateGameRequest) -> tuple[LiveGame, list[str], str]:
        """A new game: (game, seat tokens, organiser token)."""
        if not request.game_type:
            raise errors.bad_request("game_type", "required (see ListGameTypes)")
        if len(request.game_type) > MAX_ID_LENGTH:
            raise errors.bad_request("game_type", "unknown game type (see ListGameTypes)")
        try:
            game = get_game(request.game_type)
        except KeyError as error:
            raise errors.bad_request("game_type", str(error.args[0])) from None
        if self._active >= self.limits.max_games:
            raise errors.exhausted("games", self.limits.max_games)
        try:
            seed = seeds.check_seed(request.seed, public=request.public_reproducible_seed)
            seeds.check_deal_size(request.deal)
            settings = GameSettings.from_request(request)
        except ValueError as error:
            field_name, _, description = str(error).partition(": ")
            raise errors.bad_request(field_name, description) from None
        deal = codec.deal_from_proto(request.deal) if request.HasField("deal") else None
        try:
            config = make_config(game, request.players, dict(request.options), seed, deal)
            table: Table[Any] = Table(game, config, settings.table())
            opening = table.opening()
        except SetupRefused as error:
            refused = errors.bad_request(error.field, str(error))
            if error.rule_id:  # named as a command's rejection names its rule
                refused.reason = "RULE_VIOLATION"
                refused.metadata["rule_id"] = error.rule_id
            raise refused from None
        except ValueError as error:
            raise errors.bad_request(_setup_field(str(error)), str(error)) from None
        # A prefix keeps tokens from starting with "-" (command lines would take it for a flag).
        tokens = [f"seat-{secrets.token_urlsafe(24)}" for _ in range(config.players)]
        organiser = f"org-{secrets.token_urlsafe(24)}"
        game_id = secrets.token_hex(8)
        record = GameRecord(
            game_id=game_id,
            game_type=config.game_type,
            players=config.players,
            options=dict(config.options),
            seed=config.seed,
            deal=encode_deal(deal),
            seat_token_hashes=tuple(hash_token(t) for t in tokens),
            created_at=time.time(),
            settings={**settings.to_json(), seeds.SALT_KEY: config.salt.hex()},
            organiser_token_hash=hash_token(organiser),
        )
        live = LiveGame(game_id, record, table, settings=settings)
        await self._unit(self._create_unit(live, opening))
        return live, tokens, organiser

    async def _create_unit(self, live: LiveGame, opening: list[Any]) -> None:
        """Store a new game and keep it live (see :meth:`_unit`)."""
        recorded = now_ms()
        payloads = encode_batch(live.record.game_type, opening, 1, recorded)
        await self._store(self.store.create_game, live.record, payloads)
        live.absorb(opening, recorded, None)
        self._keep(live)
        self._activity[live.game_id] = recorded
        self._active += 1
        self.metrics.games_active.set(self._active)
        self.metrics.game_created(live.record.game_type)
        self._arm(live)

    async def get(self, game_id: str) -> LiveGame:
        """The live game, loaded from the store (replayed) on first use."""
        if not game_id:
            raise errors.bad_request("game_id", "required")
        if len(game_id) > MAX_ID_LENGTH:
            raise errors.bad_request("game_id", f"at most {MAX_ID_LENGTH} characters")
        live = self.games.get(game_id)
        if live is not None:
            live.touched = time.monotonic()
            return live
        loading = self._loading.get(game_id)
        if loading is None:
            # One load per game however many calls ask at once; a caller that gives up does
            # not cancel it for the others.
            loading = self._spawn(self._load_and_keep(game_id))
            self._loading[game_id] = loading
        result: LiveGame = await asyncio.shield(loading)
        return result

    async def get_current(self, game_id: str) -> LiveGame:
        """:meth:`get`, and on a shared store also whatever other replicas appended by now, so
        a read here (GetView) shows at least what the client saw through another replica."""
        live = await self.get(game_id)
        if self.store.shared:
            await self._catch_up(live)
        return live

    async def _load_and_keep(self, game_id: str) -> LiveGame:
        try:
            live = await self._load(game_id)
            self._keep(live)
            self._spawn(self._resume(live))
            return live
        finally:
            del self._loading[game_id]

    async def _load(self, game_id: str) -> LiveGame:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._loader, self._load_now, game_id)
        except GameNotFound:
            raise errors.not_found(game_id) from None

    def _load_now(self, game_id: str) -> LiveGame:
        """Read a game from the store and replay it (on a loader thread: the store is safe to
        share by threads, and nothing here touches the event loop)."""
        record = self.store.get_game(game_id)
        stored = self.store.read(game_id, 0, None)
        config = make_config(
            get_game(record.game_type),
            record.players,
            record.options,
            record.seed,
            decode_deal(record.deal),
            seeds.stored_salt(record.settings),
        )
        settings = GameSettings.from_json(record.settings)
        stats = self.store.stats(game_id)
        table: Table[Any] = Table(get_game(record.game_type), config, settings.table())
        live = LiveGame(game_id, record, table, settings=settings, stats=stats)
        live.absorb_messages(decode_events(e.payload for e in stored))
        live.ended = live.over
        return live

    async def _resume(self, live: LiveGame) -> None:
        """After loading: whatever the referee had left to do (a reveal, overdue clocks)."""
        async with live.lock:
            await self._referee(live)
        self._publish(live)

    def authorise(self, live: LiveGame, token: str, spectator: bool) -> Viewer:
        """The seat a token belongs to; ``None`` for a spectator."""
        if not token:
            if spectator:
                return None
            raise ClientError(
                grpc.StatusCode.UNAUTHENTICATED,
                "seat_token is required (or set spectator for public information)",
                "TOKEN_MISSING",
            )
        digest = hash_token(token)
        for seat, expected in enumerate(live.record.seat_token_hashes):
            if hmac.compare_digest(digest, expected):
                return seat
        raise ClientError(
            grpc.StatusCode.PERMISSION_DENIED,
            "this token is not a seat token of this game",
            "TOKEN_INVALID",
            metadata={"game_id": live.game_id},
        )

    def authorise_organiser(self, live: LiveGame, token: str) -> None:
        """Raise unless ``token`` is the game's organiser token (seat tokens are refused)."""
        if not token:
            raise ClientError(
                grpc.StatusCode.UNAUTHENTICATED,
                "organiser_token is required (from CreateGameResponse)",
                "TOKEN_MISSING",
            )
        expected = live.record.organiser_token_hash
        if not expected or not hmac.compare_digest(hash_token(token), expected):
            raise ClientError(
                grpc.StatusCode.PERMISSION_DENIED,
                "this token is not the organiser token of this game",
                "TOKEN_INVALID",
                metadata={"game_id": live.game_id},
            )

    def watcher(
        self,
        live: LiveGame,
        seat_token: str,
        spectator: bool,
        organiser_token: str,
        as_seat: int | None,
    ) -> Watcher:
        """Who a GetView or StreamGame request reads as: a seat, a spectator or the organiser
        (any seat, delayed)."""
        if organiser_token:
            self.authorise_organiser(live, organiser_token)
            if as_seat is not None and not 0 <= as_seat < live.record.players:
                raise errors.bad_request("as_seat", f"must be a seat, 0..{live.record.players - 1}")
            return Watcher(as_seat, organiser=True)
        if as_seat is not None:
            if seat_token:
                raise ClientError(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "as_seat needs the organiser token; a seat token shows its own seat only",
                    "ORGANISER_ONLY",
                    metadata={"game_id": live.game_id},
                )
            self.authorise_organiser(live, organiser_token)  # raises UNAUTHENTICATED
        return Watcher(self.authorise(live, seat_token, spectator))

    def view_for(self, live: LiveGame, watcher: Watcher) -> pb.View:
        if watcher.organiser:
            return live.view_at(watcher.viewer, live.visible_version(now_ms()))
        return live.view(watcher.viewer)

    async def list_games(self, request: pb.ListGamesRequest) -> pb.ListGamesResponse:
        size = request.page_size or 100
        if not 0 < size <= 1000:
            raise errors.bad_request("page_size", "must be 1..1000")
        token = request.page_token or "0"
        if not (token.isascii() and token.isdigit()) or len(token) > 12:
            raise errors.bad_request("page_token", "not a token from ListGames")
        offset = int(token)
        listed = await self._store(self.store.list_games)
        chosen = [
            record
            for record, _, finished in reversed(listed)
            if (not request.game_type or record.game_type == request.game_type)
            and not (request.running_only and finished)
        ]
        page = chosen[offset : offset + size]
        response = pb.ListGamesResponse()
        for record in page:
            cached = self._summaries.get(record.game_id)
            if cached is not None and record.game_id not in self.games:
                self._summaries.move_to_end(record.game_id)
                response.games.append(cached)
            else:
                response.games.append((await self.get(record.game_id)).summary())
        if offset + size < len(chosen):
            response.next_page_token = str(offset + size)
        return response

    # --- commands ---------------------------------------------------------------------------

    async def submit(
        self, request: pb.SubmitCommandRequest
    ) -> tuple[LiveGame, int, pb.SubmitCommandResponse]:
        """Returns (game, seat, response). Raises ClientError."""
        arrival = now_ms()
        live = await self.get(request.game_id)
        seat = self.authorise(live, request.seat_token, spectator=False)
        assert seat is not None
        command_id = request.command_id
        if not command_id or len(command_id) > MAX_ID_LENGTH:
            raise errors.bad_request(
                "command_id", f"required, at most {MAX_ID_LENGTH} characters (e.g. a UUID)"
            )
        if not request.HasField("command"):
            self._count(live, seat, REJECTED)
            raise errors.bad_request("command", "required")
        try:
            game_type, command = codec.command_from_proto(request.command)
        except codec.CodecError as error:
            self._count(live, seat, REJECTED)
            raise errors.bad_request(error.field, error.description) from None
        if game_type != live.record.game_type:
            self._count(live, seat, REJECTED)
            raise errors.bad_request(
                "command", f"this game is {live.record.game_type}, not {game_type}"
            )
        fingerprint = _fingerprint(seat, request.command)
        response = await self._unit(
            self._submit_unit(live, seat, request, command, fingerprint, arrival)
        )
        return live, seat, response

    async def _submit_unit(
        self,
        live: LiveGame,
        seat: int,
        request: pb.SubmitCommandRequest,
        command: Any,
        fingerprint: str,
        arrival: int,
    ) -> pb.SubmitCommandResponse:
        """Decide, append, fold in and publish one command (see :meth:`_unit`)."""
        command_id = request.command_id
        async with live.lock:
            first = live.accepted.get(command_id)
            if first is not None:
                if first.fingerprint != fingerprint:
                    raise _reused(command_id)
                return self._accepted(live, seat, first, duplicate=True)
            # An id this process has not accepted may still be in the store (accepted before a
            # restart, or by another process). Such a retry is stale by now, so the store is
            # asked only when the command cannot be applied; one that can goes to the append,
            # which refuses a recorded id itself (DuplicateCommand): no extra store round trip.
            refused = live.rejected.get(command_id)
            if refused is not None:
                first = await self._recorded(live, command_id, fingerprint)
                if first is not None:
                    return self._accepted(live, seat, first, duplicate=True)
                if refused[0] != fingerprint:
                    raise _reused(command_id)
                raise refused[1]
            if live.settings.clock.enabled:
                # A decision whose time ran out before this command arrived times out first
                # (however late the timer task runs on a busy server).
                await self._referee(live, arrival)
            table = live.table
            # Another writer (a second process on a shared store) may have appended since we
            # last looked: then we catch up and decide again, a few times at most, instead of
            # answering ABORTED to a client that asked for no particular version.
            for _attempt in range(CONFLICT_RETRIES):
                expected = request.expected_version if request.HasField("expected_version") else 0
                if expected > table.version:
                    # The client saw events we have not: another replica appended them and
                    # its notice is still on the way. Read them now rather than refuse.
                    await self._follow_store(live)
                if (
                    request.HasField("expected_version")
                    and request.expected_version != table.version
                ):
                    first = await self._recorded(live, command_id, fingerprint)
                    if first is not None:
                        return self._accepted(live, seat, first, duplicate=True)
                    raise errors.version_conflict(request.expected_version, table.version, seat)
                try:
                    events = table.decide(seat, command)
                except Rejection as rejection:
                    if self.store.shared and await self._follow_store(live):
                        continue  # we were behind another replica: decide on the current state
                    first = await self._recorded(live, command_id, fingerprint)
                    if first is not None:
                        return self._accepted(live, seat, first, duplicate=True)
                    violation = errors.rule_violation(rejection, seat)
                    live.rejected[command_id] = (fingerprint, violation)
                    while len(live.rejected) > REJECTED_MEMORY:
                        live.rejected.popitem(last=False)
                    self._count(live, seat, REJECTED)
                    raise violation from None
                version = table.version
                decision_ms = live.seat_clocks.elapsed(seat, arrival)
                outcome = CommandOutcome(
                    command_id=command_id,
                    seat=seat,
                    fingerprint=fingerprint,
                    first_sequence=version + 1,
                    last_sequence=version + len(events),
                    payload=encode_command(request.command),
                    decision_ms=decision_ms,
                )
                decided = pb.Decided(
                    seat=seat,
                    decision_ms=decision_ms,
                    client_decision_ms=request.client_decision_ms,
                )
                try:
                    await self._commit(live, events, decided, outcome)
                except DuplicateCommand as duplicate:  # recorded before (a retry) or elsewhere
                    if duplicate.outcome.fingerprint != fingerprint:
                        raise _reused(command_id) from None
                    await self._follow_store(live)  # it may be ahead of us
                    return self._accepted(live, seat, duplicate.outcome, duplicate=True)
                except VersionConflict:
                    await self._follow_store(live)
                    continue
                break
            else:
                raise errors.not_now("the game is busy; try again", "BUSY")
            live.accepted[command_id] = outcome
            self.metrics.decision_seconds.labels(live.record.game_type).observe(decision_ms / 1000)
            response = self._accepted(live, seat, outcome, duplicate=False)  # right after it
            await self._referee(live)
        self._publish(live)
        return response

    async def _commit(
        self,
        live: LiveGame,
        events: list[Any],
        decided: pb.Decided | None,
        outcome: CommandOutcome | None = None,
    ) -> None:
        """Append one batch (atomically, with ``outcome`` if a command caused it), then fold
        it in. Call with the game's lock held. Raises the store's errors."""
        version = live.table.version
        recorded = now_ms()
        payloads = encode_batch(live.record.game_type, events, version + 1, recorded, decided)
        started = time.perf_counter()
        live.writing = version + len(events)
        try:
            await self._store(self.store.append, live.game_id, version, payloads, outcome)
        finally:
            live.writing = 0
        self.metrics.store_append.observe(time.perf_counter() - started)
        live.absorb(events, recorded, decided)
        if live.over:
            self._activity.pop(live.game_id, None)
        else:
            self._activity[live.game_id] = recorded

    # --- the referee's own moves ------------------------------------------------------------

    async def _referee(self, live: LiveGame, now: int | None = None) -> None:
        """Everything the referee must do by itself now, each as its own batch: reveal the
        seed of a game that ended, play the default commands of forfeited seats, time out the
        decisions whose clock ran out by ``now``. Then record the end of the game and set the
        timer of the next deadline. Call with the game's lock held; never raises a store error
        (what was committed stays committed; another writer's appends are caught up)."""
        table = live.table
        before = table.version
        try:
            for _ in range(AUTO_PLAY_LIMIT):
                if table.reveal_due():
                    await self._commit(live, table.reveal(), None)
                elif (played := table.forfeited_play()) is not None:
                    seat = played[0].seat
                    by = pb.DECIDED_BY_FORFEIT
                    await self._commit(live, played, pb.Decided(seat=seat, by=by))
                elif (due := self._overdue(live, now_ms() if now is None else now)) is not None:
                    await self._time_out(live, *due)
                else:
                    break
            else:
                if not table.over:
                    reason = "the forfeited seats' default commands did not end the game"
                    await self._commit(live, table.abort(reason), None)
                    log.warning("game_aborted", game_id=live.game_id, reason=reason)
        except VersionConflict:
            # Another replica acted first (typically the same timeout, which must land once):
            # not a failure; follow the store so the timer below is set from the real state.
            log.info("referee_append_lost", game_id=live.game_id)
            try:
                await self._follow_store(live)
            except StoreError:
                self._spawn(self._catch_up(live))
        except StoreError as error:
            log.warning("referee_append_failed", game_id=live.game_id, error=str(error))
            self._spawn(self._catch_up(live))
        if table.over and not live.ended:
            live.ended = True
            with contextlib.suppress(StoreError):
                await self._store(self.store.set_finished, live.game_id, True)
            self._active -= 1
            self.metrics.games_active.set(self._active)
            self.metrics.game_ended(live)
        self._arm(live)
        if table.version != before:
            self._publish(live)

    def _overdue(self, live: LiveGame, now: int) -> tuple[int, int] | None:
        """``(seat, elapsed ms)`` of the earliest decision whose time ran out by ``now``."""
        if not live.settings.clock.enabled or live.table.over:
            return None
        status = live.table.status
        first = live.seat_clocks.next_deadline(skip=status.forfeited)
        if first is None or first[0] > now:
            return None
        seat = first[1]
        return seat, live.seat_clocks.elapsed(seat, now)

    async def _time_out(self, live: LiveGame, seat: int, elapsed: int) -> None:
        try:
            events = live.table.time_out(seat)
        except Rejection as rejection:  # no legal command: a game bug, never a client's
            log.error("timeout_impossible", game_id=live.game_id, seat=seat, error=str(rejection))
            live.seat_clocks.starts.pop(seat, None)  # do not try again for this decision
            return
        decided = pb.Decided(seat=seat, decision_ms=elapsed, by=pb.DECIDED_BY_TIMEOUT)
        await self._commit(live, events, decided)
        timed_out = events[0]
        assert isinstance(timed_out, TimedOut)
        game_type = live.record.game_type
        self.metrics.seat_errors.labels(game_type, "timeout").inc()
        forfeited = any(isinstance(e, SeatForfeited) for e in events)
        if forfeited:
            self.metrics.seat_errors.labels(game_type, "forfeit").inc()
        log.info(
            "timeout",
            game_id=live.game_id,
            seat=seat,
            kind=timed_out.kind,
            timeouts=timed_out.timeouts,
            forfeited=forfeited,
            elapsed_ms=elapsed,
        )

    def _arm(self, live: LiveGame) -> None:
        """(Re)set the timer of the game's next clock deadline."""
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        if not live.settings.clock.enabled or live.table.over:
            return
        first = live.seat_clocks.next_deadline(skip=live.table.status.forfeited)
        if first is None:
            return
        delay = max(0.0, (first[0] - now_ms()) / 1000) + 0.001
        live.timer = asyncio.get_running_loop().call_later(delay, self._expire, live)

    def _expire(self, live: LiveGame) -> None:
        live.timer = None
        if self.games.get(live.game_id) is live:
            self._spawn(self._run_referee(live))

    async def _run_referee(self, live: LiveGame) -> None:
        try:
            async with live.lock:
                await self._referee(live)
        except Exception:
            log.exception("referee_failed", game_id=live.game_id)

    def _count(self, live: LiveGame, seat: int, name: str) -> None:
        """Add one to a seat's counter, in memory now and in the store soon (the store's
        writer thread keeps the order; a response never waits for it)."""
        counters = live.stats.setdefault(seat, {})
        counters[name] = counters.get(name, 0) + 1
        kind = "rejected" if name == REJECTED else "disconnect"
        self.metrics.seat_errors.labels(live.record.game_type, kind).inc()
        try:
            future = self._writer.submit(self.store.add_stats, live.game_id, seat, {name: 1})
        except RuntimeError:  # shutting down: the writer is closed
            return
        future.add_done_callback(_log_failure)

    # --- organiser --------------------------------------------------------------------------

    async def abort(self, request: pb.AbortGameRequest) -> LiveGame:
        live = await self.get(request.game_id)
        self.authorise_organiser(live, request.organiser_token)
        reason = request.reason.strip() or "aborted by the organiser"
        if len(reason) > MAX_REASON_LENGTH:
            raise errors.bad_request("reason", f"at most {MAX_REASON_LENGTH} characters")
        await self._unit(self._abort_unit(live, reason))
        log.info("game_aborted", game_id=live.game_id, reason=reason)
        return live

    async def _abort_unit(self, live: LiveGame, reason: str) -> None:
        async with live.lock:
            await self._organiser_batch(live, lambda: live.table.abort(reason), "GAME_OVER")
            await self._referee(live)
        self._publish(live)

    async def _organiser_batch(
        self, live: LiveGame, events: Callable[[], list[Any]], refused: str
    ) -> None:
        """Commit the batch ``events()`` decides (abort, reveal); after another writer's
        append, follow the store and decide again. Call with the game's lock held."""
        for _attempt in range(CONFLICT_RETRIES):
            try:
                batch = events()
            except Rejection as rejection:
                raise errors.not_now(rejection.message, refused) from None
            try:
                await self._commit(live, batch, None)
                return
            except VersionConflict:
                await self._follow_store(live)
        raise errors.not_now("the game moved on; try again", "BUSY")

    async def reveal(self, request: pb.RevealSeedRequest) -> LiveGame:
        live = await self.get(request.game_id)
        self.authorise_organiser(live, request.organiser_token)
        await self._unit(self._reveal_unit(live))
        return live

    async def _reveal_unit(self, live: LiveGame) -> None:
        async with live.lock:
            if live.table.status.revealed is None:
                await self._organiser_batch(live, live.table.reveal, "NOT_OVER")
        self._publish(live)

    async def export(self, request: pb.ExportGameRequest) -> pb.ExportGameResponse:
        """The full log and commands of a game whose seed has been released, for its organiser
        (or anyone, when the game waived end-of-game secrecy; docs/fairness.md)."""
        live = await self.get(request.game_id)
        if request.organiser_token or not live.settings.public_reveal:
            if not request.organiser_token:
                raise ClientError(
                    grpc.StatusCode.UNAUTHENTICATED,
                    "organiser_token is required: the full log shows every hidden card "
                    "(public only for a game created with public_reveal_waives_secrecy)",
                    "TOKEN_MISSING",
                )
            self.authorise_organiser(live, request.organiser_token)
        if live.table.status.revealed is None:
            raise errors.not_now(
                "the full log is released once the seed is revealed (after the game)",
                "NOT_REVEALED",
            )
        recorded = await self._store(self.store.commands, live.game_id)
        response = pb.ExportGameResponse(game=live.summary(organiser=True))
        version = live.table.version
        response.events.extend(live.event_message(i, None, redact=False) for i in range(version))
        for outcome in recorded:
            entry = response.commands.add(
                seat=outcome.seat,
                first_sequence=outcome.first_sequence,
                last_sequence=outcome.last_sequence,
                decision_ms=outcome.decision_ms,
            )
            entry.command.CopyFrom(decode_command(outcome.payload))
        return response

    async def _recorded(
        self, live: LiveGame, command_id: str, fingerprint: str
    ) -> CommandOutcome | None:
        """The outcome the store holds for ``command_id``, if any; raises if that id was used
        for a different command."""
        first = await self._store(self.store.find_command, live.game_id, command_id)
        if first is not None and first.fingerprint != fingerprint:
            raise _reused(command_id)
        return first

    def _accepted(
        self, live: LiveGame, seat: int, outcome: CommandOutcome, *, duplicate: bool
    ) -> pb.SubmitCommandResponse:
        return pb.SubmitCommandResponse(
            first_sequence=outcome.first_sequence,
            last_sequence=outcome.last_sequence,
            duplicate=duplicate,
            view=live.view(seat),
        )

    # --- streams ----------------------------------------------------------------------------

    def _publish(self, live: LiveGame) -> None:
        version = live.table.version
        for sub in live.subscribers:
            try:
                sub.queue.put_nowait(version)
            except asyncio.QueueFull:
                sub.overflowed = True  # the stream ends; the client resumes later

    async def stream(
        self, live: LiveGame, watcher: Watcher | Viewer, after: int, batched: bool = False
    ) -> AsyncGenerator[pb.StreamGameResponse, None]:
        """First the current view, then every event after ``after`` with the view after it,
        then live events; returns after the final event of a finished game (the seed reveal
        included). The organiser's stream runs behind by the game's organiser delay.

        ``batched``: one message per batch (its events, then the view once), the latest
        batch built once per viewer for every stream (:meth:`LiveGame.batch_message`)."""
        if not isinstance(watcher, Watcher):
            watcher = Watcher(watcher)
        viewer = watcher.viewer
        delayed = watcher.organiser and live.settings.delayed

        def visible() -> int:
            return live.visible_version(now_ms()) if delayed else live.table.version

        if self.streams >= self.limits.max_streams:
            raise errors.exhausted("streams", self.limits.max_streams)
        if after > live.table.version and self.store.shared:
            # A client resuming here after another replica saw more than this one has yet.
            await self._catch_up(live)
        if after > visible():
            raise errors.bad_request("after_sequence", f"the game has only {visible()} events")
        seat = None if watcher.organiser else viewer
        sub = Subscriber(asyncio.Queue(self.limits.stream_buffer), seat=seat)
        live.subscribers.add(sub)
        self.streams += 1
        self.metrics.streams_open.set(self.streams)
        table = live.table
        players = live.record.players
        try:
            yield pb.StreamGameResponse(view=live.view_at(viewer, visible()))
            # A private replica follows the log so each event comes with the view after it;
            # a batched stream that keeps up never needs one (it sends the live view).
            replica: Table[Any] | None = None
            if not batched:
                replica = Table.replay(table.config, table.log[:after], table.settings)
            sent = after
            while True:
                target = visible()
                while batched and sent < target:
                    end = min(live.batch_ends[sent], target)
                    if end < table.version:  # behind: the view after this batch is a past one
                        if replica is None or replica.version != sent:
                            replica = Table.replay(table.config, table.log[:sent], table.settings)
                        replica.extend(table.log[sent:end])
                    message = live.batch_message(viewer, sent, end, replica)
                    sent = end
                    yield message
                while sent < target:
                    assert replica is not None
                    replica.extend((table.log[sent],))
                    sent += 1
                    if sent == table.version:  # the current view: with the clocks
                        seen = live.view(viewer)
                    else:
                        seen = codec.view_to_proto(live.game_id, players, replica.view(viewer))
                    yield pb.StreamGameResponse(
                        event=live.event_message(sent - 1, viewer), view=seen
                    )
                if live.finished and sent >= table.version:
                    return
                if sub.closing is not None:
                    raise StreamEnded(sub.closing)
                if sub.overflowed:
                    raise StreamEnded(
                        errors.exhausted(
                            "stream buffer",
                            self.limits.stream_buffer,
                            last_sequence=str(sent),
                        )
                    )
                if delayed and sent < table.version and live.settings.organiser_delay_ms:
                    # Wake up when the next batch is old enough to be shown.
                    due = live.recorded_ms[sent] + live.settings.organiser_delay_ms - now_ms()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(sub.queue.get(), max(0.005, due / 1000))
                else:
                    await sub.queue.get()
        except (GeneratorExit, asyncio.CancelledError):
            mid_game = not live.over and sub.closing is None  # not ended by a shutdown
            if viewer is not None and not watcher.organiser and mid_game:
                self._count(live, viewer, DISCONNECTS)  # the seat's client hung up mid-game
            raise
        finally:
            live.subscribers.discard(sub)
            self.streams -= 1
            self.metrics.streams_open.set(self.streams)

    def close_streams(self, error: ClientError) -> None:
        """End every open stream with ``error`` (shutdown: clients resume elsewhere/later)."""
        for live in self.games.values():
            for sub in live.subscribers:
                sub.closing = error
                with contextlib.suppress(asyncio.QueueFull):
                    sub.queue.put_nowait(-1)

    def _appended(self, game_id: str, version: int) -> None:
        """The store committed events of ``game_id`` up to ``version``. Our own appends are
        applied by :meth:`submit`; with a shared (networked) store another process may have
        appended, so a loaded game that is behind catches up from the store."""
        live = self.games.get(game_id)
        if live is not None and version > max(live.table.version, live.writing):
            self._spawn(self._catch_up(live))
        elif live is None and self.store.shared and game_id not in self._heard_of:
            # A game another replica created: if it runs a clock, load it so its timeouts fire
            # here too when that replica dies (the store lets exactly one timeout land).
            self._heard_of.add(game_id)
            self._spawn(self._adopt(game_id))

    async def _adopt(self, game_id: str) -> None:
        try:
            record = await self._store(self.store.get_game, game_id)
        except StoreError:
            return
        if GameSettings.from_json(record.settings).clock.enabled and game_id not in self.games:
            await self._preload(game_id)

    async def _catch_up(self, live: LiveGame) -> None:
        async with live.lock:  # after any of our own appends in flight has been applied
            changed = await self._follow_store(live)
        if changed:
            self._publish(live)

    async def _follow_store(self, live: LiveGame) -> bool:
        """Fold in whatever the store holds beyond the live table (another writer's appends);
        True if there was any. Call with the game's lock held; the caller publishes."""
        stored = await self._store(self.store.read, live.game_id, live.table.version, None)
        if not stored:
            return False
        live.absorb_messages(decode_events(e.payload for e in stored))
        if not live.over:
            self._activity[live.game_id] = now_ms()
        if live.over and not live.ended:
            live.ended = True  # the other writer recorded the end
            self._active -= 1
            self.metrics.games_active.set(self._active)
        self._arm(live)
        return True

    def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        self._loader.shutdown(wait=True)
        for live in self.games.values():
            if live.timer is not None:
                live.timer.cancel()
                live.timer = None
        self._stop_listening()
        self._writer.shutdown(wait=True)
        self.store.close()


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a background task's outcome as seen: a unit whose caller gave up may end with a
    ClientError nobody is left to hear, which is not worth a warning."""
    if not task.cancelled():
        error = task.exception()
        if error is not None and not isinstance(error, ClientError | StoreError):
            log.error("task_failed", error=repr(error))


def _log_failure(future: concurrent.futures.Future[None]) -> None:
    error = future.exception()
    if error is not None:
        log.warning("stats_write_failed", error=str(error))


def _reused(command_id: str) -> ClientError:
    return errors.bad_request(
        "command_id", f"{command_id!r} was already used for a different command"
    )


def _setup_field(message: str) -> str:
    lowered = message.lower()
    if "option" in lowered:
        return "options"
    if "player" in lowered:
        return "players"
    if "deck" in lowered or "pick" in lowered:
        return "deal"
    return "game_type"


__all__ = ["GameHub", "Limits", "LiveGame", "StreamEnded", "Watcher", "now_ms"]
