"""The server process: gRPC (with health and reflection), HTTP for browsers (Connect, gRPC-Web,
the web client), metrics, logs, graceful shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import start_http_server

from referee.application import Limits, Referee
from referee.application.house.levels import parse_levels
from referee.application.players.accounts import PlayerSettings
from referee.application.tables.errors import stopping as shutting_down
from referee.metrics import SERVICE, Metrics
from referee.server.addresses import TrustedProxies
from referee.server.banner import start_banner
from referee.server.connections import Connections
from referee.server.http import WEB_ROOT, HttpApp, HttpServer
from referee.server.service import RefereeCore
from referee.server.wire import add_referee_service
from referee.store import DEFAULT_WAIT, open_store, redacted
from referee.v1 import referee_pb2


@dataclass
class ServerConfig:
    listen: str = "127.0.0.1:50051"
    store: str = "sqlite:data/referee.sqlite3"
    #: Longest wait for the store (a pooled connection, SQLite's write lock) before a call
    #: fails with UNAVAILABLE and a retry hint.
    store_wait: float = DEFAULT_WAIT
    metrics: str | None = "127.0.0.1:9464"
    #: host:port of the HTTP port (Connect, gRPC-Web, the web client); None = no HTTP port.
    http: str | None = None
    #: Origins other than the HTTP port's own that browsers may call it from ("*" = any).
    cors_origins: tuple[str, ...] = ()
    #: Folder of the built web client served at the HTTP port's "/" (default clients/web/dist).
    web_root: str | None = None
    limits: Limits = field(default_factory=Limits)
    #: Registration, the platform whose signed tokens are accepted, calls per minute (per
    #: player, and per client address for calls without a player).
    players: PlayerSettings = field(default_factory=PlayerSettings)
    #: Proxies (addresses or CIDR networks) whose forwarded client address is believed.
    trusted_proxies: tuple[str, ...] = ()
    #: How long a connection may take to ask, sit idle, and live, on both ports.
    connections: Connections = field(default_factory=Connections)
    max_message_bytes: int = 4 * 1024 * 1024
    grace_seconds: float = 5.0
    #: At shutdown, after health turns NOT_SERVING, keep serving until no call has arrived
    #: for a moment, at most this long: calls sent just before the stop are served.
    drain_seconds: float = 2.0
    #: Calls gRPC may hold received but not yet started; beyond it gRPC itself cancels
    #: new ones (its default, 1,000, cancelled a third of a burst of stream opens).
    max_pending_calls: int = 50_000
    #: House bots' levels to run, e.g. "easy,normal" ("" = none; docs/lobby.md).
    house_bots: str = ""
    #: A house bot's per-move budget (ms); past it the move is a random legal one.
    house_bot_budget_ms: int = 1000
    #: A pairing request waiting this long is joined by a house bot (0 = never).
    house_bots_pair_after: float = 10.0


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """A handler writing to whatever ``sys.stderr`` is now (tests swap it), as logging's own
    last-resort handler does."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass  # always sys.stderr


#: The one handler every log record goes through (see :func:`configure_logging`).
_HANDLER = _Stderr()


