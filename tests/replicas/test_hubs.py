"""Two referees, each with its own PostgreSQL store on one database: two replicas in one process.

What a replica must do when another one writes to the same game: take a command from a client
that saw more than it has (read the store instead of refusing), follow the other replica's
appends from the notifications, and let a clock's timeout land exactly once when both time
it out.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from referee.application import Created, Limits, Referee, Submitted
from referee.application.tables.clocks import Clock, GameSettings
from referee.application.tables.live import LiveGame
from referee.engine.table_events import TimedOut
from referee.metrics import Metrics
from tests.store.pg import temporary_database

#: Seconds a test waits for something another replica does (a hang guard, not a speed check).
WAIT = 20.0


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    with temporary_database() as url:
        yield url


@contextlib.asynccontextmanager
async def _replicas(url: str, count: int = 2) -> AsyncIterator[list[Referee]]:
    """``count`` referees, each on its own PostgreSQL store of database ``url``, listening."""
    from referee.store.postgres import PostgresEventStore

    hubs = [Referee(PostgresEventStore(url), Metrics(), Limits()) for _ in range(count)]
    try:
        for hub in hubs:
            await hub.recover()
        yield hubs
    finally:
        for hub in hubs:
            hub.close()


async def _play(referee: Referee, live: LiveGame, seat: int, token: str, **terms: Any) -> Submitted:
    """Submit ``seat``'s first legal command (as ``live`` sees it) at ``referee``."""
    command = live.table.view(seat).legal_commands[0]
    return await referee.submit(live.game_id, token, str(uuid.uuid4()), command, **terms)


async def _create(
    referee: Referee, seed: str, options: dict[str, str] | None = None, **settings: Any
) -> tuple[LiveGame, Created]:
    created = await referee.create(
        "vampire-queen",
        3,
        options,
        seed=seed,
        settings=GameSettings(public_seed=True, card_commitments=True, **settings),
    )
    return referee.games[created.game_id], created


async def _load(referee: Referee, game_id: str) -> LiveGame:
    await referee.summary(game_id)  # loads it
    return referee.games[game_id]


async def _until(predicate: Any) -> None:
    for _ in range(int(WAIT / 0.01)):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("gave up waiting")


def test_a_replica_behind_the_client_reads_the_store_instead_of_refusing(database: str) -> None:
    async def scenario() -> None:
        async with _replicas(database) as (a, b):
            live, created = await _create(a, "behind")
            tokens = created.seat_tokens
            mirror = await _load(b, live.game_id)
            b._stop_listening()  # b hears nothing more: as if every notice were late
            for _ in range(6):
                seat = live.table.pending()[0]
                await _play(a, live, seat, tokens[seat])
                assert mirror.table.version < live.table.version  # b heard nothing
                # The client saw a's latest view and sends its command to b.
                seat = live.table.pending()[0]
                ahead = live.table.version
                response = await _play(b, live, seat, tokens[seat], expected_version=ahead)
                assert (response.first_sequence, response.duplicate) == (ahead + 1, False)
                await _until(lambda: live.table.version == mirror.table.version)  # a listens
            assert live.table.state == mirror.table.state

    asyncio.run(scenario())


def test_a_rule_refusal_on_a_stale_replica_is_rechecked_against_the_store(database: str) -> None:
    """Without expected_version: the command is legal on the real state, not on b's stale
    copy; b follows the store and accepts it (no RULE_VIOLATION, no rejected count)."""

    async def scenario() -> None:
        async with _replicas(database) as (a, b):
            live, created = await _create(a, "stale-rule")
            tokens = created.seat_tokens
            mirror = await _load(b, live.game_id)
            b._stop_listening()
            # Play at a until the seat to move changes, so b's copy names the wrong seat.
            first = live.table.pending()[0]
            while live.table.pending()[0] == first and not live.over:
                seat = live.table.pending()[0]
                await _play(a, live, seat, tokens[seat])
            seat = live.table.pending()[0]
            assert seat not in mirror.table.pending()
            before = live.table.version  # a may follow b's append before the next line runs
            response = await _play(b, live, seat, tokens[seat])
            assert response.first_sequence == before + 1
            assert mirror.stats.get(seat, {}).get("rejected", 0) == 0

    asyncio.run(scenario())


def test_a_timeout_lands_once_when_every_replica_times_it_out(database: str) -> None:
    """Three replicas hold a clocked game; nobody plays. Each pending decision times out
    exactly once in the log although every replica's timer fires, and the replicas that lost
    the race follow the winner (their copies end equal)."""

    async def scenario() -> None:
        async with _replicas(database, 3) as hubs:
            live, _ = await _create(
                hubs[0],
                "timeouts",
                {"rounds": "1"},
                clock=Clock(decision_ms=100, forfeit_after_timeouts=2),
                connect_grace_ms=0,  # nobody will call: the clocks run from the start
            )
            copies = [live] + [await _load(hub, live.game_id) for hub in hubs[1:]]
            await _until(lambda: all(c.over for c in copies))
            await _until(lambda: len({c.table.version for c in copies}) == 1)
            log = copies[0].table.log
            timeouts = [e for e in log if isinstance(e, TimedOut)]
            assert timeouts, "the clocks ran out"
            # One TimedOut per (seat, count): a second replica's identical timeout lost.
            assert len({(t.seat, t.timeouts) for t in timeouts}) == len(timeouts)
            for other in copies[1:]:
                assert other.table.log == log

    asyncio.run(scenario())


def test_a_replica_adopts_clocked_games_created_elsewhere(database: str) -> None:
    """b never served the game, yet loads it when a's notice arrives, so its clock would
    fire at b if a were gone."""

    async def scenario() -> None:
        async with _replicas(database) as (a, b):
            live, created = await _create(a, "adopt", clock=Clock(decision_ms=60_000))
            await _until(lambda: live.game_id in b.games)
            plain, _ = await _create(a, "no-clock")
            await a.abort(live.game_id, created.organiser_token, "x")
            await _until(lambda: b.games[live.game_id].over)
            assert plain.game_id not in b.games  # no clock: loaded only when asked for

    asyncio.run(scenario())


def test_a_view_read_at_a_stale_replica_shows_what_the_store_holds(database: str) -> None:
    """GetView and GetGame at a replica whose notices are late still show the latest
    version, so a client that reads at one replica and commands at another is not refused."""

    async def scenario() -> None:
        async with _replicas(database) as (a, b):
            live, created = await _create(a, "stale-view")
            tokens = created.seat_tokens
            mirror = await _load(b, live.game_id)
            b._stop_listening()
            seat = live.table.pending()[0]
            await _play(a, live, seat, tokens[seat])
            assert mirror.table.version < live.table.version
            seen = await b.view(live.game_id, seat_token=tokens[seat])
            assert seen.view.version == live.table.version
            assert mirror.table.version == live.table.version
            # GetGame too: a summary read at a stale replica is the store's.
            seat = live.table.pending()[0]
            await _play(a, live, seat, tokens[seat])
            assert mirror.table.version < live.table.version
            assert (await b.summary(live.game_id)).version == live.table.version

    asyncio.run(scenario())
