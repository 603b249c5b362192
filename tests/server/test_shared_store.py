"""Two hubs on one store: the store's notifications keep a second process's copy current.

This is the seam a networked store (e.g. PostgreSQL LISTEN/NOTIFY) plugs into: the hub never
assumes it is the only writer.
"""

from __future__ import annotations

import asyncio
import uuid

from referee.server.hub import GameHub, Limits
from referee.server.metrics import Metrics
from referee.store import MemoryEventStore
from referee.v1 import referee_pb2 as pb


async def _scenario() -> None:
    store = MemoryEventStore()
    first = GameHub(store, Metrics(), Limits())
    second = GameHub(store, Metrics(), Limits())
    await first.recover()
    await second.recover()
    live, tokens, _ = await first.create(
        pb.CreateGameRequest(
            game_type="vampire-queen", players=3, seed="shared", public_reproducible_seed=True
        )
    )
    mirror = await second.get(live.game_id)
    assert mirror.table.version == live.table.version
    stream = second.stream(mirror, 0, live.table.version)
    first_message = await anext(stream)
    assert not first_message.HasField("event")

    seat = live.table.pending()[0]
    view = live.view(seat)
    await first.submit(
        pb.SubmitCommandRequest(
            game_id=live.game_id,
            seat_token=tokens[seat],
            command_id=str(uuid.uuid4()),
            command=view.legal_commands[0],
        )
    )
    update = await asyncio.wait_for(anext(stream), timeout=5)
    assert update.event.sequence == live.table.version
    assert mirror.table.version == live.table.version
    assert mirror.table.state == live.table.state
    await stream.aclose()
    first.close()
    second._stop_listening()


def test_a_second_hub_catches_up_from_store_notifications() -> None:
    asyncio.run(_scenario())
