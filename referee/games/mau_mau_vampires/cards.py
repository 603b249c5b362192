"""Mau Mau Vampires: the cards (MM-1, MM-2), their codes and the deal notation.

Cards
-----
On the wire a card is a :class:`Card`: a Mau Mau card has a colour and a symbol 1-11 (the
symbol names come from the character data file, MM-4); a Clock or a Werewolf has neither
(MM-2). A card someone may not see is ``Card()`` (kind ``UNSPECIFIED``), so a list of given
cards keeps its positions when some are hidden.

Inside the rules a card is a small integer *code*: ``(colour - 1) * 11 + (symbol - 1)`` for the
44 Mau Mau cards (0-43), :data:`CLOCK` (44) and :data:`WEREWOLF` (45); the 6 Clocks and the 5
Werewolves are alike, so they share a code.

Deal notation
-------------
A fixed deal (:class:`referee.engine.FixedDeal`) writes cards as ``"R1"`` .. ``"R11"``,
``"B1"`` .. ``"B11"``, ``"G1"`` .. ``"G11"``, ``"P1"`` .. ``"P11"`` (colour letter red, blue,
green, purple + symbol number) and ``"CLOCK"``, ``"WOLF"``:

>>> notation(code_of(Card(CardKind.MAU_MAU, Colour.GREEN, 7)))
'G7'
>>> card_of(parse_notation("WOLF"))
Card(kind=<CardKind.WEREWOLF: 3>, colour=<Colour.UNSPECIFIED: 0>, symbol=0)

``decks[k]`` is the card order (top first) of the k-th shuffle of the game, counted from 0 in the
order the shuffles happen: the 55 cards at the start of every hand (tie-break hands included);
the rest of the deck plus the special cards turned up while starting the discard pile (MM-6);
the discard pile under its top card when the deck runs out (MM-15). ``decks[0]`` is all 55
cards; every later one gives its top cards only, as what it shuffles is known only then
(the listed cards that are there go on top in the listed order, the rest follow in the
seed's order; a complete order is taken as it is). At the start of a hand the seats playing
it, in seat order, get consecutive blocks of the hand size (MM-5: 8, 7 with five, 6 with six
players) from the top; the next card starts the discard pile (MM-6).

``picks`` are consumed in this order: ``picks[0]`` the first dealer (a seat); then one pick per
seat, seat 0 first: the index of that seat's character among the characters not yet given
out, in data-file order (only the *first game* ones with option ``first_game``). So
``picks=[2, 0, 0, 0]`` makes seat 2 the dealer (seat 0 starts) and gives seats 0, 1, 2 the
first three characters of the file. Nothing else is random.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

__all__ = [
    "CARDS",
    "CLOCK",
    "CLOCKS_IN_DECK",
    "CODES",
    "COLOURS",
    "COLOUR_OF",
    "DECK_SIZE",
    "FULL_DECK",
    "FULL_DECK_NOTATION",
    "HIDDEN",
    "MAU_MAU_CARDS",
    "SYMBOLS",
    "SYMBOL_OF",
    "WEREWOLF",
    "WEREWOLVES_IN_DECK",
    "Card",
    "CardKind",
    "Colour",
    "card_of",
    "code_of",
    "code_or_none",
    "colour_of",
    "mau_mau_code",
    "notation",
    "parse_notation",
    "read_card",
    "symbol_of",
]


class Colour(IntEnum):
    """A colour of the Mau Mau cards (MM-1), also what is wished (MM-14) or called (MM-22 b)."""

    UNSPECIFIED = 0
    RED = 1
    BLUE = 2
    GREEN = 3
    PURPLE = 4


class CardKind(IntEnum):
    """What a card is (MM-1, MM-2). UNSPECIFIED: a card you may not see."""

    UNSPECIFIED = 0
    MAU_MAU = 1
    CLOCK = 2
    WEREWOLF = 3


# --- cards ----------------------------------------------------------------------------------

SYMBOLS = 11  # MM-1
COLOURS = (Colour.RED, Colour.BLUE, Colour.GREEN, Colour.PURPLE)
MAU_MAU_CARDS = 44
CLOCK = 44
WEREWOLF = 45
CODES = 46
CLOCKS_IN_DECK = 6  # MM-2
WEREWOLVES_IN_DECK = 5  # MM-2
DECK_SIZE = MAU_MAU_CARDS + CLOCKS_IN_DECK + WEREWOLVES_IN_DECK

_LETTERS = {Colour.RED: "R", Colour.BLUE: "B", Colour.GREEN: "G", Colour.PURPLE: "P"}


@dataclass(frozen=True, slots=True)
class Card:
    """A card: a Mau Mau card (colour, symbol 1-11), a Clock or a Werewolf; ``Card()`` is a
    card you may not see."""

    kind: CardKind = CardKind.UNSPECIFIED
    colour: Colour = Colour.UNSPECIFIED
    symbol: int = 0


HIDDEN = Card()


def colour_of(code: int) -> int:
    """The colour (1-4) of a Mau Mau card code, 0 for a special card.

    >>> colour_of(0), colour_of(43), colour_of(CLOCK)
    (1, 4, 0)
    """
    return code // SYMBOLS + 1 if code < MAU_MAU_CARDS else 0


def symbol_of(code: int) -> int:
    """The symbol (1-11) of a Mau Mau card code, 0 for a special card."""
    return code % SYMBOLS + 1 if code < MAU_MAU_CARDS else 0


def mau_mau_code(colour: int, symbol: int) -> int:
    return (colour - 1) * SYMBOLS + symbol - 1


def _make_card(code: int) -> Card:
    if code == CLOCK:
        return Card(CardKind.CLOCK)
    if code == WEREWOLF:
        return Card(CardKind.WEREWOLF)
    return Card(CardKind.MAU_MAU, Colour(colour_of(code)), symbol_of(code))


#: The wire card of every code (one shared instance each).
CARDS: tuple[Card, ...] = tuple(_make_card(code) for code in range(CODES))
#: The code of every card by its value (not its identity: a command's card is a new object).
_CODE_OF: dict[Card, int] = {card: code for code, card in enumerate(CARDS)}


#: colour_of / symbol_of of every code, as tables (the rules look them up in hot loops).
COLOUR_OF: tuple[int, ...] = tuple(colour_of(code) for code in range(CODES))
SYMBOL_OF: tuple[int, ...] = tuple(symbol_of(code) for code in range(CODES))


def card_of(code: int) -> Card:
    return CARDS[code]


def code_or_none(card: Card) -> int | None:
    """The code of a card that exists; ``None`` for anything else (``Card()``, a symbol 12, a
    Clock with a colour). A lookup by the card's value: measured faster than computing the
    code from its fields (docs/performance.md).

    >>> [code_or_none(card) for card in (CARDS[0], CARDS[43], CARDS[CLOCK], CARDS[WEREWOLF])]
    [0, 43, 44, 45]
    >>> code_or_none(Card(CardKind.MAU_MAU, Colour.RED, 12)), code_or_none(Card(CardKind.CLOCK, \
Colour.RED))
    (None, None)
    """
    return _CODE_OF.get(card)


def code_of(card: Card) -> int:
    """The code of a well-formed card; :class:`KeyError` for anything else (``Card()``)."""
    return _CODE_OF[card]


def notation(code: int) -> str:
    """A card code in deal notation: ``"R1"`` .. ``"P11"``, ``"CLOCK"``, ``"WOLF"``."""
    if code == CLOCK:
        return "CLOCK"
    if code == WEREWOLF:
        return "WOLF"
    return f"{_LETTERS[Colour(colour_of(code))]}{symbol_of(code)}"


_NOTATION: dict[str, int] = {notation(code): code for code in range(CODES)}


def parse_notation(text: str) -> int:
    """A card code from deal notation; :class:`ValueError` naming the allowed forms."""
    try:
        return _NOTATION[text]
    except KeyError:
        raise ValueError(
            f"not a Mau Mau Vampires card: {text!r} (R1..R11, B1..B11, G1..G11, P1..P11, "
            "CLOCK, WOLF)"
        ) from None


_COLOUR_WORDS = {"red": "R", "blue": "B", "green": "G", "purple": "P"}
_SPECIAL_WORDS = {"clock": "CLOCK", "wolf": "WOLF", "werewolf": "WOLF"}


def read_card(value: object) -> str:
    """A card as people write it, in deal notation: ``"R1"``, ``"red:S1"``, ``"red:1"``,
    ``"clock"``, ``"werewolf"`` (any case); :class:`ValueError` otherwise.

    >>> [read_card(v) for v in ("g7", "Purple:S11", "werewolf", "CLOCK")]
    ['G7', 'P11', 'WOLF', 'CLOCK']
    """
    if not isinstance(value, str):
        raise ValueError(f'a card is written like "R1", "red:S1", "CLOCK" or "WOLF", got {value!r}')
    text = value.strip().lower()
    if text in _SPECIAL_WORDS:
        return _SPECIAL_WORDS[text]
    colour, sep, symbol = text.partition(":")
    if sep:
        letter = _COLOUR_WORDS.get(colour, "?")
        text = letter + symbol.removeprefix("s")
    code = text.upper()
    parse_notation(code)  # raises ValueError naming the allowed forms
    return code


#: MM-1, MM-2: the 55 cards in canonical order (the order every shuffle starts from).
FULL_DECK: tuple[int, ...] = (
    *range(MAU_MAU_CARDS),
    *(CLOCK,) * CLOCKS_IN_DECK,
    *(WEREWOLF,) * WEREWOLVES_IN_DECK,
)
FULL_DECK_NOTATION: tuple[str, ...] = tuple(notation(code) for code in FULL_DECK)
