"""Event stores: where games live, as append-only logs of opaque events (no gRPC, no asyncio).

Pick a backend with :func:`open_store`, e.g. from the server's ``--store`` setting::

    store = open_store("sqlite:var/referee.db")  # durable, one file
    store = open_store("memory:")                # lost on exit; tests and demos
    store = open_store("postgresql://db/referee") # shared by replicas (the `postgres` extra)
"""

from __future__ import annotations

from referee.store.base import (
    DEFAULT_WAIT,
    CommandOutcome,
    DuplicateCommand,
    EventStore,
    GameExists,
    GameNotFound,
    GameRecord,
    Listener,
    StoredEvent,
    StoreError,
    StoreUnavailable,
    VersionConflict,
)
from referee.store.memory import MemoryEventStore
from referee.store.sqlite import SqliteEventStore

__all__ = [
    "DEFAULT_WAIT",
    "CommandOutcome",
    "DuplicateCommand",
    "EventStore",
    "GameExists",
    "GameNotFound",
    "GameRecord",
    "Listener",
    "MemoryEventStore",
    "SqliteEventStore",
    "StoreError",
    "StoreUnavailable",
    "StoredEvent",
    "VersionConflict",
    "open_store",
]


def open_store(url: str, *, wait: float = DEFAULT_WAIT) -> EventStore:
    """Open the store named by ``url``: ``"memory:"``, ``"sqlite:PATH"`` or a PostgreSQL URL
    (``postgresql://...`` or ``postgres://...``, any libpq connection URL).

    ``wait``: the longest a call waits for the database (SQLite's write lock, a pooled
    PostgreSQL connection) before it fails with :class:`StoreUnavailable`.

    ``PATH`` is a file path (relative to the working directory, folders created as needed) or
    ``:memory:``. PostgreSQL needs the ``postgres`` extra (psycopg), imported only here.

    >>> type(open_store("memory:")).__name__
    'MemoryEventStore'
    >>> open_store("mysql://db")
    Traceback (most recent call last):
    ...
    ValueError: unsupported event store URL 'mysql://db': use memory:, sqlite:PATH or postgresql://...
    """
    if url == "memory:":
        return MemoryEventStore()
    if url.startswith("sqlite:") and len(url) > len("sqlite:"):
        return SqliteEventStore(url.removeprefix("sqlite:"), wait=wait)
    if url.startswith(("postgresql://", "postgres://")):
        try:
            from referee.store.postgres import PostgresEventStore
        except ImportError as error:  # psycopg missing
            raise ValueError(
                f"{url.split('://')[0]}:// needs psycopg: pip install 'game-referee[postgres]'"
                f" ({error})"
            ) from None
        return PostgresEventStore(url, wait=wait)
    raise ValueError(
        f"unsupported event store URL {url!r}: use memory:, sqlite:PATH or postgresql://..."
    )
