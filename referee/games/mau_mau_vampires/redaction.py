"""Mau Mau Vampires: what a seat may see (MM-26 ... MM-28): its view, the redaction of
events, and the hidden variants of the conformance suite's leak test."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from referee.engine.chance import hidden_permutation
from referee.engine.game import Viewer
from referee.games.mau_mau_vampires.characters import CHARACTERS
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CODES,
    HIDDEN,
    CardGiven,
    CardsDealt,
    CardsDrawn,
    CardSetAside,
    CardShown,
    CharacterView,
    Colour,
    DeckShuffled,
    DrawnShared,
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

#: The view's constructor, called with the shared tuples spread between the viewer's own
#: fields (mypy cannot count the fields in them).
_view: Any = MauMauVampiresView


def view(state: MauMauVampiresState, viewer: Viewer) -> MauMauVampiresView:
    public = state.public
    if public is None:
        public = state.public = _public(state)
    head, middle, play, scores, options = public
    if viewer is None:
        spectator: MauMauVampiresView = _view(
            *head, (), *middle, (), *play, (), (), (), *scores, (), *options
        )
        return spectator
    hand = _cards_of(state.hands[viewer])
    is_turn = viewer == state.turn
    phase = state.phase
    made: MauMauVampiresView = _view(
        *head,
        hand,
        *middle,
        tuple(CARDS[c] for c, by in state.pot if by == viewer) if state.pot else (),
        *play,
        tuple(ShownCard(s, CARDS[c]) for s, c in state.shown) if is_turn else (),
        (CARDS[state.drawn],) if is_turn and phase is Phase.PLAY_DRAWN else (),
        tuple(CARDS[c] for c in state.pair) if is_turn else (),
        *scores,
        _cards_of(state.last_hands[viewer]) if state.last_hands else (),
        *options,
    )
    return made


@lru_cache(maxsize=1 << 10)
def _characters(characters: tuple[int, ...], werewolf: int) -> tuple[CharacterView, ...]:
    """MM-3, MM-27: the character in front of each seat (one tuple per distinct table)."""
    table = CHARACTERS.characters
    return tuple(
        CharacterView(
            seat=seat,
            id=table[index].id,
            name=table[index].name,
            ability=table[index].ability,
            day_symbols=table[index].day_symbols,
            vampire_symbol=table[index].vampire_symbol,
            vampire_colour=table[index].vampire_colour,
            first_game=table[index].first_game,
            werewolf=index == werewolf,
        )
        for seat, index in enumerate(characters)
    )


def _public(state: MauMauVampiresState) -> Any:
    """The view's fields every viewer shares (MM-26, MM-27), in field order around the
    viewer's own (``hand``, ``pot_yours``, ``shown_to_you``, ``drawn``, ``to_share``,
    ``last_hand``): the same objects for every viewer of this state."""
    phase = state.phase
    werewolf_seat = next(
        (s for s, index in enumerate(state.characters) if index == state.werewolf), None
    )
    head = (state.hand_number, state.hands_total, state.tiebreak, state.dealer, state.playing)
    middle = (
        tuple(state.sizes),
        len(state.deck),
        sum(state.pile_under) + (1 if state.top >= 0 else 0),
        CARDS[state.top] if state.top >= 0 else HIDDEN,
        Colour(state.wish),
        state.night,
        state.clocks,
        werewolf_seat,
        _characters(tuple(state.characters), state.werewolf),
        CHARACTERS.symbols,
        len(state.pot),
    )
    play = (
        phase,
        None if state.over else state.turn,
        state.extra_turn,
        state.ability,
        state.wisher if phase is Phase.WISH else None,
        Colour(state.call_colour),
        tuple(sorted(state.answering)),
    )
    scores = (
        len(state.pair),
        tuple(state.totals),
        tuple(state.tiebreak_points),
        tuple(state.history),
    )
    options = (
        "pass_left" if state.pass_left else "keep",
        "auto" if state.auto_announce else "required",
        state.first_game,
    )
    return head, middle, play, scores, options


#: The redactions made so far, by the identity of the event they hide a part of (the entry
#: keeps the event, so its id stays its own): every viewer an event hides the same part from
#: gets the same object, which the server then encodes once for all of them.
_HIDDEN: dict[tuple[int, bool], tuple[Any, Any]] = {}


def _shared(event: Any, owner: bool, make: Any) -> Any:
    """``make(event)``, the same object for every viewer in the same position (``owner``)."""
    key = (id(event), owner)
    hit = _HIDDEN.get(key)
    if hit is not None and hit[0] is event:
        return hit[1]
    redacted = make(event)
    if len(_HIDDEN) >= 4096:
        _HIDDEN.clear()
    _HIDDEN[key] = (event, redacted)
    return redacted


def _without_order(event: Any) -> Any:
    return replace(event, order=())


def _without_cards(event: Any) -> Any:
    return replace(event, cards=())


def _hidden_card(event: Any) -> Any:
    return replace(event, card=HIDDEN)


def _set_aside_seen(event: Any) -> Any:
    return replace(event, deck_cards=())


def _set_aside_hidden(event: Any) -> Any:
    return replace(event, card=HIDDEN, deck_cards=())


def redact(event: Any, viewer: Viewer) -> Any:
    """MM-26 ... MM-28: cards drawn, dealt or taken are seen by their receiver; a given card
    by giver and receiver; a shown card by shower and caller; the deck order and the pot's
    deck cards by no one."""
    kind = type(event)
    if kind is DeckShuffled:
        return _shared(event, False, _without_order)
    if kind is CardsDealt or kind is CardsDrawn or kind is PotTaken:
        return event if event.seat == viewer else _shared(event, False, _without_cards)
    if kind is CardGiven:
        if viewer in (event.from_seat, event.to_seat):
            return event
        return _shared(event, False, _hidden_card)
    if kind is CardShown:
        if viewer in (event.seat, event.to_seat):
            return event
        return _shared(event, False, _hidden_card)
    if kind is DrawnShared:
        if viewer == event.seat:
            return event
        cards = tuple(
            card if to == viewer else HIDDEN
            for card, to in zip(event.cards, event.to_seats, strict=True)
        )
        return replace(event, cards=cards)
    if kind is CardSetAside:
        if viewer == event.seat:
            return _shared(event, True, _set_aside_seen)
        return _shared(event, False, _set_aside_hidden)
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
    answering = state.phase is Phase.ANSWER_CALL
    caller = state.turn if answering else -1
    for seat in state.playing:
        if seat == viewer:
            continue
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
        other.hands[seat] = keep
    pool.extend(state.deck)
    slots.extend(("deck", i, 0) for i in range(len(state.deck)))
    for index, (code, by) in enumerate(state.pot):
        if viewer is None or by != viewer:
            pool.append(code)
            slots.append(("pot", index, 0))
    if state.phase is Phase.SHARE_DRAWN and viewer != state.turn:
        pool.extend(state.pair)
        slots.extend(("pair", i, 0) for i in range(len(state.pair)))
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
    other.pot = list(state.pot)
    other.shown = list(state.shown)
    for i, (zone, where, _) in enumerate(slots):
        code = assigned[i]
        if zone == "deck":
            other.deck[where] = code
        elif zone == "pot":
            other.pot[where] = (code, state.pot[where][1])
        elif zone == "pair":
            other.pair[where] = code
        elif zone == "shown":
            shower = state.shown[where][0]
            other.shown[where] = (shower, code)
            other.hands[shower][code] += 1
        else:
            other.hands[where][code] += 1
            if zone == "drawn":
                other.drawn = code
    # The cards of (g) stay in whatever order they were dealt here: only their drawer sees
    # them, so no event may depend on their order (MM-28).
    return other
