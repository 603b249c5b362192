"""Sleeping Queens: what a viewer may know (SQ-17, SQ-18, SQ-19): the views, the redaction of
events and the hidden variants of the leak test.

Everything is public but the hands, the draw pile and the face-down queens: :func:`public`
builds the shared part of the view once per state (kept on the state until the next event),
each seat's view adds its own hand.
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import compress
from typing import Any

from referee.engine.chance import hidden_permutation
from referee.engine.game import Viewer
from referee.games.sleeping_queens.model import (
    CARDS,
    POSITIONS,
    AwakeQueens,
    CardsDrawn,
    DeckShuffled,
    Event,
    Phase,
    Position,
    QueensLaid,
    SleepingQueensView,
)
from referee.games.sleeping_queens.state import CAT_DOG_OPTIONS, SleepingQueensState, copy_state

# The view's parts are values: the few distinct ones are built once (SQ-17, SQ-18).
_CARD_IDS = range(1, CARDS + 1)
_position = cache(Position)
_awake_queens = lru_cache(maxsize=1 << 12)(AwakeQueens)


def public(state: SleepingQueensState) -> tuple[Any, ...]:
    """The fields of the view after ``hand``, in field order: all public (SQ-17, SQ-18), the
    same objects for every viewer of this state."""
    known = state.known
    over = state.phase is Phase.OVER
    return (
        tuple(state.sizes),
        len(state.draw),
        tuple(state.discard),
        tuple(_position(p, bool(q), q if known[p] else 0) for p, q in enumerate(state.positions)),
        tuple(
            _awake_queens(s, tuple(state.awake[s]), state.points[s]) for s in range(state.players)
        ),
        None if over or state.turn < 0 else state.turn,
        state.phase,
        None if over or state.decider < 0 else state.decider,
        state.attacker if state.attacker >= 0 else None,
        state.target_queen,
        state.jester_card,
        CAT_DOG_OPTIONS[state.cat_dog],
        state.queens_to_win,
        state.points_to_win,
        state.winners,
        state.end_rule,
    )


#: The view's fields that differ from viewer to viewer (the game's ``seat_fields``): a
#: seat's hand is its own, everything else is public (SQ-17 ... SQ-19).
SEAT_FIELDS = ("hand",)


def view(state: SleepingQueensState, viewer: Viewer) -> SleepingQueensView:
    """Everything ``viewer`` may know: the public part and, for a seat, its own hand."""
    shared = state.public
    if shared is None:
        shared = state.public = public(state)
    if viewer is None:
        hand: tuple[int, ...] = ()
    else:
        counts = state.hands[viewer]
        cards: list[int] = []
        for card in compress(_CARD_IDS, counts[1:]):  # only the cards held
            cards += [card] * counts[card]
        hand = tuple(cards)
    return SleepingQueensView(hand, *shared)


#: SQ-18: nobody sees which queen lies where.
_QUEENS_HIDDEN = QueensLaid(())


def redact(event: Event, viewer: Viewer) -> Event:
    if isinstance(event, CardsDrawn):
        # SQ-19: cards drawn are seen only by the drawer.
        return event if event.seat == viewer else CardsDrawn(event.seat, event.count, ())
    if isinstance(event, DeckShuffled):
        # SQ-19: the draw pile order is never shown, to anyone.
        return DeckShuffled(event.shuffle, event.count, (), event.reshuffle)
    if isinstance(event, QueensLaid):
        return _QUEENS_HIDDEN
    return event


def hidden_variant(state: SleepingQueensState, viewer: Viewer, salt: int) -> SleepingQueensState:
    """Re-deal what ``viewer`` cannot see: the draw pile and the other hands (sizes kept)
    among themselves, and the face-down queens whose identity is unknown among their
    positions (SQ-17, SQ-18, SQ-19)."""
    other = copy_state(state)
    hidden = [s for s in range(state.players) if s != viewer]
    pool = list(state.draw)
    for s in hidden:
        counts = state.hands[s]
        pool.extend(c for c in range(1, CARDS + 1) for _ in range(counts[c]))
    groups: list[object] = ["draw"] * len(state.draw)
    groups.extend([None] * (len(pool) - len(state.draw)))  # hands are unordered
    pool = hidden_permutation(pool, groups, salt)
    other.draw = pool[: len(state.draw)]
    rest = pool[len(state.draw) :]
    for s in hidden:
        counts = [0] * (CARDS + 1)
        for card in rest[: state.sizes[s]]:
            counts[card] += 1
        rest = rest[state.sizes[s] :]
        other.hands[s] = counts
    unknown = [p for p in range(POSITIONS) if state.positions[p] and not state.known[p]]
    queens = hidden_permutation(
        [state.positions[p] for p in unknown], ["queens"] * len(unknown), salt // 3
    )
    positions = list(other.positions)
    for p, queen in zip(unknown, queens, strict=True):
        positions[p] = queen
    other.positions = tuple(positions)
    return other
