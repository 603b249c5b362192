"""Games never stall, at the application layer: whenever the store holds
events of a game that its live copy has not applied, the live game catches up and every open
stream receives them, without anyone calling GetGame.

The faults are injected as they happen: an append that commits and whose answer is lost (a
store whose ``append_soon`` commits and then fails ``uncertain``, on SQLite; a TCP relay that
cuts the connection right after PostgreSQL answered the append), answered ``duplicate`` on
its retry or never retried; and a replica whose catch-up after another replica's append
fails once on a store fault.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from referee.application import Created, Kind, Referee, RefereeError, Update
from referee.store import (
    CommandOutcome,
    EventStore,
    MemoryEventStore,
    SqliteEventStore,
    StoredEvent,
    StoreUnavailable,
    open_store,
)
from tests.application.support import WAIT, refused
from tests.store.pg import postgres_url, temporary_database
from tests.store.relay import CuttingRelay, relayed_url, upstream_of

GAME = "sleeping-queens"


class CutAfterCommit(SqliteEventStore):
    """A SQLite store whose armed append commits, then answers as a connection lost after the
    commit does: :class:`StoreUnavailable`, ``uncertain``."""

    armed = False

    def append_soon(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        outcome: CommandOutcome | None = None,
    ) -> Future[int]:
        committing = super().append_soon(game_id, expected_version, events, outcome)
        if not self.armed:
            return committing
        self.armed = False
        answer: Future[int] = Future()

        def lost(done: Future[int]) -> None:
            error = done.exception()
            if error is None:
                error = StoreUnavailable("the connection was lost after the commit", uncertain=True)
            answer.set_exception(error)

        committing.add_done_callback(lost)
        return answer


class FailingReads(MemoryEventStore):
    """A memory store whose next ``failures`` reads of a game's log fail (a store fault)."""

    failures = 0

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        if self.failures:
            self.failures -= 1
            raise StoreUnavailable("the store is restarting")
        return super().read(game_id, after, limit)


class Streams:
    """Every seat's stream and a spectator's, each read into the last sequence it got."""

    def __init__(self, referee: Referee, created: Created) -> None:
        self.last: dict[str, int] = {}
        self.tasks: list[asyncio.Task[None]] = []
        viewers: list[tuple[str, dict[str, Any]]] = [("spectator", {"spectator": True})]
        viewers += [(f"seat {s}", {"seat_token": t}) for s, t in enumerate(created.seat_tokens)]
        for name, viewer in viewers:
            stream = referee.stream(created.game_id, batched=True, **viewer)
            self.last[name] = 0
            self.tasks.append(asyncio.ensure_future(self._read(name, stream)))

    async def _read(self, name: str, stream: AsyncGenerator[Update, None]) -> None:
        async with contextlib.aclosing(stream):
            async for update in stream:
                self.last[name] = update.view.view.version

    async def reach(self, version: int) -> None:
        """Every stream has the game up to ``version`` (a hang guard, not a timing check)."""
        try:
            async with asyncio.timeout(WAIT):
                while any(last < version for last in self.last.values()):
                    await asyncio.sleep(0.01)
        except TimeoutError:
            raise AssertionError(
                f"streams stalled at {self.last}, the store at {version}"
            ) from None

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def _first_command(referee: Referee, created: Created) -> tuple[str, Any]:
    live = referee.games[created.game_id]
    seat = live.table.pending()[0]
    return created.seat_tokens[seat], live.table.view(seat).legal_commands[0]


async def _uncertain(referee: Referee, created: Created, arm: Any, retry: bool) -> None:
    """One command whose append commits and is answered as lost; retried by its id when
    ``retry`` (then answered ``duplicate``)."""
    token, command = await _first_command(referee, created)
    arm()
    error = await refused(referee.submit(created.game_id, token, "uncertain-1", command))
    assert (error.kind, error.reason) == (Kind.UNAVAILABLE, "STORE_UNAVAILABLE")
    assert error.metadata == {"uncertain": "true"}
    if retry:
        for _ in range(100):  # the store may take a moment to come back (the relay's cut)
            try:
                answer = await referee.submit(created.game_id, token, "uncertain-1", command)
                break
            except RefereeError as again:
                assert again.kind is Kind.UNAVAILABLE
                await asyncio.sleep(0.1)
        assert answer.duplicate, "the retry applied the command again"


