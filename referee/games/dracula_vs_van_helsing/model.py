"""Dracula vs Van Helsing: cards, commands, events and the view, as frozen value objects.

Class and field names are the wire names (``protos/referee/v1/dracula_vs_van_helsing.proto``).

**Cards** (DV-2): 4 colours x values 1-8, all different. On the wire a card is a
:class:`Card` (a :class:`Colour` and a value); a card the viewer may not see is
:data:`HIDDEN` (``COLOUR_UNSPECIFIED``, value 0). Inside the rules a card is a small integer
*code*, ``colour * 10 + value`` (yellow 3 is 13, purple 8 is 48), so flags can be kept in
plain lists indexed by code.

**Districts and slots** are numbered 1-5 everywhere on the wire; slot *d* of each player faces
district *d* (DV-5).

**Seats and roles**: seat 0 or 1 is Dracula (option ``dracula``: ``0``, ``1`` or ``random``),
the other Van Helsing (DV-1). Events that concern both players name roles; events of a turn
name the acting seat.

**Fixed deal notation** (``FixedDeal``, scenario files):

* a card is a colour letter and a value: ``"Y1"``..``"Y8"`` yellow, ``"B1"``..``"B8"`` blue,
  ``"R1"``..``"R8"`` red, ``"P1"``..``"P8"`` purple (:data:`DECK` lists them in this
  canonical order);
* ``decks[i]`` is the 32-card order of round ``i + 1``: ``decks[i][0:5]`` are seat 0's slots
  for districts 1-5, ``decks[i][5:10]`` seat 1's, ``decks[i][10:]`` the draw deck, its top
  (first drawn) card first. Rounds without a fixed deck are shuffled from the seed;
* ``picks`` always has this layout (each pick is read from the fixed deal if given there,
  else from the seed):

  - ``picks[0]``: Dracula's seat, 0 or 1. Read only when the option ``dracula`` is
    ``random`` (give any 0 or 1 otherwise);
  - ``picks[1]``: the trump, an index into ``[yellow, blue, red, purple]`` (0-3);
  - ``picks[2]``: the 2nd colour of the track, an index into the three colours left, in the
    same order (0-2);
  - ``picks[3]``: the 3rd colour, an index into the two left (0-1); the last one is 4th.

  So ``picks: [0, 2, 0, 1]`` makes seat 0 Dracula (if random) and the track
  red (trump), yellow, purple, blue.

>>> card_code("Y3"), card_code("p8"), notation(13), notation(48)
(13, 48, 'Y3', 'P8')
>>> CARDS[13]
Card(colour=<Colour.YELLOW: 1>, value=3)
>>> len(DECK), DECK[:3], DECK[-1]
(32, ('Y1', 'Y2', 'Y3'), 'P8')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

# --- vocabulary --------------------------------------------------------------------------------


class Colour(IntEnum):
    """A card colour (DV-2); UNSPECIFIED marks a hidden card."""

    UNSPECIFIED = 0
    YELLOW = 1
    BLUE = 2
    RED = 3
    PURPLE = 4


class Role(IntEnum):
    """Who a seat plays (DV-1); UNSPECIFIED for a spectator or while no one has won."""

    UNSPECIFIED = 0
    DRACULA = 1
    VAN_HELSING = 2


class Step(IntEnum):
    """What the game waits for (each step of a turn is its own decision)."""

    UNSPECIFIED = 0
    TURN = 1  # draw, or call the end (DV-7)
    PLACE = 2  # discard the drawn card or put it into a slot (DV-7, DV-8)
    REVEAL_OWN = 3  # effect 1 (DV-10)
    REVEAL_OPPONENT = 4  # effect 3 (DV-12)
    SWAP_SLOTS = 5  # effect 4 (DV-13)
    EXCHANGE_DISTRICT = 6  # effect 6 (DV-15)
    CHOOSE_TRUMP = 7  # effect 7 (DV-16)
    OVER = 8


class TurnKind(IntEnum):
    """Why a turn is taken."""

    UNSPECIFIED = 0
    NORMAL = 1  # players alternate (DV-6)
    EXTRA = 2  # a 5 was discarded (DV-14)
    LAST = 3  # the opponent called the end: draw, no call (DV-19)


class RoundEnd(IntEnum):
    """Why a round ended (DV-19)."""

    UNSPECIFIED = 0
    CALL = 1  # after the last turn that followed a call
    EIGHT = 2  # an 8 was discarded
    DECK_EMPTY = 3  # a turn finished with the deck empty


class Comparison(IntEnum):
    """What decided a district (DV-20)."""

    UNSPECIFIED = 0
    TRUMP = 1  # exactly one card was trump
    VALUE = 2  # the higher value
    LADDER = 3  # equal values: the colour higher on the ladder


class GameEnd(IntEnum):
    """Why the game ended (DV-22, DV-23)."""

    UNSPECIFIED = 0
    VAMPIRES = 1  # all 4 humans of a district are vampires: Dracula wins
    NO_HP = 2  # Dracula has 0 HP: Van Helsing wins
    ROUNDS = 3  # round 5 was resolved and neither happened: Dracula wins


@dataclass(frozen=True, slots=True)
class Card:
    """A card: colour and value 1-8 (DV-2). ``HIDDEN`` (colour UNSPECIFIED, value 0) when the
    viewer may not see it."""

    colour: Colour
    value: int


HIDDEN = Card(Colour.UNSPECIFIED, 0)

#: DV-3/DV-5 numbers.
DISTRICTS = 5
HUMANS = 4
START_HP = 12
ROUNDS = 5
#: DV-7/DV-8: discards needed to call the end, and before an 8 may be discarded.
DISCARDS_TO_CALL = 6
LETTERS = {Colour.YELLOW: "Y", Colour.BLUE: "B", Colour.RED: "R", Colour.PURPLE: "P"}
COLOURS = (Colour.YELLOW, Colour.BLUE, Colour.RED, Colour.PURPLE)
#: Every card code (DV-2), in the canonical order Y1..Y8, B1..B8, R1..R8, P1..P8.
CODES = tuple(int(c) * 10 + v for c in COLOURS for v in range(1, 9))
#: Card code -> wire card (index 0 and unused codes hold HIDDEN).
CARDS: tuple[Card, ...] = tuple(
    Card(Colour(code // 10), code % 10) if code in CODES else HIDDEN for code in range(50)
)
#: The 32 cards in fixed-deal notation, canonical order.
DECK = tuple(f"{LETTERS[Colour(code // 10)]}{code % 10}" for code in CODES)
_CODE_OF = {text: code for text, code in zip(DECK, CODES, strict=True)}


def card_code(text: str) -> int:
    """The code of a card in deal notation (``"Y1"``..``"P8"``, any case); ValueError if none."""
    code = _CODE_OF.get(text.strip().upper())
    if code is None:
        raise ValueError(f'a card is a colour letter Y, B, R or P and a value 1-8, got "{text}"')
    return code


def notation_codes() -> dict[str, int]:
    """Deal notation -> card code, exactly as written in :data:`DECK` (no normalising)."""
    return _CODE_OF


def notation(code: int) -> str:
    """The deal notation of a card code."""
    return f"{LETTERS[Colour(code // 10)]}{code % 10}"


def colour_of(code: int) -> int:
    return code // 10


def value_of(code: int) -> int:
    return code % 10


# --- commands ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Draw:
    """Start your turn by drawing the top card of the deck (DV-7)."""


@dataclass(frozen=True, slots=True)
class CallEnd:
    """Call the end of the round instead of drawing: needs 6 discards; the opponent then takes
    one last turn (DV-7, DV-19)."""


@dataclass(frozen=True, slots=True)
class DiscardDrawn:
    """Discard the card you drew; its effect resolves (DV-7, DV-8: not an 8 too early)."""


@dataclass(frozen=True, slots=True)
class PlaceDrawn:
    """Put the drawn card into your slot facing ``district`` (1-5) and discard the card that
    was there; the discarded card's effect resolves (DV-7, DV-8).

    >>> PlaceDrawn(district=3)
    PlaceDrawn(district=3)
    """

    district: int


@dataclass(frozen=True, slots=True)
class RevealOwn:
    """Effect 1: reveal your unrevealed card in ``district`` (DV-10)."""

    district: int


@dataclass(frozen=True, slots=True)
class RevealOpponent:
    """Effect 3: reveal the opponent's unrevealed card in ``district`` (DV-12)."""

    district: int


