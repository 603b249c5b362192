"""Helpers for the Vampire Queen tests: tables from a fixed deal, short card notation.

Card notation in the helpers: a space-separated list where ``"8"`` is one 8, ``"8x3"`` three
8s and ``"Q"``/``"Qx2"`` queens, e.g. ``hand("1 8x6 Qx2")``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from referee.engine import FixedDeal, Table
from referee.games.vampire_queen.model import QUEEN, PlaySet
from referee.games.vampire_queen.rules import DECK, hand_size_for

GAME = "vampire-queen"

HandSpec = str | Sequence[str]


def hand(spec: HandSpec) -> list[str]:
    """Cards in deal notation (``"1".."13"``, ``"Q"``) from the short notation."""
    if not isinstance(spec, str):
        return list(spec)
    cards: list[str] = []
    for token in spec.split():
        card, _, times = token.partition("x")
        cards.extend([card] * int(times or 1))
    return cards


def value(card: str) -> int:
    return QUEEN if card == "Q" else int(card)


def values(spec: HandSpec) -> tuple[int, ...]:
    """The sorted card values (queen = 14) of a hand, as views and events show them."""
    return tuple(sorted(value(c) for c in hand(spec)))


def build_deck(players: int, hands: Sequence[HandSpec], rest: HandSpec = "") -> tuple[str, ...]:
    """A 108-card deck giving seat ``s`` the hand ``hands[s]`` (each exactly the hand size).

    Seats without a given hand get the lowest cards left over, in order; ``rest`` puts chosen
    cards at the front of what remains (the undealt cards when every hand is given).
    """
    size = hand_size_for(players)
    pool = Counter(DECK)
    dealt: list[str] = []
    for seat, spec in enumerate(hands):
        cards = hand(spec)
        assert len(cards) == size, f"seat {seat}: {len(cards)} cards, the hand size is {size}"
        dealt.extend(cards)
    front = hand(rest)
    need = Counter(dealt) + Counter(front)
    short = need - pool
    assert not short, f"more cards than the deck holds: {dict(short)}"
    pool -= need
    leftover = sorted(pool.elements(), key=value)
    for _ in range(len(hands), players):
        dealt.extend(leftover[:size])
        leftover = leftover[size:]
    deck = (*dealt, *front, *leftover)
    assert sorted(deck) == sorted(DECK)
    return deck


def new_table(
    hands: Sequence[HandSpec],
    *,
    players: int | None = None,
    h15: int | None = None,
    options: Mapping[str, str] | None = None,
    later: Sequence[Sequence[HandSpec]] = (),
    seed: bytes = b"vq-fixed-deal",
) -> Table[Any]:
    """A table dealt from fixed hands.

    ``h15`` is the seat that gets the 15 Hunter (default: the last seat, so seat 0 gets the 20
    and leads). ``later`` gives the hands of rounds 2, 3, ...; later rounds not given are
    shuffled from the seed.
    """
    n = players if players is not None else len(hands)
    decks = (build_deck(n, hands), *(build_deck(n, h) for h in later))
    deal = FixedDeal(decks=decks, picks=(n - 1 if h15 is None else h15,))
    return Table.create(GAME, n, options=options, seed=seed, deal=deal)


def S(value: int, count: int = 1, queens: int = 0) -> PlaySet:
    """``PlaySet``: ``count`` cards of ``value``, ``queens`` of them queens."""
    return PlaySet(value=value, count=count, queens=queens)
