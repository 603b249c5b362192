"""A restart at the application layer: a new referee on the same store continues every game.

The stream cut by the stop and resumed after it is the transport's (tests/server/
test_recovery.py); these drive :class:`~referee.application.Referee` directly on SQLite.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from referee.application import Created, Referee
from referee.application.tables.clocks import Clock, GameSettings
from referee.store import GameRecord, SqliteEventStore, StoredEvent
from tests.application.support import WAIT, play_to_end, plays, run, until

GAME = "vampire-queen"


async def looks(referee: Referee, created: Created) -> tuple[Any, ...]:
    """The game's summary (seat statistics included) and every viewer's view."""
    views = [await referee.view(created.game_id, seat_token=t) for t in created.seat_tokens]
    spectator = await referee.view(created.game_id, spectator=True)
    return (await referee.summary(created.game_id), spectator, views)


def test_a_restart_on_the_same_store_continues_every_game(tmp_path: Path) -> None:
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


class _SlowFor(SqliteEventStore):
    """The SQLite store, whose reads of the ``held`` games wait until :attr:`released` is set
    (as a slow disk or a long log would for them)."""

    def __init__(self, path: Path, held: set[str]) -> None:
        super().__init__(path)
        self.held = held
        self.released = threading.Event()

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        if game_id in self.held:
            self.released.wait(HELD_SECONDS)
        return super().read(game_id, after, limit)


#: How long the held reads wait at most (well past the test's own wait).
HELD_SECONDS = 3 * WAIT


def test_a_restart_serves_before_its_clocked_games_are_loaded(tmp_path: Path) -> None:
    """Games with a clock load at start-up, in the background: while their loads are held,
    the restarted referee creates a game and loads one without a clock when asked, and the
    clocked games are all loaded once their reads go through."""
    path = tmp_path / "referee.sqlite3"
    clocked: list[str] = []
    plain: list[Created] = []
    settings = GameSettings(clock=Clock(decision_ms=600_000), connect_grace_ms=0)

    async def first(referee: Referee) -> None:
        for _ in range(4):
            clocked.append((await referee.create(GAME, 3, settings=settings)).game_id)
        plain.append(await referee.create(GAME, 3, {"rounds": "1"}))

    run(first, store=SqliteEventStore(path))

    async def second() -> None:
        store = _SlowFor(path, set(clocked))
        referee = Referee(store)
        try:
            await referee.recover()
            created = await asyncio.wait_for(referee.create(GAME, 3), WAIT)
            assert created.game_id in referee.games
            summary = await asyncio.wait_for(referee.summary(plain[0].game_id), WAIT)
            assert summary.version > 0
            assert not set(clocked) & set(referee.games), "the held loads went through"
            store.released.set()
            await until(lambda: set(clocked) <= set(referee.games))
        finally:
            store.released.set()
            referee.close()

    asyncio.run(second())


class _SlowListing(SqliteEventStore):
    """The SQLite store, whose listings after the first (the start's own) wait until
    :attr:`released` is set: the ratings' catch-up at a start lists the games again."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.listings = 0
        self.released = threading.Event()

    def list_games(self) -> list[tuple[GameRecord, int, bool]]:
        self.listings += 1
        if self.listings > 1:
            self.released.wait(HELD_SECONDS)
        return super().list_games()


def test_a_restart_writes_while_the_ratings_catch_up_reads(tmp_path: Path) -> None:
    """The ratings' catch-up reads at a start in the background: a game is created (a write)
    while its reads are held."""
    path = tmp_path / "referee.sqlite3"

    async def first(referee: Referee) -> None:
        await referee.create(GAME, 3)

    run(first, store=SqliteEventStore(path))

    async def second() -> None:
        store = _SlowListing(path)
        referee = Referee(store)
        try:
            await referee.recover()
            await until(lambda: store.listings > 1)  # the catch-up is reading
            created = await asyncio.wait_for(referee.create(GAME, 3), WAIT)
            assert created.game_id in referee.games
        finally:
            store.released.set()
            referee.close()

    asyncio.run(second())