@dataclass(frozen=True, slots=True)
class SwapSlots:
    """Effect 4: swap your cards in two districts, ``first < second`` (DV-13)."""

    first: int
    second: int


@dataclass(frozen=True, slots=True)
class ExchangeDistrict:
    """Effect 6: swap your card in ``district`` with the opponent's card there (DV-15)."""

    district: int


@dataclass(frozen=True, slots=True)
class ChooseTrump:
    """Effect 7: the colour (a :class:`Colour` number, not the trump) that becomes trump
    (DV-16). A plain integer here so that a number outside the enum is refused by the rules
    (DV-16) rather than by the wire decoder."""

    colour: int


Command = (
    Draw
    | CallEnd
    | DiscardDrawn
    | PlaceDrawn
    | RevealOwn
    | RevealOpponent
    | SwapSlots
    | ExchangeDistrict
    | ChooseTrump
)

# --- events ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameStarted:
    """Roles and the colour track (DV-1, DV-4). ``track`` is trump first, then the ladder
    from strongest to weakest; ``resolution_order`` the order districts resolve in (DV-20)."""

    dracula: int
    van_helsing: int
    dracula_picked: bool
    track: tuple[Colour, ...]
    resolution_order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A round began (DV-5): HP, humans, vampires and the track carry over; reveals do not.

    ``deck`` is the draw deck's order, top first: kept in the log for replay, shown to no one
    (DV-26); ``deck_size`` is public.
    """

    round: int
    shuffle: int
    deck_size: int
    deck: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SlotsDealt:
    """``seat`` was dealt ``cards`` for districts 1-5, in order. Only ``seat`` sees them."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """``seat`` takes a turn: a normal one, an extra one (a 5) or the last one after a call."""

    seat: int
    kind: TurnKind


@dataclass(frozen=True, slots=True)
class EndCalled:
    """``seat`` called the end of the round (DV-7); the opponent takes one last turn."""

    seat: int


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """``seat`` drew the top card. ``card`` is hidden from the others unless it was revealed by
    a 2 (``revealed``, DV-11, DV-25); ``deck_size`` is what is left."""

    seat: int
    card: Card
    revealed: bool
    deck_size: int


@dataclass(frozen=True, slots=True)
class DrawnCardDiscarded:
    """``seat`` discarded the card it drew (public from now on); its effect follows."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class DrawnCardPlaced:
    """``seat`` put the drawn card into its slot facing ``district`` and discarded
    ``discarded``, the card that was there (public, DV-25); its effect follows. ``card`` (the
    placed one) is hidden from the others unless ``revealed`` (by a 2, DV-18)."""

    seat: int
    district: int
    card: Card
    revealed: bool
    discarded: Card


