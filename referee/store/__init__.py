"""Event stores: where games live, as append-only logs of opaque events (no gRPC, no asyncio).

Pick a backend with :func:`open_store`, e.g. from the server's ``--store`` setting::

    store = open_store("sqlite:var/referee.db")  # durable, one file
    store = open_store("memory:")                # lost on exit; tests and demos
    store = open_store("postgresql://db/referee") # shared by replicas (the `postgres` extra)
"""

from __future__ import annotations

import re

from referee.store.base import (
    DEFAULT_WAIT,
    CommandOutcome,
    Document,
    DocumentListener,
    DocumentWrite,
    DuplicateCommand,
    EventStore,
    GameExists,
    GameNotFound,
    GameRecord,
    Listener,
    RevisionConflict,
    SeatClaim,
    SeatTaken,
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
    "Document",
    "DocumentListener",
    "DocumentWrite",
    "DuplicateCommand",
    "EventStore",
    "GameExists",
    "GameNotFound",
    "GameRecord",
    "Listener",
    "MemoryEventStore",
    "RevisionConflict",
    "SeatClaim",
    "SeatTaken",
    "SqliteEventStore",
    "StoreError",
    "StoreUnavailable",
    "StoredEvent",
    "VersionConflict",
    "open_store",
    "redacted",
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


def redacted(url: str) -> str:
    """``url`` as a log line or banner may show it: with any password replaced by ``***``
    (in a URL's user part, a ``password=`` parameter or a libpq ``key=value`` string).

    >>> redacted("postgresql://referee:s3cret@db:5432/referee?sslmode=require")
    'postgresql://referee:***@db:5432/referee?sslmode=require'
    >>> redacted("postgresql://db/referee?password=s3cret&sslmode=require")
    'postgresql://db/referee?password=***&sslmode=require'
    >>> redacted("host=db password='s 3cret' dbname=referee")
    'host=db password=*** dbname=referee'
    >>> redacted("sqlite:data/referee.sqlite3")
    'sqlite:data/referee.sqlite3'
    """
    url = re.sub(r"(://[^/@:]*:)[^/@]*@", r"\1***@", url)
    return re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]+)", r"\1***", url)
