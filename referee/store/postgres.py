"""An event store on PostgreSQL, shared by any number of referee processes (replicas).

Driver: psycopg 3 with psycopg_pool. The store's interface is synchronous and thread-safe
(the server calls it from a worker thread), which is what psycopg's blocking API and its
thread-safe connection pool give directly; asyncpg would need an event loop of its own per
store. psycopg is the maintained successor of psycopg2, speaks libpq (so every libpq
connection string, environment variable and TLS option works as documented by PostgreSQL)
and supports ``LISTEN/NOTIFY`` on a plain connection.

How it keeps the store's guarantees across processes:

* **One round trip, one transaction per group of appends.** ``referee_append`` (a PL/pgSQL
  function the migrations install, :mod:`referee.store.pg_schema`) locks the game's row
  (``SELECT ... FOR UPDATE``), checks in the documented order (no such game, a recorded
  command id, the version) and only then writes the events, the command and the
  notification; a refused append writes nothing and returns why. Two writers at the same
  version are serialised by the row lock: exactly one finds its version; the other gets
  :class:`VersionConflict` (or :class:`DuplicateCommand` for the same command id). The
  store's writer thread runs it for every append queued meanwhile (one per game, from many
  games) in one statement, hence one transaction and one commit (group commit,
  :mod:`referee.store.group`); the games' rows are locked in game id order, so two replicas'
  groups cannot deadlock.
* **Notifications to every process.** Each commit runs ``pg_notify`` in its own transaction,
  so PostgreSQL delivers it to every listening connection only if it committed. A thread per
  store LISTENs and calls the listeners for commits of *other* store instances (a store's own
  commits are announced in the committing thread, as the in-process stores do). When the
  listening connection is lost it reconnects and announces every unfinished game's version,
  because notifications sent meanwhile are gone; listeners read the store, so an extra
  announcement costs a read and nothing else. Document writes notify the same way on a
  channel of their own (:mod:`referee.store.pg_listen`), and after a reconnection every
  document written since the listener last started is announced.
* **Claims and document writes** are transactions of their own, not grouped (they are
  rare). Row locks are taken games first (by game id), then documents (by kind and key), in
  every transaction, so none can wait for another in a circle (:mod:`referee.store.pg_documents`).
* **Faults.** A call waits at most ``wait`` seconds for a pooled connection that answers,
  and at most ``wait`` for the answer to each of its statements, however the database fails,
  silent with its connections open included (:mod:`referee.store.pg_connection`). A lost
  connection (a restarted or terminated backend), a pool that cannot connect, a database
  that does not answer in time, or any other operational error of the database fails the
  call with :class:`StoreUnavailable`, never a driver error. A write whose connection broke
  (or went silent) after it was sent is marked ``uncertain``: the append may have
  committed, and a retry with the same command id answers it (:class:`DuplicateCommand`
  with the first outcome) or applies it once.
* **Migrations.** ``referee_schema`` holds the schema version; opening a store applies the
  missing steps of :data:`MIGRATIONS` in one transaction under an advisory lock (replicas
  starting together migrate once), and refuses a database whose version is newer than this
  code knows.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from referee.store import pg_documents
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
from referee.store.pg_connection import AnsweringConnection, session_settings, tcp_settings
from referee.store.pg_listen import DOCUMENTS_CHANNEL, GAMES_CHANNEL, Notifications
from referee.store.pg_schema import MIGRATIONS, SCHEMA_VERSION, migrate, scratch_database
from referee.store.rows import (
    changed,
    check_claims,
    check_writes,
    outcome_from_row,
    record_from_row,
)

__all__ = [
    "CHANNEL",
    "DOCUMENTS_CHANNEL",
    "FAILING_WAIT",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "PostgresEventStore",
    "migrate",
    "scratch_database",
]

_log = logging.getLogger(__name__)

#: Seconds a call waits for a connection while the pool has been failing to get one.
FAILING_WAIT = 0.1

#: The games' NOTIFY channel; payload ``"<store instance id> <version> <game id>"``.
CHANNEL = GAMES_CHANNEL
_NOTIFY = "SELECT pg_notify(%s, %s)"

#: ``referee_append`` once per member of a group, in one statement. Each column is an array
#: with one element per member; the members' events are one flat array, each member's
#: ``start`` and ``n`` say which of them are its own.
_APPEND_GROUP = (
    "SELECT r.status, r.version FROM unnest("
    "%s::text[], %s::integer[], %s::integer[], %s::integer[], %s::text[], %s::integer[],"
    " %s::text[], %s::bytea[], %s::bigint[], %s::integer[], %s::integer[]"
    ") WITH ORDINALITY AS m (game, expected, start, n, command, seat, fingerprint,"
    " command_payload, decision_ms, first, last, ord)"
    " CROSS JOIN LATERAL referee_append(m.game, m.expected,"
    " (%s::bytea[])[m.start:m.start + m.n - 1], m.command, m.seat, m.fingerprint,"
    " m.command_payload, m.decision_ms, m.first, m.last, %s::text) AS r"
    " ORDER BY m.ord"
)

_GAME_COLUMNS = (
    "game_id, game_type, players, options, seed, deal, token_hashes, created_at, version,"
    " finished, settings, organiser_hash"
)
_COMMAND_COLUMNS = (
    "command_id, seat, fingerprint, first_sequence, last_sequence, payload, decision_ms"
)


class PostgresEventStore(GroupCommitStore):
    """Event store in the PostgreSQL database named by ``conninfo`` (a libpq URL or
    ``key=value`` string, e.g. ``postgresql://referee@db/referee``).

    ``pool_size`` connections at most serve the store's calls; one more connection listens
    for notifications while ``listen`` is true (the default). Opening waits up to
    ``connect_timeout`` seconds for the database and fails with :class:`RuntimeError` if it
    does not answer, so a replica that cannot reach it does not start. Later calls wait at
    most ``wait`` seconds for a connection (see the module's docstring on faults).
    """

    #: Other processes may append to the same games: readers must expect outside commits.
    shared = True

    def __init__(
        self,
        conninfo: str,
        *,
        pool_size: int = 4,
        listen: bool = True,
        connect_timeout: float = 10.0,
        wait: float = DEFAULT_WAIT,
    ) -> None:
        super().__init__()
        self.conninfo = conninfo
        self.wait = wait
        #: Set while the pool cannot get a connection: calls then wait only briefly (see
        #: :meth:`_checked`).
        self._failing = False
        #: Tags this instance's notifications, so its listener thread skips them.
        self.origin = uuid.uuid4().hex
        self._closed = threading.Event()
        self._settings = tcp_settings(conninfo, wait)
        opening = {**self._settings, "connect_timeout": max(2, int(connect_timeout))}
        try:
            with psycopg.connect(conninfo, **opening) as conn:
                migrate(conn)
        except psycopg.OperationalError as error:
            raise RuntimeError(f"cannot open the PostgreSQL event store: {error}") from None
        self._pool: ConnectionPool[AnsweringConnection] = ConnectionPool(
            conninfo,
            connection_class=AnsweringConnection,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"autocommit": True, **self._settings},
            configure=self._configure,
            # The wait for a free (or new) connection: a fault must answer UNAVAILABLE soon,
            # not after psycopg's default of 30 s, past any client's deadline.
            timeout=wait,
            # A failed reconnection is retried after 1 s, then 2, 4, ... until this: a short
            # give-up lets the next call start a fresh attempt, so the pool reconnects within
            # about a second of the database's return instead of after a long backoff.
            reconnect_timeout=max(1.0, wait),
            name="referee-store",
            open=False,
        )
        self._pool.open(wait=True, timeout=connect_timeout)
        self._writer = GroupWriter("referee-store-pg", self._write_group, self._notify)
        #: Where the documents' changes stood when the listener last (re)started LISTEN; ``None``
        #: until known (then a reconnection announces every document).
        self._document_mark: int | None = None
        self._notifications: Notifications | None = None
        #: Set while the notification thread listens (tests wait for it).
        self.listening = threading.Event()
        if listen:
            self._notifications = Notifications(
                self._listening_connection,
                self.origin,
                self._notify,
                self._document_heard,
                self._listened,
            )
            self.listening = self._notifications.listening
            # Listening before the store is handed out: a server lists its games right after
            # opening the store, and a game another replica creates in between must not be
            # missed (its notice would go to nobody). Seen as a flaky adoption test in CI.
            if not self.listening.wait(connect_timeout):
                _log.warning("event store listener not listening after %s s", connect_timeout)

    # -- connections -----------------------------------------------------------------------

    def _configure(self, conn: AnsweringConnection) -> None:
        """A new pooled connection: its round trips and the server's statements bounded by
        the store wait."""
        conn.answer_wait = self.wait
        for name, value in session_settings(self.wait):
            conn.execute("SELECT set_config(%s, %s, false)", (name, value))

    def _listening_connection(self) -> AnsweringConnection:
        """A new connection for the notification thread (round trips bounded as the pool's;
        waiting for notifications is not a round trip)."""
        conn = AnsweringConnection.connect(self.conninfo, autocommit=True, **self._settings)
        conn.answer_wait = self.wait
        return conn

    @contextlib.contextmanager
    def _conn(self, *, write: bool = False) -> Iterator[AnsweringConnection]:
        """A pooled connection, after the closed check; the database's faults raised in the
        block (or while waiting for the connection) as :class:`StoreUnavailable`, marked
        uncertain for a ``write`` that was under way."""
        if self._closed.is_set():
            raise RuntimeError("event store is closed")
        try:
            conn = self._checked()
            try:
                yield conn
            finally:
                self._pool.putconn(conn)  # a broken one is discarded and replaced
        except PoolTimeout:
            raise StoreUnavailable(
                "the PostgreSQL event store got no connection in time (the database is"
                " unreachable, silent or refuses connections, or every connection is busy)",
                retry_after=1.0,
            ) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            # The class name says what happened (AdminShutdown, ConnectionTimeout, ...);
            # the driver's text may quote a statement, whose parameters are not logged.
            raise StoreUnavailable(
                f"the PostgreSQL event store lost its connection or failed "
                f"({type(error).__name__})",
                retry_after=0.5,
                uncertain=write,
            ) from None

    def _checked(self) -> AnsweringConnection:
        """A pooled connection that answers, within ``wait`` (else :class:`PoolTimeout`).

        Each is checked with an empty query (one round trip) before use, so a connection
        the database dropped since (a restart, ``pg_terminate_backend``) fails here and not
        in the call, and one that is silent fails within what is left of the wait (at least
        :data:`FAILING_WAIT`). Broken ones go back to the pool, which replaces them, and the
        next is tried at once: psycopg's own ``check`` sleeps 1 s, then 2 s, ... between
        tries, which made clocks seconds late after a fault.

        Once a wait has run out, later calls wait at most :data:`FAILING_WAIT` until one gets
        a connection again: calls queued behind one another (the server makes them one at a
        time) would otherwise each wait the whole ``wait``, and the last would answer long
        after it. The pool keeps reconnecting meanwhile, so the first call after the
        database's return still finds a connection.
        """
        wait = min(self.wait, FAILING_WAIT) if self._failing else self.wait
        deadline = time.monotonic() + wait
        while True:
            try:
                conn = self._pool.getconn(timeout=max(0.001, deadline - time.monotonic()))
            except PoolTimeout:
                self._failing = True
                raise
            conn.answer_wait = max(FAILING_WAIT, deadline - time.monotonic())
            try:
                conn.execute("")
            except psycopg.Error:
                self._pool.putconn(conn)
                if time.monotonic() >= deadline:
                    self._failing = True
                    raise PoolTimeout("no pooled connection answered in time") from None
                continue
            conn.answer_wait = self.wait
            self._failing = False
            return conn

    @staticmethod
    def _version(conn: psycopg.Connection[Any], game_id: str) -> int:
        row = conn.execute("SELECT version FROM games WHERE game_id = %s", (game_id,)).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return int(row[0])

    # -- writing ---------------------------------------------------------------------------

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
        with self._conn(write=True) as conn, conn.transaction():
            inserted = conn.execute(
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES"
                " (%s, %s, %s, %s, %s, %s, %s, %s, %s, false, %s, %s)"
                " ON CONFLICT (game_id) DO NOTHING",
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
            ).rowcount
            if not inserted:
                raise GameExists(record.game_id)
            self._insert_events(conn, record.game_id, 0, payloads)
            pg_documents.insert_claims(conn, record.game_id, claims)
            written = pg_documents.write(conn, writes, self.origin)  # after the game's row
            conn.execute(_NOTIFY, (CHANNEL, f"{self.origin} {len(payloads)} {record.game_id}"))
        self._notify(record.game_id, len(payloads))
        self._notify_documents(changed(written))

    @staticmethod
    def _insert_events(
        conn: psycopg.Connection[Any], game_id: str, after: int, payloads: list[bytes]
    ) -> None:
        """Insert ``payloads`` as the game's sequences ``after + 1, ...``."""
        if payloads:
            conn.execute(
                "INSERT INTO events (game_id, sequence, payload)"
                " SELECT %s, %s + u.ord::integer, u.payload"
                " FROM unnest(%s::bytea[]) WITH ORDINALITY AS u (payload, ord)",
                (game_id, after, payloads),
            )

    def _write_group(self, group: Sequence[Pending]) -> list[int | StoreError]:
        """The writer thread: ``referee_append`` for every member of ``group`` in one
        statement (autocommit: one transaction), in game id order (the row locks' order)."""
        order = sorted(range(len(group)), key=lambda index: group[index].game_id)
        members = [group[index] for index in order]
        columns: list[list[Any]] = [[] for _ in range(11)]
        payloads: list[bytes] = []
        for pending in members:
            outcome = pending.outcome
            row = (
                pending.game_id,
                pending.expected_version,
                len(payloads) + 1,  # where its events start in the flat array
                len(pending.payloads),
                *(
                    (None,) * 7
                    if outcome is None
                    else (
                        outcome.command_id,
                        outcome.seat,
                        outcome.fingerprint,
                        bytes(outcome.payload),
                        outcome.decision_ms,
                        outcome.first_sequence,
                        outcome.last_sequence,
                    )
                ),
            )
            for column, value in zip(columns, row, strict=True):
                column.append(value)
            payloads += pending.payloads
        answers: list[int | StoreError] = [0] * len(group)
        with self._conn(write=True) as conn:
            rows = conn.execute(_APPEND_GROUP, (*columns, payloads, self.origin)).fetchall()
            for index, pending, (status, version) in zip(order, members, rows, strict=True):
                answers[index] = self._answer(conn, pending, str(status), int(version))
        return answers

    def _answer(
        self, conn: psycopg.Connection[Any], pending: Pending, status: str, version: int
    ) -> int | StoreError:
        """One member's answer from ``referee_append``'s status."""
        if status == "ok":
            return version
        if status == "missing":
            return GameNotFound(pending.game_id)
        if status == "duplicate":
            assert pending.outcome is not None
            first = self._find_command(conn, pending.game_id, pending.outcome.command_id)
            assert first is not None  # commands are never deleted
            return DuplicateCommand(pending.game_id, first)
        return VersionConflict(pending.game_id, pending.expected_version, version)

    def set_finished(self, game_id: str, finished: bool = True) -> None:
        with self._conn(write=True) as conn:
            cursor = conn.execute(
                "UPDATE games SET finished = %s WHERE game_id = %s", (finished, game_id)
            )
            if cursor.rowcount == 0:
                raise GameNotFound(game_id)

    # -- reading ---------------------------------------------------------------------------

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        check_limit(limit)
        with self._conn() as conn:
            # One round trip: the game's row (GameNotFound) joined with the wanted events.
            rows = conn.execute(
                "SELECT e.sequence, e.payload FROM games g LEFT JOIN LATERAL ("
                "  SELECT sequence, payload FROM events"
                "  WHERE events.game_id = g.game_id AND sequence > %s"
                "  ORDER BY sequence LIMIT %s) e ON true"
                " WHERE g.game_id = %s ORDER BY e.sequence",
                (after, limit, game_id),
            ).fetchall()
        if not rows:
            raise GameNotFound(game_id)
        return [
            StoredEvent(game_id, int(seq), bytes(payload))
            for seq, payload in rows
            if seq is not None
        ]

    def version(self, game_id: str) -> int:
        with self._conn() as conn:
            return self._version(conn, game_id)

    def get_game(self, game_id: str) -> GameRecord:
        with self._conn() as conn:
            row = conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE game_id = %s", (game_id,)
            ).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return record_from_row(row)

    def list_games(self) -> list[tuple[GameRecord, int, bool]]:
        with self._conn() as conn:
            rows = conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games ORDER BY created_at, ordinal"
            ).fetchall()
        return [(record_from_row(row), int(row[8]), bool(row[9])) for row in rows]

    @staticmethod
    def _find_command(
        conn: psycopg.Connection[Any], game_id: str, command_id: str
    ) -> CommandOutcome | None:
        row = conn.execute(
            f"SELECT {_COMMAND_COLUMNS} FROM commands WHERE game_id = %s AND command_id = %s",
            (game_id, command_id),
        ).fetchone()
        return None if row is None else outcome_from_row(row)

    def find_command(self, game_id: str, command_id: str) -> CommandOutcome | None:
        with self._conn() as conn:
            found = self._find_command(conn, game_id, command_id)
            if found is None:
                self._version(conn, game_id)  # GameNotFound
            return found

    def commands(self, game_id: str) -> list[CommandOutcome]:
        with self._conn() as conn:
            self._version(conn, game_id)  # GameNotFound
            rows = conn.execute(
                f"SELECT {_COMMAND_COLUMNS} FROM commands WHERE game_id = %s"
                " ORDER BY first_sequence",
                (game_id,),
            ).fetchall()
        return [outcome_from_row(row) for row in rows]

    # -- per-seat counters -----------------------------------------------------------------

    def add_stats(self, game_id: str, seat: int, counts: Mapping[str, int]) -> None:
        with self._conn(write=True) as conn, conn.transaction():
            self._version(conn, game_id)  # GameNotFound
            for name, amount in counts.items():
                conn.execute(
                    "INSERT INTO seat_stats (game_id, seat, name, value) VALUES (%s, %s, %s, %s)"
                    " ON CONFLICT (game_id, seat, name)"
                    " DO UPDATE SET value = seat_stats.value + excluded.value",
                    (game_id, seat, name, amount),
                )

    def stats(self, game_id: str) -> dict[int, dict[str, int]]:
        with self._conn() as conn:
            self._version(conn, game_id)  # GameNotFound
            rows = conn.execute(
                "SELECT seat, name, value FROM seat_stats WHERE game_id = %s ORDER BY seat, name",
                (game_id,),
            ).fetchall()
        counters: dict[int, dict[str, int]] = {}
        for seat, name, value in rows:
            counters.setdefault(int(seat), {})[str(name)] = int(value)
        return counters

    # -- seat claims and documents -------------------------------------------------------

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
        version = expected_version + len(payloads)
        with self._conn(write=True) as conn, conn.transaction():
            # The game's row first (as appends lock it), then the documents': no deadlock.
            row = conn.execute(
                "SELECT version FROM games WHERE game_id = %s FOR UPDATE", (game_id,)
            ).fetchone()
            if row is None:
                raise GameNotFound(game_id)
            if pg_documents.has_claim(conn, game_id, claim.seat):
                raise SeatTaken(game_id, claim.seat)
            if int(row[0]) != expected_version:
                raise VersionConflict(game_id, expected_version, int(row[0]))
            pg_documents.insert_claims(conn, game_id, [claim])
            if payloads:
                conn.execute("UPDATE games SET version = %s WHERE game_id = %s", (version, game_id))
                self._insert_events(conn, game_id, expected_version, payloads)
            written = pg_documents.write(conn, writes, self.origin)
            # Even with no event: the other replicas' live games refresh the seat's holder.
            conn.execute(_NOTIFY, (CHANNEL, f"{self.origin} {version} {game_id}"))
        self._notify(game_id, version)
        self._notify_documents(changed(written))
        return version

    def seat_claims(self, game_id: str) -> dict[int, SeatClaim]:
        with self._conn() as conn:
            found = pg_documents.claims(conn, game_id)
            if not found:
                self._version(conn, game_id)  # GameNotFound
            return found

    def read_document(self, kind: str, key: str) -> Document | None:
        with self._conn() as conn:
            return pg_documents.read(conn, kind, key)

    def documents(self, kind: str, prefix: str = "") -> list[Document]:
        with self._conn() as conn:
            return pg_documents.listing(conn, kind, prefix)

    def write_documents(self, writes: Sequence[DocumentWrite]) -> list[int]:
        checked = check_writes(writes)
        with self._conn(write=True) as conn, conn.transaction():
            written = pg_documents.write(conn, checked, self.origin)
        self._notify_documents(changed(written))
        return [max(revision, 0) for _, _, revision in written]

    # -- notifications ---------------------------------------------------------------------

    def _document_heard(self, kind: str, key: str, revision: int) -> None:
        self._notify_documents([(kind, key, revision)])

    def _listened(self, first: bool) -> None:
        """The notification thread LISTENs again: take the documents' bearings and, after a
        lost connection, announce every unfinished game and every document written since the
        last bearings, because what was sent meanwhile is gone. (A write that had taken its
        place in the changes' order before the bearings but committed only after, and then
        during a second loss, would be missed: a window of milliseconds, twice over.)"""
        with self._conn() as conn:
            mark = pg_documents.latest_change(conn)
            if first:
                self._document_mark = mark
                return
            games = conn.execute("SELECT game_id, version FROM games WHERE NOT finished")
            unfinished = games.fetchall()
            since = self._document_mark
            written = pg_documents.changed_since(conn, -1 if since is None else since)
        self._document_mark = mark
        for game_id, version in unfinished:
            self._notify(str(game_id), int(version))
        self._notify_documents(written)

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._writer.close()  # commits what is queued first
        self._closed.set()
        if self._notifications is not None:
            self._notifications.close()
        self._pool.close()
