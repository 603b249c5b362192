"""House bots: bot players the server runs itself (``Referee.house_bots``; docs/lobby.md).

Each configured level (:mod:`~referee.application.house.levels`) is played by one or more
player accounts of kind ``bot`` (``house-normal``, ``house-normal-2``, ...: a player holds
one seat of a game, so a table of bots needs one account per seat), created at start when
missing, each of which:

- **takes the seats reserved for it**: its session announces each seat reserved for it
  (:class:`~referee.application.players.sessions.Reserved`: those waiting when it opens, then each
  new one), and it claims the seat (:meth:`Seating.claim_for`, the lobby's own path);
- **accepts the challenges addressed to it** (not challenges to anyone: a house bot would
  then take every open challenge before a person could);
- **joins pairing when asked**: a person's pairing request that has waited
  ``pair_after_seconds`` (0: never) gets a house bot's request of the same terms, and a bot's
  request whose person has gone is cancelled;
- **plays its seats over a player session**
  (:class:`~referee.application.players.sessions.Session`), the very stream a remote
  program's PlayerSession follows: it sees its seats' redacted views, and nothing else, and
  decides from the latest view by its level's strategy within the per-move budget (the
  replacement rule is :mod:`~referee.application.house.levels`'s). A level that
  ``knows`` (``hard``) also keeps, per seat it holds, the redacted events the session
  delivered and the options of the game's summary (a remote bot's ``SeatKnowledge``), and
  decides from that :class:`~referee.search.worlds.Knowledge`.

Which seat each house bot takes in a game is decided in one place: :meth:`HouseBots.deciding`
holds a game while a bot claims its reserved seat, and while an organiser's fill
(:mod:`~referee.application.house.fill`) reads the game and claims its seats, so each reads
the game after the other's claims and they never pick the same seat for one bot.

Why in-process and not supervised ``referee-bot`` processes: a house bot needs no token, no
connection and no process of its own per level; it runs on the same application-layer path
(session, ``submit_held``) a remote player's session uses, so it is refereed identically;
and a decision is a few microseconds of the built-in strategies, far less than a process
hop. CPU-heavy levels run in a worker process pool (``Level.process``), so the event loop
never waits on them.

Metrics: ``referee_house_bot_decision_seconds`` (by level and game type),
``referee_house_bot_moves_total``, ``referee_house_bot_fallbacks_total`` (by reason) and
``referee_house_bot_claims_total`` (seats, challenges, pairings). Nothing logged names a
token.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import AsyncIterator, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any

import structlog
from prometheus_client import Counter, Histogram

from referee.application.house import levels as house_levels
from referee.application.house.levels import Deciders, Decision, Level
from referee.application.lobby.challenges import Challenge, ChallengeState
from referee.application.lobby.pairing import KIND as PAIRING
from referee.application.lobby.pairing import PairingState, PairingTicket
from referee.application.lobby.room import Lobby
from referee.application.players.accounts import Player, Players, Principal
from referee.application.players.seating import Seating
from referee.application.players.sessions import (
    GameMessage,
    Granted,
    Notice,
    Reserved,
    Session,
    SessionCommand,
    Sessions,
)
from referee.application.tables.errors import Kind, RefereeError
from referee.application.tables.live import now_ms as clock
from referee.application.tables.repository import Repository
from referee.application.tables.values import SeatView
from referee.bots import RandomStrategy
from referee.engine.openings import CardsOpened
from referee.metrics import Metrics
from referee.search.worlds import Knowledge

log = structlog.get_logger("referee")

#: Seconds between two passes over the waiting pairing requests.
PAIRING_PASS_SECONDS = 1.0
#: Seconds a bot waits before it opens its session again after the referee ended it.
REOPEN_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class HouseBot:
    """A house bot as clients see it (ListGameTypes' ``house_bots``)."""

    player: str
    level: str
    strategy: str
    description: str


@dataclass(eq=False)
class _Bot:
    """One running house bot: its session and what it is deciding."""

    level: Level
    name: str
    rng: random.Random
    session: Session | None = None
    task: asyncio.Future[None] | None = None
    #: The latest view of each seat it holds, by (game id, seat).
    latest: dict[tuple[str, int], SeatView] = field(default_factory=dict)
    #: The version of the last view decided, by seat.
    decided: dict[tuple[str, int], int] = field(default_factory=dict)
    playing: dict[tuple[str, int], asyncio.Future[None]] = field(default_factory=dict)
    #: A knowing level's record of each seat it holds: what its session delivered.
    heard: dict[tuple[str, int], _Heard] = field(default_factory=dict)


@dataclass(eq=False)
class _Heard:
    """One seat's redacted events as its session delivered them, and the game's options
    (its summary's, in the ``Granted`` that precedes the seat's events)."""

    options: dict[str, str]
    events: list[Any] = field(default_factory=list)
    #: The last event's sequence number: a reopened session replays from the game's first.
    last: int = 0
    #: An event was missed (a gap in the sequence): no knowledge, the moves are replaced.
    broken: bool = False


class _Meters:
    def __init__(self, metrics: Metrics) -> None:
        registry = metrics.registry
        self.seconds = Histogram(
            "referee_house_bot_decision_seconds",
            "House bots' decision time (the level's strategy, replaced or not).",
            ["level", "game_type"],
            buckets=(0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=registry,
        )
        self.moves = Counter(
            "referee_house_bot_moves_total",
            "Commands house bots sent, by level and game type.",
            ["level", "game_type"],
            registry=registry,
        )
        self.fallbacks = Counter(
            "referee_house_bot_fallbacks_total",
            "House bots' moves replaced by the random strategy, by reason (error, budget, "
            "illegal, refused).",
            ["level", "game_type", "reason"],
            registry=registry,
        )
        self.joined = Counter(
            "referee_house_bot_joins_total",
            "Games house bots joined, by how (seat, challenge, pairing).",
            ["level", "how"],
            registry=registry,
        )


class HouseBots:
    """The house bots of one referee (idle until :meth:`start`)."""

    def __init__(
        self,
        repository: Repository,
        sessions: Sessions,
        lobby: Lobby,
        seating: Seating,
        players: Players,
        metrics: Metrics,
    ) -> None:
        self.repository = repository
        self.sessions = sessions
        self.lobby = lobby
        self.seating = seating
        self.players = players
        self.metrics = metrics
        self.budget_ms = house_levels.DEFAULT_BUDGET_MS
        self.pair_after_seconds = 0.0
        self._bots: dict[str, _Bot] = {}
        self._meters: _Meters | None = None
        self._deciders: Deciders | None = None
        self._tasks: set[asyncio.Future[Any]] = set()
        #: The games whose house bots' seats are being decided: the lock and how many hold
        #: or wait for it (the entry goes with the last).
        self._deciding: dict[str, tuple[asyncio.Lock, int]] = {}
        self._pairing: asyncio.Future[Any] | None = None
        self._closed = False

    @property
    def bots(self) -> tuple[HouseBot, ...]:
        """The running house bots, every account, weakest level first (what clients
        discover, so that they can reserve a seat for each)."""
        return tuple(
            HouseBot(b.name, b.level.name, b.level.strategy, b.level.description)
            for b in self._bots.values()
        )

    def account(self, level: str) -> str:
        """The first account of the running bots of ``level`` (KeyError when none runs)."""
        for bot in self._bots.values():
            if bot.level.name == level:
                return bot.name
        raise KeyError(level)

    # --- life cycle -------------------------------------------------------------------------

    async def start(
        self,
        levels: Iterable[Level],
        *,
        budget_ms: int = house_levels.DEFAULT_BUDGET_MS,
        pair_after_seconds: float = 0.0,
        prefix: str = "house-",
        seed: int | None = None,
    ) -> tuple[HouseBot, ...]:
        """Run each level's accounts (inside the event loop, after ``Referee.recover``):
        create its account when missing, open its session, claim the seats reserved for it
        and start the pairing pass. ``seed`` makes the bots' random draws reproducible
        (tests). ValueError when a level's name is a person's account."""
        self.budget_ms = budget_ms
        self.pair_after_seconds = pair_after_seconds
        self._meters = self._meters or _Meters(self.metrics)
        self._deciders = self._deciders or Deciders()
        master = random.Random(seed if seed is not None else secrets.randbits(64))
        for level in levels:
            for name in house_levels.account_names(level, prefix):
                if name in self._bots:
                    continue
                await self._ensure_account(name)
                bot = _Bot(level, name, random.Random(master.getrandbits(64)))
                self._bots[name] = bot
                self._open(bot)
        if self._bots and pair_after_seconds > 0 and self._pairing is None:
            self._pairing = self._spawn(self._pairing_passes())
        log.info("house_bots_started", bots=[b.name for b in self._bots.values()])
        return self.bots

    async def _ensure_account(self, name: str) -> None:
        try:
            player = await self.players.get(name)
        except RefereeError as error:
            if error.kind is not Kind.NOT_FOUND:
                raise
            try:
                # The token is not kept: a house bot acts in-process as its player.
                await self.players.create_account(name, "bot")
                return
            except RefereeError as taken:  # another replica created it just now
                if taken.reason != "NAME_TAKEN":
                    raise
                player = await self.players.get(name)
        if player.platform or player.kind != "bot":
            owner = "a platform's player" if player.platform else f"a {player.kind} account"
            raise ValueError(f"the name {name!r} is {owner}'s")

    def close(self) -> None:
        """Stop every bot (their games go on by the clock rules, as for any absent seat)."""
        self._closed = True
        for bot in self._bots.values():
            if bot.session is not None:
                bot.session.close()
            for future in [bot.task, *bot.playing.values()]:
                if future is not None:
                    future.cancel()
        for task in self._tasks:
            task.cancel()
        if self._deciders is not None:
            self._deciders.close()

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # --- a bot's session --------------------------------------------------------------------

    def _open(self, bot: _Bot) -> None:
        bot.session = self.sessions.open(Principal(Player(bot.name, "bot")))
        bot.task = asyncio.ensure_future(self._follow(bot, bot.session))

    async def _follow(self, bot: _Bot, session: Session) -> None:
        try:
            async with contextlib.aclosing(session.messages()) as messages:
                async for message in messages:
                    if isinstance(message, GameMessage):
                        if bot.level.knows:
                            self._heard(bot, message)
                        self._seen_view(bot, message)
                    elif isinstance(message, Granted) and bot.level.knows:
                        key = (message.game_id, message.seat)
                        if key not in bot.heard:
                            bot.heard[key] = _Heard(dict(message.summary.options))
                    elif isinstance(message, Reserved):
                        self._spawn(self._claim_reserved(bot, message.game_id, message.seat))
                    elif isinstance(message, Notice) and isinstance(message.item, Challenge):
                        self._challenged(bot, message.item)
        except RefereeError as error:
            log.info("house_bot_session_ended", player=bot.name, reason=error.reason)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("house_bot_session_failed", player=bot.name)
        if not self._closed:  # the referee ended it (a backlog, a shutdown): open it again
            await asyncio.sleep(REOPEN_SECONDS)
            if not self._closed:
                self._open(bot)

    def _heard(self, bot: _Bot, message: GameMessage) -> None:
        """Keep the seat's new events (those a reopened session delivers again are skipped)."""
        key = (message.game_id, message.seat)
        heard = bot.heard.get(key)
        if heard is None:  # no Granted first: the options are unknown
            heard = bot.heard[key] = _Heard({}, broken=True)
        for stamped in message.update.events:
            if stamped.sequence <= heard.last:
                continue
            if stamped.sequence != heard.last + 1 and not heard.broken:
                heard.broken = True
                log.warning(
                    "house_bot_events_missed",
                    player=bot.name,
                    game_id=key[0],
                    seat=key[1],
                    after=heard.last,
                    got=stamped.sequence,
                )
            event = stamped.event
            heard.events.append(event.as_received() if isinstance(event, CardsOpened) else event)
            heard.last = stamped.sequence

    def _knowledge(self, bot: _Bot, key: tuple[str, int], seat_view: SeatView) -> Knowledge | None:
        """The seat's knowledge as of ``seat_view`` (taken with it, before any await, so the
        events and the view are of the same moment), or None when events were missed."""
        heard = bot.heard.get(key)
        view = seat_view.view
        if heard is None or heard.broken or heard.last != view.version:
            return None
        return Knowledge(
            view.game_type, seat_view.players, heard.options, key[1], tuple(heard.events), view
        )

    def _seen_view(self, bot: _Bot, message: GameMessage) -> None:
        key = (message.game_id, message.seat)
        view = message.update.view
        if view.view.over:
            bot.latest.pop(key, None)
            bot.decided.pop(key, None)
            bot.heard.pop(key, None)
            return
        bot.latest[key] = view
        playing = bot.playing.get(key)
        if view.view.legal_commands and (playing is None or playing.done()):
            bot.playing[key] = asyncio.ensure_future(self._play(bot, key))

    async def _play(self, bot: _Bot, key: tuple[str, int]) -> None:
        """Decide from the latest view of the seat until it asks nothing new (views that came
        while deciding are skipped for the newest: only it is the seat's present)."""
        try:
            while not self._closed:
                seat_view = bot.latest.get(key)
                if seat_view is None:
                    return
                view = seat_view.view
                if view.over or not view.legal_commands or bot.decided.get(key) == view.version:
                    return
                bot.decided[key] = view.version
                assert self._deciders is not None
                known = self._knowledge(bot, key, seat_view) if bot.level.knows else None
                decision = await house_levels.decide(
                    bot.level,
                    view,
                    seat_view.players,
                    bot.rng,
                    self.budget_ms,
                    self._deciders,
                    known,
                )
                self._measured(bot, view.game_type, decision, key, view.version)
                await self._submit(bot, key, seat_view, decision)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("house_bot_play_failed", player=bot.name, game_id=key[0], seat=key[1])
        finally:
            if bot.playing.get(key) is asyncio.current_task():
                del bot.playing[key]

    def _measured(
        self, bot: _Bot, game_type: str, decision: Decision, key: tuple[str, int], version: int
    ) -> None:
        meters = self._meters
        assert meters is not None
        meters.seconds.labels(bot.level.name, game_type).observe(decision.seconds)
        meters.moves.labels(bot.level.name, game_type).inc()
        if decision.fallback:
            self._fell_back(bot, game_type, decision.fallback, key, version)

    def _fell_back(
        self, bot: _Bot, game_type: str, reason: str, key: tuple[str, int], version: int
    ) -> None:
        assert self._meters is not None
        self._meters.fallbacks.labels(bot.level.name, game_type, reason).inc()
        log.warning(
            "house_bot_fallback",
            player=bot.name,
            level=bot.level.name,
            game_id=key[0],
            seat=key[1],
            version=version,
            reason=reason,
            budget_ms=self.budget_ms,
        )

    async def _submit(
        self, bot: _Bot, key: tuple[str, int], seat_view: SeatView, decision: Decision
    ) -> None:
        game_id, seat = key
        view = seat_view.view
        command = decision.command
        for attempt in range(2):
            sent = SessionCommand(
                game_id,
                seat,
                f"house-{view.version}-{attempt}",
                command,
                expected_version=view.version,
                client_decision_ms=int(decision.seconds * 1000),
            )
            try:
                await self.seating.submit_held(bot.name, sent)
                return
            except RefereeError as error:
                if error.kind in (Kind.CONFLICT, Kind.NOT_NOW, Kind.NOT_FOUND):
                    return  # the game moved on (a timeout's default, an abort): a newer view
                if attempt == 0:
                    self._fell_back(bot, view.game_type, "refused", key, view.version)
                    command = RandomStrategy().choose(view, seat_view.players, bot.rng)
                else:
                    log.warning(
                        "house_bot_refused",
                        player=bot.name,
                        game_id=game_id,
                        seat=seat,
                        reason=error.reason,
                    )

    # --- challenges -------------------------------------------------------------------------

    def _challenged(self, bot: _Bot, challenge: Challenge) -> None:
        if challenge.challenged == bot.name and challenge.state is ChallengeState.OPEN:
            self._spawn(self._accept(bot, challenge))

    async def _accept(self, bot: _Bot, challenge: Challenge) -> None:
        try:
            await self.lobby.challenges.answer(challenge.challenge_id, bot.name, True)
        except RefereeError as error:
            log.info(
                "house_bot_challenge_not_accepted",
                player=bot.name,
                challenge_id=challenge.challenge_id,
                reason=error.reason,
            )
            return
        assert self._meters is not None
        self._meters.joined.labels(bot.level.name, "challenge").inc()

    # --- seats reserved for a bot ------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def deciding(self, game_id: str) -> AsyncIterator[None]:
        """Hold ``game_id`` while deciding and claiming house bots' seats in it: a bot
        claiming its reserved seat and an organiser's fill wait for each other, so the one
        that comes second reads the game with the first one's claims (one replica's; another
        replica's bot is refused by the store, SEAT_TAKEN or ALREADY_SEATED)."""
        lock, users = self._deciding.get(game_id, (None, 0))
        lock = lock or asyncio.Lock()
        self._deciding[game_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._deciding[game_id]
            if users == 1:
                del self._deciding[game_id]
            else:
                self._deciding[game_id] = (lock, users - 1)

    async def _claim_reserved(self, bot: _Bot, game_id: str, seat: int) -> None:
        """Claim the seat the bot's session announced reserved for it, unless the game has
        moved on meanwhile (an organiser's fill seated the bot, the game started or ended)."""
        try:
            async with self.deciding(game_id):
                # The repository waits for a game still being created (its live copy).
                live = await self.repository.get_current(game_id)
                holder = next((h for h in live.holders() if h.seat == seat), None)
                if (
                    live.table.started
                    or live.table.over
                    or holder is None
                    or holder.state != "reserved"
                    or holder.player != bot.name
                ):
                    return
                await self.seating.claim_for(game_id, seat, Player(bot.name, "bot"))
        except RefereeError as error:  # taken by another replica's bot, aborted, ...
            log.info("house_bot_claim_failed", game_id=game_id, seat=seat, reason=error.reason)
            return
        except Exception:
            log.exception("house_bot_claim_failed", game_id=game_id, seat=seat)
            return
        assert self._meters is not None
        self._meters.joined.labels(bot.level.name, "seat").inc()

    # --- pairing ----------------------------------------------------------------------------

    async def _pairing_passes(self) -> None:
        while not self._closed:
            await asyncio.sleep(PAIRING_PASS_SECONDS)
            try:
                await self.pair_pass()
            except RuntimeError:  # the store's thread has stopped: the referee closed
                return
            except Exception:
                log.exception("house_bot_pairing_failed")

    async def pair_pass(self, now_ms: int | None = None) -> None:
        """Join each person's request waiting ``pair_after_seconds`` with a house bot's (the
        first level with none waiting), and cancel a bot's request no person waits with."""
        now = clock() if now_ms is None else now_ms
        tickets = [PairingTicket.from_json(d.body) for d in await self.lobby.documents.all(PAIRING)]
        waiting = [t for t in tickets if t.state is PairingState.WAITING]
        people = [t for t in waiting if t.player not in self._bots]
        bots = {t.player: t for t in waiting if t.player in self._bots}
        wanted = {t.terms.key for t in people}
        for name, ticket in bots.items():
            if ticket.terms.key not in wanted:
                with contextlib.suppress(RefereeError):
                    await self.lobby.pairing.cancel(ticket.ticket_id, name)
                del bots[name]
                break  # the dict changed: the rest are looked at on the next pass
        covered = {t.terms.key for t in bots.values()}
        for person in sorted(people, key=lambda t: t.created_ms):
            if person.terms.key in covered:
                continue
            if now - person.created_ms < self.pair_after_seconds * 1000:
                continue
            free = [b for b in self._bots.values() if b.name not in bots]
            if not free:
                return
            bot = free[0]
            try:
                ticket = await self.lobby.pairing.request(bot.name, person.terms)
            except RefereeError as error:
                log.info("house_bot_pairing_refused", player=bot.name, reason=error.reason)
                continue
            covered.add(person.terms.key)
            if ticket.state is PairingState.WAITING:
                bots[bot.name] = ticket
            assert self._meters is not None
            self._meters.joined.labels(bot.level.name, "pairing").inc()


__all__ = ["HouseBot", "HouseBots"]
