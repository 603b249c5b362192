"""Sleeping Queens: the state of a table (hidden parts included), the decks and the options.

Hands are count lists by card code, the draw and discard piles are lists with the top card
last, and queens are small integers, so a step costs a few list operations. Only
:mod:`referee.games.sleeping_queens.apply` changes a state.

Decisions (the common layer of :meth:`Game.decisions`):

=================  ==================================  ========  ===============================
kind               who                                 rule      commands
=================  ==================================  ========  ===============================
``turn``           the player whose turn it is         SQ-4      Discard, PlayKing, PlayKnight,
                                                                 PlayPotion, PlayJester
``block_knight``   the owner of the targeted queen     SQ-6      DeclineBlock, Block (Dragon)
``block_potion``   the owner of the targeted queen     SQ-7      DeclineBlock, Block (Wand)
``jester_wake``    the player counted by a Jester      SQ-8      WakeQueen
``rose_wake``      the player who woke the Rose Queen  SQ-11     WakeQueen
``place_queen``    the Potion's (or bouncing           SQ-7      PlaceQueen
                   Knight's) player                    (SQ-12)
=================  ==================================  ========  ===============================

The targeted player is always asked, also when holding no Dragon or Wand (then only
DeclineBlock is legal): skipping them would tell everyone that they hold none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from referee.engine.game import Decision, GameConfig
from referee.games.sleeping_queens.model import (
    CARD_COUNTS,
    CARD_NOTATION,
    DRAGON,
    JESTER,
    KING,
    KNIGHT,
    POSITIONS,
    POTION,
    QUEEN_NAMES,
    RIVAL,
    WAND,
    GameEnded,
    Phase,
)

#: SQ-2: the 67 cards in canonical order (fixed-deal notation).
DECK: tuple[str, ...] = tuple(
    CARD_NOTATION[card]
    for card in (KING, JESTER, KNIGHT, POTION, WAND, DRAGON, *range(1, 11))
    for _ in range(CARD_COUNTS[card])
)
#: SQ-1: the 12 queens in canonical order (fixed-deal notation).
QUEEN_DECK: tuple[str, ...] = QUEEN_NAMES[1:]

#: Option ``knight_cat_dog`` (SQ-12 ruling) values.
CAT_DOG_OPTIONS = ("illegal", "wasted", "bounce")
ILLEGAL, WASTED, BOUNCE = range(3)

#: Shuffle indexes: 0 the cards, 1 the queens, 2 and on the reshuffles (SQ-14).
CARDS_SHUFFLE, QUEENS_SHUFFLE = 0, 1


def thresholds(players: int) -> tuple[int, int]:
    """SQ-15: (queens, points) that win at once with this many players.

    >>> thresholds(3), thresholds(4)
    ((5, 50), (4, 40))
    """
    return (5, 50) if players <= 3 else (4, 40)


@dataclass
class SleepingQueensState:
    """The whole table, hidden parts included. Only ``apply`` changes it."""

    config: GameConfig
    players: int
    cat_dog: int  # option knight_cat_dog: ILLEGAL, WASTED or BOUNCE
    queens_to_win: int
    points_to_win: int
    #: hands[seat][card] = how many of that card the seat holds (index 0 unused).
    hands: list[list[int]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    draw: list[int] = field(default_factory=list)  # top card last
    discard: list[int] = field(default_factory=list)  # top card last
    #: The queens' containers below change only when a queen moves: tuples, which a copy
    #: shares (a search table copies the state at every step).
    #: positions[p] = the queen asleep at position p, 0 when empty.
    positions: tuple[int, ...] = (0,) * POSITIONS
    #: known[p]: the queen at p was put back to sleep there, in view of all (SQ-18).
    known: tuple[bool, ...] = (False,) * POSITIONS
    sleeping: int = 0
    #: owner[queen] = the seat she is awake in front of, -1 while asleep.
    owner: tuple[int, ...] = (-1,) * 13
    awake: tuple[tuple[int, ...], ...] = ()
    points: tuple[int, ...] = ()
    turn: int = -1
    phase: Phase = Phase.UNSPECIFIED
    decider: int = -1
    attacker: int = -1
    target_queen: int = 0
    attack: int = 0  # KNIGHT or POTION while a block or a placement is pending
    jester_card: int = 0
    shuffles: int = 0
    winners: tuple[int, ...] = ()
    end_rule: str = ""
    #: The event that ended the game (its rule and reason in words, for ``Game.ending``).
    ended: GameEnded | None = None
    #: The public part of the view of this state (:func:`view.public`), built by its first
    #: view and dropped by ``apply``, the state's only derived data; a copy starts without.
    #: (A factory, not a default: a compiled class has no class attribute to read it from.)
    public: tuple[Any, ...] | None = field(
        default_factory=lambda: None, init=False, repr=False, compare=False
    )


def copy_state(state: SleepingQueensState) -> SleepingQueensState:
    """A deep, independent copy: the immutable values (the tuples among them) shared, every
    mutable container copied. Field by field on a new object, not through ``__init__``: a
    search table copies the state at every step, and the compiled build reads and sets each
    field in a C struct (``tests/engine/test_search.py`` checks every field is copied)."""
    new = SleepingQueensState.__new__(SleepingQueensState)
    new.config = state.config
    new.players = state.players
    new.cat_dog = state.cat_dog
    new.queens_to_win = state.queens_to_win
    new.points_to_win = state.points_to_win
    new.hands = list(map(list.copy, state.hands))
    new.sizes = state.sizes.copy()
    new.draw = state.draw.copy()
    new.discard = state.discard.copy()
    new.positions = state.positions
    new.known = state.known
    new.sleeping = state.sleeping
    new.owner = state.owner
    new.awake = state.awake
    new.points = state.points
    new.turn = state.turn
    new.phase = state.phase
    new.decider = state.decider
    new.attacker = state.attacker
    new.target_queen = state.target_queen
    new.attack = state.attack
    new.jester_card = state.jester_card
    new.shuffles = state.shuffles
    new.winners = state.winners
    new.end_rule = state.end_rule
    new.ended = state.ended
    new.public = None
    return new


@cache
def decisions_in(phase: Phase, attack: int, seat: int) -> tuple[Decision, ...]:
    """The pending decision in ``phase`` (one seat decides at a time in Sleeping Queens)."""
    if phase is Phase.TURN:
        return (Decision(seat, "turn", "SQ-4"),)
    if phase is Phase.BLOCK:
        if attack == KNIGHT:
            return (Decision(seat, "block_knight", "SQ-6"),)
        return (Decision(seat, "block_potion", "SQ-7"),)
    if phase is Phase.JESTER_WAKE:
        return (Decision(seat, "jester_wake", "SQ-8"),)
    if phase is Phase.ROSE_WAKE:
        return (Decision(seat, "rose_wake", "SQ-11"),)
    if phase is Phase.PLACE_QUEEN:
        return (Decision(seat, "place_queen", "SQ-7" if attack == POTION else "SQ-12"),)
    return ()


def holds_rival(state: SleepingQueensState, seat: int, queen: int) -> bool:
    """SQ-12: ``seat`` holds the queen that ``queen`` cannot be held with."""
    rival = RIVAL[queen]
    return rival != 0 and state.owner[rival] == seat
