"""Sleeping Queens' world sampler against the exact conditional law (SQ-3, SQ-5 ... SQ-10,
SQ-17 ... SQ-19).

Two players, before the first reshuffle: what seat 1 holds is a Markov chain over its hand.
Each card it draws is the next position of the one shuffle, so given the cards drawn so far
it is of kind ``k`` with probability (unseen copies of ``k`` not yet drawn) / (unseen cards
not yet drawn); a card it plays must be in the hand (else the path is impossible and drops
out); a Jester's power card (SQ-8) joins the hand in view of all. Summing the paths gives the
exact law of seat 1's hand given what seat 0 saw; the sampled worlds must fit it
(chi-square), for the kind seat 1 played most.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from referee.games.sleeping_queens.model import (
    CARD_COUNTS,
    JESTER,
    KING,
    KNIGHT,
    POTION,
    Blocked,
    CardsDrawn,
    DeckShuffled,
    Discarded,
    JesterPlayed,
    JesterTurned,
    KingPlayed,
    KnightPlayed,
    PotionPlayed,
    QueensLaid,
)
from referee.search.worlds import knowledge_of
from tests.worlds.support import assert_matches, random_position, worlds

_PLAYS = {KingPlayed: KING, JesterPlayed: JESTER, KnightPlayed: KNIGHT, PotionPlayed: POTION}


def _steps(events: list[Any]) -> tuple[Counter[int], list[tuple[str, int]]]:
    """The unseen cards of the first shuffle and seat 1's draws, gains and plays."""
    unseen: Counter[int] = Counter(CARD_COUNTS)
    line: list[tuple[str, int]] = []
    for event in events:
        kind = type(event)
        if kind is DeckShuffled and event.reshuffle:
            raise AssertionError("the position has a reshuffle: pick an earlier one")
        if kind is CardsDrawn:
            if event.seat == 0:
                unseen.subtract(event.cards)
            else:
                line += [("draw", 0)] * event.count
        elif kind is JesterTurned:
            unseen[event.card] -= 1
            if event.counted is None and event.seat == 1:
                line.append(("gain", event.card))
        elif kind is Discarded and event.seat == 1:
            line += [("play", card) for card in event.cards]
        elif (kind in _PLAYS or kind is Blocked) and event.seat == 1:
            line.append(("play", event.card if kind is Blocked else _PLAYS[kind]))
    return unseen, line


Key = tuple[tuple[int, ...], tuple[int, ...], int]


def exact_hand_law(
    unseen: Counter[int], line: list[tuple[str, int]], kind: int, *, dealt: bool = False
) -> dict[int, float]:
    """P(seat 1 holds n cards of ``kind``; ``dealt``: was dealt n of them), by the chain over
    (hand, cards drawn so far, ``kind`` among the first five drawn)."""
    paths: dict[Key, float] = {((), (), 0): 1.0}
    for what, card in line:
        following: dict[Key, float] = {}
        for (hand, drawn, first), p in paths.items():
            if what == "draw":
                used = Counter(drawn)
                left = sum(unseen.values()) - len(drawn)
                for k, n in unseen.items():
                    if n - used[k] > 0:
                        more = first + (k == kind and len(drawn) < 5)
                        key = (tuple(sorted((*hand, k))), tuple(sorted((*drawn, k))), more)
                        following[key] = following.get(key, 0.0) + p * (n - used[k]) / left
            elif what == "gain":
                key = (tuple(sorted((*hand, card))), drawn, first)
                following[key] = following.get(key, 0.0) + p
            elif card in hand:
                rest = list(hand)
                rest.remove(card)
                key = (tuple(rest), drawn, first)
                following[key] = following.get(key, 0.0) + p
        paths = following
    law: dict[int, float] = {}
    for (hand, _, first), p in paths.items():
        n = first if dealt else hand.count(kind)
        law[n] = law.get(n, 0.0) + p
    total = sum(law.values())
    return {n: p / total for n, p in law.items()}


@pytest.mark.parametrize("seed,steps", [(5, 9), (8, 12), (11, 14)])
def test_another_hand_fits_the_exact_law(seed: int, steps: int) -> None:
    """SQ-9/SQ-17/SQ-19: the kind seat 1 played most, in its hand now."""
    table = random_position("sleeping-queens", 2, seed, steps)
    known = knowledge_of(table, 0)
    unseen, line = _steps(known.game_events)
    played = Counter(card for what, card in line if what == "play")
    kind = played.most_common(1)[0][0] if played else KING
    sampled = worlds(known, 300, seed)
    seen = Counter(world.state.hands[1][kind] for world in sampled)
    assert_matches(seen, exact_hand_law(unseen, line, kind))
    deals = Counter(
        next(e for e in w.events if isinstance(e, CardsDrawn) and e.seat == 1).cards.count(kind)
        for w in sampled
    )
    assert_matches(deals, exact_hand_law(unseen, line, kind, dealt=True))


@pytest.mark.parametrize("seed,steps", [(3, 10), (7, 30)])
def test_a_knowledge_showing_more_is_honoured(seed: int, steps: int) -> None:
    """SQ-17/SQ-18: handed the other seat's draws and the queens' positions as they were (an
    experiment's knowledge, ``tournaments/duel.py --reveal``), every world holds that hand and
    those queens; the draw pile's order stays the sampler's own."""
    table = random_position("sleeping-queens", 2, seed, steps)
    known = knowledge_of(table, 0)
    shown = (CardsDrawn, QueensLaid)
    told = replace(
        known,
        events=tuple(
            true if isinstance(true, shown) else seen
            for true, seen in zip(table.log, known.events, strict=True)
        ),
    )
    sampled = worlds(told, 20, seed)
    piles = {tuple(world.state.draw) for world in sampled}
    for world in sampled:
        assert world.state.hands[1] == table.state.hands[1]
        assert world.state.positions == table.state.positions
    assert len(piles) > 1  # the pile is still dealt at random
    plain = worlds(known, 20, seed)
    assert any(world.state.hands[1] != table.state.hands[1] for world in plain)
