"""Fixed deals written like the rules (scenario files, tests): the cards, how they are dealt,
and the named choice ``hunter``.

A game package's ``deal`` module tells the scenario runner (``docs/scenarios.md``, *Deals*)
how to turn ``hands:`` and named choices into the engine's ``FixedDeal``: ``DECK`` (the first
shuffle's cards in canonical order), ``AFTER_HANDS`` (what lies under the hands, top first),
``hand_size``, ``read_card``, ``shuffle_pool`` and ``CHOICES`` with ``picks``.

>>> read_card(14), read_card("q"), hand_size(9)
('Q', 'Q', 12)
>>> picks(4, {}, {"hunter": 3})
(3,)
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.games.vampire_queen.state import DECK, hand_size_for

#: VQ-3: the hands are dealt seat by seat from the top; the rest is set aside unseen.
AFTER_HANDS: tuple[str, ...] = ()
#: ``hunter``: the seat that receives the 15 Hunter in round 1 (VQ-4; its left neighbour gets
#: the 20 and leads).
CHOICES = ("hunter",)

_NAMES = {str(v): str(v) for v in range(1, 14)} | {"Q": "Q", "14": "Q"}


def hand_size(players: int) -> int:
    return hand_size_for(players)


def read_card(value: object) -> str:
    """A card as written: 1-13, ``Q`` (or 14 for a queen); :class:`ValueError` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"a card is 1-13 or Q, got {value!r}")
    text = str(value).strip().upper()
    if text in ("15", "20"):
        raise ValueError("Hunters are not dealt from the deck (VQ-4); choose them with picks")
    if text not in _NAMES:
        raise ValueError(f"a card is 1-13 or Q (14), got {value!r}")
    return _NAMES[text]


def shuffle_pool(index: int) -> tuple[str, ...] | None:
    """Every round shuffles the whole deck (VQ-4, VQ-5)."""
    return DECK


def picks(
    players: int, options: Mapping[str, str], choices: Mapping[str, object]
) -> tuple[int, ...]:
    seat = choices.get("hunter")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"hunter: expected a seat 0..{players - 1}, got {seat!r}")
    return (seat,)


__all__ = ["AFTER_HANDS", "CHOICES", "DECK", "hand_size", "picks", "read_card", "shuffle_pool"]
