"""Who sits where in duplicate deals: seatings and balanced Latin squares.

A deal (a table seed) played once per **seating** lets the luck of the deal and of the seat
cancel out: ``referee-tournament``'s duplicate format and :func:`referee.rl.evaluate` both play
every deal in the seatings given here. A seating of a table of ``n`` players is a tuple ``row``
with ``row[seat]`` = the index of the player (in the table's list) that plays ``seat``.
:func:`seatings` gives every permutation for 2 and 3 seats, and a balanced Latin square
(Williams design) beyond: every player plays every seat equally often, and every ordered pair of
different players sits side by side (seat ``s`` then ``s + 1``) equally often, in ``n`` rows
for even ``n`` and ``2n`` for odd ``n`` (instead of ``n!``).

>>> seatings(3)
[(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
>>> williams(4)
[(0, 1, 3, 2), (1, 2, 0, 3), (2, 3, 1, 0), (3, 0, 2, 1)]
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence


def williams(n: int) -> list[tuple[int, ...]]:
    """A Williams design: a Latin square balanced for immediate neighbours.

    The first row is ``0, 1, n-1, 2, n-2, ...``; row ``r`` adds ``r`` modulo ``n``. For odd
    ``n`` the mirrored rows are added, which restores the neighbour balance.
    """
    if n < 1:
        raise ValueError("n must be positive")
    first = [0]
    low, high = 1, n - 1
    for i in range(1, n):
        if i % 2:
            first.append(low)
            low += 1
        else:
            first.append(high)
            high -= 1
    rows = [tuple((x + r) % n for x in first) for r in range(n)]
    if n % 2:
        rows += [tuple(reversed(row)) for row in rows]
    return rows


def seatings(n: int) -> list[tuple[int, ...]]:
    """Every permutation for ``n <= 3``; a Williams design beyond (see the module)."""
    if n <= 3:
        return list(itertools.permutations(range(n)))
    return williams(n)


def seat_counts(rows: Sequence[Sequence[int]]) -> Counter[tuple[int, int]]:
    """How often each (player, seat) occurs."""
    return Counter((player, seat) for row in rows for seat, player in enumerate(row))


def neighbour_counts(rows: Sequence[Sequence[int]]) -> Counter[tuple[int, int]]:
    """How often player ``a`` sits at seat ``s`` and player ``b`` at ``s + 1``."""
    return Counter((row[s], row[s + 1]) for row in rows for s in range(len(row) - 1))
