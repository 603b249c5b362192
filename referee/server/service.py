"""The ``referee.v1.RefereeService`` servicer: request checks, errors, logs and metrics.

Game logic lives in the engine; state and streams in :mod:`referee.server.hub`.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
import structlog

from referee.engine.registry import all_games
from referee.server import errors
from referee.server.errors import ClientError
from referee.server.hub import GameHub, StreamEnded
from referee.server.metrics import SERVICE, Metrics
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

log = structlog.get_logger("referee")

Req = TypeVar("Req")
Resp = TypeVar("Resp")


def _unary(
    method: Callable[[Any, Req, grpc.aio.ServicerContext[Req, Resp]], Awaitable[Resp]],
) -> Callable[[Any, Req, grpc.aio.ServicerContext[Req, Resp]], Awaitable[Resp]]:
    """Metrics per RPC, and ClientError -> status with details."""
    name = method.__name__

    @functools.wraps(method)
    async def wrapper(
        self: RefereeServicer, request: Req, context: grpc.aio.ServicerContext[Req, Resp]
    ) -> Resp:
        labels = ("unary", SERVICE, name)
        self.metrics.started.labels(*labels).inc()
        started = time.perf_counter()
        code = grpc.StatusCode.OK
        try:
            return await method(self, request, context)
        except ClientError as error:
            code = error.code
            await context.abort_with_status(error.to_status())
            raise  # unreachable: abort raises
        except BaseException:
            code = grpc.StatusCode.INTERNAL
            raise
        finally:
            self.metrics.handled.labels(*labels, code.name).inc()
            self.metrics.handling.labels(*labels).observe(time.perf_counter() - started)

    return wrapper


class RefereeServicer(pb_grpc.RefereeServiceServicer):
    def __init__(self, hub: GameHub, metrics: Metrics) -> None:
        self.hub = hub
        self.metrics = metrics

    @_unary
    async def ListGameTypes(
        self, request: pb.ListGameTypesRequest, context: Any
    ) -> pb.ListGameTypesResponse:
        response = pb.ListGameTypesResponse()
        for game in all_games():
            info = game.info
            entry = response.game_types.add(
                game_type=info.type_id,
                name=info.name,
                min_players=info.min_players,
                max_players=info.max_players,
                rules=info.rules,
                summary=info.summary,
            )
            for option in info.options:
                entry.options.add(
                    name=option.name,
                    default_value=option.default,
                    description=option.description,
                    allowed_values=option.allowed,
                    minimum=option.minimum,
                    maximum=option.maximum,
                )
        return response

    @_unary
    async def CreateGame(
        self, request: pb.CreateGameRequest, context: Any
    ) -> pb.CreateGameResponse:
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
    async def GetGame(self, request: pb.GetGameRequest, context: Any) -> pb.GetGameResponse:
        return pb.GetGameResponse(game=(await self.hub.get(request.game_id)).summary())

    @_unary
    async def ListGames(self, request: pb.ListGamesRequest, context: Any) -> pb.ListGamesResponse:
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
    async def GetView(self, request: pb.GetViewRequest, context: Any) -> pb.GetViewResponse:
        live = await self.hub.get(request.game_id)
        watcher = self._watcher(live, request)
        return pb.GetViewResponse(view=self.hub.view_for(live, watcher))

    @_unary
    async def AbortGame(self, request: pb.AbortGameRequest, context: Any) -> pb.AbortGameResponse:
        live = await self.hub.abort(request)
        return pb.AbortGameResponse(game=live.summary())

    @_unary
    async def RevealSeed(
        self, request: pb.RevealSeedRequest, context: Any
    ) -> pb.RevealSeedResponse:
        live = await self.hub.reveal(request)
        return pb.RevealSeedResponse(game=live.summary(organiser=True))

    @_unary
    async def ExportGame(
        self, request: pb.ExportGameRequest, context: Any
    ) -> pb.ExportGameResponse:
        return await self.hub.export(request)

    @_unary
    async def SubmitCommand(
        self, request: pb.SubmitCommandRequest, context: Any
    ) -> pb.SubmitCommandResponse:
        started = time.perf_counter()
        try:
            live, seat, response = await self.hub.submit(request)
        except ClientError as error:
            rule = error.metadata.get("rule_id", error.reason)
            self.metrics.commands.labels(_game_type_of(request), "rejected", rule).inc()
            rejected_seat = error.metadata.get("seat")
            log.info(
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
        log.info(
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
        self, request: pb.StreamGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[pb.StreamGameResponse]:
        labels = ("server_stream", SERVICE, "StreamGame")
        self.metrics.started.labels(*labels).inc()
        started = time.perf_counter()
        code = grpc.StatusCode.OK
        sent = self.metrics.msg_sent.labels(*labels)
        try:
            live = await self.hub.get(request.game_id)
            watcher = self._watcher(live, request)
            async for message in self.hub.stream(live, watcher, request.after_sequence):
                yield message
                sent.inc()
        except StreamEnded as ended:
            code = ended.error.code
            await context.abort_with_status(ended.error.to_status())
        except ClientError as error:
            code = error.code
            await context.abort_with_status(error.to_status())
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


def _game_type_of(request: pb.SubmitCommandRequest) -> str:
    which = request.command.WhichOneof("game") if request.HasField("command") else None
    return (which or "unknown").replace("_", "-")


def _command_type_of(request: pb.SubmitCommandRequest) -> str | None:
    which = request.command.WhichOneof("game") if request.HasField("command") else None
    if which is None:
        return None
    kind: str | None = getattr(request.command, which).WhichOneof("kind")
    return kind