@dataclass(frozen=True, slots=True)
class CardRevealed:
    """Effect 1 or 3: ``owner``'s card facing ``district`` is revealed (DV-10, DV-12)."""

    seat: int
    owner: int
    district: int
    card: Card


@dataclass(frozen=True, slots=True)
class DeckTopRevealed:
    """Effect 2: the deck's top card is revealed to both players (DV-11)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class SlotsSwapped:
    """Effect 4: ``seat`` swapped its cards facing districts ``first`` and ``second`` (DV-13).
    Which cards they are stays hidden; reveals and knowledge move with them (DV-18)."""

    seat: int
    first: int
    second: int


@dataclass(frozen=True, slots=True)
class DistrictExchanged:
    """Effect 6: in ``district``, ``seat`` gave ``given`` to the opponent and took ``taken``
    (DV-15). Both players know both cards from now on; a spectator sees a card only if it is
    revealed (``given_revealed``, ``taken_revealed``; DV-25)."""

    seat: int
    district: int
    given: Card
    given_revealed: bool
    taken: Card
    taken_revealed: bool


@dataclass(frozen=True, slots=True)
class TrumpChanged:
    """Effect 7: ``colour`` became trump; the old trump took its place on the ladder (DV-16).
    ``track`` is the new order, trump first."""

    seat: int
    colour: Colour
    track: tuple[Colour, ...]


@dataclass(frozen=True, slots=True)
class EffectSkipped:
    """The effect of the discarded ``effect`` (a value 1-8) could not resolve (DV-9): 1 with no
    unrevealed own card, 3 with none of the opponent's, 2 with an empty deck, 5 when the deck
    ran out (DV-19). The turn still counts."""

    seat: int
    effect: int
    reason: str


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """The round ended (DV-19); all cards are revealed (DV-20), by district 1-5."""

    round: int
    reason: RoundEnd
    dracula_cards: tuple[Card, ...]
    van_helsing_cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class DistrictResolved:
    """One district's comparison (DV-20) and outcome (DV-21), in resolution order: the winner,
    what decided it, and the district's humans and vampires and Dracula's HP afterwards."""

    district: int
    dracula_card: Card
    van_helsing_card: Card
    winner: Role
    comparison: Comparison
    humans: int
    vampires: int
    hp: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over (DV-22, DV-23). ``district`` is the district whose humans all became
    vampires (0 otherwise).

    ``end_rule_id`` and ``end_reason`` say why in words, written from these public fields when
    not given: so events stored before these fields say it too.

    >>> GameEnded(Role.VAN_HELSING, 1, GameEnd.NO_HP, 3, 0, 0).end_reason
    'Van Helsing (seat 1) wins: Dracula is down to 0 HP in round 3'
    """

    winner: Role
    winner_seat: int
    reason: GameEnd
    round: int
    district: int
    hp: int
    end_rule_id: str = ""
    end_reason: str = ""

    def __post_init__(self) -> None:
        if not self.end_reason:
            rule = "DV-23" if self.reason == GameEnd.ROUNDS else "DV-22"
            object.__setattr__(self, "end_rule_id", rule)
            object.__setattr__(self, "end_reason", _end_reason(self))


