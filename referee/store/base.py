"""The event-store interface: an append-only log of opaque events per game.

The referee is event sourced: a game's state is never stored, only the events that built it,
so any state can be rebuilt by folding the log through the game's ``apply``. The store knows
nothing about games or protobuf; events are opaque ``bytes``. It guarantees what the server
cannot check by itself:

* **No gaps, no forks.** Events of a game are numbered 1, 2, 3, ... ``append`` takes the
  version (last sequence) the caller decided against and fails with :class:`VersionConflict`
  when someone else appended first (optimistic concurrency), so two commands can never both be
  applied to the same state.
* **At most once.** An accepted command's outcome is stored in the same transaction as its
  events; a client retrying the same command id gets :class:`DuplicateCommand` carrying the
  first outcome instead of having the command applied twice.
* **Wake-ups.** Listeners hear about every commit, so streams can push new events without
  polling.

Next to the log, a store keeps per-seat counters (error accounting: rejected commands,
disconnects) that are not events, because a refused command changes nothing in the game; the
seats' claims (who holds a seat, claimed once: :class:`SeatTaken` for the second claimant);
and documents: small JSON bodies by ``(kind, key)`` (accounts, ratings, the lobby, challenges)
written by compare-and-set on a per-key revision, so replicas sharing a store cannot both win
a race (:class:`RevisionConflict`).
"""

from __future__ import annotations

import abc
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

__all__ = [
    "CommandOutcome",
    "Document",
    "DocumentListener",
    "DocumentWrite",
    "DuplicateCommand",
    "EventStore",
    "GameExists",
    "GameNotFound",
    "GameRecord",
    "Listener",
    "RevisionConflict",
    "SeatClaim",
    "SeatTaken",
    "StoreError",
    "StoreUnavailable",
    "StoredEvent",
    "VersionConflict",
]

#: Default of how long a store call waits for the database (a pooled connection, SQLite's
#: write lock) before it fails with :class:`StoreUnavailable`: well under a client's
#: deadline, so a fault is answered with a retry hint instead of a timeout.
DEFAULT_WAIT = 2.0

_log = logging.getLogger(__name__)

#: Called as ``listener(game_id, version)`` after a commit; see :meth:`EventStore.add_listener`.
Listener = Callable[[str, int], None]

#: Called as ``listener(kind, key, revision)`` after a commit that wrote the document (revision
#: 0: deleted); see :meth:`EventStore.add_document_listener`.
DocumentListener = Callable[[str, str, int], None]


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What a game was created with; written once, never changed.

    ``seed`` and ``deal`` decide the hidden cards, so they are left out of ``repr`` to keep them
    out of logs and tracebacks. Only hashes of the seat tokens are kept, so a leaked database
    does not let anyone play as a seat.
    """

    game_id: str
    game_type: str
    players: int
    options: dict[str, str]
    #: Secret seed of the game's randomness; never shown to clients.
    seed: bytes = field(repr=False)
    #: Opaque serialized fixed deal, ``b""`` when the deal comes from the seed.
    deal: bytes = field(repr=False)
    #: SHA-256 hex digest of each seat's secret token, indexed by seat.
    seat_token_hashes: tuple[str, ...]
    #: Unix time of creation, set by the caller (the store reads no clock).
    created_at: float
    #: Table settings chosen at creation (clock, organiser delay, ...): JSON-compatible values.
    settings: dict[str, Any] = field(default_factory=dict)
    #: SHA-256 hex digest of the organiser's token; ``""`` when the game has none.
    organiser_token_hash: str = ""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event of a game's log."""

    game_id: str
    #: 1, 2, 3, ... per game, without gaps.
    sequence: int
    #: Opaque serialized event (a protobuf message for the server).
    payload: bytes


