"""Mau Mau Vampires worlds: the chain that mixes the start (:func:`mix`).

A chain mixes the start (:mod:`referee.games.mau_mau_vampires.worlds.start`): swap two
tokens' cards within one shuffle, or draw a hidden gift's card anew, whenever the hand's
history stays consistent (symmetric moves, weighted where the turned specials went back, so
the chain's law is uniform among the consistent shuffles and choices; see
:func:`referee.search.worlds.deal_rows`). Not mixed: which unknown pot item was which card the
seat saw when it took the pot, and which card of (g) drawn across a reshuffle the seat
received: the start's pick stands.
"""

from __future__ import annotations

import math

from referee.games.mau_mau_vampires.model import CODES
from referee.games.mau_mau_vampires.worlds.walk import Walk, consistent
from referee.search.worlds import Chance


def mix(walk: Walk, rng: Chance, deal: dict[int, int], chosen: list[int]) -> None:
    """The chain: swap two tokens' cards within a group, or draw a hidden choice anew.

    The swaps are symmetric; where the specials turned at the start went back into a new
    order (MM-6), a deal's weight is the number of ways the turned cards could sit in that
    order (for each special, m (m-1) ... (m-t+1), m its copies there, t turned), so a swap in
    or out of the new order is taken with the ratio of the weights (Metropolis): the law
    stays uniform over the shuffles themselves. A share across a reshuffle (MM-22 g) may be
    turned crosswise. What a pot the seat took or a share it got across a reshuffle showed it
    stays as the start placed it (which of its cards each unknown item was)."""
    chain = _Chain(walk, rng, deal, chosen)
    free, choices, flips = chain.free, chain.choices, chain.flips
    n = len(free) + len(choices) + len(flips)
    steps = int(4 * n * math.log(max(n, 2))) + 10 if n else 0
    for _ in range(steps):
        pick = rng.below(n)
        if pick < len(free):
            chain.swap(free[pick])
        elif pick >= len(free) + len(choices):
            chain.flip(flips[pick - len(free) - len(choices)])
        else:
            chain.redraw(choices[pick - len(free)])


class _Chain:
    """The chain's moves on one deal (:func:`mix`), and what they may move: the free tokens by
    group, the hidden choices open to a new draw, the shares that may turn crosswise, and the
    copies of each card in each new order (MM-6)."""

    def __init__(self, walk: Walk, rng: Chance, deal: dict[int, int], chosen: list[int]) -> None:
        self.walk, self.rng, self.deal, self.chosen = walk, rng, deal, chosen
        held = {t for places, cards in walk.shares if max(cards) >= 0 for t in places}
        self.free = [
            t for t in deal if t not in walk.pin and ("t", t) not in walk.potted and t not in held
        ]
        self.flips = [i for i, (places, cards) in enumerate(walk.shares) if max(cards) < 0]
        self.by_group: dict[int, list[int]] = {}
        for token in self.free:
            self.by_group.setdefault(walk.group[token], []).append(token)
        #: renewed group -> copies of each card in its new order
        self.inside: dict[int, list[int]] = {}
        for group, (places, _) in walk.fresh.items():
            self.inside[group] = [0] * CODES
            for token in places:
                self.inside[group][deal[token]] += 1
        self.choices = [i for i in range(len(chosen)) if ("v", i) not in walk.potted]

    def swap(self, a: int) -> None:
        """Swap free token ``a``'s card with another token's of its group, in or out of a new
        order with the ratio of the deals' weights."""
        walk, rng, deal, chosen = self.walk, self.rng, self.deal, self.chosen
        group = walk.group[a]
        b = rng.choice(self.by_group[group])
        if deal[a] == deal[b]:
            return
        counts = self.inside.get(group)
        across = False  # one of the two in a new order (MM-6), the other not
        if counts is not None:
            places, turned = walk.fresh[group]
            across = (a in places) != (b in places)
            if across:
                inner, outer = (a, b) if a in places else (b, a)
                gone, come = deal[inner], deal[outer]  # inner's card leaves the order
                m, t = counts[gone], turned.get(gone, 0)
                k, u = counts[come], turned.get(come, 0)
                ratio = (m - t) / m * (k + 1) / (k + 1 - u)
                if ratio < 1 and rng.random() >= ratio:
                    return
        deal[a], deal[b] = deal[b], deal[a]
        if not consistent(walk, walk.segment[group], deal, chosen, (("t", a), ("t", b))):
            deal[a], deal[b] = deal[b], deal[a]
        elif counts is not None and across:
            counts[gone] -= 1
            counts[come] += 1

    def flip(self, share: int) -> None:
        """Turn a share across a reshuffle (MM-22 g) crosswise, or back."""
        walk = self.walk
        pair = walk.shares[share][0]
        walk.perm[share] ^= 1
        items = tuple(("t", t) for t in pair)
        if not consistent(walk, walk.segment[walk.group[pair[0]]], self.deal, self.chosen, items):
            walk.perm[share] ^= 1

    def redraw(self, index: int) -> None:
        """Draw hidden choice ``index``'s card anew."""
        chosen = self.chosen
        old, chosen[index] = chosen[index], self.rng.below(CODES)
        if not consistent(self.walk, self.walk.choices[index], self.deal, chosen, (("v", index),)):
            chosen[index] = old
