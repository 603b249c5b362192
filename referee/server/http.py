"""The HTTP adapter: ``referee.v1.RefereeService`` for browsers, plus the web client's files.

Every method of the service is served on the Connect protocol (JSON and binary, unary and
server streaming) and on gRPC-Web (binary and text), by :mod:`referee.server.connect` on
Hypercorn (HTTP/1.1 and HTTP/2, h2c included), from the same
:class:`~referee.server.service.RefereeCore` as the gRPC port: same tokens, errors, limits,
metrics and logs.

Other paths: ``/healthz``, and the built web client (``clients/web/dist``, or a wheel's copy
of it) at ``/``; without a
build, ``/`` says how to make one. Any other POST is an RPC path (an unknown one answers 404,
``unimplemented``). CORS: same-origin requests need nothing; other origins are refused
unless listed (``--http-cors-origin``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import logging
import mimetypes
import os
import socket
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

import hypercorn.asyncio
import hypercorn.asyncio.tcp_server
import hypercorn.config
from hypercorn.events import Closed, Event, Updated
from hypercorn.protocol import ProtocolWrapper
from hypercorn.protocol.h2 import H2Protocol

from referee import shipped
from referee.metrics import SERVICE
from referee.server.connect import RpcHandler
from referee.server.connections import Connections
from referee.server.service import RefereeCore

#: The web client's build: next to the sources in a checkout (``make web``), a wheel's own copy
#: in a wheel (:mod:`referee.shipped`).
WEB_ROOT = shipped.location("web", "clients/web/dist")
#: Request headers a browser may send cross-origin: those of Connect and gRPC-Web clients.
_ALLOW_HEADERS = (
    "content-type, connect-protocol-version, connect-timeout-ms, connect-accept-encoding, "
    "connect-content-encoding, grpc-timeout, x-grpc-web, x-user-agent, authorization"
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


class HttpApp:
    """The ASGI application of the HTTP port: the service, CORS, health and the web client."""

    def __init__(
        self,
        core: RefereeCore,
        *,
        cors_origins: Iterable[str] = (),
        read_max_bytes: int | None = None,
        web_root: Path | None = WEB_ROOT,
        body_seconds: float = 0.0,
    ) -> None:
        self.rpc = RpcHandler(core, read_max_bytes, body_seconds)
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
        if path.startswith(f"/{SERVICE}/") or scope["method"] == "POST":
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


class _Config(hypercorn.config.Config):
    #: A request's head must be in within this long of the connection's start (None: no limit).
    header_seconds: float | None = None


class _HeaderDeadline(ProtocolWrapper):
    """Hypercorn's connection, closed when no whole request head has come in within the
    header limit of its start, or of its switch to HTTP/2 (prior knowledge: the ``PRI``
    preface reads as a request head, after which Hypercorn would wait for the first
    stream without any limit). Between requests Hypercorn's own keep-alive limit holds."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._close_connection = self.send
        self._deadline: asyncio.Task[None] | None = None
        self._seconds: float | None = getattr(self.config, "header_seconds", None)
        if self._seconds is not None:
            self.send = self._watched
            self.protocol.send = self._watched

    async def initiate(self) -> None:
        await super().initiate()
        self._arm()

    async def handle(self, event: Event) -> None:
        if isinstance(event, Closed):  # the client went away
            self._disarm()
        before = self.protocol
        await super().handle(event)
        now = self.protocol
        if now is not before and isinstance(now, H2Protocol) and not now.streams:
            self._arm()  # the preface is in; the first request's HEADERS must follow

    async def _watched(self, event: Event) -> None:
        if (isinstance(event, Updated) and not event.idle) or isinstance(event, Closed):
            self._disarm()
        await self._close_connection(event)

    def _arm(self) -> None:
        self._disarm()
        if self._seconds is not None:
            self._deadline = asyncio.ensure_future(self._expire(self._seconds))

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    async def _expire(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        self._deadline = None
        with contextlib.suppress(Exception):
            await self._close_connection(Closed())


# Hypercorn makes each connection's protocol by this name; the deadline acts only on servers
# configured by :func:`hypercorn_config`.
hypercorn.asyncio.tcp_server.ProtocolWrapper = _HeaderDeadline  # type: ignore[attr-defined]


def hypercorn_config(connections: Connections) -> hypercorn.config.Config:
    """A Hypercorn configuration with the HTTP port's connection limits (the rest as
    Hypercorn's)."""
    config = _Config()
    config.header_seconds = connections.http_header_seconds or None
    # Hypercorn closes a connection idle this long, its first request's head not in yet
    # included; with no idle limit, a day (it has no "never").
    config.keep_alive_timeout = connections.http_idle_seconds or 86_400.0
    return config


class HttpServer:
    """Hypercorn serving :class:`HttpApp` inside the referee's own event loop (no signal
    handlers of its own: the referee process handles SIGTERM and stops it).

    One port speaks HTTP/1.1 and HTTP/2: over cleartext, HTTP/2 with prior knowledge (h2c,
    what gRPC-style clients such as connect-node with ``httpVersion: "2"`` send) and the
    HTTP/1.1 ``Upgrade: h2c``; a browser speaks HTTP/1.1 to it, or HTTP/2 through a TLS proxy
    (docs/operations.md). Many streams of one client then share one connection.

    ``stall_seconds`` (the stream policy's stall limit, 0: none) also bounds what the
    sockets hold for a peer: a connection whose peer acknowledges none of the data sent to it
    for three times that long (a reader that stopped, whose window is shut; a peer gone
    silent) is closed by the kernel (``TCP_USER_TIMEOUT``, which accepted sockets take from
    the listening one), so a stalled reader's bytes cannot pile up in the kernel's buffers
    either. Three times: a stream whose write stalls is ended first (within the limit of the
    write's start), and its end then waits up to the limit for a reader that comes back."""

    def __init__(
        self,
        app: HttpApp,
        listen: str,
        grace_seconds: float,
        connections: Connections | None = None,
        stall_seconds: float = 0.0,
    ) -> None:
        host, port = listen.rsplit(":", 1)
        self.app = app
        bare = host.strip("[]")
        # IPPROTO_TCP given explicitly: asyncio turns Nagle off (TCP_NODELAY) only on sockets
        # whose proto says TCP, and without it every response written in two parts (headers,
        # body) waited ~40 ms for the client's delayed ACK.
        family = socket.AF_INET6 if ":" in bare else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        user_timeout = getattr(socket, "TCP_USER_TIMEOUT", None)  # Linux only
        if stall_seconds > 0 and user_timeout is not None:
            self.socket.setsockopt(socket.IPPROTO_TCP, user_timeout, int(stall_seconds * 3000))
        self.socket.bind((bare, int(port)))
        self.socket.listen(1024)
        self.socket.setblocking(False)
        self.host = host
        self.port: int = self.socket.getsockname()[1]
        self.config = hypercorn_config(connections or Connections())
        self.config.accesslog = None
        self.config.errorlog = logging.getLogger("referee.http")
        self.config.loglevel = "WARNING"
        self.config.graceful_timeout = max(1.0, grace_seconds)
        self.config.include_server_header = False
        self._stopping: asyncio.Event | None = None
        self._serving: asyncio.Future[None] | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    async def start(self) -> None:
        # Hypercorn takes the listening socket by its descriptor (a copy: it closes its own).
        self.config.bind = [f"fd://{os.dup(self.socket.fileno())}"]
        self._stopping = asyncio.Event()
        self._serving = asyncio.ensure_future(
            hypercorn.asyncio.serve(
                self.app,  # type: ignore[arg-type]
                self.config,
                shutdown_trigger=self._stopping.wait,
                mode="asgi",
            )
        )

    async def stop(self) -> None:
        if self._stopping is not None and self._serving is not None:
            self._stopping.set()
            await self._serving
        self.socket.close()
