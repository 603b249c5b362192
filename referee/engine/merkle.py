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
from collections.abc import Iterator, Sequence
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

    def __reduce__(self) -> tuple[type[MerkleTree], tuple[list[bytes]]]:
        # Through the constructor, as every compiled class of this module: a compiled class
        # cannot be made empty and filled in, as copy and pickle do by default.
        return (MerkleTree, (self.levels[0],))

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


class PackedCards:
    """A shuffle's cards held small: each distinct card once (``kinds``, in order of first
    appearance) and the deck as one byte a position, the index of its card in ``kinds``. A
    tuple of the cards takes 8 bytes a position (108 cards: 904 bytes, where this takes about
    350); a live game keeps every deck it shuffled for its whole life. A read-only sequence of the
    cards, equal to another of the same cards in the same order.

    >>> deck = PackedCards(("Q", "3", "Q"))
    >>> deck[2], len(deck), tuple(deck)
    ('Q', 3, ('Q', '3', 'Q'))
    """

    __slots__ = ("kinds", "order")

    def __init__(self, cards: Sequence[str]) -> None:
        kinds = tuple(dict.fromkeys(cards))
        index = {card: i for i, card in enumerate(kinds)}
        order = [index[card] for card in cards]
        self.kinds = kinds
        # More than 256 distinct cards (no game has them): one small int a position.
        self.order: bytes | tuple[int, ...] = bytes(order) if len(kinds) <= 256 else tuple(order)

    def __reduce__(self) -> tuple[type[PackedCards], tuple[tuple[str, ...]]]:
        return (PackedCards, (tuple(self),))

    def __len__(self) -> int:
        return len(self.order)

    def __getitem__(self, position: int) -> str:
        return self.kinds[self.order[position]]

    def __iter__(self) -> Iterator[str]:
        kinds = self.kinds
        return (kinds[i] for i in self.order)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PackedCards):
            return NotImplemented
        return self.order == other.order and self.kinds == other.kinds

    def __hash__(self) -> int:
        return hash((self.kinds, self.order))

    def __repr__(self) -> str:
        return f"PackedCards({tuple(self)!r})"


class _Nodes:
    """One kept level of a :class:`DeckTree`, read from its packed levels (what
    :attr:`DeckTree.upper` gives: made when read, not held)."""

    __slots__ = ("packed",)

    def __init__(self, packed: bytes) -> None:
        self.packed = packed

    def __len__(self) -> int:
        return len(self.packed) // 32

    def __getitem__(self, index: int) -> bytes:
        return self.packed[32 * index : 32 * index + 32]


#: The bottom levels of a :class:`DeckTree` made again when a path is read, not kept: the
#: leaves, their pairs and the pairs' pairs. A path's three bottom nodes all come from the
#: block of eight leaves around its position (:meth:`DeckTree._block`).
MADE_LEVELS = 3

#: A block's salts and its made levels, bottom first (:meth:`DeckTree._block`).
Block = tuple[list[bytes], list[list[bytes]]]


def _width(size: int, level: int) -> int:
    """How many nodes level ``level`` of a tree of ``size`` leaves has."""
    return (size + (1 << level) - 1) >> level


