"""A durable event store in one SQLite file: the default for a single referee server.

One connection, shared by all threads behind a lock (SQLite serialises writers anyway), in WAL
mode so readers in other processes (backups, ``sqlite3`` shell) do not block the server.
``synchronous=NORMAL`` is the usual WAL trade-off: a power cut may lose the last commits but
never corrupts the file; pass ``synchronous="FULL"`` to make every commit durable.

Appends go through one writer thread that commits the appends queued meanwhile, from many
games, in one transaction (group commit, :mod:`referee.store.group`): one commit and, with
``FULL``, one fsync for all of them, each answered only after it.

Writes run in ``BEGIN IMMEDIATE`` transactions that take the write lock up front, so the
version check and the insert see the same state even when another process shares the file.

Calls of this process take turns at the connection in the order they asked (:class:`Turns`):
a call queued behind others waits while their turns pass, however long the queue, because
that is the store working, not a fault (the server's store, loader and group-commit threads
queue here together; under load a fixed wait for a turn failed calls of a healthy store). A
call fails with :class:`StoreUnavailable` only when no turn at all has
passed for ``wait`` seconds (a call holding the connection is stuck).

Faults: a call waits at most ``wait`` seconds for the file's write lock (another process
holding it), then fails with :class:`StoreUnavailable`, as it does when the disk (or
``max_page_count``) is full or the file cannot be written. SQLite rolls such a transaction
back whole, so nothing of it was written.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from referee.store import sqlite_documents
from referee.store.base import (
    DEFAULT_WAIT,
    CommandOutcome,
    Document,
    DocumentWrite,
    DuplicateCommand,
    GameExists,
    GameNotFound,
    GameRecord,
    SeatClaim,
    SeatTaken,
    StoredEvent,
    StoreError,
    StoreUnavailable,
    VersionConflict,
    check_limit,
)
from referee.store.group import GroupCommitStore, GroupWriter, Pending
from referee.store.rows import (
    changed as _changed,
)
from referee.store.rows import (
    check_claims,
    check_writes,
    outcome_from_row,
    record_from_row,
)
from referee.store.sqlite_schema import MIGRATIONS, SCHEMA, SCHEMA_VERSION
from referee.store.turns import Turns

__all__ = ["FAILING_WAIT", "SCHEMA_VERSION", "SqliteEventStore"]

_GAME_COLUMNS = (
    "game_id, game_type, players, options, seed, deal, token_hashes, created_at, version, finished,"
    " settings, organiser_hash"
)

_COMMAND_COLUMNS = (
    "command_id, seat, fingerprint, first_sequence, last_sequence, payload, decision_ms"
)

_INSERT_COMMAND = (
    "INSERT INTO commands (game_id, command_id, seat, fingerprint, first_sequence,"
    " last_sequence, payload, decision_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def _command_row(game_id: str, outcome: CommandOutcome) -> tuple[object, ...]:
    return (
        game_id,
        outcome.command_id,
        outcome.seat,
        outcome.fingerprint,
        outcome.first_sequence,
        outcome.last_sequence,
        bytes(outcome.payload),
        outcome.decision_ms,
    )


#: The tables of a new file under the name ``referee.bench.store`` imports them by.
_SCHEMA = SCHEMA

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]

#: SQLite's primary result codes of faults that pass (``error.sqlite_errorcode & 0xFF``):
#: BUSY and LOCKED (another connection writes), NOMEM, IOERR, FULL, CANTOPEN. Any other code
#: (a bad statement, a corrupt file) is not retried.
_TRANSIENT = {5: 1.0, 6: 1.0, 7: 1.0, 10: 5.0, 13: 5.0, 14: 5.0}
#: SQLITE_BUSY and SQLITE_LOCKED: another connection holds the lock.
_BUSY = {5, 6}
#: Seconds a call waits for the write lock while the last wait for it ran out.
FAILING_WAIT = 0.1


def _code(error: sqlite3.Error) -> int:
    """SQLite's primary result code of ``error`` (0 when it has none)."""
    return int(getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF


def _fault(error: sqlite3.Error) -> StoreUnavailable | None:
    """``error`` as :class:`StoreUnavailable` (retry in a second for a lock, in five for a
    full or failing disk), or ``None`` when it is not a passing fault."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None or (code & 0xFF) not in _TRANSIENT:
        return None
    name = getattr(error, "sqlite_errorname", "SQLITE_ERROR")
    return StoreUnavailable(
        f"the SQLite event store cannot serve the call now ({name}: {error})",
        retry_after=_TRANSIENT[code & 0xFF],
    )


class SqliteEventStore(GroupCommitStore):
    """Event store in the SQLite database at ``path`` (created with its folders if missing).

    ``":memory:"`` gives a private in-memory database (no WAL there), handy in tests.
    ``wait``: see the module's docstring.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: Synchronous = "NORMAL",
        wait: float = DEFAULT_WAIT,
    ) -> None:
        super().__init__()
        mode = synchronous.upper()
        if mode not in ("OFF", "NORMAL", "FULL", "EXTRA"):  # interpolated into a PRAGMA below
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, got {synchronous!r}")
        self.path = os.fspath(path)
        if self.path not in ("", ":memory:"):
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.wait = wait
        self._turns = Turns(wait)
        #: Set while another connection holds the write lock past our wait: calls then wait
        #: only :data:`FAILING_WAIT` for it, so calls queued one behind another (the server
        #: makes them one at a time) do not each wait the whole ``wait``.
        self._failing = False
        # isolation_level=None: no implicit transactions, we issue BEGIN IMMEDIATE ourselves.
        # timeout: how long to wait for another process holding the write lock.
        self._conn: sqlite3.Connection | None = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=wait
        )
        try:
            self._conn.execute("PRAGMA journal_mode = WAL")  # persistent; not inside a transaction
            self._conn.execute(f"PRAGMA synchronous = {mode}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._init_schema()
        except BaseException:
            self._conn.close()
            raise
        self._writer = GroupWriter("referee-store-sqlite", self._write_group, self._notify)

    def _init_schema(self) -> None:
        """Create the tables in a new database, migrate an older one (in one transaction);
        refuse one written by a newer version."""
        with self._transaction() as conn:
            (found,) = conn.execute("PRAGMA user_version").fetchone()
            if found == 0:
                for statement in SCHEMA:
                    conn.execute(statement)
            elif found == SCHEMA_VERSION:
                return
            elif found in MIGRATIONS:
                for version in range(found, SCHEMA_VERSION):
                    for statement in MIGRATIONS[version]:
                        conn.execute(statement)
            else:
                raise RuntimeError(
                    f"{self.path}: event store schema version {found} is not supported "
                    f"(this referee knows version {SCHEMA_VERSION})"
                )
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _connection(self) -> sqlite3.Connection:
        """The open connection (call with the lock held)."""
        if self._conn is None:
            raise RuntimeError("event store is closed")
        return self._conn

    @contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        """The connection under this store's lock; SQLite's passing faults (and a lock not
        queue stalled for ``wait``, see :class:`Turns`) as :class:`StoreUnavailable`."""
        if not self._turns.take():
            raise StoreUnavailable(
                f"the SQLite event store is stuck (no call's turn began within {self.wait:g} s)",
                retry_after=1.0,
            )
        try:
            yield self._connection()
        except sqlite3.Error as error:
            fault = _fault(error)
            if fault is None:
                raise
            if _code(error) in _BUSY and not self._failing:
                self._busy_wait(self._connection(), failing=True)
            raise fault from None
        finally:
            self._turns.give()

    def _busy_wait(self, conn: sqlite3.Connection, *, failing: bool) -> None:
        """Wait :data:`FAILING_WAIT` (``failing``) or ``wait`` for the write lock from now on."""
        self._failing = failing
        seconds = min(self.wait, FAILING_WAIT) if failing else self.wait
        conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction under the store's lock (see :meth:`_locked`)."""
        with self._locked() as conn:
            with self._transaction():
                yield conn
            if self._failing:  # a write went through: the lock is free, wait in full again
                self._busy_wait(conn, failing=False)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, rolled back if the block (or the commit) raises.

        The caller holds a turn (``self._turns``), except during ``__init__`` when no other
        thread can see the store yet.
        """
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                # A failed COMMIT (disk full) leaves the transaction open: roll it back, and
                # raise the first error, not the rollback's.
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise

    def create_game(
        self,
        record: GameRecord,
        events: Sequence[bytes],
        documents: Sequence[DocumentWrite] = (),
        claims: Sequence[SeatClaim] = (),
    ) -> None:
        payloads = [bytes(event) for event in events]
        writes = check_writes(documents)
        check_claims(claims)
        with self._writing() as conn:
            taken = conn.execute("SELECT 1 FROM games WHERE game_id = ?", (record.game_id,))
            if taken.fetchone() is not None:
                raise GameExists(record.game_id)
            conn.execute(
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)",
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
                    json.dumps(record.settings, sort_keys=True),
                    record.organiser_token_hash,
                ),
            )
            conn.executemany(
                "INSERT INTO events (game_id, sequence, payload) VALUES (?, ?, ?)",
                [(record.game_id, seq, payload) for seq, payload in enumerate(payloads, 1)],
            )
            sqlite_documents.insert_claims(conn, record.game_id, claims)
            written = sqlite_documents.write(conn, writes)  # RevisionConflict: rolled back
        self._notify(record.game_id, len(payloads))
        self._notify_documents(_changed(written))

    def _write_group(self, group: Sequence[Pending]) -> list[int | StoreError]:
        """The writer thread: every append of ``group`` in one transaction."""
        with self._writing() as conn:
            if len(group) > 1:
                answers = self._append_all(conn, group)
                if answers is not None:
                    return answers
            return [self._append_one(conn, pending) for pending in group]

    def _append_all(
        self, conn: sqlite3.Connection, group: Sequence[Pending]
    ) -> list[int | StoreError] | None:
        """The usual case of a group in three statements for all of it: every version as
        expected and no command id recorded; else ``None``, with nothing written (then each
        member is checked on its own)."""
        versions: list[int | StoreError] = []
        moves, commands, events = [], [], []
        for pending in group:
            game_id, expected = pending.game_id, pending.expected_version
            versions.append(expected + len(pending.payloads))
            moves.append((expected + len(pending.payloads), game_id, expected))
            if pending.outcome is not None:
                commands.append(_command_row(game_id, pending.outcome))
            events += [(game_id, s, p) for s, p in enumerate(pending.payloads, expected + 1)]
        conn.execute("SAVEPOINT grouped")
        try:
            moved = conn.executemany(
                "UPDATE games SET version = ? WHERE game_id = ? AND version = ?", moves
            ).rowcount
            if moved == len(group):
                conn.executemany(_INSERT_COMMAND, commands)
                conn.executemany(
                    "INSERT INTO events (game_id, sequence, payload) VALUES (?, ?, ?)", events
                )
                conn.execute("RELEASE grouped")
                return versions
        except sqlite3.IntegrityError:  # a recorded command id: checked one by one
            pass
        conn.execute("ROLLBACK TO grouped")
        conn.execute("RELEASE grouped")
        return None

    def _append_one(self, conn: sqlite3.Connection, pending: Pending) -> int | StoreError:
        """One append of a group: its new version, or why it was refused (then it wrote
        nothing, and the others of the group go on)."""
        game_id, expected, payloads = pending.game_id, pending.expected_version, pending.payloads
        version = expected + len(payloads)
        # The usual case in three statements: the version moves on only if it was the
        # expected one, and the command id's primary key refuses a recorded command.
        moved = conn.execute(
            "UPDATE games SET version = ? WHERE game_id = ? AND version = ?",
            (version, game_id, expected),
        ).rowcount
        if pending.outcome is not None and moved:
            try:
                self._insert_command(conn, game_id, pending.outcome)
            except sqlite3.IntegrityError:  # recorded already: undo the version's move
                conn.execute("UPDATE games SET version = ? WHERE game_id = ?", (expected, game_id))
                moved = 0
        if not moved:
            return self._refusal(conn, game_id, expected, pending.outcome)
        if len(payloads) == 1:
            conn.execute(
                "INSERT INTO events (game_id, sequence, payload) VALUES (?, ?, ?)",
                (game_id, version, payloads[0]),
            )
        elif payloads:
            conn.executemany(
                "INSERT INTO events (game_id, sequence, payload) VALUES (?, ?, ?)",
                [(game_id, s, p) for s, p in enumerate(payloads, expected + 1)],
            )
        return version

    @staticmethod
    def _insert_command(conn: sqlite3.Connection, game_id: str, outcome: CommandOutcome) -> None:
        conn.execute(_INSERT_COMMAND, _command_row(game_id, outcome))

    def _refusal(
        self,
        conn: sqlite3.Connection,
        game_id: str,
        expected_version: int,
        outcome: CommandOutcome | None,
    ) -> StoreError:
        """Why an append cannot happen, in the documented order: no such game, a recorded
        command id, then a version conflict."""
        try:
            actual = self._version(conn, game_id)
        except GameNotFound as missing:
            return missing
        if outcome is not None:
            first = self._find_command(conn, game_id, outcome.command_id)
            if first is not None:
                return DuplicateCommand(game_id, first)
        return VersionConflict(game_id, expected_version, actual)

    def set_finished(self, game_id: str, finished: bool = True) -> None:
        with self._writing() as conn:
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
        with self._locked() as conn:
            self._version(conn, game_id)  # GameNotFound; games are never deleted
            rows = conn.execute(
                "SELECT sequence, payload FROM events WHERE game_id = ? AND sequence > ?"
                " ORDER BY sequence LIMIT ?",
                (game_id, after, -1 if limit is None else limit),  # LIMIT -1: no limit
            ).fetchall()
        return [StoredEvent(game_id, int(seq), bytes(payload)) for seq, payload in rows]

    def version(self, game_id: str) -> int:
        with self._locked() as conn:
            return self._version(conn, game_id)

    def get_game(self, game_id: str) -> GameRecord:
        with self._locked() as conn:
            row = conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE game_id = ?", (game_id,)
            ).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return record_from_row(row)

    def list_games(self) -> list[tuple[GameRecord, int, bool]]:
        with self._locked() as conn:
            rows = conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games ORDER BY created_at, rowid"
            ).fetchall()
        return [(record_from_row(row), int(row[8]), bool(row[9])) for row in rows]

    @staticmethod
    def _find_command(
        conn: sqlite3.Connection, game_id: str, command_id: str
    ) -> CommandOutcome | None:
        row = conn.execute(
            f"SELECT {_COMMAND_COLUMNS} FROM commands WHERE game_id = ? AND command_id = ?",
            (game_id, command_id),
        ).fetchone()
        return None if row is None else outcome_from_row(row)

    def find_command(self, game_id: str, command_id: str) -> CommandOutcome | None:
        with self._locked() as conn:
            self._version(conn, game_id)  # GameNotFound
            return self._find_command(conn, game_id, command_id)

    def commands(self, game_id: str) -> list[CommandOutcome]:
        with self._locked() as conn:
            self._version(conn, game_id)  # GameNotFound
            rows = conn.execute(
                f"SELECT {_COMMAND_COLUMNS} FROM commands WHERE game_id = ?"
                " ORDER BY first_sequence",
                (game_id,),
            ).fetchall()
        return [outcome_from_row(row) for row in rows]

    def add_stats(self, game_id: str, seat: int, counts: Mapping[str, int]) -> None:
        with self._writing() as conn:
            self._version(conn, game_id)  # GameNotFound
            conn.executemany(
                "INSERT INTO seat_stats (game_id, seat, name, value) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (game_id, seat, name) DO UPDATE SET value = value + excluded.value",
                [(game_id, seat, name, amount) for name, amount in counts.items()],
            )

    def stats(self, game_id: str) -> dict[int, dict[str, int]]:
        with self._locked() as conn:
            self._version(conn, game_id)  # GameNotFound
            rows = conn.execute(
                "SELECT seat, name, value FROM seat_stats WHERE game_id = ? ORDER BY seat, name",
                (game_id,),
            ).fetchall()
        counters: dict[int, dict[str, int]] = {}
        for seat, name, value in rows:
            counters.setdefault(int(seat), {})[str(name)] = int(value)
        return counters

    # -- seat claims and documents -----------------------------------------------------

    def claim_seat(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        claim: SeatClaim,
        documents: Sequence[DocumentWrite] = (),
    ) -> int:
        payloads = [bytes(event) for event in events]
        writes = check_writes(documents)
        with self._writing() as conn:
            actual = self._version(conn, game_id)  # GameNotFound
            if sqlite_documents.has_claim(conn, game_id, claim.seat):
                raise SeatTaken(game_id, claim.seat)
            if actual != expected_version:
                raise VersionConflict(game_id, expected_version, actual)
            written = sqlite_documents.write(conn, writes)  # RevisionConflict: rolled back
            sqlite_documents.insert_claims(conn, game_id, [claim])
            version = expected_version + len(payloads)
            if payloads:
                conn.execute("UPDATE games SET version = ? WHERE game_id = ?", (version, game_id))
                conn.executemany(
                    "INSERT INTO events (game_id, sequence, payload) VALUES (?, ?, ?)",
                    [(game_id, s, p) for s, p in enumerate(payloads, expected_version + 1)],
                )
        self._notify(game_id, version)
        self._notify_documents(_changed(written))
        return version

    def seat_claims(self, game_id: str) -> dict[int, SeatClaim]:
        with self._locked() as conn:
            self._version(conn, game_id)  # GameNotFound
            return sqlite_documents.claims(conn, game_id)

    def read_document(self, kind: str, key: str) -> Document | None:
        with self._locked() as conn:
            return sqlite_documents.read(conn, kind, key)

    def documents(self, kind: str, prefix: str = "") -> list[Document]:
        with self._locked() as conn:
            return sqlite_documents.listing(conn, kind, prefix)

    def write_documents(self, writes: Sequence[DocumentWrite]) -> list[int]:
        checked = check_writes(writes)
        with self._writing() as conn:
            written = sqlite_documents.write(conn, checked)
        self._notify_documents(_changed(written))
        return [max(revision, 0) for _, _, revision in written]

    def close(self) -> None:
        self._writer.close()  # commits what is queued first
        with self._turns.held():
            if self._conn is not None:
                self._conn.close()  # the last connection to close also checkpoints the WAL
                self._conn = None
