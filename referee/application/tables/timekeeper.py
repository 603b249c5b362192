"""The referee's timekeeper at the table: clocks, timeouts, forfeits, default plays, the reveal.

:class:`Timekeeper` does what nobody asks for: it times out decisions whose clock ran out,
plays the default commands of the seats that left (forfeited, resigned, abandoned), reveals
the seed when a game ends, ends a game whose table did not fill before its join deadline
(never a timeout or a forfeit: nobody played those seats): as a no-show, where the absent
reserved seats lose (``SeatsAbsent``, when the game scores a no-show as a loss and every
missing seat was reserved for a named player), else by an abort (void), records the end of a
game (and tells the repository's ``on_finished`` hooks, e.g. the ratings), and keeps one
timer per game for its next deadline.
Each of its moves is a batch of its own, committed through the
:class:`~referee.application.tables.repository.Repository`, which in turn asks the timekeeper
to set a game's timer when it loads or changes: the timekeeper opens its repository, handing
itself in as the repository's :class:`~referee.application.tables.repository.Timekeeping`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import structlog

from referee.application.tables.errors import RefereeError
from referee.application.tables.fanout import FanOut
from referee.application.tables.live import LiveGame, now_ms
from referee.application.tables.repository import CONFLICT_RETRIES, Limits, Repository
from referee.application.tables.seats import LOBBY
from referee.engine.game import Rejection
from referee.engine.outcomes import Ranking
from referee.engine.table_events import DefaultPlayed, SeatForfeited, TimedOut
from referee.metrics import Metrics
from referee.store import DocumentWrite, EventStore, StoreError, VersionConflict
from referee.stored import Decided, DecidedBy

log = structlog.get_logger("referee")

#: Most batches the referee appends in a row on its own (default plays of forfeited seats);
#: beyond it the game is aborted rather than played on forever.
AUTO_PLAY_LIMIT = 2000
#: After the store failed the referee's own append (a timeout, a forfeit's play), the next
#: try waits this long: a store that fails at once (a full disk) is not hammered, and an
#: overdue clock lands at most this much later than the store's recovery plus one wait for
#: it (docs/operations.md, "Store faults").
FAULT_RETRY_SECONDS = 0.1
#: The public reason of the abort of a game that never filled.
JOIN_DEADLINE_REASON = "the table did not fill before its join deadline"


class Timekeeper:
    """The referee's own moves on the games of its :attr:`repository`, which it opens on
    ``store`` (the repository calls on it when a game loads or changes)."""

    def __init__(self, store: EventStore, metrics: Metrics, limits: Limits, fanout: FanOut) -> None:
        self.metrics = metrics
        self.repository = Repository(store, metrics, limits, fanout, self)

    async def act(self, live: LiveGame, now: int | None = None) -> None:
        """Everything the referee must do by itself now, each as its own batch: reveal the
        seed of a game that ended, play the default commands of forfeited seats, time out the
        decisions whose clock ran out by ``now``. Then record the end of the game and set the
        timer of the next deadline. Call with the game's lock held; never raises a store error
        (what was committed stays committed; another writer's appends are caught up)."""
        repository = self.repository
        table = live.table
        before = table.version
        failed = False
        try:
            for _ in range(AUTO_PLAY_LIMIT):
                at = now_ms() if now is None else now
                if table.reveal_due():
                    await repository.commit(live, table.reveal(), None)
                elif live.join_deadline_ms and at >= live.join_deadline_ms:
                    await self._join_deadline(live)
                elif (played := table.forfeited_play()) is not None:
                    default = played[0]
                    assert isinstance(default, DefaultPlayed), "a default play comes first"
                    seat = default.seat
                    await repository.commit(live, played, Decided(seat, by=DecidedBy.FORFEIT))
                elif (due := self._overdue(live, at)) is not None:
                    await self._time_out(live, *due)
                else:
                    break
            else:
                if not table.over:
                    reason = "the forfeited seats' default commands did not end the game"
                    await repository.commit(live, table.abort(reason), None)
                    log.warning("game_aborted", game_id=live.game_id, reason=reason)
        except VersionConflict:
            # Another replica acted first (typically the same timeout, which must land once):
            # not a failure; follow the store so the timer below is set from the real state.
            log.info("referee_append_lost", game_id=live.game_id)
            try:
                await repository.follow_store(live)
            except (StoreError, RefereeError):  # RefereeError: a store fault (Repository.call)
                repository.settle(live)
        except (StoreError, RefereeError) as error:
            # The move may have committed (an uncertain append) or not: once the store
            # answers, the game catches up and the referee acts again (settle), clock or not.
            log.warning("referee_append_failed", game_id=live.game_id, error=str(error))
            repository.settle(live)
            failed = True
        if table.over and not live.ended:
            live.ended = True
            with contextlib.suppress(StoreError, RefereeError):
                await repository.call(repository.store.set_finished, live.game_id, True)
            repository.finished()
            self.metrics.game_ended(live)
            for hook in repository.on_finished:
                repository.spawn(hook(live))
            if live.settings.listed:
                repository.spawn(self._unlist(live))
        self.arm(live, FAULT_RETRY_SECONDS if failed else 0.0)
        if table.version != before:
            repository.fanout.publish(live)

    async def abandon(self, live: LiveGame, seat: int, reason: str) -> None:
        """The referee's own abandonment of ``seat`` (its player went away past the
        reconnect window), in a game that ranks finishers first and still runs: the seat is
        abandoned (``SeatAbandoned``), then the referee plays for it. Nothing for a game over,
        not started, of the rules' ranking, or a seat that left already; after another
        writer's append, the store is followed and the question asked again."""
        repository = self.repository
        async with live.lock:
            for _attempt in range(CONFLICT_RETRIES):
                table = live.table
                gone = table.status.left
                if table.ranking is not Ranking.FINISHERS_FIRST or seat in gone:
                    return
                if not table.started or table.over:
                    return
                try:
                    await repository.commit(live, table.abandon(seat, reason), None)
                    break
                except VersionConflict:
                    await repository.follow_store(live)
            else:
                return  # the game moves on without pause: its players are there
            log.info("seat_abandoned", game_id=live.game_id, seat=seat, reason=reason)
            await self.act(live)
        repository.fanout.publish(live)

    async def _join_deadline(self, live: LiveGame) -> None:
        """The table did not fill in time: the absent reserved seats lose (a no-show), or,
        when the game voids no-shows, when a missing seat was open (nobody to charge) or
        when nobody sat down, the game is aborted."""
        table = live.table
        claims = table.status.claims
        plan = live.settings.plan
        missing = [s for s in range(live.record.players) if plan(s).waits and s not in claims]
        named = all(plan(seat).mode == "reserved" for seat in missing)
        if live.settings.no_show_loses and named and len(missing) < live.record.players:
            await self.repository.commit(live, table.no_show(missing), None)
            log.info("game_no_show", game_id=live.game_id, absent=missing)
            return
        await self.repository.commit(live, table.abort(JOIN_DEADLINE_REASON), None)
        log.info("game_aborted", game_id=live.game_id, reason=JOIN_DEADLINE_REASON)

    async def _unlist(self, live: LiveGame) -> None:
        """A listed game that ended while it waited leaves the lobby (a started one has
        left it already)."""
        repository = self.repository
        store = repository.store
        with contextlib.suppress(StoreError, RefereeError):
            found = await repository.call(store.read_document, LOBBY, live.game_id)
            if found is not None:
                gone = DocumentWrite(LOBBY, live.game_id, None, found.revision, time.time())
                await repository.call(store.write_documents, [gone])

    async def resume(self, live: LiveGame) -> None:
        """After loading: whatever the referee had left to do (a reveal, overdue clocks)."""
        async with live.lock:
            await self.act(live)
        self.repository.fanout.publish(live)

    def _overdue(self, live: LiveGame, now: int) -> tuple[int, int] | None:
        """``(seat, elapsed ms)`` of the earliest decision whose time ran out by ``now``."""
        if not live.settings.clock.enabled or live.table.over:
            return None
        status = live.table.status
        first = live.seat_clocks.next_deadline(skip=status.forfeited)
        if first is None or first[0] > now:
            return None
        seat = first[1]
        return seat, live.seat_clocks.elapsed(seat, now)

    async def _time_out(self, live: LiveGame, seat: int, elapsed: int) -> None:
        try:
            events = live.table.time_out(seat)
        except Rejection as rejection:  # no legal command: a game bug, never a client's
            log.error("timeout_impossible", game_id=live.game_id, seat=seat, error=str(rejection))
            live.seat_clocks.starts.pop(seat, None)  # do not try again for this decision
            return
        decided = Decided(seat, elapsed, by=DecidedBy.TIMEOUT)
        await self.repository.commit(live, events, decided)
        timed_out = events[0]
        assert isinstance(timed_out, TimedOut)
        game_type = live.record.game_type
        self.metrics.seat_errors.labels(game_type, "timeout").inc()
        forfeited = any(isinstance(e, SeatForfeited) for e in events)
        if forfeited:
            self.metrics.seat_errors.labels(game_type, "forfeit").inc()
        log.info(
            "timeout",
            game_id=live.game_id,
            seat=seat,
            kind=timed_out.kind,
            timeouts=timed_out.timeouts,
            forfeited=forfeited,
            elapsed_ms=elapsed,
        )

    def arm(self, live: LiveGame, at_least: float = 0.0) -> None:
        """(Re)set the timer of the game's next deadline (its join deadline while it waits
        for players, then its clocks'), ``at_least`` seconds away."""
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        if live.table.over:
            return
        due = live.join_deadline_ms
        if not due:
            if not live.settings.clock.enabled:
                return
            first = live.seat_clocks.next_deadline(skip=live.table.status.forfeited)
            if first is None:
                return
            due = first[0]
        delay = max(at_least, (due - now_ms()) / 1000) + 0.001
        live.timer = asyncio.get_running_loop().call_later(delay, self._expire, live)

    def _expire(self, live: LiveGame) -> None:
        live.timer = None
        if self.repository.games.get(live.game_id) is live:
            self.repository.spawn(self._run(live))

    async def _run(self, live: LiveGame) -> None:
        try:
            async with live.lock:
                await self.act(live)
        except Exception:
            log.exception("referee_failed", game_id=live.game_id)


__all__ = [
    "AUTO_PLAY_LIMIT",
    "FAULT_RETRY_SECONDS",
    "JOIN_DEADLINE_REASON",
    "LOBBY",
    "Timekeeper",
]
