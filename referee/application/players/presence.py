"""Who is online: a player with a player stream (``PlayerSession``, ``WatchPlayer``) open, on
any replica.

Each referee process (a replica) keeps one ``presence`` document per player it has a stream
of, keyed ``"<player>/<replica>"`` with ``{"until_ms": ...}``: a lease it takes when the
player's first stream here opens, renews every :data:`RENEW_SECONDS` while one is open, and
deletes when the last one closes. A player is online while one of its documents' lease runs,
so replicas on one PostgreSQL store agree, and a replica that stops without deleting its
documents (a kill -9, or a shutdown: it stops renewing) leaves its players online for at
most :data:`LEASE_MS` more. Only this
replica writes its own documents, so its writes never race another's.

The lobby shows it in its tables (``SeatHolder.online``), ``GetPresence`` answers it, and the
tournament runner reads it before it reserves a seat for a remote bot (an offline bot is
reported absent at once instead of holding a game up to its join deadline).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Iterable

import structlog

from referee.application.tables import errors
from referee.application.tables.errors import RefereeError
from referee.application.tables.live import now_ms
from referee.application.tables.repository import Repository
from referee.store import DocumentWrite, RevisionConflict, StoreError

log = structlog.get_logger("referee")

KIND = "presence"
#: How long a lease runs: a replica that died leaves its players online this long at most.
LEASE_MS = 15_000
#: How often a replica renews the leases of its players (well inside the lease).
RENEW_SECONDS = LEASE_MS / 1000 / 3
#: Most players one question may name.
MAX_ASKED = 100


class Presence:
    """This replica's part of who is online, and the question for any player."""

    def __init__(self, repository: Repository, lease_ms: int = LEASE_MS) -> None:
        self.repository = repository
        self.lease_ms = lease_ms
        #: This process's name in its documents' keys (new at every start).
        self.replica = secrets.token_hex(6)
        #: Players with a stream open here -> how many streams.
        self._streams: dict[str, int] = {}
        #: Our documents' revisions, by player (0: not written yet).
        self._revisions: dict[str, int] = {}
        self._renewal: asyncio.Future[None] | None = None
        self._writing = asyncio.Lock()

    def _key(self, player: str) -> str:
        return f"{player}/{self.replica}"

    def arrived(self, player: str) -> None:
        """A stream of ``player`` opened here (its first: the lease is taken now)."""
        count = self._streams.get(player, 0)
        self._streams[player] = count + 1
        if count == 0:
            self.repository.spawn(self._write([player]))
        if self._renewal is None or self._renewal.done():
            self._renewal = self.repository.spawn(self._renew())

    def left(self, player: str) -> None:
        """A stream of ``player`` closed here (its last: the lease is given back)."""
        count = self._streams.get(player, 0) - 1
        if count > 0:
            self._streams[player] = count
            return
        self._streams.pop(player, None)
        self.repository.spawn(self._write([player]))

    async def _renew(self) -> None:
        while self._streams:
            await asyncio.sleep(RENEW_SECONDS * self.lease_ms / LEASE_MS)
            await self._write(list(self._streams))

    async def _write(self, players: Iterable[str]) -> None:
        """Take or renew the lease of each of ``players`` with a stream here, give back the
        others'; a store fault leaves it to the next renewal (the lease bounds the error)."""
        async with self._writing:
            until = now_ms() + self.lease_ms
            writes = []
            for player in players:
                revision = self._revisions.get(player, 0)
                if player in self._streams:
                    body = {"until_ms": until}
                    writes.append(
                        DocumentWrite(KIND, self._key(player), body, revision, time.time())
                    )
                elif revision:
                    writes.append(
                        DocumentWrite(KIND, self._key(player), None, revision, time.time())
                    )
            if not writes:
                return
            try:
                revisions = await self.repository.call(
                    self.repository.store.write_documents, writes
                )
            except RevisionConflict:
                await self._reread(writes)
                return
            except (StoreError, RefereeError) as error:
                log.warning("presence_write_failed", error=str(error))
                return
            for write, revision in zip(writes, revisions, strict=True):
                player = write.key.rpartition("/")[0]
                if revision:
                    self._revisions[player] = revision
                else:
                    self._revisions.pop(player, None)

    async def _reread(self, writes: list[DocumentWrite]) -> None:
        """After a conflict (a write whose answer was lost): our documents as stored."""
        store = self.repository.store
        for write in writes:
            with contextlib.suppress(StoreError, RefereeError):
                found = await self.repository.call(store.read_document, KIND, write.key)
                player = write.key.rpartition("/")[0]
                self._revisions[player] = found.revision if found is not None else 0

    async def online(self, players: Iterable[str]) -> dict[str, bool]:
        """Whether each of ``players`` has a player stream open on any replica."""
        names = list(dict.fromkeys(players))
        if len(names) > MAX_ASKED:
            raise errors.bad_request("players", f"at most {MAX_ASKED}")
        store = self.repository.store
        now = now_ms()

        def read() -> dict[str, bool]:
            return {
                name: any(
                    int(d.body.get("until_ms", 0)) > now for d in store.documents(KIND, f"{name}/")
                )
                for name in names
            }

        return await self.repository.call(read)

    def close(self) -> None:
        """Stop renewing: this replica's leases run out by themselves within the lease."""
        if self._renewal is not None:
            self._renewal.cancel()
        self._streams.clear()


__all__ = ["KIND", "LEASE_MS", "Presence"]
