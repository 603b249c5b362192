"""Registering the referee service with gRPC so that bytes which are not a request are an
``INVALID_ARGUMENT``, not gRPC's own ``UNKNOWN`` ("Wire format was corrupt").

The generated ``add_RefereeServiceServicer_to_server`` hands the request bytes to
``FromString``; when that raises, grpc.aio answers UNKNOWN before any code of ours runs. Here
every method gets a deserializer that turns undecodable bytes into :class:`Undecodable`, and a
guard in front of the servicer's method that answers it with ``INVALID_ARGUMENT`` and a
``BadRequest`` detail (issue 10: never UNKNOWN for anything a client sent).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import message as protobuf_message

from referee.metrics import SERVICE, Metrics
from referee.server import errors
from referee.v1 import referee_pb2


class Arrivals:
    """How many calls have reached a handler: a stopping server keeps serving until no new
    call has arrived for a moment, so calls received just before the stop are served rather
    than cancelled by gRPC before they start (issue 10)."""

    def __init__(self) -> None:
        self.count = 0


#: Every call the referee service starts, counted (see :class:`Arrivals`).
ARRIVALS = Arrivals()


@dataclass(frozen=True, slots=True)
class Undecodable:
    """Request bytes that are not the method's request message."""

    method: str
    reason: str


def _deserializer(method: str, request_type: Any) -> Callable[[bytes], Any]:
    def deserialize(data: bytes) -> Any:
        try:
            return request_type.FromString(data)
        except (protobuf_message.DecodeError, ValueError, RecursionError) as error:
            return Undecodable(method, str(error) or type(error).__name__)

    return deserialize


def _serializer(response_type: Any) -> Callable[[Any], bytes]:
    """The message's bytes; bytes as they are (a stream message encoded once for all the
    streams that send it, see the gRPC adapter's StreamGame)."""
    to_bytes = response_type.SerializeToString

    def serialize(message: Any) -> bytes:
        return message if isinstance(message, bytes) else bytes(to_bytes(message))

    return serialize


def _refusal(request: Undecodable) -> grpc.Status:
    return errors.to_status(
        errors.bad_request(
            "request",
            f"not a serialized {request.method} request message ({errors.clip(request.reason)})",
        )
    )


def add_referee_service(servicer: Any, server: grpc.aio.Server, metrics: Metrics) -> None:
    """Register ``servicer`` (a ``RefereeServiceServicer``) on ``server``."""
    service = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"]
    handlers: dict[str, grpc.RpcMethodHandler] = {}
    for method in service.methods:
        name = method.name
        request_type = getattr(referee_pb2, method.input_type.name)
        response_type = getattr(referee_pb2, method.output_type.name)
        behaviour = getattr(servicer, name)
        deserialize = _deserializer(name, request_type)
        serialize = _serializer(response_type)
        if method.server_streaming:
            handlers[name] = grpc.unary_stream_rpc_method_handler(
                _guard_stream(name, behaviour, metrics),
                request_deserializer=deserialize,
                response_serializer=serialize,
            )
        else:
            handlers[name] = grpc.unary_unary_rpc_method_handler(
                _guard_unary(name, behaviour, metrics),
                request_deserializer=deserialize,
                response_serializer=serialize,
            )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service.full_name, handlers),)
    )


def _count_refusal(metrics: Metrics, kind: str, name: str) -> None:
    labels = (kind, SERVICE, name)
    metrics.started.labels(*labels).inc()
    metrics.handled.labels(*labels, grpc.StatusCode.INVALID_ARGUMENT.name).inc()


def _guard_unary(name: str, behaviour: Any, metrics: Metrics) -> Any:
    async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        ARRIVALS.count += 1
        if isinstance(request, Undecodable):
            _count_refusal(metrics, "unary", name)
            await context.abort_with_status(_refusal(request))
        return await behaviour(request, context)

    return unary


def _guard_stream(name: str, behaviour: Any, metrics: Metrics) -> Any:
    if not inspect.isasyncgenfunction(behaviour):  # a handler that writes with context.write

        async def writing(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
            ARRIVALS.count += 1
            if isinstance(request, Undecodable):
                _count_refusal(metrics, "server_stream", name)
                await context.abort_with_status(_refusal(request))
            await behaviour(request, context)

        return writing

    async def stream(
        request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Any]:
        ARRIVALS.count += 1
        if isinstance(request, Undecodable):
            _count_refusal(metrics, "server_stream", name)
            await context.abort_with_status(_refusal(request))
        async for message in behaviour(request, context):
            yield message

    return stream


__all__ = ["ARRIVALS", "Undecodable", "add_referee_service"]
