"""Deterministic chance: every shuffle and random pick derives from the game's secret seed.

Randomness is decided when an event is decided and recorded in that event, so replaying a log
never needs this module. The derivation is language-neutral so a third party can re-check a
deal once the seed is revealed:

* a stream of bytes is ``SHA-256(seed || label || counter)`` for counter = 0, 1, 2, ...
  (counter as 8 bytes big-endian), concatenated;
* an integer below ``n`` takes 8 bytes of the stream as a big-endian number ``x`` and is
  ``x mod n``, rejecting ``x >= 2**64 - (2**64 mod n)`` (so there is no modulo bias);
* a shuffle is Fisher-Yates: for ``i`` from ``len - 1`` down to 1, swap item ``i`` with item
  ``below(i + 1)``;
* the label of the k-th shuffle of a game is ``b"shuffle:" + str(k)``, of the k-th pick
  ``b"pick:" + str(k)``.

>>> shuffled(range(5), b"seed", 0) == shuffled(range(5), b"seed", 0)
True
>>> sorted(shuffled(range(5), b"seed", 1))
[0, 1, 2, 3, 4]
"""

from __future__ import annotations

import hashlib
import itertools
import struct
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from referee.engine.game import GameConfig, SetupRefused

T = TypeVar("T")

_LIMIT = 1 << 64


#: A SHA-256 digest read as four 8-byte big-endian integers.
_FOUR_WORDS = struct.Struct(">4Q")


def _stream(seed: bytes, label: bytes) -> Iterator[int]:
    prefix = seed + label
    for counter in itertools.count():
        yield from _FOUR_WORDS.unpack(hashlib.sha256(prefix + counter.to_bytes(8, "big")).digest())


def _below(stream: Iterator[int], n: int) -> int:
    if not 0 < n <= _LIMIT:
        raise ValueError(f"cannot draw below {n}: n must be in 1..2**64")
    cutoff = _LIMIT - (_LIMIT % n)
    while True:
        x = next(stream)
        if x < cutoff:
            return x % n


def shuffled(items: Iterable[T], seed: bytes, index: int) -> list[T]:
    """The ``index``-th shuffle of a game with ``seed``: a new list, ``items`` untouched.

    The stream and ``below`` of the module docstring, read in one loop: a shuffle takes one
    word a swap but for a rejection (a word refused for ``n`` has the odds ``n / 2**64``), so
    the digests of that many words are made up front and more only when a word was refused."""
    deck = list(items)
    size = len(deck)
    prefix = seed + b"shuffle:" + str(index).encode()
    sha256, unpack = hashlib.sha256, _FOUR_WORDS.unpack
    counter = (size + 2) // 4  # digests for size - 1 words
    words: list[int] = []
    for block in range(counter):
        words += unpack(sha256(prefix + block.to_bytes(8, "big")).digest())
    at = 0
    for i in range(size - 1, 0, -1):
        n = i + 1
        cutoff = _LIMIT - _LIMIT % n
        while True:
            if at == len(words):
                words += unpack(sha256(prefix + counter.to_bytes(8, "big")).digest())
                counter += 1
            x = words[at]
            at += 1
            if x < cutoff:
                break
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def picked(n: int, seed: bytes, index: int) -> int:
    """The ``index``-th random pick of a game: an integer in ``range(n)``.

    >>> 0 <= picked(4, b"seed", 0) < 4
    True
    """
    return _below(_stream(seed, b"pick:" + str(index).encode()), n)


def deck_for(
    config: GameConfig, index: int, cards: Iterable[str], *, prefix: bool = False
) -> list[str]:
    """The order of the ``index``-th shuffle of ``cards``: the fixed deal's if given, else seeded.

    A fixed deck for a shuffle whose cards are known at creation (``prefix=False``) must be a
    permutation of ``cards`` (same multiset); the game checks that at creation, so the
    :class:`ValueError` here is a last guard. With ``prefix=True`` (a shuffle whose cards are
    known only when it happens, e.g. a reshuffled discard pile) the fixed deck gives the top
    cards only: its cards that are among ``cards`` go on top in the listed order (each copy
    once; listed cards not there are skipped), and the rest follow in the seed's order, as the
    ``index``-th shuffle of what is left. Such a shuffle cannot fail.

    >>> from referee.engine.game import FixedDeal
    >>> config = GameConfig("g", 2, {}, b"seed", FixedDeal(decks=(("Q", "K", "Q"),)))
    >>> deck_for(config, 0, ["A", "K", "Q", "J"], prefix=True)[:2]
    ['Q', 'K']
    >>> sorted(deck_for(config, 0, ["A", "K", "Q", "J"], prefix=True)[2:])
    ['A', 'J']
    """
    pool = list(cards)
    if config.deal is not None and index < len(config.deal.decks):
        given = list(config.deal.decks[index])
        if prefix:
            rest = list(pool)
            top = []
            for card in given:
                if card in rest:
                    rest.remove(card)
                    top.append(card)
            return top + shuffled(rest, config.seed, index)
        if sorted(given) != sorted(pool):
            raise ValueError(
                f"fixed deck {index} is not a permutation of the {len(pool)} cards to shuffle"
            )
        return given
    return shuffled(pool, config.seed, index)


