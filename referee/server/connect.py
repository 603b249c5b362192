"""The HTTP adapter's RPCs: ``referee.v1.RefereeService`` over Connect and gRPC-Web.

One handler serves every method of the service descriptor (:data:`METHODS`) from
:class:`RefereeCore`, as the gRPC adapter does, on four framings of the same messages:

- Connect unary (``application/proto``, ``application/json``): the body is the message;
  an error is a JSON body with the Connect code and its HTTP status;
- Connect streaming (``application/connect+proto``, ``+json``): enveloped messages, then an
  end-of-stream envelope carrying the error, if any;
- gRPC-Web (``application/grpc-web``, ``+proto``): enveloped messages, then a trailers
  envelope with ``grpc-status``, ``grpc-message`` and ``grpc-status-details-bin``;
- gRPC-Web text (``application/grpc-web-text``): the same, base64 encoded both ways.

Errors carry the ``google.rpc.Status`` of :mod:`referee.server.errors` (its details as
Connect ``details``, or packed in ``grpc-status-details-bin``), so both adapters send the
same codes and details. What the client sent wrong at this layer (an unknown method, a body
that is not gzip, a truncated or oversized envelope) gets the code a Connect client expects,
is logged, and counted (``referee_http_refused_total``, and under its method by code).

Streams run in a task of their own, so a client that hangs up (``http.disconnect``) ends its
stream at once, freeing its slot, whether or not the game moves.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gzip
import json
import struct
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import structlog
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2

from referee.application.tables.errors import Kind, RefereeError, bad_request, exhausted
from referee.metrics import SERVICE
from referee.server import errors
from referee.server.calls import Caller, Refused
from referee.server.service import METHODS, Method, RefereeCore, decode

log = structlog.get_logger("referee")

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

#: The HTTP status of a Connect unary error, by code (the Connect protocol's table).
HTTP_STATUS = {
    code_pb2.CANCELLED: 499,
    code_pb2.UNKNOWN: 500,
    code_pb2.INVALID_ARGUMENT: 400,
    code_pb2.DEADLINE_EXCEEDED: 504,
    code_pb2.NOT_FOUND: 404,
    code_pb2.ALREADY_EXISTS: 409,
    code_pb2.PERMISSION_DENIED: 403,
    code_pb2.RESOURCE_EXHAUSTED: 429,
    code_pb2.FAILED_PRECONDITION: 400,
    code_pb2.ABORTED: 409,
    code_pb2.OUT_OF_RANGE: 400,
    code_pb2.UNIMPLEMENTED: 501,
    code_pb2.INTERNAL: 500,
    code_pb2.UNAVAILABLE: 503,
    code_pb2.DATA_LOSS: 500,
    code_pb2.UNAUTHENTICATED: 401,
}
_ACCEPT_POST = (
    "application/json, application/proto, application/connect+json, "
    "application/connect+proto, application/grpc-web, application/grpc-web-text"
)
#: Flags of an envelope's first byte.
_COMPRESSED, _END_STREAM, _TRAILERS = 0x01, 0x02, 0x80
#: Connect unary responses this long or longer are gzipped for clients that accept it.
_GZIP_FROM = 1024


@dataclass(frozen=True, slots=True)
class Framing:
    """How a request's content type frames its messages."""

    #: "connect" (unary), "connect-stream", "grpc-web" or "grpc-web-text".
    protocol: str
    #: Messages in protobuf JSON rather than binary.
    json: bool

    @property
    def enveloped(self) -> bool:
        return self.protocol != "connect"

    @property
    def grpc_web(self) -> bool:
        return self.protocol.startswith("grpc-web")


_FRAMINGS = {
    "application/proto": Framing("connect", False),
    "application/json": Framing("connect", True),
    "application/connect+proto": Framing("connect-stream", False),
    "application/connect+json": Framing("connect-stream", True),
    "application/grpc-web": Framing("grpc-web", False),
    "application/grpc-web+proto": Framing("grpc-web", False),
    "application/grpc-web-text": Framing("grpc-web-text", False),
    "application/grpc-web-text+proto": Framing("grpc-web-text", False),
}


def _connect_code(code: int) -> str:
    """The Connect name of a code: ``not_found``; Connect spells CANCELLED ``canceled``."""
    return "canceled" if code == code_pb2.CANCELLED else errors.code_name(code).lower()


