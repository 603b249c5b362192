"""An event store on PostgreSQL, shared by any number of referee processes (replicas).

Driver: psycopg 3 with psycopg_pool. The store's interface is synchronous and thread-safe
(the server calls it from a worker thread), which is what psycopg's blocking API and its
thread-safe connection pool give directly; asyncpg would need an event loop of its own per
store. psycopg is the maintained successor of psycopg2, speaks libpq (so every libpq
connection string, environment variable and TLS option works as documented by PostgreSQL)
and supports ``LISTEN/NOTIFY`` on a plain connection.

How it keeps the store's guarantees across processes:

* **One round trip, one transaction per append.** ``referee_append`` (a PL/pgSQL function the
  migrations install) locks the game's row (``SELECT ... FOR UPDATE``), checks in the
  documented order (no such game, a recorded command id, the version) and only then writes
  the events, the command and the notification. Two writers at the same version are
  serialised by the row lock: exactly one finds its version; the other gets
  :class:`VersionConflict` (or :class:`DuplicateCommand` for the same command id).
* **Notifications to every process.** Each commit runs ``pg_notify`` in its own transaction,
  so PostgreSQL delivers it to every listening connection only if it committed. A thread per
  store LISTENs and calls the listeners for commits of *other* store instances (a store's own
  commits are announced in the committing thread, as the in-process stores do). When the
  listening connection is lost it reconnects and announces every unfinished game's version,
  because notifications sent meanwhile are gone; listeners read the store, so an extra
  announcement costs a read and nothing else.
* **Faults.** A call waits at most ``wait`` seconds for a pooled connection; a lost
  connection (a restarted or terminated backend), a pool that cannot connect, or any other
  operational error of the database fails the call with :class:`StoreUnavailable`, never a
  driver error. A write whose connection broke after it was sent is marked ``uncertain``:
  the append may have committed, and a retry with the same command id answers it
  (:class:`DuplicateCommand` with the first outcome) or applies it once.
* **Migrations.** ``referee_schema`` holds the schema version; opening a store applies the
  missing steps of :data:`MIGRATIONS` in one transaction under an advisory lock (replicas
  starting together migrate once), and refuses a database whose version is newer than this
  code knows.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout

from referee.store.base import (
    DEFAULT_WAIT,
    CommandOutcome,
    DuplicateCommand,
    EventStore,
    GameExists,
    GameNotFound,
    GameRecord,
    StoredEvent,
    StoreUnavailable,
    VersionConflict,
    check_limit,
    check_outcome,
    outcome_from_row,
    record_from_row,
)

__all__ = [
    "CHANNEL",
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

#: The NOTIFY channel; payload ``"<store instance id> <version> <game id>"``.
CHANNEL = "referee_events"

#: Taken (transaction-scoped) while migrating, so replicas starting at once migrate in turn.
_MIGRATION_LOCK = 0x5245_4645  # "REFE"

_APPEND_FUNCTION = """
CREATE OR REPLACE FUNCTION referee_append(
    p_game text, p_expected integer, p_payloads bytea[],
    p_command text, p_seat integer, p_fingerprint text, p_command_payload bytea,
    p_decision_ms bigint, p_first integer, p_last integer, p_origin text
) RETURNS TABLE (status text, version integer) LANGUAGE plpgsql AS $$
DECLARE
    found_version integer;
    n integer := coalesce(array_length(p_payloads, 1), 0);
BEGIN
    -- The row lock serialises writers of one game until this transaction ends.
    SELECT g.version INTO found_version FROM games g WHERE g.game_id = p_game FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'missing'::text, 0;
        RETURN;
    END IF;
    -- A recorded command id wins over the version: a retry usually carries a stale one.
    IF p_command IS NOT NULL AND EXISTS (
        SELECT 1 FROM commands c WHERE c.game_id = p_game AND c.command_id = p_command
    ) THEN
        RETURN QUERY SELECT 'duplicate'::text, found_version;
        RETURN;
    END IF;
    IF found_version <> p_expected THEN
        RETURN QUERY SELECT 'conflict'::text, found_version;
        RETURN;
    END IF;
    IF n > 0 THEN
        UPDATE games SET version = p_expected + n WHERE game_id = p_game;
        INSERT INTO events (game_id, sequence, payload)
            SELECT p_game, p_expected + u.ord::integer, u.payload
            FROM unnest(p_payloads) WITH ORDINALITY AS u (payload, ord);
        PERFORM pg_notify('referee_events', p_origin || ' ' || (p_expected + n) || ' ' || p_game);
    END IF;
    IF p_command IS NOT NULL THEN
        INSERT INTO commands (game_id, command_id, seat, fingerprint, first_sequence,
                              last_sequence, payload, decision_ms)
        VALUES (p_game, p_command, p_seat, p_fingerprint, p_first, p_last,
                p_command_payload, p_decision_ms);
    END IF;
    RETURN QUERY SELECT 'ok'::text, p_expected + n;
