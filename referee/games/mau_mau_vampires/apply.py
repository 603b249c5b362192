"""Mau Mau Vampires: the event handlers, the only code that changes a state."""

from __future__ import annotations

from typing import Any

from referee.games.mau_mau_vampires.characters import CHARACTERS
from referee.games.mau_mau_vampires.model import (
    CLOCK,
    CODES,
    MAU_MAU_CARDS,
    WEREWOLF,
    Ability,
    AbilityDeclined,
    AbilityTriggered,
    AbilityUsed,
    Announcement,
    CardGiven,
    CardPlayed,
    CardsDealt,
    CardsDrawn,
    CardSetAside,
    CardShown,
    CharactersSwapped,
    ColourCalled,
    DayNightTurned,
    DeckShuffled,
    DrawnShared,
    DrawReason,
    Event,
    GameEnded,
    HandEnded,
    HandScore,
    HandStarted,
    Phase,
    PotTaken,
    ShuffleReason,
    StartingCardTurned,
    TurnStarted,
    Wished,
    WishOffered,
    WishReason,
    code_of,
    colour_of,
)
from referee.games.mau_mau_vampires.state import (
    MauMauVampiresState,
    _codes,
    _raw_triggers,
    character_views,
)


def apply(state: MauMauVampiresState, event: Event) -> MauMauVampiresState:
    """Fold ``event`` into ``state``; the view's shared part of the old state goes with it."""
    state.public = None
    _APPLY[type(event)](state, event)
    return state


def _apply_hand_started(state: MauMauVampiresState, e: HandStarted) -> None:
    n = state.players
    state.hand_number = e.hand_number
    state.tiebreak = e.tiebreak
    state.dealer = e.dealer
    state.playing = tuple(e.playing)
    state.characters = [CHARACTERS.index_of(c) for c in e.characters]
    # MM-7: Day side up, no clocks, no werewolves, no pot, no wish.
    state.hands = [[0] * CODES for _ in range(n)]
    state.sizes = [0] * n
    state.deck = []
    state.pile_under = [0] * CODES
    state.top = -1
    state.turned = ()
    state.night = False
    state.clocks = 0
    state.werewolf = -1
    state.wish = 0
    state.pot = []
    _clear_turn(state)
    state.idle = 0
    state.character_views = character_views(state)


def _clear_turn(state: MauMauVampiresState) -> None:
    state.phase = Phase.UNSPECIFIED
    state.extra_turn = False
    state.ability = Ability.UNSPECIFIED
    state.drawn = -1
    state.missed_mau_mau = False
    if state.triggers:
        state.triggers = ()
    if state.wisher >= 0:  # what a wish, a call or (g) left behind (rare: checked first)
        state.wisher = -1
        state.wish_reason = WishReason.UNSPECIFIED
    if state.call_colour:
        state.call_colour = 0
        state.answering = ()
        state.shown = ()
    if state.pair:
        state.pair = ()


def _apply_deck_shuffled(state: MauMauVampiresState, e: DeckShuffled) -> None:
    state.deck = _codes(e.order)[::-1]
    state.shuffles += 1
    if e.reason is ShuffleReason.PILE_RESHUFFLED:
        state.pile_under = [0] * CODES
    elif e.reason is ShuffleReason.SPECIALS_RETURNED:
        state.turned = ()


def _take_into(state: MauMauVampiresState, seat: int, count: int) -> list[int]:
    deck = state.deck
    taken = [deck.pop() for _ in range(count)]
    hand = state.hands[seat]
    for code in taken:
        hand[code] += 1
    state.sizes[seat] += count
    return taken


def _apply_cards_dealt(state: MauMauVampiresState, e: CardsDealt) -> None:
    _take_into(state, e.seat, e.count)


def _apply_starting_card_turned(state: MauMauVampiresState, e: StartingCardTurned) -> None:
    code = state.deck.pop()
    if code >= MAU_MAU_CARDS:
        state.turned += (code,)
    else:
        state.top = code