@dataclass(frozen=True, slots=True)
class CommandOutcome:
    """The result of an accepted command, stored atomically with the events it appended.

    ``first_sequence..last_sequence`` (inclusive) are the events the command produced; a command
    that produced no event has ``last_sequence == first_sequence - 1``.
    """

    command_id: str
    seat: int
    #: Hash of the command payload, so a command id reused for another command can be told
    #: apart from a genuine retry (the store does not compare it; the caller does).
    fingerprint: str
    first_sequence: int
    last_sequence: int
    #: The command as sent (opaque bytes: a serialized ``referee.v1.Command`` for the server),
    #: so the game can be re-checked from its log (``docs/fairness.md``).
    payload: bytes = field(default=b"", repr=False)
    #: How long the seat took to decide, in milliseconds, measured by the caller.
    decision_ms: int = 0


@dataclass(frozen=True, slots=True)
class SeatClaim:
    """Who holds a seat of a game that was not dealt to a token holder: claimed once, never
    released (a seat given up is resigned in the game's log, not unclaimed here)."""

    seat: int
    #: The player's name; ``""`` when claimed anonymously (a claim code, no credential).
    player: str
    #: ``"person"``, ``"bot"`` or ``""`` (not said).
    kind: str
    #: SHA-256 hex digest of the seat token handed to the claimant; ``""`` when the seat is
    #: used only with the player's credential (seats a challenge or a pairing claimed).
    token_hash: str
    #: Unix time of the claim, set by the caller (the store reads no clock).
    claimed_at: float


@dataclass(frozen=True, slots=True)
class Document:
    """A small JSON document the application keeps next to the games (an account, a rating,
    a lobby entry, a challenge), read and written as a whole."""

    kind: str
    key: str
    #: 1, 2, 3, ... per ``(kind, key)``; every write moves it on, a delete too, so a revision
    #: read once is never current again (a document deleted and created anew continues the
    #: count, and a writer holding a revision read before the delete cannot overwrite it).
    revision: int
    #: JSON-compatible values (the store keeps them as JSON text).
    body: dict[str, Any] = field(repr=False)
    #: Unix time of the write, set by the caller.
    updated_at: float


@dataclass(frozen=True, slots=True)
class DocumentWrite:
    """One compare-and-set of :meth:`EventStore.write_documents`."""

    kind: str
    key: str
    #: The new body; ``None`` deletes the document.
    body: dict[str, Any] | None = field(repr=False)
    #: The revision the writer read; 0: the document must not exist.
    expected_revision: int
    #: Unix time of the write, set by the caller.
    updated_at: float = 0.0


class StoreError(Exception):
    """Base class of the errors the event store raises on purpose."""


class StoreUnavailable(StoreError):
    """The store cannot serve the call now (the database restarted, is unreachable, locked by
    another process, or full); retry after about ``retry_after`` seconds.

    ``uncertain`` is true for a write whose connection was lost after it was sent: it may have
    committed. A command's append is then resolved by retrying the same command id (the
    store refuses a recorded id with :class:`DuplicateCommand`, carrying the first outcome).
    The message names the fault, never a payload.
    """

    def __init__(self, message: str, *, retry_after: float = 1.0, uncertain: bool = False) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.uncertain = uncertain


class VersionConflict(StoreError):
    """The game moved on since the caller read it: ``actual`` is not ``expected``.

    The caller should reload the events after ``expected``, decide again and retry.
    """

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        super().__init__(f"game {game_id!r} is at version {actual}, expected {expected}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


class GameExists(StoreError):
    """A game with this id was created already."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} exists already")
        self.game_id = game_id


class GameNotFound(StoreError):
    """No game has this id."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} not found")
        self.game_id = game_id


class SeatTaken(StoreError):
    """The seat has a claim already; nothing was written."""

    def __init__(self, game_id: str, seat: int) -> None:
        super().__init__(f"seat {seat} of game {game_id!r} is claimed already")
        self.game_id = game_id
        self.seat = seat


