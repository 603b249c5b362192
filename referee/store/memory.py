"""An in-memory event store: for tests, demos and throw-away servers (lost on exit).

A game's creation events (its opening batch: the deal's openings, with their salts and Merkle
paths, about 15 KB in Vampire Queen and most of a new game's log) are kept together,
compressed; a long event appended later, as :data:`PACK_BYTES` says; reads give back the
bytes written.
"""

from __future__ import annotations

import json
import threading
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.store.base import (
    CommandOutcome,
    Document,
    DocumentWrite,
    DuplicateCommand,
    EventStore,
    GameExists,
    GameNotFound,
    GameRecord,
    RevisionConflict,
    SeatClaim,
    SeatTaken,
    StoredEvent,
    VersionConflict,
    check_limit,
    check_outcome,
)
from referee.store.rows import changed as _changed
from referee.store.rows import check_claims, check_writes, decode_body

__all__ = ["PACK_BYTES", "MemoryEventStore"]

#: A payload at least this long is kept zlib-compressed (when that is shorter): the Merkle
#: paths of a deal's openings repeat the tree's upper nodes, so they compress to about 40 %,
#: while a move's events, much shorter, are kept as they are (no work on the hot path).
PACK_BYTES = 1024


class _Packed(bytes):
    """A payload as :func:`_pack` compressed it."""

    __slots__ = ()


def _pack(payload: bytes) -> bytes:
    if len(payload) < PACK_BYTES:
        return payload
    packed = zlib.compress(payload, 1)
    return _Packed(packed) if len(packed) < len(payload) else payload


def _unpack(payload: bytes) -> bytes:
    return zlib.decompress(payload) if type(payload) is _Packed else payload


def _pack_batch(payloads: Sequence[bytes]) -> bytes:
    """A batch's payloads in one zlib-compressed bytes object, each after its length (4
    bytes): a bytes object an event took 33 bytes besides its own, and short events
    compressed together shrink too (the deal's small events beside its openings)."""
    if not payloads:
        return b""
    return zlib.compress(b"".join(len(p).to_bytes(4, "big") + p for p in payloads), 9)


def _unpack_batch(packed: bytes) -> list[bytes]:
    data = zlib.decompress(packed)
    out, at = [], 0
    while at < len(data):
        size = int.from_bytes(data[at : at + 4], "big")
        out.append(data[at + 4 : at + 4 + size])
        at += 4 + size
    return out


#: What a record's ``made_with`` most often says besides its random parts and its game's
#: options (the referee's settings as it writes them, for every game alike), zlib's preset
#: dictionary for them: the settings then compress to little more than their salt. Any bytes
#: would do (only the size changes); the same for the store's life, being a constant.
_MADE_WITH_HINT = (
    b'{"clock":{"decision_ms":0,'
    b'"bank_ms":0,"forfeit_after_timeouts":0},"organiser_delay_events":0,'
    b'"organiser_delay_ms":0,"defer_seed_reveal":false,"public_reveal":false,'
    b'"public_seed":false,"card_commitments":true,"max_events":null,"seats":[],'
    b'"listed":false,"join_deadline_ms":600000,"connect_grace_ms":30000,"rated":false,'
    b'"organiser_audit":false,"ranking":"","no_show":"","hide_reservations":false,'
    b'"commitment_salt":"'
)


def _pack_made_with(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zdict=_MADE_WITH_HINT)
    return packer.compress(data) + packer.flush()


def _unpack_made_with(packed: bytes) -> bytes:
    unpacker = zlib.decompressobj(zdict=_MADE_WITH_HINT)
    return unpacker.decompress(packed) + unpacker.flush()


#: A record's fields in ``made_with``, in order (:meth:`_Game.of`).
_MADE_WITH = (
    "game_type",
    "players",
    "options",
    "seed",
    "deal",
    "seat_token_hashes",
    "created_at",
    "settings",
    "organiser_token_hash",
)


