"""Mau Mau Vampires: cards, commands, events and the view, as frozen value objects.

Class and field names are the wire names (``protos/referee/v1/mau_mau_vampires.proto``): the
codec maps ``PlayCard`` onto ``MauMauVampiresCommand.PlayCard`` and so on, by name.

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

# --- enums ----------------------------------------------------------------------------------


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


class Announcement(IntEnum):
    """What a player says with an action that leaves them 1 or 0 cards (MM-16)."""

    UNSPECIFIED = 0  # nothing said
    MAU = 1
    MAU_MAU = 2


class Ability(IntEnum):
    """A character ability: the eight human ones (MM-22 a-h) and the two vampire ones (MM-19)."""

    UNSPECIFIED = 0
    GIVE_LEFT = 1  # (a)
    CALL_COLOUR = 2  # (b)
    WISH_AND_PLAY_AGAIN = 3  # (c)
    SWAP_AND_PLAY_AGAIN = 4  # (d)
    OPPONENTS_DRAW_ONE = 5  # (e)
    FEWEST_DRAW_TWO = 6  # (f)
    DRAW_TWO_AND_SHARE = 7  # (g)
    SET_ASIDE_POT = 8  # (h)
    VAMPIRE_BITE = 9  # night, the vampire's symbol: the left neighbour draws 2
    VAMPIRE_GIFT = 10  # night, the vampire's colour: give 1 card to another player


class DrawReason(IntEnum):
    """Why cards were drawn (MM-27: who drew how many cards and why is public)."""

    UNSPECIFIED = 0
    TURN = 1  # MM-8
    MISSED_MAU = 2  # MM-16
    MISSED_MAU_MAU = 3  # MM-16
    SPECIAL_LAST_CARD = 4  # MM-17
    VAMPIRE_BITE = 5  # MM-19
    CALLED_COLOUR = 6  # MM-22 b
    OPPONENTS_DRAW_ONE = 7  # MM-22 e
    FEWEST_DRAW_TWO = 8  # MM-22 f
    DRAW_TWO_AND_SHARE = 9  # MM-22 g: the cards wait to be shared, they are not in hand yet


class ShuffleReason(IntEnum):
    """Why the deck was shuffled."""

    UNSPECIFIED = 0
    NEW_HAND = 1  # MM-6, MM-7
    SPECIALS_RETURNED = 2  # MM-6: special cards turned up at the start go back in
    PILE_RESHUFFLED = 3  # MM-15


class WishReason(IntEnum):
    """Why a player may wish a colour (MM-14)."""

    UNSPECIFIED = 0
    WEREWOLF_REPLACED = 1  # MM-11
    DAY_NIGHT_TURNED = 2  # MM-12
    CARD_RECEIVED = 3  # MM-22 a


class Phase(IntEnum):
    """What the game waits for."""

    UNSPECIFIED = 0
    TURN = 1  # play a card or draw (MM-8)
    PLAY_DRAWN = 2  # play the card just drawn, or end the turn (MM-8)
    ABILITY = 3  # use or decline a triggered ability (MM-18 ... MM-22)
    WISH = 4  # wish a colour or not (MM-14, MM-22 a)
    ANSWER_CALL = 5  # opponents show a card of the called colour (MM-22 b)
    SHARE_DRAWN = 6  # give or keep the two drawn cards (MM-22 g)
    GAME_OVER = 7


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
_CODE_OF: dict[Card, int] = {card: code for code, card in enumerate(CARDS)}


#: The shared instances by identity: commands built from legal_commands carry these, so most
#: lookups skip hashing a dataclass (the ids are stable: CARDS lives as long as the module).
_CODE_BY_ID: dict[int, int] = {id(card): code for code, card in enumerate(CARDS)}
#: colour_of / symbol_of of every code, as tables (the rules look them up in hot loops).
COLOUR_OF: tuple[int, ...] = tuple(colour_of(code) for code in range(CODES))
SYMBOL_OF: tuple[int, ...] = tuple(symbol_of(code) for code in range(CODES))


def card_of(code: int) -> Card:
    return CARDS[code]


def code_of(card: Card) -> int:
    """The code of a well-formed card; :class:`KeyError` for anything else (``Card()``)."""
    code = _CODE_BY_ID.get(id(card))
    return _CODE_OF[card] if code is None else code


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

# --- commands -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DrawCard:
    """Draw 1 card instead of playing (MM-8)."""


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play ``card`` from hand (MM-8 ... MM-12), announcing Mau or Mau Mau when it leaves you 1
    or 0 cards (MM-16). A Werewolf needs ``werewolf_seat``: the seat whose character gets it.

    >>> PlayCard(Card(CardKind.WEREWOLF), Announcement.UNSPECIFIED, werewolf_seat=2).card.kind
    <CardKind.WEREWOLF: 3>
    """

    card: Card
    announce: Announcement = Announcement.UNSPECIFIED
    werewolf_seat: int | None = None


@dataclass(frozen=True, slots=True)
class EndTurn:
    """Keep the card just drawn and end the turn (MM-8)."""