#: The error details the referee sends, by type name: what ``debug`` is decoded with.
_DETAIL_TYPES: dict[str, type[Message]] = {
    message.DESCRIPTOR.full_name: message
    for message in (
        error_details_pb2.ErrorInfo,
        error_details_pb2.BadRequest,
        error_details_pb2.PreconditionFailure,
        error_details_pb2.RetryInfo,
    )
}


def connect_error(status: status_pb2.Status) -> dict[str, Any]:
    """A status as a Connect error object: each detail's ``type``, its ``value`` (base64
    without padding, as Connect's) and, so that a plain JSON client reads its fields too,
    its ``debug`` form (the detail as protobuf JSON, which the Connect protocol allows
    beside the value)."""
    error: dict[str, Any] = {"code": _connect_code(status.code), "message": status.message}
    if status.details:
        details = []
        for detail in status.details:
            name = detail.type_url.rsplit("/", 1)[-1]
            entry: dict[str, Any] = {
                "type": name,
                "value": base64.b64encode(detail.value).decode().rstrip("="),
            }
            kind = _DETAIL_TYPES.get(name)
            if kind is not None:
                entry["debug"] = json_format.MessageToDict(kind.FromString(detail.value))
            details.append(entry)
        error["details"] = details
    return error


#: gRPC percent-encodes ``grpc-message``: every byte outside printable ASCII, and ``%``.
_MESSAGE_SAFE = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) != "%")


def grpc_web_trailers(status: status_pb2.Status | None) -> bytes:
    """The trailers of a gRPC-Web response: OK, or the status with its details."""
    if status is None:
        return b"grpc-status: 0\r\ngrpc-message: \r\n"
    details = base64.b64encode(status.SerializeToString()).decode().rstrip("=")
    message = quote(status.message, safe=_MESSAGE_SAFE)
    return (
        f"grpc-status: {status.code}\r\ngrpc-message: {message}\r\n"
        f"grpc-status-details-bin: {details}\r\n"
    ).encode()


def _envelope(flags: int, data: bytes) -> bytes:
    return struct.pack(">BI", flags, len(data)) + data


class _BadBody(Exception):
    """What the client sent cannot be read at this layer."""

    def __init__(self, error: RefereeError, what: str) -> None:
        super().__init__(error.message)
        self.refused = Refused(error, what)


