"""Seats' commands: decide, append, answer; idempotent by command id, with expected versions.

:class:`Commands` takes a seat's command (an engine value), decides it on the live table,
appends what it causes with the command's outcome in one store transaction, and answers with
the seat's view right after it. A retry with the same command id gets the first outcome; a
command id reused for another command is refused; a rejected command's id remembers its
rejection. Another writer's appends (a replica on a shared store) are followed and the
command decided again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from referee.application.tables import access, errors
from referee.application.tables.errors import RefereeError
from referee.application.tables.live import REJECTED, LiveGame, now_ms
from referee.application.tables.repository import CONFLICT_RETRIES, MAX_ID_LENGTH, Repository
from referee.application.tables.timekeeper import Timekeeper
from referee.application.tables.values import Submitted, Unreadable
from referee.engine.game import Rejection
from referee.engine.registry import all_games
from referee.store import CommandOutcome, DuplicateCommand, VersionConflict
from referee.stored import Decided, encode_command

#: How many rejected command ids per game are remembered (a retry returns the first outcome).
REJECTED_MEMORY = 256


@dataclass(frozen=True, slots=True)
class _Submission:
    """A command as submitted: its id, engine value, stored payload, the version the sender
    expects and the decision time it reports."""

    command_id: str
    command: Any
    payload: bytes
    expected_version: int | None
    client_decision_ms: int


class Commands:
    """Seats' commands on the games of ``repository``; ``timekeeper`` does what follows them
    (timeouts, forfeits, the end)."""

    def __init__(self, repository: Repository, timekeeper: Timekeeper) -> None:
        self.repository = repository
        self.timekeeper = timekeeper

    async def submit(
        self,
        game_id: str,
        token: access.SeatKey,
        command_id: str,
        command: Any,
        *,
        expected_version: int | None = None,
        client_decision_ms: int = 0,
    ) -> Submitted:
        """See :meth:`referee.application.referee.Referee.submit`; ``token`` a seat token or a
        :class:`~referee.application.tables.access.PlayerSeat`."""
        arrival = now_ms()
        live = await self.repository.get(game_id)
        await access.read_claims_for(self.repository, live, token)
        seat = access.seat_of(live, token, spectator=False)
        assert seat is not None
        self.repository.present(live, seat)
        if not command_id or len(command_id) > MAX_ID_LENGTH:
            raise errors.bad_request(
                "command_id", f"required, at most {MAX_ID_LENGTH} characters (e.g. a UUID)"
            )
        game_type = live.record.game_type
        if isinstance(command, Unreadable):
            self.repository.count(live, seat, REJECTED)
            raise errors.bad_request(command.field, command.description)
        if type(command) not in live.table.game.command_types:
            self.repository.count(live, seat, REJECTED)
            raise errors.bad_request("command", f"this game is {game_type}, not {_owner(command)}")
        payload = encode_command(game_type, command)
        fingerprint = _fingerprint(seat, payload)
        return await self.repository.unit(
            self._submit_unit(
                live,
                seat,
                _Submission(command_id, command, payload, expected_version, client_decision_ms),
                fingerprint,
                arrival,
            )
        )

    async def _submit_unit(
        self, live: LiveGame, seat: int, sent: _Submission, fingerprint: str, arrival: int
    ) -> Submitted:
        """Decide, append, fold in and publish one command (see :meth:`Repository.unit`)."""
        repository = self.repository
        command_id = sent.command_id
        async with live.lock:
            first = live.accepted_outcome(command_id)
            if first is not None:
                if first.fingerprint != fingerprint:
                    raise _reused(command_id)
                return self._accepted(live, seat, first, duplicate=True)
            # An id this process has not accepted may still be in the store (accepted before a
            # restart, or by another process). Such a retry is stale by now, so the store is
            # asked only when the command cannot be applied; one that can goes to the append,
            # which refuses a recorded id itself (DuplicateCommand): no extra store round trip.
            refused = live.refusal(command_id)
            if refused is not None:
                first = await self._recorded(live, command_id, fingerprint)
                if first is not None:
                    return self._accepted(live, seat, first, duplicate=True)
                if refused[0] != fingerprint:
                    raise _reused(command_id)
                raise refused[1]
            if live.settings.clock.enabled:
                # A decision whose time ran out before this command arrived times out first
                # (however late the timer task runs on a busy server).
                await self.timekeeper.act(live, arrival)
            table = live.table
            expected = sent.expected_version
            # Another writer (a second process on a shared store) may have appended since we
            # last looked: then we catch up and decide again, a few times at most, instead of
            # answering CONFLICT to a client that asked for no particular version.
            for _attempt in range(CONFLICT_RETRIES):
                if expected is not None and expected > table.version:
                    # The client saw events we have not: another replica appended them and
                    # its notice is still on the way. Read them now rather than refuse.
                    await repository.follow_store(live)
                if expected is not None and expected != table.version:
                    first = await self._recorded(live, command_id, fingerprint)
                    if first is not None:
                        return self._accepted(live, seat, first, duplicate=True)
                    raise errors.version_conflict(expected, table.version, seat)
                try:
                    events = table.decide(seat, sent.command)
                except Rejection as rejection:
                    if repository.store.shared and await repository.follow_store(live):
                        continue  # we were behind another replica: decide on the current state
                    first = await self._recorded(live, command_id, fingerprint)
                    if first is not None:
                        return self._accepted(live, seat, first, duplicate=True)
                    violation = errors.rule_violation(rejection, seat)
                    live.refuse(command_id, fingerprint, violation, REJECTED_MEMORY)
                    repository.count(live, seat, REJECTED)
                    raise violation from None
                version = table.version
                decision_ms = live.seat_clocks.elapsed(seat, arrival)
                outcome = CommandOutcome(
                    command_id=command_id,
                    seat=seat,
                    fingerprint=fingerprint,
                    first_sequence=version + 1,
                    last_sequence=version + len(events),
                    payload=sent.payload,
                    decision_ms=decision_ms,
                )
                decided = Decided(seat, decision_ms, sent.client_decision_ms)
                try:
                    await repository.commit(live, events, decided, outcome)
                except DuplicateCommand as duplicate:  # recorded before (a retry) or elsewhere
                    if duplicate.outcome.fingerprint != fingerprint:
                        raise _reused(command_id) from None
                    # The store is ahead of us (the first try's answer was lost, or another
                    # replica took it): catch up, streams included, and make the moves that
                    # were due after it, which its writer may never have made.
                    await repository.follow_store(live)
                    await self.timekeeper.act(live)
                    return self._accepted(live, seat, duplicate.outcome, duplicate=True)
                except VersionConflict:
                    await repository.follow_store(live)
                    continue
                break
            else:
                raise errors.not_now("the game is busy; try again", "BUSY")
            live.accept(command_id, outcome)
            repository.metrics.decision_seconds_of(live.record.game_type).observe(
                decision_ms / 1000
            )
            answer = self._accepted(live, seat, outcome, duplicate=False)  # right after it
            await self.timekeeper.act(live)
        repository.fanout.publish(live)
        return answer

    async def _recorded(
        self, live: LiveGame, command_id: str, fingerprint: str
    ) -> CommandOutcome | None:
        """The outcome the store holds for ``command_id``, if any; raises if that id was used
        for a different command."""
        repository = self.repository
        first = await repository.call(repository.store.find_command, live.game_id, command_id)
        if first is not None and first.fingerprint != fingerprint:
            raise _reused(command_id)
        return first

    def _accepted(
        self, live: LiveGame, seat: int, outcome: CommandOutcome, *, duplicate: bool
    ) -> Submitted:
        return Submitted(
            game_type=live.record.game_type,
            seat=seat,
            first_sequence=outcome.first_sequence,
            last_sequence=outcome.last_sequence,
            duplicate=duplicate,
            view=live.view(seat),
            version=live.table.version,
        )


def _fingerprint(seat: int, payload: bytes) -> str:
    """What tells a retry of a command from another command sent with the same id."""
    return hashlib.sha256(seat.to_bytes(4, "big") + payload).hexdigest()


def _owner(command: Any) -> str:
    """The type id of the game whose command ``command`` is."""
    for game in all_games():
        if type(command) in game.command_types:
            return game.info.type_id
    return type(command).__qualname__


def _reused(command_id: str) -> RefereeError:
    return errors.bad_request(
        "command_id", f"{command_id!r} was already used for a different command"
    )


__all__ = ["REJECTED_MEMORY", "Commands"]
