"""Dracula vs Van Helsing: what a seat may see (DV-24 ... DV-26): its view, the redaction of
events, and the hidden variants of the conformance suite's leak test.

A view is the state's public part (:func:`public`, the same for every viewer: built once per
state) and the viewer's own: its role, the two racks as it sees them and the drawn card.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from referee.engine.chance import hidden_permutation
from referee.engine.game import Viewer
from referee.games.dracula_vs_van_helsing.model import (
    CARDS,
    HIDDEN,
    ROUNDS,
    Card,
    CardDrawn,
    Colour,
    DistrictExchanged,
    DraculaVsVanHelsingView,
    DrawnCardPlaced,
    Event,
    Rack,
    Role,
    RoundStarted,
    Slot,
    SlotsDealt,
    Step,
)
from referee.games.dracula_vs_van_helsing.state import (
    EFFECT_STEP,
    DraculaVsVanHelsingState,
    copy_state,
)

#: The steps that resolve a discarded card's effect (the view names the effect).
_EFFECT_STEPS = frozenset(EFFECT_STEP.values())
#: Dracula's seat -> the roles of seats 0 and 1 (DV-1).
_ROLES = ((Role.DRACULA, Role.VAN_HELSING), (Role.VAN_HELSING, Role.DRACULA))


class Public(NamedTuple):
    """What every viewer's view of one state computes alike from it (DV-11, DV-19, DV-26);
    the other shared fields are the state's own immutable values, read as they are. A named
    tuple: one is made for every state a view is asked of, and a tuple is the cheapest
    immutable value to make."""

    trump: Colour
    deck_size: int
    deck_top: Card
    discard_pile: tuple[Card, ...]
    turn: int | None
    #: The drawn card's code while it waits to be placed (0 otherwise); shown per viewer.
    drawn: int
    drawn_revealed: bool
    effect: int
    called_by: int | None
    last_deck_top: Card


def public(state: DraculaVsVanHelsingState) -> Public:
    """The state's public part, built by the first view of the state (``apply`` drops it)."""
    found: Public | None = state.public
    if found is None:
        found = state.public = _public(state)
    return found


def _public(state: DraculaVsVanHelsingState) -> Public:
    step = state.step
    deck, revealed, pile, track = state.deck, state.revealed, state.pile, state.track
    drawn = state.drawn if step is Step.PLACE else 0
    return Public(
        trump=track[0] if track else Colour.UNSPECIFIED,
        deck_size=len(deck),
        deck_top=CARDS[deck[0]] if deck and revealed[deck[0]] else HIDDEN,  # DV-11
        discard_pile=tuple([CARDS[code] for code in pile]),  # DV-26: the pile is public
        turn=None if step is Step.OVER else state.active,
        drawn=drawn,
        drawn_revealed=bool(drawn) and revealed[drawn],
        effect=pile[-1] % 10 if step in _EFFECT_STEPS else 0,
        called_by=state.called_by if state.called_by >= 0 else None,
        last_deck_top=CARDS[state.last_deck_top],
    )


#: The view's fields that differ from viewer to viewer (the game's ``seat_fields``): the
#: viewer's role, the racks and the drawn card as it sees them (DV-24, DV-25); everything
#: else is public.
SEAT_FIELDS = ("role", "racks", "drawn")


def view(state: DraculaVsVanHelsingState, viewer: Viewer) -> DraculaVsVanHelsingView:
    """DV-24 ... DV-26: the public part, and the cards ``viewer`` has seen (a spectator sees
    only revealed cards)."""
    p = public(state)
    dracula = state.dracula
    if viewer is None:
        role = Role.UNSPECIFIED
    else:
        role = Role.DRACULA if viewer == dracula else Role.VAN_HELSING
    drawn = p.drawn
    # DV-25: the drawn card, for its drawer or for everyone once a 2 revealed it.
    shown = drawn and state.visible(drawn, viewer)
    # Positional arguments, one a line in field order: keywords cost twice as much for 26
    # fields, and a view is made on every step of a learning agent.
    return DraculaVsVanHelsingView(
        state.round,
        ROUNDS,  # rounds
        dracula,
        1 - dracula,  # van_helsing
        role,
        state.hp,
        state.districts,
        state.track,
        p.trump,
        state.order,  # resolution_order
        (rack(state, 0, viewer), rack(state, 1, viewer)),  # racks
        p.deck_size,
        p.deck_top,
        p.discard_pile,
        p.turn,
        state.turn_kind,
        state.step,
        CARDS[drawn] if shown else HIDDEN,  # drawn
        p.drawn_revealed,
        p.effect,
        p.called_by,
        state.last_round_end,
        state.last_resolution,
        state.last_pile,  # last_discard_pile
        p.last_deck_top,
        state.winner,
    )


