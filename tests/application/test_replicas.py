"""Two referees on one store: the store's notifications keep a second process's copy current.

This is the seam a networked store (e.g. PostgreSQL LISTEN/NOTIFY) plugs into: the referee never
assumes it is the only writer. (Moved from tests/server/test_shared_store.py: it drives the
application directly. Replicas on real PostgreSQL: tests/replicas/test_hubs.py.)
"""

from __future__ import annotations

import asyncio
import uuid

from referee.application import GameSettings, Referee
from referee.store import MemoryEventStore


async def _scenario() -> None:
    store = MemoryEventStore()
    first = Referee(store)
    second = Referee(store)
    await first.recover()
    await second.recover()
    created = await first.create(
        "vampire-queen", 3, seed="shared", settings=GameSettings(public_seed=True)
    )
    live = first.games[created.game_id]
    await second.summary(created.game_id)
    mirror = second.games[created.game_id]
    assert mirror.table.version == live.table.version
    stream = second.stream(
        created.game_id, seat_token=created.seat_tokens[0], after=live.table.version
    )
    first_message = await anext(stream)
    assert not first_message.events

    seat = live.table.pending()[0]
    command = live.table.view(seat).legal_commands[0]
    await first.submit(created.game_id, created.seat_tokens[seat], str(uuid.uuid4()), command)
    update = await asyncio.wait_for(anext(stream), timeout=5)
    assert [e.sequence for e in update.events] == [live.table.version]
    assert mirror.table.version == live.table.version
    assert mirror.table.state == live.table.state
    await stream.aclose()
    first.close()
    second._stop_listening()


def test_a_second_referee_catches_up_from_store_notifications() -> None:
    asyncio.run(_scenario())
