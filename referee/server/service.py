"""``referee.v1.RefereeService``, once for every transport, and its gRPC adapter.

:class:`RefereeCore` implements each RPC once: a protobuf request in, a response (or, for
``StreamGame``, an async iterator of responses) out, every error a client can cause raised as
:class:`ClientError`. Request checks, metrics and logs live here, so the gRPC adapter below and
the HTTP adapter (:mod:`referee.server.http`) stay thin: they only move messages and turn
``ClientError`` into their protocol's status. Game logic lives in the engine; state and streams
in :mod:`referee.server.hub`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
import structlog

from referee import codec
from referee.engine.registry import all_games
from referee.server import errors
from referee.server.errors import ClientError
from referee.server.hub import GameHub, StreamEnded
from referee.server.metrics import SERVICE, Metrics
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

log = structlog.get_logger("referee")

#: Encoded batched stream messages kept for other streams that send the same one.
ENCODED_MESSAGES = 512

Req = TypeVar("Req")
Resp = TypeVar("Resp")
Core = TypeVar("Core", bound="RefereeCore")


def _unary(
    method: Callable[[Core, Req], Awaitable[Resp]],
) -> Callable[[Core, Req], Awaitable[Resp]]:
    """Metrics per RPC, by the status code the call ends with (whatever the transport)."""
    name = method.__name__

    @functools.wraps(method)
    async def wrapper(self: Core, request: Req) -> Resp:
        labels = ("unary", SERVICE, name)
        self.metrics.started.labels(*labels).inc()
        started = time.perf_counter()
        code = grpc.StatusCode.OK
        try:
            return await method(self, request)
        except ClientError as error:
            code = error.code
            raise
        except BaseException:
            code = grpc.StatusCode.INTERNAL
            raise
        finally:
            self.metrics.handled.labels(*labels, code.name).inc()
            self.metrics.handling.labels(*labels).observe(time.perf_counter() - started)

    return wrapper


class RefereeCore:
    """Every RPC of the service, transport-free. Methods are named as in the proto."""

    def __init__(self, hub: GameHub, metrics: Metrics) -> None:
        self.hub = hub
        self.metrics = metrics

    @_unary
    async def ListGameTypes(self, request: pb.ListGameTypesRequest) -> pb.ListGameTypesResponse:
        response = pb.ListGameTypesResponse()
        response.game_types.extend(codec.game_type_to_proto(g.info) for g in all_games())
        return response

    @_unary
    async def CreateGame(self, request: pb.CreateGameRequest) -> pb.CreateGameResponse:
        live, tokens, organiser = await self.hub.create(request)
        log.info(
            "game_created",
            game_id=live.game_id,
            game_type=live.record.game_type,
            players=live.record.players,
            options=dict(live.record.options),
            settings=live.record.settings,
        )
        return pb.CreateGameResponse(
            game_id=live.game_id,
            seats=[pb.SeatToken(seat=s, token=t) for s, t in enumerate(tokens)],
            game=live.summary(),
            organiser_token=organiser,
        )

    @_unary
    async def GetGame(self, request: pb.GetGameRequest) -> pb.GetGameResponse:
        return pb.GetGameResponse(game=(await self.hub.get(request.game_id)).summary())

    @_unary
    async def ListGames(self, request: pb.ListGamesRequest) -> pb.ListGamesResponse:
        return await self.hub.list_games(request)

    def _watcher(self, live: Any, request: pb.GetViewRequest | pb.StreamGameRequest) -> Any:
        """Who is watching: a seat, the spectator, or the organiser as some seat."""
        return self.hub.watcher(
            live,
            request.seat_token,
            request.spectator,
            request.organiser_token,
            request.as_seat if request.HasField("as_seat") else None,
        )

    @_unary
    async def GetView(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        live = await self.hub.get_current(request.game_id)
        watcher = self._watcher(live, request)
        return pb.GetViewResponse(view=self.hub.view_for(live, watcher))

    @_unary
    async def AbortGame(self, request: pb.AbortGameRequest) -> pb.AbortGameResponse:
        live = await self.hub.abort(request)
        return pb.AbortGameResponse(game=live.summary())

    @_unary
    async def RevealSeed(self, request: pb.RevealSeedRequest) -> pb.RevealSeedResponse:
        live = await self.hub.reveal(request)
        return pb.RevealSeedResponse(game=live.summary(organiser=True))

    @_unary
    async def ExportGame(self, request: pb.ExportGameRequest) -> pb.ExportGameResponse:
        return await self.hub.export(request)

    @_unary
    async def SubmitCommand(self, request: pb.SubmitCommandRequest) -> pb.SubmitCommandResponse:
        started = time.perf_counter()
        try:
            live, seat, response = await self.hub.submit(request)
        except ClientError as error:
            rule = error.metadata.get("rule_id", error.reason)
            self.metrics.commands.labels(_game_type_of(request), "rejected", rule).inc()
            rejected_seat = error.metadata.get("seat")
            log.debug(  # one line per command: only with --log-level debug
                "command",
                game_id=errors.clip(request.game_id),
                seat=int(rejected_seat) if rejected_seat is not None else None,
                command_type=_command_type_of(request),
                outcome="rejected",
                code=error.code.name,
                rule_id=error.metadata.get("rule_id"),
                latency_ms=round((time.perf_counter() - started) * 1000, 3),
            )
            raise
        game_type = live.record.game_type
        outcome = "duplicate" if response.duplicate else "accepted"
        self.metrics.commands.labels(game_type, outcome, "ok").inc()
        log.debug(
            "command",
            game_id=live.game_id,
            seat=seat,
            command_type=_command_type_of(request),
            outcome=outcome,
            version=live.table.version,
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
        )
        return response

    async def StreamGame(
        self, request: pb.StreamGameRequest
    ) -> AsyncGenerator[pb.StreamGameResponse, None]:
        """The stream's messages; a stream the server ends (overflow, shutdown) raises the
        ClientError it ends with after the last message."""
        labels = ("server_stream", SERVICE, "StreamGame")
        self.metrics.started.labels(*labels).inc()
        started = time.perf_counter()
        code = grpc.StatusCode.OK
        sent = self.metrics.msg_sent.labels(*labels)
        try:
            live = await self.hub.get(request.game_id)
            watcher = self._watcher(live, request)
            # aclosing: when the adapter closes this generator, the hub's stream closes
            # with it (its slot is freed now, not when the generator is collected).
            stream = self.hub.stream(live, watcher, request.after_sequence, request.batched)
            async with contextlib.aclosing(stream):
                async for message in stream:
                    yield message
                    sent.inc()
        except StreamEnded as ended:
            code = ended.error.code
            raise ended.error from None
        except ClientError as error:
            code = error.code
            raise
        except BaseException as error:
            code = (
                grpc.StatusCode.CANCELLED
                if isinstance(error, GeneratorExit | asyncio.CancelledError)
                else grpc.StatusCode.INTERNAL
            )
            raise
        finally:
            self.metrics.handled.labels(*labels, code.name).inc()
            self.metrics.handling.labels(*labels).observe(time.perf_counter() - started)


async def _grpc_unary(context: grpc.aio.ServicerContext[Any, Any], call: Awaitable[Resp]) -> Resp:
    try:
        return await call
    except ClientError as error:
        await context.abort_with_status(error.to_status())
        raise  # unreachable: abort raises


class RefereeServicer(pb_grpc.RefereeServiceServicer):
    """The gRPC adapter: each method hands its request to :class:`RefereeCore`."""

    def __init__(self, core: RefereeCore) -> None:
        self.core = core
        #: Batched stream messages the hub built once for every stream of a viewer, encoded
        #: once too: ``id(message) -> (message, bytes)``, the latest few (the message is
        #: kept so its id cannot be reused while it is here).
        self._encodings: collections.OrderedDict[int, tuple[Any, bytes]] = collections.OrderedDict()

    def _encoded(self, message: pb.StreamGameResponse) -> bytes:
        key = id(message)
        found = self._encodings.get(key)
        if found is not None and found[0] is message:
            return found[1]
        data = message.SerializeToString()
        self._encodings[key] = (message, data)
        while len(self._encodings) > ENCODED_MESSAGES:
            self._encodings.popitem(last=False)
        return data

    async def ListGameTypes(self, request: Any, context: Any) -> pb.ListGameTypesResponse:
        return await _grpc_unary(context, self.core.ListGameTypes(request))

    async def CreateGame(self, request: Any, context: Any) -> pb.CreateGameResponse:
        return await _grpc_unary(context, self.core.CreateGame(request))

    async def GetGame(self, request: Any, context: Any) -> pb.GetGameResponse:
        return await _grpc_unary(context, self.core.GetGame(request))

    async def ListGames(self, request: Any, context: Any) -> pb.ListGamesResponse:
        return await _grpc_unary(context, self.core.ListGames(request))

    async def GetView(self, request: Any, context: Any) -> pb.GetViewResponse:
        return await _grpc_unary(context, self.core.GetView(request))

    async def AbortGame(self, request: Any, context: Any) -> pb.AbortGameResponse:
        return await _grpc_unary(context, self.core.AbortGame(request))

    async def RevealSeed(self, request: Any, context: Any) -> pb.RevealSeedResponse:
        return await _grpc_unary(context, self.core.RevealSeed(request))

    async def ExportGame(self, request: Any, context: Any) -> pb.ExportGameResponse:
        return await _grpc_unary(context, self.core.ExportGame(request))

    async def SubmitCommand(self, request: Any, context: Any) -> pb.SubmitCommandResponse:
        return await _grpc_unary(context, self.core.SubmitCommand(request))

    async def StreamGame(  # type: ignore[override]  # it writes with context.write
        self, request: pb.StreamGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> None:
        stall = self.core.hub.limits.stream_stall_seconds
        stream = self.core.StreamGame(request)
        try:
            async for message in stream:
                # A client that keeps its connection alive but never reads (grants no HTTP/2
                # window) would block this write for ever and hold a stream slot: a write not
                # taken within the stall limit ends the stream. The timeout runs in this
                # task, not in wait_for's own: grpc.aio notices a client that hangs up only
                # in the handler's task.
                data = self._encoded(message) if request.batched else message
                try:
                    async with asyncio.timeout(stall or None):
                        await context.write(data)
                except TimeoutError:
                    raise errors.exhausted(
                        "stream stall seconds",
                        int(stall),
                        last_sequence=str(message.event.sequence),
                    ) from None
        except ClientError as error:
            # Free the stream (its slot, its place in the fan-out) before the status goes
            # out: to a stalled client it goes out only when the client reads again.
            await stream.aclose()
            await context.abort_with_status(error.to_status())
        finally:
            # A cancelled call closes the core's stream at once (the hub counts the
            # disconnect and frees the slot now, not when the generator is collected).
            await stream.aclose()


def _game_type_of(request: pb.SubmitCommandRequest) -> str:
    which = request.command.WhichOneof("game") if request.HasField("command") else None
    return (which or "unknown").replace("_", "-")


def _command_type_of(request: pb.SubmitCommandRequest) -> str | None:
    which = request.command.WhichOneof("game") if request.HasField("command") else None
    if which is None:
        return None
    kind: str | None = getattr(request.command, which).WhichOneof("kind")
    return kind
