"""One bipartite matching (augmenting paths, Kuhn), shared by the Mau Mau Vampires world
sampler's forward checks and the scenario runner's unordered lists.

>>> list(unmatched([[0, 1], [0], [0]]))
[2]
>>> next(unmatched([[0], [1]]), None) is None
True
>>> owners([[0, 1], [0]])
{0: 1, 1: 0}
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
    for row in range(len(options)) if order is None else order:
        if not _place(options, owner, row, set()):
            yield row


def owners(
    options: Sequence[Sequence[int]], order: Iterable[int] | None = None
) -> dict[int, int] | None:
    """A matching that gives every row of ``options`` an item (item -> row), or None where
    there is none; rows tried in ``order`` as :func:`unmatched`."""
    owner: dict[int, int] = {}
    for row in range(len(options)) if order is None else order:
        if not _place(options, owner, row, set()):
            return None
    return owner


def _place(
    options: Sequence[Sequence[int]], owner: dict[int, int], row: int, seen: set[int]
) -> bool:
    """An augmenting path from ``row`` (Kuhn): whether it got an item, ``owner`` updated."""
    for item in options[row]:
        if item in seen:
            continue
        seen.add(item)
        if item not in owner or _place(options, owner, owner[item], seen):
            owner[item] = row
            return True
    return False


__all__ = ["owners", "unmatched"]