@dataclass(frozen=True, slots=True)
class Wish:
    """Wish a colour (MM-14, MM-22 a); also how ability (c) is used (MM-22 c)."""

    colour: Colour


@dataclass(frozen=True, slots=True)
class NoWish:
    """Let a chance to wish pass (MM-14: wishing is optional)."""


@dataclass(frozen=True, slots=True)
class UseAbility:
    """Use a triggered ability that needs no choice: the vampire bite (MM-19), (e), (f), (g)."""


@dataclass(frozen=True, slots=True)
class DeclineAbility:
    """Do not use the triggered ability (MM-18: using an ability is optional)."""


@dataclass(frozen=True, slots=True)
class GiveCard:
    """Give ``card`` from hand to ``to_seat``: the vampire gift (MM-19) or (a) (MM-22)."""

    to_seat: int
    card: Card
    announce: Announcement = Announcement.UNSPECIFIED


@dataclass(frozen=True, slots=True)
class CallColour:
    """Call a colour: every opponent shows you a card of it or draws 2 (MM-22 b)."""

    colour: Colour


@dataclass(frozen=True, slots=True)
class ShowCard:
    """Show the caller a card of the called colour; it stays in your hand (MM-22 b)."""

    card: Card


@dataclass(frozen=True, slots=True)
class SwapCharacters:
    """Swap characters with ``seat``, then take another turn (MM-22 d)."""

    seat: int


@dataclass(frozen=True, slots=True)
class ShareDrawn:
    """Hand out the cards drawn by (g): ``to_seats[i]`` receives the i-th of them; your own
    seat keeps it (MM-22 g)."""

    to_seats: tuple[int, ...]
    announce: Announcement = Announcement.UNSPECIFIED


@dataclass(frozen=True, slots=True)
class SetAside:
    """Set ``card`` from hand aside into the pot with 1 card from the deck (MM-22 h)."""

    card: Card
    announce: Announcement = Announcement.UNSPECIFIED


Command = (
    DrawCard
    | PlayCard
    | EndTurn
    | Wish
    | NoWish
    | UseAbility
    | DeclineAbility
    | GiveCard
    | CallColour
    | ShowCard
    | SwapCharacters
    | ShareDrawn
    | SetAside
)

# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A hand began (MM-5 ... MM-7, MM-24): Day side up, no clocks, werewolf, pot or wish.

    ``tiebreak`` is 0 for the agreed hands, else the number of the tie-break hand (1-3), which
    only the seats in ``playing`` play. ``characters`` is each seat's character id.
    """

    hand_number: int
    tiebreak: int
    dealer: int
    playing: tuple[int, ...]
    characters: tuple[str, ...]
    hand_size: int


@dataclass(frozen=True, slots=True)
class DeckShuffled:
    """The deck was shuffled; ``order`` (top first) is seen by no one (MM-28): empty when
    redacted."""

    shuffle: int
    reason: ShuffleReason
    count: int
    order: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class CardsDealt:
    """``seat`` was dealt ``count`` cards; only that seat sees them (MM-26)."""

    seat: int
    count: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class StartingCardTurned:
    """A card was turned from the deck to start the discard pile (MM-6). A special card is
    put aside and shuffled back; the first Mau Mau card starts the pile."""

    card: Card


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """It is ``seat``'s turn; ``extra`` for another turn granted by an ability (MM-21)."""

    seat: int
    extra: bool


@dataclass(frozen=True, slots=True)
class CardsDrawn:
    """``seat`` drew ``count`` cards, and why (MM-27). Only that seat sees them (MM-28).

    ``count`` 0: there was nothing to draw (MM-15).
    """

    seat: int
    count: int
    cards: tuple[Card, ...]
    reason: DrawReason


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """``seat`` played ``card`` (public, MM-27) and said ``announced``; ``owed`` is what the
    play called for (MM-16). A Werewolf went on the character of ``werewolf_seat`` (MM-11),
    and ``replaced`` names the character whose werewolf it discarded (``""`` if none)."""

    seat: int
    card: Card
    announced: Announcement
    owed: Announcement
    werewolf_seat: int | None
    replaced: str


@dataclass(frozen=True, slots=True)
class DayNightTurned:
    """As many clocks as players: the Day/Night card and every character turned (MM-12); the
    clocks and the werewolf (on ``werewolf_character``, ``""`` if none) were discarded."""

    night: bool
    clocks: int
    werewolf_character: str


@dataclass(frozen=True, slots=True)
class WishOffered:
    """``seat`` may wish a colour now (MM-14, MM-22 a)."""

    seat: int
    reason: WishReason


@dataclass(frozen=True, slots=True)
class Wished:
    """``seat`` wished ``colour`` (``UNSPECIFIED``: let the chance pass) (MM-14)."""

    seat: int
    colour: Colour


@dataclass(frozen=True, slots=True)
class AbilityTriggered:
    """``seat``'s character ``character`` triggered ``ability``; its owner decides (MM-18)."""

    seat: int
    ability: Ability
    character: str


@dataclass(frozen=True, slots=True)
class AbilityDeclined:
    """``seat`` did not use ``ability`` (MM-18)."""

    seat: int
    ability: Ability


