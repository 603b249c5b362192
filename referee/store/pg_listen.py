"""The PostgreSQL store's notification thread: it LISTENs on the games' and the documents'
channels and hands other store instances' commits to the store's listeners.

PostgreSQL delivers a ``pg_notify`` only if its transaction committed, and to every connection
listening at that moment. A notification sent while the connection was lost is gone, so after
each reconnection the store is asked to announce what may have been missed
(``caught_up(first=False)``); a listener reads the store, so an extra announcement costs a
read and nothing else.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import sql

from referee.store.base import StoreError

__all__ = ["DOCUMENTS_CHANNEL", "GAMES_CHANNEL", "Notifications"]

_log = logging.getLogger(__name__)

#: The games' channel; payload ``"<store instance id> <version> <game id>"``.
GAMES_CHANNEL = "referee_events"
#: The documents' channel; payload ``"<store instance id> <revision> <kind> <key>"`` (kinds
#: have no space; revision 0: deleted).
DOCUMENTS_CHANNEL = "referee_documents"


class Notifications:
    """The thread, started at once; :attr:`listening` is set while it listens on a connection
    from ``connect()`` (a new one after each loss).

    ``game(game_id, version)`` and ``document(kind, key, revision)`` are called for
    notifications whose origin is not ``origin`` (a store's own commits were announced when it
    made them). ``listened(first)`` is called in the thread right after every LISTEN: the store
    takes its bearings then and, after a reconnection (``first`` false), announces what may
    have been missed; a :class:`StoreError` from it counts as a lost connection (retried).
    """

    def __init__(
        self,
        connect: Callable[[], psycopg.Connection[Any]],
        origin: str,
        game: Callable[[str, int], None],
        document: Callable[[str, str, int], None],
        listened: Callable[[bool], None],
    ) -> None:
        self._connect = connect
        self._origin = origin
        self._game = game
        self._document = document
        self._listened = listened
        self._closed = threading.Event()
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()
        #: Set once the listening connection has run LISTEN (tests wait for it).
        self.listening = threading.Event()
        self._thread = threading.Thread(target=self._run, name="referee-store-listen", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        """LISTEN, and pass on other stores' commits; reconnect when the connection is lost."""
        delay = 0.05
        first = True
        while not self._closed.is_set():
            try:
                conn = self._connect()
            except psycopg.Error as error:
                _log.warning("event store listener cannot connect: %s", error)
                self._closed.wait(delay)
                delay = min(2.0, delay * 2)
                continue
            try:
                with self._lock:
                    if self._closed.is_set():
                        conn.close()
                        return
                    self._conn = conn
                conn.execute(
                    sql.SQL("LISTEN {}; LISTEN {}").format(
                        sql.Identifier(GAMES_CHANNEL), sql.Identifier(DOCUMENTS_CHANNEL)
                    )
                )
                self._listened(first)  # what was sent while we were away, after the first
                first = False
                delay = 0.05
                self.listening.set()
                # A timeout so a closing store is noticed even when nothing is committed.
                while not self._closed.is_set():
                    for notice in conn.notifies(timeout=0.5):
                        self._heard(notice.channel, notice.payload)
            except (psycopg.Error, StoreError, RuntimeError) as error:  # RuntimeError: closed
                if not self._closed.is_set():
                    _log.warning("event store listener lost its connection: %s", error)
                    self._closed.wait(delay)
            finally:
                self.listening.clear()
                with self._lock:
                    self._conn = None
                conn.close()

    def _heard(self, channel: str, payload: str) -> None:
        if channel == DOCUMENTS_CHANNEL:
            origin, revision, kind, key = payload.split(" ", 3)
            if origin != self._origin:
                self._document(kind, key, int(revision))
        else:
            origin, version, game_id = payload.split(" ", 2)
            if origin != self._origin:
                self._game(game_id, int(version))

    def close(self) -> None:
        """Stop the thread (within about a second); idempotent."""
        self._closed.set()
        with self._lock:
            listening = self._conn
        if listening is not None:
            # Wakes notifies() at once on most platforms; its timeout bounds the wait anyway.
            with contextlib.suppress(psycopg.Error):
                listening.cancel_safe(timeout=1.0)
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
