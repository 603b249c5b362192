"""Mau Mau Vampires: what a seat may see (MM-26 ... MM-28): its view, the redaction of
events, and the hidden variants of the conformance suite's leak test.

A view is the state's public part (:func:`public`, the same for every viewer: built once per
state) and the viewer's own: its hand, its cards in the pot, what was shown to it, the card it
just drew, the cards it shares, its last hand.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from referee.engine.chance import hidden_permutation
from referee.engine.game import Viewer
from referee.games.mau_mau_vampires.characters import CHARACTERS
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CODES,
    HIDDEN,
    Card,
    CardGiven,
    CardsDealt,
    CardsDrawn,
    CardSetAside,
    CardShown,
    Colour,
    DeckShuffled,
    DrawnShared,
    Event,
    HandScore,
    MauMauVampiresView,
    Phase,
    PotTaken,
    ShownCard,
    colour_of,
)
from referee.games.mau_mau_vampires.state import (
    MauMauVampiresState,
    _cards_of,
    copy_state,
)


class Public(NamedTuple):
    """What every viewer's view of one state computes alike from it (MM-26, MM-27); the
    other shared fields are the state's own values, read as they are. A named tuple: one is
    made for every state a view is asked of, and a tuple is the cheapest immutable value."""

    hand_sizes: tuple[int, ...]
    deck_size: int
    pile_size: int
    top: Card
    wish: Colour
    werewolf_seat: int | None
    pot_size: int
    turn: int | None
    wisher: int | None
    called_colour: Colour
    answering: tuple[int, ...]
    to_share_count: int
    totals: tuple[int, ...]
    tiebreak_points: tuple[int, ...]
    hand_scores: tuple[HandScore, ...]
    characters_option: str
    announcements: str


def public(state: MauMauVampiresState) -> Public:
    """The state's public part, built by the first view of the state (``apply`` drops it)."""
    found: Public | None = state.public
    if found is None:
        found = state.public = _public(state)
    return found


def _public(state: MauMauVampiresState) -> Public:
    phase = state.phase
    return Public(
        hand_sizes=tuple(state.sizes),
        deck_size=len(state.deck),
        pile_size=sum(state.pile_under) + (1 if state.top >= 0 else 0),
        top=CARDS[state.top] if state.top >= 0 else HIDDEN,
        wish=Colour(state.wish),
        werewolf_seat=next(
            (s for s, index in enumerate(state.characters) if index == state.werewolf), None
        ),
        pot_size=len(state.pot),
        turn=None if state.over else state.turn,
        wisher=state.wisher if phase is Phase.WISH else None,
        called_colour=Colour(state.call_colour),
        answering=tuple(sorted(state.answering)),
        to_share_count=len(state.pair),
        totals=tuple(state.totals),
        tiebreak_points=tuple(state.tiebreak_points),
        hand_scores=tuple(state.history),
        characters_option="pass_left" if state.pass_left else "keep",
        announcements="auto" if state.auto_announce else "required",
    )


#: The view's fields that differ from viewer to viewer (the game's ``seat_fields``): what
#: only the viewer may see (MM-28); everything else is public.
SEAT_FIELDS = ("hand", "pot_yours", "shown_to_you", "drawn", "to_share", "last_hand")


def view(state: MauMauVampiresState, viewer: Viewer) -> MauMauVampiresView:
    """MM-26 ... MM-28: the public part, and what only ``viewer`` may see (a spectator: none
    of it)."""
    p = public(state)
    if viewer is None:
        hand: tuple[Card, ...] = ()
        last_hand: tuple[Card, ...] = ()
    else:
        hand = _cards_of(state.hands[viewer])
        last_hand = _cards_of(state.last_hands[viewer]) if state.last_hands else ()
    is_turn = viewer is not None and viewer == state.turn
    # Positional arguments, one a line in field order: keywords cost twice as much for 36
    # fields, and a view is made on every step of a learning agent.
    return MauMauVampiresView(
        state.hand_number,
        state.hands_total,  # hands
        state.tiebreak,
        state.dealer,
        state.playing,
        hand,
        p.hand_sizes,
        p.deck_size,
        p.pile_size,
        p.top,
        p.wish,
        state.night,
        state.clocks,
        p.werewolf_seat,
        state.character_views,  # characters
        CHARACTERS.symbols,
        p.pot_size,
        tuple(CARDS[c] for c, by in state.pot if by == viewer)
        if viewer is not None and state.pot
        else (),
        state.phase,
        p.turn,
        state.extra_turn,
        state.ability,
        p.wisher,
        p.called_colour,
        p.answering,
        tuple(ShownCard(s, CARDS[c]) for s, c in state.shown) if is_turn else (),  # shown_to_you
        (CARDS[state.drawn],) if is_turn and state.phase is Phase.PLAY_DRAWN else (),  # drawn
        tuple(CARDS[c] for c in state.pair) if is_turn else (),  # to_share
        p.to_share_count,
        p.totals,
        p.tiebreak_points,
        p.hand_scores,
        last_hand,
        p.characters_option,
        p.announcements,
        state.first_game,
    )


