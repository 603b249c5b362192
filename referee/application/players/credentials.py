"""Account tokens: checked against the store, trusted a short while, revoked on every replica.

An account token is checked by its SHA-256 (the ``account_token`` index, then the account's
own record of the hash, compared in constant time). A checked token is then trusted without
reading the store again, but only while nothing was revoked: every revocation or rotation of
any account token (``referee account revoke|rotate``, RotateToken) moves on one document,
:data:`CHANGES`, in the same transaction. Each replica reads that document's revision at most
:data:`RECHECK_SECONDS` apart (and at once when the store announces a write of it, as
PostgreSQL does across replicas), and forgets every trusted token when it moved. So a revoked
token is refused everywhere within :data:`RECHECK_SECONDS` plus one read of the store, also
when it was revoked by another process (the operator's command on a SQLite file) whose writes
no notification announces.

Streams opened with an account token (a player session, a game stream with the player's
credential) are **held** here (:meth:`Credentials.hold`): when the revision moved, every held
token is checked again, and the streams of one that no longer signs in are ended with
UNAUTHENTICATED ``CREDENTIAL_REVOKED``, within the same bound.

Nothing here logs or quotes a token or its hash.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import structlog

from referee.application.tables import errors
from referee.application.tables.access import Player
from referee.application.tables.errors import RefereeError
from referee.application.tables.repository import Repository
from referee.store import Document, DocumentWrite, StoreError

log = structlog.get_logger("referee")

#: Document kinds (DESIGN: "Documents"): an account by name, and by its token's hash (a
#: revoked token's entry stays, marked ``revoked_ms``, so its refusal can say so).
ACCOUNT, ACCOUNT_TOKEN = "account", "account_token"
#: The document whose revision moves on with every revocation or rotation: ``(kind, key)``.
CHANGES = ("account_tokens", "changed")
#: Longest time a replica goes without reading :data:`CHANGES`: the bound within which a
#: revoked token is refused, and the streams it opened end, on every replica.
RECHECK_SECONDS = 2.0
#: Account tokens trusted at most (least recently used forgotten first).
MAX_TRUSTED = 10_000

#: Ends the streams opened with one token, with the refusal.
End = Callable[[RefereeError], None]


def revoked() -> RefereeError:
    """UNAUTHENTICATED ``CREDENTIAL_REVOKED``: the token signed in once, no more."""
    return errors.unauthenticated(
        "CREDENTIAL_REVOKED",
        "this account token was revoked or replaced by a new one (referee account "
        "revoke/rotate, RotateToken): sign in with the account's current token",
    )


def invalid() -> RefereeError:
    return errors.unauthenticated(
        "CREDENTIAL_INVALID", "the credential is not the token of an account here"
    )


def changed(found: Document | None) -> DocumentWrite:
    """The write that moves :data:`CHANGES` on (``found``: the document as read, if any), for
    the transaction that revokes or replaces a token."""
    kind, key = CHANGES
    body: dict[str, Any] = {"changed_ms": int(time.time() * 1000)}
    return DocumentWrite(kind, key, body, found.revision if found else 0, time.time())


class Credentials:
    """The account tokens of ``repository``'s store as this process trusts them
    (``Referee.players.credentials``); :meth:`start` inside the event loop, :meth:`close`
    at the end."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        #: Tokens checked since :data:`CHANGES` was last seen to move: ``{hash: player}``.
        self._trusted: OrderedDict[str, Player] = OrderedDict()
        #: The revision of :data:`CHANGES` last read (``None``: not read yet) and when
        #: (``time.monotonic``).
        self._revision: int | None = None
        self._read_at = 0.0
        self._reading: asyncio.Future[int] | None = None
        #: How many writes of :data:`CHANGES` this process was told of (:meth:`moved`): a
        #: read begun before one is not taken as fresh.
        self._moves = 0
        #: Streams opened with each token: ``{hash: {hold id: end}}``.
        self._held: dict[str, dict[int, End]] = {}
        self._ids = itertools.count()
        #: Held tokens to check again (all of them after a move; a new hold's if its token
        #: was not checked at the revision known now).
        self._suspects: set[str] = set()
        self._wake: asyncio.Event | None = None
        self._watching: asyncio.Future[None] | None = None
        self._stop_listening: Callable[[], None] = lambda: None

    # --- checking ----------------------------------------------------------------------------

    async def player(self, digest: str) -> Player:
        """The account whose token hashes to ``digest``: UNAUTHENTICATED
        ``CREDENTIAL_INVALID`` (no account's), ``CREDENTIAL_REVOKED``."""
        revision = await self._current()
        trusted = self._trusted.get(digest)
        if trusted is not None:
            self._trusted.move_to_end(digest)
            return trusted
        player = await self._read(digest)
        if self._revision == revision:  # else it may have been revoked since it was read
            self._trusted[digest] = player
            while len(self._trusted) > MAX_TRUSTED:
                self._trusted.popitem(last=False)
        return player

    async def _read(self, digest: str) -> Player:
        call, store = self.repository.call, self.repository.store
        # The hash is looked up (it reveals nothing about the token); the account's own
        # record of it is then compared in constant time, so a forged index entry cannot
        # sign anyone in.
        index = await call(store.read_document, ACCOUNT_TOKEN, digest)
        if index is not None and index.body.get("revoked_ms"):
            raise revoked()
        name = index.body.get("name") if index is not None else None
        account = await call(store.read_document, ACCOUNT, name) if isinstance(name, str) else None
        expected = str(account.body.get("token_hash", "")) if account is not None else ""
        if account is None or not hmac.compare_digest(expected.encode(), digest.encode()):
            raise invalid()
        body = account.body
        return Player(account.key, str(body.get("kind", "")), int(body.get("created_ms", 0)))

    async def _current(self) -> int:
        """The revision of :data:`CHANGES`, read again when the last read is older than
        :data:`RECHECK_SECONDS` or began before a write of it was announced (one read at a
        time, shared by every caller)."""
        while self._revision is None or time.monotonic() - self._read_at >= RECHECK_SECONDS:
            await self._refresh()
        return self._revision

    async def _refresh(self) -> int:
        reading = self._reading
        if reading is None or reading.done():
            reading = self._reading = asyncio.ensure_future(self._read_revision())
            reading.add_done_callback(_seen)
        return await asyncio.shield(reading)

    async def _read_revision(self) -> int:
        started, moves = time.monotonic(), self._moves
        kind, key = CHANGES
        found = await self.repository.call(self.repository.store.read_document, kind, key)
        revision = found.revision if found is not None else 0
        if self._revision is not None and revision != self._revision:
            self._trusted.clear()
            self._suspects.update(self._held)
            if self._wake is not None:
                self._wake.set()  # the watch checks the held tokens again
        self._revision = revision
        if moves == self._moves:  # else a write may have come after this read: read again
            self._read_at = started
        return revision

    # --- streams ------------------------------------------------------------------------------

    def hold(self, digest: str, end: End) -> Callable[[], None]:
        """A stream opened with the token of ``digest``: ``end(refusal)`` is called if the
        token is revoked while it is open. Returns what to call when the stream ends."""
        hold_id = next(self._ids)
        self._held.setdefault(digest, {})[hold_id] = end
        if digest not in self._trusted:
            # Checked at a revision older than the one known now (or never here): check it
            # again, so a revocation between its check and this hold is not missed.
            self._suspects.add(digest)
            if self._wake is not None:
                self._wake.set()

        def release() -> None:
            ends = self._held.get(digest)
            if ends is not None:
                ends.pop(hold_id, None)
                if not ends:
                    del self._held[digest]

        return release

    def moved(self) -> None:
        """:data:`CHANGES` was written (here, or announced by the store): trust no token
        before reading it again, and check the held ones."""
        self._moves += 1
        self._read_at = -RECHECK_SECONDS
        if self._wake is not None:
            self._wake.set()

    @property
    def streams(self) -> int:
        """How many streams opened with an account token are open."""
        return sum(len(ends) for ends in self._held.values())

    def start(self) -> None:
        """Watch :data:`CHANGES` (read every :data:`RECHECK_SECONDS`, and at once when the
        store announces a write of it) and end the streams of tokens revoked meanwhile."""
        if self._watching is not None:
            return
        loop = asyncio.get_running_loop()
        wake = self._wake = asyncio.Event()

        def written(kind: str, key: str, revision: int) -> None:  # on a store thread
            if (kind, key) == CHANGES:
                with contextlib.suppress(RuntimeError):  # the loop closed
                    loop.call_soon_threadsafe(self.moved)

        self._stop_listening = self.repository.store.add_document_listener(written)
        self._watching = asyncio.ensure_future(self._watch(wake))

    def close(self) -> None:
        self._stop_listening()
        if self._watching is not None:
            self._watching.cancel()

    async def _watch(self, wake: asyncio.Event) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(RECHECK_SECONDS):
                    await wake.wait()
            wake.clear()
            try:
                await self._refresh()
                await self._check_held()
            except (StoreError, RefereeError) as error:  # a store fault: next time
                log.info("credentials_not_checked", error=str(error))
            except Exception:
                log.exception("credentials_check_failed")

    async def _check_held(self) -> None:
        """Check the suspect held tokens again; end the streams of those that no longer sign
        in (a store fault leaves the rest suspect, for the next round)."""
        while self._suspects:
            digest = self._suspects.pop()
            if digest not in self._held:
                continue
            try:
                await self.player(digest)
            except RefereeError as error:
                if error.kind is not errors.Kind.UNAUTHENTICATED:
                    self._suspects.add(digest)
                    raise
                ends = list(self._held.pop(digest, {}).values())
                log.info("streams_ended_revoked", streams=len(ends))
                for end in ends:
                    end(revoked())


def _seen(reading: asyncio.Future[int]) -> None:
    """A read's fault was each waiting caller's to see: not a lost task's."""
    if not reading.cancelled():
        reading.exception()


__all__ = [
    "ACCOUNT",
    "ACCOUNT_TOKEN",
    "CHANGES",
    "MAX_TRUSTED",
    "RECHECK_SECONDS",
    "Credentials",
    "End",
    "changed",
    "invalid",
    "revoked",
]
