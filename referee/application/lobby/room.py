"""The lobby: listed games with open seats, challenges and pairing, one room
(``Referee.lobby``).

- :meth:`Lobby.list` and :meth:`Lobby.watch` show the ``lobby`` documents the seats' room
  keeps for listed games while they have open seats (created, claimed, started, aborted):
  every replica lists the same tables, and a watcher hears another replica's claims through
  the store's document listener. Unlisted games have no such document, so they never appear.
- :attr:`Lobby.challenges` (:mod:`~referee.application.lobby.challenges`) and
  :attr:`Lobby.pairing` (:mod:`~referee.application.lobby.pairing`).
- :meth:`Lobby.inbox`: the changes of challenges and pairing tickets that concern a player,
  which the player's stream delivers.

Nothing the lobby lists or streams carries a token or a claim code: tables are game
summaries (public by construction), challenges and tickets name players and terms only.

The lobby's sweep (every :attr:`LobbyLimits.sweep_seconds`, started by the first call to the
lobby) expires challenges and pairs waiting tickets whose allowed gap has widened.
"""

from __future__ import annotations

import asyncio
import enum
from collections import OrderedDict
from collections.abc import AsyncGenerator, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import structlog

from referee.application.lobby.challenges import KIND as CHALLENGE
from referee.application.lobby.challenges import Challenge, Challenges, ChallengeState
from referee.application.lobby.host import Documents, LobbyLimits
from referee.application.lobby.pairing import KIND as PAIRING
from referee.application.lobby.pairing import Pairing, PairingState, PairingTicket
from referee.application.lobby.seats import ClaimedSeats
from referee.application.players.accounts import Players
from referee.application.players.presence import Presence
from referee.application.players.ratings import Ratings
from referee.application.tables.errors import Kind, RefereeError
from referee.application.tables.repository import Repository
from referee.application.tables.seats import LOBBY as KIND
from referee.application.tables.values import Summary

log = structlog.get_logger("referee")


class ClockFilter(enum.Enum):
    ANY = "any"
    CLOCKED = "clocked"
    UNCLOCKED = "unclocked"


@dataclass(frozen=True, slots=True)
class LobbyFilter:
    """Which tables to show (``referee.v1.LobbyFilter``); the defaults show all."""

    game_type: str = ""
    players: int = 0
    clock: ClockFilter = ClockFilter.ANY
    min_decision_ms: int = 0
    max_decision_ms: int = 0
    rated: bool | None = None

    def admits(self, body: Mapping[str, Any]) -> bool:
        """Whether the ``lobby`` document ``body`` is a table this filter shows."""
        if not body.get("open_seats"):
            return False
        if self.game_type and body.get("game_type") != self.game_type:
            return False
        if self.players and int(body.get("players", 0)) != self.players:
            return False
        decision = int((body.get("clock") or {}).get("decision_ms", 0))
        if self.clock is ClockFilter.CLOCKED and not decision:
            return False
        if self.clock is ClockFilter.UNCLOCKED and decision:
            return False
        if self.min_decision_ms and decision < self.min_decision_ms:
            return False
        if self.max_decision_ms and (not decision or decision > self.max_decision_ms):
            return False
        return self.rated is None or bool(body.get("rated", False)) is self.rated


@dataclass(frozen=True, slots=True)
class LobbyTable:
    """A listed game with open seats."""

    game: Summary
    open_seats: tuple[int, ...]
    created_ms: int


@dataclass(frozen=True, slots=True)
class LobbyChange:
    """One message of :meth:`Lobby.watch`: a table listed or changed, one gone, or the
    mark after the tables listed when the watch began."""

    table: LobbyTable | None = None
    removed_game_id: str = ""
    caught_up: bool = False


class _Subscription:
    """Document changes of some kinds, as a set of keys to read again (coalesced: a
    subscriber that is slow re-reads each changed document once, whatever the churn)."""

    def __init__(self, kinds: frozenset[str]) -> None:
        self.kinds = kinds
        self.loop = asyncio.get_running_loop()
        self.changed: OrderedDict[tuple[str, str], None] = OrderedDict()
        self.ready = asyncio.Event()
        #: Set when the referee ends the stream (shutdown): the next wait raises it.
        self.ended: RefereeError | None = None

    def heard(self, kind: str, key: str) -> None:  # on the loop
        self.changed[(kind, key)] = None
        self.ready.set()

    def end(self, error: RefereeError) -> None:  # on the loop
        self.ended = error
        self.ready.set()

    async def next(self) -> list[tuple[str, str]]:
        await self.ready.wait()
        if self.ended is not None:
            raise self.ended
        self.ready.clear()
        keys = list(self.changed)
        self.changed.clear()
        return keys


