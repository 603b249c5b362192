"""``referee.v1.RefereeService``, once for every transport, and its gRPC adapter.

:class:`RefereeCore` implements each RPC once over the referee application
(:class:`~referee.application.Referee`): it checks a request's fields, turns the protobuf
request into the application's values and its answer back into a response
(:mod:`referee.server.convert`), and keeps per-RPC metrics and command logs. Every refusal is
the application's :class:`~referee.application.errors.RefereeError`; the gRPC adapter below
and the HTTP adapter (:mod:`referee.server.http`) only move messages and map those errors to
their protocol's status (:mod:`referee.server.errors`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
import structlog

from referee import codec
from referee.application import Referee, RefereeError, StreamEnded, Unreadable, Update
from referee.application.errors import bad_request, clip
from referee.engine.registry import all_games
from referee.metrics import SERVICE, Metrics
from referee.server import convert, errors
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

log = structlog.get_logger("referee")

Req = TypeVar("Req")
Resp = TypeVar("Resp")
Core = TypeVar("Core", bound="RefereeCore")
#: Longest page token accepted (a decimal offset).
MAX_PAGE_TOKEN = 12


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
        except RefereeError as error:
            code = errors.status_code(error)
            raise
        except BaseException:
            code = grpc.StatusCode.INTERNAL
            raise
        finally:
            self.metrics.handled.labels(*labels, code.name).inc()
            self.metrics.handling.labels(*labels).observe(time.perf_counter() - started)

    return wrapper


def _as_seat(request: pb.GetViewRequest | pb.StreamGameRequest) -> int | None:
    return request.as_seat if request.HasField("as_seat") else None


class RefereeCore:
    """Every RPC of the service, transport-free. Methods are named as in the proto."""

    def __init__(self, referee: Referee, metrics: Metrics) -> None:
        self.referee = referee
        self.metrics = metrics

    @_unary
    async def ListGameTypes(self, request: pb.ListGameTypesRequest) -> pb.ListGameTypesResponse:
        response = pb.ListGameTypesResponse()
        response.game_types.extend(codec.game_type_to_proto(g.info) for g in all_games())
        return response

    @_unary
    async def CreateGame(self, request: pb.CreateGameRequest) -> pb.CreateGameResponse:
        deal = codec.deal_from_proto(request.deal) if request.HasField("deal") else None
        created = await self.referee.create(
            request.game_type,
            request.players,
            dict(request.options),
            seed=request.seed,
            deal=deal,
            settings=convert.settings_from_request(request),
        )
        return pb.CreateGameResponse(
            game_id=created.game_id,
            seats=[pb.SeatToken(seat=s, token=t) for s, t in enumerate(created.seat_tokens)],
            game=convert.summary_to_proto(created.summary),
            organiser_token=created.organiser_token,
        )

    @_unary
    async def GetGame(self, request: pb.GetGameRequest) -> pb.GetGameResponse:
        summary = await self.referee.summary(request.game_id)
        return pb.GetGameResponse(game=convert.summary_to_proto(summary))

    @_unary
    async def ListGames(self, request: pb.ListGamesRequest) -> pb.ListGamesResponse:
        token = request.page_token or "0"
        if not (token.isascii() and token.isdigit()) or len(token) > MAX_PAGE_TOKEN:
            raise bad_request("page_token", "not a token from ListGames")
        page = await self.referee.list_games(
            game_type=request.game_type,
            running_only=request.running_only,
            offset=int(token),
            size=request.page_size or 100,
        )
        return convert.page_to_proto(page)

    @_unary
    async def GetView(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        seat_view = await self.referee.view(
            request.game_id,
            seat_token=request.seat_token,
            spectator=request.spectator,
            organiser_token=request.organiser_token,
            as_seat=_as_seat(request),
        )
        return pb.GetViewResponse(view=convert.view_to_proto(seat_view))

    @_unary
    async def AbortGame(self, request: pb.AbortGameRequest) -> pb.AbortGameResponse:
        summary = await self.referee.abort(request.game_id, request.organiser_token, request.reason)
        return pb.AbortGameResponse(game=convert.summary_to_proto(summary))

    @_unary
    async def RevealSeed(self, request: pb.RevealSeedRequest) -> pb.RevealSeedResponse:
        summary = await self.referee.reveal(request.game_id, request.organiser_token)
        return pb.RevealSeedResponse(game=convert.summary_to_proto(summary))

    @_unary
    async def ExportGame(self, request: pb.ExportGameRequest) -> pb.ExportGameResponse:
        exported = await self.referee.export(request.game_id, request.organiser_token)
        return convert.exported_to_proto(exported)

    @_unary
    async def SubmitCommand(self, request: pb.SubmitCommandRequest) -> pb.SubmitCommandResponse:
        started = time.perf_counter()
        command: Any
        if not request.HasField("command"):
            command = Unreadable("command", "required")
        else:
            try:
                command = codec.command_from_proto(request.command)[1]
            except codec.CodecError as error:
                command = Unreadable(error.field, error.description)
        try:
            submitted = await self.referee.submit(
                request.game_id,
                request.seat_token,
                request.command_id,
                command,
                expected_version=(
                    request.expected_version if request.HasField("expected_version") else None
                ),
                client_decision_ms=request.client_decision_ms,
            )
        except RefereeError as error:
            rule = error.metadata.get("rule_id", error.reason)
            self.metrics.commands.labels(_game_type_of(request), "rejected", rule).inc()
            rejected_seat = error.metadata.get("seat")
            log.debug(  # one line per command: only with --log-level debug
                "command",
                game_id=clip(request.game_id),
                seat=int(rejected_seat) if rejected_seat is not None else None,
                command_type=_command_type_of(request),
                outcome="rejected",
                code=errors.status_code(error).name,
                rule_id=error.metadata.get("rule_id"),
                latency_ms=round((time.perf_counter() - started) * 1000, 3),
            )
            raise
        outcome = "duplicate" if submitted.duplicate else "accepted"
        self.metrics.commands.labels(submitted.game_type, outcome, "ok").inc()
        log.debug(
            "command",
            game_id=request.game_id,
            seat=submitted.seat,
            command_type=_command_type_of(request),
            outcome=outcome,
            version=submitted.version,
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
        )
        return convert.submitted_to_proto(submitted)

    async def updates(self, request: pb.StreamGameRequest) -> AsyncGenerator[Update, None]:
        """The stream's updates as the application gives them (see :meth:`StreamGame`)."""
        labels = ("server_stream", SERVICE, "StreamGame")
        self.metrics.started.labels(*labels).inc()
        started = time.perf_counter()
        code = grpc.StatusCode.OK
        sent = self.metrics.msg_sent.labels(*labels)
        try:
            # aclosing: when the adapter closes this generator, the referee's stream closes
            # with it (its slot is freed now, not when the generator is collected).
            stream = self.referee.stream(
                request.game_id,
                seat_token=request.seat_token,
                spectator=request.spectator,
                organiser_token=request.organiser_token,
                as_seat=_as_seat(request),
                after=request.after_sequence,
                batched=request.batched,
            )
            async with contextlib.aclosing(stream):
                async for update in stream:
                    yield update
                    sent.inc()
        except StreamEnded as ended:
            code = errors.status_code(ended.error)
            raise ended.error from None
        except RefereeError as error:
            code = errors.status_code(error)
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

    async def StreamGame(
        self, request: pb.StreamGameRequest
    ) -> AsyncGenerator[pb.StreamGameResponse, None]:
        """The stream's messages; a stream the referee ends (overflow, shutdown) raises the
        RefereeError it ends with after the last message."""
        async with contextlib.aclosing(self.updates(request)) as updates:
            async for update in updates:
                yield convert.update_to_proto(update, request.batched)