def _apply_turn_started(state: MauMauVampiresState, e: TurnStarted) -> None:
    _clear_turn(state)
    state.phase = Phase.TURN
    state.turn = e.seat
    state.extra_turn = e.extra


def _apply_cards_drawn(state: MauMauVampiresState, e: CardsDrawn) -> None:
    if e.reason is DrawReason.DRAW_TWO_AND_SHARE:
        deck = state.deck
        # Sorted, as the event and the view list them; ShareDrawn.to_seats too.
        state.pair = tuple(sorted([*state.pair, *(deck.pop() for _ in range(e.count))]))
        state.phase = Phase.SHARE_DRAWN
        return
    taken = _take_into(state, e.seat, e.count)
    if e.reason is DrawReason.TURN:
        if taken:
            state.phase = Phase.PLAY_DRAWN
            state.drawn = taken[0]
            state.idle = 0
        else:
            state.idle += 1


def _apply_card_played(state: MauMauVampiresState, e: CardPlayed) -> None:
    seat = e.seat
    code = code_of(e.card)
    state.hands[seat][code] -= 1
    state.sizes[seat] -= 1
    state.idle = 0
    state.phase = Phase.UNSPECIFIED
    state.drawn = -1
    _note_mau_mau(state, e.owed, e.announced)
    if code < MAU_MAU_CARDS:
        state.pile_under[state.top] += 1
        state.top = code
        if state.wish == colour_of(code):
            state.wish = 0  # MM-14: the wish is fulfilled
        state.triggers = tuple(_raw_triggers(state, seat, code))
    elif code == CLOCK:
        state.clocks += 1
    else:
        assert e.werewolf_seat is not None
        if state.werewolf >= 0:
            state.pile_under[WEREWOLF] += 1  # MM-11, MM-13
            state.wish = 0  # MM-14: a chance to wish ends the open wish
        state.werewolf = state.characters[e.werewolf_seat]
        state.character_views = character_views(state)


def _note_mau_mau(state: MauMauVampiresState, owed: Announcement, announced: Announcement) -> None:
    """MM-16: after a missed Mau Mau the hand goes on (mirrors :func:`_penalty`)."""
    if owed is Announcement.MAU_MAU:
        state.missed_mau_mau = announced != owed


def _apply_day_night_turned(state: MauMauVampiresState, e: DayNightTurned) -> None:
    state.night = e.night
    state.pile_under[CLOCK] += state.clocks
    state.clocks = 0
    if state.werewolf >= 0:
        state.pile_under[WEREWOLF] += 1
        state.werewolf = -1
        state.character_views = character_views(state)
    state.wish = 0  # MM-14: a chance to wish ends the open wish


def _apply_wish_offered(state: MauMauVampiresState, e: WishOffered) -> None:
    state.phase = Phase.WISH
    state.wisher = e.seat
    state.wish_reason = e.reason


def _apply_wished(state: MauMauVampiresState, e: Wished) -> None:
    state.wish = int(e.colour)  # MM-14: a chance to wish replaces any open wish
    state.phase = Phase.UNSPECIFIED
    state.ability = Ability.UNSPECIFIED


def _apply_ability_triggered(state: MauMauVampiresState, e: AbilityTriggered) -> None:
    state.phase = Phase.ABILITY
    state.ability = e.ability
    # Earlier triggers that could not be used are passed over.
    triggers = state.triggers
    at = triggers.index(e.ability) if e.ability in triggers else len(triggers)
    state.triggers = triggers[at + 1 :]


def _apply_ability_done(state: MauMauVampiresState, e: AbilityDeclined | AbilityUsed) -> None:
    state.phase = Phase.UNSPECIFIED
    state.ability = Ability.UNSPECIFIED


def _apply_card_given(state: MauMauVampiresState, e: CardGiven) -> None:
    code = code_of(e.card)
    state.hands[e.from_seat][code] -= 1
    state.sizes[e.from_seat] -= 1
    state.hands[e.to_seat][code] += 1
    state.sizes[e.to_seat] += 1
    _note_mau_mau(state, e.owed, e.announced)
    state.phase = Phase.UNSPECIFIED
    state.ability = Ability.UNSPECIFIED


