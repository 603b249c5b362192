"""What the lobby's rooms (challenges, pairing, the lobby list) share:

- :class:`Documents`: the store's documents (read, list, compare-and-set, listen), with every
  call on the store's writer thread as the repository runs all store calls;
- :class:`OpenedGame`: a game the lobby made for players who met in it (made by
  :class:`~referee.application.lobby.seats.ClaimedSeats`, the lobby's host);
- :class:`LobbyLimits`, the lobby's per-player limits, and :func:`limit_reached`, the refusal
  beyond one.

The players' room (whether a player exists, a player's rating) is below the lobby: its
rooms are given :class:`~referee.application.players.accounts.Players` and
:class:`~referee.application.players.ratings.Ratings` themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from referee.application.tables.creation import WritesFor
from referee.application.tables.errors import Kind, RefereeError
from referee.application.tables.live import now_ms
from referee.application.tables.repository import Repository
from referee.store import Document, DocumentWrite


@dataclass(frozen=True, slots=True)
class LobbyLimits:
    """Per-player limits of the lobby (RESOURCE_EXHAUSTED with a retry hint beyond them)."""

    #: Open challenges a player may have made at once.
    open_challenges: int = 10
    #: Games a player may hold seats in at once (running or waiting to start).
    games_at_once: int = 20
    #: Pairing requests a player may make per minute (a request cancelled at once and made
    #: again is churn that makes every pass read more).
    pairing_requests_per_minute: int = 20
    #: A pairing request that has waited this long unpaired is cancelled (milliseconds).
    pairing_wait_ms: int = 10 * 60 * 1000
    #: How often the lobby expires challenges and pairs waiting tickets (seconds).
    sweep_seconds: float = 1.0


class Documents:
    """The store's documents, each call on the repository's store thread (async)."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        self.store = repository.store

    async def read(self, kind: str, key: str) -> Document | None:
        return await self.repository.call(self.store.read_document, kind, key)

    async def all(self, kind: str, prefix: str = "") -> list[Document]:
        return await self.repository.call(self.store.documents, kind, prefix)

    async def write(self, writes: Sequence[DocumentWrite]) -> list[int]:
        """Compare-and-set every write at once; ``RevisionConflict``: nothing written."""
        stamped = [
            w
            if w.updated_at
            else DocumentWrite(w.kind, w.key, w.body, w.expected_revision, now_ms() / 1000)
            for w in writes
        ]
        return await self.repository.call(self.store.write_documents, stamped)

    def listen(self, listener: Callable[[str, str, int], None]) -> Callable[[], None]:
        """``listener(kind, key, revision)`` after every document commit (any thread)."""
        return self.store.add_document_listener(listener)


@dataclass(frozen=True, slots=True)
class OpenedGame:
    """A game the lobby made: its id, organiser token (kept by nobody: the lobby's games
    are the players') and the players' seats' tokens (by seat: each for its player only)."""

    game_id: str
    organiser_token: str
    seat_tokens: tuple[str, ...] = ()


def limit_reached(what: str, limit: int, retry_after: float, **metadata: str) -> RefereeError:
    """RESOURCE_EXHAUSTED for a per-player limit, with when to retry (``RetryInfo``)."""
    return RefereeError(
        Kind.LIMIT,
        f"{what} limit reached ({limit})",
        "LIMIT",
        metadata={"limit": what, "value": str(limit), **metadata},
        retry_after=max(0.1, round(retry_after, 3)),
    )


__all__ = [
    "Documents",
    "LobbyLimits",
    "OpenedGame",
    "WritesFor",
    "limit_reached",
    "now_ms",
]
