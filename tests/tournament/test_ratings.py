"""Ratings (openskill), Wilson intervals and the standings, on known inputs."""

from __future__ import annotations

import doctest

import pytest

from referee_tournament import ratings, records
from referee_tournament.ratings import standings, wilson
from referee_tournament.records import Fault, GameRecord, SeatRecord
from referee_tournament.schedule import GameSpec


def test_doctests() -> None:
    assert doctest.testmod(ratings).failed == 0
    assert doctest.testmod(records).failed == 0


@pytest.mark.parametrize(
    ("wins", "games", "low", "high"),
    [
        (8, 10, 0.4902, 0.9433),  # the textbook example
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (50, 100, 0.4038, 0.5962),
        (1, 1, 0.2065, 1.0),
    ],
)
def test_wilson_interval(wins: int, games: int, low: float, high: float) -> None:
    got = wilson(wins, games)
    assert got == pytest.approx((low, high), abs=1e-4)


def test_wilson_without_games_is_the_whole_range() -> None:
    assert wilson(0, 0) == (0.0, 1.0)


def game(
    index: int,
    ranks: dict[str, int],
    *,
    status: str = "ok",
    left: dict[str, str] | None = None,
    **kw: object,
) -> GameRecord:
    seating = tuple(ranks)
    spec = GameSpec(index, 0, "g", len(seating), {}, f"s{index}", seating, index)
    seats = [
        SeatRecord(
            seat=i,
            bot=bot,
            rank=ranks[bot],
            score=10 * ranks[bot],
            end=(left or {}).get(bot, "finished"),
        )
        for i, bot in enumerate(seating)
    ]
    return GameRecord(spec=spec, status=status, seats=seats, **kw)  # type: ignore[arg-type]


def test_one_game_matches_openskill_plackett_luce() -> None:
    [winner, loser] = standings(["a", "b"], [game(0, {"a": 1, "b": 2})])
    assert winner.bot == "a" and winner.place == 1
    # openskill's PlackettLuce after one two-player game from (25, 25/3)
    assert winner.mu == pytest.approx(27.635389493140497)
    assert loser.mu == pytest.approx(22.364610506859503)
    assert winner.sigma == pytest.approx(8.06590141354368)
    assert winner.ordinal == pytest.approx(winner.mu - 3 * winner.sigma)


def test_standings_count_wins_ranks_scores_and_faults() -> None:
    games = [
        game(0, {"a": 1, "b": 2, "c": 3}),
        game(1, {"b": 1, "a": 2, "c": 3}),
        game(2, {"c": 1, "a": 1, "b": 3}),  # a shared first place is a win for both
        game(
            3,
            {"a": 1, "b": 1, "c": 3},
            faults=[Fault("c", 2, "hang"), Fault("c", 2, "rejected", count=2)],
            left={"c": "abandoned"},
        ),
        game(4, {"a": 3, "b": 2, "c": 1}, status="failed"),  # not rated
    ]
    table = {s.bot: s for s in standings(["a", "b", "c"], games)}
    a, b, c = table["a"], table["b"], table["c"]
    assert (a.games, a.wins, b.wins, c.wins) == (4, 3, 2, 1)
    assert a.mean_rank == pytest.approx(5 / 4)
    assert a.mean_score == pytest.approx(50 / 4)
    assert c.faults == {"hang": 1, "rejected": 2} and c.left == 1
    assert c.ends == {"abandoned": 1}
    assert c.mean_score == pytest.approx(70 / 3)  # the game it left scores nothing for it
    assert (a.win_low, a.win_high) == pytest.approx(wilson(3, 4))
    assert [s.place for s in (a, b, c)] == [1, 2, 3]
    assert a.ordinal > b.ordinal > c.ordinal


def test_ratings_fold_games_in_schedule_order_not_finishing_order() -> None:
    games = [game(i, {"a": 1 + i % 2, "b": 2 - i % 2, "c": 3}) for i in range(6)]
    forward = [s.to_json() for s in standings(["a", "b", "c"], games)]
    backward = [s.to_json() for s in standings(["a", "b", "c"], games[::-1])]
    assert forward == backward


def test_swiss_points_come_first() -> None:
    games = [game(0, {"a": 1, "b": 2})]
    order = [s.bot for s in standings(["a", "b"], games, points={"a": 0.0, "b": 5.0})]
    assert order == ["b", "a"]
