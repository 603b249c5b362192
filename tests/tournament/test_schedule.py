"""Seatings (every permutation, balanced Latin squares) and the three formats' schedules."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import Any

import pytest

from referee.engine import seatings as seatings_module
from referee.engine.seatings import neighbour_counts, seat_counts, seatings, williams
from referee_tournament import schedule
from referee_tournament.config import parse
from referee_tournament.schedule import SwissPlanner, plan


def test_doctests() -> None:
    import doctest

    assert doctest.testmod(schedule).failed == 0
    assert doctest.testmod(seatings_module).failed == 0


def test_two_and_three_seats_get_every_permutation() -> None:
    assert seatings(2) == [(0, 1), (1, 0)]
    assert sorted(seatings(3)) == sorted(itertools.permutations(range(3)))


@pytest.mark.parametrize("n", range(2, 10))
def test_williams_designs_are_balanced_latin_squares(n: int) -> None:
    rows = williams(n)
    assert len(rows) == (n if n % 2 == 0 else 2 * n)
    assert all(sorted(row) == list(range(n)) for row in rows)
    # Latin: every bot in every seat equally often.
    seats = seat_counts(rows)
    assert set(seats.values()) == {len(rows) // n}
    assert len(seats) == n * n
    # Balanced: every ordered pair of different bots side by side equally often.
    pairs = neighbour_counts(rows)
    assert len(pairs) == n * (n - 1)
    assert len(set(pairs.values())) == 1


def test_beyond_three_seats_the_subset_is_small() -> None:
    assert len(seatings(4)) == 4 < math.factorial(4)
    assert len(seatings(5)) == 10 < math.factorial(5)


def config(**extra: Any) -> Any:
    data = {
        "seed": "fixed",
        "games": [
            {"game": "vampire-queen", "players": 4, "options": {"rounds": 1}},
            {"game": "sleeping-queens", "players": 2},
        ],
        "bots": [{"name": n, "strategy": "random"} for n in "abcd"],
        **extra,
    }
    return parse(data)


def test_duplicate_plays_each_deal_once_per_seating_of_each_table() -> None:
    specs = plan(config(deals=2))
    vq = [s for s in specs if s.game == "vampire-queen"]
    sq = [s for s in specs if s.game == "sleeping-queens"]
    assert len(vq) == 2 * 1 * 4  # deals x tables (C(4,4)) x seatings
    assert len(sq) == 2 * 6 * 2  # deals x tables (C(4,2)) x seatings
    assert [s.index for s in specs] == list(range(len(specs)))
    for deal in range(2):
        games = [s for s in vq if s.deal == deal]
        assert len({s.seed for s in games}) == 1  # one deal...
        # ... played with every bot in every seat once
        assert Counter((bot, seat) for s in games for seat, bot in enumerate(s.seating)) == {
            (bot, seat): 1 for bot in "abcd" for seat in range(4)
        }
    # Every table of an entry plays the same deals; the deals differ.
    assert {s.seed for s in sq if s.deal == 0} == {vq_seed(sq, 0)}
    assert vq_seed(vq, 0) != vq_seed(vq, 1) != vq_seed(sq, 0)


def vq_seed(specs: Any, deal: int) -> str:
    return next(s.seed for s in specs if s.deal == deal)


def test_round_robin_gives_every_game_a_fresh_deal() -> None:
    specs = plan(config(format="round-robin", deals=2))
    assert len(specs) == 4 * 2 + 6 * 2 * 2
    assert len({s.seed for s in specs}) == len(specs)


def test_seeds_are_reproducible_and_hide_the_tournament_seed() -> None:
    a, b = plan(config()), plan(config())
    assert [s.seed for s in a] == [s.seed for s in b]
    assert all("fixed" not in s.seed for s in a)
    spec = a[0]
    bot_seeds = {spec.bot_seed(seat) for seat in range(spec.players)}
    assert len(bot_seeds) == spec.players and spec.seed[:16] not in "".join(bot_seeds)
    other = plan(config(seed="other"))
    assert other[0].seed != spec.seed


def test_swiss_pairs_by_points_gives_byes_and_avoids_rematches() -> None:
    cfg = parse(
        {
            "seed": "s",
            "format": "swiss",
            "rounds": 3,
            "game": "sleeping-queens",
            "players": 2,
            "bots": [{"name": n, "strategy": "random"} for n in "abcde"],
        }
    )
    planner = SwissPlanner(cfg)
    specs, byes = planner.plan_round(1)
    # Five bots at two-seat tables: two tables, the last bot sits out (two seatings missed).
    assert byes == {"e": 2}
    assert {frozenset(s.seating) for s in specs} == {frozenset("ab"), frozenset("cd")}
    assert all(s.round == 1 for s in specs) and len({s.seed for s in specs}) == 1
    # a and c win everything: they meet in round 2; e gets no second bye before others.
    ranks = [(bot, 2, 1 if bot in "ac" else 2) for s in specs for bot in s.seating]
    planner.record(ranks, byes)
    assert planner.points == {"a": 2.0, "b": 0.0, "c": 2.0, "d": 0.0, "e": 1.0}
    specs, byes = planner.plan_round(2)
    tables = {frozenset(s.seating) for s in specs}
    assert frozenset("ac") in tables
    assert "e" not in byes and len(byes) == 1
    assert specs[0].index == 4  # indexes go on across rounds