@dataclass(frozen=True, slots=True)
class AbilityUsed:
    """``seat`` used ``ability`` (one without a choice: bite, (e), (f), (g)); effects follow."""

    seat: int
    ability: Ability


@dataclass(frozen=True, slots=True)
class CardGiven:
    """``from_seat`` gave ``card`` to ``to_seat`` through ``ability`` (MM-19, MM-22 a). The
    card is seen by the two of them only (MM-28)."""

    from_seat: int
    to_seat: int
    card: Card
    ability: Ability
    announced: Announcement
    owed: Announcement


@dataclass(frozen=True, slots=True)
class ColourCalled:
    """``seat`` called ``colour`` (MM-22 b): the seats in ``answering`` hold that colour and
    must show a card of it; the other opponents draw 2."""

    seat: int
    colour: Colour
    answering: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardShown:
    """``seat`` showed ``card`` to the caller ``to_seat``; only they see it (MM-28)."""

    seat: int
    to_seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class CharactersSwapped:
    """``seat`` and ``other`` swapped characters; a werewolf stays on its card (MM-22 d).
    ``seat_character`` is ``seat``'s character after the swap."""

    seat: int
    other: int
    seat_character: str
    other_character: str


@dataclass(frozen=True, slots=True)
class DrawnShared:
    """``seat`` handed out the cards drawn by (g): ``cards[i]`` went to ``to_seats[i]`` (its own
    seat: kept), listed by receiving seat, so the order tells nothing about the cards. Each
    card is seen by ``seat`` and its receiver only (MM-28)."""

    seat: int
    to_seats: tuple[int, ...]
    cards: tuple[Card, ...]
    announced: Announcement
    owed: Announcement


@dataclass(frozen=True, slots=True)
class CardSetAside:
    """``seat`` set ``card`` (seen by ``seat`` only) and ``deck_count`` card(s) from the deck
    (seen by no one) aside face down (MM-22 h, MM-28); the pot now holds ``pot_size``."""

    seat: int
    card: Card
    deck_count: int
    deck_cards: tuple[Card, ...]
    announced: Announcement
    owed: Announcement
    pot_size: int


@dataclass(frozen=True, slots=True)
class PotTaken:
    """``seat`` played a special card and took the pot into hand (MM-22 h); only ``seat`` sees
    the cards."""

    seat: int
    count: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class HandEnded:
    """A hand ended (MM-23): ``ender`` emptied their hand (absent: the hand was blocked, see
    the rules module). ``scores`` of this hand, ``cards_left`` by seat; ``totals`` of the agreed
    hands and ``tiebreak_points`` after it (MM-24)."""

    hand_number: int
    tiebreak: int
    ender: int | None
    blocked: bool
    scores: tuple[int, ...]
    cards_left: tuple[int, ...]
    totals: tuple[int, ...]
    tiebreak_points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over (MM-24): ``scores`` are the totals plus tie-break points, ``ranks``
    1 = winner (tied seats share)."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]


Event = (
    HandStarted
    | DeckShuffled
    | CardsDealt
    | StartingCardTurned
    | TurnStarted
    | CardsDrawn
    | CardPlayed
    | DayNightTurned
    | WishOffered
    | Wished
    | AbilityTriggered
    | AbilityDeclined
    | AbilityUsed
    | CardGiven
    | ColourCalled
    | CardShown
    | CharactersSwapped
    | DrawnShared
    | CardSetAside
    | PotTaken
    | HandEnded
    | GameEnded
)

# --- view -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CharacterView:
    """The character in front of ``seat`` (MM-3, MM-27); its side is the Day/Night side."""

    seat: int
    id: str
    name: str
    ability: Ability
    day_symbols: tuple[int, ...]
    vampire_symbol: int
    vampire_colour: Colour
    first_game: bool
    werewolf: bool


@dataclass(frozen=True, slots=True)
class ShownCard:
    """A card ``seat`` showed you for your called colour (MM-22 b, MM-28)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class HandScore:
    """One finished hand (MM-23): who ended it and what every seat scored."""

    hand_number: int
    tiebreak: int
    ender: int | None
    blocked: bool
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MauMauVampiresView:
    """What one seat (or a spectator) may know now (MM-26 ... MM-28)."""

    hand_number: int
    hands: int
    tiebreak: int
    dealer: int
    playing: tuple[int, ...]
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    deck_size: int
    pile_size: int
    top: Card
    wish: Colour
    night: bool
    clocks: int
    werewolf_seat: int | None
    characters: tuple[CharacterView, ...]
    symbols: tuple[str, ...]
    pot_size: int
    pot_yours: tuple[Card, ...]
    phase: Phase
    turn: int | None
    extra_turn: bool
    ability: Ability
    wisher: int | None
    called_colour: Colour
    answering: tuple[int, ...]
    shown_to_you: tuple[ShownCard, ...]
    drawn: tuple[Card, ...]
    to_share: tuple[Card, ...]
    to_share_count: int
    totals: tuple[int, ...]
    tiebreak_points: tuple[int, ...]
    hand_scores: tuple[HandScore, ...]
    last_hand: tuple[Card, ...]
    characters_option: str
    announcements: str
    first_game: bool
