"""The SQLite store's seat claims and documents: their tables and statements, run on the
store's connection inside its transactions (``BEGIN IMMEDIATE`` holds the file's write lock,
so a compare-and-set reads and writes with no other writer in between)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from referee.store.base import Document, DocumentWrite, RevisionConflict, SeatClaim
from referee.store.rows import claim_from_row, document_from_row, prefix_end

__all__ = [
    "DOCUMENTS",
    "SEAT_CLAIMS",
    "claims",
    "has_claim",
    "insert_claims",
    "listing",
    "read",
    "write",
]

#: Who holds the seats that were not dealt to token holders; added in schema version 3.
SEAT_CLAIMS = """CREATE TABLE seat_claims (
        game_id    TEXT NOT NULL REFERENCES games (game_id),
        seat       INTEGER NOT NULL,
        player     TEXT NOT NULL,          -- '' for an anonymous claim (a claim code)
        kind       TEXT NOT NULL,          -- 'person', 'bot' or ''
        token_hash TEXT NOT NULL,          -- sha256 hex of the seat's token, or ''
        claimed_at REAL NOT NULL,
        PRIMARY KEY (game_id, seat)
    ) WITHOUT ROWID"""

#: The application's documents; added in schema version 3. A deleted document keeps its row
#: with a NULL body, so its revision count goes on when it is written again.
DOCUMENTS = """CREATE TABLE documents (
        kind       TEXT NOT NULL,
        key        TEXT NOT NULL,
        revision   INTEGER NOT NULL,
        body       TEXT,                   -- JSON object; NULL once deleted
        updated_at REAL NOT NULL,
        PRIMARY KEY (kind, key)
    ) WITHOUT ROWID"""

_CLAIM_COLUMNS = "seat, player, kind, token_hash, claimed_at"


def insert_claims(conn: sqlite3.Connection, game_id: str, new: Sequence[SeatClaim]) -> None:
    conn.executemany(
        f"INSERT INTO seat_claims (game_id, {_CLAIM_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
        [(game_id, c.seat, c.player, c.kind, c.token_hash, c.claimed_at) for c in new],
    )


def has_claim(conn: sqlite3.Connection, game_id: str, seat: int) -> bool:
    found = conn.execute(
        "SELECT 1 FROM seat_claims WHERE game_id = ? AND seat = ?", (game_id, seat)
    ).fetchone()
    return found is not None


def claims(conn: sqlite3.Connection, game_id: str) -> dict[int, SeatClaim]:
    rows = conn.execute(
        f"SELECT {_CLAIM_COLUMNS} FROM seat_claims WHERE game_id = ? ORDER BY seat", (game_id,)
    ).fetchall()
    return {int(row[0]): claim_from_row(row) for row in rows}


def write(
    conn: sqlite3.Connection, writes: Sequence[tuple[DocumentWrite, str | None]]
) -> list[tuple[str, str, int]]:
    """Compare and set each write (encoded bodies, ``None``: delete) inside the caller's
    transaction; :class:`RevisionConflict` at the first that is not at its revision (the
    caller's transaction then rolls back what came before it). Returns ``(kind, key,
    revision)`` per write: 0 for a delete, -1 for a delete of nothing (nothing written)."""
    written: list[tuple[str, str, int]] = []
    for document, body in writes:
        kind, key = document.kind, document.key
        row = conn.execute(
            "SELECT revision, body IS NOT NULL FROM documents WHERE kind = ? AND key = ?",
            (kind, key),
        ).fetchone()
        actual = int(row[0]) if row is not None and row[1] else 0
        if actual != document.expected_revision:
            raise RevisionConflict(kind, key, document.expected_revision, actual)
        if body is None and actual == 0:  # a delete of nothing (or of a deleted one): no write
            written.append((kind, key, -1))
            continue
        if row is None:
            conn.execute(
                "INSERT INTO documents (kind, key, revision, body, updated_at)"
                " VALUES (?, ?, 1, ?, ?)",
                (kind, key, body, document.updated_at),
            )
            written.append((kind, key, 1))
            continue
        revision = int(row[0]) + 1
        conn.execute(
            "UPDATE documents SET revision = ?, body = ?, updated_at = ?"
            " WHERE kind = ? AND key = ?",
            (revision, body, document.updated_at, kind, key),
        )
        written.append((kind, key, 0 if body is None else revision))
    return written


def read(conn: sqlite3.Connection, kind: str, key: str) -> Document | None:
    row = conn.execute(
        "SELECT key, revision, body, updated_at FROM documents"
        " WHERE kind = ? AND key = ? AND body IS NOT NULL",
        (kind, key),
    ).fetchone()
    return None if row is None else document_from_row(kind, row)


def listing(conn: sqlite3.Connection, kind: str, prefix: str) -> list[Document]:
    """Documents of ``kind`` by key from ``prefix`` on, in the primary key's order (SQLite's
    BINARY collation compares UTF-8 bytes: code point order, as Python's)."""
    end = prefix_end(prefix)
    query = (
        "SELECT key, revision, body, updated_at FROM documents"
        " WHERE kind = ? AND key >= ? AND body IS NOT NULL"
    )
    parameters: tuple[str, ...] = (kind, prefix)
    if end is not None:
        query, parameters = query + " AND key < ?", (*parameters, end)
    rows = conn.execute(query + " ORDER BY key", parameters).fetchall()
    return [document_from_row(kind, row) for row in rows if str(row[0]).startswith(prefix)]
