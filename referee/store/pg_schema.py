"""The PostgreSQL event store's schema: its migrations (with the ``referee_append`` function
every append runs), applying them, and scratch databases for tests and benchmarks."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from referee.store import pg_documents

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate", "scratch_database"]

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
    pg_documents.MIGRATION,
)

#: The schema version this code writes and reads.
SCHEMA_VERSION = len(MIGRATIONS)


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
