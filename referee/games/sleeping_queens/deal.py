"""Fixed deals written like the rules: five cards to each seat, the top of the draw pile,
the sleeping queens by position, and the named choice ``first`` (protocol:
``vampire_queen/deal.py``).

>>> read_card(7), read_card("k"), read_card("king")
('7', 'K', 'K')
>>> picks(3, {}, {"first": 2})
(2,)
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.games.sleeping_queens.model import HAND_SIZE
from referee.games.sleeping_queens.state import DECK, QUEEN_DECK

#: SQ-3: five cards to each seat from the top; the rest is the draw pile.
AFTER_HANDS = ("draw",)
#: ``first``: the seat that starts (SQ-3).
CHOICES = ("first",)
#: The second shuffle lays out the queens, face down, by position (a list of queen names).
QUEENS_SHUFFLE = 1

_WORDS = {
    "king": "K",
    "jester": "J",
    "knight": "N",
    "potion": "P",
    "sleeping potion": "P",
    "wand": "W",
    "magic wand": "W",
    "dragon": "D",
}
_NOTATION = set(DECK)


def hand_size(players: int) -> int:
    return HAND_SIZE


def read_card(value: object) -> str:
    """``K J N P W D`` or a number 1-10 (or the words: ``king``, ``magic wand``, ...)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"a card is K, J, N, P, W, D or 1-10, got {value!r}")
    text = str(value).strip()
    text = _WORDS.get(text.lower(), text.upper())
    if text not in _NOTATION:
        raise ValueError(f"a card is K, J, N, P, W, D or 1-10, got {value!r}")
    return text


def read_shuffle_card(index: int, value: object) -> str:
    """A card of shuffle ``index``: a queen's name (``rose``, ``cat``) in the queens' shuffle."""
    if index != QUEENS_SHUFFLE:
        return read_card(value)
    text = str(value).strip().lower().removesuffix(" queen")
    if text not in QUEEN_DECK:
        raise ValueError(f"a queen is one of {', '.join(QUEEN_DECK)}, got {value!r}")
    return text


def shuffle_pool(index: int) -> tuple[str, ...] | None:
    """The cards, then the queens; later shuffles (SQ-14) are of a discard pile that depends
    on the play."""
    return {0: DECK, QUEENS_SHUFFLE: QUEEN_DECK}.get(index)


def picks(
    players: int, options: Mapping[str, str], choices: Mapping[str, object]
) -> tuple[int, ...]:
    seat = choices.get("first")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"first: expected a seat 0..{players - 1}, got {seat!r}")
    return (seat,)


__all__ = [
    "AFTER_HANDS",
    "CHOICES",
    "DECK",
    "QUEENS_SHUFFLE",
    "hand_size",
    "picks",
    "read_card",
    "read_shuffle_card",
    "shuffle_pool",
]
