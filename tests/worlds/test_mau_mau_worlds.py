"""Mau Mau Vampires' world sampler against the exact conditional law (MM-6, MM-8, MM-26 ...
MM-28).

Two players, in the first shuffle of the first hand, with no pot, call or special card
turned at the start: what seat 1 holds is a Markov chain. Each card it draws is the next
place of the one shuffle, so it is card ``k`` with probability (unseen copies of ``k`` not yet
drawn) / (unseen cards not yet drawn); a card it plays or gives must be in its hand (else the
path drops out); a card it drew and played at once is that card (MM-8); a card seat 0 gives
it joins its hand in view. Cards no step names are exchangeable, so they are lumped by
colour. Summing the paths gives the exact law of seat 1's hand; the sampled worlds must fit
it (chi-square), for the colour seat 1 played most.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from referee.games.mau_mau_vampires.model import (
    FULL_DECK,
    MAU_MAU_CARDS,
    CardGiven,
    CardPlayed,
    CardsDealt,
    CardsDrawn,
    DeckShuffled,
    HandEnded,
    StartingCardTurned,
    TurnStarted,
    code_of,
    colour_of,
)
from referee.search.worlds import knowledge_of
from tests.worlds.support import assert_matches, random_position, worlds

#: The hidden steps a position may hold for the exact law (else another position is taken).
UNSUPPORTED = {"ColourCalled", "CardSetAside", "PotTaken", "DrawnShared", "CardShown"}


def _steps(events: list[Any]) -> tuple[Counter[int], list[tuple[str, int]]] | None:
    """The unseen cards of the first shuffle and seat 1's steps, or None if unsupported."""
    unseen: Counter[int] = Counter(FULL_DECK)
    line: list[tuple[str, int]] = []
    drew: int | None = None  # index in ``line`` of seat 1's draw on its turn
    for event in events:
        kind = type(event)
        name = kind.__name__
        if name in UNSUPPORTED or kind is HandEnded:
            return None
        if kind is DeckShuffled and event.shuffle > 0:
            return None
        if kind is StartingCardTurned:
            if code_of(event.card) >= MAU_MAU_CARDS:
                return None
            unseen[code_of(event.card)] -= 1
        elif kind is CardsDealt or kind is CardsDrawn:
            if event.seat == 0:
                unseen.subtract(code_of(c) for c in event.cards)
            else:
                if event.count == 1 and getattr(event, "reason", 0) == 1:
                    drew = len(line)
                line += [("draw", -1)] * event.count
        elif kind is TurnStarted:
            drew = None
        elif kind is CardPlayed and event.seat == 1:
            if drew is not None:
                line[drew] = ("draw", code_of(event.card))  # MM-8: the card drawn, played
            drew = None
            line.append(("out", code_of(event.card)))
        elif kind is CardPlayed:
            drew = None
        elif kind is CardGiven:
            if event.from_seat == 1:
                line.append(("out", code_of(event.card)))
            else:
                line.append(("gain", code_of(event.card)))
    return unseen, line


def exact_law(
    unseen: Counter[int], line: list[tuple[str, int]], colour: int, *, dealt: bool = False
) -> dict[int, float]:
    """P(seat 1 holds n cards of ``colour``; ``dealt``: was dealt n), by the chain over
    (hand, drawn, dealt of ``colour``) with the cards no step names lumped into "of
    ``colour``" (-1) and "other" (-2)."""
    named = {code for _, code in line if code >= 0}

    def kind_of(code: int) -> int:
        if code in named:
            return code
        return -1 if code < MAU_MAU_CARDS and colour_of(code) == colour else -2

    pool: Counter[int] = Counter()
    for code, n in unseen.items():
        if n > 0:
            pool[kind_of(code)] += n

    def of_colour(k: int) -> bool:
        return k == -1 or (0 <= k < MAU_MAU_CARDS and colour_of(k) == colour)

    Key = tuple[tuple[int, ...], tuple[int, ...], int]
    paths: dict[Key, float] = {((), (), 0): 1.0}
    for what, code in line:
        following: dict[Key, float] = {}
        for (hand, drawn, first), p in paths.items():
            if what == "draw":
                used = Counter(drawn)
                left = sum(pool.values()) - len(drawn)
                kinds = [kind_of(code)] if code >= 0 else list(pool)
                for k in kinds:
                    n = pool[k] - used[k]
                    if n > 0:
                        more = first + (of_colour(k) and len(drawn) < 8)
                        key = (tuple(sorted((*hand, k))), tuple(sorted((*drawn, k))), more)
                        following[key] = following.get(key, 0.0) + p * n / left
            elif what == "gain":
                key = (tuple(sorted((*hand, kind_of(code)))), drawn, first)
                following[key] = following.get(key, 0.0) + p
            elif kind_of(code) in hand:
                rest = list(hand)
                rest.remove(kind_of(code))
                key = (tuple(rest), drawn, first)
                following[key] = following.get(key, 0.0) + p
        paths = following

    law: dict[int, float] = {}
    for (hand, _, first), p in paths.items():
        n = first if dealt else sum(1 for k in hand if of_colour(k))
        law[n] = law.get(n, 0.0) + p
    total = sum(law.values())
    return {n: p / total for n, p in law.items()}


def _position(seed: int, steps: int) -> tuple[Any, Counter[int], list[tuple[str, int]]]:
    for offset in range(40):
        table = random_position("mau-mau-vampires", 2, seed + offset, steps, {"hands": "1"})
        known = knowledge_of(table, 0)
        found = _steps(known.game_events)
        if found is not None:
            return known, *found
    raise AssertionError("no position the exact law covers")


@pytest.mark.parametrize("seed,steps", [(3, 10), (21, 16), (40, 22)])
def test_another_hand_fits_the_exact_law(seed: int, steps: int) -> None:
    """MM-8/MM-26/MM-28: seat 1's cards of the colour it played most, as seat 0 sees it."""
    known, unseen, line = _position(seed, steps)
    played = Counter(colour_of(code) for what, code in line if what == "out" and code < 44)
    colour = played.most_common(1)[0][0] if played else 1
    law = exact_law(unseen, line, colour)
    sampled = worlds(known, 300, seed)

    def count(codes: list[int]) -> int:
        return sum(1 for code in codes if code < MAU_MAU_CARDS and colour_of(code) == colour)

    held = Counter(
        count([c for c, n in enumerate(w.state.hands[1]) for _ in range(n)]) for w in sampled
    )
    assert_matches(held, law)
    dealt = Counter(
        count([code_of(c) for c in e.cards])
        for w in sampled
        for e in w.events
        if isinstance(e, CardsDealt) and e.seat == 1
    )
    assert_matches(dealt, exact_law(unseen, line, colour, dealt=True))
