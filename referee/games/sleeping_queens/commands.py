"""Sleeping Queens: the commands a seat may send (legal moves, built from shared prebuilt
values) and the command space of the conformance suite."""

from __future__ import annotations

from functools import cache
from itertools import combinations, compress

from referee.engine.game import Seat
from referee.games.sleeping_queens.model import (
    CARDS,
    DRAGON,
    HAND_SIZE,
    JESTER,
    KING,
    KNIGHT,
    POSITIONS,
    POTION,
    WAND,
    Block,
    Command,
    DeclineBlock,
    Discard,
    Phase,
    PlaceQueen,
    PlayJester,
    PlayKing,
    PlayKnight,
    PlayPotion,
    WakeQueen,
)
from referee.games.sleeping_queens.state import ILLEGAL, SleepingQueensState, holds_rival


def is_valid_discard(cards: tuple[int, ...]) -> bool:
    """SQ-9: one card, a pair of equal numbers, or 3+ numbers whose largest is the sum of the
    rest (cards ascending).

    >>> [is_valid_discard(c) for c in [(KING,), (4, 4), (2, 2, 4), (1, 2, 3, 4, 10), (2, 3, 6)]]
    [True, True, True, True, False]
    >>> is_valid_discard((KING, KING))  # two identical power cards are not a pair
    False
    """
    if len(cards) == 1:
        return 1 <= cards[0] <= CARDS
    if any(not 1 <= c <= 10 for c in cards):
        return False
    if len(cards) == 2:
        return cards[0] == cards[1]
    return len(cards) >= 3 and cards[-1] == sum(cards[:-1])


# Discard commands are immutable values: singles and pairs are built once.
_SINGLES = tuple(Discard((card,)) for card in range(1, CARDS + 1))
_PAIRS = tuple(Discard((n, n)) for n in range(1, 11))
_AT_LEAST_TWO = (1).__lt__


@cache
def _discards(hand: tuple[int, ...]) -> tuple[Discard, ...]:
    """SQ-9: every distinct discard ``hand`` (counts by card code) allows, in canonical order:
    single cards, pairs, then equations (shortest first). Cached by hand (at most 15,504 of
    them); a miss costs little, as the equations are cached by the number cards alone.

    >>> [d.cards for d in _discards((0, 0, 2, 1, 0, 1) + (0,) * 11)]  # 2, 2, 3, 5
    [(2,), (3,), (5,), (2, 2), (2, 3, 5)]
    """
    return (
        *compress(_SINGLES, hand[1:]),
        *compress(_PAIRS, map(_AT_LEAST_TWO, hand[1:11])),
        *_equations(hand[1:11]),
    )


@cache
def _equations(counts: tuple[int, ...]) -> tuple[Discard, ...]:
    """SQ-9: the distinct equations among number cards held ``counts[n - 1]`` times each:
    3 or more cards, the largest the sum of the others. Cached by the number cards alone."""
    numbers = [n for n in range(1, 11) for _ in range(counts[n - 1])]
    found: set[tuple[int, ...]] = set()
    for size in range(3, len(numbers) + 1):
        for chosen in combinations(numbers, size):  # numbers ascending: chosen is sorted
            if chosen[-1] == sum(chosen[:-1]):
                found.add(chosen)
    return tuple(Discard(cards) for cards in sorted(found, key=lambda cards: (len(cards), cards)))


def _all_equations() -> list[tuple[int, ...]]:
    """Every equation of 3-5 number cards the deck allows (at most 4 of a number)."""
    found: list[tuple[int, ...]] = []

    def extend(prefix: tuple[int, ...]) -> None:
        if len(prefix) >= 3 and prefix[-1] == sum(prefix[:-1]):
            found.append(prefix)
        if len(prefix) == HAND_SIZE:
            return
        for n in range(prefix[-1] if prefix else 1, 11):
            if prefix.count(n) < 4:
                extend((*prefix, n))

    extend(())
    return found


# Command objects are immutable: share one per position, queen and kind.
_KING_AT = tuple(PlayKing(p) for p in range(POSITIONS))
_WAKE_AT = tuple(WakeQueen(p) for p in range(POSITIONS))
_PLACE_AT = tuple(PlaceQueen(p) for p in range(POSITIONS))
_KNIGHT_ON = tuple(PlayKnight(q) for q in range(13))
_POTION_ON = tuple(PlayPotion(q) for q in range(13))
_JESTER = PlayJester()
_BLOCK = Block()
_DECLINE = DeclineBlock()


@cache
def _command_space() -> tuple[Command, ...]:
    """A finite superset of every legal command (for the conformance suite), with near misses.
    Built on first use: it is not needed to play."""
    return (
        *(Discard((c,)) for c in range(0, CARDS + 2)),
        *(Discard((c, c)) for c in range(1, CARDS + 1)),
        *(Discard(cards) for cards in _all_equations()),
        Discard(()),
        Discard((1, 2)),
        Discard((2, 3, 6)),
        Discard((5, 3, 2)),
        Discard((KING, JESTER, 1)),
        *(PlayKing(p) for p in range(-1, POSITIONS + 1)),
        *(PlayKnight(q) for q in range(0, 14)),
        *(PlayPotion(q) for q in range(0, 14)),
        _JESTER,
        _BLOCK,
        _DECLINE,
        *(WakeQueen(p) for p in range(-1, POSITIONS + 1)),
        *(PlaceQueen(p) for p in range(-1, POSITIONS + 1)),
    )


def legal_commands(state: SleepingQueensState, seat: Seat) -> list[Command]:
    """Every command ``seat`` may send now, in canonical order (a discard first)."""
    if seat != state.decider:
        return []
    phase = state.phase
    if phase is Phase.TURN:
        hand = state.hands[seat]
        moves: list[Command] = list(_discards(tuple(hand)))
        if hand[KING]:
            moves.extend(compress(_KING_AT, state.positions))
        if hand[KNIGHT] or hand[POTION]:
            owner = state.owner
            targets = [q for q in range(1, 13) if owner[q] >= 0 and owner[q] != seat]
            if hand[KNIGHT]:
                illegal = state.cat_dog == ILLEGAL
                moves.extend(
                    _KNIGHT_ON[q] for q in targets if not (illegal and holds_rival(state, seat, q))
                )
            if hand[POTION]:
                moves.extend(_POTION_ON[q] for q in targets)
        if hand[JESTER]:
            moves.append(_JESTER)
        return moves
    if phase is Phase.BLOCK:
        card = DRAGON if state.attack == KNIGHT else WAND
        return [_DECLINE, _BLOCK] if state.hands[seat][card] else [_DECLINE]
    if phase is Phase.JESTER_WAKE or phase is Phase.ROSE_WAKE:
        return list(compress(_WAKE_AT, state.positions))
    if phase is Phase.PLACE_QUEEN:
        positions = state.positions
        return [_PLACE_AT[p] for p in range(POSITIONS) if not positions[p]]
    return []


def command_space(state: SleepingQueensState, seat: Seat) -> list[Command]:
    return list(_command_space())
