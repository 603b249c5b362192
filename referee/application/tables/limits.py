"""Limits on calls: a token bucket per player name, and per client address for the calls no
player is counted for.

Every call made with a player's credential takes one token from that player's bucket; the
bucket holds a minute's worth (``per_minute``) and refills continuously, so a player may
burst up to a minute's calls and then goes at the steady rate. An empty bucket refuses the
call with RESOURCE_EXHAUSTED and ``RetryInfo`` saying when the next token comes, so a
well-behaved client waits exactly that long.

The buckets are per replica (in memory): a player spread over N replicas may make up to N
times the limit. That is a guard against a runaway program, not an accounting.

A call that no player's credential vouches for is counted against the address it comes from
(:class:`AddressLimits`, one bucket per address and kind of call): wrong claim codes,
``CreateGame``, ``Register`` and public reads. :class:`CallLimits` is the one owner of both:
every call is counted once, against its player when it names one, else against its address.

>>> limiter = CallLimiter(per_minute=2, clock=lambda: 0.0)
>>> limiter.take("ada"); limiter.take("ada")
>>> try:
...     limiter.take("ada")
... except Exception as error:
...     print(error.reason, error.retry_after, error.metadata["limit"])
LIMIT 30.0 calls_per_minute
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, fields

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

    def take(self, player: str, what: str = "calls_per_minute", named: str = "player") -> None:
        """Count one call of ``player``; RESOURCE_EXHAUSTED (with ``retry_after``, the limit
        named ``what``, and ``player`` as the metadata ``named``) when its bucket is empty
        (the refused call takes nothing)."""
        capacity = float(self.per_minute)
        if capacity <= 0:
            return
        rate = capacity / 60.0  # tokens per second
        now = self._clock()
        tokens, then = self._buckets.get(player, (capacity, now))
        tokens = min(capacity, tokens + (now - then) * rate)
        if tokens < 1.0:
            self._buckets[player] = (tokens, now)
            # Rounded up to the millisecond: a token due in a few microseconds is a retry
            # in 1 ms, never "retry in 0".
            delay = math.ceil((1.0 - tokens) / rate * 1000) / 1000
            if not player:  # a limit of everyone's calls (registrations): no player to name
                raise errors.rate_limited(what, self.per_minute, delay)
            raise errors.rate_limited(what, self.per_minute, delay, **{named: player})
        self._buckets[player] = (tokens - 1.0, now)
        if len(self._buckets) > MAX_BUCKETS:
            self._forget_full(now, rate, capacity)

    def give_back(self, player: str) -> None:
        """Return the token a call of ``player`` took (a claim whose code was right)."""
        if self.per_minute <= 0:
            return
        tokens, then = self._buckets.get(player, (float(self.per_minute), self._clock()))
        self._buckets[player] = (min(float(self.per_minute), tokens + 1.0), then)

    def _forget_full(self, now: float, rate: float, capacity: float) -> None:
        """Drop the buckets that have refilled (a new bucket starts full: nothing lost)."""
        for name, (tokens, then) in list(self._buckets.items()):
            if tokens + (now - then) * rate >= capacity:
                del self._buckets[name]


@dataclass(frozen=True)
class AddressLimits:
    """What one client address may do per minute without a player's credential, by kind of
    call (0: unlimited). A minute's worth may come at once."""

    #: ClaimSeat calls with a claim code that is not the seat's (a right code costs nothing).
    claim_attempts_per_minute: int = 30
    #: CreateGame calls.
    games_created_per_minute: int = 120
    #: Register calls (besides the replica's limit for everyone together).
    registrations_per_minute: int = 30
    #: Public reads: ListGameTypes, GetGame, ListGames, a spectator's GetView, ListLobby,
    #: GetRatings, GetLeaderboard, GetPresence (a call with a seat or organiser token is
    #: that seat's or organiser's, not counted here).
    reads_per_minute: int = 1200

    def __post_init__(self) -> None:
        for field in fields(self):
            if getattr(self, field.name) < 0:
                raise ValueError(f"{field.name} must be 0 (unlimited) or more")


#: The kinds of call counted per address: each is a field of :class:`AddressLimits`.
CLAIM_ATTEMPTS = "claim_attempts_per_minute"
GAMES_CREATED = "games_created_per_minute"
REGISTRATIONS = "registrations_per_minute"
READS = "reads_per_minute"

#: The players the call being served was counted against already (see
#: :meth:`CallLimits.one_call`; each call runs in a task of its own).
_counted: ContextVar[set[str] | None] = ContextVar("counted", default=None)


class OneCall:
    """The block of :meth:`CallLimits.one_call`. A plain object rather than a generator's
    context manager: every unary call enters one."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = _counted.set(set())

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        _counted.reset(self._token)


class CallLimits:
    """The one owner of the limits on calls: per player, per client address, and of every
    caller together (registrations). Each call is counted once."""

    def __init__(
        self,
        per_player: int = DEFAULT_PER_MINUTE,
        per_address: AddressLimits | None = None,
        registrations: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_address = per_address or AddressLimits()
        self._players = CallLimiter(per_player, clock)
        self._addresses = {
            field.name: CallLimiter(getattr(self.per_address, field.name), clock)
            for field in fields(AddressLimits)
        }
        self._everyone = CallLimiter(registrations, clock)

    @staticmethod
    def one_call() -> OneCall:
        """Within the block, one call is served: its player is counted once, however often
        the call asks who calls (outside any block, each asking counts)."""
        return OneCall()

    def player(self, name: str) -> None:
        """Count a call of the player ``name``."""
        counted = _counted.get()
        if counted is not None and name in counted:
            return
        self._players.take(name)
        if counted is not None:
            counted.add(name)

    def address(self, address: str, kind: str) -> None:
        """Count a call of ``kind`` from ``address`` that no player is counted for; an
        in-process caller (no address) is not limited."""
        if address:
            self._addresses[kind].take(address, kind, "address")

    def give_back(self, address: str, kind: str) -> None:
        """The call of ``kind`` from ``address`` turned out not to count (a right claim code)."""
        if address:
            self._addresses[kind].give_back(address)

    def everyone(self, what: str) -> None:
        """Count a call against the limit of every caller together (``what``: its name)."""
        self._everyone.take("", what)


__all__ = [
    "CLAIM_ATTEMPTS",
    "DEFAULT_PER_MINUTE",
    "GAMES_CREATED",
    "READS",
    "REGISTRATIONS",
    "AddressLimits",
    "CallLimiter",
    "CallLimits",
    "OneCall",
]
