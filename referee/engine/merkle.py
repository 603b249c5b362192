"""The hashing of per-card commitments (``docs/fairness.md`` section 6): each deck position's
salt and leaf, Merkle trees over a shuffle's leaves, and the root a leaf and its path give.
:mod:`referee.engine.openings` makes the referee's events of them.

>>> leaf(0, 3, bytes(32), "Q").hex()[:16]
'c73c19c8c6fc8c03'
>>> leaves = [leaf(0, i, bytes(32), c) for i, c in enumerate("abc")]
>>> tree = MerkleTree(leaves)
>>> all(root_of(leaves[i], i, 3, tree.path(i)) == tree.root for i in range(3))
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import NamedTuple

_LEAF, _NODE = b"\x00", b"\x01"


def card_salt(key: bytes, shuffle: int, position: int) -> bytes:
    """SHA-256(key || uint32_be(shuffle) || uint32_be(position)): 32 bytes."""
    return hashlib.sha256(key + shuffle.to_bytes(4, "big") + position.to_bytes(4, "big")).digest()


def leaf(shuffle: int, position: int, salt: bytes, card: str) -> bytes:
    """The commitment to one deck position: SHA-256(0x00 || uint32_be(shuffle) ||
    uint32_be(position) || salt || UTF-8(card))."""
    return hashlib.sha256(
        _LEAF + shuffle.to_bytes(4, "big") + position.to_bytes(4, "big") + salt + card.encode()
    ).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(_NODE + left + right).digest()


class MerkleTree:
    """Levels of SHA-256(0x01 || left || right) over the leaves; an odd last node moves up
    unchanged. A path lists the sibling of each level where there is one, bottom first."""

    __slots__ = ("levels",)

    def __init__(self, leaves: Sequence[bytes]) -> None:
        level = list(leaves)
        self.levels = [level]
        while len(level) > 1:
            up = [_node(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
            if len(level) % 2:
                up.append(level[-1])
            level = up
            self.levels.append(level)

    @property
    def root(self) -> bytes:
        return self.levels[-1][0] if self.levels[0] else hashlib.sha256(b"").digest()

    def path(self, position: int) -> tuple[bytes, ...]:
        out = []
        index = position
        for level in self.levels[:-1]:
            sibling = index ^ 1
            if sibling < len(level):
                out.append(level[sibling])
            index //= 2
        return tuple(out)


def root_of(digest: bytes, position: int, size: int, path: Sequence[bytes]) -> bytes:
    """The root a leaf and its path give, for a tree of ``size`` leaves (what a seat checks)."""
    index, width, steps = position, size, iter(path)
    while width > 1:
        if index % 2:
            digest = _node(next(steps), digest)
        elif index + 1 < width:
            digest = _node(digest, next(steps))
        index, width = index // 2, (width + 1) // 2
    return digest


class Proof(NamedTuple):
    """What proves a position's card against its shuffle's root (:func:`root_of` of its
    :func:`leaf`): its salt and Merkle path."""

    salt: bytes
    path: tuple[bytes, ...]


# --- a live game's deck trees ----------------------------------------------------------------


class _Nodes:
    """One level of a tree's nodes, 32 bytes each, in one bytes object (a bytes object each
    took twice their size)."""

    __slots__ = ("packed",)

    def __init__(self, nodes: Sequence[bytes]) -> None:
        self.packed = b"".join(nodes)

    def __len__(self) -> int:
        return len(self.packed) // 32

    def __getitem__(self, index: int) -> bytes:
        return self.packed[32 * index : 32 * index + 32]


class DeckTree:
    """The Merkle tree of one shuffle, held small: only its levels from the third up (a
    quarter of the nodes), each level packed in one bytes object. The two bottom levels of a
    path, the sibling leaf and the sibling pair's node, are made again from the cards and the
    key when a card is opened (at most three leaves and one node, a few microseconds); a live
    game keeps its decks' trees for its whole life, and the full levels were most of a game's
    memory (issue 25 §4).

    Same root and same paths as :class:`MerkleTree` over the same leaves."""

    __slots__ = ("cards", "key", "root", "shuffle", "upper")

    def __init__(self, key: bytes, shuffle: int, cards: tuple[str, ...]) -> None:
        self.key, self.shuffle, self.cards = key, shuffle, cards
        tree = MerkleTree([self._leaf(i) for i in range(len(cards))])
        self.root = tree.root
        self.upper = tuple(_Nodes(level) for level in tree.levels[2:])

    def _leaf(self, position: int) -> bytes:
        shuffle, key = self.shuffle, self.key
        return leaf(shuffle, position, card_salt(key, shuffle, position), self.cards[position])

    def _pair(self, index: int) -> bytes:
        """Node ``index`` of the second level: its two leaves hashed, or a lone last leaf."""
        left = 2 * index
        if left + 1 < len(self.cards):
            return _node(self._leaf(left), self._leaf(left + 1))
        return self._leaf(left)

    def path(self, position: int, pairs_made: dict[int, bytes] | None = None) -> tuple[bytes, ...]:
        """The path of ``position``. ``pairs_made``, the caller's, lends the second-level
        nodes made for earlier positions: neighbouring cards then share them."""
        if pairs_made is None:
            return self._path(position, self._leaf, self._pair)

        def pair(index: int) -> bytes:
            node = pairs_made.get(index)
            if node is None:
                node = pairs_made[index] = self._pair(index)
            return node

        return self._path(position, self._leaf, pair)

    def proofs(self, start: int, stop: int) -> list[Proof]:
        """The salt and path of each position from ``start`` to ``stop``, made together:
        each salt, leaf and second-level node they need once (a seat's hand: about a third
        of the hashes of its cards made one by one)."""
        made = _Made(self)
        return [
            Proof(made.salt(p), self._path(p, made.leaf, made.pair)) for p in range(start, stop)
        ]

    def _path(
        self, position: int, leaf_of: Callable[[int], bytes], pair_of: Callable[[int], bytes]
    ) -> tuple[bytes, ...]:
        size = len(self.cards)
        out = []
        if size > 1:
            if position ^ 1 < size:
                out.append(leaf_of(position ^ 1))
            pairs, index = (size + 1) // 2, position // 2
            if pairs > 1:
                if index ^ 1 < pairs:
                    out.append(pair_of(index ^ 1))
                index //= 2
                for level in self.upper[:-1]:
                    packed, at = level.packed, 32 * (index ^ 1)  # _Nodes, read inline
                    if at < len(packed):
                        out.append(packed[at : at + 32])
                    index //= 2
        return tuple(out)


class _Made:
    """The salts, leaves and second-level nodes of one :meth:`DeckTree.proofs` call, lent
    between its positions; the call's own, dropped with it."""

    __slots__ = ("leaves", "pairs", "salts", "tree")

    def __init__(self, tree: DeckTree) -> None:
        self.tree = tree
        self.salts: dict[int, bytes] = {}
        self.leaves: dict[int, bytes] = {}
        self.pairs: dict[int, bytes] = {}

    def salt(self, position: int) -> bytes:
        made = self.salts.get(position)
        if made is None:
            tree = self.tree
            made = self.salts[position] = card_salt(tree.key, tree.shuffle, position)
        return made

    def leaf(self, position: int) -> bytes:
        made = self.leaves.get(position)
        if made is None:
            tree = self.tree
            card = tree.cards[position]
            made = self.leaves[position] = leaf(tree.shuffle, position, self.salt(position), card)
        return made

    def pair(self, index: int) -> bytes:
        made = self.pairs.get(index)
        if made is None:
            left = 2 * index
            if left + 1 < len(self.tree.cards):
                made = _node(self.leaf(left), self.leaf(left + 1))
            else:
                made = self.leaf(left)
            self.pairs[index] = made
        return made


__all__ = [
    "DeckTree",
    "MerkleTree",
    "Proof",
    "card_salt",
    "leaf",
    "root_of",
]
