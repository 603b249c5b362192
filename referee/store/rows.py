"""What the backends share below the interface: rows to values, and the checks of a
document write every backend makes the same way (so they cannot drift apart)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from referee.store.base import (
    CommandOutcome,
    Document,
    DocumentWrite,
    GameRecord,
    SeatClaim,
)

__all__ = [
    "changed",
    "check_claims",
    "check_writes",
    "claim_from_row",
    "decode_body",
    "document_from_row",
    "encode_body",
    "outcome_from_row",
    "prefix_end",
    "record_from_row",
]


def encode_body(body: dict[str, Any]) -> str:
    """A document's body as the JSON text every backend keeps (the memory store too, so a body
    that a SQL store would refuse is refused everywhere, and no caller aliases stored data).

    :class:`ValueError` for a body that is not a JSON object of JSON values; the message
    does not quote the body (it may hold hashes).
    """
    if not isinstance(body, dict):
        raise ValueError(f"a document's body is a dict, not {type(body).__name__}")
    try:
        return json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"a document's body is not JSON ({type(error).__name__})") from None


def decode_body(text: str) -> dict[str, Any]:
    body = json.loads(text)
    assert isinstance(body, dict)
    return body


def check_writes(writes: Iterable[DocumentWrite]) -> list[tuple[DocumentWrite, str | None]]:
    """The writes with their encoded bodies (``None``: a delete), after checking each.

    :class:`ValueError` for two writes of one document (which one would win?), an empty kind
    or key, a kind with a space (the PostgreSQL notification separates fields by spaces), a
    kind over 64 or a key over 1024 characters, or a negative expected revision.
    """
    checked: list[tuple[DocumentWrite, str | None]] = []
    seen: set[tuple[str, str]] = set()
    for write in writes:
        if not write.kind or not write.key or any(c.isspace() for c in write.kind):
            raise ValueError(
                f"a document needs a kind without spaces and a key (kind {write.kind!r})"
            )
        if len(write.kind) > 64 or len(write.key) > 1024:  # a notification holds 8000 bytes
            raise ValueError(f"a document's kind or key is too long (kind {write.kind[:64]!r})")
        if write.expected_revision < 0:
            raise ValueError(f"expected revision must not be negative ({write.kind!r})")
        if (write.kind, write.key) in seen:
            raise ValueError(f"two writes of one document of kind {write.kind!r}")
        seen.add((write.kind, write.key))
        checked.append((write, None if write.body is None else encode_body(write.body)))
    return checked


def changed(written: Sequence[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """What the document listeners hear of a write's ``(kind, key, revision)`` answers: the
    documents written (revision -1 marks a delete of nothing, which wrote nothing)."""
    return [change for change in written if change[2] >= 0]


def check_claims(claims: Sequence[SeatClaim]) -> None:
    """:class:`ValueError` for two claims of one seat among a game's first claims."""
    seats = [claim.seat for claim in claims]
    if len(set(seats)) != len(seats):
        raise ValueError(f"two claims of one seat in {sorted(seats)}")


def prefix_end(prefix: str) -> str | None:
    """The least string above every string starting with ``prefix`` (for a key range in an
    index), or ``None`` when there is none that is easy to name (no prefix, or one ending in
    the last code point or next to the surrogates); the caller then filters in Python.

    >>> prefix_end("ann/")
    'ann0'
    >>> prefix_end("") is None
    True
    """
    if not prefix:
        return None
    last = ord(prefix[-1])
    if last >= 0x10FFFF or 0xD7FF <= last <= 0xDFFF:
        return None
    return prefix[:-1] + chr(last + 1)


def document_from_row(kind: str, row: Sequence[Any]) -> Document:
    """A :class:`Document` from a SQL row of ``key, revision, body, updated_at``."""
    key, revision, body, updated_at = row
    return Document(str(kind), str(key), int(revision), decode_body(body), float(updated_at))


def claim_from_row(row: Sequence[Any]) -> SeatClaim:
    """A :class:`SeatClaim` from a SQL row of ``seat, player, kind, token_hash, claimed_at``."""
    seat, player, kind, token_hash, claimed_at = row
    return SeatClaim(int(seat), str(player), str(kind), str(token_hash), float(claimed_at))


def outcome_from_row(row: Sequence[Any]) -> CommandOutcome:
    """Rebuild a :class:`CommandOutcome` from a SQL row of ``command_id, seat, fingerprint,
    first_sequence, last_sequence, payload, decision_ms`` (the SQL backends' column order)."""
    command_id, seat, fingerprint, first, last, payload, decision_ms = row
    return CommandOutcome(
        str(command_id),
        int(seat),
        str(fingerprint),
        int(first),
        int(last),
        payload=bytes(payload),
        decision_ms=int(decision_ms),
    )


def record_from_row(row: Sequence[Any]) -> GameRecord:
    """Rebuild a :class:`GameRecord` from a SQL row of ``game_id, game_type, players, options,
    seed, deal, token_hashes, created_at, version, finished, settings, organiser_hash`` (JSON
    text in options, token_hashes and settings)."""
    game_id, game_type, players, options, seed, deal, token_hashes, created_at = row[:8]
    settings, organiser_hash = row[10:12]
    return GameRecord(
        game_id=game_id,
        game_type=game_type,
        players=players,
        options=dict(json.loads(options)),
        seed=bytes(seed),
        deal=bytes(deal),
        seat_token_hashes=tuple(json.loads(token_hashes)),
        created_at=float(created_at),
        settings=dict(json.loads(settings)),
        organiser_token_hash=str(organiser_hash),
    )
