"""Mau Mau Vampires: cards, commands, events and the view, as frozen value objects.

Class and field names are the wire names (``protos/referee/v1/mau_mau_vampires.proto``): the
codec maps ``PlayCard`` onto ``MauMauVampiresCommand.PlayCard`` and so on, by name.

Cards, their codes and the deal notation are :mod:`.cards` (re-exported here).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from referee.engine.endings import winners_of, winners_text

# The cards are wire vocabulary, re-exported by name: a module compiled by mypyc binds no
# name of a star import.
from referee.games.mau_mau_vampires.cards import CARDS as CARDS
from referee.games.mau_mau_vampires.cards import CLOCK as CLOCK
from referee.games.mau_mau_vampires.cards import CLOCKS_IN_DECK as CLOCKS_IN_DECK
from referee.games.mau_mau_vampires.cards import CODES as CODES
from referee.games.mau_mau_vampires.cards import COLOUR_OF as COLOUR_OF
from referee.games.mau_mau_vampires.cards import COLOURS as COLOURS
from referee.games.mau_mau_vampires.cards import DECK_SIZE as DECK_SIZE
from referee.games.mau_mau_vampires.cards import FULL_DECK as FULL_DECK
from referee.games.mau_mau_vampires.cards import FULL_DECK_NOTATION as FULL_DECK_NOTATION
from referee.games.mau_mau_vampires.cards import HIDDEN as HIDDEN
from referee.games.mau_mau_vampires.cards import MAU_MAU_CARDS as MAU_MAU_CARDS
from referee.games.mau_mau_vampires.cards import SYMBOL_OF as SYMBOL_OF
from referee.games.mau_mau_vampires.cards import SYMBOLS as SYMBOLS
from referee.games.mau_mau_vampires.cards import WEREWOLF as WEREWOLF
from referee.games.mau_mau_vampires.cards import WEREWOLVES_IN_DECK as WEREWOLVES_IN_DECK
from referee.games.mau_mau_vampires.cards import Card as Card
from referee.games.mau_mau_vampires.cards import CardKind as CardKind
from referee.games.mau_mau_vampires.cards import Colour as Colour
from referee.games.mau_mau_vampires.cards import card_of as card_of
from referee.games.mau_mau_vampires.cards import code_of as code_of
from referee.games.mau_mau_vampires.cards import code_or_none as code_or_none
from referee.games.mau_mau_vampires.cards import colour_of as colour_of
from referee.games.mau_mau_vampires.cards import mau_mau_code as mau_mau_code
from referee.games.mau_mau_vampires.cards import notation as notation
from referee.games.mau_mau_vampires.cards import parse_notation as parse_notation
from referee.games.mau_mau_vampires.cards import read_card as read_card
from referee.games.mau_mau_vampires.cards import symbol_of as symbol_of

# --- enums ----------------------------------------------------------------------------------


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
    1 = winner (tied seats share).

    ``end_rule_id`` and ``end_reason`` say why in words, written from these public fields when
    not given: so events stored before these fields say it too.

    >>> GameEnded((34, 17), (1, 2)).end_reason
    'seat 0 wins with the highest total after the agreed hands, 34 points'
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    end_rule_id: str = ""
    end_reason: str = ""

    def __post_init__(self) -> None:
        if not self.end_reason:
            object.__setattr__(self, "end_rule_id", "MM-24")
            object.__setattr__(self, "end_reason", _end_reason(self.scores, self.ranks))


def _end_reason(scores: tuple[int, ...], ranks: tuple[int, ...]) -> str:
    winners = winners_of(ranks)
    best = scores[winners[0]] if winners and winners[0] < len(scores) else 0
    tied = " (still tied after the tie-break hands)" if len(winners) > 1 else ""
    return (
        f"{winners_text(ranks, 'wins', 'share the win')} with the highest total after the "
        f"agreed hands, {best} points{tied}"
    )


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
