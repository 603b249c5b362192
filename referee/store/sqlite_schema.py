"""The SQLite store's schema: the tables of a new file, and the steps that bring an older
file up to date (``PRAGMA user_version`` says which it is)."""

from __future__ import annotations

from referee.store.sqlite_documents import DOCUMENTS, SEAT_CLAIMS

__all__ = ["MIGRATIONS", "SCHEMA", "SCHEMA_VERSION"]

#: Stored in ``PRAGMA user_version``; bump it (and add a step to ``MIGRATIONS``) on any change.
SCHEMA_VERSION = 3

#: Per-seat counters (error accounting), added in schema version 2.
_SEAT_STATS = """CREATE TABLE seat_stats (
        game_id TEXT NOT NULL REFERENCES games (game_id),
        seat    INTEGER NOT NULL,
        name    TEXT NOT NULL,
        value   INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat, name)
    ) WITHOUT ROWID"""

SCHEMA = (
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
        version      INTEGER NOT NULL,            -- last sequence, kept to check appends fast
        settings     TEXT NOT NULL DEFAULT '{}',  -- JSON object: clock, organiser delay, ...
        organiser_hash TEXT NOT NULL DEFAULT ''   -- sha256 hex digest of the organiser token
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
        payload        BLOB NOT NULL DEFAULT x'',  -- the command as sent
        decision_ms    INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (game_id, command_id)
    ) WITHOUT ROWID""",
    _SEAT_STATS,
    SEAT_CLAIMS,
    DOCUMENTS,
)

#: ``MIGRATIONS[v]`` takes a database from schema version ``v`` to ``v + 1``.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        "ALTER TABLE games ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE games ADD COLUMN organiser_hash TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE commands ADD COLUMN payload BLOB NOT NULL DEFAULT x''",
        "ALTER TABLE commands ADD COLUMN decision_ms INTEGER NOT NULL DEFAULT 0",
        _SEAT_STATS,
    ),
    2: (SEAT_CLAIMS, DOCUMENTS),
}
