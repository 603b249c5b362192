"""The interval maths of the measured strengths (referee/bench/intervals.py)."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from referee.bench.intervals import Z95, bootstrap_mean, wilson


def test_wilson_matches_the_published_values() -> None:
    # Newcombe (1998), Table I: 81 of 263 and 15 of 148, method 3 (the score interval).
    low, high = wilson(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    low, high = wilson(15, 148)
    assert (round(low, 4), round(high, 4)) == (0.0624, 0.1605)


def test_wilson_at_the_edges_stays_inside_zero_one_and_is_not_empty() -> None:
    low, high = wilson(0, 10)
    assert low == 0.0 and 0.25 < high < 0.35  # 0.2775: the normal interval would be [0, 0]
    low, high = wilson(10, 10)
    assert 0.65 < low < 0.75 and high == 1.0
    low, high = wilson(5, 10)
    assert math.isclose(low + high, 1.0)  # symmetric about a half


def test_wilson_counts_a_tie_as_half_a_win() -> None:
    low, high = wilson(2.5, 5)
    assert math.isclose(low + high, 1.0) and low < 0.5 < high


def test_wilson_refuses_what_is_not_a_rate() -> None:
    with pytest.raises(ValueError):
        wilson(1, 0)
    with pytest.raises(ValueError):
        wilson(3, 2)
    with pytest.raises(ValueError):
        wilson(-1, 2)


def test_the_bootstrap_is_reproducible_and_holds_the_mean() -> None:
    values = [1.0, 0.0, 0.5, 1.0, -1.0, 1.0, 0.0, 0.5]
    low, high = bootstrap_mean(values)
    assert bootstrap_mean(values) == (low, high)
    assert low < statistics.fmean(values) < high
    assert bootstrap_mean(values, seed=1) != (low, high)


def test_the_bootstrap_is_near_the_normal_interval_for_many_values() -> None:
    rng = random.Random(7)
    values = [rng.choice((-1.0, 0.0, 1.0, 1.0)) for _ in range(400)]
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    low, high = bootstrap_mean(values)
    assert abs(low - (mean - half)) < 0.02 and abs(high - (mean + half)) < 0.02


def test_a_wider_confidence_gives_a_wider_interval() -> None:
    values = [1.0, 0.0, 0.5, 1.0, -1.0, 1.0, 0.0, 0.5]
    low90, high90 = bootstrap_mean(values, confidence=0.9)
    low99, high99 = bootstrap_mean(values, confidence=0.99)
    assert low99 <= low90 and high90 <= high99


def test_the_bootstrap_of_equal_values_is_that_value() -> None:
    assert bootstrap_mean([0.25] * 5) == (0.25, 0.25)


def test_the_bootstrap_refuses_no_values_and_a_confidence_outside_zero_one() -> None:
    with pytest.raises(ValueError):
        bootstrap_mean([])
    with pytest.raises(ValueError):
        bootstrap_mean([1.0], confidence=1.0)
