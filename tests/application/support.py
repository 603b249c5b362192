"""What the application-level tests share: a referee on a memory store, waits and refusals."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from referee.application import Created, Limits, Referee, RefereeError, Submitted
from referee.application.tables.live import LiveGame
from referee.store import EventStore, MemoryEventStore

#: Seconds a test waits for the referee's own moves (a hang guard, not a speed check).
WAIT = 20.0


def run(
    scenario: Callable[[Referee], Awaitable[None]],
    limits: Limits | None = None,
    store: EventStore | None = None,
) -> None:
    """``scenario(referee)`` on a fresh referee (a memory store unless ``store``), closed after."""

    async def main() -> None:
        referee = Referee(store or MemoryEventStore(), limits=limits)
        await referee.recover()
        try:
            await scenario(referee)
        finally:
            referee.close()

    asyncio.run(main())


async def until(predicate: Callable[[], bool]) -> None:
    for _ in range(int(WAIT / 0.01)):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("gave up waiting")


async def refused(call: Awaitable[Any]) -> RefereeError:
    with pytest.raises(RefereeError) as caught:
        await call
    return caught.value


def first_legal(live: LiveGame, seat: int) -> Any:
    return live.table.view(seat).legal_commands[0]


def awaited(referee: Referee, created: Created) -> tuple[LiveGame, int, str, Any]:
    """The live game, the seat it waits for first, that seat's token and first legal command."""
    live = referee.games[created.game_id]
    seat = live.table.pending()[0]
    return live, seat, created.seat_tokens[seat], first_legal(live, seat)


async def plays(
    referee: Referee, created: Created, seed: int
) -> AsyncIterator[tuple[int, Submitted]]:
    """Random legal commands (``random.Random(seed)``) until the game is over: each command's
    seat and answer. The game may leave memory between commands: it is asked for each time."""
    rng = random.Random(seed)
    number = 0
    while not (await referee.summary(created.game_id)).game_over:
        live = referee.games[created.game_id]  # loaded by the summary
        seat = live.table.pending()[0]
        command = rng.choice(live.table.view(seat).legal_commands)
        token = created.seat_tokens[seat]
        yield seat, await referee.submit(created.game_id, token, f"r{seed}-{number}", command)
        number += 1


async def play_to_end(referee: Referee, created: Created, seed: int) -> list[Submitted]:
    return [answer async for _, answer in plays(referee, created, seed)]
