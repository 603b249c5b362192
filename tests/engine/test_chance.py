"""Deterministic chance (:mod:`referee.engine.chance`): seeded shuffles and picks, fixed deals."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import FixedDeal, GameConfig, chance
from referee.engine.chance import deck_for, pick_for, picked, shuffled

PROPERTY = settings(max_examples=150, deadline=None, database=None)


def config(seed: bytes = b"seed", deal: FixedDeal | None = None) -> GameConfig:
    return GameConfig(game_type="any", players=3, options={}, seed=seed, deal=deal)


# --- an independent implementation of the documented algorithm ------------------------------
# Written from the module docstring only, with hashlib, so that a third party can re-check a
# deal once the seed is revealed.


def reference_stream(seed: bytes, label: bytes) -> Iterator[int]:
    counter = 0
    while True:
        digest = hashlib.sha256(seed + label + counter.to_bytes(8, "big")).digest()
        for start in (0, 8, 16, 24):
            yield int.from_bytes(digest[start : start + 8], "big")
        counter += 1


def reference_below(stream: Iterator[int], n: int) -> int:
    while True:
        x = next(stream)
        if x < 2**64 - (2**64 % n):
            return x % n


def reference_shuffle(items: list[object], seed: bytes, k: int) -> list[object]:
    deck = list(items)
    stream = reference_stream(seed, b"shuffle:" + str(k).encode("ascii"))
    for i in range(len(deck) - 1, 0, -1):
        j = reference_below(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def reference_pick(n: int, seed: bytes, k: int) -> int:
    return reference_below(reference_stream(seed, b"pick:" + str(k).encode("ascii")), n)


@PROPERTY
@given(
    items=st.lists(st.integers(), max_size=120),
    seed=st.binary(max_size=40),
    index=st.integers(min_value=0, max_value=10_000),
)
def test_shuffle_matches_an_independent_implementation(
    items: list[int], seed: bytes, index: int
) -> None:
    assert shuffled(items, seed, index) == reference_shuffle(list(items), seed, index)


@PROPERTY
@given(
    n=st.integers(min_value=1, max_value=2**64),
    seed=st.binary(max_size=40),
    index=st.integers(min_value=0, max_value=10_000),
)
def test_pick_matches_an_independent_implementation(n: int, seed: bytes, index: int) -> None:
    assert picked(n, seed, index) == reference_pick(n, seed, index)


def test_known_answer_vectors() -> None:
    """Fixed results: a change of the algorithm (which would change every recorded deal
    re-check) cannot pass unnoticed. Computed with the reference implementation above."""
    assert shuffled(range(10), b"seed", 0) == reference_shuffle(list(range(10)), b"seed", 0)
    assert shuffled(range(10), b"seed", 0) == KNOWN_SHUFFLE
    assert [picked(n, b"seed", 0) for n in (2, 3, 7, 12, 1000)] == KNOWN_PICKS
    assert [picked(12, b"seed", k) for k in range(5)] == KNOWN_PICKS_BY_INDEX


KNOWN_SHUFFLE = [4, 0, 8, 3, 1, 7, 5, 9, 6, 2]
KNOWN_PICKS = [0, 1, 2, 10, 130]
KNOWN_PICKS_BY_INDEX = [10, 0, 8, 5, 10]


def test_rejection_sampling_skips_the_biased_tail() -> None:
    """A draw at or above 2**64 - (2**64 mod n) is thrown away (no modulo bias)."""
    n = 3
    cutoff = 2**64 - (2**64 % n)
    assert chance._below(iter([cutoff, cutoff + 1, 5]), n) == 2
    assert chance._below(iter([cutoff - 1, 5]), n) == (cutoff - 1) % n
    # A power of two has no biased tail: nothing is rejected.
    assert chance._below(iter([2**64 - 1]), 4) == 3


# --- properties -------------------------------------------------------------------------------


@PROPERTY
@given(
    items=st.lists(st.integers(min_value=0, max_value=20), max_size=120),
    seed=st.binary(max_size=40),
    index=st.integers(min_value=0, max_value=1000),
)
def test_shuffle_is_a_permutation_and_leaves_its_input_alone(
    items: list[int], seed: bytes, index: int
) -> None:
    original = list(items)
    result = shuffled(items, seed, index)
    assert sorted(result) == sorted(original)
    assert Counter(result) == Counter(original)
    assert items == original
    assert result is not items


@PROPERTY
@given(
    n=st.integers(min_value=1, max_value=10**6),
    seed=st.binary(max_size=40),
    index=st.integers(min_value=0, max_value=1000),
)
def test_pick_is_in_range_and_deterministic(n: int, seed: bytes, index: int) -> None:
    value = picked(n, seed, index)
    assert 0 <= value < n
    assert picked(n, seed, index) == value


def test_shuffle_is_deterministic_and_depends_on_seed_and_index() -> None:
    deck = [str(v) for v in range(52)]
    assert shuffled(deck, b"a", 0) == shuffled(deck, b"a", 0)
    assert shuffled(deck, b"a", 0) != shuffled(deck, b"b", 0)
    assert shuffled(deck, b"a", 0) != shuffled(deck, b"a", 1)
    assert shuffled(iter(deck), b"a", 3) == shuffled(tuple(deck), b"a", 3)
    assert shuffled([], b"a", 0) == []
    assert shuffled(["x"], b"a", 0) == ["x"]
    assert len({tuple(shuffled(deck, b"a", k)) for k in range(20)}) == 20


def test_picks_depend_on_seed_and_index() -> None:
    assert len({picked(1000, bytes([s]), 0) for s in range(30)}) > 20
    assert len({picked(1000, b"a", k) for k in range(30)}) > 20
    assert picked(1, b"anything", 7) == 0


def test_picks_are_roughly_uniform() -> None:
    """Loose chi-square sanity check on small n (deterministic seeds, so never flaky)."""
    for n in (2, 3, 5, 7):
        samples = 700 * n
        counts = Counter(picked(n, k.to_bytes(4, "big"), 0) for k in range(samples))
        expected = samples / n
        chi2 = sum((counts[v] - expected) ** 2 / expected for v in range(n))
        assert set(counts) == set(range(n))
        assert chi2 < 30, (n, counts)  # p ~ 1e-5 even for 6 degrees of freedom


def test_shuffles_are_roughly_uniform() -> None:
    """Each of the 6 orders of 3 cards turns up about equally often."""
    samples = 3000
    counts = Counter(tuple(shuffled("abc", b"u", k)) for k in range(samples))
    assert len(counts) == 6
    expected = samples / 6
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 30, counts


# --- fixed deals ------------------------------------------------------------------------------


def test_deck_for_uses_the_fixed_decks_first_then_the_seed() -> None:
    cards = ["a", "b", "c", "d"]
    deal = FixedDeal(decks=(("d", "c", "b", "a"), ("b", "a", "d", "c")))
    fixed = config(b"s", deal)
    assert deck_for(fixed, 0, cards) == ["d", "c", "b", "a"]
    assert deck_for(fixed, 1, cards) == ["b", "a", "d", "c"]
    assert deck_for(fixed, 2, cards) == shuffled(cards, b"s", 2)
    assert deck_for(config(b"s"), 0, cards) == shuffled(cards, b"s", 0)
    assert deck_for(config(b"s", FixedDeal()), 0, cards) == shuffled(cards, b"s", 0)


def test_deck_for_accepts_any_permutation_of_a_multiset() -> None:
    cards = ["1", "1", "2", "Q"]
    deal = FixedDeal(decks=(("Q", "1", "2", "1"),))
    assert deck_for(config(deal=deal), 0, cards) == ["Q", "1", "2", "1"]


@pytest.mark.parametrize(
    "bad",
    [
        ("a", "b", "c"),  # a card missing
        ("a", "b", "c", "d", "d"),  # a card too many
        ("a", "b", "c", "c"),  # one card twice, another missing
        ("a", "b", "c", "x"),  # a card that does not exist
        (),
    ],
)
def test_an_invalid_fixed_deck_raises(bad: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        deck_for(config(deal=FixedDeal(decks=(bad,))), 0, ["a", "b", "c", "d"])


def test_pick_for_uses_the_fixed_picks_first_then_the_seed() -> None:
    fixed = config(b"s", FixedDeal(picks=(2, 0)))
    assert pick_for(fixed, 0, 3) == 2
    assert pick_for(fixed, 1, 3) == 0
    assert pick_for(fixed, 2, 3) == picked(3, b"s", 2)
    assert pick_for(config(b"s"), 0, 5) == picked(5, b"s", 0)


@pytest.mark.parametrize("bad", [-1, 3, 99])
def test_an_invalid_fixed_pick_raises(bad: int) -> None:
    with pytest.raises(ValueError):
        pick_for(config(deal=FixedDeal(picks=(bad,))), 0, 3)
