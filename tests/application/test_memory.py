"""Memory at the application layer: idle games leave memory and load again unchanged, a
watched game stays, an abandoned game is aborted with a public reason.

The same as tests/server/test_memory.py, without the transport: these drive
:class:`~referee.application.Referee` directly on a memory store.
"""

from __future__ import annotations

from typing import Any

from referee.application import Clock, GameSettings, Limits, Referee
from tests.application.support import play_to_end, run, until

GAME = "vampire-queen"


async def looks(referee: Referee, game_id: str, tokens: tuple[str, ...]) -> tuple[Any, ...]:
    """What anyone can ask of a game: its summary and every viewer's view."""
    views = [await referee.view(game_id, seat_token=token) for token in tokens]
    return (await referee.summary(game_id), await referee.view(game_id, spectator=True), views)


def test_idle_games_leave_memory_and_come_back_unchanged() -> None:
    async def scenario(referee: Referee) -> None:
        created = [await referee.create(GAME, 3, {"rounds": "1"}) for _ in range(8)]
        for number, game in enumerate(created[:4]):
            await play_to_end(referee, game, number)
        before = {g.game_id: await looks(referee, g.game_id, g.seat_tokens) for g in created}
        await until(lambda: not referee.games)
        for game in created:  # loaded again from the store, replayed
            assert await looks(referee, game.game_id, game.seat_tokens) == before[game.game_id]
        assert len(referee.games) <= 4
        page = await referee.list_games()
        assert {s.game_id for s in page.games} == {g.game_id for g in created}
        for number, game in enumerate(created[4:]):  # a dropped running game plays on
            await play_to_end(referee, game, 10 + number)
            final = await referee.summary(game.game_id)
            stream = referee.stream(game.game_id, seat_token=game.seat_tokens[1])
            sequences = [e.sequence async for update in stream for e in update.events]
            assert sequences == list(range(1, final.version + 1))

    run(scenario, Limits(max_live_games=4, evict_idle_seconds=0.2))


def test_a_watched_game_stays_in_memory() -> None:
    async def scenario(referee: Referee) -> None:
        watched = await referee.create(GAME, 3, {"rounds": "1"})
        others = [await referee.create(GAME, 3) for _ in range(3)]
        stream = referee.stream(watched.game_id, seat_token=watched.seat_tokens[0])
        await anext(stream)
        await until(lambda: all(g.game_id not in referee.games for g in others))
        assert watched.game_id in referee.games
        await play_to_end(referee, watched, 5)
        sequences = [e.sequence async for update in stream for e in update.events]
        version = (await referee.summary(watched.game_id)).version
        assert sequences == list(range(1, version + 1))

    run(scenario, Limits(max_live_games=4, evict_idle_seconds=0.2))


def test_an_abandoned_game_is_aborted_with_a_public_reason() -> None:
    async def scenario(referee: Referee) -> None:
        left = await referee.create(GAME, 3)
        watched = await referee.create(GAME, 3)
        clock = GameSettings(clock=Clock(decision_ms=600_000), card_commitments=True)
        clocked = await referee.create(GAME, 3, settings=clock)
        stream = referee.stream(watched.game_id, seat_token=watched.seat_tokens[1])
        await anext(stream)  # seat 1 is connected
        await until(lambda: referee.games[left.game_id].over)
        summary = await referee.summary(left.game_id)
        assert summary.aborted and summary.game_over
        assert summary.abort_reason.startswith("abandoned"), summary.abort_reason
        assert not (await referee.summary(watched.game_id)).aborted  # a seat is still there
        assert not (await referee.summary(clocked.game_id)).aborted  # its clock moves it on
        await stream.aclose()  # the last seat leaves: now it is abandoned too
        await until(lambda: referee.games[watched.game_id].over)
        assert (await referee.summary(watched.game_id)).abort_reason.startswith("abandoned")

    run(scenario, Limits(idle_expiry_seconds=0.5))


def test_a_finished_game_leaves_only_its_summary() -> None:
    """Issue 25 §4: a finished game nobody uses leaves memory within FINISHED_IDLE_SECONDS,
    long before the idle limit of running games; its summary stays for ListGames, and it
    loads again unchanged when asked for more."""
    from referee.application.repository import FINISHED_IDLE_SECONDS

    async def scenario(referee: Referee) -> None:
        finished = await referee.create(GAME, 3, {"rounds": "1"})
        running = await referee.create(GAME, 3, {"rounds": "1"})
        await play_to_end(referee, finished, 3)
        before = await looks(referee, finished.game_id, finished.seat_tokens)
        repository = referee.repository
        for live in repository.games.values():  # both unused for longer than that
            live.touched -= FINISHED_IDLE_SECONDS + 1
        repository.evict()
        assert finished.game_id not in referee.games
        assert running.game_id in referee.games  # idle for less than evict_idle_seconds
        assert repository.summaries[finished.game_id] == before[0]
        assert await looks(referee, finished.game_id, finished.seat_tokens) == before

    run(scenario, Limits(evict_idle_seconds=3600))
