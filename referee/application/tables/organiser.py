"""The organiser's calls: abort a game, remove a seat, reveal a deferred seed, export the full
log; and the abort of abandoned games, which the referee makes on the organiser's behalf.

Each change is a batch of its own (:meth:`Organiser._batch`), decided again after another
writer's append, then handed to the timekeeper for what follows (the reveal after an
abort, the end of the game).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import structlog

from referee.application.tables import access, errors
from referee.application.tables.errors import RefereeError
from referee.application.tables.live import LiveGame, now_ms
from referee.application.tables.repository import CONFLICT_RETRIES, Repository
from referee.application.tables.timekeeper import Timekeeper
from referee.application.tables.values import Exported, RecordedCommand, Summary
from referee.engine.game import Rejection
from referee.engine.outcomes import Ranking
from referee.store import StoreError, VersionConflict
from referee.stored import read_command

log = structlog.get_logger("referee")

#: Longest abort reason (it is public, in the log).
MAX_REASON_LENGTH = 300


class Organiser:
    """The organiser's calls on the games of ``repository``."""

    def __init__(self, repository: Repository, timekeeper: Timekeeper) -> None:
        self.repository = repository
        self.timekeeper = timekeeper

    async def abort(self, game_id: str, organiser_token: str, reason: str = "") -> Summary:
        """End the game now, with a public ``reason``."""
        live = await self.repository.get(game_id)
        access.check_organiser(live, organiser_token)
        reason = reason.strip() or "aborted by the organiser"
        if len(reason) > MAX_REASON_LENGTH:
            raise errors.bad_request("reason", f"at most {MAX_REASON_LENGTH} characters")
        await self.repository.unit(self._abort_unit(live, reason))
        log.info("game_aborted", game_id=live.game_id, reason=reason)
        return live.summary()

    async def _abort_unit(self, live: LiveGame, reason: str) -> None:
        async with live.lock:
            await self._batch(live, lambda: live.table.abort(reason), "GAME_OVER")
            await self.timekeeper.act(live)
        self.repository.fanout.publish(live)

    async def _batch(
        self, live: LiveGame, events: Callable[[], list[Any]], refused: str = ""
    ) -> None:
        """Commit the batch ``events()`` decides (abort, reveal, a seat removed); after
        another writer's append, follow the store and decide again. Call with the game's
        lock held. A refusal is FAILED_PRECONDITION ``refused`` (the rule's id without)."""
        for _attempt in range(CONFLICT_RETRIES):
            try:
                batch = events()
            except Rejection as rejection:
                raise errors.not_now(rejection.message, refused or rejection.rule_id) from None
            try:
                await self.repository.commit(live, batch, None)
                return
            except VersionConflict:
                await self.repository.follow_store(live)
        raise errors.not_now("the game moved on; try again", "BUSY")

    async def remove_seat(
        self, game_id: str, organiser_token: str, seat: int, reason: str = ""
    ) -> Summary:
        """The organiser removes ``seat`` from its running game (a bot that crashed or stopped
        answering): the seat is abandoned (rule ``ABANDONED``), with the public ``reason``,
        and the referee plays for it to the end, as for a seat that resigned.
        FAILED_PRECONDITION ``GAME_OVER``, ``GAME_NOT_STARTED``, ``LEFT`` (it left already);
        INVALID_ARGUMENT on ``seat`` or ``reason``."""
        live = await self.repository.get(game_id)
        access.check_organiser(live, organiser_token)
        if not 0 <= seat < live.record.players:
            raise errors.bad_request("seat", f"no seat {seat} at this table")
        reason = reason.strip()
        if len(reason) > MAX_REASON_LENGTH:
            raise errors.bad_request("reason", f"at most {MAX_REASON_LENGTH} characters")
        words = "the organiser removed it" + (f": {reason}" if reason else "")
        await self.repository.unit(self._remove_unit(live, seat, words))
        log.info("seat_removed", game_id=live.game_id, seat=seat, reason=reason)
        return live.summary()

    async def _remove_unit(self, live: LiveGame, seat: int, words: str) -> None:
        async with live.lock:
            await self._batch(live, lambda: live.table.abandon(seat, words))
            await self.timekeeper.act(live)
        self.repository.fanout.publish(live)

    async def reveal(self, game_id: str, organiser_token: str) -> Summary:
        """Reveal the seed of a game that is over (one created with ``defer_seed_reveal``);
        the organiser's summary, with the seed."""
        live = await self.repository.get(game_id)
        access.check_organiser(live, organiser_token)
        await self.repository.unit(self._reveal_unit(live))
        return live.summary(organiser=True)

    async def _reveal_unit(self, live: LiveGame) -> None:
        async with live.lock:
            if live.table.status.revealed is None:
                await self._batch(live, live.table.reveal, "NOT_OVER")
        self.repository.fanout.publish(live)

    async def export(self, game_id: str, organiser_token: str = "") -> Exported:
        """The full log and commands of a game whose seed has been released, for its organiser
        (or anyone, when the game waived end-of-game secrecy; docs/fairness.md)."""
        repository = self.repository
        live = await repository.get(game_id)
        if organiser_token or not live.settings.public_reveal:
            if not organiser_token:
                raise errors.token_missing(
                    "organiser_token is required: the full log shows every hidden card "
                    "(public only for a game created with public_reveal_waives_secrecy)"
                )
            access.check_organiser(live, organiser_token)
            access.check_claimed_secrecy(live, None)
        if live.table.status.revealed is None:
            raise errors.not_now(
                "the full log is released once the seed is revealed (after the game)",
                "NOT_REVEALED",
            )
        recorded = await repository.call(repository.store.commands, live.game_id)
        version = live.table.version
        events = tuple(live.stamped(i, None, redact=False) for i in range(version))
        commands = tuple(
            RecordedCommand(
                o.seat,
                o.first_sequence,
                o.last_sequence,
                o.decision_ms,
                read_command(o.payload)[1],
            )
            for o in recorded
        )
        return Exported(live.summary(organiser=True), events, commands)

    async def expire_abandoned(self) -> None:
        """Games without a clock that had no event for ``idle_expiry_seconds``: in one that
        ranks finishers first and has started, each seat it waits for is abandoned (and
        loses), connected or not; any other is aborted, with a public reason, once no seat
        stream is open."""
        repository = self.repository
        expiry = repository.limits.idle_expiry_seconds
        if expiry <= 0:
            return
        cutoff = now_ms() - int(expiry * 1000)
        hours = expiry / 3600
        idle = f"{hours:g} h" if hours >= 1 else f"{expiry:g} s"
        reason = f"abandoned: no move and no seat connected for {idle}"
        for game_id, last in list(repository.activity.items()):
            if last > cutoff:
                continue
            live = repository.games.get(game_id) or await repository.get(game_id)
            if live.over or live.settings.clock.enabled:
                repository.activity.pop(game_id, None)  # never abandoned: forget it
                continue
            table = live.table
            if table.ranking is Ranking.FINISHERS_FIRST and table.started:
                # A seat that keeps its stream open and never moves would hold the game for
                # ever, and outlast (so outrank) a player who gives up waiting: it loses.
                for seat in table.pending():
                    with contextlib.suppress(StoreError, RefereeError):  # the next sweep
                        await self.timekeeper.abandon(live, seat, f"no move for {idle}")
                continue
            if any(sub.seat is not None for sub in live.subscribers):
                continue  # a seat is connected: not abandoned (yet)
            with contextlib.suppress(RefereeError):
                await repository.unit(self._abort_unit(live, reason))
                log.info("game_expired", game_id=game_id, reason=reason)


__all__ = ["MAX_REASON_LENGTH", "Organiser"]
