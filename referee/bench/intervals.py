"""Confidence intervals of the measured strengths: Wilson's for a rate, a bootstrap for a mean.

**Wilson's score interval** for a share of ``successes`` in ``trials`` (a win rate): unlike the
normal interval ``p ± z√(p(1-p)/n)`` it stays inside [0, 1] and does not shrink to nothing at
0 or n wins. A tie counted as half a win is a fractional success; the interval is then the
same formula's.

>>> low, high = wilson(8, 10)
>>> round(low, 4), round(high, 4)
(0.4902, 0.9433)

**The percentile bootstrap** of a mean over independent values (a duplicate deal's lead):
the mean of ``resamples`` draws with replacement, their ``(1 - confidence) / 2`` and ``(1 +
confidence) / 2`` quantiles. It assumes no shape of the values' distribution (a lead per deal
is a handful of values in [-1, 1]), and a fixed ``seed`` makes it reproducible.

>>> bootstrap_mean([1.0, 1.0, 1.0])
(1.0, 1.0)
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval of the rate ``successes / trials`` (ValueError when there are
    no trials or the successes are not 0..trials)."""
    if trials <= 0:
        raise ValueError("a rate needs at least one trial")
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes in {trials} trials")
    rate = successes / trials
    z2 = z * z
    centre = (rate + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(rate * (1 - rate) / trials + z2 / (4 * trials**2))
    # At no or every success the bound is 0 or 1 exactly (the formula's, less rounding).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def bootstrap_mean(
    values: Sequence[float],
    resamples: int = 4000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of ``values`` (ValueError when empty)."""
    if not values:
        raise ValueError("a mean needs at least one value")
    if not 0 < confidence < 1:
        raise ValueError("the confidence is a share between 0 and 1")
    rng = random.Random(seed)
    n = len(values)
    means = sorted(math.fsum(rng.choices(values, k=n)) / n for _ in range(resamples))
    tail = (1 - confidence) / 2
    low = means[math.floor(tail * (resamples - 1))]
    high = means[math.ceil((1 - tail) * (resamples - 1))]
    return low, high


__all__ = ["Z95", "bootstrap_mean", "wilson"]
