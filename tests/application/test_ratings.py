"""Ratings that belong to players: the tournament runner's openskill model,
persisted per player and game type, a game rated once however often (and wherever) its end is
seen; a leaderboard per game type."""

from __future__ import annotations

import asyncio

import pytest

from referee.application import Kind, Referee
from referee.application.players.ratings import RATED_GAME, RATING, Placed, Rating
from referee.ratings_model import ordinal, plackett_luce
from referee.store import MemoryEventStore
from referee_tournament.ratings import standings
from referee_tournament.records import GameRecord, SeatRecord
from referee_tournament.schedule import GameSpec
from tests.application.support import refused, run

GAME = "vampire-queen"


def test_a_rated_game_moves_the_winner_up_and_the_loser_down_as_the_model_says() -> None:
    store = MemoryEventStore()

    async def scenario(referee: Referee) -> None:
        ratings = referee.players.ratings
        assert await ratings.record_result(
            "g1", GAME, [Placed("ada", 1), Placed("bea", 2), Placed("cy", 2)]
        )
        model = plackett_luce()
        [[a], [b], [c]] = model.rate(
            [[model.rating()], [model.rating()], [model.rating()]], ranks=[1.0, 2.0, 2.0]
        )
        ada = await ratings.get("ada", GAME)
        assert (ada.mu, ada.sigma, ada.games) == (pytest.approx(a.mu), pytest.approx(a.sigma), 1)
        assert (await ratings.get("bea", GAME)).mu == pytest.approx(b.mu)
        assert (await ratings.get("cy", GAME)).mu == pytest.approx(c.mu)
        assert ada.ordinal == pytest.approx(ordinal(a.mu, a.sigma))
        assert await ratings.ordinal("ada", GAME) == pytest.approx(ada.ordinal)
        assert await ratings.of("ada") == [ada]
        assert ada.updated_ms > 0
        keys = [d.key for d in store.documents(RATING)]
        assert keys == [f"{GAME}/{n}" for n in ("ada", "bea", "cy")]
        assert [d.key for d in store.documents(RATED_GAME)] == ["g1"]

    run(scenario, store=store)


def test_a_game_rates_once() -> None:
    async def scenario(referee: Referee) -> None:
        ratings = referee.players.ratings
        assert await ratings.record_result("g1", GAME, [Placed("ada", 1), Placed("bea", 2)])
        before = await ratings.of("ada")
        assert not await ratings.record_result("g1", GAME, [Placed("ada", 1), Placed("bea", 2)])
        assert await ratings.of("ada") == before
        assert before[0].games == 1

    run(scenario)


def test_replicas_racing_on_one_game_rate_it_once_and_on_one_player_both_count() -> None:
    """Two referees on one store: the same game's end seen by both rates once; two games of
    one player ending at once both count (compare-and-set, then re-read)."""
    store = MemoryEventStore()

    async def scenario(referee: Referee) -> None:
        other = Referee(store)
        try:
            mine, theirs = referee.players.ratings, other.players.ratings
            placed = [Placed("ada", 1), Placed("bea", 2)]
            done = await asyncio.gather(
                mine.record_result("g1", GAME, placed), theirs.record_result("g1", GAME, placed)
            )
            assert sorted(done) == [False, True]
            done = await asyncio.gather(
                mine.record_result("g2", GAME, [Placed("ada", 1), Placed("cy", 2)]),
                theirs.record_result("g3", GAME, [Placed("ada", 2), Placed("dee", 1)]),
            )
            assert done == [True, True]
            assert (await mine.get("ada", GAME)).games == 3
        finally:
            other.repository.close()

    run(scenario, store=store)


def test_the_referee_and_the_tournament_runner_agree() -> None:
    """The same games in the same order give the tournament's standings' mu and sigma."""
    games = [[("ada", 1), ("bea", 2)], [("bea", 1), ("ada", 2)], [("ada", 1), ("bea", 1)]]
    records = [
        GameRecord(
            GameSpec(index, 0, GAME, 2, {}, "", tuple(name for name, _ in g), index),
            "ok",
            [SeatRecord(seat, name, rank, None) for seat, (name, rank) in enumerate(g)],
        )
        for index, g in enumerate(games)
    ]
    table = {row.bot: row for row in standings(["ada", "bea"], records)}

    async def scenario(referee: Referee) -> None:
        for index, placed in enumerate(games):
            ranked = [Placed(name, rank) for name, rank in placed]
            await referee.players.ratings.record_result(f"g{index}", GAME, ranked)
        for name in ("ada", "bea"):
            rating = await referee.players.ratings.get(name, GAME)
            assert rating.mu == pytest.approx(table[name].mu)
            assert rating.sigma == pytest.approx(table[name].sigma)

    run(scenario)


def test_games_that_cannot_be_rated_are_not() -> None:
    async def scenario(referee: Referee) -> None:
        ratings = referee.players.ratings
        assert not await ratings.record_result("g1", GAME, [Placed("ada", 1)])
        assert not await ratings.record_result("g2", GAME, [Placed("ada", 1), Placed("ada", 2)])
        assert await ratings.of("ada") == []

    run(scenario)


def test_the_leaderboard_is_best_ordinal_first() -> None:
    async def scenario(referee: Referee) -> None:
        ratings = referee.players.ratings
        await ratings.record_result(
            "g1", GAME, [Placed("ada", 1), Placed("bea", 2), Placed("cy", 3)]
        )
        await ratings.record_result("g2", GAME, [Placed("ada", 1), Placed("bea", 2)])
        await ratings.record_result("g3", "mau-mau-vampires", [Placed("cy", 1), Placed("bea", 2)])
        board = await ratings.leaderboard(GAME)
        assert [r.player for r in board] == ["ada", "bea", "cy"]
        assert all(isinstance(r, Rating) and r.game_type == GAME for r in board)
        assert [r.player for r in await ratings.leaderboard(GAME, 2)] == ["ada", "bea"]
        assert [r.player for r in await ratings.leaderboard("mau-mau-vampires")] == ["cy", "bea"]
        assert await ratings.leaderboard("sleeping-queens") == []
        assert [r.game_type for r in await ratings.of("bea")] == ["mau-mau-vampires", GAME]
        for limit in (-1, 1001):
            error = await refused(ratings.leaderboard(GAME, limit))
            assert (error.kind, error.reason) == (Kind.INVALID, "BAD_REQUEST")
            assert [f for f, _ in error.field_violations] == ["limit"]
        error = await refused(ratings.leaderboard(""))
        assert [f for f, _ in error.field_violations] == ["game_type"]

    run(scenario)


def test_an_unrated_player_has_the_models_first_rating() -> None:
    async def scenario(referee: Referee) -> None:
        fresh = await referee.players.ratings.get("nobody", GAME)
        assert (fresh.mu, fresh.games) == (pytest.approx(25.0), 0)
        assert await referee.players.ratings.ordinal("nobody", GAME) == pytest.approx(0.0)

    run(scenario)
