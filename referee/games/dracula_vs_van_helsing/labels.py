"""Dracula vs Van Helsing in words: a label for each legal command and a line for each event.

Display text for people (``View.legal_command_labels``, ``Event.description``), not for
parsing. A label uses only the command and the seat's own view (its cards, what is revealed).

>>> command_label(PlaceDrawn(district=3), None)
'place the drawn card in district 3'
>>> card_text(Card(Colour.RED, 7))
'R7'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.engine.labels import PublicText, fallback, lines, plural, seat, wrapped
from referee.engine.parts import NO_PARTS, CommandParts, Target, pile
from referee.games.dracula_vs_van_helsing.model import (
    LETTERS,
    CallEnd,
    Card,
    CardDrawn,
    CardRevealed,
    ChooseTrump,
    Colour,
    Comparison,
    DeckTopRevealed,
    DiscardDrawn,
    DistrictExchanged,
    DistrictResolved,
    DraculaVsVanHelsingView,
    Draw,
    DrawnCardDiscarded,
    DrawnCardPlaced,
    EffectSkipped,
    EndCalled,
    ExchangeDistrict,
    GameEnded,
    GameStarted,
    PlaceDrawn,
    Rack,
    RevealOpponent,
    RevealOwn,
    Role,
    RoundEnd,
    RoundEnded,
    RoundStarted,
    SlotsDealt,
    SlotsSwapped,
    SwapSlots,
    TrumpChanged,
    TurnKind,
    TurnStarted,
)

EFFECTS = {
    1: "reveal one of your cards",
    2: "reveal the deck's top card",
    3: "reveal one of the opponent's cards",
    4: "swap two of your cards",
    5: "take another turn",
    6: "exchange the cards of a district",
    7: "choose the new trump",
    8: "end the round",
}
ROLES = {Role.DRACULA: "Dracula", Role.VAN_HELSING: "Van Helsing"}
_ROUND_ENDS = {
    RoundEnd.CALL: "the end was called",
    RoundEnd.EIGHT: "an 8 was discarded",
    RoundEnd.DECK_EMPTY: "the deck ran out",
}
#: Events a game log may fold away (``Event.bookkeeping``): whose turn it is (the table
#: shows it; a last or extra turn too).
BOOKKEEPING: frozenset[type] = frozenset({TurnStarted})
_COMPARISONS = {
    Comparison.TRUMP: "trump",
    Comparison.VALUE: "higher value",
    Comparison.LADDER: "same value, higher colour",
}


def colour_name(colour: Colour) -> str:
    return Colour(colour).name.capitalize() if colour else "?"


def card_text(card: Card) -> str:
    """``B7``; ``a hidden card`` when the viewer may not see it."""
    if not card.value:
        return "a hidden card"
    return f"{LETTERS.get(Colour(card.colour), '?')}{card.value}"


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(card_text(c) if c.value else "??" for c in cards)


def track_text(track: Sequence[Colour]) -> str:
    if not track:
        return "?"
    return " > ".join([f"{colour_name(track[0])} (trump)", *(colour_name(c) for c in track[1:])])


def _my_card(view: DraculaVsVanHelsingView | None, district: int, mine: bool = True) -> Card:
    if view is None:
        return Card(Colour.UNSPECIFIED, 0)
    for rack in view.racks:
        if (rack.role == view.role) == mine:
            for slot in rack.slots:
                if slot.district == district:
                    return slot.card
    return Card(Colour.UNSPECIFIED, 0)


def _effect(card: Card) -> str:
    return f"{card_text(card)}: {EFFECTS.get(card.value, '?')}" if card.value else ""


def command_label(command: Any, view: DraculaVsVanHelsingView | None) -> str:
    if isinstance(command, Draw):
        return "draw a card"
    if isinstance(command, CallEnd):
        return "call the end of the round (the opponent takes one last turn)"
    if isinstance(command, DiscardDrawn):
        effect = _effect(view.drawn) if view is not None else ""
        return "discard the drawn card" + (f" ({effect})" if effect else "")
    if isinstance(command, PlaceDrawn):
        old = _effect(_my_card(view, command.district))
        text = f"place the drawn card in district {command.district}"
        return text + (f" (discarding {old})" if old else "")
    if isinstance(command, RevealOwn):
        mine = _my_card(view, command.district)
        text = f"reveal your card in district {command.district}"
        return text + (f" ({card_text(mine)})" if mine.value else "")
    if isinstance(command, RevealOpponent):
        return f"reveal the opponent's card in district {command.district}"
    if isinstance(command, SwapSlots):
        a, b = _my_card(view, command.first), _my_card(view, command.second)
        text = f"swap your cards in districts {command.first} and {command.second}"
        return text + (f" ({card_text(a)} and {card_text(b)})" if a.value and b.value else "")
    if isinstance(command, ExchangeDistrict):
        mine = _my_card(view, command.district)
        text = f"exchange the cards of district {command.district}"
        return text + (f" (give {card_text(mine)})" if mine.value else "")
    if isinstance(command, ChooseTrump):
        return f"make {colour_name(Colour(command.colour))} trump"
    return fallback(command)


def _slot(view: DraculaVsVanHelsingView, district: int, mine: bool) -> Target:
    """A card of a rack, by its owner's seat and district ("0:3")."""
    owner = next((r.seat for r in view.racks if (r.role == view.role) == mine), 0)
    whose = "your" if mine else "the opponent's"
    return Target("slot", f"{owner}:{district}", f"{whose} card in district {district}")


