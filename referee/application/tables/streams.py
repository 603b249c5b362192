"""Viewers' streams: who is watching, checked, then the fan-out's stream of the game.

The streams themselves (redaction, batching, resumption, their limits) are
:mod:`referee.application.tables.fanout`'s; this room checks the viewer, catches up with the store
when a client resumes past what this replica has seen, and counts a seat's hang-up as a
disconnect only if the seat does not come back: a client that resumes by sequence as
docs/clients.md says (here or on another replica, within ``reconnect_window_seconds``) has
done nothing wrong. In a game that ranks finishers first (rated and tournament games), a seat
that does not come back has **abandoned** the game (rule ``ABANDONED``) once the game waits
for it: the timekeeper records it and plays for the seat to the end, so its opponents never
wait on it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable

from referee.application.tables import access
from referee.application.tables.access import PlayerSeat
from referee.application.tables.errors import RefereeError
from referee.application.tables.fanout import Updates
from referee.application.tables.live import DISCONNECTS, OPENS, LiveGame
from referee.application.tables.repository import Repository
from referee.application.tables.timekeeper import Timekeeper
from referee.application.tables.values import Update, Watcher
from referee.store import StoreError

#: How often a seat gone past its reconnect window is checked for the game waiting on it.
AWAITED_POLL_SECONDS = 1.0


class Streams:
    """The streams of the games of ``repository``."""

    def __init__(self, repository: Repository, timekeeper: Timekeeper) -> None:
        self.repository = repository
        self.timekeeper = timekeeper
        self.fanout = repository.fanout
        #: Hang-ups waiting out the reconnect window.
        self._hang_ups: set[asyncio.Future[None]] = set()

    async def stream(
        self,
        game_id: str,
        seat_token: access.SeatKey,
        spectator: bool,
        organiser_token: str,
        as_seat: int | None,
        after: int,
        batched: bool,
    ) -> AsyncGenerator[Update, None]:
        """See :meth:`referee.application.referee.Referee.stream`."""
        updates = await self.follow(
            game_id, seat_token, spectator, organiser_token, as_seat, after, batched
        )
        async with contextlib.aclosing(updates):
            async for update, _ in updates:
                yield update

    async def follow(
        self,
        game_id: str,
        seat_token: access.SeatKey,
        spectator: bool,
        organiser_token: str,
        as_seat: int | None,
        after: int,
        batched: bool,
    ) -> Updates:
        """The viewer's stream, checked (for :meth:`FanOut.serve`); see
        :meth:`referee.application.referee.Referee.serve_stream`."""
        repository = self.repository
        live = await repository.get(game_id)
        await access.read_claims_for(repository, live, seat_token)
        watcher = access.watcher(live, seat_token, spectator, organiser_token, as_seat)
        self.fanout.check_room()
        if after > live.table.version and repository.store.shared:
            # A client resuming here after another replica saw more than this one has yet.
            await repository.catch_up(live)
        seat = None if watcher.organiser else watcher.viewer
        if seat is not None:
            repository.present(live, seat)  # a token seat's clock starts when it shows up
        hung_up = self._opened(live, seat) if seat is not None else _no_fault
        credential = seat_token.principal.credential if isinstance(seat_token, PlayerSeat) else ""
        return self.fanout.follow(live, watcher, after, batched, hung_up, credential)

    def follow_seat(self, live: LiveGame, watcher: Watcher, after: int) -> Updates:
        """A seat's batched stream for a player session
        (:mod:`referee.application.players.sessions`), whose seat was checked already: counted and
        forgiven on a resume as StreamGame's. A spectator's (``watcher.viewer`` None: a
        session whose credential may only watch) starts no clock and counts nothing."""
        self.fanout.check_room()
        seat = watcher.viewer
        if seat is None:
            return self.fanout.follow(live, watcher, after, True, _no_fault)
        self.repository.present(live, seat)  # a token seat's clock starts now
        return self.fanout.follow(live, watcher, after, True, self._opened(live, seat))

    def end_opened_with(self, credential: str, error: RefereeError) -> None:
        """End every stream opened with the account token whose hash is ``credential``."""
        self.fanout.end(self.repository.games.values(), credential, error)

    def close_all(self, error: RefereeError) -> None:
        """End every open stream with ``error`` (shutdown: clients resume elsewhere/later)."""
        self.fanout.close_all(self.repository.games.values(), error)

    def close(self) -> None:
        """Stop waiting for seats that hung up (none is counted a disconnect any more)."""
        for waiting in self._hang_ups:
            waiting.cancel()

    def _opened(self, live: LiveGame, seat: int) -> Callable[[], None]:
        """Count the seat's new stream (in memory, and in the store for other replicas); return
        what to do if its client closes it mid-game.

        A seat's streams opened since this one, here or (on a shared store) on any replica,
        are the opens counted beyond the ones known now. On a shared store the count is read
        just *before* this open is written, both queued now on the writer thread (which keeps
        their order): read after the write, it could already include a quick resume on
        another replica (the write takes a commit), which would then look like no resume."""
        repository = self.repository
        stored: asyncio.Future[int] | None = None
        if repository.store.shared:
            stored = repository.submit(self._stored_opens, live.game_id, seat)
        repository.count(live, seat, OPENS)
        return _HungUp(self, live, seat, live.stats[seat][OPENS], stored)

    def _hung_up(
        self, live: LiveGame, seat: int, here: int, stored: asyncio.Future[int] | None
    ) -> None:
        """A seat's stream opened as its ``here``-th was closed by its client mid-game."""
        if sum(1 for sub in live.subscribers if sub.seat == seat) > 1:
            return  # the seat has another stream open (the closing one is still listed)
        waiting = self.repository.spawn(self._disconnect_unless_resumed(live, seat, here, stored))
        self._hang_ups.add(waiting)
        waiting.add_done_callback(self._hang_ups.discard)

    def _stored_opens(self, game_id: str, seat: int) -> int:
        return self.repository.store.stats(game_id).get(seat, {}).get(OPENS, 0)

    async def _disconnect_unless_resumed(
        self, live: LiveGame, seat: int, here: int, stored: asyncio.Future[int] | None
    ) -> None:
        """Wait out the reconnect window, then count a disconnect unless the seat opened a
        stream again (``here``: its opens here counting the stream that closed; ``stored``:
        the store's count just before that stream's open was written)."""
        repository = self.repository
        try:
            before = await stored if stored is not None else 0
            await asyncio.sleep(repository.limits.reconnect_window_seconds)
            current = repository.games.get(live.game_id, live)  # reloaded meanwhile, perhaps
            if current.stats.get(seat, {}).get(OPENS, 0) > here:
                return  # resumed on this replica
            if stored is not None:
                now = await repository.call(self._stored_opens, live.game_id, seat)
                if now > before + 1:  # beyond the open of the stream that closed
                    return  # resumed on another replica
        except (StoreError, RefereeError):  # RefereeError: a store fault (Repository.call)
            return  # the store cannot tell whether the seat came back: no fault counted
        repository.count(current, seat, DISCONNECTS)
        awaited = await self._until_awaited(current, seat, here)
        if awaited is None:
            return
        window = repository.limits.reconnect_window_seconds
        reason = f"its stream closed and did not come back within {window:g} s"
        try:
            await self.timekeeper.abandon(awaited, seat, reason)
        except (StoreError, RefereeError):
            return  # the store failed: the seat stays; a later hang-up may abandon it

    async def _until_awaited(self, live: LiveGame, seat: int, here: int) -> LiveGame | None:
        """The game once it waits for ``seat``, gone past its reconnect window; None if the
        seat comes back here first or the game ends. A seat the game does not wait for costs
        its opponents nothing: abandoned at once, a player who gave up on an opponent that
        stalls (connected, never moving) would leave first and rank below the staller."""
        repository = self.repository
        poll = min(repository.limits.reconnect_window_seconds, AWAITED_POLL_SECONDS)
        while True:
            if live.game_id not in repository.games:
                return None  # the game left memory idle: its idle expiry deals with a stall
            live = repository.games[live.game_id]  # reloaded meanwhile, perhaps
            if live.stats.get(seat, {}).get(OPENS, 0) > here or live.over:
                return None
            if seat in live.table.pending():
                return live
            await asyncio.sleep(poll)


class _HungUp:
    """What to do if a seat's stream is closed by its client mid-game
    (:meth:`Streams._hung_up`): a slotted object rather than a closure, since an open stream
    holds it for its whole life."""

    __slots__ = ("here", "live", "seat", "stored", "streams")

    def __init__(
        self,
        streams: Streams,
        live: LiveGame,
        seat: int,
        here: int,
        stored: asyncio.Future[int] | None,
    ) -> None:
        self.streams = streams
        self.live = live
        self.seat = seat
        self.here = here
        self.stored = stored

    def __call__(self) -> None:
        self.streams._hung_up(self.live, self.seat, self.here, self.stored)


def _no_fault() -> None:
    """A spectator's or the organiser's stream closed: nobody's fault."""


__all__ = ["Streams"]
