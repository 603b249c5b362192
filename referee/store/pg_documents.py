"""The PostgreSQL store's seat claims and documents: their migration step and statements,
run on a pooled connection inside the caller's transaction.

Row locks, so that nothing deadlocks: a transaction locks games' rows first (in game id
order: the appends' group, a claim's one game), then documents' rows in ``(kind, key)``
order, never the other way round. A compare-and-set locks the document's row (``FOR UPDATE``)
before comparing, so a racing writer waits and then finds the revision moved on; a document
that has no row yet is inserted with ``ON CONFLICT DO NOTHING``, which waits for a racing
creator and, if it committed, inserts nothing: a :class:`RevisionConflict`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from referee.store.base import Document, DocumentWrite, RevisionConflict, SeatClaim
from referee.store.pg_listen import DOCUMENTS_CHANNEL
from referee.store.rows import claim_from_row, document_from_row, prefix_end

__all__ = [
    "MIGRATION",
    "changed_since",
    "claims",
    "has_claim",
    "insert_claims",
    "latest_change",
    "listing",
    "read",
    "write",
]

#: Schema version 3: the seats' claims and the documents. ``key`` compares in the "C"
#: collation (code points, as Python and SQLite order them) whatever the database's locale,
#: so prefix ranges use the primary key; ``changed`` orders every write, so a listener that
#: lost its connection can tell what changed meanwhile. A deleted document keeps its row with
#: a NULL body, so its revision count goes on when it is written again.
MIGRATION: tuple[str, ...] = (
    """CREATE TABLE seat_claims (
        game_id    text NOT NULL REFERENCES games (game_id),
        seat       integer NOT NULL,
        player     text NOT NULL,              -- '' for an anonymous claim (a claim code)
        kind       text NOT NULL,              -- 'person', 'bot' or ''
        token_hash text NOT NULL,              -- sha256 hex of the seat's token, or ''
        claimed_at double precision NOT NULL,
        PRIMARY KEY (game_id, seat)
    )""",
    "CREATE SEQUENCE document_changes",
    """CREATE TABLE documents (
        kind       text COLLATE "C" NOT NULL,
        key        text COLLATE "C" NOT NULL,
        revision   integer NOT NULL,
        body       text,                       -- JSON object; NULL once deleted
        updated_at double precision NOT NULL,
        changed    bigint NOT NULL DEFAULT nextval('document_changes'),
        PRIMARY KEY (kind, key)
    )""",
    "CREATE INDEX documents_by_change ON documents (changed)",
)

_CLAIM_COLUMNS = "seat, player, kind, token_hash, claimed_at"
_NOTIFY = "SELECT pg_notify(%s, %s)"


def insert_claims(conn: psycopg.Connection[Any], game_id: str, new: Sequence[SeatClaim]) -> None:
    if new:
        with conn.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO seat_claims (game_id, {_CLAIM_COLUMNS})"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                [(game_id, c.seat, c.player, c.kind, c.token_hash, c.claimed_at) for c in new],
            )


def has_claim(conn: psycopg.Connection[Any], game_id: str, seat: int) -> bool:
    found = conn.execute(
        "SELECT 1 FROM seat_claims WHERE game_id = %s AND seat = %s", (game_id, seat)
    ).fetchone()
    return found is not None


def claims(conn: psycopg.Connection[Any], game_id: str) -> dict[int, SeatClaim]:
    rows = conn.execute(
        f"SELECT {_CLAIM_COLUMNS} FROM seat_claims WHERE game_id = %s ORDER BY seat", (game_id,)
    ).fetchall()
    return {int(row[0]): claim_from_row(row) for row in rows}


def write(
    conn: psycopg.Connection[Any],
    writes: Sequence[tuple[DocumentWrite, str | None]],
    origin: str,
) -> list[tuple[str, str, int]]:
    """Compare and set each write (encoded bodies, ``None``: delete) inside the caller's
    transaction, locking in ``(kind, key)`` order, with a notification for each written one;
    :class:`RevisionConflict` at the first that is not at its revision (the caller's
    transaction then rolls back). Returns ``(kind, key, revision)`` in the writes' order: 0
    for a delete, -1 for a delete of nothing (nothing written)."""
    answers: list[tuple[str, str, int]] = [("", "", -1)] * len(writes)
    order = sorted(range(len(writes)), key=lambda i: (writes[i][0].kind, writes[i][0].key))
    for index in order:
        document, body = writes[index]
        kind, key, expected = document.kind, document.key, document.expected_revision
        row = conn.execute(
            "SELECT revision, body IS NOT NULL FROM documents"
            " WHERE kind = %s AND key = %s FOR UPDATE",
            (kind, key),
        ).fetchone()
        actual = int(row[0]) if row is not None and row[1] else 0
        if actual != expected:
            raise RevisionConflict(kind, key, expected, actual)
        if body is None and actual == 0:  # a delete of nothing (or of a deleted one)
            answers[index] = (kind, key, -1)
            continue
        if row is None:
            inserted = conn.execute(
                "INSERT INTO documents (kind, key, revision, body, updated_at)"
                " VALUES (%s, %s, 1, %s, %s) ON CONFLICT (kind, key) DO NOTHING",
                (kind, key, body, document.updated_at),
            ).rowcount
            if not inserted:  # a racing creator committed first
                raise RevisionConflict(kind, key, expected, _revision(conn, kind, key))
            revision = 1
        else:
            revision = int(row[0]) + 1
            conn.execute(
                "UPDATE documents SET revision = %s, body = %s, updated_at = %s,"
                " changed = nextval('document_changes') WHERE kind = %s AND key = %s",
                (revision, body, document.updated_at, kind, key),
            )
        told = 0 if body is None else revision
        conn.execute(_NOTIFY, (DOCUMENTS_CHANNEL, f"{origin} {told} {kind} {key}"))
        answers[index] = (kind, key, told)
    return answers


def _revision(conn: psycopg.Connection[Any], kind: str, key: str) -> int:
    row = conn.execute(
        "SELECT revision FROM documents WHERE kind = %s AND key = %s AND body IS NOT NULL",
        (kind, key),
    ).fetchone()
    return 0 if row is None else int(row[0])


def read(conn: psycopg.Connection[Any], kind: str, key: str) -> Document | None:
    row = conn.execute(
        "SELECT key, revision, body, updated_at FROM documents"
        " WHERE kind = %s AND key = %s AND body IS NOT NULL",
        (kind, key),
    ).fetchone()
    return None if row is None else document_from_row(kind, row)


def listing(conn: psycopg.Connection[Any], kind: str, prefix: str) -> list[Document]:
    """Documents of ``kind`` by key from ``prefix`` on, in the key's "C" collation order."""
    end = prefix_end(prefix)
    query = (
        "SELECT key, revision, body, updated_at FROM documents"
        " WHERE kind = %s AND key >= %s AND body IS NOT NULL"
    )
    parameters: tuple[str, ...] = (kind, prefix)
    if end is not None:
        query, parameters = query + " AND key < %s", (*parameters, end)
    rows = conn.execute(query + " ORDER BY key", parameters).fetchall()
    return [document_from_row(kind, row) for row in rows if str(row[0]).startswith(prefix)]


def latest_change(conn: psycopg.Connection[Any]) -> int:
    """The ``changed`` of the latest committed write (0 before any)."""
    row = conn.execute("SELECT coalesce(max(changed), 0) FROM documents").fetchone()
    return 0 if row is None else int(row[0])


def changed_since(conn: psycopg.Connection[Any], mark: int) -> list[tuple[str, str, int]]:
    """``(kind, key, revision)`` of every document written after ``mark`` (0: deleted)."""
    rows = conn.execute(
        "SELECT kind, key, CASE WHEN body IS NULL THEN 0 ELSE revision END FROM documents"
        " WHERE changed > %s ORDER BY changed",
        (mark,),
    ).fetchall()
    return [(str(kind), str(key), int(revision)) for kind, key, revision in rows]
