"""Vampire Queen: what a viewer may know (VQ-20, VQ-21): the views, the redaction of events
and the hidden variants of the leak test.

Everything is public but the hands: :func:`public` builds the shared part of the view once
per state (kept on the state until the next event), each seat's view adds its own hand.
"""

from __future__ import annotations

from itertools import compress
from typing import Any

from referee.engine.chance import hidden_permutation
from referee.engine.game import Viewer
from referee.games.vampire_queen.model import (
    HUNTER_15,
    HUNTER_20,
    Event,
    HandDealt,
    VampireQueenView,
)
from referee.games.vampire_queen.state import VampireQueenState, copy_state

_VALUES = range(1, 15)  # the values a hand counts (hands[seat][v])


def public(state: VampireQueenState) -> tuple[Any, ...]:
    """The fields of the view after ``hand``, in field order (VQ-20, VQ-21: all public), the
    same for every viewer of this state."""
    return (
        state.hand_sizes(),
        state.hunter_holder.get(HUNTER_15, 0),
        state.hunter_holder.get(HUNTER_20, 0),
        state.leader,
        None if state.over else state.turn,
        state.trick_kind,
        tuple(state.trick),
        state.lead_count,
        state.best_value,
        None if state.best_seat < 0 else state.best_seat,
        tuple(state.barred),
        tuple(state.last_penalties),
        tuple(state.totals),
        "last" if state.hunter_tie_last else "first",
        state.hunter_queen,
    )


#: The view's fields that differ from viewer to viewer (the game's ``seat_fields``): a
#: seat's hand is its own, everything else is public (VQ-20, VQ-21).
SEAT_FIELDS = ("hand",)


def view(state: VampireQueenState, viewer: Viewer) -> VampireQueenView:
    """Everything ``viewer`` may know: the public part and, for a seat, its own hand."""
    shared = state.public
    if shared is None:
        shared = state.public = public(state)
    if viewer is None:
        hand: tuple[int, ...] = ()
    else:
        counts = state.hands[viewer]
        cards: list[int] = []
        for value in compress(_VALUES, counts[1:]):  # only the values held
            cards += [value] * counts[value]
        hunters = state.hunters_in_hand(viewer)
        hand = (*cards, *hunters) if hunters else tuple(cards)
    return VampireQueenView(state.round, state.rounds, hand, *shared)


def redact(event: Event, viewer: Viewer) -> Event:
    """VQ-20/VQ-21: a dealt hand is seen by its owner only; everything else is public."""
    if type(event) is HandDealt and event.seat != viewer:
        return HandDealt(event.seat, event.count, ())
    return event


def hidden_variant(state: VampireQueenState, viewer: Viewer, salt: int) -> VampireQueenState:
    """Deal the cards of every hand ``viewer`` cannot see anew among those hands, or swap
    two of them (:func:`~referee.engine.chance.hidden_permutation`)."""
    other = copy_state(state)
    hidden = [s for s in range(state.players) if s != viewer]
    pool = [v for s in hidden for v in range(1, 15) for _ in range(state.hands[s][v])]
    pool = hidden_permutation(pool, [None] * len(pool), salt)  # hands are unordered
    for s in hidden:
        size = sum(state.hands[s])
        counts = bytearray(15)
        for v in pool[:size]:
            counts[v] += 1
        pool = pool[size:]
        other.hands[s] = counts
    return other
