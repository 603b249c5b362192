"""Vampire Queen's world sampler against the exact conditional law (VQ-4, VQ-7, VQ-12, VQ-14).

For three players the law of a deal given what seat 0 saw is computed exactly: the cards
seat 0 did not get are dealt to seat 1, seat 2 and the set-aside pile, each deal of the
physical cards equally likely, restricted to deals under which every card seats 1 and 2
played was in their hand when they played it (what they took back in a Hunter trick
counts). A dynamic programme over the values sums the deals; the sampled worlds must fit
it (chi-square).
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from referee.games.vampire_queen.model import (
    HUNTERS,
    QUEEN,
    CardPlayed,
    HandDealt,
    SetPlayed,
    TrickWon,
)
from referee.games.vampire_queen.state import DECK, NOTATION
from referee.search.worlds import knowledge_of
from tests.worlds.support import assert_matches, random_position, worlds


def _lows(events: list[object], players: int) -> list[list[int]]:
    """VQ-7/VQ-12/VQ-14: the fewest cards of each value each seat's deal can have held."""
    net = [[0] * 15 for _ in range(players)]
    low = [[0] * 15 for _ in range(players)]
    for event in events:
        if isinstance(event, SetPlayed):
            net[event.seat][QUEEN] += event.queens
            if event.value != QUEEN:
                net[event.seat][event.value] += event.count - event.queens
        elif isinstance(event, CardPlayed):
            net[event.seat][event.value] += 1
        elif isinstance(event, TrickWon) and event.hunter_trick:
            for value in event.taken:
                if value not in HUNTERS:
                    net[event.winner][value] -= 1
        for seat in range(players):
            low[seat] = [max(a, b) for a, b in zip(low[seat], net[seat], strict=True)]
    return low


def exact_law(pool: Counter[int], size: int, lows: list[list[int]], value: int) -> dict[int, float]:
    """P(seat 1's deal holds k cards of ``value``): deals of the physical ``pool`` to seat 1
    and seat 2 (``size`` each) and the rest aside, each weighted by its number of physical
    arrangements prod(N_v! / (a! b! c!)), within the lower bounds ``lows[1]``, ``lows[2]``."""
    law: dict[int, float] = {}
    for fixed in range(pool[value] + 1):
        if fixed < lows[1][value]:
            continue
        table = {(0, 0): 1.0}
        for v in range(1, 15):
            n = pool[v]
            following: dict[tuple[int, int], float] = {}
            for (used_a, used_b), weight in table.items():
                choices_a = [fixed] if v == value else range(lows[1][v], n + 1)
                for a in choices_a:
                    if used_a + a > size:
                        break
                    for b in range(lows[2][v], n - a + 1):
                        if used_b + b > size:
                            break
                        c = n - a - b
                        w = weight / (math.factorial(a) * math.factorial(b) * math.factorial(c))
                        key = (used_a + a, used_b + b)
                        following[key] = following.get(key, 0.0) + w
            table = following
        law[fixed] = table.get((size, size), 0.0)
    total = sum(law.values())
    return {k: w / total for k, w in law.items()}


@pytest.mark.parametrize("seed,steps", [(3, 12), (11, 25), (29, 40)])
def test_a_played_value_is_where_the_exact_law_puts_it(seed: int, steps: int) -> None:
    """VQ-7/VQ-12: the count of a value in seat 1's deal, when seat 1 has played some."""
    table = random_position("vampire-queen", 3, seed, steps, {"rounds": "1"})
    known = knowledge_of(table, 0)
    events = known.game_events
    lows = _lows(events, 3)
    own = next(e for e in events if isinstance(e, HandDealt) and e.seat == 0)
    pool = Counter(NOTATION[c] for c in DECK)
    pool.subtract(own.cards)
    value = max(range(1, 15), key=lambda v: (lows[1][v], -v))  # the most constrained
    law = exact_law(pool, own.count, lows, value)
    seen: Counter[int] = Counter()
    for world in worlds(known, 500, seed):
        dealt = next(e for e in world.events if isinstance(e, HandDealt) and e.seat == 1)
        seen[dealt.cards.count(value)] += 1
    assert_matches(seen, law)


def test_a_fresh_deal_is_hypergeometric() -> None:
    """VQ-4: before any play, seat 1's queens follow the hypergeometric law."""
    table = random_position("vampire-queen", 3, 5, 0, {"rounds": "1"})
    known = knowledge_of(table, 0)
    own = next(e for e in known.game_events if isinstance(e, HandDealt) and e.seat == 0)
    unseen = 108 - own.count
    queens = 4 - own.cards.count(QUEEN)
    law = {
        k: math.comb(queens, k)
        * math.comb(unseen - queens, own.count - k)
        / math.comb(unseen, own.count)
        for k in range(queens + 1)
    }
    seen: Counter[int] = Counter()
    for world in worlds(known, 300):
        dealt = next(e for e in world.events if isinstance(e, HandDealt) and e.seat == 1)
        seen[dealt.cards.count(QUEEN)] += 1
    assert_matches(seen, law)