END
$$
"""

#: ``MIGRATIONS[v]`` takes a database from schema version ``v`` to ``v + 1`` (0: empty).
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE games (
            game_id        text PRIMARY KEY,
            game_type      text NOT NULL,
            players        integer NOT NULL,
            options        text NOT NULL,              -- JSON object
            seed           bytea NOT NULL,
            deal           bytea NOT NULL,
            token_hashes   text NOT NULL,              -- JSON array of sha256 hex digests
            created_at     double precision NOT NULL,
            ordinal        bigserial NOT NULL,         -- creation order among equal created_at
            version        integer NOT NULL,           -- last sequence, checked by appends
            finished       boolean NOT NULL DEFAULT false,
            settings       text NOT NULL DEFAULT '{}', -- JSON object: clock, organiser delay
            organiser_hash text NOT NULL DEFAULT ''
        )""",
        "CREATE INDEX games_by_creation ON games (created_at, ordinal)",
        """CREATE TABLE events (
            game_id  text NOT NULL REFERENCES games (game_id),
            sequence integer NOT NULL,
            payload  bytea NOT NULL,
            PRIMARY KEY (game_id, sequence)
        )""",
        """CREATE TABLE commands (
            game_id        text NOT NULL REFERENCES games (game_id),
            command_id     text NOT NULL,
            seat           integer NOT NULL,
            fingerprint    text NOT NULL,
            first_sequence integer NOT NULL,
            last_sequence  integer NOT NULL,
            payload        bytea NOT NULL DEFAULT '',
            decision_ms    bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (game_id, command_id)
        )""",
        """CREATE TABLE seat_stats (
            game_id text NOT NULL REFERENCES games (game_id),
            seat    integer NOT NULL,
            name    text NOT NULL,
            value   bigint NOT NULL,
            PRIMARY KEY (game_id, seat, name)
        )""",
        _APPEND_FUNCTION,
    ),
    (
        # commands() and ExportGame read a game's commands in log order.
        "CREATE INDEX commands_in_log_order ON commands (game_id, first_sequence)",
        # Unfinished games are listed after every reconnect of the listening connection.
        "CREATE INDEX games_unfinished ON games (game_id) WHERE NOT finished",
    ),
)

#: The schema version this code writes and reads.
SCHEMA_VERSION = len(MIGRATIONS)

_GAME_COLUMNS = (
    "game_id, game_type, players, options, seed, deal, token_hashes, created_at, version,"
    " finished, settings, organiser_hash"
)
_COMMAND_COLUMNS = (
    "command_id, seat, fingerprint, first_sequence, last_sequence, payload, decision_ms"
)


@contextlib.contextmanager
def scratch_database(admin_url: str, prefix: str = "referee_scratch") -> Iterator[str]:
    """A new, empty database on the server of ``admin_url`` (a URL whose user may ``CREATE
    DATABASE``), dropped on exit; yields its ``postgresql://`` URL. For tests and benchmarks,
    so that runs never share or leave tables. Raises :class:`psycopg.OperationalError` when the
    server does not answer."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            params = conninfo_to_dict(admin_url)
            user = params.get("user") or ""
            host = params.get("host") or "127.0.0.1"
            port = params.get("port") or "5432"
            yield f"postgresql://{user}{'@' if user else ''}{host}:{port}/{name}"
        finally:
            # FORCE: a store left open (a failed test, a killed replica) must not keep it.
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def migrate(conn: psycopg.Connection[Any], target: int = SCHEMA_VERSION) -> int:
    """Bring the database of ``conn`` to schema version ``target`` in one transaction; return
    the version found. Raises :class:`RuntimeError` for a version newer than this code knows.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS referee_schema (version integer NOT NULL)")
        row = conn.execute("SELECT version FROM referee_schema").fetchone()
        found = 0 if row is None else int(row[0])
        if found > SCHEMA_VERSION:
            raise RuntimeError(
                f"event store schema version {found} is newer than this referee knows "
                f"({SCHEMA_VERSION}); upgrade the referee"
            )
        for version in range(found, target):
            for statement in MIGRATIONS[version]:
                conn.execute(statement.encode())  # bytes: no placeholders in DDL
        if target > found:
            if row is None:
                conn.execute("INSERT INTO referee_schema (version) VALUES (%s)", (target,))
            else:
                conn.execute("UPDATE referee_schema SET version = %s", (target,))
    return found