@dataclass(slots=True)
class _Game:
    game_id: str
    #: The rest of its record, as JSON (:data:`_MADE_WITH`), compressed
    #: (:func:`_pack_made_with`: about 350 bytes where the record, its two dicts and its
    #: token hashes as hex strings took 1.4 KB; read back on a load or a listing only).
    made_with: bytes
    #: The events the game was created with (its opening batch: in Vampire Queen the deal,
    #: about 15 KB of openings and seven short events), the log's first ``opened``, packed
    #: together (:func:`_pack_batch`).
    opening: bytes
    opened: int
    #: The events after them, each as :func:`_pack` keeps it (None before the first: a new
    #: game has none).
    events: list[bytes] | None
    finished: bool = False
    #: The accepted commands, the seats' counters and claims: None until the first (most
    #: games of a server hold no claim, and a new game has neither commands nor counters).
    commands: dict[str, CommandOutcome] | None = None
    stats: dict[int, dict[str, int]] | None = None
    claims: dict[int, SeatClaim] | None = None

    @classmethod
    def of(cls, record: GameRecord, events: Sequence[bytes], claims: Sequence[SeatClaim]) -> _Game:
        fields = [getattr(record, name) for name in _MADE_WITH]
        fields[3], fields[4] = record.seed.hex(), record.deal.hex()
        made_with = json.dumps(fields, separators=(",", ":"))
        return cls(
            record.game_id,
            _pack_made_with(made_with.encode()),
            _pack_batch(events),
            len(events),
            None,
            claims={c.seat: c for c in claims} or None,
        )

    @property
    def version(self) -> int:
        return self.opened + (0 if self.events is None else len(self.events))

    def extend(self, payloads: list[bytes]) -> None:
        """Add the events of an append (``payloads``, a list of the caller's own)."""
        if self.events is None:
            self.events = payloads
        else:
            self.events.extend(payloads)

    def payloads(self, start: int, stop: int) -> list[bytes]:
        """The payloads of the log's events ``start`` to ``stop`` (from 0, ``stop`` left
        out), as they were written."""
        opened = self.opened
        first = _unpack_batch(self.opening)[start:stop] if start < opened else []
        rest = (self.events or [])[max(0, start - opened) : max(0, stop - opened)]
        return first + [_unpack(payload) for payload in rest]

    def full_record(self) -> GameRecord:
        """The record as it was written, with ``options`` and ``settings`` of its own (so
        callers cannot change stored data by aliasing)."""
        fields = dict(zip(_MADE_WITH, json.loads(_unpack_made_with(self.made_with)), strict=True))
        return GameRecord(
            game_id=self.game_id,
            game_type=fields["game_type"],
            players=fields["players"],
            options=fields["options"],
            seed=bytes.fromhex(fields["seed"]),
            deal=bytes.fromhex(fields["deal"]),
            seat_token_hashes=tuple(fields["seat_token_hashes"]),
            created_at=fields["created_at"],
            settings=fields["settings"],
            organiser_token_hash=fields["organiser_token_hash"],
        )


@dataclass(slots=True)
class _Document:
    """A stored document; ``body`` ``None`` once deleted (kept, so the revision count goes on
    when the key is written again)."""

    revision: int
    body: str | None
    updated_at: float