def configure_logging(level: int = logging.INFO) -> None:
    """JSON log lines on stderr, one object per line, for every logger in the process.

    The referee logs through structlog; the standard library's loggers (psycopg and its pool,
    the event stores, grpc's Python side, warnings) go through the same JSON renderer, with
    their logger's name, so no plain-text line reaches stderr. Everything is written by one
    handler, under one lock, so lines from different threads never interleave.
    """
    stamped: list[Any] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[*stamped, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.stdlib.LoggerFactory(),
        # Not cached: a module-level logger (``structlog.get_logger`` at import) would keep the
        # first configuration for good, so an embedding host's later ``structlog.configure``
        # (or a test's ``capture_logs``) would never see the referee's lines. No line is logged
        # per command at info level, so the lookup per call costs nothing that matters.
        cache_logger_on_first_use=False,
    )
    _HANDLER.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*stamped, structlog.stdlib.add_logger_name],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                # A traceback as one JSON string (no local variables: they may hold secrets).
                structlog.processors.format_exc_info,
                structlog.processors.JSONRenderer(),
            ],
        )
    )
    root = logging.getLogger()
    if _HANDLER not in root.handlers:
        root.addHandler(_HANDLER)
    root.setLevel(level)
    # psycopg's pool logs every connection it hands out at INFO, which would drown the
    # referee's own lines: only its warnings (a connection discarded, a failed reconnect).
    logging.getLogger("psycopg").setLevel(max(level, logging.WARNING))
    # asyncio's and grpc's debug lines are about their own machinery (the selector chosen,
    # the loop each call runs on), not the referee's work.
    for machinery in ("asyncio", "grpc"):
        logging.getLogger(machinery).setLevel(max(level, logging.INFO))
    logging.captureWarnings(True)


class HealthServicer(health.aio.HealthServicer):  # type: ignore[misc]
    """The standard health service, whose Watch streams also end at shutdown (after sending
    NOT_SERVING) instead of holding the server for its whole grace period."""

    def __init__(self) -> None:
        super().__init__()
        self._closing = asyncio.Event()

    async def Watch(self, request: Any, context: Any) -> None:
        watch = asyncio.ensure_future(super().Watch(request, context))
        closing = asyncio.ensure_future(self._closing.wait())
        try:
            await asyncio.wait({watch, closing}, return_when=asyncio.FIRST_COMPLETED)
            if not watch.done():
                await asyncio.sleep(0.05)  # let the NOT_SERVING update go out first
        finally:
            for task in (watch, closing):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def close_watches(self) -> None:
        await self.enter_graceful_shutdown()
        self._closing.set()


class RefereeServer:
    """One referee process. ``await start()``, then ``await stop()``."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.metrics = Metrics()
        store = open_store(config.store, wait=config.store_wait)
        self.referee = Referee(store, self.metrics, config.limits)
        self.referee.players.configure(config.players)
        options = [
            ("grpc.max_receive_message_length", config.max_message_bytes),
            ("grpc.max_send_message_length", config.max_message_bytes),
            # gRPC sets SO_REUSEPORT by default: a second server on a port in use would start
            # "listening" and the two would split the traffic. Refuse instead.
            ("grpc.so_reuseport", 0),
            # Channelz keeps a node per connection (0.7 KiB each) for a channelz service this
            # server does not offer.
            ("grpc.enable_channelz", 0),
            ("grpc.server.max_pending_requests", config.max_pending_calls),
            ("grpc.server.max_pending_requests_hard_limit", config.max_pending_calls),
            *config.connections.grpc_options(),
        ]
        self.server = grpc.aio.server(options=options)
        self.core = RefereeCore(self.referee, self.metrics, TrustedProxies(config.trusted_proxies))
        add_referee_service(self.core, self.server)
        self.health = HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        names = (
            referee_pb2.DESCRIPTOR.services_by_name["RefereeService"].full_name,
            health.SERVICE_NAME,
            reflection.SERVICE_NAME,
        )
        reflection.enable_server_reflection(names, self.server)
        try:
            self.port = self.server.add_insecure_port(config.listen)
        except RuntimeError:  # grpc raises this when the port cannot be bound
            self.port = 0
        if self.port == 0:
            raise OSError(
                f"cannot listen on {config.listen}: the address is in use or not available "
                "(is another referee running there?)"
            )
        self.metrics_port: int | None = None
        self.http: HttpServer | None = None
        if config.http is not None:
            app = HttpApp(
                self.core,
                cors_origins=config.cors_origins,
                read_max_bytes=config.max_message_bytes,
                web_root=Path(config.web_root) if config.web_root else WEB_ROOT,
                body_seconds=config.connections.http_header_seconds,
            )
            self.http = HttpServer(
                app,
                config.http,
                config.grace_seconds,
                config.connections,
                self.referee.limits.stream_stall_seconds,
            )

    @property
    def address(self) -> str:
        host = self.config.listen.rsplit(":", 1)[0]
        return f"{host}:{self.port}"

    async def start(self) -> None:
        await self.referee.recover()
        if self.config.house_bots:
            await self.referee.house_bots.start(
                parse_levels(self.config.house_bots),
                budget_ms=self.config.house_bot_budget_ms,
                pair_after_seconds=self.config.house_bots_pair_after,
            )
        if self.config.metrics:
            host, port = self.config.metrics.rsplit(":", 1)
            http, _ = start_http_server(int(port), host, registry=self.metrics.registry)
            self.metrics_port = http.server_port
            self._http = http
        await self.server.start()
        if self.http is not None:
            await self.http.start()
        for name in ("", SERVICE):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def _drain(self) -> None:
        """Serve on until no call has arrived for 0.2 s (at most ``drain_seconds``): gRPC
        cancels calls it received but had not started when the server stops, so a client
        that sent a call just before a SIGTERM would get CANCELLED, with no hint to retry."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.drain_seconds
        seen = -1
        arrivals = self.core.arrivals
        while loop.time() < deadline and arrivals.count != seen:
            seen = arrivals.count
            await asyncio.sleep(0.2)

    async def stop(self) -> None:
        """Graceful: NOT_SERVING, end streams (clients resume), finish calls, close the store."""
        await self.health.close_watches()
        self.referee.close_streams(
            shutting_down("the server is shutting down; resume with after_sequence")
        )
        await self._drain()
        stopping = [self.server.stop(self.config.grace_seconds)]
        if self.http is not None:
            stopping.append(self.http.stop())
        await asyncio.gather(*stopping)
        if self.metrics_port is not None:
            self._http.shutdown()
        self.referee.close()


