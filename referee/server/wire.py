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
"""

from __future__ import annotations

import asyncio
import contextlib
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


class _Writes:
    """A stream's ``context.write``, each write run by a task of its own that the stream's
    task waits on through a plain future: a stall cancels the stream's wait, never the write
    itself, which gRPC cannot take back (a status sent while a message is still being
    written is refused, and the call is left with neither). The write's task settles the
    future itself, rather than a shield passing its end along: one loop pass less per
    message, and no future nor callbacks of the shield's."""

    __slots__ = ("context", "loop", "pending")

    def __init__(self, context: Context) -> None:
        self.context = context
        self.loop = asyncio.get_running_loop()
        self.pending: asyncio.Task[None] | None = None

    async def __call__(self, data: bytes) -> None:
        taken = self.loop.create_future()
        self.pending = self.loop.create_task(self._write(data, taken))
        await taken
        # Taken: nothing for :meth:`end` to wait for, and an idle stream holds no finished
        # write (its task, and the task's entry among the loop's).
        self.pending = None

    async def _write(self, data: bytes, taken: asyncio.Future[None]) -> None:
        try:
            await self.context.write(data)
        except asyncio.CancelledError:
            taken.cancel()
            raise
        except Exception as error:  # the stream's task gets it, if it still waits
            if not taken.done():
                taken.set_exception(error)
        else:
            if not taken.done():
                taken.set_result(None)

    async def end(self, error: RefereeError) -> None:
        """End the call with ``error`` once the message being written is taken: to a
        stalled client the status goes out when it reads again (the stream's slot is free
        already; the call ends when its connection does, if it never reads)."""
        if self.pending is not None:
            with contextlib.suppress(Exception):
                await self.pending
        await _abort(self.context, error)


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
        writes = _Writes(context)
        try:
            await core.stream(name, request, writes, caller_of(context, core.proxies))
        except RefereeError as error:
            await writes.end(error)

    return handle


def _duplex(core: RefereeCore, name: str) -> Callable[[Any, Context], Awaitable[None]]:
    async def handle(requests: AsyncIterator[Message | Refused], context: Context) -> None:
        writes = _Writes(context)
        try:
            await core.duplex(name, requests, writes, caller_of(context, core.proxies))
        except RefereeError as error:
            await writes.end(error)

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
