"""What a replica does with the games another replica serves: it follows a game
it holds without redoing work, and lets go of one it held only for a timer once nothing is
left to time. Two referees, each with its own PostgreSQL store on one database."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from referee.application import GameSettings, Referee, SeatPlan
from referee.application.tables.access import Player, PlayerSeat, Principal
from tests.store.pg import temporary_database

#: Seconds a test waits for something another replica does (a hang guard, not a speed check).
WAIT = 20.0


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    with temporary_database() as url:
        yield url


@contextlib.asynccontextmanager
async def _replicas(url: str) -> AsyncIterator[tuple[Referee, Referee]]:
    from referee.store.postgres import PostgresEventStore

    a, b = Referee(PostgresEventStore(url)), Referee(PostgresEventStore(url))
    try:
        for hub in (a, b):
            await hub.recover()
        yield a, b
    finally:
        a.close()
        b.close()


async def _until(predicate: Any) -> None:
    for _ in range(int(WAIT / 0.01)):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("gave up waiting")


def test_a_replica_lets_go_of_a_game_it_held_only_for_its_join_deadline(database: str) -> None:
    """b loads a waiting game created at a (its join deadline must fire at b if a dies), and
    drops it once it is dealt with no clock: b serves none of it, so following each of its
    events would be work for nothing. Asked for later, b loads it again, current."""

    async def scenario() -> None:
        async with _replicas(database) as (a, b):
            names = [f"p{uuid.uuid4().hex[:8]}" for _ in range(2)]
            for name in names:
                await a.players.create_account(name, "bot")
            settings = GameSettings(
                card_commitments=True, seats=(SeatPlan("open"),) * 2, listed=True
            )
            created = await a.create("dracula-vs-van-helsing", 2, settings=settings)
            game_id = created.game_id
            await _until(lambda: game_id in b.games)
            holders = {}
            for name in names:
                claimed = await a.seating.claim(game_id, Principal(Player(name, "bot")))
                holders[claimed.seat] = name
            await _until(lambda: game_id not in b.games)
            live = a.games[game_id]
            assert live.table.started
            seat = live.table.pending()[0]
            command = live.table.view(seat).legal_commands[0]
            held = PlayerSeat(Principal(Player(holders[seat], "")), seat)
            await a.commands.submit(game_id, held, str(uuid.uuid4()), command)
            await asyncio.sleep(0.2)  # b hears of it (a wait for nothing to happen, not timed)
            assert game_id not in b.games
            assert (await b.summary(game_id)).version == live.table.version

    asyncio.run(scenario())


def test_notices_heard_while_a_catch_up_is_queued_cost_one_read(database: str) -> None:
    """Three notices of a game b holds, heard before b's catch-up has read the store, make
    one read of it, not three (the later reads would find nothing new)."""

    async def scenario() -> None:
        async with _replicas(database) as (a, b):
            created = await a.create(
                "vampire-queen", 3, seed="coalesce", settings=GameSettings(public_seed=True)
            )
            game_id = created.game_id
            live = a.games[game_id]
            await b.summary(game_id)  # loads it
            mirror = b.games[game_id]
            b._stop_listening()  # the notices below are the test's, not the store's
            for _ in range(2):
                seat = live.table.pending()[0]
                command = live.table.view(seat).legal_commands[0]
                await a.submit(game_id, created.seat_tokens[seat], str(uuid.uuid4()), command)
            store = b.repository.store
            reads: list[int] = []
            read = store.read

            def counted(read_id: str, after: int = 0, limit: int | None = None) -> Any:
                if read_id == game_id:
                    reads.append(after)
                return read(read_id, after, limit)

            store.read = counted  # type: ignore[method-assign]
            for _ in range(3):
                b.repository._appended(game_id, live.table.version)
            await _until(lambda: mirror.table.version == live.table.version)
            await asyncio.sleep(0.2)  # any second catch-up would have read by now
            assert len(reads) == 1

    asyncio.run(scenario())


def test_notices_of_a_game_a_replica_does_not_hold_do_not_wake_its_loop(database: str) -> None:
    """b looked once at a game created at a (no timer: nothing to hold it for); the notices
    of a's later commands are dropped on b's notification thread, not handed to its loop."""

    async def scenario() -> None:
        async with _replicas(database) as (a, b):
            created = await a.create(
                "vampire-queen", 3, seed="unheld", settings=GameSettings(public_seed=True)
            )
            game_id = created.game_id
            live = a.games[game_id]
            await _until(lambda: game_id in b.repository._heard_of)
            heard: list[str] = []
            appended = b.repository._appended

            def counted(heard_id: str, version: int) -> None:
                if heard_id == game_id:
                    heard.append(heard_id)
                appended(heard_id, version)

            b.repository._appended = counted  # type: ignore[method-assign]
            seat = live.table.pending()[0]
            command = live.table.view(seat).legal_commands[0]
            await a.submit(game_id, created.seat_tokens[seat], str(uuid.uuid4()), command)
            # PostgreSQL delivers notices in commit order: once b's loop has the notice of a
            # game created after that command, the command's notice has been dealt with.
            later = await a.create(
                "vampire-queen", 3, seed="later", settings=GameSettings(public_seed=True)
            )
            await _until(lambda: later.game_id in b.repository._heard_of)
            assert heard == []
            # A game b holds still reaches its loop: the check that the counter can count.
            await b.summary(game_id)
            seat = live.table.pending()[0]
            command = live.table.view(seat).legal_commands[0]
            await a.submit(game_id, created.seat_tokens[seat], str(uuid.uuid4()), command)
            await _until(lambda: heard)
            assert heard == [game_id]
            assert game_id not in b.repository._adopted

    asyncio.run(scenario())
