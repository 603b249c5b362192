"""What the application-level tests share: a referee on a memory store, waits and refusals."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from referee.application import Limits, Referee, RefereeError
from referee.application.live import LiveGame
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
