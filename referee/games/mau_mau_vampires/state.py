"""Mau Mau Vampires: the state of a table, and what ``decide`` drafts on top of it.

The state (:class:`MauMauVampiresState`) holds everything, hidden parts included; only the
event handlers (:mod:`.apply`) change it. :class:`_Draft` is what ``decide`` knows of the state
after the events it has produced so far, without touching the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import Any

from referee.engine.chance import deck_for
from referee.engine.game import GameConfig
from referee.games.mau_mau_vampires.characters import CHARACTERS, CharacterData
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CODES,
    COLOUR_OF,
    SYMBOL_OF,
    Ability,
    Announcement,
    CallColour,
    Card,
    CardsDrawn,
    CharacterView,
    DeckShuffled,
    DeclineAbility,
    DrawReason,
    GameEnded,
    GiveCard,
    HandScore,
    Phase,
    SetAside,
    ShuffleReason,
    SwapCharacters,
    UseAbility,
    WishReason,
    code_of,
    colour_of,
    notation,
    parse_notation,
    symbol_of,
)

#: MM-5: the most seats at a table.
MAX_PLAYERS = 6
#: MM-24: after this many tie-break hands the still-tied players share the win.
MAX_TIEBREAKS = 3
#: MM-22: abilities whose use needs a card in hand (they do not trigger with an empty hand).
_NEEDS_A_CARD = (Ability.VAMPIRE_GIFT, Ability.GIVE_LEFT, Ability.SET_ASIDE_POT)
#: Decision kinds of the abilities, in the game's words.
_ABILITY_KINDS = {
    Ability.GIVE_LEFT: "give_left",
    Ability.CALL_COLOUR: "call_colour",
    Ability.WISH_AND_PLAY_AGAIN: "wish_and_play_again",
    Ability.SWAP_AND_PLAY_AGAIN: "swap_and_play_again",
    Ability.OPPONENTS_DRAW_ONE: "opponents_draw_one",
    Ability.FEWEST_DRAW_TWO: "fewest_draw_two",
    Ability.DRAW_TWO_AND_SHARE: "draw_two_and_share",
    Ability.SET_ASIDE_POT: "set_aside_pot",
    Ability.VAMPIRE_BITE: "vampire_bite",
    Ability.VAMPIRE_GIFT: "vampire_gift",
}
#: Commands that only make sense as the use of a triggered ability (MM-18).
_ABILITY_COMMANDS = (UseAbility, DeclineAbility, GiveCard, CallColour, SwapCharacters, SetAside)
_NONE = Announcement.UNSPECIFIED


def hand_size_for(players: int) -> int:
    """MM-5, MM-6: cards dealt to each of ``players`` playing a hand.

    >>> [hand_size_for(n) for n in range(2, 7)]
    [8, 8, 8, 7, 6]
    """
    return {5: 7, 6: 6}.get(players, 8)


def owed_for(cards_left: int) -> Announcement:
    """MM-16: what an action leaving ``cards_left`` cards must be announced with.

    >>> [owed_for(n).name for n in (2, 1, 0)]
    ['UNSPECIFIED', 'MAU', 'MAU_MAU']
    """
    if cards_left == 1:
        return Announcement.MAU
    if cards_left == 0:
        return Announcement.MAU_MAU
    return _NONE


@dataclass
class MauMauVampiresState:
    """The whole table, hidden parts included. Only ``apply`` changes it.

    Cards are codes (:mod:`referee.games.mau_mau_vampires.model`); ``hands[seat]`` and
    ``pile_under`` count cards by code; ``deck`` lists codes with the **top card last**. The
    containers that are tuples are replaced whole when they change (seldom): a copy shares
    them (a search table copies the state at every step).
    """

    config: GameConfig
    players: int
    hands_total: int
    pass_left: bool
    first_game: bool
    auto_announce: bool
    hand_number: int = 0
    tiebreak: int = 0
    dealer: int = -1
    playing: tuple[int, ...] = ()
    #: characters[seat] = index in CHARACTERS.characters of the character in front of seat.
    characters: list[int] = field(default_factory=list)
    #: The characters as the view shows them (MM-3, MM-27): made by ``apply`` whenever the
    #: characters or the werewolf move (a few times a hand), shared by every view till then.
    character_views: tuple[CharacterView, ...] = ()
    hands: list[list[int]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    deck: list[int] = field(default_factory=list)
    #: MM-13: the discard pile under its top card (special cards included), by code.
    pile_under: list[int] = field(default_factory=lambda: [0] * CODES)
    top: int = -1
    #: MM-6: special cards turned while starting the pile, until shuffled back.
    turned: tuple[int, ...] = ()
    night: bool = False
    clocks: int = 0
    #: The character (index) carrying the werewolf in play, -1 if none (MM-11).
    werewolf: int = -1
    wish: int = 0
    #: MM-22 h: set-aside cards as (code, seat that put it in, or -1 from the deck).
    pot: list[tuple[int, int]] = field(default_factory=list)
    phase: Phase = Phase.UNSPECIFIED
    turn: int = -1
    extra_turn: bool = False
    ability: Ability = Ability.UNSPECIFIED
    #: Abilities the last Mau Mau card triggered that are still to come (MM-19: symbol first).
    triggers: tuple[Ability, ...] = ()
    wisher: int = -1
    wish_reason: WishReason = WishReason.UNSPECIFIED
    drawn: int = -1
    call_colour: int = 0
    answering: tuple[int, ...] = ()
    #: MM-22 b: (seat, code) shown to the caller this turn.
    shown: tuple[tuple[int, int], ...] = ()
    #: MM-22 g: the cards drawn to be shared.
    pair: tuple[int, ...] = ()
    #: MM-16: the acting player missed a Mau Mau in this turn: the hand goes on.
    missed_mau_mau: bool = False
    #: Turns in a row that drew nothing and played nothing (the blocked-hand bound).
    idle: int = 0
    totals: list[int] = field(default_factory=list)
    tiebreak_points: tuple[int, ...] = ()
    history: tuple[HandScore, ...] = ()
    #: Each seat's cards when the last hand ended (MM-23 counted them; each sees its own).
    last_hands: tuple[tuple[int, ...], ...] = ()
    final: tuple[int, ...] = ()
    shuffles: int = 0
    over: bool = False
    #: The event that ended the game (its rule and reason in words, for ``Game.ending``).
    ended: GameEnded | None = None
    #: The view's parts every viewer of this state shares (:func:`.view.public`): built by
    #: the first view of the state, dropped by ``apply``; a copy starts without.
    #: (A factory, not a default: a compiled class has no class attribute to read it from.)
    public: Any = field(default_factory=lambda: None, init=False, repr=False, compare=False)

    def next_playing(self, seat: int) -> int:
        """The left neighbour among the seats playing this hand (play goes clockwise)."""
        playing = self.playing
        table = _NEXT_PLAYING.get(playing)
        if table is not None and len(table) == self.players:
            return table[seat]
        _NEXT_PLAYING[playing] = tuple(
            _next_of(playing, s, self.players) for s in range(self.players)
        )
        return _next_of(playing, seat, self.players)

    def character(self, seat: int) -> CharacterData:
        return CHARACTERS.characters[self.characters[seat]]


def character_views(state: MauMauVampiresState) -> tuple[CharacterView, ...]:
    """MM-3, MM-27: the character in front of each seat, and whether it carries the werewolf."""
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
            werewolf=index == state.werewolf,
        )
        for seat, index in enumerate(state.characters)
    )


def _next_of(playing: tuple[int, ...], seat: int, players: int) -> int:
    for step in range(1, players + 1):
        other = (seat + step) % players
        if other in playing:
            return other
    return seat


#: The left neighbour of each seat, by the tuple of seats playing (see ``next_playing``).
_NEXT_PLAYING: dict[tuple[int, ...], tuple[int, ...]] = {}


class _Draft:
    """What ``decide`` knows of the state after the events it has produced so far: hand sizes,
    the deck, the pile under the top card, the characters. The state itself is never touched;
    these few values are copied (the big parts are read in place)."""

    __slots__ = (
        "characters",
        "deck",
        "deck_left",
        "events",
        "idle",
        "missed",
        "shuffles",
        "sizes",
        "state",
        "under_added",
        "under_base",
    )

    def __init__(self, state: MauMauVampiresState) -> None:
        self.state = state
        self.events: list[Any] = []
        self.sizes = list(state.sizes)
        self.deck = state.deck  # read only; a reshuffle replaces it with a new list
        self.deck_left = len(state.deck)
        self.under_added: list[int] = []
        self.under_base = True  # whether state.pile_under is still under the top card
        self.shuffles = state.shuffles
        self.characters = state.characters
        self.idle = state.idle
        self.missed = state.missed_mau_mau

    def emit(self, event: Any) -> None:
        self.events.append(event)

    def bury(self, code: int, count: int = 1) -> None:
        """MM-13: a card goes under the top card of the discard pile."""
        self.under_added.extend([code] * count)

    def shuffle(self, cards: Sequence[int], reason: ShuffleReason) -> list[int]:
        """Shuffle ``cards`` (any order: they are sorted first) and record the order (top
        first) in a :class:`DeckShuffled` event; returns the order."""
        pool = sorted(cards)
        try:
            order = deck_for(
                self.state.config,
                self.shuffles,
                [FULL_DECK_NOTATION_BY_CODE[c] for c in pool],
                prefix=self.shuffles > 0,  # checked whole at creation: deck 0 only
            )
        except ValueError as error:
            raise ValueError(
                f"fixed deal decks[{self.shuffles}] ({reason.name}): {error}"
            ) from None
        codes = [parse_notation(text) for text in order]
        self.emit(DeckShuffled(self.shuffles, reason, len(codes), tuple(CARDS[c] for c in codes)))
        self.shuffles += 1
        return codes

    def _under_cards(self) -> list[int]:
        cards = list(self.under_added)
        if self.under_base:
            under = self.state.pile_under
            for code in range(CODES):
                if under[code]:
                    cards.extend([code] * under[code])
        return cards

    def take(self) -> int | None:
        """The top card of the deck, reshuffling the pile first if the deck is empty (MM-15);
        ``None`` when there is nothing to draw."""
        if self.deck_left == 0:
            under = self._under_cards()
            if not under:
                return None
            order = self.shuffle(under, ShuffleReason.PILE_RESHUFFLED)
            self.deck = order[::-1]
            self.deck_left = len(order)
            self.under_added = []
            self.under_base = False
        self.deck_left -= 1
        return self.deck[self.deck_left]

    def draw(self, seat: int, count: int, reason: DrawReason) -> int:
        """``seat`` draws ``count`` cards (MM-15: a reshuffle in between splits the event;
        nothing left: the draw is skipped). Returns how many were drawn.

        The cards are listed sorted: their order in the deck is nobody's business (MM-28)."""
        if self.deck_left >= count:  # the usual case: no reshuffle in between
            left = self.deck_left - count
            taken = sorted(self.deck[left : self.deck_left])
            self.deck_left = left
            self.emit(CardsDrawn(seat, count, tuple([CARDS[c] for c in taken]), reason))
            if reason is not DrawReason.DRAW_TWO_AND_SHARE:
                self.sizes[seat] += count
            return count
        cards: list[int] = []
        total = 0
        emitted = False
        for _ in range(count):
            if self.deck_left == 0 and cards:
                self.emit(CardsDrawn(seat, len(cards), _sorted_cards(cards), reason))
                emitted = True
                cards = []
            code = self.take()
            if code is None:
                break
            cards.append(code)
            total += 1
        if cards or not emitted:
            self.emit(CardsDrawn(seat, len(cards), _sorted_cards(cards), reason))
        if reason is not DrawReason.DRAW_TWO_AND_SHARE:
            self.sizes[seat] += total
        return total