class Lobby:
    """The lobby room (see the module's docstring)."""

    def __init__(
        self,
        repository: Repository,
        players: Players,
        ratings: Ratings,
        host: ClaimedSeats,
        limits: LobbyLimits | None = None,
        presence: Presence | None = None,
    ) -> None:
        self.repository = repository
        self.limits = limits or LobbyLimits()
        #: Who is online: shown on each table's seat holders.
        self.presence = presence
        self.documents = Documents(repository)
        self._challenges = Challenges(self.documents, players, host, self.limits)
        self._pairing = Pairing(self.documents, ratings, host, self.limits)
        self._subscriptions: set[_Subscription] = set()
        self._unlisten: Any = None
        self._sweeper: asyncio.Future[None] | None = None

    @property
    def challenges(self) -> Challenges:
        """The challenges' room (using it starts the lobby's sweep: expiries, pairing)."""
        self.start()
        return self._challenges

    @property
    def pairing(self) -> Pairing:
        """The pairing room (using it starts the lobby's sweep)."""
        self.start()
        return self._pairing

    # --- the list of open tables -----------------------------------------------------------

    async def list(self, which: LobbyFilter | None = None) -> list[LobbyTable]:
        """The listed games with open seats that ``which`` admits, newest first."""
        self.start()
        which = which or LobbyFilter()
        tables = []
        for document in await self.documents.all(KIND):
            table = await self._table(document.key, document.body, which)
            if table is not None:
                tables.append(table)
        return sorted(tables, key=lambda t: (-t.created_ms, t.game.game_id))

    async def watch(self, which: LobbyFilter | None = None) -> AsyncGenerator[LobbyChange, None]:
        """The tables ``which`` admits, then a caught-up mark, then every change (a table
        listed or changed, or one gone) until the caller closes the generator, or the
        referee ends it with the error of :meth:`close_watches`."""
        self.start()
        which = which or LobbyFilter()
        with self._subscribed({KIND}) as subscription:
            shown: set[str] = set()
            for listed in await self.list(which):
                shown.add(listed.game.game_id)
                yield LobbyChange(table=listed)
            yield LobbyChange(caught_up=True)
            while True:
                for _, game_id in await subscription.next():
                    document = await self.documents.read(KIND, game_id)
                    table: LobbyTable | None = None
                    if document is not None:
                        table = await self._table(game_id, document.body, which)
                    if table is not None:
                        shown.add(game_id)
                        yield LobbyChange(table=table)
                    elif game_id in shown:
                        shown.discard(game_id)
                        yield LobbyChange(removed_game_id=game_id)

    async def _table(
        self, game_id: str, body: Mapping[str, Any], which: LobbyFilter
    ) -> LobbyTable | None:
        if not which.admits(body):
            return None
        try:
            live = await self.repository.get_current(game_id)
        except RefereeError as error:  # a game the store does not have: a stale document
            if error.kind is Kind.NOT_FOUND:
                return None
            raise
        summary = live.summary()
        if summary.game_over or not summary.listed:
            return None
        open_seats = tuple(int(s) for s in body.get("open_seats", ()))
        if self.presence is not None:
            named = [h.player for h in summary.seat_holders if h.player]
            online = await self.presence.online(named)
            holders = tuple(
                replace(h, online=online.get(h.player, False)) for h in summary.seat_holders
            )
            summary = replace(summary, seat_holders=holders)
        return LobbyTable(summary, open_seats, int(body.get("created_ms", 0)))

    # --- a player's inbox ------------------------------------------------------------------

    async def inbox(self, player: str) -> AsyncGenerator[Challenge | PairingTicket, None]:
        """The challenges and pairing tickets that concern ``player``: first the open
        challenges by, to or accepted by it, the open ones to anyone and its waiting ticket;
        then each change of those (an answer, a withdrawal, an expiry, a pairing; a
        challenge to anyone it was shown, also when another player takes it) and each new
        challenge for it, until the caller closes the generator."""
        self.start()
        with self._subscribed({CHALLENGE, PAIRING}) as subscription:
            # What this inbox delivered last of each challenge and ticket still open: a change
            # written after the subscription but before the snapshot is read is in both, and
            # comes once (a program that answers each open challenge it hears of would
            # otherwise answer one twice). An ended one changes no more: only its id is kept,
            # so a long-lived stream holds no ended challenge or ticket.
            shown: dict[str, Challenge | PairingTicket] = {}
            ended: set[str] = set()
            for challenge in await self.challenges.open_for(player):
                shown[challenge.challenge_id] = challenge
                yield challenge
            waiting = await self.pairing.waiting_for(player)
            if waiting is not None:
                shown[waiting.ticket_id] = waiting
                yield waiting
            while True:
                for kind, key in await subscription.next():
                    if key in ended:
                        continue
                    document = await self.documents.read(kind, key)
                    if document is None:
                        continue
                    item: Challenge | PairingTicket
                    if kind == CHALLENGE:
                        item = Challenge.from_json(document.body)
                        offered = not item.challenged and (
                            item.state is ChallengeState.OPEN or key in shown
                        )
                        wanted, over = (
                            item.concerns(player) or offered,
                            item.state is not ChallengeState.OPEN,
                        )
                    else:
                        item = PairingTicket.from_json(document.body)
                        wanted, over = item.player == player, item.state is not PairingState.WAITING
                    if wanted and shown.get(key) != item:
                        if over:
                            shown.pop(key, None)
                            ended.add(key)
                        else:
                            shown[key] = item
                        yield item

    # --- background ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the sweep (once; called by every call to the lobby, so a process that
        serves no lobby call does not scan the store for it)."""
        if self._sweeper is None or self._sweeper.done():
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # not inside the event loop (yet): the next call starts it
                return
            self._sweeper = asyncio.ensure_future(self._sweep())

    def close_watches(self, error: RefereeError) -> None:
        """End every watch and inbox with ``error`` (shutdown: clients resume elsewhere)."""
        for subscription in list(self._subscriptions):
            subscription.loop.call_soon_threadsafe(subscription.end, error)

    def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None

    async def sweep(self) -> None:
        """Expire challenges, and (on the replica holding the pass's lease) expire tickets
        and pair what the widened gaps allow."""
        await self._challenges.expire()
        if await self._pairing.lead(3 * self.limits.sweep_seconds):
            await self._pairing.run()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.limits.sweep_seconds)
            try:
                await self.sweep()
            except RuntimeError:  # the store's thread has stopped: the referee closed
                return
            except Exception:
                log.exception("lobby_sweep_failed")

    # --- listening to the store ------------------------------------------------------------

    def _subscribed(self, kinds: Iterable[str]) -> _Subscribed:
        return _Subscribed(self, _Subscription(frozenset(kinds)))

    def _listen(self) -> None:
        if self._unlisten is None:
            self._unlisten = self.documents.listen(self._heard)

    def _heard(self, kind: str, key: str, revision: int) -> None:  # any thread
        for subscription in list(self._subscriptions):
            if kind in subscription.kinds:
                try:
                    subscription.loop.call_soon_threadsafe(subscription.heard, kind, key)
                except RuntimeError:  # its loop has closed
                    self._subscriptions.discard(subscription)


class _Subscribed:
    """``with lobby._subscribed(kinds) as subscription``: registered before the snapshot is
    read, so no change between the snapshot and the first wait is lost."""

    def __init__(self, lobby: Lobby, subscription: _Subscription) -> None:
        self.lobby = lobby
        self.subscription = subscription

    def __enter__(self) -> _Subscription:
        self.lobby._listen()
        self.lobby._subscriptions.add(self.subscription)
        return self.subscription

    def __exit__(self, *_: object) -> None:
        self.lobby._subscriptions.discard(self.subscription)


__all__ = [
    "ClockFilter",
    "Lobby",
    "LobbyChange",
    "LobbyFilter",
    "LobbyLimits",
    "LobbyTable",
    "PairingState",
]
