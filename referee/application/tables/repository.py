"""The games this process holds, and the store behind them.

:class:`Repository` loads a game from the store on first use (replayed on a loader thread),
keeps it while it is used and drops it when idle, appends each committed batch (the store's
writer thread commits those of many games together), and follows the store when another
writer appended (replicas on a shared store). It also runs the background tasks of the
application layer (:meth:`Repository.unit` keeps a change to a game whole whatever happens to
its caller).

What the referee does by itself once a game changed (set the clock's timer, finish what was
left to do after a load) is the timekeeper's (:mod:`referee.application.tables.timekeeper`).
The timekeeper acts through the repository, and the repository calls on it when a game loads
or changes: the repository asks only what :class:`Timekeeping` names (a port, so this module
does not import the timekeeper's), and the timekeeper opens its repository handing itself in
(:class:`~referee.application.tables.timekeeper.Timekeeper`), so neither is set late.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Generator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import structlog

from referee.application.tables import errors, seeds
from referee.application.tables.clocks import GameSettings
from referee.application.tables.errors import RefereeError
from referee.application.tables.fanout import FanOut
from referee.application.tables.live import DISCONNECTS, PRESENT, REJECTED, LiveGame, now_ms
from referee.application.tables.values import Summary
from referee.engine.registry import get_game
from referee.engine.table import Table, make_config
from referee.metrics import Metrics
from referee.store import (
    CommandOutcome,
    DocumentWrite,
    EventStore,
    GameNotFound,
    GameRecord,
    SeatClaim,
    StoreError,
    StoreUnavailable,
)
from referee.stored import Decided, decode_deal, encode_batch, recorded_ms

log = structlog.get_logger("referee")

T = TypeVar("T")

#: The seat counters that are faults, with their ``seat_errors`` metric label.
_ERROR_KINDS = {REJECTED: "rejected", DISCONNECTS: "disconnect"}

#: Longest game id, game type or command id accepted (errors echo them; keep them short).
MAX_ID_LENGTH = 128
#: How often a command (or an organiser's batch) is decided again after another writer
#: appended first.
CONFLICT_RETRIES = 5


#: How long a finished game nobody uses stays in memory (a player's last look at it), at most.
FINISHED_IDLE_SECONDS = 5.0
#: After a store fault left a game's live copy possibly behind the store, the first read
#: again waits this long, each next one twice as long up to :data:`SETTLE_MAX_SECONDS`: a
#: game catches up within that of the store's recovery (docs/operations.md, "Store faults").
SETTLE_RETRY_SECONDS = 0.05
SETTLE_MAX_SECONDS = 1.0


@dataclass
class Limits:
    max_games: int = 10_000
    max_streams: int = 20_000
    #: Events a stream may fall behind the live game (beyond the history it replays when it
    #: opens) before it is ended; the client resumes from ``last_sequence``.
    stream_buffer: int = 1024
    #: A stream whose client has not taken a message for this long is ended (0 = never).
    stream_stall_seconds: float = 10.0
    #: An idle stream sends a heartbeat this often (0 = never).
    stream_heartbeat_seconds: float = 15.0
    #: Open streams of one signed-in player, and of one client address (0 = no cap).
    max_streams_per_player: int = 64
    max_streams_per_address: int = 512
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
    #: A seat whose client closed its stream mid-game and that opens none again (on any
    #: replica) within this long is counted a disconnect; resuming sooner is no fault.
    reconnect_window_seconds: float = 30.0


class Timekeeping(Protocol):
    """What the repository asks of the timekeeper (the port the
    :class:`~referee.application.tables.timekeeper.Timekeeper` that opens it fills)."""

    def arm(self, live: LiveGame, at_least: float = 0.0) -> None:
        """(Re)set the timer of the game's next clock deadline, ``at_least`` seconds away."""

    async def resume(self, live: LiveGame) -> None:
        """After a load: whatever the referee had left to do."""