FULL_DECK_NOTATION_BY_CODE: tuple[str, ...] = tuple(notation(code) for code in range(CODES))


def _raw_triggers(state: MauMauVampiresState, seat: int, code: int) -> list[Ability]:
    """MM-18 ... MM-20: the abilities a Mau Mau card ``code`` played by ``seat`` triggers."""
    index = state.characters[seat]
    if index == state.werewolf:
        return []  # MM-11: a character carrying a werewolf has no abilities
    character = CHARACTERS.characters[index]
    symbol = symbol_of(code)
    if state.night:
        triggers = []
        if symbol == character.vampire_symbol:
            triggers.append(Ability.VAMPIRE_BITE)  # MM-19: symbol first
        if colour_of(code) == character.vampire_colour:
            triggers.append(Ability.VAMPIRE_GIFT)
        return triggers
    return [character.ability] if symbol in character.day_symbols else []


def _playable(state: MauMauVampiresState, code: int) -> bool:
    """MM-9, MM-14: whether Mau Mau card ``code`` may be played on the top card now."""
    if state.wish:
        return COLOUR_OF[code] == state.wish
    top = state.top
    return COLOUR_OF[code] == COLOUR_OF[top] or SYMBOL_OF[code] == SYMBOL_OF[top]


def _opponents(state: MauMauVampiresState, seat: int) -> list[int]:
    """The other seats playing this hand, from the left neighbour on, clockwise."""
    n = state.players
    return [(seat + step) % n for step in range(1, n) if (seat + step) % n in state.playing]