def pick_for(config: GameConfig, index: int, n: int) -> int:
    """The ``index``-th random pick in ``range(n)``: the fixed deal's if given, else seeded.
    The game checks fixed picks at creation; the :class:`ValueError` here is a last guard."""
    if config.deal is not None and index < len(config.deal.picks):
        value = config.deal.picks[index]
        if not 0 <= value < n:
            raise ValueError(f"fixed pick {index} must be in 0..{n - 1}, got {value}")
        return value
    return picked(n, config.seed, index)


def check_fixed_deck(
    config: GameConfig, index: int, cards: Sequence[str], *, prefix: bool = False, note: str = ""
) -> None:
    """Refuse (:class:`SetupRefused`, field ``deal.decks[index]``) a fixed deck that
    :func:`deck_for` would not take for a shuffle of ``cards``: not a permutation of them, or
    (``prefix=True``) naming a card that is not among them or more copies than there are.
    ``note`` says which shuffle it is, for the message. Nothing to check without that deck."""
    if config.deal is None or index >= len(config.deal.decks):
        return
    given = config.deal.decks[index]
    where = f"deal.decks[{index}]"
    what = f" ({note})" if note else ""
    if prefix:
        head = f"deck {index}{what} gives the top cards of a shuffle of these {len(cards)}"
    else:
        head = f"deck {index}{what} must hold all {len(cards)} cards once each, top first"
    counts: dict[str, int] = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    for position, card in enumerate(given):
        if card not in counts:
            known = ", ".join(sorted(counts, key=list(cards).index))
            raise SetupRefused(where, f"{head}: no card {card!r} (cards: {known})")
        counts[card] -= 1
        if counts[card] < 0:
            raise SetupRefused(
                where, f"{head}: more copies of {card!r} than the game has (position {position})"
            )
    if not prefix and any(counts.values()):
        missing = sorted(card for card, left in counts.items() for _ in range(left))
        raise SetupRefused(where, f"{head}: {len(missing)} missing, e.g. {', '.join(missing[:10])}")


def check_fixed_pick(config: GameConfig, index: int, n: int, note: str = "") -> None:
    """Refuse (:class:`SetupRefused`, field ``deal.picks[index]``) a fixed pick outside
    ``range(n)``. Nothing to check without that pick."""
    if config.deal is None or index >= len(config.deal.picks):
        return
    value = config.deal.picks[index]
    if not 0 <= value < n:
        what = f" ({note})" if note else ""
        raise SetupRefused(
            f"deal.picks[{index}]", f"pick {index}{what} must be in 0..{n - 1}, got {value}"
        )


def hidden_permutation(cards: Sequence[T], groups: Sequence[object], salt: int) -> list[T]:
    """New cards for hidden places (for a game's ``hidden_variant``): ``cards[i]`` is the card
    at place ``i`` and ``groups[i]`` the ordered zone it belongs to (a deck, a row of cards
    shown face down), or ``None`` where order means nothing (a hand kept as counts).

    ``salt % 3`` chooses the kind of change, so a leak test meets all three: 0 deals every
    card anew among all places; 1 swaps two different cards inside one ordered zone (e.g. the
    two cards a player just drew, whose order only that player knows); 2 swaps two different
    cards anywhere (so two hidden cards that sort differently change sides). A kind that has
    nothing to swap deals anew.

    >>> hidden_permutation(["x", "y", "z"], ["deck", "deck", None], 1)
    ['y', 'x', 'z']
    >>> sorted(hidden_permutation("aabc", [None, 0, 0, 1], 5))
    ['a', 'a', 'b', 'c']
    """
    deal = list(cards)
    rng = _stream(b"hidden-variant", str(salt).encode())
    mode = salt % 3
    if mode:
        if mode == 1:
            zones: dict[object, list[int]] = {}
            for place, group in enumerate(groups):
                if group is not None:
                    zones.setdefault(group, []).append(place)
            candidates = [
                places for places in zones.values() if len({repr(deal[p]) for p in places}) > 1
            ]
        else:
            candidates = [list(range(len(deal)))] if len({repr(c) for c in deal}) > 1 else []
        if candidates:
            places = candidates[_below(rng, len(candidates))]
            while True:
                i = places[_below(rng, len(places))]
                j = places[_below(rng, len(places))]
                if repr(deal[i]) != repr(deal[j]):
                    deal[i], deal[j] = deal[j], deal[i]
                    return deal
    return shuffled(deal, b"hidden-variant", salt)