def redact(event: Event, viewer: Viewer) -> Event:
    """MM-26 ... MM-28: cards drawn, dealt or taken are seen by their receiver; a given card
    by giver and receiver; a shown card by shower and caller; the deck order and the pot's
    deck cards by no one."""
    if isinstance(event, DeckShuffled):
        return replace(event, order=())
    if isinstance(event, CardsDealt | CardsDrawn | PotTaken):
        return event if event.seat == viewer else replace(event, cards=())
    if isinstance(event, CardGiven):
        if viewer in (event.from_seat, event.to_seat):
            return event
        return replace(event, card=HIDDEN)
    if isinstance(event, CardShown):
        if viewer in (event.seat, event.to_seat):
            return event
        return replace(event, card=HIDDEN)
    if isinstance(event, DrawnShared):
        if viewer == event.seat:
            return event
        cards = tuple(
            card if to == viewer else HIDDEN
            for card, to in zip(event.cards, event.to_seats, strict=True)
        )
        return replace(event, cards=cards)
    if isinstance(event, CardSetAside):
        if viewer == event.seat:
            return replace(event, deck_cards=())
        return replace(event, card=HIDDEN, deck_cards=())
    return event


def hidden_variant(state: MauMauVampiresState, viewer: Viewer, salt: int) -> MauMauVampiresState:
    """Re-deal everything ``viewer`` cannot see (MM-28): other hands, the deck order, the
    pot (but the viewer's own cards in it), the cards of (g) and the card just drawn of
    another seat, the cards shown to another caller. What the view shows stays: cards shown
    to the viewer stay in the showers' hands, and a seat that must show a colour keeps a
    card of it."""
    other = copy_state(state)
    pool: list[int] = []
    # Slots to refill: (zone, seat or index, colour the card must have or 0).
    slots: list[tuple[str, int, int]] = []
    for seat in state.playing:
        if seat != viewer:
            other.hands[seat] = _take_hand(state, viewer, seat, pool, slots)
    pool.extend(state.deck)
    slots.extend(("deck", i, 0) for i in range(len(state.deck)))
    for index, (code, by) in enumerate(state.pot):
        if viewer is None or by != viewer:
            pool.append(code)
            slots.append(("pot", index, 0))
    if state.phase is Phase.SHARE_DRAWN and viewer != state.turn:
        pool.extend(state.pair)
        slots.extend(("pair", i, 0) for i in range(len(state.pair)))
    _put_back(state, other, slots, _dealt_again(pool, slots, salt))
    # The cards of (g) stay in whatever order they were dealt here: only their drawer sees
    # them, so no event may depend on their order (MM-28).
    return other


def _take_hand(
    state: MauMauVampiresState,
    viewer: Viewer,
    seat: int,
    pool: list[int],
    slots: list[tuple[str, int, int]],
) -> list[int]:
    """Another seat's hidden cards into ``pool``, each with its slot; what stays in its hand
    (the cards it showed the viewer, when the viewer called)."""
    answering = state.phase is Phase.ANSWER_CALL
    caller = state.turn if answering else -1
    counts = list(state.hands[seat])
    keep = [0] * CODES
    if state.phase is Phase.PLAY_DRAWN and seat == state.turn:
        counts[state.drawn] -= 1
        pool.append(state.drawn)
        slots.append(("drawn", seat, 0))
    if answering:
        for index, (shower, code) in enumerate(state.shown):
            if shower != seat:
                continue
            counts[code] -= 1
            if viewer == caller:
                keep[code] += 1
            else:
                pool.append(code)
                slots.append(("shown", index, state.call_colour))
        if seat in state.answering:
            first = (state.call_colour - 1) * 11
            witness = next(c for c in range(first, first + 11) if counts[c])
            counts[witness] -= 1
            pool.append(witness)
            slots.append(("witness", seat, state.call_colour))
    for code in range(CODES):
        pool.extend([code] * counts[code])
        slots.extend([("hand", seat, 0)] * counts[code])
    return keep


def _dealt_again(pool: list[int], slots: list[tuple[str, int, int]], salt: int) -> dict[int, int]:
    """The hidden cards dealt again to their slots (slot -> card), a colour-bound slot a card
    of its colour."""
    # The deck, the pot and the cards of (g) are ordered zones (their order is hidden too).
    zones = [zone if zone in ("deck", "pot", "pair") else None for zone, _, _ in slots]
    pool = hidden_permutation(pool, zones, salt)
    assigned = dict(enumerate(pool))
    if any(colour and colour_of(pool[i]) != colour for i, (_, _, colour) in enumerate(slots)):
        # Colour-bound slots first: the pool holds their original cards, so a match exists.
        order = sorted(range(len(slots)), key=lambda i: slots[i][2] == 0)
        for i in order:
            colour = slots[i][2]
            pick = next(k for k, c in enumerate(pool) if not colour or colour_of(c) == colour)
            assigned[i] = pool.pop(pick)
    return assigned


def _put_back(
    state: MauMauVampiresState,
    other: MauMauVampiresState,
    slots: list[tuple[str, int, int]],
    assigned: dict[int, int],
) -> None:
    """Each card dealt again into its slot of ``other``."""
    other.pot = list(state.pot)
    pair, shown = list(state.pair), list(state.shown)
    for i, (zone, where, _) in enumerate(slots):
        code = assigned[i]
        if zone == "deck":
            other.deck[where] = code
        elif zone == "pot":
            other.pot[where] = (code, state.pot[where][1])
        elif zone == "pair":
            pair[where] = code
        elif zone == "shown":
            shower = state.shown[where][0]
            shown[where] = (shower, code)
            other.hands[shower][code] += 1
        else:
            other.hands[where][code] += 1
            if zone == "drawn":
                other.drawn = code
    other.pair, other.shown = tuple(pair), tuple(shown)