_SAY_NOTHING = (_NONE,)
_OWED = (Announcement.MAU_MAU, Announcement.MAU)
_TURN = Phase.TURN
_PLAY_DRAWN = Phase.PLAY_DRAWN
#: Phases whose one decision is the acting player's (state.turn).
_TURN_PHASES = frozenset({Phase.TURN, Phase.PLAY_DRAWN, Phase.ABILITY, Phase.SHARE_DRAWN})
_WISH = Phase.WISH
_ANSWER_CALL = Phase.ANSWER_CALL


def _sorted_cards(codes: Sequence[int]) -> tuple[Card, ...]:
    return tuple([CARDS[c] for c in sorted(codes)])


def _cards_of(counts: Sequence[int]) -> tuple[Card, ...]:
    """A hand kept as counts by code, as sorted wire cards (every view shows one: only the
    codes held are visited)."""
    cards: list[Card] = []
    for code in compress(range(CODES), counts):
        count = counts[code]
        if count == 1:
            cards.append(CARDS[code])
        else:
            cards += [CARDS[code]] * count
    return tuple(cards)


def _codes(cards: Sequence[Card]) -> list[int]:
    return [code_of(card) for card in cards]


def copy_state(state: MauMauVampiresState) -> MauMauVampiresState:
    """A deep, independent copy: the immutable values (the tuples among them) shared, every
    mutable container copied. Field by field on a new object, not through ``__init__``: a
    search table copies the state at every step, and the compiled build reads and sets each
    field in a C struct (``tests/engine/test_search.py`` checks every field is copied)."""
    new = MauMauVampiresState.__new__(MauMauVampiresState)
    new.config = state.config
    new.players = state.players
    new.hands_total = state.hands_total
    new.pass_left = state.pass_left
    new.first_game = state.first_game
    new.auto_announce = state.auto_announce
    new.hand_number = state.hand_number
    new.tiebreak = state.tiebreak
    new.dealer = state.dealer
    new.playing = state.playing
    new.character_views = state.character_views
    new.top = state.top
    new.turned = state.turned
    new.night = state.night
    new.clocks = state.clocks
    new.werewolf = state.werewolf
    new.wish = state.wish
    new.phase = state.phase
    new.turn = state.turn
    new.extra_turn = state.extra_turn
    new.ability = state.ability
    new.triggers = state.triggers
    new.wisher = state.wisher
    new.wish_reason = state.wish_reason
    new.drawn = state.drawn
    new.call_colour = state.call_colour
    new.answering = state.answering
    new.shown = state.shown
    new.pair = state.pair
    new.missed_mau_mau = state.missed_mau_mau
    new.idle = state.idle
    new.tiebreak_points = state.tiebreak_points
    new.history = state.history
    new.last_hands = state.last_hands
    new.final = state.final
    new.shuffles = state.shuffles
    new.over = state.over
    new.ended = state.ended
    new.characters = state.characters.copy()
    new.hands = list(map(list.copy, state.hands))
    new.sizes = state.sizes.copy()
    new.deck = state.deck.copy()
    new.pile_under = state.pile_under.copy()
    new.pot = state.pot.copy()
    new.totals = state.totals.copy()
    new.public = None
    return new
