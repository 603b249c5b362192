"""The gRPC adapter: ``referee.v1.RefereeService`` on a ``grpc.aio`` server, one handler per
method of the service descriptor, each handing its request to :class:`RefereeCore`.

Requests are decoded by :func:`~referee.server.service.decode`: bytes that are not a request
become a :class:`~referee.server.calls.Refused` the service answers with
``INVALID_ARGUMENT`` and a ``BadRequest`` detail (gRPC itself would answer ``UNKNOWN`` before
any code of ours runs). A refusal goes out as the call's status, with the
``google.rpc.Status`` of :mod:`referee.server.errors` in ``grpc-status-details-bin``. Stream
messages arrive as ready bytes and leave as they are.

A bidirectional RPC (PlayerSession) gets the request messages as they arrive, each decoded
as a unary request is (an unreadable one reaches the service as a ``Refused``, which answers
it on the stream rather than ending it), and writes its messages with ``context.write``.

A stream's task awaits each ``context.write`` itself, and nothing cancels it: gRPC cannot
take back a message it has begun to write (a status sent meanwhile is refused, and the call
is left with neither). A stall therefore gives back what the stream holds at once, and the
stream ends with its status once the write under way is taken (see
:class:`~referee.application.tables.pacing.Outlet`): to a stalled client the status goes out
when it reads again (the call ends when its connection does, if it never reads).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias

import grpc
from google.protobuf.message import Message
from grpc_status import rpc_status

from referee.application.tables.errors import RefereeError
from referee.server import errors
from referee.server.addresses import TrustedProxies, grpc_peer
from referee.server.calls import Caller, Refused
from referee.server.service import METHODS, Method, RefereeCore, decode
from referee.v1 import referee_pb2

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"


def _deserializer(method: Method) -> Callable[[bytes], Message | Refused]:
    return lambda data: decode(method, data)


def _serialize(message: Message | bytes) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


def caller_of(context: Context, proxies: TrustedProxies) -> Caller:
    """The call's ``authorization`` metadata and its client's address, as a :class:`Caller`."""
    found = {"authorization": "", "x-forwarded-for": "", "x-real-ip": ""}
    for key, value in context.invocation_metadata() or ():
        if key in found and not found[key] and isinstance(value, str):
            found[key] = value
    address = proxies.client(
        grpc_peer(context.peer() or ""), found["x-forwarded-for"], found["x-real-ip"]
    )
    return Caller.from_authorization(found["authorization"], address)


async def _abort(context: Context, error: RefereeError) -> None:
    await context.abort_with_status(rpc_status.to_status(errors.to_status(error)))


def _unary(core: RefereeCore, name: str) -> Callable[[Any, Context], Awaitable[Message | bytes]]:
    async def handle(request: Message | Refused, context: Context) -> Message | bytes:
        try:
            return await core.unary(name, request, caller_of(context, core.proxies))
        except RefereeError as error:
            await _abort(context, error)
            raise  # unreachable: abort raises

    return handle


def _stream(core: RefereeCore, name: str) -> Callable[[Any, Context], Awaitable[None]]:
    async def handle(request: Message | Refused, context: Context) -> None:
        caller = caller_of(context, core.proxies)
        try:
            await core.stream(name, request, context.write, caller, cancel_writes=False)
        except RefereeError as error:
            await _abort(context, error)

    return handle


def _duplex(core: RefereeCore, name: str) -> Callable[[Any, Context], Awaitable[None]]:
    async def handle(requests: AsyncIterator[Message | Refused], context: Context) -> None:
        caller = caller_of(context, core.proxies)
        try:
            await core.duplex(name, requests, context.write, caller, cancel_writes=False)
        except RefereeError as error:
            await _abort(context, error)

    return handle


def add_referee_service(core: RefereeCore, server: grpc.aio.Server) -> None:
    """Serve every method of ``referee.v1.RefereeService`` from ``core`` on ``server``."""
    handlers: dict[str, grpc.RpcMethodHandler] = {}
    for name, method in METHODS.items():
        if method.client_streaming:
            # Only bidirectional: the service has no client-streaming RPC with one answer.
            handlers[name] = grpc.stream_stream_rpc_method_handler(
                _duplex(core, name),
                request_deserializer=_deserializer(method),
                response_serializer=None,  # a stream writes ready bytes only
            )
        elif method.streaming:
            handlers[name] = grpc.unary_stream_rpc_method_handler(
                _stream(core, name),
                request_deserializer=_deserializer(method),
                response_serializer=None,  # a stream writes ready bytes only
            )
        else:
            handlers[name] = grpc.unary_unary_rpc_method_handler(
                _unary(core, name),
                request_deserializer=_deserializer(method),
                response_serializer=_serialize,
            )
    service = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"]
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service.full_name, handlers),)
    )


__all__ = ["add_referee_service"]
