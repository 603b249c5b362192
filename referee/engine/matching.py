"""One bipartite matching (augmenting paths, Kuhn), shared by the Mau Mau Vampires world
sampler's forward checks and the scenario runner's unordered lists.

>>> list(unmatched([[0, 1], [0], [0]]))
[2]
>>> next(unmatched([[0], [1]]), None) is None
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence


def unmatched(
    options: Sequence[Sequence[int]], order: Iterable[int] | None = None
) -> Iterator[int]:
    """The rows of ``options`` (row ``r`` may take any item of ``options[r]``, no item twice)
    left without an item by a maximum matching, tried in ``order`` (default: row order); lazy,
    so ``next(..., None) is None`` asks only whether every row gets one."""
    owner: dict[int, int] = {}

    def place(row: int, seen: set[int]) -> bool:
        for item in options[row]:
            if item in seen:
                continue
            seen.add(item)
            if item not in owner or place(owner[item], seen):
                owner[item] = row
                return True
        return False

    for row in range(len(options)) if order is None else order:
        if not place(row, set()):
            yield row


__all__ = ["unmatched"]
