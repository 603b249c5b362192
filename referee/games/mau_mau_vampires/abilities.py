"""Mau Mau Vampires: the handlers of a triggered ability (phase ``ABILITY``, MM-18 ... MM-22),
one per command type. Each checks that the command uses the ability that triggered; the
decision's rule is MM-19 for the Night side's abilities, MM-22 for the Day side's."""

from __future__ import annotations

from referee.engine.game import Rejection
from referee.games.mau_mau_vampires.characters import CHARACTERS
from referee.games.mau_mau_vampires.flow import after_ability, announced, card_code, name, penalty
from referee.games.mau_mau_vampires.model import (
    CARDS,
    COLOURS,
    Ability,
    AbilityDeclined,
    AbilityUsed,
    CallColour,
    CardGiven,
    CardSetAside,
    CharactersSwapped,
    Colour,
    ColourCalled,
    Command,
    DeclineAbility,
    DrawReason,
    Event,
    GiveCard,
    SetAside,
    SwapCharacters,
    UseAbility,
    Wish,
    Wished,
    WishOffered,
    WishReason,
)
from referee.games.mau_mau_vampires.state import (
    _ABILITY_KINDS,
    MauMauVampiresState,
    _Draft,
    _opponents,
    owed_for,
)

#: The abilities used without a choice (UseAbility).
_PLAIN = (
    Ability.VAMPIRE_BITE,
    Ability.OPPONENTS_DRAW_ONE,
    Ability.FEWEST_DRAW_TWO,
    Ability.DRAW_TWO_AND_SHARE,
)
#: The command that uses each ability with a choice, in words.
_HOW = {
    Ability.GIVE_LEFT: "GiveCard to your left neighbour",
    Ability.VAMPIRE_GIFT: "GiveCard to another player",
    Ability.CALL_COLOUR: "CallColour",
    Ability.WISH_AND_PLAY_AGAIN: "Wish a colour",
    Ability.SWAP_AND_PLAY_AGAIN: "SwapCharacters",
    Ability.SET_ASIDE_POT: "SetAside a card",
}


def rule_of(ability: Ability) -> str:
    """The rule of the decision an ability asks for (MM-19 Night, MM-22 Day)."""
    return "MM-19" if ability >= Ability.VAMPIRE_BITE else "MM-22"


def not_this_ability(state: MauMauVampiresState, command: Command) -> Rejection:
    """A command that does not use the triggered ability."""
    ability = state.ability
    return Rejection(
        rule_of(ability),
        f"{type(command).__name__} does not use {_ability_name(ability)}: "
        f"{_HOW.get(ability, 'UseAbility')}, or DeclineAbility",
    )


def _ability_name(ability: Ability) -> str:
    return _ABILITY_KINDS[ability].replace("_", " ")


def _expect(state: MauMauVampiresState, command: Command, *abilities: Ability) -> Ability:
    if state.ability not in abilities:
        raise not_this_ability(state, command)
    return state.ability


def decline(state: MauMauVampiresState, seat: int, command: DeclineAbility) -> list[Event]:
    """MM-18: using an ability is optional."""
    d = _Draft(state)
    d.emit(AbilityDeclined(seat, state.ability))
    after_ability(state, d, seat)
    return d.events


def use(state: MauMauVampiresState, seat: int, command: UseAbility) -> list[Event]:
    """The abilities without a choice: MM-19 (bite), MM-22 e, f, g."""
    ability = state.ability
    if ability not in _PLAIN:
        raise Rejection(
            rule_of(ability), f"{_ability_name(ability)} needs a choice: {_HOW[ability]}"
        )
    d = _Draft(state)
    d.emit(AbilityUsed(seat, ability))
    opponents = _opponents(state, seat)
    if ability is Ability.VAMPIRE_BITE:
        d.draw(state.next_playing(seat), 2, DrawReason.VAMPIRE_BITE)  # MM-19
    elif ability is Ability.OPPONENTS_DRAW_ONE:
        for other in opponents:  # MM-22 e
            d.draw(other, 1, DrawReason.OPPONENTS_DRAW_ONE)
    elif ability is Ability.FEWEST_DRAW_TWO:
        fewest = min(d.sizes[o] for o in opponents)  # MM-22 f
        tied = [o for o in opponents if d.sizes[o] == fewest]
        for other in tied:
            d.draw(other, 2 if len(tied) == 1 else 1, DrawReason.FEWEST_DRAW_TWO)
    elif d.draw(seat, 2, DrawReason.DRAW_TWO_AND_SHARE) > 0:
        return d.events  # MM-22 g: draw 2 and look at them; sharing them is the next decision
    after_ability(state, d, seat)
    return d.events


