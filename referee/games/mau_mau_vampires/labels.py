"""Mau Mau Vampires in words: a label for each legal command and a line for each event.

Display text for people (``View.legal_command_labels``, ``Event.description``), not for
parsing. Cards are named by colour word and symbol name ("red skull"), so the text never
relies on colour alone. Symbol and character names come from the shipped character data
(public, MM-4); a label uses only the command and the seat's own view.

>>> card_text(Card(CardKind.MAU_MAU, Colour.RED, 1))
'red skull'
>>> command_label(Wish(colour=Colour.PURPLE), None)
'wish purple'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.engine.labels import PublicText, fallback, join, lines, plural, seat, wrapped
from referee.engine.parts import (
    NO_PARTS,
    CommandParts,
    Target,
    hand_indexes,
    pile,
    seat_target,
)
from referee.games.mau_mau_vampires.characters import CHARACTERS
from referee.games.mau_mau_vampires.model import (
    Ability,
    AbilityDeclined,
    AbilityTriggered,
    AbilityUsed,
    Announcement,
    CallColour,
    Card,
    CardGiven,
    CardKind,
    CardPlayed,
    CardsDealt,
    CardsDrawn,
    CardSetAside,
    CardShown,
    CharactersSwapped,
    Colour,
    ColourCalled,
    DayNightTurned,
    DeckShuffled,
    DeclineAbility,
    DrawCard,
    DrawnShared,
    DrawReason,
    EndTurn,
    Event,
    GameEnded,
    GiveCard,
    HandEnded,
    HandStarted,
    MauMauVampiresView,
    NoWish,
    PlayCard,
    PotTaken,
    SetAside,
    ShareDrawn,
    ShowCard,
    ShuffleReason,
    StartingCardTurned,
    SwapCharacters,
    TurnStarted,
    UseAbility,
    Wish,
    Wished,
    WishOffered,
)

ABILITIES = {
    Ability.GIVE_LEFT: "(a) give 1 card to the left neighbour, who may wish",
    Ability.CALL_COLOUR: "(b) call a colour: opponents show it or draw 2",
    Ability.WISH_AND_PLAY_AGAIN: "(c) wish a colour and play again",
    Ability.SWAP_AND_PLAY_AGAIN: "(d) swap characters and play again",
    Ability.OPPONENTS_DRAW_ONE: "(e) every opponent draws 1",
    Ability.FEWEST_DRAW_TWO: "(f) the opponent with the fewest cards draws 2",
    Ability.DRAW_TWO_AND_SHARE: "(g) draw 2, then give them away or keep them",
    Ability.SET_ASIDE_POT: "(h) set a card aside into the pot",
    Ability.VAMPIRE_BITE: "the vampire bite: the left neighbour draws 2",
    Ability.VAMPIRE_GIFT: "the vampire gift: give 1 card to another player",
}
_DRAW_REASONS = {
    DrawReason.MISSED_MAU: " (penalty: Mau not said)",
    DrawReason.MISSED_MAU_MAU: " (penalty: Mau Mau not said)",
    DrawReason.SPECIAL_LAST_CARD: " (penalty: a special card as the last card)",
    DrawReason.VAMPIRE_BITE: " (vampire bite)",
    DrawReason.CALLED_COLOUR: " (holds no card of the called colour)",
    DrawReason.OPPONENTS_DRAW_ONE: " (ability e)",
    DrawReason.FEWEST_DRAW_TWO: " (ability f)",
    DrawReason.DRAW_TWO_AND_SHARE: " to hand out (ability g)",
}
_SAY = {Announcement.MAU: "Mau", Announcement.MAU_MAU: "Mau Mau"}
#: Events a game log may fold away (``Event.bookkeeping``): whose turn it is (the table
#: shows it) and the shuffles.
BOOKKEEPING: frozenset[type] = frozenset({TurnStarted, DeckShuffled})


def colour_name(colour: Colour | int) -> str:
    return Colour(colour).name.lower() if colour else "no colour"


def symbol_name(symbol: int, symbols: Sequence[str] = ()) -> str:
    names = symbols or CHARACTERS.symbols
    return names[symbol - 1] if 1 <= symbol <= len(names) else f"S{symbol}"


def card_text(card: Card, symbols: Sequence[str] = ()) -> str:
    """``red skull``, ``a Clock``, ``a Werewolf``, ``a card`` (one the viewer may not see)."""
    if card.kind == CardKind.MAU_MAU:
        return f"{colour_name(card.colour)} {symbol_name(card.symbol, symbols)}"
    if card.kind == CardKind.CLOCK:
        return "a Clock"
    if card.kind == CardKind.WEREWOLF:
        return "a Werewolf"
    return "a card"


def cards_text(cards: Sequence[Card], symbols: Sequence[str] = ()) -> str:
    return join([card_text(c, symbols) for c in cards])


def character_name(character_id: str) -> str:
    return next((c.name for c in CHARACTERS.characters if c.id == character_id), character_id)


def _say(announce: Announcement | int) -> str:
    return f" and say {_SAY[Announcement(announce)]}" if announce in _SAY else ""


def _said(announced: Announcement | int) -> str:
    return f", saying {_SAY[Announcement(announced)]}" if announced in _SAY else ""


def _symbols(view: MauMauVampiresView | None) -> Sequence[str]:
    return view.symbols if view is not None else ()


def _character_of(view: MauMauVampiresView | None, of_seat: int) -> str:
    if view is None:
        return seat(of_seat)
    name = next((c.name for c in view.characters if c.seat == of_seat), "")
    return f"{seat(of_seat)} ({name})" if name else seat(of_seat)


def command_label(command: Any, view: MauMauVampiresView | None) -> str:
    symbols = _symbols(view)
    if isinstance(command, DrawCard):
        return "draw a card"
    if isinstance(command, EndTurn):
        drawn = view.drawn[0] if view is not None and view.drawn else None
        return f"keep {card_text(drawn, symbols)} and end your turn" if drawn else "end your turn"
    if isinstance(command, PlayCard):
        text = f"play {card_text(command.card, symbols)}"
        if command.card.kind == CardKind.WEREWOLF and command.werewolf_seat is not None:
            text += f" on {_character_of(view, command.werewolf_seat)}"
        return text + _say(command.announce)
    if isinstance(command, Wish):
        again = view is not None and view.ability == Ability.WISH_AND_PLAY_AGAIN
        return f"wish {colour_name(command.colour)}" + (" and play again" if again else "")
    if isinstance(command, NoWish):
        return "do not wish a colour"
    if isinstance(command, UseAbility):
        ability = view.ability if view is not None else Ability.UNSPECIFIED
        return f"use {ABILITIES.get(ability, 'the ability')}"
    if isinstance(command, DeclineAbility):
        ability = view.ability if view is not None else Ability.UNSPECIFIED
        what = ABILITIES.get(ability)
        return f"do not use {what}" if what else "do not use the ability"
    if isinstance(command, GiveCard):
        return f"give {card_text(command.card, symbols)} to {seat(command.to_seat)}" + _say(
            command.announce
        )
    if isinstance(command, CallColour):
        called = colour_name(command.colour)
        return f"call {called}: every opponent shows you a {called} card or draws 2"
    if isinstance(command, ShowCard):
        return f"show {card_text(command.card, symbols)} to the caller"
    if isinstance(command, SwapCharacters):
        return f"swap characters with {_character_of(view, command.seat)} and play again"
    if isinstance(command, ShareDrawn):
        cards = list(view.to_share) if view is not None else []
        me = view.turn if view is not None else None
        parts = []
        for index, to in enumerate(command.to_seats):
            what = card_text(cards[index], symbols) if index < len(cards) else "a card"
            parts.append(f"keep {what}" if to == me else f"give {what} to {seat(to)}")
        return ", ".join(parts) + _say(command.announce)
    if isinstance(command, SetAside):
        return (
            f"set {card_text(command.card, symbols)} aside into the pot (with 1 card from the "
            f"deck)" + _say(command.announce)
        )
    return fallback(command)


def _colour(colour: Colour | int) -> Target:
    return Target("colour", colour_name(colour), colour_name(colour))


def _share_targets(command: ShareDrawn, view: MauMauVampiresView) -> tuple[Target, ...]:
    """Each card to hand out (``to_share``, by index), then who gets it."""
    out: list[Target] = []
    for index, to in enumerate(command.to_seats):
        card = view.to_share[index] if index < len(view.to_share) else None
        what = card_text(card, view.symbols) if card is not None else "a card"
        out += [Target("shared", str(index), what), seat_target(to)]
    return tuple(out)


def command_parts(command: Any, view: MauMauVampiresView) -> CommandParts:
    """What a command uses (``View.legal_command_parts``): the card from the hand (played,
    given, shown, set aside), then the seat it goes to or aims at (a gift, a Werewolf, a
    swap), the deck (a draw), the pot (ability h) or a colour (a wish, a call); ability (g)
    hands out each drawn card to a seat in turn. Saying Mau is not a part: the commands with
    and without it are both complete once the card is picked."""
    if isinstance(command, DrawCard):
        return CommandParts(targets=(pile("draw", "the deck"),))
    if isinstance(command, PlayCard):
        aim = () if command.werewolf_seat is None else (seat_target(command.werewolf_seat),)
        return CommandParts(hand_indexes(view.hand, [command.card]), aim)
    if isinstance(command, GiveCard):
        return CommandParts(
            hand_indexes(view.hand, [command.card]), (seat_target(command.to_seat),)
        )
    if isinstance(command, ShowCard):
        return CommandParts(hand_indexes(view.hand, [command.card]))
    if isinstance(command, SetAside):
        return CommandParts(hand_indexes(view.hand, [command.card]), (pile("pot", "the pot"),))
    if isinstance(command, Wish | CallColour):
        return CommandParts(targets=(_colour(command.colour),))
    if isinstance(command, SwapCharacters):
        return CommandParts(targets=(seat_target(command.seat),))
    if isinstance(command, ShareDrawn):
        return CommandParts(targets=_share_targets(command, view))
    return NO_PARTS


def event_text(event: Event) -> str:
    for text_of in (_hand_text, _turn_text, _ability_text, _end_text):
        text = text_of(event)
        if text is not None:
            return text
    return fallback(event)


def _hand_text(event: Event) -> str | None:
    """The line of the hand's start: the deal, the shuffles, the starting card (MM-6, MM-7);
    ``None`` for another event."""
    if isinstance(event, HandStarted):
        title = f"hand {event.hand_number}"
        if event.tiebreak:
            title = f"tie-break hand {event.tiebreak} (hand {event.hand_number})"
        chars = ", ".join(
            f"{seat(s)} {character_name(event.characters[s])}"
            for s in event.playing
            if s < len(event.characters)
        )
        return (
            f"{title}: {seat(event.dealer)} deals {event.hand_size} cards each, day side up; "
            f"characters: {chars}"
        )
    if isinstance(event, DeckShuffled):
        if event.reason == ShuffleReason.SPECIALS_RETURNED:
            return f"the turned special cards are shuffled back into the deck ({event.count})"
        if event.reason == ShuffleReason.PILE_RESHUFFLED:
            return f"the discard pile is shuffled into a new deck ({event.count} cards)"
        return f"the deck is shuffled ({event.count} cards)"
    if isinstance(event, CardsDealt):
        if event.cards:
            return f"{seat(event.seat)} is dealt {cards_text(event.cards)}"
        return f"{seat(event.seat)} is dealt {plural(event.count, 'card')}"
    if isinstance(event, StartingCardTurned):
        if event.card.kind == CardKind.MAU_MAU:
            return f"the discard pile starts with {card_text(event.card)}"
        return f"{card_text(event.card)} is turned and goes back into the deck"
    return None


def _turn_text(event: Event) -> str | None:
    """The line of a turn: draws, plays, day and night, wishes (MM-8 ... MM-15);
    ``None`` for another event."""
    if isinstance(event, TurnStarted):
        return (
            f"{seat(event.seat)} takes another turn"
            if event.extra
            else f"{seat(event.seat)}'s turn"
        )
    if isinstance(event, CardsDrawn):
        if event.count == 0:
            return f"{seat(event.seat)} has nothing to draw (deck and pile are empty)"
        drawn = cards_text(event.cards) if event.cards else plural(event.count, "card")
        return f"{seat(event.seat)} draws {drawn}{_DRAW_REASONS.get(event.reason, '')}"
    if isinstance(event, CardPlayed):
        text = f"{seat(event.seat)} plays {card_text(event.card)}"
        if event.werewolf_seat is not None:
            text += f" on {seat(event.werewolf_seat)}'s character"
        return text + _said(event.announced)
    if isinstance(event, DayNightTurned):
        head = (
            "night falls: the characters turn vampire"
            if event.night
            else ("day breaks: the characters turn human")
        )
        return f"{head} ({plural(event.clocks, 'clock')} discarded)"
    if isinstance(event, WishOffered):
        return f"{seat(event.seat)} may wish a colour"
    if isinstance(event, Wished):
        if event.colour == Colour.UNSPECIFIED:
            return f"{seat(event.seat)} wishes no colour"
        return f"{seat(event.seat)} wishes {colour_name(event.colour)}"
    return None


def _ability_text(event: Event) -> str | None:
    """The line of the characters' abilities and what they move (MM-18 ... MM-22);
    ``None`` for another event."""
    if isinstance(event, AbilityTriggered):
        name = character_name(event.character) if event.character else "their character"
        return f"{seat(event.seat)} may use {name}'s ability: {ABILITIES.get(event.ability, '?')}"
    if isinstance(event, AbilityDeclined):
        return f"{seat(event.seat)} does not use {ABILITIES.get(event.ability, 'the ability')}"
    if isinstance(event, AbilityUsed):
        return f"{seat(event.seat)} uses {ABILITIES.get(event.ability, 'the ability')}"
    if isinstance(event, CardGiven):
        how = " (vampire gift)" if event.ability == Ability.VAMPIRE_GIFT else ""
        return (
            f"{seat(event.from_seat)} gives {card_text(event.card)} to {seat(event.to_seat)}"
            f"{how}{_said(event.announced)}"
        )
    if isinstance(event, ColourCalled):
        colour = colour_name(event.colour)
        if event.answering:
            who = join([seat(s) for s in event.answering])
            return f"{seat(event.seat)} calls {colour}: {who} must show a {colour} card"
        return f"{seat(event.seat)} calls {colour}: nobody holds {colour}"
    if isinstance(event, CardShown):
        return f"{seat(event.seat)} shows {seat(event.to_seat)} {card_text(event.card)}"
    if isinstance(event, CharactersSwapped):
        return (
            f"{seat(event.seat)} swaps characters with {seat(event.other)}: now "
            f"{character_name(event.seat_character)} and {character_name(event.other_character)}"
        )
    if isinstance(event, DrawnShared):
        parts = [
            f"{card_text(event.cards[i]) if i < len(event.cards) else 'a card'} to {seat(to)}"
            for i, to in enumerate(event.to_seats)
        ]
        return f"{seat(event.seat)} hands out the drawn cards: {join(parts)}" + _said(
            event.announced
        )
    if isinstance(event, CardSetAside):
        return (
            f"{seat(event.seat)} sets {card_text(event.card)} and "
            f"{plural(event.deck_count, 'card')} from the deck aside into the pot "
            f"({plural(event.pot_size, 'card')})" + _said(event.announced)
        )
    if isinstance(event, PotTaken):
        return f"{seat(event.seat)} takes the pot into hand ({plural(event.count, 'card')})"
    return None


def _end_text(event: Event) -> str | None:
    """The line of the end of a hand and of the game;
    ``None`` for another event."""
    if isinstance(event, HandEnded):
        how = f"{seat(event.ender)} is out of cards" if event.ender is not None else "blocked"
        totals = ", ".join(f"{seat(s)} {t}" for s, t in enumerate(event.totals))
        return f"hand {event.hand_number} ends ({how}); totals: {totals}"
    if isinstance(event, GameEnded):  # the event's own words (public), with the rule
        return f"game over: {event.end_reason} ({event.end_rule_id})"
    return None


def _list(cards: Sequence[Card], symbols: Sequence[str]) -> str:
    return ", ".join(card_text(c, symbols) for c in cards)


def _hand(cards: Sequence[Card], symbols: Sequence[str]) -> str:
    """A hand by colour, each colour named once (``red coffin spider; blue bat; a Clock``):
    a hand can grow to most of the deck (drawing has no limit), and said card by card it
    took more lines than an 80x24 terminal has room for beside the top card and the menu.

    >>> red, blue = Colour.RED, Colour.BLUE
    >>> clock = Card(CardKind.CLOCK)
    >>> _hand([Card(CardKind.MAU_MAU, red, 2), clock, clock, Card(CardKind.WEREWOLF),
    ...        Card(CardKind.MAU_MAU, blue, 1), Card(CardKind.MAU_MAU, red, 1)], ("a", "b"))
    'red b a; blue a; a Clock x2, a Werewolf'
    """
    by_colour: dict[int, list[str]] = {}
    special: dict[str, int] = {}
    for card in cards:
        if card.kind == CardKind.MAU_MAU:
            by_colour.setdefault(card.colour, []).append(symbol_name(card.symbol, symbols))
        else:
            name = card_text(card, symbols)
            special[name] = special.get(name, 0) + 1
    parts = [f"{colour_name(colour)} {' '.join(names)}" for colour, names in by_colour.items()]
    others = [name if count == 1 else f"{name} x{count}" for name, count in special.items()]
    return "; ".join([*parts, *([", ".join(others)] if others else [])])


def public_text(view: MauMauVampiresView) -> PublicText:
    """The texts of :func:`view_text` every viewer of the game at one version shares (MM-26,
    MM-27: the top card and the wish, the hand and the piles' sizes, the characters in play),
    wrapped once for all."""
    symbols = view.symbols
    top = f"top card: {card_text(view.top, symbols)}"
    if view.wish:
        top += f"; wished colour: {colour_name(view.wish)}"
    if view.called_colour:
        top += f"; called colour: {colour_name(view.called_colour)}"
    return (
        wrapped(top),
        wrapped(
            f"hand {view.hand_number} of {view.hands}; {'night' if view.night else 'day'}; "
            f"deck {view.deck_size}, pile {view.pile_size}"
        ),
        wrapped(
            "characters: " + ", ".join(f"{seat(c.seat)} {c.name}" for c in view.characters)
            if view.characters
            else ""
        ),
    )


def seat_text(view: MauMauVampiresView, public: PublicText) -> tuple[str, ...]:
    """:func:`view_text` from its public texts (:func:`public_text` of any viewer's view of
    the same version): the seat's hand, its cards drawn, to share, shown to it and in the pot
    are its own (MM-28)."""
    symbols = view.symbols
    top, table, characters = public
    pot = f"pot: {plural(view.pot_size, 'card')}" if view.pot_size else ""
    if view.pot_yours:
        pot += f" (yours: {_list(view.pot_yours, symbols)})"
    shown = ", ".join(f"{seat(c.seat)} {card_text(c.card, symbols)}" for c in view.shown_to_you)
    # The top card (and the wish), then day or night, first: every decision is about them,
    # and a view too long for its lines (a hand can hold most of the deck) is cut at the end.
    return lines(
        top,
        table,
        f"your hand: {_hand(view.hand, symbols)}" if view.hand else "",
        f"drawn: {_list(view.drawn, symbols)}" if view.drawn else "",
        f"to share: {_list(view.to_share, symbols)}" if view.to_share else "",
        f"shown to you: {shown}" if shown else "",
        pot,
        characters,
    )


def view_text(view: MauMauVampiresView) -> tuple[str, ...]:
    """The seat's view in the game's words (``View.view_lines``), from the view only: the top
    card and wished colour, day or night, the seat's hand (by colour), pot and drawn cards by
    colour and symbol name (MM-2, the symbols of the characters in play), the characters in
    front of each seat."""
    return seat_text(view, public_text(view))
