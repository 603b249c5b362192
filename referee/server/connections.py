"""How long a connection may take to ask, sit idle, and live, on both ports.

A connection costs the server a socket and buffers whether or not it asks for anything, so
none is held for nothing:

- **HTTP port** (Hypercorn): a connection must send a whole request head within
  ``http_header_seconds`` of opening (over HTTP/2, the first request's HEADERS within that
  long of its preface), and a request's body within as long again after its head (checked by
  :class:`~referee.server.connect.RpcHandler`); a connection with no request in flight is
  closed after ``http_idle_seconds`` (keep-alive), which also bounds the head of every next
  request on it. A stream in flight is not idle: it is ended by the streams' own limits.
- **gRPC port** (``grpc.aio``): the HTTP/2 handshake within ``grpc_handshake_seconds``; a
  connection without a call for ``grpc_idle_seconds`` is sent GOAWAY; every connection is sent
  GOAWAY after ``grpc_age_seconds`` (gRPC adds up to 10 % at random so they do not all go at
  once) and its calls then have ``grpc_age_grace_seconds`` to finish, after which the streams
  still open end ``UNAVAILABLE`` and their clients resume them (``after_sequence``: nothing
  is lost, commands are idempotent by ``command_id``); the server pings a silent connection
  every ``grpc_keepalive_seconds`` and drops it when the ping is not answered within
  :data:`KEEPALIVE_TIMEOUT_SECONDS`; a client may ping at most every
  ``grpc_min_ping_seconds``, with or without calls, and is sent away after
  :data:`PING_STRIKES` pings more often.

``0`` turns a limit off. The defaults are in docs/operations.md, with what a proxy in front
must keep (its idle timeout for connections to the referee shorter than the referee's).
The HTTP port's are applied to Hypercorn by :mod:`referee.server.http`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

#: A server keepalive ping not answered within this long drops the connection.
KEEPALIVE_TIMEOUT_SECONDS = 20.0
#: Pings more often than allowed, beyond this many, get the connection sent away.
PING_STRIKES = 2


@dataclass(frozen=True)
class Connections:
    """The connection limits of both ports, in seconds (0: none)."""

    http_header_seconds: float = 10.0
    http_idle_seconds: float = 75.0
    grpc_handshake_seconds: float = 10.0
    grpc_idle_seconds: float = 120.0
    grpc_age_seconds: float = 3600.0
    grpc_age_grace_seconds: float = 60.0
    grpc_keepalive_seconds: float = 60.0
    grpc_min_ping_seconds: float = 10.0

    def __post_init__(self) -> None:
        for field in fields(self):
            if getattr(self, field.name) < 0:
                raise ValueError(f"{field.name} must be 0 (none) or more")

    def grpc_options(self) -> list[tuple[str, int]]:
        """The ``grpc.aio.server`` options of these limits."""
        ms = {
            "grpc.server_handshake_timeout_ms": self.grpc_handshake_seconds,
            "grpc.max_connection_idle_ms": self.grpc_idle_seconds,
            "grpc.max_connection_age_ms": self.grpc_age_seconds,
            "grpc.keepalive_time_ms": self.grpc_keepalive_seconds,
        }
        options = [(name, round(seconds * 1000)) for name, seconds in ms.items() if seconds > 0]
        if self.grpc_age_seconds > 0:
            grace = self.grpc_age_grace_seconds
            options.append(("grpc.max_connection_age_grace_ms", round(grace * 1000)))
        if self.grpc_keepalive_seconds > 0:
            options.append(("grpc.keepalive_timeout_ms", round(KEEPALIVE_TIMEOUT_SECONDS * 1000)))
        options += [
            ("grpc.keepalive_permit_without_calls", 1),
            (
                "grpc.http2.min_recv_ping_interval_without_data_ms",
                round(self.grpc_min_ping_seconds * 1000),
            ),
            ("grpc.http2.max_ping_strikes", PING_STRIKES if self.grpc_min_ping_seconds else 0),
        ]
        return options


__all__ = ["KEEPALIVE_TIMEOUT_SECONDS", "PING_STRIKES", "Connections"]
