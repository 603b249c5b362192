"""Event stores: where games live, as append-only logs of opaque events (no gRPC, no asyncio).

Pick a backend with :func:`open_store`, e.g. from the server's ``--store`` setting::

    store = open_store("sqlite:var/referee.db")  # durable, one file
    store = open_store("memory:")                # lost on exit; tests and demos
"""

from __future__ import annotations

from referee.store.base import (
    CommandOutcome,
    DuplicateCommand,
    EventStore,
    GameExists,
    GameNotFound,
    GameRecord,
    Listener,
    StoredEvent,
    StoreError,
    VersionConflict,
)
from referee.store.memory import MemoryEventStore
from referee.store.sqlite import SqliteEventStore

__all__ = [
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
    "StoredEvent",
    "VersionConflict",
    "open_store",
]


def open_store(url: str) -> EventStore:
    """Open the store named by ``url``: ``"memory:"`` or ``"sqlite:PATH"``.

    ``PATH`` is a file path (relative to the working directory, folders created as needed) or
    ``:memory:``.

    >>> type(open_store("memory:")).__name__
    'MemoryEventStore'
    >>> open_store("postgres://db/referee")
    Traceback (most recent call last):
    ...
    ValueError: unsupported event store URL 'postgres://db/referee': use 'memory:' or 'sqlite:PATH'
    """
    if url == "memory:":
        return MemoryEventStore()
    if url.startswith("sqlite:") and len(url) > len("sqlite:"):
        return SqliteEventStore(url.removeprefix("sqlite:"))
    raise ValueError(f"unsupported event store URL {url!r}: use 'memory:' or 'sqlite:PATH'")