def command_parts(command: Any, view: DraculaVsVanHelsingView) -> CommandParts:
    """What a command aims at (``View.legal_command_parts``; the cards are in racks, not a
    hand): the deck (a draw), the discard pile (the drawn card discarded), a card of a rack
    (the drawn card placed, a reveal; two of the seat's own, in any order, for a swap), a
    district (an exchange) or a colour (the new trump)."""
    if isinstance(command, Draw):
        return CommandParts(targets=(pile("draw", "the deck"),))
    if isinstance(command, DiscardDrawn):
        return CommandParts(targets=(pile("discard", "the discard pile"),))
    if isinstance(command, PlaceDrawn | RevealOwn):
        return CommandParts(targets=(_slot(view, command.district, True),))
    if isinstance(command, RevealOpponent):
        return CommandParts(targets=(_slot(view, command.district, False),))
    if isinstance(command, SwapSlots):
        pair = (_slot(view, command.first, True), _slot(view, command.second, True))
        return CommandParts(targets=pair, any_order=True)
    if isinstance(command, ExchangeDistrict):
        district = command.district
        return CommandParts(targets=(Target("district", str(district), f"district {district}"),))
    if isinstance(command, ChooseTrump):
        name = colour_name(Colour(command.colour)).lower()
        return CommandParts(targets=(Target("colour", name, name),))
    return NO_PARTS


def resolution_text(r: DistrictResolved) -> str:
    if r.winner == Role.DRACULA:
        won, lost = r.dracula_card, r.van_helsing_card
        result = (
            f"a human becomes a vampire ({plural(r.humans, 'human')}, "
            f"{plural(r.vampires, 'vampire')})"
        )
    else:
        won, lost = r.van_helsing_card, r.dracula_card
        result = f"Dracula loses 1 HP ({r.hp} left)"
    why = _COMPARISONS.get(Comparison(r.comparison), "?")
    who = ROLES.get(Role(r.winner), "?")
    return (
        f"district {r.district}: {who}'s {card_text(won)} beats {card_text(lost)} ({why}): {result}"
    )


