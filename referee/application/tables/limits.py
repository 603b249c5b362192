"""Per-player limits on calls: a token bucket per player name.

Every call made with a player's credential takes one token from that player's bucket; the
bucket holds a minute's worth (``per_minute``) and refills continuously, so a player may
burst up to a minute's calls and then goes at the steady rate. An empty bucket refuses the
call with RESOURCE_EXHAUSTED and ``RetryInfo`` saying when the next token comes, so a
well-behaved client waits exactly that long.

The buckets are per replica (in memory): a player spread over N replicas may make up to N
times the limit. That is a guard against a runaway program, not an accounting.

>>> limiter = CallLimiter(per_minute=2, clock=lambda: 0.0)
>>> limiter.take("ada"); limiter.take("ada")
>>> try:
...     limiter.take("ada")
... except Exception as error:
...     print(error.reason, error.retry_after, error.metadata["limit"])
LIMIT 30.0 calls_per_minute
"""

from __future__ import annotations

import time
from collections.abc import Callable

from referee.application.tables import errors

#: Calls per minute per player unless configured.
DEFAULT_PER_MINUTE = 600
#: Buckets kept before the full ones (players idle for a minute) are dropped.
MAX_BUCKETS = 10_000


class CallLimiter:
    """Calls per minute per player (``per_minute`` 0: unlimited)."""

    def __init__(
        self, per_minute: int = DEFAULT_PER_MINUTE, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_minute = per_minute
        self._clock = clock
        #: player -> (tokens left, when counted)
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, player: str, what: str = "calls_per_minute") -> None:
        """Count one call of ``player``; RESOURCE_EXHAUSTED (with ``retry_after``, the limit
        named ``what``) when its bucket is empty (the refused call takes nothing)."""
        capacity = float(self.per_minute)
        if capacity <= 0:
            return
        rate = capacity / 60.0  # tokens per second
        now = self._clock()
        tokens, then = self._buckets.get(player, (capacity, now))
        tokens = min(capacity, tokens + (now - then) * rate)
        if tokens < 1.0:
            self._buckets[player] = (tokens, now)
            delay = round((1.0 - tokens) / rate, 3)
            if not player:  # a limit of everyone's calls (registrations): no player to name
                raise errors.rate_limited(what, self.per_minute, delay)
            raise errors.rate_limited(what, self.per_minute, delay, player=player)
        self._buckets[player] = (tokens - 1.0, now)
        if len(self._buckets) > MAX_BUCKETS:
            self._forget_full(now, rate, capacity)

    def _forget_full(self, now: float, rate: float, capacity: float) -> None:
        """Drop the buckets that have refilled (a new bucket starts full: nothing lost)."""
        for name, (tokens, then) in list(self._buckets.items()):
            if tokens + (now - then) * rate >= capacity:
                del self._buckets[name]


__all__ = ["DEFAULT_PER_MINUTE", "CallLimiter"]