class Repository:
    """The loaded games (``games``), the store's two thread pools and the background tasks;
    ``timekeeper`` sets each game's timer and finishes what a load left due."""

    def __init__(
        self,
        store: EventStore,
        metrics: Metrics,
        limits: Limits,
        fanout: FanOut,
        timekeeper: Timekeeping,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.limits = limits
        self.fanout = fanout
        self._clock = timekeeper
        self.games: dict[str, LiveGame] = {}
        self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="store")
        self._loading: dict[str, asyncio.Future[LiveGame]] = {}
        self._tasks: set[asyncio.Future[Any]] = set()
        self._stop_listening: Callable[[], None] = lambda: None
        #: Games another replica announced that we looked at once (see :meth:`_appended`).
        self._heard_of: set[str] = set()
        #: Games loaded here only for their timers (:meth:`_adopt`), unasked for since.
        self._adopted: set[str] = set()
        #: Games whose live copy may be behind the store and whose catch-up (:meth:`settle`)
        #: has not read yet (it covers later notices too): that live copy, and whether the
        #: referee's own moves are to be made after it.
        self._settling: dict[str, tuple[LiveGame, bool]] = {}
        #: Games being loaded that the store announced appends of meanwhile: the load may
        #: have read before them, so the game reads again once loaded.
        self._noticed: set[str] = set()
        #: How many unfinished games the store holds (the ``games_active`` gauge).
        self.active = 0
        # Loads decode and replay whole logs: on threads of their own, never on the event
        # loop (a cold load of a long game would stall every other call).
        self._loader = concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="load")
        #: The start's own work (loading the clocked games, reading when each game last moved,
        #: the ratings' catch-up), one read at a time on a thread of its own: a restarted
        #: server answers callers' loads and writes first, never behind thousands of these.
        self._background = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="start")
        #: Set when closing: the start's long reads stop at once rather than hold up the stop.
        self._closing = threading.Event()
        #: Summaries of finished games no longer in memory, least recently used first.
        self.summaries: OrderedDict[str, Summary] = OrderedDict()
        #: Unix ms of the last event of every unfinished game (idle expiry), in memory or not.
        self.activity: dict[str, int] = {}
        #: Called once per game that ends here (the facade adds e.g. the ratings' record).
        self.on_finished: list[Callable[[LiveGame], Awaitable[None]]] = []

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the store's writer thread (one at a time, in order); a store fault
        as UNAVAILABLE."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._writer, fn, *args)
        except StoreUnavailable as fault:
            raise _unavailable(fault) from None

    def submit(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """``fn(*args)`` queued on the store's writer thread now, in order with the writes
        queued before and after it (:meth:`call` queues only once awaited); a store fault
        as UNAVAILABLE when awaited."""
        queued = asyncio.wrap_future(self._writer.submit(fn, *args))
        answer = asyncio.ensure_future(self._answer(queued))
        # Nobody may await it (the stream ended with its game): its fault is not news then.
        answer.add_done_callback(lambda done: done.cancelled() or done.exception())
        return answer

    async def _answer(self, queued: Awaitable[T]) -> T:
        try:
            return await queued
        except StoreUnavailable as fault:
            raise _unavailable(fault) from None

    # --- life cycle -------------------------------------------------------------------------

    async def recover(self) -> int:
        """Count the unfinished games in the store (they load on first use), load those with a
        clock and listen to the store for appends made elsewhere; returns the number of games."""
        loop = asyncio.get_running_loop()
        loop_thread = threading.get_ident()

        def appended(game_id: str, version: int) -> None:  # called on a store thread
            # Every replica hears every commit: notices _appended would ignore wake no loop
            # (with many replicas most notices are of games this one does not hold). A
            # loading game is in games or _loading at every instant.
            if (
                game_id in self.games
                or game_id in self._loading
                or (self.store.shared and game_id not in self._heard_of)
            ):
                if threading.get_ident() == loop_thread:
                    # A store that appends in the caller's thread (the memory store): heard
                    # now, in the order of the appends (an append of ours is in flight then,
                    # so nothing is done), with no turn of the loop.
                    self._appended(game_id, version)
                else:
                    loop.call_soon_threadsafe(self._appended, game_id, version)

        self._stop_listening = self.store.add_listener(appended)
        listed = await self.call(self.store.list_games)
        self.active = sum(1 for _, _, finished in listed if not finished)
        self.metrics.games_active.set(self.active)
        # Games with a clock, or a join deadline, run without anyone asking: load them now so
        # their timers run, in the background (the server serves meanwhile).
        timed = [r.game_id for r, _, finished in listed if not finished and _timed(r)]
        unfinished = [record.game_id for record, _, finished in listed if not finished]
        self.spawn(self._start_in_background(timed, unfinished))
        return len(listed)

    async def _start_in_background(self, timed: list[str], unfinished: list[str]) -> None:
        """Load the ``timed`` games one after the other (a caller who asks for one first loads
        it at once, on the loaders), then read when each ``unfinished`` game last moved."""
        started = time.monotonic()
        for game_id in timed:
            if game_id not in self.games and game_id not in self._loading:
                await self._preload(game_id)
        await self._read_activity(unfinished)
        log.info(
            "start_finished",
            timed_games=len(timed),
            unfinished_games=len(unfinished),
            seconds=round(time.monotonic() - started, 3),
        )

    async def in_background(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the start's background thread (reads that may queue behind the
        start's own, never ahead of a caller's); a store fault as UNAVAILABLE."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._background, fn, *args)
        except StoreUnavailable as fault:
            raise _unavailable(fault) from None

    def stop_listening(self) -> None:
        """Hear no more of the store's appends."""
        self._stop_listening()

    def close(self) -> None:
        """Stop the loaders, the timers and the listener, then the writer thread."""
        self._closing.set()
        self._background.shutdown(wait=True, cancel_futures=True)
        self._loader.shutdown(wait=True)
        for live in self.games.values():
            if live.timer is not None:
                live.timer.cancel()
                live.timer = None
        self._stop_listening()
        self._writer.shutdown(wait=True)

    async def _read_activity(self, game_ids: list[str]) -> None:
        """When each unfinished game last had an event (the idle expiry's clock): read on a
        loader thread in one go, never on the writer thread, where thousands of reads after
        a restart would hold up every command's append."""
        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(self._background, self._last_events, game_ids)
        for game_id, stamp in found.items():
            self.activity.setdefault(game_id, stamp or now_ms())

    def _last_events(self, game_ids: list[str]) -> dict[str, int]:
        """``{game id: unix ms of its last event}`` (0 when unknown); on a loader thread."""
        found = {}
        for game_id in game_ids:
            if self._closing.is_set():
                break
            try:
                version = self.store.version(game_id)
                last = self.store.read(game_id, max(0, version - 1), 1)
            except StoreError:
                continue
            found[game_id] = recorded_ms(last[0].payload) if last else 0
        return found

    def spawn(self, coroutine: Awaitable[T]) -> asyncio.Future[T]:
        """Run ``coroutine`` in the background, kept referenced until it is done."""
        task: asyncio.Future[T] = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_retrieve)
        return task

    async def unit(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` to its end whatever happens to the caller, and return its result.

        A client whose deadline expires, or which hangs up, cancels its call's task. Work that
        changes a game (decide, append to the store, fold into the live table, publish) must
        happen as a unit or not at all: cancelled half-way, the store would hold events the
        live game never saw, and every later command would conflict. A cancellation lands
        only where a task waits, so the unit runs in the caller's task up to its first wait
        (a command on a store that appends in the caller's thread never waits: it is done
        then, with no task, future or turn of the loop of its own); from that wait on it goes
        on in a task of its own that the caller only waits for, its outcome dropped if nobody
        is left to hear it.
        """
        try:
            waiting = coroutine.send(None)
        except StopIteration as done:
            result: T = done.value
            return result
        return await asyncio.shield(self.spawn(_rest(coroutine, waiting)))

    # --- in memory --------------------------------------------------------------------------

    def keep(self, live: LiveGame) -> None:
        """Hold ``live`` in memory (dropping others beyond the bound)."""
        self.games[live.game_id] = live
        self.summaries.pop(live.game_id, None)
        live.touched = time.monotonic()
        if len(self.games) > self.limits.max_live_games:
            self.evict()

    def _evictable(self, live: LiveGame, now: float, idle: float) -> bool:
        """Nobody uses ``live``: no stream, no call holding it, no clock to run."""
        return (
            not live.subscribers
            and not live.locked
            and live.timer is None
            and live.game_id not in self._loading
            and now - live.touched >= idle
        )

    def evict(self) -> None:
        """Drop the games idle for ``evict_idle_seconds`` (finished ones after at most
        ``FINISHED_IDLE_SECONDS``), then, while more than
        ``max_live_games`` are held, the least recently used of those nobody uses."""
        now = time.monotonic()
        idle = self.limits.evict_idle_seconds
        # A finished game nobody uses leaves sooner (its table is most of its memory): only
        # its summary stays; it loads again, unchanged, if anyone asks for more.
        done = min(idle, FINISHED_IDLE_SECONDS)
        for live in list(self.games.values()):
            if self._evictable(live, now, done if live.finished else idle):
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
            self.summaries[live.game_id] = live.summary()
            while len(self.summaries) > self.limits.summary_cache:
                self.summaries.popitem(last=False)

    def started(self) -> None:
        """One more unfinished game (a new game was stored)."""
        self.active += 1
        self.metrics.games_active.set(self.active)

    def finished(self) -> None:
        """One unfinished game fewer (its end was recorded, here or by another writer)."""
        self.active -= 1
        self.metrics.games_active.set(self.active)

    # --- loading ----------------------------------------------------------------------------

    async def _preload(self, game_id: str) -> None:
        try:
            await self._get(game_id, self._background)
        except Exception:
            log.exception("preload_failed", game_id=game_id)

    async def get(self, game_id: str) -> LiveGame:
        """The live game, loaded from the store (replayed) on first use."""
        if not game_id:
            raise errors.bad_request("game_id", "required")
        if len(game_id) > MAX_ID_LENGTH:
            raise errors.bad_request("game_id", f"at most {MAX_ID_LENGTH} characters")
        self._adopted.discard(game_id)  # used here now: kept and followed as any other
        return await self._get(game_id)

    async def _get(
        self, game_id: str, loader: concurrent.futures.Executor | None = None
    ) -> LiveGame:
        """The live game; a load runs on ``loader`` (default: the callers' loaders)."""
        live = self.games.get(game_id)
        if live is not None:
            live.touched = time.monotonic()
            return live
        loading = self._loading.get(game_id)
        if loading is None:
            # One load per game however many calls ask at once; a caller that gives up does
            # not cancel it for the others.
            loading = self.spawn(self._load_and_keep(game_id, loader or self._loader))
            self._loading[game_id] = loading
        result: LiveGame = await asyncio.shield(loading)
        return result

    async def get_current(self, game_id: str) -> LiveGame:
        """:meth:`get`, and on a shared store also whatever other replicas appended by now,
        so a read here shows at least what the client saw through another replica."""
        live = await self.get(game_id)
        if self.store.shared:
            await self.catch_up(live)
        return live

    async def _load_and_keep(self, game_id: str, loader: concurrent.futures.Executor) -> LiveGame:
        try:
            live = await self._load(game_id, loader)
            self.keep(live)
            self.spawn(self._clock.resume(live))
            if game_id in self._noticed:
                self.settle(live, act=False)
            return live
        finally:
            del self._loading[game_id]
            self._noticed.discard(game_id)

    async def _load(self, game_id: str, loader: concurrent.futures.Executor) -> LiveGame:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(loader, self._load_now, game_id)
        except GameNotFound:
            raise errors.not_found(game_id) from None
        except StoreUnavailable as fault:
            raise _unavailable(fault) from None

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
        if settings.seats:
            live.claims = self.store.seat_claims(game_id)
        live.absorb_stored([e.payload for e in stored])
        live.ended = live.over
        return live

    # --- writing ----------------------------------------------------------------------------

    async def store_new(
        self,
        live: LiveGame,
        record: GameRecord,
        opening: list[Any],
        documents: list[DocumentWrite] | None = None,
        claims: list[SeatClaim] | None = None,
    ) -> None:
        """Store a new game, ``record`` (whole: the live game's holds only part of its
        settings), with its opening batch (and, in the same transaction, the documents and
        seat claims of its creation) and keep it live."""
        recorded = now_ms()
        payloads = encode_batch(live.record.game_type, opening, 1, recorded)
        store = self.store
        # The store tells its listeners of the creation's documents (a holding, a lobby
        # entry) during the commit, before this resumes: a reader that asks for the game then
        # waits for this live game rather than loading a second copy of it.
        creating: asyncio.Future[LiveGame] = asyncio.get_running_loop().create_future()
        creating.add_done_callback(_retrieved)
        self._loading[live.game_id] = creating
        try:
            if documents or claims:
                await self.call(store.create_game, record, payloads, documents or (), claims or ())
            else:
                await self.call(store.create_game, record, payloads)
        except BaseException:
            del self._loading[live.game_id]
            self._noticed.discard(live.game_id)
            creating.set_exception(errors.not_found(live.game_id))
            raise
        try:
            live.absorb(opening, recorded, None, payloads)
            self.keep(live)
        finally:  # only once kept: see the listener in recover
            del self._loading[live.game_id]
            self._noticed.discard(live.game_id)  # its own creation's notice
        creating.set_result(live)
        self.activity[live.game_id] = recorded
        self.started()
        self.metrics.game_created(live.record.game_type)
        self._clock.arm(live)

    async def commit(
        self,
        live: LiveGame,
        events: list[Any],
        decided: Decided | None,
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
            # Not on our writer thread: the store's own writer commits the appends of games
            # that arrive together in one transaction (group commit).
            appended = self.store.append_soon(live.game_id, version, payloads, outcome)
            try:
                # A store that appends in the caller's thread (the memory store) is done
                # already: read at once, no turn of the loop. A stream that has not taken the
                # batch before this one yet finds its messages made (LiveGame.absorb).
                if appended.done():
                    appended.result()
                else:
                    await asyncio.wrap_future(appended)
            except StoreUnavailable as fault:
                if fault.uncertain:  # it may have committed: the store will tell
                    self.settle(live)
                raise _unavailable(fault) from None
        finally:
            live.writing = 0
        self.metrics.store_append.observe(time.perf_counter() - started)
        live.absorb(events, recorded, decided, payloads)
        if live.over:
            self.activity.pop(live.game_id, None)
        else:
            self.activity[live.game_id] = recorded

    async def write(self, live: LiveGame, fn: Callable[..., T], *args: Any) -> T:
        """:meth:`call` for a write of ``live``'s (a claim): when the store cannot say
        whether it committed, the game catches up with the store (:meth:`settle`)."""
        try:
            return await self.call(fn, *args)
        except RefereeError as error:
            if error.metadata.get("uncertain") == "true":
                self.settle(live)
            raise

    def present(self, live: LiveGame, seat: int) -> None:
        """The seat made a call: a token seat whose clock waited for it starts it now (see
        :mod:`referee.application.tables.clocks`); recorded in the store for restarts and
        replicas, and the game's timer set from the new deadline."""
        clocks = live.seat_clocks
        if clocks.is_present(seat) or live.table.over:
            return
        started = clocks.started_ms
        offset = max(1, now_ms() - started) if started is not None else 1
        clocks.mark_present(seat, offset)
        self.count(live, seat, PRESENT, offset)
        self._clock.arm(live)

    def count(self, live: LiveGame, seat: int, name: str, by: int = 1) -> None:
        """Add ``by`` to a seat's counter, in memory now and in the store soon (the store's
        writer thread keeps the order; an answer never waits for it)."""
        counters = live.counters(seat)
        counters[name] = counters.get(name, 0) + by
        kind = _ERROR_KINDS.get(name)
        if kind is not None:  # a fault of the seat's, not a tally (stream opens)
            self.metrics.seat_errors.labels(live.record.game_type, kind).inc()
        try:
            future = self._writer.submit(self.store.add_stats, live.game_id, seat, {name: by})
        except RuntimeError:  # shutting down: the writer is closed
            return
        future.add_done_callback(_log_failure)

    # --- other writers ----------------------------------------------------------------------

    def _appended(self, game_id: str, version: int) -> None:
        """The store committed events of ``game_id`` up to ``version``. Our own appends are
        applied by the command that made them; with a shared (networked) store another process
        may have appended, so a loaded game that is behind catches up from the store."""
        live = self.games.get(game_id)
        if live is not None and version > max(live.table.version, live.writing):
            self.settle(live, act=False)  # the other writer makes the moves that follow
        elif live is None and game_id in self._loading:
            self._noticed.add(game_id)  # its load may have read the log before this append
        elif live is None and self.store.shared and game_id not in self._heard_of:
            # A game another replica created: if it runs a clock, load it so its timeouts fire
            # here too when that replica dies (the store lets exactly one timeout land).
            self._heard_of.add(game_id)
            self.spawn(self._adopt(game_id))

    async def _adopt(self, game_id: str) -> None:
        try:
            record: GameRecord = await self.call(self.store.get_game, game_id)
        except (StoreError, RefereeError):  # RefereeError: a store fault (see call)
            return
        if not _timed(record) or game_id in self.games or game_id in self._loading:
            return
        self._adopted.add(game_id)
        try:
            live = await self._get(game_id)
        except Exception:
            self._adopted.discard(game_id)
            log.exception("preload_failed", game_id=game_id)
            return
        self._release(live)

    def _release(self, live: LiveGame) -> None:
        """Drop an adopted game with nothing left to time (dealt, no clock, not over) rather
        than follow a game nobody here watches (a replica would hold every game of the store);
        its activity goes too."""
        game_id = live.game_id
        if (
            game_id in self._adopted
            and not live.table.over
            and not live.join_deadline_ms
            and not live.settings.clock.enabled
            and not live.subscribers
            and not live.locked
            and live.timer is None
            and self.games.get(game_id) is live
        ):
            self._adopted.discard(game_id)
            del self.games[game_id]
            self.activity.pop(game_id, None)

    def settle(self, live: LiveGame, act: bool = True) -> None:
        """The store may hold events of ``live`` that it has not applied: an append whose
        outcome is unknown (a connection lost after the commit), another writer's append,
        a referee's move that failed. Catch up in the background, reading again after a
        store fault (:data:`SETTLE_RETRY_SECONDS`, doubling up to
        :data:`SETTLE_MAX_SECONDS`) until the store answers, so every open stream gets the
        events without anyone asking; then, with ``act``, make the referee's own moves that
        were due after them (a reveal, a forfeited seat's play: the writer that appended them
        did not get to). A catch-up queued and not yet read covers this one."""
        queued = self._settling.get(live.game_id)
        if queued is not None and queued[0] is live:
            self._settling[live.game_id] = (live, act or queued[1])
            return
        self._settling[live.game_id] = (live, act)
        self.spawn(self._settle(live))

    async def _settle(self, live: LiveGame) -> None:
        game_id = live.game_id
        delay = SETTLE_RETRY_SECONDS
        act = False
        while True:
            try:
                async with live.lock:  # after any of our own appends in flight
                    queued = self._settling.get(game_id)
                    if queued is not None and queued[0] is live:
                        del self._settling[game_id]  # later notices need a read of their own
                        act = act or queued[1]
                    await self.follow_store(live)
                    if act and live.settings.seats:
                        live.claims = await self.call(self.store.seat_claims, game_id)
                break
            except (StoreError, RefereeError) as error:  # RefereeError: a store fault (call)
                if self.games.get(game_id) is not live:
                    return  # dropped from memory: it loads anew from the store when asked
                log.info("game_catch_up_failed", game_id=game_id, error=str(error))
                await asyncio.sleep(delay)
                delay = min(SETTLE_MAX_SECONDS, delay * 2)
        if act:
            await self._clock.resume(live)
        self._release(live)

    async def catch_up(self, live: LiveGame) -> None:
        """Fold in what the store holds beyond ``live`` now (raises a store fault)."""
        async with live.lock:  # after any of our own appends in flight has been applied
            changed = await self.follow_store(live)
        if changed:
            self._release(live)

    async def follow_store(self, live: LiveGame) -> bool:
        """Fold in whatever the store holds beyond the live table (another writer's appends,
        or ours whose answer was lost) and wake the game's streams; True if there was any.
        Call with the game's lock held."""
        stored = await self.call(self.store.read, live.game_id, live.table.version, None)
        if not stored:
            return False
        live.absorb_stored([e.payload for e in stored])
        if not live.over:
            self.activity[live.game_id] = now_ms()
        if live.over and not live.ended:
            live.ended = True  # the other writer recorded the end
            self.finished()
        self._clock.arm(live)
        self.fanout.publish(live)
        return True


def _timed(record: GameRecord) -> bool:
    """True for a game whose timer runs without anyone asking: a clock or a join deadline."""
    settings = GameSettings.from_json(record.settings)
    return settings.clock.enabled or settings.waits


async def _rest(coroutine: Coroutine[Any, Any, T], waiting: Any) -> T:
    """The rest of a unit begun in its caller's task (:meth:`Repository.unit`), which waits
    on ``waiting`` now."""
    return await _GoOn(coroutine, waiting)


class _GoOn(Generic[T]):
    """A coroutine begun elsewhere, awaited from where it waits: what a task does with the
    coroutine it runs (hand on what it waits for, send back what comes of it, and throw in
    what is thrown at the task: its cancellation when the loop closes), from that point on."""

    __slots__ = ("coroutine", "waiting")

    def __init__(self, coroutine: Coroutine[Any, Any, T], waiting: Any) -> None:
        self.coroutine = coroutine
        self.waiting = waiting

    def __await__(self) -> Generator[Any, None, T]:
        coroutine, waiting = self.coroutine, self.waiting
        while True:
            try:
                yield waiting
            except GeneratorExit:
                coroutine.close()
                raise
            except BaseException as error:  # handed on to the coroutine
                try:
                    waiting = coroutine.throw(error)
                except StopIteration as done:
                    result: T = done.value
                    return result
            else:
                try:
                    waiting = coroutine.send(None)
                except StopIteration as done:
                    result = done.value
                    return result


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a background task's outcome as seen: a unit whose caller gave up may end with a
    RefereeError nobody is left to hear, which is not worth a warning."""
    if not task.cancelled():
        error = task.exception()
        if error is not None and not isinstance(error, RefereeError | StoreError):
            log.error("task_failed", error=repr(error))


def _log_failure(future: concurrent.futures.Future[None]) -> None:
    error = future.exception()
    if error is not None:
        log.warning("stats_write_failed", error=str(error))


def _unavailable(fault: StoreUnavailable) -> RefereeError:
    """A store fault as the caller sees it (UNAVAILABLE, with when to retry), logged once."""
    log.warning("store_unavailable", error=str(fault), uncertain=fault.uncertain)
    return errors.store_unavailable(str(fault), fault.retry_after, fault.uncertain)


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a creation's outcome seen, so an unawaited failure is not logged as lost."""
    if not future.cancelled():
        future.exception()


__all__ = ["CONFLICT_RETRIES", "MAX_ID_LENGTH", "Limits", "Repository", "Timekeeping"]