async def _no_stall(referee: Referee, store_version: Any, arm: Any, retry: bool) -> None:
    created = await referee.create(GAME, 2)
    streams = Streams(referee, created)
    try:
        await streams.reach(referee.games[created.game_id].table.version)
        await _uncertain(referee, created, arm, retry)
        target = await asyncio.to_thread(store_version, created.game_id)
        await streams.reach(target)
        # And the game goes on from there.
        token, command = await _first_command(referee, created)
        answer = await referee.submit(created.game_id, token, "after-1", command)
        assert not answer.duplicate
        await streams.reach(answer.version)
    finally:
        await streams.close()


@pytest.mark.parametrize("retry", [True, False], ids=["retried", "never-retried"])
def test_an_uncertain_append_on_sqlite_reaches_every_stream(tmp_path: Path, retry: bool) -> None:
    store = CutAfterCommit(str(tmp_path / "referee.sqlite3"))

    async def main() -> None:
        referee = Referee(store)
        await referee.recover()
        try:

            def arm() -> None:
                store.armed = True

            await _no_stall(referee, store.version, arm, retry)
        finally:
            referee.close()

    asyncio.run(main())


@pytest.fixture
def relay() -> Iterator[tuple[CuttingRelay, str]]:
    with temporary_database() as url:
        direct = postgres_url(url)
        cutting = CuttingRelay(upstream_of(direct))
        try:
            yield cutting, direct
        finally:
            cutting.close()


@pytest.mark.parametrize("retry", [True, False], ids=["retried", "never-retried"])
def test_an_append_cut_off_after_its_commit_on_postgresql_reaches_every_stream(
    relay: tuple[CuttingRelay, str], retry: bool
) -> None:
    cutting, direct = relay

    async def main() -> None:
        from referee.store.postgres import PostgresEventStore  # psycopg: the postgres extra

        referee = Referee(open_store(relayed_url(direct, cutting), wait=1.0))
        observer: EventStore = PostgresEventStore(direct, listen=False)
        await referee.recover()
        try:
            await _no_stall(referee, observer.version, cutting.arm, retry)
            assert cutting.cut.is_set(), "the relay did not cut the append's answer"
        finally:
            referee.close()
            observer.close()

    asyncio.run(main())


def test_a_catch_up_that_fails_on_a_store_fault_is_tried_again() -> None:
    """A replica hears of another's append, and its read of it fails: it reads again until
    the store answers, and its streams get the events."""
    store = FailingReads()

    async def main() -> None:
        async with _two_referees(store) as (first, second):
            created = await first.create(GAME, 2)
            await second.summary(created.game_id)  # loaded there: it follows the game
            streams = Streams(second, created)
            await streams.reach(created.summary.version)
            token, command = await _first_command(first, created)
            store.failures = 2
            answer = await first.submit(created.game_id, token, "c-1", command)
            await streams.reach(answer.version)
            await streams.close()

    asyncio.run(main())


@contextlib.asynccontextmanager
async def _two_referees(store: EventStore) -> AsyncIterator[tuple[Referee, Referee]]:
    """Two referees on one store (two replicas), recovered, closed after."""
    first, second = Referee(store), Referee(store)
    await first.recover()
    await second.recover()
    try:
        yield first, second
    finally:
        first.close()
        second.close()


class LoadsBeforeTheLastAppend(MemoryEventStore):
    """A memory store whose next whole-log read of the game ``early`` names (a load) returns
    its first ``early[1]`` events only, and announces the rest while the load is under way:
    as if another replica's append committed between the load's read and its end."""

    early: tuple[str, int] | None = None

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        stored = super().read(game_id, after, limit)
        if self.early is None or self.early[0] != game_id or after or limit is not None:
            return stored
        cut = self.early[1]
        self.early = None
        self._notify(game_id, len(stored))
        return stored[:cut]


def test_a_notice_heard_while_the_game_loads_is_caught_up() -> None:
    store = LoadsBeforeTheLastAppend()

    async def main() -> None:
        async with _two_referees(store) as (first, second):
            created = await first.create(GAME, 2)
            token, command = await _first_command(first, created)
            answer = await first.submit(created.game_id, token, "c-1", command)
            store.early = (created.game_id, answer.first_sequence - 1)
            await second.summary(created.game_id)  # loads it, one batch short
            streams = Streams(second, created)
            await streams.reach(answer.version)
            await streams.close()

    asyncio.run(main())
