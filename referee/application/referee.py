"""The referee: live games, commands, clocks and streams, with no transport.

:class:`Referee` is the application layer (the role ``eventsourcing``'s Application plays): it
takes ids, tokens and engine values, returns the frozen values of
:mod:`referee.application.values`, and refuses with
:class:`~referee.application.errors.RefereeError`. It owns every loaded game (its table, its
seat-token hashes, a lock that serialises its commands), idempotent command ids, expected
versions, clocks and forfeits, commitments and the seed reveal, limits, and recovery from the
store. Store calls run on one writer thread so nothing blocks the event loop; a live game
changes only after the store has committed. Streams are :mod:`referee.application.fanout`'s;
the stored form is :mod:`referee.stored`'s. It imports no transport: the gRPC and HTTP
adapters (:mod:`referee.server`) and an embedding platform (docs/embedding.md) call it alike.

The referee is also its own hand at the table (:meth:`Referee._referee`): it times out
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
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import structlog

from referee.application import errors, seeds
from referee.application.clocks import GameSettings
from referee.application.errors import RefereeError
from referee.application.fanout import FanOut, Send, StreamEnded
from referee.application.live import DISCONNECTS, REJECTED, LiveGame, now_ms
from referee.application.values import (
    Created,
    Exported,
    Page,
    RecordedCommand,
    SeatView,
    Submitted,
    Summary,
    Unreadable,
    Update,
    Watcher,
)
from referee.engine.game import FixedDeal, Rejection, SetupRefused, Viewer
from referee.engine.registry import all_games, get_game
from referee.engine.table import Table, make_config
from referee.engine.table_events import SeatForfeited, TimedOut
from referee.metrics import Metrics
from referee.store import (
    CommandOutcome,
    DuplicateCommand,
    EventStore,
    GameNotFound,
    GameRecord,
    StoreError,
    StoreUnavailable,
    VersionConflict,
)
from referee.stored import (
    Decided,
    DecidedBy,
    decode_deal,
    encode_batch,
    encode_command,
    encode_deal,
    read_command,
    recorded_ms,
)

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
#: Most game summaries on one page of :meth:`Referee.list_games`.
MAX_PAGE = 1000
#: After the store failed the referee's own append (a timeout, a forfeit's play), the next
#: try waits this long: a store that fails at once (a full disk) is not hammered, and an
#: overdue clock lands at most this much later than the store's recovery plus one wait for
#: it (docs/operations.md, "Store faults").
FAULT_RETRY_SECONDS = 0.1


@dataclass
class Limits:
    max_games: int = 10_000
    max_streams: int = 20_000
    #: Events a stream may fall behind the live game (beyond the history it replays when it
    #: opens) before it is ended; the client resumes from ``last_sequence``.
    stream_buffer: int = 1024
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


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _fingerprint(seat: int, payload: bytes) -> str:
    """What tells a retry of a command from another command sent with the same id."""
    return hashlib.sha256(seat.to_bytes(4, "big") + payload).hexdigest()


class Referee:
    """Refereed games in this process, kept in ``store`` (see the module's docstring).

    Call :meth:`recover` once inside the event loop before anything else, and :meth:`close`
    at the end."""

    def __init__(
        self, store: EventStore, metrics: Metrics | None = None, limits: Limits | None = None
    ) -> None:
        self.store = store
        self.metrics = metrics or Metrics()
        self.limits = limits or Limits()
        self.games: dict[str, LiveGame] = {}
        self.fanout = FanOut(
            self.metrics,
            self.limits.max_streams,
            self.limits.stream_buffer,
            self.limits.stream_stall_seconds,
        )
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
        self._summaries: OrderedDict[str, Summary] = OrderedDict()
        #: Unix ms of the last event of every unfinished game (idle expiry), in memory or not.
        self._activity: dict[str, int] = {}
        self._sweeper: asyncio.Future[None] | None = None

    @property
    def streams(self) -> int:
        """How many streams are open."""
        return self.fanout.streams

    async def _store(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the store's writer thread; a store fault as UNAVAILABLE."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._writer, fn, *args)
        except StoreUnavailable as fault:
            raise _unavailable(fault) from None

    # --- life cycle -------------------------------------------------------------------------

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

    def close_streams(self, error: RefereeError) -> None:
        """End every open stream with ``error`` (shutdown: clients resume elsewhere/later)."""
        self.fanout.close_all(self.games.values(), error)

    def close(self) -> None:
        """Stop timers and background work, and close the store."""
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

    async def _read_activity(self, game_ids: list[str]) -> None:
        """When each unfinished game last had an event (the idle expiry's clock): read on a
        loader thread in one go, never on the writer thread, where thousands of reads after
        a restart would hold up every command's append."""
        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(self._loader, self._last_events, game_ids)
        for game_id, stamp in found.items():
            self._activity.setdefault(game_id, stamp or now_ms())

    def _last_events(self, game_ids: list[str]) -> dict[str, int]:
        """``{game id: unix ms of its last event}`` (0 when unknown); on a loader thread."""
        found = {}
        for game_id in game_ids:
            try:
                version = self.store.version(game_id)
                last = self.store.read(game_id, max(0, version - 1), 1)
            except StoreError:
                continue
            found[game_id] = recorded_ms(last[0].payload) if last else 0
        return found

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
        """Abort the games without a clock that had no event and no seat stream for
        ``idle_expiry_seconds``, with a public reason."""
        expiry = self.limits.idle_expiry_seconds
        if expiry <= 0:
            return
        cutoff = now_ms() - int(expiry * 1000)
        hours = expiry / 3600
        reason = (
            f"abandoned: no move and no seat connected for {hours:g} h"
            if hours >= 1
            else f"abandoned: no move and no seat connected for {expiry:g} s"
        )
        for game_id, last in list(self._activity.items()):
            if last > cutoff:
                continue
            live = self.games.get(game_id) or await self._get(game_id)
            if live.over or live.settings.clock.enabled:
                self._activity.pop(game_id, None)  # never abandoned: forget it
                continue
            if any(sub.seat is not None for sub in live.subscribers):
                continue  # a seat is connected: not abandoned (yet)
            with contextlib.suppress(RefereeError):
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
            await self._get(game_id)
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

    async def create(
        self,
        game_type: str,
        players: int,
        options: Mapping[str, str] | None = None,
        *,
        seed: str = "",
        deal: FixedDeal | None = None,
        settings: GameSettings | None = None,
    ) -> Created:
        """A new game: its summary, seat tokens and organiser token.

        ``seed`` decides every shuffle (empty: the referee draws a secret one; a guessable
        seed needs ``settings.public_seed``); ``deal`` fixes the chance outcomes instead;
        ``settings`` are the table settings (clock, organiser delay, reveal policy, event
        limit; per-card commitments are on for every new game)."""
        if not game_type:
            raise errors.bad_request("game_type", "required (see ListGameTypes)")
        if len(game_type) > MAX_ID_LENGTH:
            raise errors.bad_request("game_type", "unknown game type (see ListGameTypes)")
        try:
            game = get_game(game_type)
        except KeyError as error:
            raise errors.bad_request("game_type", str(error.args[0])) from None
        if self._active >= self.limits.max_games:
            raise errors.exhausted("games", self.limits.max_games)
        if settings is None:
            settings = GameSettings(card_commitments=True)
        try:
            checked_seed = seeds.check_seed(seed, public=settings.public_seed)
            if deal is not None:
                seeds.check_deal_size(deal)
            settings.check()
        except ValueError as error:
            field_name, _, description = str(error).partition(": ")
            raise errors.bad_request(field_name, description) from None
        try:
            config = make_config(game, players, dict(options or {}), checked_seed, deal)
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
        tokens = tuple(f"seat-{secrets.token_urlsafe(24)}" for _ in range(config.players))
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
        log.info(
            "game_created",
            game_id=game_id,
            game_type=record.game_type,
            players=record.players,
            options=dict(record.options),
            settings=record.settings,
        )
        return Created(live.summary(), tokens, organiser)

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

    async def summary(self, game_id: str) -> Summary:
        """The game's public description (GetGame): on a shared store, as of what the store
        holds now (another replica may have moved the game on)."""
        return (await self._get_current(game_id)).summary()

    async def _get(self, game_id: str) -> LiveGame:
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

    async def _get_current(self, game_id: str) -> LiveGame:
        """:meth:`_get`, and on a shared store also whatever other replicas appended by now,
        so a read here shows at least what the client saw through another replica."""
        live = await self._get(game_id)
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
        live.absorb_stored([e.payload for e in stored])
        live.ended = live.over
        return live

    async def _resume(self, live: LiveGame) -> None:
        """After loading: whatever the referee had left to do (a reveal, overdue clocks)."""
        async with live.lock:
            await self._referee(live)
        self.fanout.publish(live)

    # --- who is asking ----------------------------------------------------------------------

    def _seat_of(self, live: LiveGame, token: str, spectator: bool) -> Viewer:
        """The seat a token belongs to; ``None`` for a spectator."""
        if not token:
            if spectator:
                return None
            raise errors.token_missing(
                "seat_token is required (or set spectator for public information)"
            )
        digest = hash_token(token)
        for seat, expected in enumerate(live.record.seat_token_hashes):
            if hmac.compare_digest(digest, expected):
                return seat
        raise errors.forbidden(
            "this token is not a seat token of this game", "TOKEN_INVALID", live.game_id
        )

    def _check_organiser(self, live: LiveGame, token: str) -> None:
        """Raise unless ``token`` is the game's organiser token (seat tokens are refused)."""
        if not token:
            raise errors.token_missing("organiser_token is required (from CreateGameResponse)")
        expected = live.record.organiser_token_hash
        if not expected or not hmac.compare_digest(hash_token(token), expected):
            raise errors.forbidden(
                "this token is not the organiser token of this game", "TOKEN_INVALID", live.game_id
            )

    def _watcher(
        self,
        live: LiveGame,
        seat_token: str,
        spectator: bool,
        organiser_token: str,
        as_seat: int | None,
    ) -> Watcher:
        """Who a view or stream is for: a seat, a spectator or the organiser (any seat,
        delayed)."""
        if organiser_token:
            self._check_organiser(live, organiser_token)
            if as_seat is not None and not 0 <= as_seat < live.record.players:
                raise errors.bad_request("as_seat", f"must be a seat, 0..{live.record.players - 1}")
            return Watcher(as_seat, organiser=True)
        if as_seat is not None:
            if seat_token:
                raise errors.forbidden(
                    "as_seat needs the organiser token; a seat token shows its own seat only",
                    "ORGANISER_ONLY",
                    live.game_id,
                )
            self._check_organiser(live, organiser_token)  # raises: no token
        return Watcher(self._seat_of(live, seat_token, spectator))

    async def view(
        self,
        game_id: str,
        *,
        seat_token: str = "",
        spectator: bool = False,
        organiser_token: str = "",
        as_seat: int | None = None,
    ) -> SeatView:
        """A seat's view (its token), the spectator's, or the organiser's of any seat
        (``as_seat``, ``None``: the spectator's), behind by the organiser delay."""
        live = await self._get_current(game_id)
        watcher = self._watcher(live, seat_token, spectator, organiser_token, as_seat)
        if watcher.organiser:
            return live.view_at(watcher.viewer, live.visible_version(now_ms()))
        return live.view(watcher.viewer)

    async def list_games(
        self, *, game_type: str = "", running_only: bool = False, offset: int = 0, size: int = 100
    ) -> Page:
        """Summaries of the store's games, newest first: ``size`` of them from ``offset``."""
        if not 0 < size <= MAX_PAGE:
            raise errors.bad_request("page_size", f"must be 1..{MAX_PAGE}")
        listed = await self._store(self.store.list_games)
        chosen = [
            record
            for record, _, finished in reversed(listed)
            if (not game_type or record.game_type == game_type) and not (running_only and finished)
        ]
        games = []
        for record in chosen[offset : offset + size]:
            cached = self._summaries.get(record.game_id)
            if cached is not None and record.game_id not in self.games:
                self._summaries.move_to_end(record.game_id)
                games.append(cached)
            else:
                games.append((await self._get(record.game_id)).summary())
        more = offset + size < len(chosen)
        return Page(tuple(games), offset + size if more else None)

    # --- commands ---------------------------------------------------------------------------

    async def submit(
        self,
        game_id: str,
        seat_token: str,
        command_id: str,
        command: Any,
        *,
        expected_version: int | None = None,
        client_decision_ms: int = 0,
    ) -> Submitted:
        """Decide ``command`` (an engine command value of the game's type) for the seat of
        ``seat_token``; append what it causes; answer with the seat's view right after.

        ``command_id`` makes it idempotent: a retry with the same id and command returns the
        first outcome (``duplicate``), the same id with another command is refused.
        ``expected_version``: refuse (CONFLICT) unless the game is at that version.
        A command a transport could not read is passed as :class:`Unreadable`: it is refused
        and counts against the seat."""
        arrival = now_ms()
        live = await self._get(game_id)
        seat = self._seat_of(live, seat_token, spectator=False)
        assert seat is not None
        if not command_id or len(command_id) > MAX_ID_LENGTH:
            raise errors.bad_request(
                "command_id", f"required, at most {MAX_ID_LENGTH} characters (e.g. a UUID)"
            )
        game_type = live.record.game_type
        if isinstance(command, Unreadable):
            self._count(live, seat, REJECTED)
            raise errors.bad_request(command.field, command.description)
        if type(command) not in live.table.game.command_types:
            self._count(live, seat, REJECTED)
            raise errors.bad_request("command", f"this game is {game_type}, not {_owner(command)}")
        payload = encode_command(game_type, command)
        fingerprint = _fingerprint(seat, payload)
        return await self._unit(
            self._submit_unit(
                live,
                seat,
                _Submission(command_id, command, payload, expected_version, client_decision_ms),
                fingerprint,
                arrival,
            )
        )

    async def _submit_unit(
        self, live: LiveGame, seat: int, sent: _Submission, fingerprint: str, arrival: int
    ) -> Submitted:
        """Decide, append, fold in and publish one command (see :meth:`_unit`)."""
        command_id = sent.command_id
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
            expected = sent.expected_version
            # Another writer (a second process on a shared store) may have appended since we
            # last looked: then we catch up and decide again, a few times at most, instead of
            # answering CONFLICT to a client that asked for no particular version.
            for _attempt in range(CONFLICT_RETRIES):
                if expected is not None and expected > table.version:
                    # The client saw events we have not: another replica appended them and
                    # its notice is still on the way. Read them now rather than refuse.
                    await self._follow_store(live)
                if expected is not None and expected != table.version:
                    first = await self._recorded(live, command_id, fingerprint)
                    if first is not None:
                        return self._accepted(live, seat, first, duplicate=True)
                    raise errors.version_conflict(expected, table.version, seat)
                try:
                    events = table.decide(seat, sent.command)
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
                    payload=sent.payload,
                    decision_ms=decision_ms,
                )
                decided = Decided(seat, decision_ms, sent.client_decision_ms)
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
            answer = self._accepted(live, seat, outcome, duplicate=False)  # right after it
            await self._referee(live)
        self.fanout.publish(live)
        return answer

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
    ) -> Submitted:
        return Submitted(
            game_type=live.record.game_type,
            seat=seat,
            first_sequence=outcome.first_sequence,
            last_sequence=outcome.last_sequence,
            duplicate=duplicate,
            view=live.view(seat),
            version=live.table.version,
        )

    async def _commit(
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
        failed = False
        try:
            for _ in range(AUTO_PLAY_LIMIT):
                if table.reveal_due():
                    await self._commit(live, table.reveal(), None)
                elif (played := table.forfeited_play()) is not None:
                    seat = played[0].seat
                    await self._commit(live, played, Decided(seat, by=DecidedBy.FORFEIT))
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
            except (StoreError, RefereeError):  # RefereeError: a store fault (see _store)
                self._spawn(self._catch_up(live))
        except (StoreError, RefereeError) as error:
            log.warning("referee_append_failed", game_id=live.game_id, error=str(error))
            self._spawn(self._catch_up(live))
            failed = True
        if table.over and not live.ended:
            live.ended = True
            with contextlib.suppress(StoreError, RefereeError):
                await self._store(self.store.set_finished, live.game_id, True)
            self._active -= 1
            self.metrics.games_active.set(self._active)
            self.metrics.game_ended(live)
        self._arm(live, FAULT_RETRY_SECONDS if failed else 0.0)
        if table.version != before:
            self.fanout.publish(live)

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
        decided = Decided(seat, elapsed, by=DecidedBy.TIMEOUT)
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

    def _arm(self, live: LiveGame, at_least: float = 0.0) -> None:
        """(Re)set the timer of the game's next clock deadline, ``at_least`` seconds away."""
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        if not live.settings.clock.enabled or live.table.over:
            return
        first = live.seat_clocks.next_deadline(skip=live.table.status.forfeited)
        if first is None:
            return
        delay = max(at_least, (first[0] - now_ms()) / 1000) + 0.001
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
        writer thread keeps the order; an answer never waits for it)."""
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

    async def abort(self, game_id: str, organiser_token: str, reason: str = "") -> Summary:
        """End the game now, with a public ``reason``."""
        live = await self._get(game_id)
        self._check_organiser(live, organiser_token)
        reason = reason.strip() or "aborted by the organiser"
        if len(reason) > MAX_REASON_LENGTH:
            raise errors.bad_request("reason", f"at most {MAX_REASON_LENGTH} characters")
        await self._unit(self._abort_unit(live, reason))
        log.info("game_aborted", game_id=live.game_id, reason=reason)
        return live.summary()

    async def _abort_unit(self, live: LiveGame, reason: str) -> None:
        async with live.lock:
            await self._organiser_batch(live, lambda: live.table.abort(reason), "GAME_OVER")
            await self._referee(live)
        self.fanout.publish(live)

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

    async def reveal(self, game_id: str, organiser_token: str) -> Summary:
        """Reveal the seed of a game that is over (one created with ``defer_seed_reveal``);
        the organiser's summary, with the seed."""
        live = await self._get(game_id)
        self._check_organiser(live, organiser_token)
        await self._unit(self._reveal_unit(live))
        return live.summary(organiser=True)

    async def _reveal_unit(self, live: LiveGame) -> None:
        async with live.lock:
            if live.table.status.revealed is None:
                await self._organiser_batch(live, live.table.reveal, "NOT_OVER")
        self.fanout.publish(live)

    async def export(self, game_id: str, organiser_token: str = "") -> Exported:
        """The full log and commands of a game whose seed has been released, for its organiser
        (or anyone, when the game waived end-of-game secrecy; docs/fairness.md)."""
        live = await self._get(game_id)
        if organiser_token or not live.settings.public_reveal:
            if not organiser_token:
                raise errors.token_missing(
                    "organiser_token is required: the full log shows every hidden card "
                    "(public only for a game created with public_reveal_waives_secrecy)"
                )
            self._check_organiser(live, organiser_token)
        if live.table.status.revealed is None:
            raise errors.not_now(
                "the full log is released once the seed is revealed (after the game)",
                "NOT_REVEALED",
            )
        recorded = await self._store(self.store.commands, live.game_id)
        version = live.table.version
        events = tuple(live.stamped(i, None, redact=False) for i in range(version))
        commands = tuple(
            RecordedCommand(
                o.seat,
                o.first_sequence,
                o.last_sequence,
                o.decision_ms,
                read_command(o.payload)[1],
            )
            for o in recorded
        )
        return Exported(live.summary(organiser=True), events, commands)

    # --- streams ----------------------------------------------------------------------------

    async def stream(
        self,
        game_id: str,
        *,
        seat_token: str = "",
        spectator: bool = False,
        organiser_token: str = "",
        as_seat: int | None = None,
        after: int = 0,
        batched: bool = False,
    ) -> AsyncGenerator[Update, None]:
        """A viewer's stream of the game (see :meth:`FanOut.stream`): the current view, every
        event after ``after`` (each with the view after it, or one update per batch), then
        live ones until the game is finished. Close it (``aclose``) to leave; a stream the
        referee ends raises :class:`StreamEnded`."""
        opened = await self._open_stream(
            game_id, seat_token, spectator, organiser_token, as_seat, after
        )
        stream = self.fanout.follow(*opened, after, batched, self._hang_up(*opened))
        async with contextlib.aclosing(stream):
            async for update, _ in stream:
                yield update

    async def serve_stream(
        self,
        game_id: str,
        send: Send,
        *,
        seat_token: str = "",
        spectator: bool = False,
        organiser_token: str = "",
        as_seat: int | None = None,
        after: int = 0,
        batched: bool = False,
    ) -> None:
        """The same stream run into a transport's ``send`` (see :meth:`FanOut.serve`), with
        the stall limit; raises the :class:`RefereeError` the stream ends with."""
        opened = await self._open_stream(
            game_id, seat_token, spectator, organiser_token, as_seat, after
        )
        stream = self.fanout.follow(*opened, after, batched, self._hang_up(*opened))
        await self.fanout.serve(stream, after, send)

    async def _open_stream(
        self,
        game_id: str,
        seat_token: str,
        spectator: bool,
        organiser_token: str,
        as_seat: int | None,
        after: int,
    ) -> tuple[LiveGame, Watcher]:
        live = await self._get(game_id)
        watcher = self._watcher(live, seat_token, spectator, organiser_token, as_seat)
        self.fanout.check_room()
        if after > live.table.version and self.store.shared:
            # A client resuming here after another replica saw more than this one has yet.
            await self._catch_up(live)
        return live, watcher

    def _hang_up(self, live: LiveGame, watcher: Watcher) -> Callable[[], None]:
        seat = watcher.viewer
        return lambda: self._count(live, seat, DISCONNECTS) if seat is not None else None

    # --- other writers ----------------------------------------------------------------------

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
        except (StoreError, RefereeError):  # RefereeError: a store fault (see _store)
            return
        if GameSettings.from_json(record.settings).clock.enabled and game_id not in self.games:
            await self._preload(game_id)

    async def _catch_up(self, live: LiveGame) -> None:
        async with live.lock:  # after any of our own appends in flight has been applied
            changed = await self._follow_store(live)
        if changed:
            self.fanout.publish(live)

    async def _follow_store(self, live: LiveGame) -> bool:
        """Fold in whatever the store holds beyond the live table (another writer's appends);
        True if there was any. Call with the game's lock held; the caller publishes."""
        stored = await self._store(self.store.read, live.game_id, live.table.version, None)
        if not stored:
            return False
        live.absorb_stored([e.payload for e in stored])
        if not live.over:
            self._activity[live.game_id] = now_ms()
        if live.over and not live.ended:
            live.ended = True  # the other writer recorded the end
            self._active -= 1
            self.metrics.games_active.set(self._active)
        self._arm(live)
        return True


@dataclass(frozen=True, slots=True)
class _Submission:
    """A command as submitted: its id, engine value, stored payload and the caller's terms."""

    command_id: str
    command: Any
    payload: bytes
    expected_version: int | None
    client_decision_ms: int


def _owner(command: Any) -> str:
    """The type id of the game whose command ``command`` is."""
    for game in all_games():
        if type(command) in game.command_types:
            return game.info.type_id
    return type(command).__qualname__


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


def _reused(command_id: str) -> RefereeError:
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


__all__ = ["Limits", "Referee", "StreamEnded", "hash_token"]
