"""Dracula vs Van Helsing: the event handlers, the only code that changes a state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.games.dracula_vs_van_helsing.model import (
    CARDS,
    CardDrawn,
    CardRevealed,
    Colour,
    DeckTopRevealed,
    District,
    DistrictExchanged,
    DistrictResolved,
    DrawnCardDiscarded,
    DrawnCardPlaced,
    EffectSkipped,
    EndCalled,
    Event,
    GameEnded,
    GameStarted,
    RoundEnded,
    RoundStarted,
    SlotsDealt,
    SlotsSwapped,
    Step,
    TrumpChanged,
    TurnStarted,
)
from referee.games.dracula_vs_van_helsing.state import (
    CODE_OF_CARD,
    CODE_RANGE,
    EFFECT_STEP,
    DraculaVsVanHelsingState,
)


def apply(state: DraculaVsVanHelsingState, event: Event) -> DraculaVsVanHelsingState:
    """Fold ``event`` into ``state``; the view's shared part of the old state goes with it,
    and so do the racks unless the event leaves every slot, reveal and sight of a slot's card
    as it was."""
    kind = type(event)
    state.public = None
    if kind not in RACKS_KEPT:
        seat_of = ONE_RACK.get(kind)
        if seat_of is None:
            state.racks[0].clear()
            state.racks[1].clear()
        else:
            state.racks[seat_of(event)].clear()
    APPLY[kind](state, event)
    return state


def _track(track: tuple[Any, ...]) -> tuple[Colour, ...]:
    # Decoded or replayed events may carry plain numbers; the state keeps Colours.
    return tuple(Colour(c) for c in track)


def _apply_game_started(state: DraculaVsVanHelsingState, e: GameStarted) -> None:
    state.dracula = e.dracula
    state.track = _track(e.track)


def _apply_round_started(state: DraculaVsVanHelsingState, e: RoundStarted) -> None:
    state.round = e.round
    state.deck = [CODE_OF_CARD[card] for card in e.deck]
    state.pile = ()
    state.revealed = [False] * CODE_RANGE  # DV-5: reveals do not carry over
    state.seen = [0] * CODE_RANGE
    state.drawn = 0
    state.called_by = -1


def _apply_slots_dealt(state: DraculaVsVanHelsingState, e: SlotsDealt) -> None:
    codes = [CODE_OF_CARD[card] for card in e.cards]
    state.slots[e.seat] = codes
    bit = 1 << e.seat
    for code in codes:
        state.seen[code] |= bit


def _apply_turn_started(state: DraculaVsVanHelsingState, e: TurnStarted) -> None:
    state.active = e.seat
    state.step = Step.TURN
    state.turn_kind = e.kind


def _apply_end_called(state: DraculaVsVanHelsingState, e: EndCalled) -> None:
    state.called_by = e.seat
    state.step = Step.UNSPECIFIED


def _apply_card_drawn(state: DraculaVsVanHelsingState, e: CardDrawn) -> None:
    code = state.deck.pop(0)
    state.drawn = code
    state.seen[code] |= 1 << e.seat
    state.step = Step.PLACE


def _apply_drawn_card_discarded(state: DraculaVsVanHelsingState, e: DrawnCardDiscarded) -> None:
    code = state.drawn
    state.pile += (code,)
    state.drawn = 0
    state.step = EFFECT_STEP.get(code % 10, Step.UNSPECIFIED)


def _apply_drawn_card_placed(state: DraculaVsVanHelsingState, e: DrawnCardPlaced) -> None:
    own = state.slots[e.seat]
    old = own[e.district - 1]
    own[e.district - 1] = state.drawn
    state.pile += (old,)
    state.drawn = 0
    state.step = EFFECT_STEP.get(old % 10, Step.UNSPECIFIED)


def _apply_card_revealed(state: DraculaVsVanHelsingState, e: CardRevealed) -> None:
    state.revealed[state.slots[e.owner][e.district - 1]] = True
    state.step = Step.UNSPECIFIED


def _apply_deck_top_revealed(state: DraculaVsVanHelsingState, e: DeckTopRevealed) -> None:
    state.revealed[state.deck[0]] = True


def _apply_slots_swapped(state: DraculaVsVanHelsingState, e: SlotsSwapped) -> None:
    own = state.slots[e.seat]
    a, b = e.first - 1, e.second - 1
    own[a], own[b] = own[b], own[a]
    state.step = Step.UNSPECIFIED


def _apply_district_exchanged(state: DraculaVsVanHelsingState, e: DistrictExchanged) -> None:
    index = e.district - 1
    mine, theirs = state.slots[e.seat], state.slots[1 - e.seat]
    mine[index], theirs[index] = theirs[index], mine[index]
    # DV-25: both cards are now known to their old and their new owner, i.e. to both seats.
    state.seen[mine[index]] = state.seen[theirs[index]] = 0b11
    state.step = Step.UNSPECIFIED


def _apply_trump_changed(state: DraculaVsVanHelsingState, e: TrumpChanged) -> None:
    state.track = _track(e.track)
    state.step = Step.UNSPECIFIED


def _apply_effect_skipped(state: DraculaVsVanHelsingState, e: EffectSkipped) -> None:
    state.step = Step.UNSPECIFIED


def _apply_round_ended(state: DraculaVsVanHelsingState, e: RoundEnded) -> None:
    deck = state.deck
    state.last_deck_top = deck[0] if deck and state.revealed[deck[0]] else 0
    for own in state.slots:  # DV-20: all cards are revealed
        for code in own:
            state.revealed[code] = True
    state.last_round_end = e.reason
    state.last_resolution = ()
    state.last_pile = tuple(CARDS[code] for code in state.pile)
    state.step = Step.UNSPECIFIED


def _apply_district_resolved(state: DraculaVsVanHelsingState, e: DistrictResolved) -> None:
    index = e.district - 1
    districts = list(state.districts)
    districts[index] = District(e.district, e.humans, e.vampires)
    state.districts = tuple(districts)
    state.hp = e.hp
    state.last_resolution = (*state.last_resolution, e)


def _apply_game_ended(state: DraculaVsVanHelsingState, e: GameEnded) -> None:
    state.ended = e
    state.winner = e.winner
    state.end = e.reason
    state.step = Step.OVER


#: The events after which every rack looks as before to every viewer: they change no slot,
#: and what they reveal or show (the drawn card, the deck top) is in no slot.
RACKS_KEPT = frozenset(
    {
        TurnStarted,
        EndCalled,
        CardDrawn,
        DrawnCardDiscarded,
        DeckTopRevealed,
        TrumpChanged,
        EffectSkipped,
        DistrictResolved,
        GameEnded,
    }
)

#: The events that change one seat's rack only (its slots, or the reveal or sight of a card in
#: them), and that seat. Any other event not in RACKS_KEPT may change both.
ONE_RACK: dict[type, Callable[[Any], int]] = {
    SlotsDealt: lambda e: e.seat,
    DrawnCardPlaced: lambda e: e.seat,
    CardRevealed: lambda e: e.owner,
    SlotsSwapped: lambda e: e.seat,
}

APPLY: dict[type, Any] = {
    GameStarted: _apply_game_started,
    RoundStarted: _apply_round_started,
    SlotsDealt: _apply_slots_dealt,
    TurnStarted: _apply_turn_started,
    EndCalled: _apply_end_called,
    CardDrawn: _apply_card_drawn,
    DrawnCardDiscarded: _apply_drawn_card_discarded,
    DrawnCardPlaced: _apply_drawn_card_placed,
    CardRevealed: _apply_card_revealed,
    DeckTopRevealed: _apply_deck_top_revealed,
    SlotsSwapped: _apply_slots_swapped,
    DistrictExchanged: _apply_district_exchanged,
    TrumpChanged: _apply_trump_changed,
    EffectSkipped: _apply_effect_skipped,
    RoundEnded: _apply_round_ended,
    DistrictResolved: _apply_district_resolved,
    GameEnded: _apply_game_ended,
}
