"""Calls per minute per player: a token bucket per player name; past it,
RESOURCE_EXHAUSTED with a retry delay that the transports send as ``google.rpc.RetryInfo``.
Calls without a player are counted per client address, each call once."""

from __future__ import annotations

import pytest
from google.rpc import code_pb2, error_details_pb2

from referee.application import Kind, Referee, RefereeError
from referee.application.players.accounts import PlayerSettings
from referee.application.tables.limits import (
    CLAIM_ATTEMPTS,
    GAMES_CREATED,
    AddressLimits,
    CallLimiter,
    CallLimits,
)
from referee.server.errors import to_status
from tests.application.support import refused, run


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_minutes_worth_may_come_at_once_then_the_steady_rate() -> None:
    clock = Clock()
    limiter = CallLimiter(per_minute=60, clock=clock)
    for _ in range(60):
        limiter.take("ada")
    with pytest.raises(RefereeError) as caught:
        limiter.take("ada")
    error = caught.value
    assert (error.kind, error.reason) == (Kind.LIMIT, "LIMIT")
    assert error.metadata == {"limit": "calls_per_minute", "value": "60", "player": "ada"}
    assert error.retry_after == pytest.approx(1.0)
    limiter.take("bea")  # another player's bucket is its own
    clock.now += 0.5
    with pytest.raises(RefereeError) as caught:
        limiter.take("ada")
    assert caught.value.retry_after == pytest.approx(0.5)  # a refused call took nothing
    clock.now += 0.5
    limiter.take("ada")  # one token a second


def test_a_token_due_in_microseconds_is_a_retry_in_a_millisecond_never_zero() -> None:
    """Under load the next call may come just before its token: RetryInfo still says wait
    (a client told "retry in 0" would spin)."""
    clock = Clock()
    limiter = CallLimiter(per_minute=60, clock=clock)
    for _ in range(60):
        limiter.take("ada")
    clock.now += 0.99999
    with pytest.raises(RefereeError) as caught:
        limiter.take("ada")
    assert caught.value.retry_after == 0.001


def test_zero_means_unlimited() -> None:
    limiter = CallLimiter(per_minute=0, clock=Clock())
    for _ in range(10_000):
        limiter.take("ada")


def test_idle_buckets_are_forgotten_without_losing_a_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.application.tables import limits

    monkeypatch.setattr(limits, "MAX_BUCKETS", 10)
    clock = Clock()
    limiter = CallLimiter(per_minute=1, clock=clock)
    limiter.take("busy")
    for n in range(10):
        limiter.take(f"idle-{n}")
    clock.now += 30  # half a minute: the buckets are half full, none forgotten
    limiter.take("other")
    with pytest.raises(RefereeError):
        limiter.take("busy")
    clock.now += 120
    limiter.take("late")
    assert len(limiter._buckets) <= 2


def test_every_authenticated_call_counts_and_the_refusal_carries_retry_info() -> None:
    async def scenario(referee: Referee) -> None:
        referee.players.configure(PlayerSettings(calls_per_minute=3))
        _, token = await referee.players.create_account("ada", "bot")
        _, other = await referee.players.create_account("bea", "bot")
        for _ in range(3):
            await referee.players.authenticate(token)
        error = await refused(referee.players.authenticate(token))
        assert (error.kind, error.metadata["limit"], error.metadata["player"]) == (
            Kind.LIMIT,
            "calls_per_minute",
            "ada",
        )
        assert 0 < (error.retry_after or 0) <= 20
        assert token not in str(error)
        status = to_status(error)
        assert status.code == code_pb2.RESOURCE_EXHAUSTED
        hints = [d for d in status.details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
        assert len(hints) == 1
        retry = error_details_pb2.RetryInfo()
        hints[0].Unpack(retry)
        assert retry.retry_delay.ToMilliseconds() == round(error.retry_after * 1000)
        await referee.players.authenticate(other)  # bea is not ada
        # A refused credential names no player: it is not counted against anyone.
        await refused(referee.players.authenticate("acct-nobody"))

    run(scenario)


def test_registrations_per_minute_are_limited_for_everyone_together() -> None:
    async def scenario(referee: Referee) -> None:
        settings = PlayerSettings(open_registration=True, registrations_per_minute=2)
        referee.players.configure(settings)
        await referee.players.register("ada")
        await referee.players.register("bea")
        before = referee.store.documents("account")
        error = await refused(referee.players.register("cy"))
        assert (error.kind, error.reason) == (Kind.LIMIT, "LIMIT")
        assert error.metadata == {"limit": "registrations_per_minute", "value": "2"}
        assert error.retry_after is not None and 0 < error.retry_after <= 30
        assert referee.store.documents("account") == before
        # The operator's path is not limited.
        await referee.players.create_account("cy")

    run(scenario)


# --- calls without a player: per client address -----------------------------------------------


def test_each_address_and_kind_has_its_own_bucket_and_a_right_claim_gives_back() -> None:
    clock = Clock()
    limits = CallLimits(per_address=AddressLimits(claim_attempts_per_minute=2), clock=clock)
    for _ in range(2):
        limits.address("203.0.113.1", CLAIM_ATTEMPTS)
    with pytest.raises(RefereeError) as caught:
        limits.address("203.0.113.1", CLAIM_ATTEMPTS)
    error = caught.value
    assert error.metadata == {
        "limit": "claim_attempts_per_minute",
        "value": "2",
        "address": "203.0.113.1",
    }
    assert error.retry_after == pytest.approx(30.0)
    limits.address("203.0.113.2", CLAIM_ATTEMPTS)  # another address
    limits.address("203.0.113.1", GAMES_CREATED)  # another kind
    limits.address("", CLAIM_ATTEMPTS)  # an in-process caller: no address, no limit
    limits.give_back("203.0.113.1", CLAIM_ATTEMPTS)  # a right code costs nothing
    limits.address("203.0.113.1", CLAIM_ATTEMPTS)


def test_a_call_counts_its_player_once_however_often_it_asks_who_calls() -> None:
    limits = CallLimits(per_player=2, clock=Clock())
    with limits.one_call():
        for _ in range(5):
            limits.player("ada")
    limits.player("ada")  # outside a call, each asking counts: 2 of 2
    with pytest.raises(RefereeError):
        limits.player("ada")


def test_a_call_is_counted_against_its_player_else_against_its_address() -> None:
    async def scenario(referee: Referee) -> None:
        few = AddressLimits(games_created_per_minute=1)
        referee.players.configure(PlayerSettings(calls_per_minute=2, per_address=few))
        _, token = await referee.players.create_account("ada", "bot")
        with CallLimits.one_call():
            await referee.players.count(token, "198.51.100.1", GAMES_CREATED)
            await referee.players.authenticate(token)  # the same call: counted once
        await referee.players.count(token, "198.51.100.1", GAMES_CREATED)  # ada: 2 of 2
        error = await refused(referee.players.count(token, "198.51.100.1", GAMES_CREATED))
        assert error.metadata["player"] == "ada"
        # Without a credential, or with one that names nobody: the address's bucket.
        await referee.players.count("", "198.51.100.1", GAMES_CREATED)
        error = await refused(referee.players.count("acct-nobody", "198.51.100.1", GAMES_CREATED))
        assert (error.metadata["limit"], error.metadata["address"]) == (
            "games_created_per_minute",
            "198.51.100.1",
        )

    run(scenario)