class PostgresEventStore(EventStore):
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
        try:
            with psycopg.connect(conninfo, connect_timeout=max(1, int(connect_timeout))) as conn:
                migrate(conn)
        except psycopg.OperationalError as error:
            raise RuntimeError(f"cannot open the PostgreSQL event store: {error}") from None
        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"autocommit": True},
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
        self._listener: threading.Thread | None = None
        self._listen_conn: psycopg.Connection[Any] | None = None
        self._listen_lock = threading.Lock()
        #: Set once the listening connection has run LISTEN (tests wait for it).
        self.listening = threading.Event()
        if listen:
            self._listener = threading.Thread(
                target=self._listen, name="referee-store-listen", daemon=True
            )
            self._listener.start()
            # Listening before the store is handed out: a server lists its games right after
            # opening the store, and a game another replica creates in between must not be
            # missed (its notice would go to nobody). Seen as a flaky adoption test in CI.
            if not self.listening.wait(connect_timeout):
                _log.warning("event store listener not listening after %s s", connect_timeout)

    # -- connections -----------------------------------------------------------------------

    @contextlib.contextmanager
    def _conn(self, *, write: bool = False) -> Iterator[psycopg.Connection[Any]]:
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
                " unreachable or refuses connections, or every connection is busy)",
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

    def _checked(self) -> psycopg.Connection[Any]:
        """A pooled connection that answers, within ``wait`` (else :class:`PoolTimeout`).

        Each is checked with an empty query (one round trip) before use, so a connection
        the database dropped since (a restart, ``pg_terminate_backend``) fails here and not
        in the call. Broken ones go back to the pool, which replaces them, and the next is
        tried at once: psycopg's own ``check`` sleeps 1 s, then 2 s, ... between tries,
        which made clocks seconds late after a fault.

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
            try:
                conn.execute("")
            except psycopg.Error:
                self._pool.putconn(conn)
                continue
            self._failing = False
            return conn

    @staticmethod
    def _version(conn: psycopg.Connection[Any], game_id: str) -> int:
        row = conn.execute("SELECT version FROM games WHERE game_id = %s", (game_id,)).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return int(row[0])

    # -- writing ---------------------------------------------------------------------------

    def create_game(self, record: GameRecord, events: Sequence[bytes]) -> None:
        payloads = [bytes(event) for event in events]
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
            if payloads:
                conn.execute(
                    "INSERT INTO events (game_id, sequence, payload)"
                    " SELECT %s, u.ord::integer, u.payload"
                    " FROM unnest(%s::bytea[]) WITH ORDINALITY AS u (payload, ord)",
                    (record.game_id, payloads),
                )
            conn.execute(
                "SELECT pg_notify(%s, %s)",
                (CHANNEL, f"{self.origin} {len(payloads)} {record.game_id}"),
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
        command = (
            (None, None, None, None, None, None, None)
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
        )
        with self._conn(write=True) as conn:
            row = conn.execute(
                "SELECT status, version FROM referee_append(%s::text, %s::integer, %s::bytea[],"
                " %s::text, %s::integer, %s::text, %s::bytea, %s::bigint, %s::integer,"
                " %s::integer, %s::text)",
                (game_id, expected_version, payloads, *command, self.origin),
            ).fetchone()
            assert row is not None
            status, actual = str(row[0]), int(row[1])
            if status == "duplicate":
                assert outcome is not None
                first = self._find_command(conn, game_id, outcome.command_id)
                assert first is not None  # commands are never deleted
                raise DuplicateCommand(game_id, first)
        if status == "missing":
            raise GameNotFound(game_id)
        if status == "conflict":
            raise VersionConflict(game_id, expected_version, actual)
        self._notify(game_id, actual)
        return actual

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

    # -- notifications ---------------------------------------------------------------------

    def _listen(self) -> None:
        """The listener thread: LISTEN, and call the listeners for other stores' commits;
        reconnect (and announce every unfinished game) when the connection is lost."""
        delay = 0.05
        first = True
        while not self._closed.is_set():
            try:
                conn = psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5)
            except psycopg.Error as error:
                _log.warning("event store listener cannot connect: %s", error)
                self._closed.wait(delay)
                delay = min(2.0, delay * 2)
                continue
            try:
                with self._listen_lock:
                    if self._closed.is_set():
                        conn.close()
                        return
                    self._listen_conn = conn
                conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(CHANNEL)))
                if not first:
                    self._announce_unfinished(conn)  # what was sent while we were away
                first = False
                delay = 0.05
                self.listening.set()
                # A timeout so a closing store is noticed even when nothing is committed.
                while not self._closed.is_set():
                    for notice in conn.notifies(timeout=0.5):
                        self._heard(notice.payload)
            except psycopg.Error as error:
                if not self._closed.is_set():
                    _log.warning("event store listener lost its connection: %s", error)
            finally:
                self.listening.clear()
                with self._listen_lock:
                    self._listen_conn = None
                conn.close()

    def _heard(self, payload: str) -> None:
        origin, version, game_id = payload.split(" ", 2)
        if origin != self.origin:  # our own commits were announced when they were made
            self._notify(game_id, int(version))

    def _announce_unfinished(self, conn: psycopg.Connection[Any]) -> None:
        rows = conn.execute("SELECT game_id, version FROM games WHERE NOT finished").fetchall()
        for game_id, version in rows:
            self._notify(str(game_id), int(version))

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        with self._listen_lock:
            listening = self._listen_conn
        if listening is not None:
            # Wakes notifies() at once on most platforms; its timeout bounds the wait anyway.
            with contextlib.suppress(psycopg.Error):
                listening.cancel_safe(timeout=1.0)
        if self._listener is not None:
            self._listener.join(timeout=5)
        self._pool.close()