class MemoryEventStore(EventStore):
    """Dicts behind one :class:`threading.Lock`; every method is atomic.

    Each write checks everything before changing anything, which makes it all-or-nothing
    without a rollback. Listeners run after the lock is released.
    """

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._games: dict[str, _Game] = {}  # insertion order = creation order
        self._documents: dict[tuple[str, str], _Document] = {}
        self._closed = False

    def _open(self) -> None:
        """The closed check every method makes (with the lock held)."""
        if self._closed:
            raise RuntimeError("event store is closed")

    def _game(self, game_id: str) -> _Game:
        """The game, with the lock held; also the closed check every method needs."""
        self._open()
        try:
            return self._games[game_id]
        except KeyError:
            raise GameNotFound(game_id) from None

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
        with self._lock:
            if self._closed:
                raise RuntimeError("event store is closed")
            if record.game_id in self._games:
                raise GameExists(record.game_id)
            written = self._write(writes)
            game = _Game.of(record, payloads, claims)
            self._games[record.game_id] = game
        self._notify(record.game_id, len(payloads))
        self._notify_documents(_changed(written))

    def claim_seat(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        claim: SeatClaim,
        documents: Sequence[DocumentWrite] = (),
    ) -> int:
        payloads = [_pack(bytes(event)) for event in events]
        writes = check_writes(documents)
        with self._lock:
            game = self._game(game_id)
            if game.claims is not None and claim.seat in game.claims:
                raise SeatTaken(game_id, claim.seat)
            if game.version != expected_version:
                raise VersionConflict(game_id, expected_version, game.version)
            written = self._write(writes)  # checks every revision before changing anything
            if game.claims is None:
                game.claims = {}
            game.claims[claim.seat] = claim
            game.extend(payloads)
            version = game.version
        self._notify(game_id, version)
        self._notify_documents(_changed(written))
        return version

    def seat_claims(self, game_id: str) -> dict[int, SeatClaim]:
        with self._lock:
            return dict(sorted((self._game(game_id).claims or {}).items()))

    def _write(
        self, writes: Sequence[tuple[DocumentWrite, str | None]]
    ) -> list[tuple[str, str, int]]:
        """Compare every write, then set them all (the lock held): all or nothing."""
        for write, _ in writes:
            found = self._documents.get((write.kind, write.key))
            actual = 0 if found is None or found.body is None else found.revision
            if actual != write.expected_revision:
                raise RevisionConflict(write.kind, write.key, write.expected_revision, actual)
        written: list[tuple[str, str, int]] = []
        for write, body in writes:
            found = self._documents.get((write.kind, write.key))
            if body is None and (found is None or found.body is None):
                written.append((write.kind, write.key, -1))  # a delete of nothing: no write
                continue
            revision = (0 if found is None else found.revision) + 1
            self._documents[write.kind, write.key] = _Document(revision, body, write.updated_at)
            written.append((write.kind, write.key, 0 if body is None else revision))
        return written

    def read_document(self, kind: str, key: str) -> Document | None:
        with self._lock:
            self._open()
            found = self._documents.get((kind, key))
            if found is None or found.body is None:
                return None
            return Document(kind, key, found.revision, decode_body(found.body), found.updated_at)

    def documents(self, kind: str, prefix: str = "") -> list[Document]:
        with self._lock:
            self._open()
            found = [
                (key, document)
                for (of_kind, key), document in self._documents.items()
                if of_kind == kind and key.startswith(prefix) and document.body is not None
            ]
        return [
            Document(kind, key, doc.revision, decode_body(doc.body), doc.updated_at)
            for key, doc in sorted(found, key=lambda item: item[0])
            if doc.body is not None
        ]

    def write_documents(self, writes: Sequence[DocumentWrite]) -> list[int]:
        checked = check_writes(writes)
        with self._lock:
            self._open()
            written = self._write(checked)
        self._notify_documents(_changed(written))
        return [max(revision, 0) for _, _, revision in written]

    def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        outcome: CommandOutcome | None = None,
    ) -> int:
        payloads = [_pack(bytes(event)) for event in events]
        check_outcome(expected_version, len(payloads), outcome)
        with self._lock:
            game = self._game(game_id)
            commands = game.commands
            first = (
                None if outcome is None or commands is None else commands.get(outcome.command_id)
            )
            if first is not None:
                raise DuplicateCommand(game_id, first)
            if game.version != expected_version:
                raise VersionConflict(game_id, expected_version, game.version)
            game.extend(payloads)
            if outcome is not None:
                if commands is None:
                    commands = game.commands = {}
                commands[outcome.command_id] = outcome
            version = game.version
        self._notify(game_id, version)
        return version

    def set_finished(self, game_id: str, finished: bool = True) -> None:
        with self._lock:
            self._game(game_id).finished = finished

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        check_limit(limit)
        with self._lock:
            game = self._game(game_id)
            start = max(after, 0)
            stop = game.version if limit is None else start + limit
            payloads = game.payloads(start, stop)
        return [
            StoredEvent(game_id, sequence, payload)
            for sequence, payload in enumerate(payloads, start + 1)
        ]

    def version(self, game_id: str) -> int:
        with self._lock:
            return self._game(game_id).version

    def get_game(self, game_id: str) -> GameRecord:
        with self._lock:
            return self._game(game_id).full_record()

    def list_games(self) -> list[tuple[GameRecord, int, bool]]:
        with self._lock:
            if self._closed:
                raise RuntimeError("event store is closed")
            games = [(g.full_record(), g.version, g.finished) for g in self._games.values()]
        # sorted() is stable: games created at the same time keep their creation order.
        return sorted(games, key=lambda game: game[0].created_at)

    def find_command(self, game_id: str, command_id: str) -> CommandOutcome | None:
        with self._lock:
            commands = self._game(game_id).commands
            return None if commands is None else commands.get(command_id)

    def commands(self, game_id: str) -> list[CommandOutcome]:
        with self._lock:
            recorded = list((self._game(game_id).commands or {}).values())
        return sorted(recorded, key=lambda outcome: outcome.first_sequence)

    def add_stats(self, game_id: str, seat: int, counts: Mapping[str, int]) -> None:
        with self._lock:
            game = self._game(game_id)
            if game.stats is None:
                game.stats = {}
            counters = game.stats.setdefault(seat, {})
            for name, amount in counts.items():
                counters[name] = counters.get(name, 0) + amount

    def stats(self, game_id: str) -> dict[int, dict[str, int]]:
        with self._lock:
            stats = self._game(game_id).stats or {}
            return {seat: dict(c) for seat, c in stats.items()}

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._games.clear()
            self._documents.clear()