def _apply_colour_called(state: MauMauVampiresState, e: ColourCalled) -> None:
    state.call_colour = int(e.colour)
    state.answering = tuple(e.answering)
    state.shown = ()
    state.phase = Phase.ANSWER_CALL if e.answering else Phase.UNSPECIFIED
    state.ability = Ability.UNSPECIFIED


def _apply_card_shown(state: MauMauVampiresState, e: CardShown) -> None:
    answering = state.answering
    at = answering.index(e.seat)
    state.answering = answering[:at] + answering[at + 1 :]
    state.shown += ((e.seat, code_of(e.card)),)
    if not state.answering:
        state.phase = Phase.UNSPECIFIED


def _apply_characters_swapped(state: MauMauVampiresState, e: CharactersSwapped) -> None:
    characters = state.characters
    characters[e.seat], characters[e.other] = characters[e.other], characters[e.seat]
    state.character_views = character_views(state)
    state.phase = Phase.UNSPECIFIED
    state.ability = Ability.UNSPECIFIED


def _apply_drawn_shared(state: MauMauVampiresState, e: DrawnShared) -> None:
    for card, to in zip(e.cards, e.to_seats, strict=True):
        code = code_of(card)
        state.hands[to][code] += 1
        state.sizes[to] += 1
    _note_mau_mau(state, e.owed, e.announced)
    state.pair = ()
    state.phase = Phase.UNSPECIFIED


def _apply_card_set_aside(state: MauMauVampiresState, e: CardSetAside) -> None:
    code = code_of(e.card)
    state.hands[e.seat][code] -= 1
    state.sizes[e.seat] -= 1
    state.pot.append((code, e.seat))
    for _ in range(e.deck_count):
        state.pot.append((state.deck.pop(), -1))
    _note_mau_mau(state, e.owed, e.announced)
    state.phase = Phase.UNSPECIFIED
    state.ability = Ability.UNSPECIFIED


def _apply_pot_taken(state: MauMauVampiresState, e: PotTaken) -> None:
    hand = state.hands[e.seat]
    for code, _ in state.pot:
        hand[code] += 1
    state.sizes[e.seat] += len(state.pot)
    state.pot = []


def _apply_hand_ended(state: MauMauVampiresState, e: HandEnded) -> None:
    state.totals = list(e.totals)
    state.tiebreak_points = tuple(e.tiebreak_points)
    state.history += (HandScore(e.hand_number, e.tiebreak, e.ender, e.blocked, e.scores),)
    state.last_hands = tuple(map(tuple, state.hands))
    _clear_turn(state)


def _apply_game_ended(state: MauMauVampiresState, e: GameEnded) -> None:
    state.ended = e
    state.final = tuple(e.scores)
    state.over = True
    state.phase = Phase.GAME_OVER
    state.turn = -1


_APPLY: dict[type, Any] = {
    HandStarted: _apply_hand_started,
    DeckShuffled: _apply_deck_shuffled,
    CardsDealt: _apply_cards_dealt,
    StartingCardTurned: _apply_starting_card_turned,
    TurnStarted: _apply_turn_started,
    CardsDrawn: _apply_cards_drawn,
    CardPlayed: _apply_card_played,
    DayNightTurned: _apply_day_night_turned,
    WishOffered: _apply_wish_offered,
    Wished: _apply_wished,
    AbilityTriggered: _apply_ability_triggered,
    AbilityDeclined: _apply_ability_done,
    AbilityUsed: _apply_ability_done,
    CardGiven: _apply_card_given,
    ColourCalled: _apply_colour_called,
    CardShown: _apply_card_shown,
    CharactersSwapped: _apply_characters_swapped,
    DrawnShared: _apply_drawn_shared,
    CardSetAside: _apply_card_set_aside,
    PotTaken: _apply_pot_taken,
    HandEnded: _apply_hand_ended,
    GameEnded: _apply_game_ended,
}