def _gunzip(data: bytes, limit: int) -> bytes:
    """``data`` un-gzipped, at most ``limit`` bytes of it (a small body may not expand
    without bound)."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as error:
        raise _BadBody(
            bad_request("request", f"the body is not valid gzip ({error})"), "bad_gzip"
        ) from None
    if len(out) > limit:
        raise _BadBody(exhausted("request bytes", limit), "too_large")
    if not inflater.eof:
        raise _BadBody(bad_request("request", "the gzip body is truncated"), "bad_gzip")
    return out


def _decompress(data: bytes, encoding: str, limit: int) -> bytes:
    if encoding in ("", "identity"):
        return data
    if encoding == "gzip":
        return _gunzip(data, limit)
    raise _BadBody(
        RefereeError(
            Kind.INVALID,
            f"unknown content encoding {errors.clip(encoding)!r}: gzip and identity are served",
            "BAD_REQUEST",
            field_violations=[("content-encoding", "not gzip or identity")],
        ),
        "bad_encoding",
    )


def _unenvelope(body: bytes, encoding: str, limit: int) -> bytes:
    """The one message of an enveloped request body."""
    if len(body) < 5:
        raise _BadBody(
            bad_request("request", "truncated envelope: fewer than 5 bytes"), "bad_envelope"
        )
    flags, size = struct.unpack(">BI", body[:5])
    if size > limit:
        raise _BadBody(exhausted("request bytes", limit), "too_large")
    if len(body) < 5 + size:
        raise _BadBody(
            bad_request("request", f"truncated envelope: {len(body) - 5} of {size} message bytes"),
            "bad_envelope",
        )
    if len(body) > 5 + size:
        raise _BadBody(bad_request("request", "more than one message in a request"), "bad_envelope")
    data = body[5:]
    if flags & _COMPRESSED:
        data = _decompress(data, encoding or "identity-but-flagged", limit)
    return data


def _text_decode(body: bytes) -> bytes:
    """gRPC-Web text: base64, possibly several padded chunks one after another."""
    text = b"".join(body.split())
    try:
        if b"=" not in text.rstrip(b"="):
            return base64.b64decode(text, validate=True)
        return b"".join(
            base64.b64decode(text[i : i + 4], validate=True) for i in range(0, len(text), 4)
        )
    except ValueError as error:
        raise _BadBody(
            bad_request("request", f"the body is not base64 ({error})"), "bad_base64"
        ) from None


class RpcHandler:
    """Answers ``POST /referee.v1.RefereeService/<Method>`` (see the module's docstring)."""

    def __init__(
        self, core: RefereeCore, read_max_bytes: int | None, body_seconds: float = 0.0
    ) -> None:
        self.core = core
        self.limit = read_max_bytes or 4 * 1024 * 1024
        #: A request's body must be in within this long of its head (0: no limit).
        self.body_seconds = body_seconds
        self.refused = core.metrics.http_refused

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        peer = scope.get("client")
        caller = Caller.from_authorization(
            headers.get("authorization", ""),
            self.core.proxies.client(
                str(peer[0]) if peer else "",
                headers.get("x-forwarded-for", ""),
                headers.get("x-real-ip", ""),
            ),
        )
        name = scope["path"][len(SERVICE) + 2 :]
        method = METHODS.get(name)
        if method is None or not scope["path"].startswith(f"/{SERVICE}/"):
            await self._refuse(
                send, 404, code_pb2.UNIMPLEMENTED, "no such method", "unknown_method"
            )
            return
        if scope["method"] != "POST":
            await self._refuse(
                send, 405, code_pb2.UNIMPLEMENTED, "POST only", "not_post", allow=True
            )
            return
        if method.client_streaming:
            # A browser's fetch cannot stream a request body, nor does HTTP/1.1 serve both
            # directions at once: the same player stream is WatchPlayer, commands unary.
            await self._refuse(
                send,
                501,
                code_pb2.UNIMPLEMENTED,
                f"{name} streams both ways, over gRPC only; over HTTP use WatchPlayer and "
                "SubmitCommand",
                "client_streaming",
            )
            return
        content_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        framing = _FRAMINGS.get(content_type)
        if framing is None or (method.streaming and not framing.enveloped):
            await self._refuse(
                send,
                415,
                code_pb2.UNIMPLEMENTED,
                f"content type {errors.clip(content_type)!r} is not served for {name}",
                "content_type",
                accept=True,
            )
            return
        request = await self._read(method, framing, headers, receive)
        if isinstance(request, Refused):
            self.refused.labels(
                errors.code_name(errors.status_code(request.error)), request.what
            ).inc()
        if not framing.enveloped:
            await self._connect_unary(method, request, framing, headers, caller, send)
        else:
            await self._enveloped(method, request, framing, headers, caller, receive, send)

    async def _refuse(
        self,
        send: Send,
        status: int,
        code: int,
        message: str,
        what: str,
        allow: bool = False,
        accept: bool = False,
    ) -> None:
        """A refusal before any method is called: logged, counted, a Connect error body (a
        gRPC-Web client reads the HTTP status)."""
        log.info("request_refused", code=errors.code_name(code), what=what, http_status=status)
        self.refused.labels(errors.code_name(code), what).inc()
        headers = [(b"content-type", b"application/json")]
        if allow:
            headers.append((b"allow", b"POST"))
        if accept:
            headers.append((b"accept-post", _ACCEPT_POST.encode()))
        body = json.dumps({"code": _connect_code(code), "message": message}).encode()
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _read(
        self, method: Method, framing: Framing, headers: dict[str, str], receive: Receive
    ) -> Message | Refused:
        # Room for the envelope, and for base64's third more in text mode.
        room = self.limit + 5
        if framing.protocol == "grpc-web-text":
            room = room * 4 // 3 + 8
        elif not framing.enveloped and headers.get("content-encoding", "identity") != "identity":
            room = self.limit  # compressed: the limit applies after inflating, below
        try:
            async with asyncio.timeout(self.body_seconds or None):
                read = await self._body(receive, room)
        except TimeoutError:
            return Refused(
                bad_request("request", f"the body did not arrive within {self.body_seconds:g} s"),
                "slow_body",
            )
        if isinstance(read, Refused):
            return read
        body = read
        try:
            if framing.protocol == "grpc-web-text":
                body = _text_decode(body)
            if framing.enveloped:
                encoding = headers.get(
                    "grpc-encoding" if framing.grpc_web else "connect-content-encoding", ""
                )
                data = _unenvelope(body, encoding.lower(), self.limit)
            else:
                data = _decompress(body, headers.get("content-encoding", "").lower(), self.limit)
                if len(data) > self.limit:
                    raise _BadBody(exhausted("request bytes", self.limit), "too_large")
        except _BadBody as bad:
            return bad.refused
        return decode(method, data, framing.json)

    async def _body(self, receive: Receive, room: int) -> bytes | Refused:
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return Refused(bad_request("request", "the client went away"), "disconnect")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > room:
                return Refused(exhausted("request bytes", self.limit), "too_large")
            chunks.append(chunk)
            more = message.get("more_body", False)
        return b"".join(chunks)

    def _encode(self, method: Method, framing: Framing, data: Message | bytes) -> bytes:
        if framing.json:
            message = method.output.FromString(data) if isinstance(data, bytes) else data
            return json_format.MessageToJson(message, indent=None).encode()
        return data if isinstance(data, bytes) else data.SerializeToString()

    async def _connect_unary(
        self,
        method: Method,
        request: Message | Refused,
        framing: Framing,
        headers: dict[str, str],
        caller: Caller,
        send: Send,
    ) -> None:
        kind = b"application/json" if framing.json else b"application/proto"
        try:
            response = await self.core.unary(method.name, request, caller)
        except RefereeError as error:
            status = errors.to_status(error)
            body = json.dumps(connect_error(status)).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": HTTP_STATUS[status.code],
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        body = self._encode(method, framing, response)
        response_headers = [(b"content-type", kind)]
        if len(body) >= _GZIP_FROM and "gzip" in headers.get("accept-encoding", ""):
            body = gzip.compress(body, compresslevel=6)
            response_headers += [(b"content-encoding", b"gzip"), (b"vary", b"Accept-Encoding")]
        await send({"type": "http.response.start", "status": 200, "headers": response_headers})
        await send({"type": "http.response.body", "body": body})

    async def _enveloped(
        self,
        method: Method,
        request: Message | Refused,
        framing: Framing,
        headers: dict[str, str],
        caller: Caller,
        receive: Receive,
        send: Send,
    ) -> None:
        text = framing.protocol == "grpc-web-text"
        if framing.grpc_web:
            kind = "application/grpc-web-text+proto" if text else "application/grpc-web+proto"
        else:
            kind = "application/connect+json" if framing.json else "application/connect+proto"
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", kind.encode())],
            }
        )

        async def write(data: Message | bytes) -> None:
            frame = _envelope(0, self._encode(method, framing, data))
            try:
                await send(
                    {
                        "type": "http.response.body",
                        "body": base64.b64encode(frame) if text else frame,
                        "more_body": True,
                    }
                )
            except OSError:  # the socket gave up on the peer: as a client hanging up
                raise asyncio.CancelledError from None

        status: status_pb2.Status | None = None
        try:
            if method.streaming:
                await self._run_stream(method, request, write, receive, caller)
            else:
                await write(await self.core.unary(method.name, request, caller))
        except RefereeError as error:
            status = errors.to_status(error)
        except _HungUp:
            return  # nobody to tell
        if framing.grpc_web:
            end = _envelope(_TRAILERS, grpc_web_trailers(status))
        else:
            ending = {"error": connect_error(status)} if status is not None else {}
            end = _envelope(_END_STREAM, json.dumps(ending).encode())
        # To a stalled client the end goes out only if it reads again: wait for that as long
        # as the stall limit lets any write wait (the stream's slot is free already), then
        # leave the connection to close (the socket gives up on a peer that takes nothing).
        with contextlib.suppress(OSError):  # TimeoutError included
            async with asyncio.timeout(self.core.referee.pacing.policy.stall_seconds or None):
                await send(
                    {
                        "type": "http.response.body",
                        "body": base64.b64encode(end) if text else end,
                        "more_body": False,
                    }
                )

    async def _run_stream(
        self,
        method: Method,
        request: Message | Refused,
        write: Callable[[bytes], Awaitable[None]],
        receive: Receive,
        caller: Caller,
    ) -> None:
        """The stream, in a task of its own that a client hanging up cancels."""
        streaming = asyncio.ensure_future(self.core.stream(method.name, request, write, caller))

        async def hang_up() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        watching = asyncio.ensure_future(hang_up())
        try:
            await asyncio.wait({streaming, watching}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watching.cancel()
            if not streaming.done():
                streaming.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await streaming
        if not streaming.cancelled():
            streaming.result()  # OK, or the RefereeError it ended with
        else:
            raise _HungUp


class _HungUp(Exception):
    """The client of a stream went away."""


__all__ = ["HTTP_STATUS", "RpcHandler", "connect_error", "grpc_web_trailers"]
