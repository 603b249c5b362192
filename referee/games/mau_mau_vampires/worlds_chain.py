"""Mau Mau Vampires worlds: the chain that mixes the start (:func:`mix`).

A chain mixes the start (:mod:`referee.games.mau_mau_vampires.worlds_start`): swap two
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
from referee.games.mau_mau_vampires.worlds_walk import Walk, consistent
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
    held = {t for places, cards in walk.shares if max(cards) >= 0 for t in places}
    free = [t for t in deal if t not in walk.pin and ("t", t) not in walk.potted and t not in held]
    flips = [i for i, (places, cards) in enumerate(walk.shares) if max(cards) < 0]
    by_group: dict[int, list[int]] = {}
    for token in free:
        by_group.setdefault(walk.group[token], []).append(token)
    inside: dict[int, list[int]] = {}  # renewed group -> copies of each card in its new order
    for group, (places, _) in walk.fresh.items():
        inside[group] = [0] * CODES
        for token in places:
            inside[group][deal[token]] += 1
    open_choices = [i for i in range(len(chosen)) if ("v", i) not in walk.potted]
    n = len(free) + len(open_choices) + len(flips)
    steps = int(4 * n * math.log(max(n, 2))) + 10 if n else 0
    for _ in range(steps):
        pick = rng.below(n)
        if pick < len(free):
            a = free[pick]
            group = walk.group[a]
            b = rng.choice(by_group[group])
            if deal[a] == deal[b]:
                continue
            counts = inside.get(group)
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
                        continue
            deal[a], deal[b] = deal[b], deal[a]
            if not consistent(walk, walk.segment[group], deal, chosen, (("t", a), ("t", b))):
                deal[a], deal[b] = deal[b], deal[a]
            elif counts is not None and across:
                counts[gone] -= 1
                counts[come] += 1
        elif pick >= len(free) + len(open_choices):
            share = flips[pick - len(free) - len(open_choices)]
            pair = walk.shares[share][0]
            walk.perm[share] ^= 1
            items = tuple(("t", t) for t in pair)
            if not consistent(walk, walk.segment[walk.group[pair[0]]], deal, chosen, items):
                walk.perm[share] ^= 1
        else:
            index = open_choices[pick - len(free)]
            old, chosen[index] = chosen[index], rng.below(CODES)
            if not consistent(walk, walk.choices[index], deal, chosen, (("v", index),)):
                chosen[index] = old