def rack(state: DraculaVsVanHelsingState, seat: int, viewer: Viewer) -> Rack:
    """``seat``'s rack as ``viewer`` sees it, kept in the state until it changes."""
    kept = state.racks[seat]
    found = kept.get(viewer)
    if found is None:
        found = kept[viewer] = _rack(state, seat, viewer)
    return found


def _rack(state: DraculaVsVanHelsingState, seat: int, viewer: Viewer) -> Rack:
    """``seat``'s five slots as ``viewer`` sees them: a card is shown when revealed (DV-18) or
    seen by the viewer (DV-24, DV-25); it is known to the owner's opponent when revealed or
    seen by that opponent (DV-25)."""
    revealed, seen = state.revealed, state.seen
    role = _ROLES[state.dracula][seat]
    mine = 0 if viewer is None else 1 << viewer
    theirs = 1 << (1 - seat)
    return Rack(
        seat,
        role,
        tuple(
            [
                Slot(
                    district,
                    CARDS[code] if revealed[code] or seen[code] & mine else HIDDEN,
                    revealed[code],
                    revealed[code] or bool(seen[code] & theirs),
                )
                for district, code in enumerate(state.slots[seat], 1)
            ]
        ),
    )


def redact(event: Event, viewer: Viewer) -> Event:
    if isinstance(event, RoundStarted):  # DV-26: the deck order is never shown
        return replace(event, deck=()) if event.deck else event
    if isinstance(event, SlotsDealt):  # DV-24
        return event if event.seat == viewer else replace(event, cards=())
    if isinstance(event, CardDrawn | DrawnCardPlaced):  # DV-25: the drawer only, unless a 2
        if event.revealed or event.seat == viewer:
            return event
        return replace(event, card=HIDDEN)
    if isinstance(event, DistrictExchanged) and viewer is None:  # DV-25: both players, no one else
        return replace(
            event,
            given=event.given if event.given_revealed else HIDDEN,
            taken=event.taken if event.taken_revealed else HIDDEN,
        )
    return event


def hidden_variant(
    state: DraculaVsVanHelsingState, viewer: Viewer, salt: int
) -> DraculaVsVanHelsingState:
    """Deal anew every card ``viewer`` cannot see among the places it may be: the deck (its
    revealed top stays), the slots the viewer has not seen and the drawn card. The ``seen``
    bits stay with the place, so each seat still knows its own cards."""
    other = copy_state(state)
    places: list[tuple[int, int]] = []  # (-1, index) deck, (seat, index) slot, (2, 0) drawn
    codes: list[int] = []
    for index, code in enumerate(state.deck):
        if not state.revealed[code]:
            places.append((-1, index))
            codes.append(code)
    for seat in (0, 1):
        for index, code in enumerate(state.slots[seat]):
            if code and not state.visible(code, viewer):
                places.append((seat, index))
                codes.append(code)
    if state.drawn and not state.visible(state.drawn, viewer):
        places.append((2, 0))
        codes.append(state.drawn)
    flags = [state.seen[code] for code in codes]
    groups = [None if where == 2 else where for where, _ in places]  # deck, each row
    for (where, index), code, seen in zip(
        places, hidden_permutation(codes, groups, salt), flags, strict=True
    ):
        if where == -1:
            other.deck[index] = code
        elif where == 2:
            other.drawn = code
        else:
            other.slots[where][index] = code
        other.seen[code] = seen
    return other
