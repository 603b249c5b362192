"""The pairing rule (referee.application.lobby.pairing_rule): nearest rating first, the allowed gap
widening with the wait; no ticket and no player in two groups; the result is maximal."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.application.lobby.pairing_rule import (
    BASE_GAP,
    GAP_PER_SECOND,
    Waiting,
    allowed_gap,
    pair,
)

NOW = 1_000_000


def ticket(name: str, rating: float, waited_ms: int = 0, key: str = "k", seats: int = 2) -> Waiting:
    return Waiting(f"t-{name}", name, key, seats, rating, NOW - waited_ms)


def names(groups: list[tuple[Waiting, ...]]) -> list[set[str]]:
    return [{w.player for w in group} for group in groups]


def test_the_gap_formula() -> None:
    assert allowed_gap(0) == BASE_GAP
    assert allowed_gap(20_000) == BASE_GAP + 20 * GAP_PER_SECOND
    assert allowed_gap(-5) == BASE_GAP  # a clock a little behind another replica's


def test_nearest_rating_first() -> None:
    waiting = [ticket("a", 10), ticket("b", 12), ticket("c", 12.5), ticket("d", 30)]
    # b-c are nearest (0.5): paired first; a is then alone within its gap.
    assert names(pair(waiting, NOW)) == [{"b", "c"}]


def test_the_gap_widens_with_the_wait() -> None:
    far = [ticket("a", 0), ticket("b", 10)]
    assert pair(far, NOW) == []
    # b waited 20 s: its gap is 13, but a's own is still 3: a newcomer is not pulled in.
    assert pair([ticket("a", 0), ticket("b", 10, waited_ms=20_000)], NOW) == []
    both = [ticket("a", 0, waited_ms=20_000), ticket("b", 10, waited_ms=20_000)]
    assert names(pair(both, NOW)) == [{"a", "b"}]


def test_only_equal_terms_pair() -> None:
    waiting = [ticket("a", 1, key="x"), ticket("b", 1, key="y")]
    assert pair(waiting, NOW) == []
    assert pair([ticket("a", 1, seats=2), ticket("b", 1, seats=3)], NOW) == []


def test_groups_of_more_seats() -> None:
    waiting = [ticket(n, r, seats=3) for n, r in [("a", 1), ("b", 2), ("c", 2.5), ("d", 40)]]
    assert names(pair(waiting, NOW)) == [{"a", "b", "c"}]


def test_a_player_is_never_paired_with_itself() -> None:
    waiting = [Waiting("t1", "a", "k", 2, 1.0, NOW), Waiting("t2", "a", "k", 2, 1.0, NOW)]
    assert pair(waiting, NOW) == []


tickets = st.lists(
    st.builds(
        Waiting,
        ticket_id=st.uuids().map(str),
        player=st.sampled_from([f"p{i}" for i in range(8)]),
        key=st.sampled_from(["x", "y"]),
        seats=st.integers(2, 4),
        rating=st.floats(-10, 50, allow_nan=False),
        created_ms=st.integers(NOW - 120_000, NOW),
    ),
    max_size=24,
)


@settings(max_examples=300, deadline=None)
@given(tickets)
def test_no_player_in_two_pairings_and_every_group_is_allowed(waiting: list[Waiting]) -> None:
    groups = pair(waiting, NOW)
    ids = [w.ticket_id for group in groups for w in group]
    players = [w.player for group in groups for w in group]
    assert len(ids) == len(set(ids))
    assert len(players) == len(set(players))  # no player in two pairings at once
    given_ids = {w.ticket_id for w in waiting}
    assert set(ids) <= given_ids  # only tickets that wait (a cancelled one is not given)
    for group in groups:
        assert len(group) == group[0].seats
        assert len({(w.key, w.seats) for w in group}) == 1
        spread = max(w.rating for w in group) - min(w.rating for w in group)
        assert all(spread <= allowed_gap(NOW - w.created_ms) for w in group)


@settings(max_examples=300, deadline=None)
@given(tickets)
def test_the_pairing_is_maximal(waiting: list[Waiting]) -> None:
    """Among what is left, no run of tickets in rating order could still be paired (by
    players not paired already)."""
    groups = pair(waiting, NOW)
    paired_players = {w.player for group in groups for w in group}
    left = [w for w in waiting if w.player not in paired_players]
    assert pair(left, NOW) == []


@settings(max_examples=100, deadline=None)
@given(tickets)
def test_every_replica_computes_the_same_groups(waiting: list[Waiting]) -> None:
    assert pair(waiting, NOW) == pair(list(reversed(waiting)), NOW)
