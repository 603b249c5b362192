"""A restart at the application layer: a new referee on the same store continues every game.

The stream cut by the stop and resumed after it is the transport's (tests/server/
test_recovery.py); these drive :class:`~referee.application.Referee` directly on SQLite.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.application import Created, Referee
from tests.application.support import play_to_end, plays, run

GAME = "vampire-queen"


async def looks(referee: Referee, created: Created) -> tuple[Any, ...]:
    """The game's summary (seat statistics included) and every viewer's view."""
    views = [await referee.view(created.game_id, seat_token=t) for t in created.seat_tokens]
    spectator = await referee.view(created.game_id, spectator=True)
    return (await referee.summary(created.game_id), spectator, views)


def test_a_restart_on_the_same_store_continues_every_game(tmp_path: Path) -> None:
    from referee.store import SqliteEventStore

    path = tmp_path / "referee.sqlite3"
    games: list[Created] = []
    before: dict[str, Any] = {}

    async def first(referee: Referee) -> None:
        for number in range(4):
            created = await referee.create(GAME, 3, {"rounds": "1"})
            games.append(created)
            if number == 0:
                await play_to_end(referee, created, number)
            else:  # a few commands, then the stop
                async for _ in plays(referee, created, number):
                    if referee.games[created.game_id].table.version > 20 + number:
                        break
            before[created.game_id] = await looks(referee, created)

    run(first, store=SqliteEventStore(path))

    async def second(referee: Referee) -> None:
        assert {s.game_id for s in (await referee.list_games()).games} == {g.game_id for g in games}
        for created in games:  # the same summaries and views; the same tokens work
            assert await looks(referee, created) == before[created.game_id]
        for number, created in enumerate(games[1:]):
            await play_to_end(referee, created, 100 + number)
            summary = await referee.summary(created.game_id)
            assert summary.game_over and summary.seed_released and len(summary.results) == 3
            stream = referee.stream(created.game_id, spectator=True)
            sequences = [e.sequence async for update in stream for e in update.events]
            assert sequences == list(range(1, summary.version + 1))

    run(second, store=SqliteEventStore(path))
