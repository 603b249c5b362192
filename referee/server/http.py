"""The HTTP adapter: ``referee.v1.RefereeService`` for browsers, plus the web client's files.

Every method of the service is served on the Connect protocol (JSON and binary, unary and
server streaming) and on gRPC-Web, by connect-python on uvicorn, from the same
:class:`~referee.server.service.RefereeCore` as the gRPC port: same tokens, errors, limits,
metrics and logs. This module only moves messages: a :class:`RefereeError` becomes a Connect
error with the same code and the same ``google.rpc`` details as the gRPC status.

Other paths: ``/healthz``, and the built web client (``clients/web/dist``) at ``/``; without a
build, ``/`` says how to make one. CORS: same-origin requests need nothing; other origins are
refused unless listed (``--http-cors-origin``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import mimetypes
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import uvicorn
from connectrpc import _codec
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from google.rpc import status_pb2

from referee.application.errors import RefereeError
from referee.metrics import SERVICE
from referee.server import errors
from referee.server.service import RefereeCore
from referee.v1 import referee_pb2 as pb

#: The web client's build, next to the sources (``make web``).
WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web" / "dist"
#: Request headers a browser may send cross-origin: those of Connect and gRPC-Web clients.
_ALLOW_HEADERS = (
    "content-type, connect-protocol-version, connect-timeout-ms, connect-accept-encoding, "
    "connect-content-encoding, grpc-timeout, x-grpc-web, x-user-agent"
)
#: Response headers a cross-origin client may read (gRPC-Web errors travel in them).
_EXPOSE_HEADERS = "grpc-status, grpc-message, grpc-status-details-bin, content-encoding"

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

_NO_BUILD = """<!doctype html><meta charset="utf-8"><title>referee</title>
<h1>The referee is running</h1>
<p>The web client has not been built. With Node.js and npm installed, run
<code>make web</code> (or <code>cd clients/web &amp;&amp; npm ci &amp;&amp; npm run build</code>)
and reload this page.</p>
<p>The API is served here over Connect and gRPC-Web, e.g.
<code>curl -H 'Content-Type: application/json' -d '{}'
http://HOST/referee.v1.RefereeService/ListGameTypes</code>.</p>
"""


class _Codec:
    """Decoding errors are the client's (INVALID_ARGUMENT), not the server's: the library's
    own codecs let them through as INTERNAL. JSON goes out compact (no indentation)."""

    def __init__(self, name: str, binary: bool) -> None:
        self._name = name
        self.binary = binary

    def name(self) -> str:
        return self._name

    def encode(self, message: Message) -> bytes:
        if self.binary:
            return message.SerializeToString()
        return json_format.MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message: Message) -> Message:
        try:
            if self.binary:
                message.ParseFromString(bytes(data))
            else:
                json_format.Parse(bytes(data), message)
        except (DecodeError, json_format.ParseError, UnicodeDecodeError) as error:
            kind = "binary protobuf" if self.binary else "protobuf JSON"
            raise ConnectError(
                Code.INVALID_ARGUMENT, f"the request is not a valid {kind} message: {error}"
            ) from None
        return message


# connect-python 0.9 keeps its codecs in one module-level table and has no other hook for
# them; the version is pinned below 0.10 and tests/web/test_http.py checks malformed bodies.
for _name in list(_codec._codecs):
    _codec._codecs[_name] = _Codec(_name, binary=_name == _codec.CODEC_NAME_PROTO)


def connect_error(error: RefereeError) -> ConnectError:
    """The Connect error for ``error``: the same code, message and ``google.rpc`` details as
    its gRPC status (taken from that status, so the two never differ)."""
    status = errors.to_status(error)
    packed = dict(status.trailing_metadata or ()).get("grpc-status-details-bin", b"")
    detail = status_pb2.Status.FromString(packed) if isinstance(packed, bytes) else None
    return ConnectError(
        Code[errors.status_code(error).name],
        detail.message if detail else error.message,
        list(detail.details) if detail else (),
    )


def _unary(call: Callable[[Any], Awaitable[Any]]) -> Callable[[Any, Any], Awaitable[Any]]:
    async def handle(request: Any, _context: RequestContext[Any, Any]) -> Any:
        try:
            return await call(request)
        except RefereeError as error:
            raise connect_error(error) from None

    return handle


def _server_stream(
    call: Callable[[Any], Any],
) -> Callable[[Any, Any], AsyncIterator[Any]]:
    async def handle(request: Any, _context: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        # aclosing: a client that goes away closes the core's stream at once (as over gRPC).
        async with contextlib.aclosing(call(request)) as stream:
            try:
                async for message in stream:
                    yield message
            except RefereeError as error:
                raise connect_error(error) from None

    return handle


def endpoints(core: RefereeCore) -> Mapping[str, Any]:
    """One endpoint per method of the service, read from its descriptor (so a new RPC is
    served as soon as the core has a method of that name)."""
    service = pb.DESCRIPTOR.services_by_name["RefereeService"]
    table: dict[str, Any] = {}
    for method in service.methods:
        info: MethodInfo[Any, Any] = MethodInfo(
            name=method.name,
            service_name=SERVICE,
            input=getattr(pb, method.input_type.name),
            output=getattr(pb, method.output_type.name),
            idempotency_level=IdempotencyLevel.UNKNOWN,
        )
        call = getattr(core, method.name)
        path = f"/{SERVICE}/{method.name}"
        if method.server_streaming:
            table[path] = Endpoint.server_stream(info, _server_stream(call))
        else:
            table[path] = Endpoint.unary(info, _unary(call))
    return table


class RefereeConnectApp(ConnectASGIApplication[RefereeCore]):
    """Connect, gRPC-Web (and gRPC over HTTP/2 where the ASGI server has trailers)."""

    @property
    def path(self) -> str:
        return f"/{SERVICE}"


class HttpApp:
    """The ASGI application of the HTTP port: the service, CORS, health and the web client."""

    def __init__(
        self,
        core: RefereeCore,
        *,
        cors_origins: Iterable[str] = (),
        read_max_bytes: int | None = None,
        web_root: Path | None = WEB_ROOT,
    ) -> None:
        self.rpc = RefereeConnectApp(
            service=core, endpoints=endpoints, read_max_bytes=read_max_bytes
        )
        self.cors_origins = frozenset(cors_origins)
        self.web_root = web_root.resolve() if web_root else None
        self._gzipped: dict[tuple[Path, int], bytes] = {}

    @property
    def has_web_client(self) -> bool:
        return self.web_root is not None and (self.web_root / "index.html").is_file()

    def _allowed(self, origin: str | None) -> bool:
        return origin is not None and ("*" in self.cors_origins or origin in self.cors_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no lifespan work and no websockets
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        origin = headers.get("origin")
        path: str = scope["path"]
        if path.startswith(f"/{SERVICE}/"):
            if scope["method"] == "OPTIONS":
                await self._preflight(origin, headers, send)
                return
            await self.rpc(scope, receive, self._with_cors(origin, send))
            return
        if scope["method"] not in ("GET", "HEAD"):
            await _plain(send, 405, b"method not allowed\n")
            return
        if path == "/healthz":
            await _plain(send, 200, b"ok\n")
            return
        await self._static(path, headers.get("accept-encoding", ""), scope["method"], send)

    def _with_cors(self, origin: str | None, send: Send) -> Send:
        if not self._allowed(origin):
            return send

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [
                    *message.get("headers", []),
                    (b"access-control-allow-origin", str(origin).encode("latin-1")),
                    (b"access-control-expose-headers", _EXPOSE_HEADERS.encode()),
                    (b"vary", b"Origin"),
                ]
            await send(message)

        return sending

    async def _preflight(self, origin: str | None, headers: dict[str, str], send: Send) -> None:
        if not self._allowed(origin):
            await _plain(send, 403, b"origin not allowed (see --http-cors-origin)\n")
            return
        await send(
            {
                "type": "http.response.start",
                "status": 204,
                "headers": [
                    (b"access-control-allow-origin", str(origin).encode("latin-1")),
                    (b"access-control-allow-methods", b"POST, GET"),
                    (b"access-control-allow-headers", _ALLOW_HEADERS.encode()),
                    (b"access-control-max-age", b"7200"),
                    (b"vary", b"Origin"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    async def _static(self, path: str, accept_encoding: str, method: str, send: Send) -> None:
        if not self.has_web_client:
            if path in ("/", "/index.html"):
                await _plain(send, 200, _NO_BUILD.encode(), b"text/html; charset=utf-8")
            else:
                await _plain(send, 404, b"not found\n")
            return
        assert self.web_root is not None
        relative = path.lstrip("/") or "index.html"
        file = (self.web_root / relative).resolve()
        if not file.is_relative_to(self.web_root) or not file.is_file():
            await _plain(send, 404, b"not found\n")
            return
        body = file.read_bytes()
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml"):
            kind += "; charset=utf-8"
        headers = [(b"content-type", kind.encode())]
        # Hashed asset names never change content: cache them; index.html always revalidates.
        immutable = relative.startswith("assets/")
        headers.append(
            (b"cache-control", b"public, max-age=31536000, immutable" if immutable else b"no-cache")
        )
        if "gzip" in accept_encoding and len(body) > 512:
            # Keyed by modification time too: a rebuild (make web) is served at once.
            key = (file, file.stat().st_mtime_ns)
            if key not in self._gzipped:
                self._gzipped[key] = gzip.compress(body)
            body = self._gzipped[key]
            headers += [(b"content-encoding", b"gzip"), (b"vary", b"Accept-Encoding")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})


async def _plain(
    send: Send, status: int, body: bytes, kind: bytes = b"text/plain; charset=utf-8"
) -> None:
    await send(
        {"type": "http.response.start", "status": status, "headers": [(b"content-type", kind)]}
    )
    await send({"type": "http.response.body", "body": body})


class HttpServer:
    """uvicorn serving :class:`HttpApp` inside the referee's own event loop (no signal
    handlers of its own: the referee process handles SIGTERM and stops it)."""

    def __init__(self, app: HttpApp, listen: str, grace_seconds: float) -> None:
        host, port = listen.rsplit(":", 1)
        self.app = app
        bare = host.strip("[]")
        # IPPROTO_TCP given explicitly: asyncio turns Nagle off (TCP_NODELAY) only on sockets
        # whose proto says TCP, and without it every response written in two parts (headers,
        # body) waited ~40 ms for the client's delayed ACK.
        family = socket.AF_INET6 if ":" in bare else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((bare, int(port)))
        self.socket.listen(1024)
        self.socket.setblocking(False)
        self.host = host
        self.port: int = self.socket.getsockname()[1]
        self.config = uvicorn.Config(
            app,
            lifespan="off",
            log_config=None,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=max(1, round(grace_seconds)),
        )
        self.server = uvicorn.Server(self.config)
        self._loop_task: asyncio.Task[None] | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    async def start(self) -> None:
        self.config.load()
        self.server.lifespan = self.config.lifespan_class(self.config)
        await self.server.startup(sockets=[self.socket])
        self._loop_task = asyncio.ensure_future(self.server.main_loop())

    async def stop(self) -> None:
        self.server.should_exit = True
        if self._loop_task is not None:
            await self._loop_task
        await self.server.shutdown(sockets=[self.socket])
