"""The evaluation helper: duplicate deals, seatings, intervals, a baseline."""

from __future__ import annotations

import numpy as np
import pytest

from referee.rl import evaluate
from referee.rl.aec import ObsDict
from referee.rl.evaluate import Interval, arrangements


def first_legal(obs: ObsDict) -> int:
    return int(np.flatnonzero(obs["action_mask"])[0])


def test_the_heuristic_bot_beats_random_at_dracula() -> None:
    result = evaluate("heuristic", "dracula-vs-van-helsing", deals=12, seed="t")
    assert result.games == 24  # every deal from both seats
    assert result.difference is not None and result.difference.low > 0
    assert result.baseline is not None
    # Random against random on the same deals, seats and generators: each deal is the same
    # game twice with the seats swapped, so it wins exactly once.
    assert result.baseline.win_rate.mean == 0.5
    assert "beats random" in result.summary()


def test_a_policy_is_evaluated_in_every_seat_and_deal() -> None:
    seats = []

    def policy(obs: ObsDict) -> int:
        seats.append(int(obs["observation"].shape[0]))
        return first_legal(obs)

    result = evaluate(
        policy, "vampire-queen", 3, opponents="random", deals=2, options={"rounds": "1"}
    )
    assert result.games == 2 * 3 and result.deals == 2
    assert seats and result.policy.reward.n == 2
    assert -1 <= result.policy.reward.mean <= 1


def test_same_seed_same_evaluation() -> None:
    a = evaluate("random", "sleeping-queens", 2, deals=3, seed=4, baseline=None)
    b = evaluate("random", "sleeping-queens", 2, deals=3, seed=4, baseline=None)
    assert a.policy.per_deal == b.policy.per_deal and a.difference is None


def test_arrangements_follow_the_tournament_seatings() -> None:
    assert arrangements(2, ["p", "random"]) == [(0, 1), (1, 0)]
    # Different opponents: every permutation (3 seats), as referee-tournament plays them.
    assert len(arrangements(3, ["p", "random", "heuristic"])) == 6
    # Four identical opponents beyond 3 seats: the Williams rows, one per seat of the policy.
    rows = arrangements(4, ["p", "random", "random", "random"])
    assert sorted(row.index(0) for row in rows) == [0, 1, 2, 3]


def test_interval() -> None:
    interval = Interval.of([1.0, -1.0, 1.0, -1.0])
    assert interval.mean == 0 and interval.low < 0 < interval.high
    assert Interval.of([0.5]).low == 0.5
    with pytest.raises(ValueError, match="deals"):
        evaluate("random", "vampire-queen", 3, deals=0)