def give(state: MauMauVampiresState, seat: int, command: GiveCard) -> list[Event]:
    """MM-19 (vampire gift: to anyone), MM-22 a (to the left neighbour, who may then wish)."""
    ability = _expect(state, command, Ability.VAMPIRE_GIFT, Ability.GIVE_LEFT)
    rule = rule_of(ability)
    to = command.to_seat
    if to == seat:
        raise Rejection(rule, "you cannot give a card to yourself")
    if ability is Ability.GIVE_LEFT and to != state.next_playing(seat):
        raise Rejection(rule, f"(a) gives to your left neighbour, seat {state.next_playing(seat)}")
    if to not in state.playing:
        raise Rejection(rule, f"seat {to} does not play this hand")
    code = card_code(command.card, "MM-22")
    if not state.hands[seat][code]:
        raise Rejection(rule, f"you hold no {name(code)}")
    d = _Draft(state)
    left = d.sizes[seat] - 1
    owed = owed_for(left)
    said = announced(state, command.announce, owed, "MM-16")
    d.emit(CardGiven(seat, to, CARDS[code], ability, said, owed))
    d.sizes[seat] = left
    d.sizes[to] += 1
    penalty(d, seat, owed, said)
    if ability is Ability.GIVE_LEFT:
        d.emit(WishOffered(to, WishReason.CARD_RECEIVED))  # MM-22 a: the receiver may wish
    else:
        after_ability(state, d, seat)
    return d.events


def call(state: MauMauVampiresState, seat: int, command: CallColour) -> list[Event]:
    """MM-22 b: opponents holding the colour must show one; the others draw 2."""
    _expect(state, command, Ability.CALL_COLOUR)
    colour = command.colour
    if colour not in COLOURS:
        raise Rejection("MM-22", "call red, blue, green or purple")
    d = _Draft(state)
    opponents = _opponents(state, seat)
    first = (colour - 1) * 11
    holders = tuple(o for o in opponents if any(state.hands[o][first : first + 11]))
    d.emit(ColourCalled(seat, Colour(colour), holders))
    for other in opponents:
        if other not in holders:
            d.draw(other, 2, DrawReason.CALLED_COLOUR)
    if not holders:
        after_ability(state, d, seat)
    return d.events


def wish(state: MauMauVampiresState, seat: int, command: Wish) -> list[Event]:
    """MM-22 c: wish a colour (MM-14), then another turn."""
    _expect(state, command, Ability.WISH_AND_PLAY_AGAIN)
    if command.colour not in COLOURS:
        raise Rejection("MM-22", "wish red, blue, green or purple")
    d = _Draft(state)
    d.emit(Wished(seat, Colour(command.colour)))
    after_ability(state, d, seat, extra=True)
    return d.events


def swap(state: MauMauVampiresState, seat: int, command: SwapCharacters) -> list[Event]:
    """MM-22 d: swap characters (a werewolf stays on its card), then another turn."""
    _expect(state, command, Ability.SWAP_AND_PLAY_AGAIN)
    other = command.seat
    if other == seat:
        raise Rejection("MM-22", "swap with another player")
    if other not in state.playing:
        raise Rejection("MM-22", f"seat {other} does not play this hand")
    d = _Draft(state)
    characters = list(d.characters)
    characters[seat], characters[other] = characters[other], characters[seat]
    d.characters = characters
    table = CHARACTERS.characters
    d.emit(CharactersSwapped(seat, other, table[characters[seat]].id, table[characters[other]].id))
    after_ability(state, d, seat, extra=True)
    return d.events


def set_aside(state: MauMauVampiresState, seat: int, command: SetAside) -> list[Event]:
    """MM-22 h: 1 card from hand and 1 from the deck (unseen) go into the pot."""
    _expect(state, command, Ability.SET_ASIDE_POT)
    code = card_code(command.card, "MM-22")
    if not state.hands[seat][code]:
        raise Rejection("MM-22", f"you hold no {name(code)}")
    d = _Draft(state)
    left = d.sizes[seat] - 1
    owed = owed_for(left)
    said = announced(state, command.announce, owed, "MM-16")
    from_deck = d.take()
    deck_cards = () if from_deck is None else (CARDS[from_deck],)
    pot_size = len(state.pot) + 1 + len(deck_cards)
    d.emit(CardSetAside(seat, CARDS[code], len(deck_cards), deck_cards, said, owed, pot_size))
    d.sizes[seat] = left
    penalty(d, seat, owed, said)
    after_ability(state, d, seat)
    return d.events