def event_text(event: Any) -> str:
    if isinstance(event, GameStarted):
        picked = " (drawn at random)" if event.dracula_picked else ""
        return (
            f"Dracula is {seat(event.dracula)}{picked}, Van Helsing {seat(event.van_helsing)}; "
            f"colours {track_text(event.track)}"
        )
    if isinstance(event, RoundStarted):
        return f"round {event.round} starts: 5 cards each, {event.deck_size} in the deck"
    if isinstance(event, SlotsDealt):
        if any(c.value for c in event.cards):
            return f"{seat(event.seat)} is dealt (districts 1-5): {cards_text(event.cards)}"
        return f"{seat(event.seat)} is dealt 5 cards, face down"
    if isinstance(event, TurnStarted):
        if event.kind == TurnKind.EXTRA:
            return f"{seat(event.seat)} takes another turn (a 5)"
        if event.kind == TurnKind.LAST:
            return f"{seat(event.seat)} takes the last turn of the round"
        return f"{seat(event.seat)}'s turn"
    if isinstance(event, EndCalled):
        return f"{seat(event.seat)} calls the end of the round"
    if isinstance(event, CardDrawn):
        face = "the face-up " if event.revealed else ""
        drawn = f"{face}{card_text(event.card)}" if event.card.value else "a card"
        return f"{seat(event.seat)} draws {drawn} ({event.deck_size} left in the deck)"
    if isinstance(event, DrawnCardDiscarded):
        effect = EFFECTS.get(event.card.value, "?")
        return f"{seat(event.seat)} discards the drawn card {card_text(event.card)} ({effect})"
    if isinstance(event, DrawnCardPlaced):
        placed = card_text(event.card) if event.card.value else "it"
        return (
            f"{seat(event.seat)} places {placed} in district {event.district} and discards "
            f"{card_text(event.discarded)}"
        )
    if isinstance(event, CardRevealed):
        whose = "own" if event.owner == event.seat else "the opponent's"
        return (
            f"{seat(event.seat)} reveals {whose} card in district {event.district}: "
            f"{card_text(event.card)}"
        )
    if isinstance(event, DeckTopRevealed):
        return f"{seat(event.seat)} reveals the deck's top card: {card_text(event.card)}"
    if isinstance(event, SlotsSwapped):
        return f"{seat(event.seat)} swaps own cards of districts {event.first} and {event.second}"
    if isinstance(event, DistrictExchanged):
        text = f"{seat(event.seat)} exchanges the cards of district {event.district}"
        if event.given.value or event.taken.value:
            text += f": gives {card_text(event.given)}, takes {card_text(event.taken)}"
        return text
    if isinstance(event, TrumpChanged):
        return (
            f"{seat(event.seat)} makes {colour_name(event.colour)} trump: {track_text(event.track)}"
        )
    if isinstance(event, EffectSkipped):
        reason = f": {event.reason}" if event.reason else ""
        return f"the {event.effect}'s effect is skipped{reason}"
    if isinstance(event, RoundEnded):
        why = _ROUND_ENDS.get(RoundEnd(event.reason), "?")
        return (
            f"round {event.round} ends ({why}): Dracula {cards_text(event.dracula_cards)}, "
            f"Van Helsing {cards_text(event.van_helsing_cards)}"
        )
    if isinstance(event, DistrictResolved):
        return resolution_text(event)
    if isinstance(event, GameEnded):  # the event's own words (public), with the rule
        return f"game over: {event.end_reason} ({event.end_rule_id})"
    return fallback(event)


def _rack_text(rack: Rack) -> str:
    slots = " ".join(
        f"{s.district}:{card_text(s.card) if s.card.value else '??'}{'(up)' if s.revealed else ''}"
        for s in rack.slots
    )
    return f"{ROLES.get(Role(rack.role), seat(rack.seat))} ({seat(rack.seat)}): {slots}"


def public_text(view: DraculaVsVanHelsingView) -> PublicText:
    """The texts of :func:`view_text` every viewer of the game at one version shares (DV-3,
    DV-4, DV-26: the districts' tokens, the colour order, the deck and the discard pile),
    wrapped once for all."""
    districts = ", ".join(f"{d.district}: {d.humans}H {d.vampires}V" for d in view.districts)
    deck = f"deck {view.deck_size}"
    if view.deck_top.value:
        deck += f", top {card_text(view.deck_top)}"
    if view.discard_pile:
        deck += f"; discard {cards_text(view.discard_pile)}"
    return (
        wrapped(f"districts (humans, vampires): {districts}"),
        wrapped(f"colours: {track_text(view.track)}"),
        wrapped(deck),
    )


def seat_text(view: DraculaVsVanHelsingView, public: PublicText) -> tuple[str, ...]:
    """:func:`view_text` from its public texts (:func:`public_text` of any viewer's view of
    the same version): the racks as the seat sees them, the drawn card and its role are its
    own (DV-24, DV-25)."""
    districts, colours, deck = public
    you = f"; you are {ROLES[Role(view.role)]}" if view.role in ROLES else ""
    return lines(
        *(_rack_text(rack) for rack in sorted(view.racks, key=lambda r: r.role != view.role)),
        f"drawn card: {card_text(view.drawn)}" if view.drawn.value else "",
        districts,
        colours,
        f"round {view.round} of {view.rounds}{you}; Dracula's HP {view.hp}",
        deck,
    )


def view_text(view: DraculaVsVanHelsingView) -> tuple[str, ...]:
    """The seat's view in the game's words (``View.view_lines``), from the view only: the
    districts' tokens (DV-3), the colour order (DV-4), each rack by district with ``??`` for a
    card the seat may not see (DV-24, DV-25), the deck, discard pile and drawn card."""
    return seat_text(view, public_text(view))
