"""Vampire Queen: the state of a table (hidden parts included) and what it tells at a glance.

Hands are kept as counts by value (index 1-13 number cards, 14 queens) plus the Hunter holders,
so legal sets are enumerated from counts, never from combinations of card ids. Only
:mod:`referee.games.vampire_queen.apply` changes a state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.engine.game import GameConfig
from referee.games.vampire_queen.model import HUNTERS, QUEEN, GameEnded, TrickKind, TrickPlay

#: VQ-1: the 108 cards that are shuffled and dealt (the Hunters never are), in deal notation.
DECK: tuple[str, ...] = tuple(str(v) for v in range(1, 14) for _ in range(8)) + ("Q",) * 4
#: The deal notation's cards by value (``"Q"`` is a queen, 14).
NOTATION = {str(v): v for v in range(1, 14)} | {"Q": QUEEN}


def hand_size_for(players: int) -> int:
    """VQ-3: cards dealt to each player.

    >>> [hand_size_for(n) for n in (3, 8, 9, 10, 11, 12)]
    [13, 13, 12, 10, 9, 9]
    """
    return min(13, 108 // players)


def penalty(value: int) -> int:
    """VQ-18: number cards at face value, queen 14, Hunters 15 and 20 (= the value itself)."""
    return value


def card_name(value: int) -> str:
    return "queen" if value == QUEEN else str(value)


@dataclass
class VampireQueenState:
    """The whole table, hidden parts included. Only ``apply`` changes it."""

    config: GameConfig
    players: int
    rounds: int
    hunter_tie_last: bool
    hunter_queen: int
    hand_size: int
    round: int = 0
    #: hands[seat][v] = how many cards of value v (1-13; 14 = queens) the seat holds: one
    #: byte a count (a bytearray of 15 takes 72 bytes, a list of 15 ints 176; a live game
    #: holds a hand a seat for its whole life).
    hands: list[bytearray] = field(default_factory=list)
    hunter_holder: dict[int, int] = field(default_factory=dict)
    hunter_on_table: int = 0
    leader: int = 0
    turn: int = -1
    trick_kind: TrickKind = TrickKind.UNSPECIFIED
    #: The containers below that are tuples change seldom or are replaced whole: a copy shares
    #: them (a search table copies the state at every step).
    trick: tuple[TrickPlay, ...] = ()
    lead_count: int = 0
    best_value: int = 0
    best_seat: int = -1
    pile: tuple[int, ...] = ()
    #: VQ-15: barred[seat] = the Hunter that seat may not lead in its next lead (0 = none).
    barred: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()
    last_penalties: tuple[int, ...] = ()
    shuffles: int = 0
    picks: int = 0
    over: bool = False
    #: The event that ended the game (its rule and reason in words, for ``Game.ending``).
    ended: GameEnded | None = None
    #: The public part of the view of this state (:func:`view.public`), built by its first
    #: view and dropped by ``apply``, the state's only derived data; a copy starts without.
    #: (A factory, not a default: a compiled class has no class attribute to read it from.)
    public: tuple[Any, ...] | None = field(
        default_factory=lambda: None, init=False, repr=False, compare=False
    )

    def cards_in_hand(self, seat: int) -> int:
        """Cards ``seat`` holds, Hunters included (VQ-20: public)."""
        count = sum(self.hands[seat])
        for hunter in HUNTERS:
            if self.hunter_holder.get(hunter) == seat and self.hunter_on_table != hunter:
                count += 1
        return count

    def hand_sizes(self) -> tuple[int, ...]:
        """``cards_in_hand`` of every seat."""
        sizes = [sum(hand) for hand in self.hands]
        for hunter, holder in self.hunter_holder.items():
            if self.hunter_on_table != hunter:
                sizes[holder] += 1
        return tuple(sizes)

    def hunters_in_hand(self, seat: int) -> list[int]:
        return [
            h for h in HUNTERS if self.hunter_holder.get(h) == seat and self.hunter_on_table != h
        ]

    def hand_penalty(self, seat: int) -> int:
        hand = self.hands[seat]
        return sum(v * hand[v] for v in range(1, 15)) + sum(self.hunters_in_hand(seat))

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.players


def copy_state(state: VampireQueenState) -> VampireQueenState:
    """A deep, independent copy: the immutable values (the tuples among them) shared, every
    mutable container copied. Field by field on a new object, not through ``__init__``: a
    search table copies the state at every step, and the compiled build reads and sets each
    field in a C struct (``tests/engine/test_search.py`` checks every field is copied)."""
    new = VampireQueenState.__new__(VampireQueenState)
    new.config = state.config
    new.players = state.players
    new.rounds = state.rounds
    new.hunter_tie_last = state.hunter_tie_last
    new.hunter_queen = state.hunter_queen
    new.hand_size = state.hand_size
    new.round = state.round
    new.hands = list(map(bytearray.copy, state.hands))
    new.hunter_holder = state.hunter_holder.copy()
    new.hunter_on_table = state.hunter_on_table
    new.leader = state.leader
    new.turn = state.turn
    new.trick_kind = state.trick_kind
    new.trick = state.trick
    new.lead_count = state.lead_count
    new.best_value = state.best_value
    new.best_seat = state.best_seat
    new.pile = state.pile
    new.barred = state.barred
    new.totals = state.totals
    new.last_penalties = state.last_penalties
    new.shuffles = state.shuffles
    new.picks = state.picks
    new.over = state.over
    new.ended = state.ended
    new.public = None
    return new