async def serve(config: ServerConfig) -> None:
    """Run until SIGTERM or SIGINT."""
    server = RefereeServer(config)
    await server.start()
    log = structlog.get_logger("referee")
    log.info(
        "serving",
        address=server.address,
        store=redacted(config.store),  # the URL may hold the database's password
        metrics=f"http://{config.metrics}/metrics" if config.metrics else None,
        http=f"http://{server.http.address}/" if server.http else None,
    )
    banner = start_banner(
        address=server.address,
        store=redacted(config.store),
        metrics=config.metrics,
        http=server.http.address if server.http else None,
        web_client=bool(server.http and server.http.app.has_web_client),
        house_bots=config.house_bots,
        open_registration=config.players.open_registration,
    )
    print(banner, flush=True)  # stdout: for people; stderr carries only JSON log lines
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting_down")
    await server.stop()
    log.info("stopped")


@contextlib.contextmanager
def running_server(
    store: str = "memory:", limits: Limits | None = None, **options: Any
) -> Iterator[RefereeServer]:
    """A real server on an ephemeral port in a background thread (tests, embedding).

    ``str(server.address)`` is where to connect; the server stops when the block exits.
    """
    config = ServerConfig(
        listen="127.0.0.1:0", store=store, metrics=None, limits=limits or Limits(), **options
    )
    configure_logging()
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, Any] = {}

    async def main() -> None:
        try:
            server = RefereeServer(config)
            await server.start()
        except BaseException as error:
            holder["error"] = error
            ready.set()
            return
        holder["server"] = server
        holder["stop"] = asyncio.Event()
        ready.set()
        await holder["stop"].wait()
        await server.stop()

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    ready.wait()
    if "error" in holder:
        thread.join()
        raise holder["error"]
    try:
        yield holder["server"]
    finally:
        loop.call_soon_threadsafe(holder["stop"].set)
        thread.join(timeout=30)
        loop.close()
