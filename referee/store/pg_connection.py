"""How long the PostgreSQL store waits for the database, on every connection it opens.

A database that stops answering while its connections stay open (a network path that drops
packets, a frozen host, a proxy that stopped forwarding) gives no error at all: without a
bound a call waits as long as the silence lasts. Three bounds cover it:

* **Each round trip** (a statement, a commit, the check of a pooled connection) waits at most
  :attr:`AnsweringConnection.answer_wait` seconds for the database's answer, measured here,
  so it holds whatever the network does; a connection that did not answer in time is closed
  (the protocol stopped mid-way) and the call fails with :class:`NoAnswer`.
* **The server's side**: ``statement_timeout`` ends a statement that runs longer than the
  store wait, and ``idle_in_transaction_session_timeout`` ends a transaction whose client
  went silent, so that its row locks do not hold up the other replicas.
* **TCP**: connecting gives up after ``connect_timeout``; keepalives find a dead path under an
  idle connection (the listening one, pooled ones), and ``tcp_user_timeout`` drops one whose
  sent data goes unacknowledged, within a few seconds instead of the kernel's 15 minutes.

Settings the operator's connection string names are kept as given.
"""

from __future__ import annotations

import math
from typing import Any

import psycopg
from psycopg import errors
from psycopg.abc import PQGen
from psycopg.conninfo import conninfo_to_dict

from referee.store.base import DEFAULT_WAIT

__all__ = ["AnsweringConnection", "NoAnswer", "session_settings", "tcp_settings"]

#: psycopg's interval between checks for an interrupt while it waits (its default).
_INTERVAL = 0.1
#: Unanswered keepalive probes after which an idle connection counts as dead.
KEEPALIVE_PROBES = 3


class NoAnswer(psycopg.OperationalError):
    """The database did not answer a round trip within the connection's ``answer_wait``."""


class AnsweringConnection(psycopg.Connection[Any]):
    """A connection whose every round trip waits at most :attr:`answer_wait` seconds."""

    #: Seconds a round trip waits for the database's answer (set per store).
    answer_wait: float = DEFAULT_WAIT

    def wait(
        self, gen: PQGen[Any], interval: float = _INTERVAL, timeout: float | None = None
    ) -> Any:
        if timeout is not None:  # a wait that has its own bound (notifies)
            return super().wait(gen, interval, timeout)
        try:
            return super().wait(gen, interval, self.answer_wait)
        except errors._WaitTimeout:
            # The protocol stopped mid-way: the connection cannot be used again.
            self.pgconn.finish()
            raise NoAnswer(f"no answer from the database within {self.answer_wait:g} s") from None


def tcp_settings(conninfo: str, wait: float) -> dict[str, Any]:
    """libpq's connection and TCP settings for a store waiting ``wait`` seconds, less those
    ``conninfo`` names itself."""
    idle = max(1, math.ceil(wait))
    wanted: dict[str, Any] = {
        "connect_timeout": max(2, math.ceil(wait)),  # libpq's least
        "keepalives": 1,
        "keepalives_idle": idle,
        "keepalives_interval": 1,
        "keepalives_count": KEEPALIVE_PROBES,
        # Bounds the keepalive probes as well (Linux): a dead path shows as the probes would.
        "tcp_user_timeout": (idle + KEEPALIVE_PROBES) * 1000,
    }
    given = conninfo_to_dict(conninfo)
    return {name: value for name, value in wanted.items() if name not in given}


def session_settings(wait: float) -> list[tuple[str, str]]:
    """The server-side bounds (``SET`` name and value) for a store waiting ``wait`` s."""
    milliseconds = max(1, round(wait * 1000))
    return [
        ("statement_timeout", f"{milliseconds}ms"),
        ("idle_in_transaction_session_timeout", f"{2 * milliseconds}ms"),
    ]
