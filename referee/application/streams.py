"""Viewers' streams: who is watching, checked, then the fan-out's stream of the game.

The streams themselves (queues, redaction, batching, resumption) are
:mod:`referee.application.fanout`'s; this room checks the viewer, catches up with the store
when a client resumes past what this replica has seen, and counts a seat's hang-up.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator

from referee.application import access
from referee.application.errors import RefereeError
from referee.application.live import DISCONNECTS
from referee.application.repository import Repository
from referee.application.values import Update


class Streams:
    """The streams of the games of ``repository``."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        self.fanout = repository.fanout

    async def stream(
        self,
        game_id: str,
        seat_token: str,
        spectator: bool,
        organiser_token: str,
        as_seat: int | None,
        after: int,
        batched: bool,
    ) -> AsyncGenerator[Update, None]:
        """See :meth:`referee.application.referee.Referee.stream`."""
        repository = self.repository
        live = await repository.get(game_id)
        watcher = access.watcher(live, seat_token, spectator, organiser_token, as_seat)
        self.fanout.check_room()
        if after > live.table.version and repository.store.shared:
            # A client resuming here after another replica saw more than this one has yet.
            await repository.catch_up(live)
        hung_up = watcher.viewer
        stream = self.fanout.stream(
            live,
            watcher,
            after,
            batched,
            lambda: repository.count(live, hung_up, DISCONNECTS) if hung_up is not None else None,
        )
        async with contextlib.aclosing(stream):
            async for update in stream:
                yield update

    def close_all(self, error: RefereeError) -> None:
        """End every open stream with ``error`` (shutdown: clients resume elsewhere/later)."""
        self.fanout.close_all(self.repository.games.values(), error)


__all__ = ["Streams"]
