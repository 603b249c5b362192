"""Mau Mau Vampires worlds: the partial deal the start's search builds (:class:`Partial`), the
one type the search (:mod:`referee.games.mau_mau_vampires.worlds.start`) and its forward checks
(:mod:`referee.games.mau_mau_vampires.worlds.ahead`) both read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.games.mau_mau_vampires.worlds.walk import Item

#: room(state, token, code): whether ``code`` may still be laid on the blank ``token``.
Room = Callable[["Partial", int, int], bool]
#: A branch's option at its step: ``("item", item)`` the item a hidden gift moved,
#: ``("perm", share, crosswise)`` where a share's places went, ``("pick", choice, card, pot)``
#: the card of a hidden one put in a pot the seat took, ``("lay", token, card)`` a card laid,
#: ``("narrow", token, cards)`` the blank token that answers a call.
Option = tuple[Any, ...]


class Partial:
    """A hand's deal while the start's search builds it: the cards laid on tokens so far, the
    cards each blank token may still get, the cards of each shuffle not laid yet, what each
    other seat holds and which item each hidden gift moved."""

    __slots__ = (
        "allow",
        "code",
        "hands",
        "left",
        "links",
        "perm",
        "picked",
        "pots",
        "shows",
        "spare",
    )

    def __init__(self) -> None:
        self.code: dict[int, int] = {}  # token -> its card
        self.allow: dict[int, frozenset[int]] = {}  # blank token -> the cards it may get
        self.left: dict[int, list[int]] = {}  # group -> copies of each card not laid
        #: group -> copies of each turned special not laid on a place of its new order yet
        self.spare: dict[int, list[int]] = {}
        self.hands: dict[int, list[Item]] = {}  # seat -> its items ("t" or "c")
        self.links: dict[int, Item] = {}  # hidden choice -> the item it moved
        self.shows: list[tuple[int, frozenset[int], tuple[Item, ...]]] = []
        self.pots: list[list[int]] = []  # each pot the seat took: its cards not placed yet
        self.picked: dict[int, int] = {}  # hidden choice put in such a pot -> its card
        self.perm: dict[int, int] = {}  # share -> crosswise or not (the walk's shares)

    def copy(self) -> Partial:
        other = Partial()
        other.code = dict(self.code)
        other.allow = dict(self.allow)
        other.left = {g: list(c) for g, c in self.left.items()}
        other.spare = {g: list(c) for g, c in self.spare.items()}
        other.hands = {s: list(h) for s, h in self.hands.items()}
        other.links = dict(self.links)
        other.shows = list(self.shows)
        other.pots = [list(p) for p in self.pots]
        other.picked = dict(self.picked)
        other.perm = dict(self.perm)
        return other