def _end_reason(e: GameEnded) -> str:
    name = "Dracula" if e.winner == Role.DRACULA else "Van Helsing"
    who = f"{name} (seat {e.winner_seat})"
    if e.reason == GameEnd.VAMPIRES:
        return f"{who} wins: all 4 humans of district {e.district} are vampires"
    if e.reason == GameEnd.NO_HP:
        return f"{who} wins: Dracula is down to 0 HP in round {e.round}"
    return f"{who} wins: nobody had won after round {e.round}, Dracula survived with {e.hp} HP"


Event = (
    GameStarted
    | RoundStarted
    | SlotsDealt
    | TurnStarted
    | EndCalled
    | CardDrawn
    | DrawnCardDiscarded
    | DrawnCardPlaced
    | CardRevealed
    | DeckTopRevealed
    | SlotsSwapped
    | DistrictExchanged
    | TrumpChanged
    | EffectSkipped
    | RoundEnded
    | DistrictResolved
    | GameEnded
)

# --- view --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Slot:
    """One card of a rack. ``card`` is HIDDEN when the viewer may not see it (DV-24, DV-25);
    ``revealed``: face up for everyone (DV-18); ``known_to_opponent``: the rack owner's
    opponent knows it (revealed, or swapped by a 6, DV-25)."""

    district: int
    card: Card
    revealed: bool
    known_to_opponent: bool


@dataclass(frozen=True, slots=True)
class Rack:
    """A seat's 5 cards, by district 1-5."""

    seat: int
    role: Role
    slots: tuple[Slot, ...]


@dataclass(frozen=True, slots=True)
class District:
    """A district's 4 tokens: humans and vampires (DV-3, DV-21)."""

    district: int
    humans: int
    vampires: int


@dataclass(frozen=True, slots=True)
class DraculaVsVanHelsingView:
    """What one seat (or a spectator) may know now (DV-24 ... DV-26)."""

    round: int
    rounds: int
    dracula: int
    van_helsing: int
    role: Role
    hp: int
    districts: tuple[District, ...]
    track: tuple[Colour, ...]
    trump: Colour
    resolution_order: tuple[int, ...]
    racks: tuple[Rack, ...]
    deck_size: int
    deck_top: Card
    discard_pile: tuple[Card, ...]
    turn: int | None
    turn_kind: TurnKind
    step: Step
    drawn: Card
    drawn_revealed: bool
    effect: int
    called_by: int | None
    last_round_end: RoundEnd
    last_resolution: tuple[DistrictResolved, ...]
    last_discard_pile: tuple[Card, ...]
    last_deck_top: Card
    winner: Role