class RevisionConflict(StoreError):
    """A document is not at the revision its writer read (0: it exists, or was expected to);
    nothing of the write was written. Reread, decide again, retry.

    The message names the kind but not the key, because some keys are credentials' hashes
    (``account_token``), which have no place in a log line.
    """

    def __init__(self, kind: str, key: str, expected: int, actual: int) -> None:
        super().__init__(
            f"a document of kind {kind!r} is at revision {actual}, expected {expected}"
        )
        self.kind = kind
        self.key = key
        self.expected = expected
        self.actual = actual


class DuplicateCommand(StoreError):
    """The command id was recorded already for this game; nothing was appended.

    ``outcome`` is the outcome recorded the first time: answer a retry with it. If its
    ``fingerprint`` differs from the new command's, the id was reused for another command.
    """

    def __init__(self, game_id: str, outcome: CommandOutcome) -> None:
        super().__init__(f"command {outcome.command_id!r} of game {game_id!r} was recorded already")
        self.game_id = game_id
        self.outcome = outcome


class EventStore(abc.ABC):
    """An append-only, per-game event log with optimistic concurrency; safe to share by threads.

    Backends implement the abstract methods; listener bookkeeping lives here so every backend
    notifies the same way. Stores are context managers that :meth:`close` on exit.
    """

    #: True when other processes may append to the same games (a networked store): a reader
    #: must then expect commits it did not make, announced only through the listeners.
    shared: bool = False

    def __init__(self) -> None:
        self._listeners: dict[int, Listener] = {}
        self._document_listeners: dict[int, DocumentListener] = {}
        self._listeners_lock = threading.Lock()
        self._next_listener = 0

    # -- writing ---------------------------------------------------------------------------

    @abc.abstractmethod
    def create_game(
        self,
        record: GameRecord,
        events: Sequence[bytes],
        documents: Sequence[DocumentWrite] = (),
        claims: Sequence[SeatClaim] = (),
    ) -> None:
        """Store ``record``, the opening ``events`` (sequences 1..n), the seats already
        ``claims``-ed (a creator's own seats) and the ``documents`` in one transaction.

        Raises :class:`GameExists` when ``record.game_id`` is taken, then
        :class:`RevisionConflict` (see :meth:`write_documents`); nothing is written then.
        Listeners are then called with ``(game_id, len(events))``, document listeners for
        each document. :class:`ValueError` for two claims of one seat or two writes of one
        document.
        """

    @abc.abstractmethod
    def claim_seat(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        claim: SeatClaim,
        documents: Sequence[DocumentWrite] = (),
    ) -> int:
        """Record ``claim``, append ``events`` (sequences ``expected_version + 1, ...``) and
        write ``documents`` in one transaction; return the game's new version.

        Checked in this order, nothing written on any error: :class:`GameNotFound`,
        :class:`SeatTaken` (the seat has a claim: of two racing claimants exactly one wins),
        :class:`VersionConflict`, :class:`RevisionConflict`. Game listeners are called after
        (even with no events: the seat's holder changed), then document listeners. Its own
        transaction, never grouped with appends: claims are rare.
        """

    @abc.abstractmethod
    def seat_claims(self, game_id: str) -> dict[int, SeatClaim]:
        """Every claim of the game by seat; :class:`GameNotFound`."""

    @abc.abstractmethod
    def read_document(self, kind: str, key: str) -> Document | None:
        """The document, or ``None`` when it does not exist (or was deleted)."""

    @abc.abstractmethod
    def documents(self, kind: str, prefix: str = "") -> list[Document]:
        """Every document of ``kind`` whose key starts with ``prefix``, by key (code point
        order, the same in every backend)."""

    @abc.abstractmethod
    def write_documents(self, writes: Sequence[DocumentWrite]) -> list[int]:
        """Write every one of ``writes`` if each document is at its ``expected_revision`` (0:
        it does not exist), all in one transaction; return the new revisions in order (0 for
        a delete).

        :class:`RevisionConflict` for the first that is not, and then nothing is written.
        A delete of a document that does not exist (``body=None``, ``expected_revision=0``)
        checks that it does not and writes nothing. Document listeners are called after the
        commit with each written document. After an ``uncertain`` :class:`StoreUnavailable`
        the write may have committed: reread before deciding again (a retry at the revisions
        read before is refused with :class:`RevisionConflict` if it did). :class:`ValueError`
        for two writes of one document, an empty kind or key, a kind with a space, a kind over
        64 or a key over 1024 characters, or a body that is not JSON.
        """

    @abc.abstractmethod
    def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        outcome: CommandOutcome | None = None,
    ) -> int:
        """Append ``events`` as sequences ``expected_version + 1, ...``; return the new version.

        Everything happens in one transaction, checked in this order:

        1. :class:`GameNotFound` if the game does not exist;
        2. :class:`DuplicateCommand` if ``outcome`` is given and its ``command_id`` was
           recorded for this game already (checked before the version, because a retry
           usually carries a stale version);
        3. :class:`VersionConflict` if the game's version is not ``expected_version``.

        ``outcome``, when given, must cover exactly the appended events
        (``first_sequence == expected_version + 1``, ``last_sequence == expected_version +
        len(events)``), else :class:`ValueError`. On any error nothing is written.
        """

    def append_soon(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        outcome: CommandOutcome | None = None,
    ) -> Future[int]:
        """:meth:`append` without waiting for it: the future ends with the new version or the
        :class:`StoreError` that ``append`` would raise (a :class:`ValueError` for a mismatched
        ``outcome`` and the closed store's :class:`RuntimeError` are raised at once).

        The durable backends queue it for their writer thread, which commits the appends that
        arrive together (from many games) in one transaction, so callers that do not wait for
        one another share one commit (:mod:`referee.store.group`). This default appends now,
        in the calling thread.
        """
        future: Future[int] = Future()
        try:
            future.set_result(self.append(game_id, expected_version, events, outcome))
        except StoreError as error:
            future.set_exception(error)
        return future

    @abc.abstractmethod
    def set_finished(self, game_id: str, finished: bool = True) -> None:
        """Mark the game finished (or not); :class:`GameNotFound`. Listeners are not called."""

    # -- reading ---------------------------------------------------------------------------

    @abc.abstractmethod
    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events with ``sequence > after`` in ascending order, at most ``limit`` of them.

        :class:`GameNotFound`; :class:`ValueError` for a negative ``limit``.
        """

    @abc.abstractmethod
    def version(self, game_id: str) -> int:
        """The game's last sequence (0 before any event); :class:`GameNotFound`."""

    @abc.abstractmethod
    def get_game(self, game_id: str) -> GameRecord:
        """The record the game was created with; :class:`GameNotFound`."""

    @abc.abstractmethod
    def list_games(self) -> list[tuple[GameRecord, int, bool]]:
        """Every game as ``(record, version, finished)``, oldest ``created_at`` first.

        Games created at the same time keep their creation order.
        """

    @abc.abstractmethod
    def find_command(self, game_id: str, command_id: str) -> CommandOutcome | None:
        """The recorded outcome of ``command_id`` in the game, if any; :class:`GameNotFound`."""

    @abc.abstractmethod
    def commands(self, game_id: str) -> list[CommandOutcome]:
        """Every recorded command of the game, by ``first_sequence``; :class:`GameNotFound`."""

    # -- per-seat counters -----------------------------------------------------------------

    @abc.abstractmethod
    def add_stats(self, game_id: str, seat: int, counts: Mapping[str, int]) -> None:
        """Add each ``counts[name]`` to the seat's counter ``name`` (missing counters start at
        0) in one transaction; :class:`GameNotFound`. Listeners are not called."""

    @abc.abstractmethod
    def stats(self, game_id: str) -> dict[int, dict[str, int]]:
        """Every counter of the game: ``{seat: {name: value}}`` (seats with none are left out);
        :class:`GameNotFound`."""

    # -- lifecycle -------------------------------------------------------------------------

    @abc.abstractmethod
    def close(self) -> None:
        """Release the store's resources; idempotent. Later calls raise :class:`RuntimeError`."""

    def __enter__(self) -> EventStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- listeners -------------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(game_id, version)`` after every successful commit; return unsubscribe.

        A commit is a :meth:`create_game` or an :meth:`append`; ``version`` is the game's last
        sequence right after it. The in-process backends call listeners synchronously **in the
        committing thread (the writer thread for a durable store's appends), after the commit
        and outside any store lock**, and before the append is answered, so a listener may
        read the store. A networked backend (e.g. PostgreSQL ``LISTEN/NOTIFY``) would call them from
        its notification thread instead, also for commits made by other processes. Either way a
        listener must be quick and thread-safe (typically it just wakes waiters, e.g. via
        ``loop.call_soon_threadsafe``), and it must not rely on seeing versions in order:
        concurrent commits may notify out of order, so treat the version as "at least this"
        and read the store. An exception from a listener is logged and swallowed, because the
        commit has happened and must not look failed to the caller.

        The returned function removes this subscription; calling it again does nothing.
        """
        with self._listeners_lock:
            token = self._next_listener
            self._next_listener += 1
            self._listeners[token] = listener

        def unsubscribe() -> None:
            with self._listeners_lock:
                self._listeners.pop(token, None)

        return unsubscribe

    def add_document_listener(self, listener: DocumentListener) -> Callable[[], None]:
        """Call ``listener(kind, key, revision)`` after every commit that wrote the document
        (``revision`` 0: deleted); return unsubscribe.

        As :meth:`add_listener`: called in the committing thread, after the commit and with no
        store lock held; a networked store also calls it from its notification thread for
        other processes' writes (PostgreSQL: the ``referee_documents`` channel). Treat it as
        a wake-up and read the document: revisions may be heard out of order, and more than
        once (after a networked store's notification connection was lost, it announces what
        changed meanwhile).
        """
        with self._listeners_lock:
            token = self._next_listener
            self._next_listener += 1
            self._document_listeners[token] = listener

        def unsubscribe() -> None:
            with self._listeners_lock:
                self._document_listeners.pop(token, None)

        return unsubscribe

    def _notify_documents(self, written: Sequence[tuple[str, str, int]]) -> None:
        """Call every document listener for each ``(kind, key, revision)``; with no lock held.
        Only the kind is logged for a failing listener: a key may be a credential's hash."""
        if not written:
            return
        with self._listeners_lock:
            listeners = list(self._document_listeners.values())
        for kind, key, revision in written:
            for listener in listeners:
                try:
                    listener(kind, key, revision)
                except Exception:
                    _log.exception("document listener %r failed for kind %r", listener, kind)

    def _notify(self, game_id: str, version: int) -> None:
        """Call every listener; backends call this after committing, with no lock held."""
        with self._listeners_lock:
            listeners = list(self._listeners.values())
        for listener in listeners:
            try:
                listener(game_id, version)
            except Exception:
                _log.exception("event store listener %r failed for game %r", listener, game_id)


def check_outcome(expected_version: int, count: int, outcome: CommandOutcome | None) -> None:
    """Raise :class:`ValueError` unless ``outcome`` covers exactly the events being appended.

    Shared by the backends: a mismatched outcome would make a retry answer with wrong events.
    """
    if outcome is None:
        return
    first, last = expected_version + 1, expected_version + count
    if (outcome.first_sequence, outcome.last_sequence) != (first, last):
        raise ValueError(
            f"outcome of command {outcome.command_id!r} covers sequences "
            f"{outcome.first_sequence}..{outcome.last_sequence}, but the append writes "
            f"{first}..{last}"
        )


def check_limit(limit: int | None) -> None:
    """Raise :class:`ValueError` for a negative read limit."""
    if limit is not None and limit < 0:
        raise ValueError(f"limit must not be negative, got {limit}")
