"""Live games in memory, backed by an event store.

The hub owns every loaded game: its table (state + full log), its seat-token hashes, a lock that
serialises its commands, and its open streams. Store calls run on one writer thread so nothing
blocks the event loop; the in-memory table changes only after the store has committed.
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
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc

from referee import codec
from referee.engine.game import FixedDeal, Rejection, Viewer
from referee.engine.registry import get_game
from referee.engine.table import Table, make_config
from referee.server import errors
from referee.server.errors import ClientError
from referee.server.metrics import Metrics
from referee.store import (
    CommandOutcome,
    DuplicateCommand,
    EventStore,
    GameNotFound,
    GameRecord,
    VersionConflict,
)
from referee.v1 import referee_pb2 as pb

T = TypeVar("T")

#: How many rejected command ids per game are remembered (a retry returns the first outcome).
REJECTED_MEMORY = 256
#: Longest game id, game type or command id accepted (errors echo them; keep them short).
MAX_ID_LENGTH = 128


@dataclass
class Limits:
    max_games: int = 10_000
    max_streams: int = 20_000
    stream_buffer: int = 256


class StreamEnded(Exception):
    """Ends one stream with a status (overflow, shutdown)."""

    def __init__(self, error: ClientError) -> None:
        self.error = error


@dataclass(eq=False)
class Subscriber:
    queue: asyncio.Queue[int]
    overflowed: bool = False
    closing: ClientError | None = None


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

    @property
    def over(self) -> bool:
        return self.table.results() is not None

    def summary(self) -> pb.GameSummary:
        table = self.table
        return pb.GameSummary(
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
        )

    def view(self, viewer: Viewer) -> pb.View:
        return codec.view_to_proto(self.game_id, self.record.players, self.table.view(viewer))


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _fingerprint(seat: int, command: pb.Command) -> str:
    return hashlib.sha256(
        seat.to_bytes(4, "big") + command.SerializeToString(deterministic=True)
    ).hexdigest()


def encode_deal(deal: FixedDeal | None) -> bytes:
    return codec.deal_to_proto(deal).SerializeToString() if deal is not None else b""


def decode_deal(data: bytes) -> FixedDeal | None:
    return codec.deal_from_proto(pb.FixedDeal.FromString(data)) if data else None


class GameHub:
    def __init__(self, store: EventStore, metrics: Metrics, limits: Limits) -> None:
        self.store = store
        self.metrics = metrics
        self.limits = limits
        self.games: dict[str, LiveGame] = {}
        self.streams = 0
        self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="store")
        self._loading: dict[str, asyncio.Future[LiveGame]] = {}
        self._tasks: set[asyncio.Future[None]] = set()
        self._stop_listening: Callable[[], None] = lambda: None
        self._active = 0

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
        return len(listed)

    # --- games ------------------------------------------------------------------------------

    async def create(self, request: pb.CreateGameRequest) -> tuple[LiveGame, list[str]]:
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
        seed = request.seed.encode() if request.seed else None
        deal = codec.deal_from_proto(request.deal) if request.HasField("deal") else None
        try:
            config = make_config(game, request.players, dict(request.options), seed, deal)
            table: Table[Any] = Table(game, config)
            opening = game.start(table.state)
        except ValueError as error:
            raise errors.bad_request(_setup_field(str(error)), str(error)) from None
        tokens = [secrets.token_urlsafe(24) for _ in range(config.players)]
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
        )
        payloads = self._encode(config.game_type, opening, 1)
        await self._store(self.store.create_game, record, payloads)
        table.extend(opening)
        live = LiveGame(game_id, record, table, batch_ends=[len(opening)] * len(opening))
        self.games[game_id] = live
        self._active += 1
        self.metrics.games_active.set(self._active)
        return live, tokens

    async def get(self, game_id: str) -> LiveGame:
        """The live game, loaded from the store (replayed) on first use."""
        if not game_id:
            raise errors.bad_request("game_id", "required")
        if len(game_id) > MAX_ID_LENGTH:
            raise errors.bad_request("game_id", f"at most {MAX_ID_LENGTH} characters")
        live = self.games.get(game_id)
        if live is not None:
            return live
        pending = self._loading.get(game_id)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self._loading[game_id] = pending
            try:
                live = await self._load(game_id)
                self.games[game_id] = live
                pending.set_result(live)
            except BaseException as failure:
                pending.set_exception(failure)
                pending.exception()  # mark retrieved: other waiters may not exist
                raise
            finally:
                del self._loading[game_id]
            return live
        return await asyncio.shield(pending)

    async def _load(self, game_id: str) -> LiveGame:
        try:
            record = await self._store(self.store.get_game, game_id)
            stored = await self._store(self.store.read, game_id, 0, None)
        except GameNotFound:
            raise errors.not_found(game_id) from None
        config = make_config(
            get_game(record.game_type),
            record.players,
            record.options,
            record.seed,
            decode_deal(record.deal),
        )
        messages = [pb.Event.FromString(e.payload) for e in stored]
        events = [codec.event_from_proto(m) for m in messages]
        live = LiveGame(game_id, record, Table.replay(config, events))
        live.batch_ends = [m.batch_end_sequence for m in messages]
        return live

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
            response.games.append((await self.get(record.game_id)).summary())
        if offset + size < len(chosen):
            response.next_page_token = str(offset + size)
        return response

    # --- commands ---------------------------------------------------------------------------

    async def submit(
        self, request: pb.SubmitCommandRequest
    ) -> tuple[LiveGame, int, pb.SubmitCommandResponse]:
        """Returns (game, seat, response). Raises ClientError."""
        live = await self.get(request.game_id)
        seat = self.authorise(live, request.seat_token, spectator=False)
        assert seat is not None
        command_id = request.command_id
        if not command_id or len(command_id) > MAX_ID_LENGTH:
            raise errors.bad_request(
                "command_id", f"required, at most {MAX_ID_LENGTH} characters (e.g. a UUID)"
            )
        if not request.HasField("command"):
            raise errors.bad_request("command", "required")
        try:
            game_type, command = codec.command_from_proto(request.command)
        except codec.CodecError as error:
            raise errors.bad_request(error.field, error.description) from None
        if game_type != live.record.game_type:
            raise errors.bad_request(
                "command", f"this game is {live.record.game_type}, not {game_type}"
            )
        fingerprint = _fingerprint(seat, request.command)
        async with live.lock:
            first = live.accepted.get(command_id)
            if first is None:
                first = await self._store(self.store.find_command, live.game_id, command_id)
            if first is not None:
                if first.fingerprint != fingerprint:
                    raise _reused(command_id)
                return live, seat, self._accepted(live, seat, first, duplicate=True)
            refused = live.rejected.get(command_id)
            if refused is not None:
                if refused[0] != fingerprint:
                    raise _reused(command_id)
                raise refused[1]
            table = live.table
            if request.HasField("expected_version") and request.expected_version != table.version:
                raise errors.version_conflict(request.expected_version, table.version, seat)
            try:
                events = table.decide(seat, command)
            except Rejection as rejection:
                violation = errors.rule_violation(rejection, seat)
                live.rejected[command_id] = (fingerprint, violation)
                while len(live.rejected) > REJECTED_MEMORY:
                    live.rejected.popitem(last=False)
                raise violation from None
            version = table.version
            outcome = CommandOutcome(
                command_id=command_id,
                seat=seat,
                fingerprint=fingerprint,
                first_sequence=version + 1,
                last_sequence=version + len(events),
            )
            payloads = self._encode(live.record.game_type, events, version + 1)
            started = time.perf_counter()
            try:
                await self._store(self.store.append, live.game_id, version, payloads, outcome)
            except DuplicateCommand as duplicate:  # another process got there first
                return live, seat, self._accepted(live, seat, duplicate.outcome, duplicate=True)
            except VersionConflict as conflict:
                raise errors.version_conflict(version, conflict.actual, seat) from None
            self.metrics.store_append.observe(time.perf_counter() - started)
            table.extend(events)
            live.batch_ends.extend([outcome.last_sequence] * len(events))
            live.accepted[command_id] = outcome
            if live.over:
                await self._store(self.store.set_finished, live.game_id, True)
                self._active -= 1
                self.metrics.games_active.set(self._active)
        self._publish(live)
        return live, seat, self._accepted(live, seat, outcome, duplicate=False)

    def _accepted(
        self, live: LiveGame, seat: int, outcome: CommandOutcome, *, duplicate: bool
    ) -> pb.SubmitCommandResponse:
        return pb.SubmitCommandResponse(
            first_sequence=outcome.first_sequence,
            last_sequence=outcome.last_sequence,
            duplicate=duplicate,
            view=live.view(seat),
        )

    @staticmethod
    def _encode(game_type: str, events: list[Any], first: int) -> list[bytes]:
        last = first + len(events) - 1
        payloads = []
        for i, event in enumerate(events):
            message = codec.event_to_proto(game_type, event, first + i)
            message.batch_end_sequence = last
            payloads.append(message.SerializeToString())
        return payloads

    # --- streams ----------------------------------------------------------------------------

    def _publish(self, live: LiveGame) -> None:
        version = live.table.version
        for sub in live.subscribers:
            try:
                sub.queue.put_nowait(version)
            except asyncio.QueueFull:
                sub.overflowed = True  # the stream ends; the client resumes later

    async def stream(
        self, live: LiveGame, viewer: Viewer, after: int
    ) -> AsyncIterator[pb.StreamGameResponse]:
        """First the current view, then every event after ``after`` with the view after it,
        then live events; returns after the final event of a finished game."""
        if self.streams >= self.limits.max_streams:
            raise errors.exhausted("streams", self.limits.max_streams)
        if after > live.table.version:
            raise errors.bad_request(
                "after_sequence", f"the game has only {live.table.version} events"
            )
        sub = Subscriber(asyncio.Queue(self.limits.stream_buffer))
        live.subscribers.add(sub)
        self.streams += 1
        self.metrics.streams_open.set(self.streams)
        game = live.table.game
        game_type = live.record.game_type
        try:
            yield pb.StreamGameResponse(view=live.view(viewer))
            # A private replica follows the log so each event comes with the view after it.
            replica = Table.replay(live.table.config, live.table.log[:after])
            sent = after
            while True:
                target = live.table.version
                while sent < target:
                    event = live.table.log[sent]
                    replica.extend((event,))
                    sent += 1
                    message = codec.event_to_proto(game_type, game.redact(event, viewer), sent)
                    message.batch_end_sequence = live.batch_ends[sent - 1]
                    yield pb.StreamGameResponse(
                        event=message,
                        view=codec.view_to_proto(
                            live.game_id, live.record.players, replica.view(viewer)
                        ),
                    )
                if live.over:
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
                await sub.queue.get()
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
        if live is not None and version > live.table.version:
            task = asyncio.ensure_future(self._catch_up(live))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _catch_up(self, live: LiveGame) -> None:
        async with live.lock:  # after any of our own appends in flight has been applied
            stored = await self._store(self.store.read, live.game_id, live.table.version, None)
            if not stored:
                return
            messages = [pb.Event.FromString(e.payload) for e in stored]
            live.table.extend([codec.event_from_proto(m) for m in messages])
            live.batch_ends.extend(m.batch_end_sequence for m in messages)
        self._publish(live)

    def close(self) -> None:
        self._stop_listening()
        self._writer.shutdown(wait=True)
        self.store.close()


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


__all__ = ["GameHub", "Limits", "LiveGame", "StreamEnded"]
