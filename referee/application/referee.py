"""The referee: live games, commands, clocks and streams, with no transport.

:class:`Referee` is the application layer (the role ``eventsourcing``'s Application plays): it
takes ids, tokens and engine values, returns the frozen values of
:mod:`referee.application.tables.values`, and refuses with
:class:`~referee.application.tables.errors.RefereeError`. It imports no transport: the gRPC and HTTP
adapters (:mod:`referee.server`) and an embedding platform (docs/embedding.md) call it alike.

It is the one entry point; the work is done by rooms, folders that import one way only
(``tables`` <- ``players`` <- ``lobby`` <- ``house``, a test holds it), which it builds, each
given its collaborators in its constructor:

- ``tables`` (:mod:`referee.application.tables`), the live games:
  :class:`~referee.application.tables.fanout.FanOut` (the streams' fan-out),
  :class:`~referee.application.tables.timekeeper.Timekeeper` (the referee's own moves: clocks,
  timeouts, forfeits, default plays, the seed reveal, the end of a game), which opens the
  :class:`~referee.application.tables.repository.Repository` (the loaded games, the store's
  threads, background tasks), :class:`~referee.application.tables.commands.Commands` (seats'
  commands: idempotent ids, expected versions),
  :class:`~referee.application.tables.organiser.Organiser` (abort, reveal, export, abandoned
  games) and :class:`~referee.application.tables.streams.Streams` (viewers' streams); new
  games are :mod:`~referee.application.tables.creation`'s, who is asking
  :mod:`~referee.application.tables.access`'s;
- ``players``: :class:`~referee.application.players.accounts.Players` (accounts, platform
  identities, with their :class:`~referee.application.players.ratings.Ratings`),
  :class:`~referee.application.players.seating.Seating` (claims, resigning) and
  :class:`~referee.application.players.sessions.Sessions` (one stream per player, given the
  lobby as its inbox port);
- ``lobby``: :class:`~referee.application.lobby.room.Lobby` (listed tables, challenges,
  pairing), seating the players who met through
  :class:`~referee.application.lobby.seats.ClaimedSeats`;
- ``house``: :class:`~referee.application.house.bots.HouseBots` (the referee's own bots,
  seated through the lobby and playing through player sessions), and the organiser's fill
  (:mod:`~referee.application.house.fill`).

Store calls run on one writer thread so nothing blocks the event loop; a live game changes
only after the store has committed. The stored form is :mod:`referee.stored`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any

import structlog

from referee.application.house import fill
from referee.application.house.bots import HouseBots
from referee.application.lobby.room import Lobby
from referee.application.lobby.seats import ClaimedSeats
from referee.application.players.accounts import Players, Principal
from referee.application.players.presence import Presence
from referee.application.players.seating import Seating
from referee.application.players.sessions import Sessions
from referee.application.tables import access, create_requests, creation, errors
from referee.application.tables.access import PlayerSeat, SeatKey, hash_token
from referee.application.tables.clocks import GameSettings
from referee.application.tables.commands import Commands
from referee.application.tables.errors import RefereeError
from referee.application.tables.fanout import FanOut, Send, StreamEnded
from referee.application.tables.live import LiveGame, now_ms
from referee.application.tables.organiser import Organiser
from referee.application.tables.pacing import Outlet, Pacing, StreamPolicy
from referee.application.tables.repository import Limits
from referee.application.tables.streams import Streams
from referee.application.tables.timekeeper import Timekeeper
from referee.application.tables.values import (
    Created,
    Exported,
    Page,
    SeatView,
    Submitted,
    Summary,
    Update,
)
from referee.engine.game import FixedDeal
from referee.metrics import Metrics
from referee.store import EventStore

log = structlog.get_logger("referee")

#: Most game summaries on one page of :meth:`Referee.list_games`.
MAX_PAGE = 1000


class Referee:
    """Refereed games in this process, kept in ``store`` (see the module's docstring).

    Call :meth:`recover` once inside the event loop before anything else, and :meth:`close`
    at the end."""

    def __init__(
        self, store: EventStore, metrics: Metrics | None = None, limits: Limits | None = None
    ) -> None:
        self.store = store
        self.metrics = metrics or Metrics()
        self.limits = limits or Limits()
        self.fanout = FanOut(
            self.metrics,
            self.limits.max_streams,
            self.limits.stream_buffer,
        )
        # The timekeeper acts through the repository, which sets timers through it: the
        # timekeeper opens the repository, handing itself in.
        self.timekeeper = Timekeeper(store, self.metrics, self.limits, self.fanout)
        self.repository = self.timekeeper.repository
        self.commands = Commands(self.repository, self.timekeeper)
        self.organiser = Organiser(self.repository, self.timekeeper)
        #: Every stream's admission, stall limit and heartbeats (one policy, all transports).
        self.pacing = Pacing(
            StreamPolicy(
                stall_seconds=self.limits.stream_stall_seconds,
                heartbeat_seconds=self.limits.stream_heartbeat_seconds,
                max_streams=self.limits.max_streams,
                max_streams_per_player=self.limits.max_streams_per_player,
                max_streams_per_address=self.limits.max_streams_per_address,
            )
        )
        self.players = Players(self.repository)
        self._streams = Streams(self.repository, self.timekeeper)
        self.seating = Seating(self.repository, self.timekeeper, self.commands)
        #: Who is online (a player stream open on any replica): the lobby shows it.
        self.presence = Presence(self.repository)
        self.lobby = Lobby(
            self.repository,
            self.players,
            self.players.ratings,
            ClaimedSeats(self.repository, self.players),
            presence=self.presence,
        )
        self.repository.on_finished.append(self.players.ratings.record)
        # A game that ended unfilled announces its reserved seats no more.
        self.repository.on_finished.append(self.seating.unreserve)
        self.sessions = Sessions(
            self.repository,
            self.commands,
            self._streams,
            self.seating.submit_held,
            self.lobby,
            self.players.credentials,
            self.presence,
        )
        #: Bot players the server runs (idle until ``house_bots.start``; docs/lobby.md).
        self.house_bots = HouseBots(
            self.repository, self.sessions, self.lobby, self.seating, self.players, self.metrics
        )
        self._sweeper: asyncio.Future[None] | None = None

    @property
    def games(self) -> dict[str, LiveGame]:
        """The games held in memory, by id."""
        return self.repository.games

    @property
    def streams(self) -> int:
        """How many streams are open."""
        return self.fanout.streams

    # --- life cycle -------------------------------------------------------------------------

    async def recover(self) -> int:
        """Count the unfinished games in the store (they load on first use) and listen to the
        store for appends made elsewhere; returns the number of games."""
        found = await self.repository.recover()
        self.repository.spawn(self.players.ratings.catch_up())
        self.players.credentials.start()
        self._sweeper = self.repository.spawn(self._sweep())
        return found

    def close_streams(self, error: RefereeError) -> None:
        """End every open stream with ``error`` (shutdown: clients resume elsewhere/later)."""
        self._streams.close_all(error)
        self.lobby.close_watches(error)

    def close(self) -> None:
        """Stop timers and background work, and close the store."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        self.house_bots.close()
        self.presence.close()
        self.players.credentials.close()
        self.lobby.close()
        self._streams.close()
        self.repository.close()
        self.store.close()

    def _stop_listening(self) -> None:
        """Hear no more of the store's appends (tests: as if every notice were late)."""
        self.repository.stop_listening()

    async def _sweep(self) -> None:
        """Now and then: drop idle games from memory, abort abandoned ones."""
        limits = self.limits
        periods = [limits.evict_idle_seconds, limits.idle_expiry_seconds, 120.0]
        period = max(0.05, min(p for p in periods if p > 0) / 4)
        while True:
            await asyncio.sleep(period)
            try:
                await self.organiser.expire_abandoned()
                self.repository.evict()
            except Exception:
                log.exception("sweep_failed")

    # --- games ------------------------------------------------------------------------------

    async def create(
        self,
        game_type: str,
        players: int,
        options: Mapping[str, str] | None = None,
        *,
        seed: str = "",
        deal: FixedDeal | None = None,
        settings: GameSettings | None = None,
        creator: Principal | None = None,
        request_id: str = "",
    ) -> Created:
        """A new game: its summary, seat tokens, organiser token and claim codes.

        ``seed`` decides every shuffle (empty: the referee draws a secret one; a guessable
        seed needs ``settings.public_seed``); ``deal`` fixes the chance outcomes instead;
        ``settings`` are the table settings (clock, organiser delay, reveal policy, event
        limit, who takes each seat; per-card commitments are on for every new game);
        ``creator``: the signed-in creator (needed for ``creator`` seats). ``request_id``:
        a retry with the same id returns the same game and tokens, on any replica
        (:mod:`~referee.application.tables.create_requests`)."""
        setup = creation.Setup(game_type, players, options, seed, deal, settings)
        if request_id:
            return await create_requests.create_once(
                self.repository, request_id, setup, creator, self.players.get
            )
        return await creation.create(self.repository, setup, creator, self.players.get)

    async def summary(self, game_id: str) -> Summary:
        """The game's public description (GetGame): on a shared store, as of what the store
        holds now (another replica may have moved the game on)."""
        return (await self.repository.get_current(game_id)).summary()

    async def view(
        self,
        game_id: str,
        *,
        seat_token: SeatKey = "",
        spectator: bool = False,
        organiser_token: str = "",
        as_seat: int | None = None,
    ) -> SeatView:
        """A seat's view (its token, or a :class:`PlayerSeat`: a signed-in player's seat),
        the spectator's, or the organiser's of any seat (``as_seat``, ``None``: the
        spectator's), behind by the organiser delay."""
        live = await self.repository.get_current(game_id)
        await access.read_claims_for(self.repository, live, seat_token)
        watcher = access.watcher(live, seat_token, spectator, organiser_token, as_seat)
        if watcher.organiser:
            return live.view_at(watcher.viewer, live.visible_version(now_ms()))
        if watcher.viewer is not None:
            self.repository.present(live, watcher.viewer)  # a token seat's clock starts now
        return live.view(watcher.viewer)

    async def list_games(
        self, *, game_type: str = "", running_only: bool = False, offset: int = 0, size: int = 100
    ) -> Page:
        """Summaries of the store's games, newest first: ``size`` of them from ``offset``."""
        if not 0 < size <= MAX_PAGE:
            raise errors.bad_request("page_size", f"must be 1..{MAX_PAGE}")
        repository = self.repository
        listed = await repository.call(self.store.list_games)
        chosen = [
            record
            for record, _, finished in reversed(listed)
            if (not game_type or record.game_type == game_type) and not (running_only and finished)
        ]
        games = []
        for record in chosen[offset : offset + size]:
            cached = repository.summaries.get(record.game_id)
            if cached is not None and record.game_id not in repository.games:
                repository.summaries.move_to_end(record.game_id)
                games.append(cached)
            else:
                games.append((await repository.get(record.game_id)).summary())
        more = offset + size < len(chosen)
        return Page(tuple(games), offset + size if more else None)

    # --- commands ---------------------------------------------------------------------------

    async def submit(
        self,
        game_id: str,
        seat_token: SeatKey,
        command_id: str,
        command: Any,
        *,
        expected_version: int | None = None,
        client_decision_ms: int = 0,
    ) -> Submitted:
        """Decide ``command`` (an engine command value of the game's type) for the seat of
        ``seat_token``; append what it causes; answer with the seat's view right after.

        ``command_id`` makes it idempotent: a retry with the same id and command returns the
        first outcome (``duplicate``), the same id with another command is refused.
        ``expected_version``: refuse (CONFLICT) unless the game is at that version.
        A command a transport could not read is passed as :class:`Unreadable`: it is refused
        and counts against the seat."""
        return await self.commands.submit(
            game_id,
            seat_token,
            command_id,
            command,
            expected_version=expected_version,
            client_decision_ms=client_decision_ms,
        )

    # --- organiser --------------------------------------------------------------------------

    async def abort(self, game_id: str, organiser_token: str, reason: str = "") -> Summary:
        """End the game now, with a public ``reason``."""
        return await self.organiser.abort(game_id, organiser_token, reason)

    async def remove_seat(
        self, game_id: str, organiser_token: str, seat: int, reason: str = ""
    ) -> Summary:
        """Remove ``seat`` from the running game (a bot that crashed or stopped answering): it
        is abandoned, with a public ``reason``, and the referee plays for it to the end."""
        return await self.organiser.remove_seat(game_id, organiser_token, seat, reason)

    async def fill_with_bots(self, game_id: str, organiser_token: str, level: str = "") -> Summary:
        """Start a waiting game by filling its empty seats with house bots (of ``level``,
        when named); :mod:`referee.application.house.fill` has the refusals."""
        return await fill.fill_with_bots(self.house_bots, game_id, organiser_token, level)

    async def reveal(self, game_id: str, organiser_token: str) -> Summary:
        """Reveal the seed of a game that is over (one created with ``defer_seed_reveal``);
        the organiser's summary, with the seed."""
        return await self.organiser.reveal(game_id, organiser_token)

    async def export(self, game_id: str, organiser_token: str = "") -> Exported:
        """The full log and commands of a game whose seed has been released, for its organiser
        (or anyone, when the game waived end-of-game secrecy; docs/fairness.md)."""
        return await self.organiser.export(game_id, organiser_token)

    # --- streams ----------------------------------------------------------------------------

    def stream(
        self,
        game_id: str,
        *,
        seat_token: SeatKey = "",
        spectator: bool = False,
        organiser_token: str = "",
        as_seat: int | None = None,
        after: int = 0,
        batched: bool = False,
    ) -> AsyncGenerator[Update, None]:
        """A viewer's stream of the game (see :meth:`FanOut.follow`): the current view, every
        event after ``after`` (each with the view after it, or one update per batch), then
        live ones until the game is finished. Close it (``aclose``) to leave; a stream the
        referee ends raises :class:`StreamEnded` (UNAUTHENTICATED ``CREDENTIAL_REVOKED``
        when a :class:`PlayerSeat`'s account token is revoked meanwhile). Nothing runs until
        the first update is asked for (the stream is an async generator)."""
        updates = self._streams.stream(
            game_id, seat_token, spectator, organiser_token, as_seat, after, batched
        )
        if not _revocable(seat_token):
            return updates  # nothing to hold: one generator fewer on every update's way
        return self._held(seat_token, updates)

    async def _held(
        self, seat_token: SeatKey, updates: AsyncGenerator[Update, None]
    ) -> AsyncGenerator[Update, None]:
        release = self._hold(seat_token)
        try:
            async with contextlib.aclosing(updates):
                async for update in updates:
                    yield update
        finally:
            release()

    def _hold(self, seat_token: SeatKey) -> Callable[[], None]:
        """A stream opened with a player's account token is ended if the token is revoked
        while it is open: returns what to call when the stream ends."""
        if not _revocable(seat_token):
            return _nothing
        assert isinstance(seat_token, PlayerSeat)
        credential = seat_token.principal.credential

        def end(error: RefereeError) -> None:
            self._streams.end_opened_with(credential, error)

        return self.players.credentials.hold(credential, end)

    async def serve_stream(
        self,
        game_id: str,
        send: Send,
        *,
        seat_token: SeatKey = "",
        spectator: bool = False,
        organiser_token: str = "",
        as_seat: int | None = None,
        after: int = 0,
        batched: bool = False,
        holder: Outlet | None = None,
    ) -> None:
        """The same stream run into a transport's ``send`` (see :meth:`FanOut.serve`), with
        the mark where history ends; raises the :class:`RefereeError` the stream ends with.
        The stall limit and heartbeats are the writer's: ``send`` writes through an
        :class:`~referee.application.tables.pacing.Outlet` of :attr:`pacing`, ``holder``,
        which the stream's updates are held by (given back at a stall)."""
        release = self._hold(seat_token)
        try:
            # The stream's updates, then served from this frame: an open stream holds a
            # frame per level of calls for its whole life.
            updates = await self._streams.follow(
                game_id, seat_token, spectator, organiser_token, as_seat, after, batched
            )
            if holder is not None:
                holder.hold(updates)
            await self._streams.fanout.serve(updates, send)
        finally:
            release()


def _revocable(seat_token: SeatKey) -> bool:
    """The stream is opened with a player's account token, which may be revoked meanwhile."""
    return isinstance(seat_token, PlayerSeat) and bool(seat_token.principal.credential)


def _nothing() -> None:
    """Nothing to release: a stream opened with no account token."""


__all__ = ["Limits", "PlayerSeat", "Referee", "StreamEnded", "hash_token"]
