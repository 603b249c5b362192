"""The application's values as ``referee.v1`` messages (:mod:`referee.server.convert`).

A batched stream message is put together from the shared encodings of its view and events;
its bytes must be exactly what protobuf would serialize, for every game and every viewer.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from referee.application import Clock, GameSettings, Referee, Update
from referee.engine.registry import all_games
from referee.server import convert
from referee.store import MemoryEventStore
from referee.v1 import referee_pb2 as pb

GAMES = sorted(game.info.type_id for game in all_games())


@pytest.mark.parametrize("clocked", [False, True], ids=["plain", "clock"])
@pytest.mark.parametrize("game_type", GAMES)
def test_batched_messages_are_the_bytes_protobuf_would_write(game_type: str, clocked: bool) -> None:
    async def scenario() -> None:
        referee = Referee(MemoryEventStore())
        await referee.recover()
        players = next(g for g in all_games() if g.info.type_id == game_type).info.min_players
        clock = Clock(decision_ms=600_000) if clocked else Clock()
        settings = GameSettings(clock=clock, card_commitments=True)
        created = await referee.create(game_type, players, settings=settings)
        live = referee.games[created.game_id]
        rng = random.Random(game_type)
        checked = 0
        for number in range(60):
            if live.over:
                break
            seat = live.table.pending()[0]
            command = rng.choice(live.table.view(seat).legal_commands)
            await referee.submit(created.game_id, created.seat_tokens[seat], f"{number}", command)
            start = max(0, live.table.version - 1)
            while start > 0 and live.batch_ends[start - 1] == live.table.version:
                start -= 1  # back to the first event of the latest batch
            for viewer in [None, *range(players)]:
                update = live.batch_update(viewer, start, live.table.version, None)
                expected = convert.update_to_proto(update, batched=True).SerializeToString()
                assert convert.update_bytes(update) == expected
                checked += 1
        assert checked
        empty = Update((), live.view(None))
        assert (
            convert.update_bytes(empty)
            == pb.StreamGameResponse(view=convert.view_to_proto(empty.view)).SerializeToString()
        )
        referee.close()

    asyncio.run(scenario())
