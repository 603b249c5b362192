"""A durable event store in one SQLite file: the default for a single referee server.

One connection, shared by all threads behind a lock (SQLite serialises writers anyway), in WAL
mode so readers in other processes (backups, ``sqlite3`` shell) do not block the server.
``synchronous=NORMAL`` is the usual WAL trade-off: a power cut may lose the last commits but
never corrupts the file; pass ``synchronous="FULL"`` to make every commit durable.

Writes run in ``BEGIN IMMEDIATE`` transactions that take the write lock up front, so the
version check and the insert see the same state even when another process shares the file.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from referee.store.base import (
    CommandOutcome,
    DuplicateCommand,
    EventStore,
    GameExists,
    GameNotFound,
    GameRecord,
    StoredEvent,
    VersionConflict,
    check_limit,
    check_outcome,
)

__all__ = ["SCHEMA_VERSION", "SqliteEventStore"]

#: Stored in ``PRAGMA user_version``; bump it (and migrate in ``_init_schema``) on any change.
SCHEMA_VERSION = 1

_SCHEMA = (
    """CREATE TABLE games (
        game_id      TEXT PRIMARY KEY,
        game_type    TEXT NOT NULL,
        players      INTEGER NOT NULL,
        options      TEXT NOT NULL,               -- JSON object of str -> str
        seed         BLOB NOT NULL,
        deal         BLOB NOT NULL,
        token_hashes TEXT NOT NULL,               -- JSON array of sha256 hex digests
        created_at   REAL NOT NULL,
        finished     INTEGER NOT NULL DEFAULT 0,
        version      INTEGER NOT NULL             -- last sequence, kept to check appends fast
    )""",
    "CREATE INDEX games_by_creation ON games (created_at)",
    """CREATE TABLE events (
        game_id  TEXT NOT NULL REFERENCES games (game_id),
        sequence INTEGER NOT NULL,
        payload  BLOB NOT NULL,
        PRIMARY KEY (game_id, sequence)
    ) WITHOUT ROWID""",
    """CREATE TABLE commands (
        game_id        TEXT NOT NULL REFERENCES games (game_id),
        command_id     TEXT NOT NULL,
        seat           INTEGER NOT NULL,
        fingerprint    TEXT NOT NULL,
        first_sequence INTEGER NOT NULL,
        last_sequence  INTEGER NOT NULL,
        PRIMARY KEY (game_id, command_id)
    ) WITHOUT ROWID""",
)

_GAME_COLUMNS = (
    "game_id, game_type, players, options, seed, deal, token_hashes, created_at, version, finished"
)

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]


def _record(row: Sequence[Any]) -> GameRecord:
    """Rebuild a :class:`GameRecord` from the first eight columns of ``_GAME_COLUMNS``."""
    game_id, game_type, players, options, seed, deal, token_hashes, created_at = row[:8]
    return GameRecord(
        game_id=game_id,
        game_type=game_type,
        players=players,
        options=dict(json.loads(options)),
        seed=bytes(seed),
        deal=bytes(deal),
        seat_token_hashes=tuple(json.loads(token_hashes)),
        created_at=float(created_at),
    )


class SqliteEventStore(EventStore):
    """Event store in the SQLite database at ``path`` (created with its folders if missing).

    ``":memory:"`` gives a private in-memory database (no WAL there), handy in tests.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, synchronous: Synchronous = "NORMAL"
    ) -> None:
        super().__init__()
        mode = synchronous.upper()
        if mode not in ("OFF", "NORMAL", "FULL", "EXTRA"):  # interpolated into a PRAGMA below
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, got {synchronous!r}")
        self.path = os.fspath(path)
        if self.path not in ("", ":memory:"):
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        # isolation_level=None: no implicit transactions, we issue BEGIN IMMEDIATE ourselves.
        # timeout: how long to wait for another process holding the write lock.
        self._conn: sqlite3.Connection | None = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=10.0
        )
        try:
            self._conn.execute("PRAGMA journal_mode = WAL")  # persistent; not inside a transaction
            self._conn.execute(f"PRAGMA synchronous = {mode}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._init_schema()
        except BaseException:
            self._conn.close()
            raise

    def _init_schema(self) -> None:
        """Create the tables in a new database; refuse one written by a newer version."""
        with self._transaction() as conn:
            (found,) = conn.execute("PRAGMA user_version").fetchone()
            if found == 0:
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif found != SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self.path}: event store schema version {found} is not supported "
                    f"(this referee knows version {SCHEMA_VERSION})"
                )

    def _connection(self) -> sqlite3.Connection:
        """The open connection (call with the lock held)."""
        if self._conn is None:
            raise RuntimeError("event store is closed")
        return self._conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, rolled back if the block (or the commit) raises.

        The caller holds ``self._lock``, except during ``__init__`` when no other thread can
        see the store yet.
        """
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def create_game(self, record: GameRecord, events: Sequence[bytes]) -> None:
        payloads = [bytes(event) for event in events]
        with self._lock, self._transaction() as conn:
            taken = conn.execute("SELECT 1 FROM games WHERE game_id = ?", (record.game_id,))
            if taken.fetchone() is not None:
                raise GameExists(record.game_id)
            conn.execute(
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
                (
                    record.game_id,
                    record.game_type,
                    record.players,
                    json.dumps(record.options, sort_keys=True),
                    bytes(record.seed),
                    bytes(record.deal),
                    json.dumps(list(record.seat_token_hashes)),
                    record.created_at,
                    len(payloads),
                ),
            )
            conn.executemany(
                "INSERT INTO events (game_id, sequence, payload) VALUES (?, ?, ?)",
                [(record.game_id, seq, payload) for seq, payload in enumerate(payloads, 1)],
            )
        self._notify(record.game_id, len(payloads))

    def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        outcome: CommandOutcome | None = None,
    ) -> int:
        payloads = [bytes(event) for event in events]
        check_outcome(expected_version, len(payloads), outcome)
        with self._lock, self._transaction() as conn:
            row = conn.execute("SELECT version FROM games WHERE game_id = ?", (game_id,)).fetchone()
            if row is None:
                raise GameNotFound(game_id)
            if outcome is not None:
                first = self._find_command(conn, game_id, outcome.command_id)
                if first is not None:
                    raise DuplicateCommand(game_id, first)
            actual = int(row[0])
            if actual != expected_version:
                raise VersionConflict(game_id, expected_version, actual)
            version = expected_version + len(payloads)
            conn.executemany(
                "INSERT INTO events (game_id, sequence, payload) VALUES (?, ?, ?)",
                [(game_id, seq, payload) for seq, payload in enumerate(payloads, actual + 1)],
            )
            conn.execute("UPDATE games SET version = ? WHERE game_id = ?", (version, game_id))
            if outcome is not None:
                conn.execute(
                    "INSERT INTO commands (game_id, command_id, seat, fingerprint,"
                    " first_sequence, last_sequence) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        game_id,
                        outcome.command_id,
                        outcome.seat,
                        outcome.fingerprint,
                        outcome.first_sequence,
                        outcome.last_sequence,
                    ),
                )
        self._notify(game_id, version)
        return version

    def set_finished(self, game_id: str, finished: bool = True) -> None:
        with self._lock, self._transaction() as conn:
            cursor = conn.execute(
                "UPDATE games SET finished = ? WHERE game_id = ?", (int(finished), game_id)
            )
            if cursor.rowcount == 0:
                raise GameNotFound(game_id)

    def _version(self, conn: sqlite3.Connection, game_id: str) -> int:
        row = conn.execute("SELECT version FROM games WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return int(row[0])

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        check_limit(limit)
        with self._lock:
            conn = self._connection()
            self._version(conn, game_id)  # GameNotFound; games are never deleted
            rows = conn.execute(
                "SELECT sequence, payload FROM events WHERE game_id = ? AND sequence > ?"
                " ORDER BY sequence LIMIT ?",
                (game_id, after, -1 if limit is None else limit),  # LIMIT -1: no limit
            ).fetchall()
        return [StoredEvent(game_id, int(seq), bytes(payload)) for seq, payload in rows]

    def version(self, game_id: str) -> int:
        with self._lock:
            return self._version(self._connection(), game_id)

    def get_game(self, game_id: str) -> GameRecord:
        with self._lock:
            row = (
                self._connection()
                .execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE game_id = ?", (game_id,))
                .fetchone()
            )
        if row is None:
            raise GameNotFound(game_id)
        return _record(row)

    def list_games(self) -> list[tuple[GameRecord, int, bool]]:
        with self._lock:
            rows = (
                self._connection()
                .execute(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY created_at, rowid")
                .fetchall()
            )
        return [(_record(row), int(row[8]), bool(row[9])) for row in rows]

    @staticmethod
    def _find_command(
        conn: sqlite3.Connection, game_id: str, command_id: str
    ) -> CommandOutcome | None:
        row = conn.execute(
            "SELECT seat, fingerprint, first_sequence, last_sequence FROM commands"
            " WHERE game_id = ? AND command_id = ?",
            (game_id, command_id),
        ).fetchone()
        if row is None:
            return None
        seat, fingerprint, first, last = row
        return CommandOutcome(command_id, int(seat), str(fingerprint), int(first), int(last))

    def find_command(self, game_id: str, command_id: str) -> CommandOutcome | None:
        with self._lock:
            conn = self._connection()
            self._version(conn, game_id)  # GameNotFound
            return self._find_command(conn, game_id, command_id)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()  # the last connection to close also checkpoints the WAL
                self._conn = None