async def _grpc_unary(context: grpc.aio.ServicerContext[Any, Any], call: Awaitable[Resp]) -> Resp:
    try:
        return await call
    except RefereeError as error:
        await context.abort_with_status(errors.to_status(error))
        raise  # unreachable: abort raises


class RefereeServicer(pb_grpc.RefereeServiceServicer):
    """The gRPC adapter: each method hands its request to :class:`RefereeCore`."""

    def __init__(self, core: RefereeCore) -> None:
        self.core = core

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
        stall = self.core.referee.limits.stream_stall_seconds
        batched = request.batched
        #: The last event written to the client: where it resumes after a stall.
        written = request.after_sequence
        stream = self.core.updates(request)
        try:
            async for update in stream:
                # A client that keeps its connection alive but never reads (grants no HTTP/2
                # window) would block this write for ever and hold a stream slot: a write not
                # taken within the stall limit ends the stream. The timeout runs in this
                # task, not in wait_for's own: grpc.aio notices a client that hangs up only
                # in the handler's task.
                # A batched message is shared by every stream of its viewer, its events by
                # every viewer who sees them alike: bytes encoded once (the bytes
                # serializer passes them through).
                data = (
                    convert.update_bytes(update)
                    if batched
                    else convert.update_to_proto(update, batched=False)
                )
                try:
                    async with asyncio.timeout(stall or None):
                        await context.write(data)
                except TimeoutError:
                    # The stalled message may not have reached the client: resuming after
                    # the last one written loses nothing.
                    raise errors.exhausted(
                        "stream stall seconds", int(stall), last_sequence=str(written)
                    ) from None
                if update.events:
                    written = update.events[-1].sequence
        except RefereeError as error:
            # Free the stream (its slot, its place in the fan-out) before the status goes
            # out: to a stalled client it goes out only when the client reads again.
            await stream.aclose()
            await context.abort_with_status(errors.to_status(error))
        finally:
            # A cancelled call closes the core's stream at once (the referee counts the
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
