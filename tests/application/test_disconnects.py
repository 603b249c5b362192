"""A seat's disconnects count faults, not reconnections.

A client that resumes its stream by sequence after its connection dropped, as
docs/clients.md says, did nothing wrong; a seat whose client closed its stream mid-game and
never came back within ``reconnect_window_seconds`` did. Also across replicas: on a shared
store, a seat that hung up on one referee and resumed on another is no fault either.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from referee.application import Limits, Referee
from referee.store import EventStore
from tests.application import support
from tests.store.pg import temporary_database

#: The reconnect window of these tests (the default is 30 s): long enough that a resume on a
#: loaded machine (CI's two cores) lands inside it, short enough to wait out.
WINDOW = 1.0
#: Across replicas the resume also waits for the second referee's stream to open on a shared
#: store (a PostgreSQL round trip or two on a loaded machine).
REPLICA_WINDOW = 3.0


def run(
    scenario: Callable[[Referee], Awaitable[None]],
    store: EventStore | None = None,
    window: float = WINDOW,
) -> None:
    support.run(scenario, Limits(reconnect_window_seconds=window), store)


async def disconnects(referee: Referee, game_id: str) -> list[int]:
    return [s.disconnects for s in (await referee.summary(game_id)).seat_stats]


async def hang_up(referee: Referee, game_id: str, token: str, after: int = 0) -> int:
    """Open the seat's stream, read its first message, close it (as a dropped connection
    does on the server's side); returns the version the client had seen."""
    stream = referee.stream(game_id, seat_token=token, after=after)
    first = await anext(stream)
    await stream.aclose()
    return first.view.view.version


def test_a_seat_that_resumes_by_sequence_within_the_window_has_no_disconnect() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create("vampire-queen", 3)
        token = created.seat_tokens[1]
        seen = await hang_up(referee, created.game_id, token)
        await asyncio.sleep(WINDOW / 3)
        resumed = referee.stream(created.game_id, seat_token=token, after=seen)
        await anext(resumed)
        await asyncio.sleep(WINDOW * 2)  # the window has passed, the stream is open
        assert await disconnects(referee, created.game_id) == [0, 0, 0]
        await resumed.aclose()  # and this one is never resumed
        await asyncio.sleep(WINDOW * 2)
        assert await disconnects(referee, created.game_id) == [0, 1, 0]

    run(scenario)


def test_a_seat_that_never_comes_back_is_counted_once_after_the_window() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create("vampire-queen", 3)
        await hang_up(referee, created.game_id, created.seat_tokens[2])
        assert await disconnects(referee, created.game_id) == [0, 0, 0], "counted too soon"
        await asyncio.sleep(WINDOW * 2)
        assert await disconnects(referee, created.game_id) == [0, 0, 1]

    run(scenario)


def test_a_seat_that_comes_back_after_the_window_was_disconnected() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create("vampire-queen", 3)
        seen = await hang_up(referee, created.game_id, created.seat_tokens[0])
        await asyncio.sleep(WINDOW * 2)
        await hang_up(referee, created.game_id, created.seat_tokens[0], after=seen)
        await asyncio.sleep(WINDOW / 3)
        assert await disconnects(referee, created.game_id) == [1, 0, 0]

    run(scenario)


def test_a_seat_that_resumes_on_another_replica_has_no_disconnect() -> None:
    from referee.store.postgres import PostgresEventStore

    with temporary_database() as url:

        async def scenario(first: Referee) -> None:
            second = Referee(
                PostgresEventStore(url), limits=Limits(reconnect_window_seconds=REPLICA_WINDOW)
            )
            await second.recover()
            try:
                created = await first.create("vampire-queen", 3)
                token = created.seat_tokens[1]
                # The second replica has the game loaded before the hang-up, as a replica
                # serving the game's other seats would: what is timed is the resume, not a
                # first load from PostgreSQL on a loaded machine.
                await second.summary(created.game_id)
                seen = await hang_up(first, created.game_id, token)
                # The first replica has written its count of the seat's opens before the
                # resume lands (its writer thread is behind by a commit or two; a resume
                # quicker than that is not told apart: docs/operations.md).
                await first.repository.call(lambda: None)
                resumed = second.stream(created.game_id, seat_token=token, after=seen)
                await anext(resumed)
                await asyncio.sleep(REPLICA_WINDOW * 2)
                assert await disconnects(first, created.game_id) == [0, 0, 0]
                await resumed.aclose()
            finally:
                second.close()

        run(scenario, PostgresEventStore(url), REPLICA_WINDOW)