class DeckTree:
    """The Merkle tree of one shuffle, held small: its cards packed (:class:`PackedCards`)
    and only its levels from the fourth up (an eighth of the nodes), all of them in one bytes
    object, bottom level first (a bytes object a node took twice its 32 bytes, and one a
    level about 80 bytes more). The three bottom levels of a path (the sibling leaf, the
    sibling pair's node and the node above) are made again from the cards and the key when a
    card is opened: the eight leaves of its block, 22 hashes; a live game keeps its decks'
    trees for its whole life, and the full levels would be most of a game's memory.

    Same root and same paths as :class:`MerkleTree` over the same leaves."""

    __slots__ = ("cards", "key", "packed", "root", "shuffle")

    def __init__(self, key: bytes, shuffle: int, cards: Sequence[str] | PackedCards) -> None:
        self.key, self.shuffle = key, shuffle
        self.cards = cards if isinstance(cards, PackedCards) else PackedCards(cards)
        salts = [card_salt(key, shuffle, p) for p in range(len(cards))]
        tree = MerkleTree([leaf(shuffle, p, salt, cards[p]) for p, salt in enumerate(salts)])
        self.root = tree.root
        self.packed = b"".join(node for level in tree.levels[MADE_LEVELS:] for node in level)

    def __reduce__(self) -> tuple[type[DeckTree], tuple[bytes, int, PackedCards]]:
        # Made again from its key and cards (a copy of a refereed table; rare).
        return (DeckTree, (self.key, self.shuffle, self.cards))

    @property
    def upper(self) -> tuple[_Nodes, ...]:
        """The kept levels, bottom first (root included), each a sequence of its nodes."""
        out, at, level, size = [], 0, MADE_LEVELS, len(self.cards)
        while at < len(self.packed):
            width = _width(size, level)
            out.append(_Nodes(self.packed[at : at + 32 * width]))
            at, level = at + 32 * width, level + 1
        return tuple(out)

    def _block(self, block: int) -> Block:
        """The salts of block ``block`` (its ``2 ** MADE_LEVELS`` positions) and its levels
        below the kept ones: its leaves, their pairs, ... (a lone last node moves up, as in
        the whole tree: a block starts at a multiple of its size)."""
        shuffle, key, kinds, order = self.shuffle, self.key, self.cards.kinds, self.cards.order
        start = block << MADE_LEVELS
        positions = range(start, min(start + (1 << MADE_LEVELS), len(order)))
        salts = [card_salt(key, shuffle, p) for p in positions]
        level = [leaf(shuffle, p, salts[p - start], kinds[order[p]]) for p in positions]
        levels = [level]
        for _ in range(MADE_LEVELS - 1):
            last = len(level) - 1
            level = [
                _node(level[j], level[j + 1]) if j < last else level[j]
                for j in range(0, len(level), 2)
            ]
            levels.append(level)
        return salts, levels

    def _made(self, block: int, made: dict[int, Block]) -> Block:
        got = made.get(block)
        if got is None:
            got = made[block] = self._block(block)
        return got

    def path(self, position: int, made: dict[int, Block] | None = None) -> tuple[bytes, ...]:
        """The path of ``position``. ``made``, the caller's, lends the blocks made for earlier
        positions: neighbouring cards then share them."""
        return self._path(position, {} if made is None else made)

    def proofs(self, start: int, stop: int) -> list[Proof]:
        """The salt and path of each position from ``start`` to ``stop``, made together:
        each block they need once (a seat's hand: two or three blocks)."""
        made: dict[int, Block] = {}
        mask = (1 << MADE_LEVELS) - 1
        return [
            Proof(self._made(p >> MADE_LEVELS, made)[0][p & mask], self._path(p, made))
            for p in range(start, stop)
        ]

    def _path(self, position: int, made: dict[int, Block]) -> tuple[bytes, ...]:
        width, index, level = len(self.cards), position, 0
        packed, at = self.packed, 0
        out = []
        while width > 1:
            sibling = index ^ 1
            if level < MADE_LEVELS:  # in the position's block: its level's nodes, local
                if sibling < width:
                    nodes = self._made(position >> MADE_LEVELS, made)[1][level]
                    out.append(nodes[sibling & ((1 << (MADE_LEVELS - level)) - 1)])
            else:
                if sibling < width:
                    start = at + 32 * sibling
                    out.append(packed[start : start + 32])
                at += 32 * width
            index, width, level = index >> 1, (width + 1) >> 1, level + 1
        return tuple(out)


__all__ = [
    "MADE_LEVELS",
    "DeckTree",
    "MerkleTree",
    "PackedCards",
    "Proof",
    "card_salt",
    "leaf",
    "root_of",
]
