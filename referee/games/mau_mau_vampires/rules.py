"""Mau Mau Vampires rules (``shared/rules/mau-mau-vampires.md``); each rule id appears where it
is enforced.

Every choice is a pending decision of the engine (:class:`referee.engine.game.Decision`): a
turn (MM-8), playing the card just drawn (MM-8), a triggered ability (MM-18 ... MM-22, one at a
time, for its owner), a chance to wish (MM-14; after (a) it is the receiver's), showing a card
of a called colour (MM-22 b: every opponent holding that colour at once) and sharing the two
cards of (g). After a card is drawn the drawer is always asked whether to play it, even when it
cannot be played, so the others do not learn whether it could.

Rulings this module makes where the rules file is silent:

* A missed announcement's penalty is drawn at once, before any triggered ability (MM-16: "at
  that moment"); a special card played as the last card draws its 2 cards after its effect
  (MM-17).
* Wrong announcements are refused: announcing Mau or Mau Mau when the action leaves a different
  number of cards, and any announcement with a special card played as the last card (MM-17: no
  announcement is owed). With ``announcements=auto`` the referee announces, and a command must
  leave ``announce`` unset.
* An ability that cannot be used at all (give or set aside a card with an empty hand) does not
  trigger. The receiver of (a) is offered the wish even when the giver just emptied their hand.
* **Blocked hand.** When nothing can be drawn (deck and pile under its top card are empty) and a
  full round of turns passes with every playing seat drawing nothing and playing nothing, the
  hand ends without an ender (no bonus) and is scored as usual. The rules allow such a hand to
  go on forever (e.g. a wished colour nobody can play); this bounds it.
* A tie-break hand (MM-24) is played by the tied seats only: they are "the players" for the
  hand size, clocks, left neighbours and character choices. Final scores are the totals plus
  every tie-break hand's points, so the tie-break order shows in the score.

>>> from referee.engine import Table
>>> table = Table.create("mau-mau-vampires", players=3, seed=b"doc")
>>> [len(table.view(seat).game.hand) for seat in range(3)]  # MM-6: 8 cards each
[8, 8, 8]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Any, NoReturn

from referee.engine.chance import deck_for, hidden_permutation, pick_for
from referee.engine.game import (
    CardsTaken,
    ChanceStep,
    Decision,
    DeckOrder,
    Game,
    GameConfig,
    GameInfo,
    OptionSpec,
    Rejection,
    Seat,
    SeatResult,
    Viewer,
    not_your_turn,
    rank_by_score,
    union_members,
)
from referee.games.mau_mau_vampires.characters import CHARACTERS, CharacterData
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CLOCK,
    CODES,
    COLOUR_OF,
    COLOURS,
    DECK_SIZE,
    FULL_DECK,
    HIDDEN,
    MAU_MAU_CARDS,
    SYMBOL_OF,
    WEREWOLF,
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
    CharacterView,
    Colour,
    ColourCalled,
    Command,
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
    HandScore,
    HandStarted,
    MauMauVampiresView,
    NoWish,
    Phase,
    PlayCard,
    PotTaken,
    SetAside,
    ShareDrawn,
    ShowCard,
    ShownCard,
    ShuffleReason,
    StartingCardTurned,
    SwapCharacters,
    TurnStarted,
    UseAbility,
    Wish,
    Wished,
    WishOffered,
    WishReason,
    code_of,
    colour_of,
    notation,
    parse_notation,
    symbol_of,
)

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


@dataclass(slots=True)
class MauMauVampiresState:
    """The whole table, hidden parts included. Only ``apply`` changes it.

    Cards are codes (:mod:`referee.games.mau_mau_vampires.model`); ``hands[seat]`` and
    ``pile_under`` count cards by code; ``deck`` lists codes with the **top card last**.
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
    hands: list[list[int]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    deck: list[int] = field(default_factory=list)
    #: MM-13: the discard pile under its top card (special cards included), by code.
    pile_under: list[int] = field(default_factory=lambda: [0] * CODES)
    top: int = -1
    #: MM-6: special cards turned while starting the pile, until shuffled back.
    turned: list[int] = field(default_factory=list)
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
    triggers: list[Ability] = field(default_factory=list)
    wisher: int = -1
    wish_reason: WishReason = WishReason.UNSPECIFIED
    drawn: int = -1
    call_colour: int = 0
    answering: list[int] = field(default_factory=list)
    #: MM-22 b: (seat, code) shown to the caller this turn.
    shown: list[tuple[int, int]] = field(default_factory=list)
    #: MM-22 g: the cards drawn to be shared.
    pair: list[int] = field(default_factory=list)
    #: MM-16: the acting player missed a Mau Mau in this turn: the hand goes on.
    missed_mau_mau: bool = False
    #: Turns in a row that drew nothing and played nothing (the blocked-hand bound).
    idle: int = 0
    totals: list[int] = field(default_factory=list)
    tiebreak_points: list[int] = field(default_factory=list)
    history: list[HandScore] = field(default_factory=list)
    #: Each seat's cards when the last hand ended (MM-23 counted them; each sees its own).
    last_hands: list[list[int]] = field(default_factory=list)
    final: list[int] = field(default_factory=list)
    shuffles: int = 0
    over: bool = False

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
                self.state.config, self.shuffles, [FULL_DECK_NOTATION_BY_CODE[c] for c in pool]
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


class MauMauVampires(Game[MauMauVampiresState]):
    info = GameInfo(
        type_id="mau-mau-vampires",
        name="Mau Mau Vampires",
        min_players=2,  # MM-5
        max_players=6,
        options=(
            OptionSpec("hands", "5", "MM-7: hands in the game", minimum=1, maximum=15),
            OptionSpec(
                "characters",
                "keep",
                "MM-7: characters stay with their player or pass to the left after each hand",
                allowed=("keep", "pass_left"),
            ),
            OptionSpec(
                "first_game",
                "false",
                "MM-5: use only the characters marked for a first game (at most 4 players)",
                allowed=("false", "true"),
            ),
            OptionSpec(
                "announcements",
                "required",
                "MM-16: players announce Mau / Mau Mau in their commands, or the referee does",
                allowed=("required", "auto"),
            ),
        ),
        rules="mau-mau-vampires.md",
        summary="Mau Mau with day and night characters, werewolves, clocks and wishes.",
    )
    command_types = union_members(Command)
    event_types = union_members(Event)
    view_type = MauMauVampiresView

    # --- setup -------------------------------------------------------------------------------

    def new_state(self, config: GameConfig) -> MauMauVampiresState:
        n = config.players
        first_game = config.options["first_game"] == "true"
        if first_game:
            available = sum(1 for c in CHARACTERS.characters if c.first_game)
            if n > available:
                raise ValueError(
                    f"option first_game has {available} characters for {n} players (MM-5: a "
                    "first game is for at most 4 players)"
                )
        elif n > len(CHARACTERS.characters):
            raise ValueError(f"the character data has {len(CHARACTERS.characters)} characters")
        if config.deal is not None:
            for index, deck in enumerate(config.deal.decks):
                _check_fixed_deck(index, deck)
        return MauMauVampiresState(
            config=config,
            players=n,
            hands_total=int(config.options["hands"]),
            pass_left=config.options["characters"] == "pass_left",
            first_game=first_game,
            auto_announce=config.options["announcements"] == "auto",
            hands=[[0] * CODES for _ in range(n)],
            sizes=[0] * n,
            totals=[0] * n,
            tiebreak_points=[0] * n,
        )

    def start(self, state: MauMauVampiresState) -> list[Any]:
        # MM-6: a random dealer; MM-5: a random character each (picks documented in model.py).
        config = state.config
        dealer = pick_for(config, 0, state.players)
        pool = [
            index
            for index, character in enumerate(CHARACTERS.characters)
            if character.first_game or not state.first_game
        ]
        characters = [
            pool.pop(pick_for(config, 1 + seat, len(pool))) for seat in range(state.players)
        ]
        draft = _Draft(state)
        self._start_hand(draft, 1, 0, dealer, tuple(range(state.players)), characters)
        return draft.events

    def _start_hand(
        self,
        d: _Draft,
        hand_number: int,
        tiebreak: int,
        dealer: int,
        playing: tuple[int, ...],
        characters: Sequence[int],
    ) -> None:
        """MM-6, MM-7: shuffle all 55 cards, deal, turn the first Mau Mau card; the player left
        of the dealer starts."""
        size = hand_size_for(len(playing))
        d.emit(
            HandStarted(
                hand_number=hand_number,
                tiebreak=tiebreak,
                dealer=dealer,
                playing=playing,
                characters=tuple(CHARACTERS.characters[c].id for c in characters),
                hand_size=size,
            )
        )
        order = d.shuffle(FULL_DECK, ShuffleReason.NEW_HAND)
        position = 0
        for seat in playing:
            d.emit(CardsDealt(seat, size, _sorted_cards(order[position : position + size])))
            position += size
        turned: list[int] = []
        while order[position] >= MAU_MAU_CARDS:
            turned.append(order[position])
            d.emit(StartingCardTurned(CARDS[order[position]]))
            position += 1
        d.emit(StartingCardTurned(CARDS[order[position]]))
        position += 1
        if turned:
            d.shuffle([*order[position:], *turned], ShuffleReason.SPECIALS_RETURNED)
        first = dealer
        for step in range(1, len(d.sizes) + 1):
            first = (dealer + step) % len(d.sizes)
            if first in playing:
                break
        d.emit(_STARTED[first])

    # --- decisions ---------------------------------------------------------------------------

    def decisions(self, state: MauMauVampiresState) -> tuple[Decision, ...]:
        phase = state.phase
        if phase is Phase.TURN:
            return (Decision(state.turn, "turn", "MM-8"),)
        if phase is Phase.PLAY_DRAWN:
            return (Decision(state.turn, "play_drawn", "MM-8"),)
        if phase is Phase.ABILITY:
            rule = "MM-19" if state.ability >= Ability.VAMPIRE_BITE else "MM-22"
            return (Decision(state.turn, _ABILITY_KINDS[state.ability], rule),)
        if phase is Phase.WISH:
            rule = "MM-22" if state.wish_reason is WishReason.CARD_RECEIVED else "MM-14"
            return (Decision(state.wisher, "wish", rule),)
        if phase is Phase.ANSWER_CALL:
            return tuple(Decision(s, "show_colour", "MM-22") for s in sorted(state.answering))
        if phase is Phase.SHARE_DRAWN:
            return (Decision(state.turn, "share_drawn", "MM-22"),)
        return ()

    def pending(self, state: MauMauVampiresState) -> tuple[Seat, ...]:
        """The seats of :meth:`decisions`, without building them (asked at every step)."""
        phase = state.phase
        if phase in _TURN_PHASES:
            return (state.turn,)
        if phase is _WISH:
            return (state.wisher,)
        if phase is _ANSWER_CALL:
            return tuple(sorted(state.answering))
        return ()

    def decide(self, state: MauMauVampiresState, seat: Seat, command: Any) -> list[Any]:
        phase = state.phase
        if phase in _TURN_PHASES:
            deciding = seat == state.turn
        elif phase is _WISH:
            deciding = seat == state.wisher
        else:
            deciding = phase is _ANSWER_CALL and seat in state.answering
        if not deciding:
            decisions = self.decisions(state)
            if decisions and isinstance(command, _ABILITY_COMMANDS):
                raise Rejection(
                    "MM-18",
                    f"seat {seat} has no triggered ability to use: abilities trigger only on "
                    "the owner's own Mau Mau cards, without a werewolf on the character",
                    "precondition",
                )
            raise not_your_turn(seat, tuple(d.seat for d in decisions), _rule_of(decisions))
        if id(command) not in _PREBUILT:
            _check_shape(command)
        if phase is _TURN:
            # The usual cases first, without a draft: a card drawn from a non-empty deck.
            if isinstance(command, DrawCard) and state.deck:
                return [_DRAWN_ON_TURN[seat][state.deck[-1]]]
        elif phase is _PLAY_DRAWN and isinstance(command, EndTurn):
            return [_STARTED[state.next_playing(seat)]]
        d = _Draft(state)
        if phase is Phase.TURN:
            self._decide_turn(state, d, seat, command)
        elif phase is Phase.PLAY_DRAWN:
            self._decide_play_drawn(state, d, seat, command)
        elif phase is Phase.ABILITY:
            self._decide_ability(state, d, seat, command)
        elif phase is Phase.WISH:
            self._decide_wish(state, d, seat, command)
        elif phase is Phase.ANSWER_CALL:
            self._decide_answer(state, d, seat, command)
        else:
            self._decide_share(state, d, seat, command)
        return d.events

    # --- a turn (MM-8 ... MM-12) -------------------------------------------------------------

    def _decide_turn(self, state: MauMauVampiresState, d: _Draft, seat: int, command: Any) -> None:
        if isinstance(command, DrawCard):
            # MM-8: draw 1; the drawer then decides whether to play it (PLAY_DRAWN).
            if d.draw(seat, 1, DrawReason.TURN) == 0:
                self._idle_turn_over(state, d, seat)
            return
        if isinstance(command, PlayCard):
            self._play(state, d, seat, command, code_of(command.card))
            return
        _wrong_phase(state, command)

    def _decide_play_drawn(
        self, state: MauMauVampiresState, d: _Draft, seat: int, command: Any
    ) -> None:
        if isinstance(command, EndTurn):
            d.emit(_STARTED[state.next_playing(seat)])
            return
        if isinstance(command, PlayCard):
            code = code_of(command.card)
            if code != state.drawn:
                raise Rejection(
                    "MM-8", f"after drawing you may play only the card drawn, {_name(state.drawn)}"
                )
            self._play(state, d, seat, command, code)
            return
        if isinstance(command, DrawCard):
            raise Rejection("MM-8", "you have drawn your card: play it or end your turn")
        _wrong_phase(state, command)

    def _idle_turn_over(self, state: MauMauVampiresState, d: _Draft, seat: int) -> None:
        """A turn that drew nothing (MM-15) ends; a full round of them blocks the hand."""
        d.idle += 1
        if d.idle >= len(state.playing):
            self._end_hand(state, d, None)
        else:
            d.emit(_STARTED[state.next_playing(seat)])

    def _play(
        self, state: MauMauVampiresState, d: _Draft, seat: int, command: PlayCard, code: int
    ) -> None:
        hand = state.hands[seat]
        if not hand[code]:
            raise Rejection("MM-8", f"you hold no {_name(code)}")
        if code != WEREWOLF and command.werewolf_seat is not None:
            raise Rejection("MM-11", "werewolf_seat is only for playing a Werewolf")
        left = d.sizes[seat] - 1
        if code < MAU_MAU_CARDS:
            self._check_playable(state, code)
            owed = owed_for(left)
            announced = _announced(state, command.announce, owed, "MM-16")
            d.emit(_PLAYED[seat][code][announced][owed])
            d.sizes[seat] = left
            d.bury(state.top)
            _penalty(d, seat, owed, announced)
            # MM-18 ... MM-20: the character may trigger.
            if not self._next_trigger(state, d, seat, _raw_triggers(state, seat, code)):
                self._end_action(state, d, seat, extra=False)
            return
        # MM-10: a special card is playable whatever the top card is.
        # MM-17: played as the last card, nothing is owed (or accepted) as announcement.
        owed = owed_for(left) if left > 0 else _NONE
        rule = "MM-16" if left > 0 else "MM-17"
        target = command.werewolf_seat
        replaced = ""
        if code == WEREWOLF:
            target = self._check_werewolf_target(state, target)
            if state.werewolf >= 0:
                replaced = CHARACTERS.characters[state.werewolf].id
        announced = _announced(state, command.announce, owed, rule)
        d.emit(CardPlayed(seat, CARDS[code], announced, owed, target, replaced))
        d.sizes[seat] = left
        _penalty(d, seat, owed, announced)
        wish_reason = WishReason.UNSPECIFIED
        if code == WEREWOLF and replaced:
            # MM-11: never more than one werewolf: the old one is discarded (MM-13: under the
            # top card) and the player may wish.
            d.bury(WEREWOLF)
            wish_reason = WishReason.WEREWOLF_REPLACED
        elif code == CLOCK and state.clocks + 1 == len(state.playing):
            # MM-12: as many clocks as players: turn Day/Night and every character; discard
            # the werewolf and the clocks; the player may wish.
            werewolf = CHARACTERS.characters[state.werewolf].id if state.werewolf >= 0 else ""
            d.emit(DayNightTurned(not state.night, state.clocks + 1, werewolf))
            d.bury(CLOCK, state.clocks + 1)
            if werewolf:
                d.bury(WEREWOLF)
            wish_reason = WishReason.DAY_NIGHT_TURNED
        if wish_reason is not WishReason.UNSPECIFIED:
            d.emit(WishOffered(seat, wish_reason))  # MM-14
            return
        self._finish_special(state, d, seat)

    @staticmethod
    def _check_playable(state: MauMauVampiresState, code: int) -> None:
        """MM-9, MM-14: same colour or symbol as the top card; while a wish is open, the wished
        colour (any symbol)."""
        if _playable(state, code):
            return
        colour = colour_of(code)
        if state.wish:
            if colour != state.wish:
                raise Rejection(
                    "MM-9",
                    f"{Colour(state.wish).name.lower()} is wished (MM-14): play a "
                    f"{Colour(state.wish).name.lower()} card, a special card, or draw",
                )
            return
        if colour != colour_of(state.top) and symbol_of(code) != symbol_of(state.top):
            raise Rejection(
                "MM-9",
                f"{_name(code)} matches neither the colour nor the symbol of the top card "
                f"{_name(state.top)}",
            )

    @staticmethod
    def _check_werewolf_target(state: MauMauVampiresState, target: int | None) -> int:
        """MM-11: on a character (of a seat playing this hand) that has no werewolf."""
        if target is None:
            raise Rejection("MM-11", "a Werewolf needs werewolf_seat: whose character gets it")
        if target not in state.playing:
            raise Rejection("MM-11", f"seat {target} has no character in this hand")
        if state.characters[target] == state.werewolf:
            raise Rejection("MM-11", f"the character of seat {target} already carries a werewolf")
        return target

    def _finish_special(self, state: MauMauVampiresState, d: _Draft, seat: int) -> None:
        """The rest of a special card's effect: take the pot (MM-22 h), then the 2 penalty
        cards of a special card played last (MM-17); then the turn ends."""
        last = d.sizes[seat] == 0
        if state.pot:
            # Sorted: which card came from whose hand or from the deck stays unknown (MM-28).
            d.emit(PotTaken(seat, len(state.pot), _sorted_cards([c for c, _ in state.pot])))
            d.sizes[seat] += len(state.pot)
        if last:
            d.draw(seat, 2, DrawReason.SPECIAL_LAST_CARD)
        d.emit(_STARTED[state.next_playing(seat)])

    # --- abilities (MM-18 ... MM-22) ---------------------------------------------------------

    @staticmethod
    def _usable(d: _Draft, seat: int, ability: Ability) -> bool:
        return ability not in _NEEDS_A_CARD or d.sizes[seat] > 0

    def _next_trigger(
        self, state: MauMauVampiresState, d: _Draft, seat: int, triggers: Sequence[Ability]
    ) -> bool:
        """Ask the owner about the next usable triggered ability; ``False`` if none is left."""
        for ability in triggers:
            if self._usable(d, seat, ability):
                character = CHARACTERS.characters[d.characters[seat]]
                d.emit(AbilityTriggered(seat, ability, character.id))
                return True
        return False

    def _end_action(self, state: MauMauVampiresState, d: _Draft, seat: int, *, extra: bool) -> None:
        """The play and its abilities are resolved: the hand ends if the player has no cards
        (MM-23; not after a missed Mau Mau, MM-16), else another turn (MM-21) or the next."""
        if d.sizes[seat] == 0 and not d.missed:
            self._end_hand(state, d, seat)
        elif extra:
            d.emit(TurnStarted(seat, True))
        else:
            d.emit(_STARTED[state.next_playing(seat)])

    def _after_ability(
        self, state: MauMauVampiresState, d: _Draft, seat: int, *, extra: bool = False
    ) -> None:
        if not self._next_trigger(state, d, seat, state.triggers):
            self._end_action(state, d, seat, extra=extra)

    def _decide_ability(
        self, state: MauMauVampiresState, d: _Draft, seat: int, command: Any
    ) -> None:
        ability = state.ability
        rule = "MM-19" if ability >= Ability.VAMPIRE_BITE else "MM-22"
        if isinstance(command, DeclineAbility):
            d.emit(AbilityDeclined(seat, ability))  # MM-18: using an ability is optional
            self._after_ability(state, d, seat)
            return
        if isinstance(command, UseAbility):
            if ability not in (
                Ability.VAMPIRE_BITE,
                Ability.OPPONENTS_DRAW_ONE,
                Ability.FEWEST_DRAW_TWO,
                Ability.DRAW_TWO_AND_SHARE,
            ):
                raise Rejection(rule, f"{_ability_name(ability)} needs a choice: {_how(ability)}")
            d.emit(AbilityUsed(seat, ability))
            self._use(state, d, seat, ability)
            return
        if isinstance(command, GiveCard) and ability in (Ability.VAMPIRE_GIFT, Ability.GIVE_LEFT):
            self._give(state, d, seat, command, ability)
            return
        if isinstance(command, CallColour) and ability is Ability.CALL_COLOUR:
            self._call(state, d, seat, command)
            return
        if isinstance(command, Wish) and ability is Ability.WISH_AND_PLAY_AGAIN:
            if command.colour not in COLOURS:
                raise Rejection("MM-22", "wish red, blue, green or purple")
            d.emit(Wished(seat, Colour(command.colour)))  # MM-22 c, MM-14
            self._after_ability(state, d, seat, extra=True)
            return
        if isinstance(command, SwapCharacters) and ability is Ability.SWAP_AND_PLAY_AGAIN:
            self._swap(state, d, seat, command.seat)
            return
        if isinstance(command, SetAside) and ability is Ability.SET_ASIDE_POT:
            self._set_aside(state, d, seat, command)
            return
        raise Rejection(
            rule,
            f"{type(command).__name__} does not use {_ability_name(ability)}: {_how(ability)}, "
            "or DeclineAbility",
        )

    def _use(self, state: MauMauVampiresState, d: _Draft, seat: int, ability: Ability) -> None:
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
        else:  # MM-22 g: draw 2 and look at them; sharing them is the next decision
            if d.draw(seat, 2, DrawReason.DRAW_TWO_AND_SHARE) > 0:
                return
        self._after_ability(state, d, seat)

    def _give(
        self,
        state: MauMauVampiresState,
        d: _Draft,
        seat: int,
        command: GiveCard,
        ability: Ability,
    ) -> None:
        rule = "MM-19" if ability is Ability.VAMPIRE_GIFT else "MM-22"
        to = command.to_seat
        if to == seat:
            raise Rejection(rule, "you cannot give a card to yourself")
        if ability is Ability.GIVE_LEFT and to != state.next_playing(seat):
            raise Rejection(
                rule, f"(a) gives to your left neighbour, seat {state.next_playing(seat)}"
            )
        if to not in state.playing:
            raise Rejection(rule, f"seat {to} does not play this hand")
        code = code_of(command.card)
        if not state.hands[seat][code]:
            raise Rejection(rule, f"you hold no {_name(code)}")
        left = d.sizes[seat] - 1
        owed = owed_for(left)
        announced = _announced(state, command.announce, owed, "MM-16")
        d.emit(CardGiven(seat, to, CARDS[code], ability, announced, owed))
        d.sizes[seat] = left
        d.sizes[to] += 1
        _penalty(d, seat, owed, announced)
        if ability is Ability.GIVE_LEFT:
            d.emit(WishOffered(to, WishReason.CARD_RECEIVED))  # MM-22 a: the receiver may wish
            return
        self._after_ability(state, d, seat)

    def _call(self, state: MauMauVampiresState, d: _Draft, seat: int, command: CallColour) -> None:
        """MM-22 b: opponents holding the colour must show one; the others draw 2."""
        colour = command.colour
        if colour not in COLOURS:
            raise Rejection("MM-22", "call red, blue, green or purple")
        opponents = _opponents(state, seat)
        first = (colour - 1) * 11
        holders = tuple(o for o in opponents if any(state.hands[o][first : first + 11]))
        d.emit(ColourCalled(seat, Colour(colour), holders))
        for other in opponents:
            if other not in holders:
                d.draw(other, 2, DrawReason.CALLED_COLOUR)
        if not holders:
            self._after_ability(state, d, seat)

    def _swap(self, state: MauMauVampiresState, d: _Draft, seat: int, other: int) -> None:
        """MM-22 d: swap characters (a werewolf stays on its card), then another turn."""
        if other == seat:
            raise Rejection("MM-22", "swap with another player")
        if other not in state.playing:
            raise Rejection("MM-22", f"seat {other} does not play this hand")
        characters = list(d.characters)
        characters[seat], characters[other] = characters[other], characters[seat]
        d.characters = characters
        table = CHARACTERS.characters
        d.emit(
            CharactersSwapped(seat, other, table[characters[seat]].id, table[characters[other]].id)
        )
        self._after_ability(state, d, seat, extra=True)

    def _set_aside(
        self, state: MauMauVampiresState, d: _Draft, seat: int, command: SetAside
    ) -> None:
        """MM-22 h: 1 card from hand and 1 from the deck (unseen) go into the pot."""
        code = code_of(command.card)
        if not state.hands[seat][code]:
            raise Rejection("MM-22", f"you hold no {_name(code)}")
        left = d.sizes[seat] - 1
        owed = owed_for(left)
        announced = _announced(state, command.announce, owed, "MM-16")
        from_deck = d.take()
        deck_cards = () if from_deck is None else (CARDS[from_deck],)
        pot_size = len(state.pot) + 1 + len(deck_cards)
        d.emit(
            CardSetAside(seat, CARDS[code], len(deck_cards), deck_cards, announced, owed, pot_size)
        )
        d.sizes[seat] = left
        _penalty(d, seat, owed, announced)
        self._after_ability(state, d, seat)

    # --- other decisions ---------------------------------------------------------------------

    def _decide_wish(self, state: MauMauVampiresState, d: _Draft, seat: int, command: Any) -> None:
        rule = "MM-22" if state.wish_reason is WishReason.CARD_RECEIVED else "MM-14"
        if isinstance(command, Wish):
            if command.colour not in COLOURS:
                raise Rejection(rule, "wish red, blue, green or purple")
            d.emit(Wished(seat, Colour(command.colour)))
        elif isinstance(command, NoWish):
            d.emit(Wished(seat, Colour.UNSPECIFIED))
        else:
            raise Rejection(rule, "you may wish a colour: Wish or NoWish")
        if state.wish_reason is WishReason.CARD_RECEIVED:
            self._after_ability(state, d, state.turn)
        else:
            self._finish_special(state, d, state.turn)

    def _decide_answer(
        self, state: MauMauVampiresState, d: _Draft, seat: int, command: Any
    ) -> None:
        colour = Colour(state.call_colour).name.lower()
        if not isinstance(command, ShowCard):
            raise Rejection(
                "MM-22",
                f"you hold {colour}: show the caller a {colour} card (only a player without "
                "one draws 2)",
            )
        code = code_of(command.card)
        if colour_of(code) != state.call_colour:
            raise Rejection("MM-22", f"show a {colour} card: {colour} was called")
        if not state.hands[seat][code]:
            raise Rejection("MM-22", f"you hold no {_name(code)}")
        d.emit(CardShown(seat, state.turn, CARDS[code]))
        if len(state.answering) == 1:
            self._after_ability(state, d, state.turn)

    def _decide_share(self, state: MauMauVampiresState, d: _Draft, seat: int, command: Any) -> None:
        if not isinstance(command, ShareDrawn):
            raise Rejection("MM-22", "give or keep the cards you drew (ShareDrawn)")
        pair = state.pair
        to_seats = command.to_seats
        if len(to_seats) != len(pair):
            raise Rejection(
                "MM-22",
                f"name a receiver (your own seat to keep it) for each of {len(pair)} card(s)",
            )
        for to in to_seats:
            if to not in state.playing:
                raise Rejection("MM-22", f"seat {to} does not play this hand")
        kept = sum(1 for to in to_seats if to == seat)
        left = d.sizes[seat] + kept
        # MM-16: giving cards away is an action that may leave 1 or 0 cards.
        owed = owed_for(left) if kept < len(pair) else _NONE
        announced = _announced(state, command.announce, owed, "MM-16")
        # MM-28: the receivers are listed by seat (then card), never in the order of the
        # cards: that order is the drawer's secret, and a receiver (or a spectator) would learn
        # from it how the hidden cards compare (MM-22 g).
        given = sorted(zip(to_seats, pair, strict=True))
        d.emit(
            DrawnShared(
                seat,
                tuple(to for to, _ in given),
                tuple(CARDS[code] for _, code in given),
                announced,
                owed,
            )
        )
        for to in to_seats:
            d.sizes[to] += 1
        _penalty(d, seat, owed, announced)
        self._after_ability(state, d, seat)

    # --- end of a hand and of the game (MM-23, MM-24) ----------------------------------------

    def _end_hand(self, state: MauMauVampiresState, d: _Draft, ender: int | None) -> None:
        n = state.players
        playing = state.playing
        sizes = d.sizes
        in_hands = sum(sizes[s] for s in playing)
        scores = [0] * n
        for s in playing:
            # MM-23: 1 point per card in the other players' hands; 2 bonus points to the ender.
            scores[s] = in_hands - sizes[s] + (2 if s == ender else 0)
        totals = list(state.totals)
        points = list(state.tiebreak_points)
        target = totals if state.tiebreak == 0 else points
        for s in playing:
            target[s] += scores[s]
        d.emit(
            HandEnded(
                hand_number=state.hand_number,
                tiebreak=state.tiebreak,
                ender=ender,
                blocked=ender is None,
                scores=tuple(scores),
                cards_left=tuple(sizes),
                totals=tuple(totals),
                tiebreak_points=tuple(points),
            )
        )
        characters = list(d.characters)
        if state.pass_left:  # MM-7
            characters = [characters[(s - 1) % n] for s in range(n)]
        if state.tiebreak == 0 and state.hand_number < state.hands_total:
            playing_next: tuple[int, ...] = tuple(range(n))
            tiebreak = 0
        else:
            # MM-24: the highest total wins; tied leaders play a tie-break hand, at most 3.
            if state.tiebreak == 0:
                best = max(totals)
                leaders = tuple(s for s in range(n) if totals[s] == best)
            else:
                best = max(scores[s] for s in playing)
                leaders = tuple(s for s in playing if scores[s] == best)
            if len(leaders) == 1 or state.tiebreak == MAX_TIEBREAKS:
                final = tuple(t + p for t, p in zip(totals, points, strict=True))
                ranks = tuple(r.rank for r in rank_by_score(final, lower_wins=False))
                d.emit(GameEnded(final, ranks))
                return
            playing_next = leaders
            tiebreak = state.tiebreak + 1
        dealer = state.dealer
        for step in range(1, n + 1):  # MM-7: the next dealer is left of the last one
            dealer = (state.dealer + step) % n
            if dealer in playing_next:
                break
        self._start_hand(d, state.hand_number + 1, tiebreak, dealer, playing_next, characters)

    # --- applying ----------------------------------------------------------------------------

    def apply(self, state: MauMauVampiresState, event: Any) -> MauMauVampiresState:
        _APPLY[type(event)](state, event)
        return state

    # --- what a seat may do ------------------------------------------------------------------

    def legal_commands(self, state: MauMauVampiresState, seat: Seat) -> list[Any]:
        phase = state.phase
        if phase is _TURN and seat == state.turn:
            hand = state.hands[seat]
            # MM-9, MM-14: only these codes can match the top card or the wished colour.
            wish = state.wish
            candidates = _OF_COLOUR[wish] if wish else _MATCHING[state.top]
            left = state.sizes[seat] - 1
            moves: list[Any]
            if state.auto_announce or not 0 <= left <= 1:  # nothing owed (MM-16)
                moves = [_DRAW, *[_PLAYS[code][0] for code in candidates if hand[code]]]
            else:
                announcements = (_OWED[left], _NONE)
                moves = [_DRAW]
                for code in candidates:
                    if hand[code]:
                        plays = _PLAYS[code]
                        moves.extend([plays[a] for a in announcements])
            if hand[CLOCK]:
                moves.extend(self._plays(state, seat, CLOCK))
            if hand[WEREWOLF]:
                moves.extend(self._plays(state, seat, WEREWOLF))
            return moves
        if phase is Phase.PLAY_DRAWN and seat == state.turn:
            return [_END_TURN, *self._plays(state, seat, state.drawn)]
        if phase is Phase.ABILITY and seat == state.turn:
            return [_DECLINE, *self._ability_moves(state, seat)]
        if phase is Phase.WISH and seat == state.wisher:
            return [_NO_WISH, *_WISHES]
        if phase is Phase.ANSWER_CALL and seat in state.answering:
            first = (state.call_colour - 1) * 11
            hand = state.hands[seat]
            return [ShowCard(CARDS[c]) for c in range(first, first + 11) if hand[c]]
        if phase is Phase.SHARE_DRAWN and seat == state.turn:
            return self._share_moves(state, seat)
        return []

    def _announcements(
        self, state: MauMauVampiresState, owed: Announcement
    ) -> tuple[Announcement, ...]:
        """Accepted announcements, the right one first: saying nothing is a legal (penalised)
        choice (MM-16); with ``announcements=auto`` the referee speaks."""
        if state.auto_announce or owed is _NONE:
            return _SAY_NOTHING
        return (owed, _NONE)

    def _plays(self, state: MauMauVampiresState, seat: int, code: int) -> list[Any]:
        left = state.sizes[seat] - 1
        if code < MAU_MAU_CARDS:
            if not _playable(state, code):
                return []
            owed = owed_for(left)
        else:
            owed = owed_for(left) if left > 0 else _NONE  # MM-17
        announcements = self._announcements(state, owed)
        if code == WEREWOLF:
            return [
                _WEREWOLF_PLAYS[target][a]
                for target in state.playing
                if state.characters[target] != state.werewolf
                for a in announcements
            ]
        plays = _PLAYS[code]
        return [plays[a] for a in announcements]

    def _ability_moves(self, state: MauMauVampiresState, seat: int) -> list[Any]:
        ability = state.ability
        if ability in (
            Ability.VAMPIRE_BITE,
            Ability.OPPONENTS_DRAW_ONE,
            Ability.FEWEST_DRAW_TWO,
            Ability.DRAW_TWO_AND_SHARE,
        ):
            return [_USE]
        if ability is Ability.CALL_COLOUR:
            return list(_CALLS)
        if ability is Ability.WISH_AND_PLAY_AGAIN:
            return list(_WISHES)
        if ability is Ability.SWAP_AND_PLAY_AGAIN:
            return [SwapCharacters(o) for o in _opponents(state, seat)]
        hand = state.hands[seat]
        announcements = self._announcements(state, owed_for(state.sizes[seat] - 1))
        held = [c for c in range(CODES) if hand[c]]
        if ability is Ability.SET_ASIDE_POT:
            return [SetAside(CARDS[c], a) for c in held for a in announcements]
        receivers = (
            [state.next_playing(seat)] if ability is Ability.GIVE_LEFT else _opponents(state, seat)
        )
        return [GiveCard(to, CARDS[c], a) for to in receivers for c in held for a in announcements]

    def _share_moves(self, state: MauMauVampiresState, seat: int) -> list[Any]:
        order = [seat, *_opponents(state, seat)]  # keeping comes first
        combos: list[tuple[int, ...]] = [()]
        for _ in state.pair:
            combos = [(*combo, to) for combo in combos for to in order]
        moves: list[Any] = []
        for combo in combos:
            kept = sum(1 for to in combo if to == seat)
            owed = owed_for(state.sizes[seat] + kept) if kept < len(combo) else _NONE
            moves.extend(ShareDrawn(combo, a) for a in self._announcements(state, owed))
        return moves

    def command_space(self, state: MauMauVampiresState, seat: Seat) -> list[Any]:
        return list(_command_space(state.players))

    # --- what a seat may see -----------------------------------------------------------------

    def view(self, state: MauMauVampiresState, viewer: Viewer) -> MauMauVampiresView:
        mine = viewer is not None
        hand: tuple[Card, ...] = ()
        if viewer is not None:
            hand = _cards_of(state.hands[viewer])
        is_turn = mine and viewer == state.turn
        phase = state.phase
        table = CHARACTERS.characters
        characters = tuple(
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
        werewolf_seat = next(
            (s for s, index in enumerate(state.characters) if index == state.werewolf), None
        )
        return MauMauVampiresView(
            hand_number=state.hand_number,
            hands=state.hands_total,
            tiebreak=state.tiebreak,
            dealer=state.dealer,
            playing=state.playing,
            hand=hand,
            hand_sizes=tuple(state.sizes),
            deck_size=len(state.deck),
            pile_size=sum(state.pile_under) + (1 if state.top >= 0 else 0),
            top=CARDS[state.top] if state.top >= 0 else HIDDEN,
            wish=Colour(state.wish),
            night=state.night,
            clocks=state.clocks,
            werewolf_seat=werewolf_seat,
            characters=characters,
            symbols=CHARACTERS.symbols,
            pot_size=len(state.pot),
            pot_yours=tuple(CARDS[c] for c, by in state.pot if mine and by == viewer),
            phase=phase,
            turn=None if state.over else state.turn,
            extra_turn=state.extra_turn,
            ability=state.ability,
            wisher=state.wisher if phase is Phase.WISH else None,
            called_colour=Colour(state.call_colour),
            answering=tuple(sorted(state.answering)),
            shown_to_you=tuple(ShownCard(s, CARDS[c]) for s, c in state.shown) if is_turn else (),
            drawn=(CARDS[state.drawn],) if is_turn and phase is Phase.PLAY_DRAWN else (),
            to_share=tuple(CARDS[c] for c in state.pair) if is_turn else (),
            to_share_count=len(state.pair),
            totals=tuple(state.totals),
            tiebreak_points=tuple(state.tiebreak_points),
            hand_scores=tuple(state.history),
            last_hand=_cards_of(state.last_hands[viewer])
            if viewer is not None and state.last_hands
            else (),
            characters_option="pass_left" if state.pass_left else "keep",
            announcements="auto" if state.auto_announce else "required",
            first_game=state.first_game,
        )

    def chance_steps(self, config: GameConfig, event: Any) -> Sequence[ChanceStep]:
        """MM-5/MM-15: every shuffle becomes the deck, taken from the top: dealt and drawn
        cards by their seat (both cards of (g) by the drawer), the starting card by everyone
        (MM-6), the cards set aside from the deck by no one (MM-22 h)."""
        kind = type(event)
        if kind is DeckShuffled:
            cards = tuple(FULL_DECK_NOTATION_BY_CODE[code_of(c)] for c in event.order)
            return (DeckOrder(event.shuffle, cards),)
        if kind is CardsDealt or kind is CardsDrawn:
            return (CardsTaken(event.count, (event.seat,)),)
        if kind is StartingCardTurned:
            return (CardsTaken(1, None),)
        if kind is CardSetAside:
            return (CardsTaken(event.deck_count, ()),)
        return ()

    def redact(self, event: Any, viewer: Viewer) -> Any:
        """MM-26 ... MM-28: cards drawn, dealt or taken are seen by their receiver; a given card
        by giver and receiver; a shown card by shower and caller; the deck order and the pot's
        deck cards by no one."""
        kind = type(event)
        if kind is DeckShuffled:
            return replace(event, order=())
        if kind is CardsDealt or kind is CardsDrawn or kind is PotTaken:
            return event if event.seat == viewer else replace(event, cards=())
        if kind is CardGiven:
            if viewer in (event.from_seat, event.to_seat):
                return event
            return replace(event, card=HIDDEN)
        if kind is CardShown:
            return event if viewer in (event.seat, event.to_seat) else replace(event, card=HIDDEN)
        if kind is DrawnShared:
            if viewer == event.seat:
                return event
            cards = tuple(
                card if to == viewer else HIDDEN
                for card, to in zip(event.cards, event.to_seats, strict=True)
            )
            return replace(event, cards=cards)
        if kind is CardSetAside:
            return replace(
                event, card=event.card if viewer == event.seat else HIDDEN, deck_cards=()
            )
        return event

    def results(self, state: MauMauVampiresState) -> tuple[SeatResult, ...] | None:
        if not state.over:
            return None
        return rank_by_score(state.final, lower_wins=False)  # MM-24

    # --- support for the conformance suite ---------------------------------------------------

    def hidden_variant(
        self, state: MauMauVampiresState, viewer: Viewer, salt: int
    ) -> MauMauVampiresState:
        """Re-deal everything ``viewer`` cannot see (MM-28): other hands, the deck order, the
        pot (but the viewer's own cards in it), the cards of (g) and the card just drawn of
        another seat, the cards shown to another caller. What the view shows stays: cards shown
        to the viewer stay in the showers' hands, and a seat that must show a colour keeps a
        card of it."""
        other = self.copy_state(state)
        pool: list[int] = []
        # Slots to refill: (zone, seat or index, colour the card must have or 0).
        slots: list[tuple[str, int, int]] = []
        answering = state.phase is Phase.ANSWER_CALL
        caller = state.turn if answering else -1
        for seat in state.playing:
            if seat == viewer:
                continue
            counts = list(state.hands[seat])
            keep = [0] * CODES
            if state.phase is Phase.PLAY_DRAWN and seat == state.turn:
                counts[state.drawn] -= 1
                pool.append(state.drawn)
                slots.append(("drawn", seat, 0))
            if answering:
                for index, (shower, code) in enumerate(state.shown):
                    if shower != seat:
                        continue
                    counts[code] -= 1
                    if viewer == caller:
                        keep[code] += 1
                    else:
                        pool.append(code)
                        slots.append(("shown", index, state.call_colour))
                if seat in state.answering:
                    first = (state.call_colour - 1) * 11
                    witness = next(c for c in range(first, first + 11) if counts[c])
                    counts[witness] -= 1
                    pool.append(witness)
                    slots.append(("witness", seat, state.call_colour))
            for code in range(CODES):
                pool.extend([code] * counts[code])
                slots.extend([("hand", seat, 0)] * counts[code])
            other.hands[seat] = keep
        pool.extend(state.deck)
        slots.extend(("deck", i, 0) for i in range(len(state.deck)))
        for index, (code, by) in enumerate(state.pot):
            if viewer is None or by != viewer:
                pool.append(code)
                slots.append(("pot", index, 0))
        if state.phase is Phase.SHARE_DRAWN and viewer != state.turn:
            pool.extend(state.pair)
            slots.extend(("pair", i, 0) for i in range(len(state.pair)))
        # The deck, the pot and the cards of (g) are ordered zones (their order is hidden too).
        zones = [zone if zone in ("deck", "pot", "pair") else None for zone, _, _ in slots]
        pool = hidden_permutation(pool, zones, salt)
        assigned = dict(enumerate(pool))
        if any(colour and colour_of(pool[i]) != colour for i, (_, _, colour) in enumerate(slots)):
            # Colour-bound slots first: the pool holds their original cards, so a match exists.
            order = sorted(range(len(slots)), key=lambda i: slots[i][2] == 0)
            for i in order:
                colour = slots[i][2]
                pick = next(k for k, c in enumerate(pool) if not colour or colour_of(c) == colour)
                assigned[i] = pool.pop(pick)
        other.pot = list(state.pot)
        other.shown = list(state.shown)
        for i, (zone, where, _) in enumerate(slots):
            code = assigned[i]
            if zone == "deck":
                other.deck[where] = code
            elif zone == "pot":
                other.pot[where] = (code, state.pot[where][1])
            elif zone == "pair":
                other.pair[where] = code
            elif zone == "shown":
                shower = state.shown[where][0]
                other.shown[where] = (shower, code)
                other.hands[shower][code] += 1
            else:
                other.hands[where][code] += 1
                if zone == "drawn":
                    other.drawn = code
        # The cards of (g) stay in whatever order they were dealt here: only their drawer sees
        # them, so no event may depend on their order (MM-28).
        return other

    def copy_state(self, state: MauMauVampiresState) -> MauMauVampiresState:
        return replace(
            state,
            characters=list(state.characters),
            hands=[list(h) for h in state.hands],
            sizes=list(state.sizes),
            deck=list(state.deck),
            pile_under=list(state.pile_under),
            turned=list(state.turned),
            pot=list(state.pot),
            triggers=list(state.triggers),
            answering=list(state.answering),
            shown=list(state.shown),
            pair=list(state.pair),
            totals=list(state.totals),
            tiebreak_points=list(state.tiebreak_points),
            history=list(state.history),
            last_hands=[list(h) for h in state.last_hands],
            final=list(state.final),
        )


# --- helpers --------------------------------------------------------------------------------


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


def _announced(
    state: MauMauVampiresState, announce: Announcement, owed: Announcement, rule: str
) -> Announcement:
    """MM-16: the announcement that counts. With ``auto`` the referee says what is owed."""
    if state.auto_announce:
        if announce != _NONE:
            raise Rejection(
                rule,
                "announcements are automatic in this game (announcements=auto): leave "
                "announce unset",
            )
        return owed
    if announce != _NONE and announce != owed:
        if owed is _NONE:
            detail = (
                "a special card played as your last card does not end the hand (MM-17)"
                if rule == "MM-17"
                else "this action does not leave you 1 or 0 cards"
            )
            raise Rejection(rule, f"nothing to announce: {detail}")
        raise Rejection(rule, f"this action calls for {owed.name.replace('_', ' ').title()}")
    return Announcement(announce)


def _penalty(d: _Draft, seat: int, owed: Announcement, announced: Announcement) -> None:
    """MM-16: a missed Mau draws 1, a missed Mau Mau 2 (and the hand goes on)."""
    if owed is _NONE:
        return
    if announced == owed:
        if owed is Announcement.MAU_MAU:
            d.missed = False  # a later Mau Mau said right counts again
        return
    if owed is Announcement.MAU:
        d.draw(seat, 1, DrawReason.MISSED_MAU)
    else:
        d.missed = True
        d.draw(seat, 2, DrawReason.MISSED_MAU_MAU)


def _rule_of(decisions: tuple[Decision, ...]) -> str:
    return decisions[0].rule_id if decisions else "MM-24"


def _name(code: int) -> str:
    """A card in words, e.g. ``green 7 (bat)``."""
    if code == CLOCK:
        return "Clock"
    if code == WEREWOLF:
        return "Werewolf"
    symbol = symbol_of(code)
    return f"{Colour(colour_of(code)).name.lower()} {symbol} ({CHARACTERS.symbols[symbol - 1]})"


def _ability_name(ability: Ability) -> str:
    return _ABILITY_KINDS[ability].replace("_", " ")


def _how(ability: Ability) -> str:
    """The command that uses ``ability``."""
    return {
        Ability.GIVE_LEFT: "GiveCard to your left neighbour",
        Ability.VAMPIRE_GIFT: "GiveCard to another player",
        Ability.CALL_COLOUR: "CallColour",
        Ability.WISH_AND_PLAY_AGAIN: "Wish a colour",
        Ability.SWAP_AND_PLAY_AGAIN: "SwapCharacters",
        Ability.SET_ASIDE_POT: "SetAside a card",
    }.get(ability, "UseAbility")


def _wrong_phase(state: MauMauVampiresState, command: Any) -> NoReturn:
    """A command that does not fit a turn or a drawn card."""
    if isinstance(command, (*_ABILITY_COMMANDS, ShareDrawn)):
        raise Rejection(
            "MM-18",
            "no ability has triggered: abilities trigger only on your own Mau Mau cards, "
            "without a werewolf on your character",
        )
    if isinstance(command, Wish | NoWish):
        raise Rejection("MM-14", "there is no chance to wish now")
    if isinstance(command, ShowCard):
        raise Rejection("MM-22", "no colour is called")
    if isinstance(command, EndTurn):
        raise Rejection("MM-8", "play a card or draw one first")
    raise Rejection("MM-8", f"not possible now: {type(command).__name__}")


def _check_fixed_deck(index: int, deck: Sequence[str]) -> None:
    """A fixed deck holds valid cards, never more copies than the 55 have; deck 0 starts hand 1
    and is all 55 (MM-1, MM-2)."""
    codes = []
    for text in deck:
        try:
            codes.append(parse_notation(text))
        except ValueError as error:
            raise ValueError(f"fixed deck {index}: {error}") from None
    if index == 0 and sorted(codes) != list(FULL_DECK):
        raise ValueError(
            f"fixed deck 0 must hold the 55 cards of MM-1/MM-2 (R1..P11 once, 6 CLOCK, "
            f"5 WOLF), got {len(codes)} cards"
        )
    counts = [0] * CODES
    for code in codes:
        counts[code] += 1
    limit = [1] * MAU_MAU_CARDS + [6, 5]
    over = [notation(c) for c in range(CODES) if counts[c] > limit[c]]
    if over or len(codes) > DECK_SIZE:
        raise ValueError(f"fixed deck {index}: more copies than the game has of {', '.join(over)}")


_SAY_NOTHING = (_NONE,)
_OWED = (Announcement.MAU_MAU, Announcement.MAU)
_TURN = Phase.TURN
_PLAY_DRAWN = Phase.PLAY_DRAWN
#: Phases whose one decision is the acting player's (state.turn).
_TURN_PHASES = frozenset({Phase.TURN, Phase.PLAY_DRAWN, Phase.ABILITY, Phase.SHARE_DRAWN})
_WISH = Phase.WISH
_ANSWER_CALL = Phase.ANSWER_CALL
#: Every PlayCard a legal list can hold, built once: _PLAYS[code][announcement] and
#: _WEREWOLF_PLAYS[seat][announcement] (legal_commands runs at every step).
_PLAYS: tuple[tuple[PlayCard, ...], ...] = tuple(
    tuple(PlayCard(CARDS[code], a) for a in Announcement) for code in range(CODES)
)
_WEREWOLF_PLAYS: tuple[tuple[PlayCard, ...], ...] = tuple(
    tuple(PlayCard(CARDS[WEREWOLF], a, seat) for a in Announcement)
    for seat in range(MauMauVampires.info.max_players)
)

_DRAW = DrawCard()
_END_TURN = EndTurn()
_DECLINE = DeclineAbility()
_USE = UseAbility()
_NO_WISH = NoWish()
_WISHES = tuple(Wish(c) for c in COLOURS)
_CALLS = tuple(CallColour(c) for c in COLOURS)
#: The prebuilt commands above (well-formed by construction): their shape needs no check.
_PREBUILT = frozenset(
    id(command)
    for command in (
        _DRAW, _END_TURN, _DECLINE, _USE, _NO_WISH, *_WISHES, *_CALLS,
        *(play for plays in (*_PLAYS, *_WEREWOLF_PLAYS) for play in plays),
    )
)  # fmt: skip
#: MM-9: the Mau Mau codes matching each top card (same colour or symbol), ascending.
_MATCHING: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        code
        for code in range(MAU_MAU_CARDS)
        if COLOUR_OF[code] == COLOUR_OF[top] or SYMBOL_OF[code] == SYMBOL_OF[top]
    )
    for top in range(MAU_MAU_CARDS)
)
#: MM-14: the Mau Mau codes of each colour (index 1-4), ascending.
_OF_COLOUR: tuple[tuple[int, ...], ...] = tuple(
    tuple(code for code in range(MAU_MAU_CARDS) if COLOUR_OF[code] == colour)
    for colour in range(len(COLOURS) + 1)
)

_SPACE: dict[int, tuple[Any, ...]] = {}


def _command_space(players: int) -> tuple[Any, ...]:
    """Every command shape, for ``players`` seats, plus some malformed ones."""
    space = _SPACE.get(players)
    if space is not None:
        return space
    seats = range(players)
    announces = tuple(Announcement)
    cards = [*CARDS, HIDDEN, Card(CardKind.CLOCK, Colour.RED, 0)]
    moves: list[Any] = [DrawCard(), EndTurn(), NoWish(), UseAbility(), DeclineAbility()]
    moves += [Wish(c) for c in Colour]
    moves += [CallColour(c) for c in Colour]
    moves += [SwapCharacters(s) for s in range(-1, players + 1)]
    moves += [ShowCard(card) for card in cards]
    moves += [PlayCard(card, a) for card in cards for a in announces]
    moves += [PlayCard(CARDS[WEREWOLF], a, s) for s in range(players + 1) for a in announces]
    moves += [PlayCard(CARDS[0], _NONE, 0)]
    moves += [GiveCard(to, card, a) for to in seats for card in CARDS for a in announces]
    moves += [SetAside(card, a) for card in CARDS for a in announces]
    combos: list[tuple[int, ...]] = [(), *((s,) for s in seats)]
    combos += [(s, t) for s in seats for t in seats]
    combos += [(0, 0, 0)]
    moves += [ShareDrawn(combo, a) for combo in combos for a in announces]
    space = _SPACE[players] = tuple(moves)
    return space


# --- command shapes (library callers can send anything; the wire cannot) ---------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _enum_ok(value: Any, enum: type[IntEnum]) -> bool:
    if not _is_int(value):
        return False
    try:
        enum(value)
    except ValueError:
        return False
    return True


def _card_ok(card: Any) -> bool:
    if id(card) in _CARD_IDS:
        return True  # one of the shared instances (legal_commands hands them out)
    if type(card) is not Card:
        return False
    if not (_enum_ok(card.kind, CardKind) and _enum_ok(card.colour, Colour)):
        return False
    if not _is_int(card.symbol):
        return False
    return card in _CARD_SET


_CARD_SET = frozenset(CARDS)
_CARD_IDS = frozenset(id(card) for card in CARDS)

#: Per command type: (rule id, checks of its fields).
_SHAPES: dict[type, tuple[str, tuple[tuple[str, str], ...]]] = {
    DrawCard: ("MM-8", ()),
    EndTurn: ("MM-8", ()),
    PlayCard: ("MM-8", (("card", "card"), ("announce", "announce"), ("werewolf_seat", "seat?"))),
    Wish: ("MM-14", (("colour", "colour"),)),
    NoWish: ("MM-14", ()),
    UseAbility: ("MM-18", ()),
    DeclineAbility: ("MM-18", ()),
    GiveCard: ("MM-22", (("to_seat", "int"), ("card", "card"), ("announce", "announce"))),
    CallColour: ("MM-22", (("colour", "colour"),)),
    ShowCard: ("MM-22", (("card", "card"),)),
    SwapCharacters: ("MM-22", (("seat", "int"),)),
    ShareDrawn: ("MM-22", (("to_seats", "ints"), ("announce", "announce"))),
    SetAside: ("MM-22", (("card", "card"), ("announce", "announce"))),
}


#: Quick acceptance per field kind; anything else gets the full check and a clear message.
_FAST_SHAPES: dict[str, Any] = {
    "card": lambda v: id(v) in _CARD_IDS,
    "announce": lambda v: type(v) is Announcement,
    "colour": lambda v: type(v) is Colour,
    "seat?": lambda v: v is None or type(v) is int,
    "int": lambda v: type(v) is int,
    "ints": lambda v: False,
}


def _check_shape(command: Any) -> None:
    if id(command) in _PREBUILT:
        return
    shape = _SHAPES.get(type(command))
    if shape is None:
        raise Rejection("MM-8", f"not a Mau Mau Vampires command: {type(command).__name__}")
    rule, checks = shape
    for name, kind in checks:
        value = getattr(command, name)
        if _FAST_SHAPES[kind](value):
            continue  # the usual case: what legal_commands and the codec produce
        if kind == "card":
            ok = _card_ok(value)
            expected = "a card: a Mau Mau card (colour, symbol 1-11), a Clock or a Werewolf"
        elif kind == "announce":
            ok = _enum_ok(value, Announcement)
            expected = "an Announcement"
        elif kind == "colour":
            ok = _enum_ok(value, Colour)
            expected = "a Colour"
        elif kind == "seat?":
            ok = value is None or _is_int(value)
            expected = "a seat or absent"
        elif kind == "ints":
            ok = isinstance(value, tuple) and all(_is_int(v) for v in value)
            expected = "a tuple of seats"
        else:
            ok = _is_int(value)
            expected = "an integer"
        if not ok:
            raise Rejection(
                rule, f"{type(command).__name__}.{name} must be {expected}, got {value!r}"
            )


# --- event handlers (the only code that changes a state) ------------------------------------


def _sorted_cards(codes: Sequence[int]) -> tuple[Card, ...]:
    return tuple([CARDS[c] for c in sorted(codes)])


def _cards_of(counts: Sequence[int]) -> tuple[Card, ...]:
    """A hand kept as counts by code, as sorted wire cards."""
    return tuple(CARDS[c] for c in range(CODES) for _ in range(counts[c]))


def _codes(cards: Sequence[Card]) -> list[int]:
    return [code_of(card) for card in cards]


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
    state.turned = []
    state.night = False
    state.clocks = 0
    state.werewolf = -1
    state.wish = 0
    state.pot = []
    _clear_turn(state)
    state.idle = 0


def _clear_turn(state: MauMauVampiresState) -> None:
    state.phase = Phase.UNSPECIFIED
    state.extra_turn = False
    state.ability = Ability.UNSPECIFIED
    state.drawn = -1
    state.missed_mau_mau = False
    if state.triggers:
        state.triggers = []
    if state.wisher >= 0:  # what a wish, a call or (g) left behind (rare: checked first)
        state.wisher = -1
        state.wish_reason = WishReason.UNSPECIFIED
    if state.call_colour:
        state.call_colour = 0
        state.answering = []
        state.shown = []
    if state.pair:
        state.pair = []


def _apply_deck_shuffled(state: MauMauVampiresState, e: DeckShuffled) -> None:
    state.deck = _codes(e.order)[::-1]
    state.shuffles += 1
    if e.reason is ShuffleReason.PILE_RESHUFFLED:
        state.pile_under = [0] * CODES
    elif e.reason is ShuffleReason.SPECIALS_RETURNED:
        state.turned = []


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
        state.turned.append(code)
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
        state.pair.extend(deck.pop() for _ in range(e.count))
        state.pair.sort()  # as the event and the view list them; ShareDrawn.to_seats too
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
        state.triggers = _raw_triggers(state, seat, code)
    elif code == CLOCK:
        state.clocks += 1
    else:
        assert e.werewolf_seat is not None
        if state.werewolf >= 0:
            state.pile_under[WEREWOLF] += 1  # MM-11, MM-13
            state.wish = 0  # MM-14: a chance to wish ends the open wish
        state.werewolf = state.characters[e.werewolf_seat]


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
    triggers = state.triggers
    while triggers:  # earlier triggers that could not be used are passed over
        if triggers.pop(0) == e.ability:
            break


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
    state.answering = list(e.answering)
    state.shown = []
    state.phase = Phase.ANSWER_CALL if e.answering else Phase.UNSPECIFIED
    state.ability = Ability.UNSPECIFIED


def _apply_card_shown(state: MauMauVampiresState, e: CardShown) -> None:
    state.answering.remove(e.seat)
    state.shown.append((e.seat, code_of(e.card)))
    if not state.answering:
        state.phase = Phase.UNSPECIFIED


def _apply_characters_swapped(state: MauMauVampiresState, e: CharactersSwapped) -> None:
    characters = state.characters
    characters[e.seat], characters[e.other] = characters[e.other], characters[e.seat]
    state.phase = Phase.UNSPECIFIED
    state.ability = Ability.UNSPECIFIED


def _apply_drawn_shared(state: MauMauVampiresState, e: DrawnShared) -> None:
    for card, to in zip(e.cards, e.to_seats, strict=True):
        code = code_of(card)
        state.hands[to][code] += 1
        state.sizes[to] += 1
    _note_mau_mau(state, e.owed, e.announced)
    state.pair = []
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
    state.tiebreak_points = list(e.tiebreak_points)
    state.history.append(HandScore(e.hand_number, e.tiebreak, e.ender, e.blocked, e.scores))
    state.last_hands = [list(hand) for hand in state.hands]
    _clear_turn(state)


def _apply_game_ended(state: MauMauVampiresState, e: GameEnded) -> None:
    state.final = list(e.scores)
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


#: Shared immutable events of the usual steps (built once; events are frozen values).
_SEATS = MauMauVampires.info.max_players
#: TurnStarted(seat, False) by seat.
_STARTED: tuple[TurnStarted, ...] = tuple(TurnStarted(seat, False) for seat in range(_SEATS))
#: CardsDrawn of one card on a turn (MM-8), by seat and code.
_DRAWN_ON_TURN: tuple[tuple[CardsDrawn, ...], ...] = tuple(
    tuple(CardsDrawn(seat, 1, (CARDS[code],), DrawReason.TURN) for code in range(CODES))
    for seat in range(_SEATS)
)
#: CardPlayed of a Mau Mau card: _PLAYED[seat][code][announced][owed].
_PLAYED: tuple[tuple[tuple[tuple[CardPlayed, ...], ...], ...], ...] = tuple(
    tuple(
        tuple(
            tuple(CardPlayed(seat, CARDS[code], a, o, None, "") for o in Announcement)
            for a in Announcement
        )
        for code in range(MAU_MAU_CARDS)
    )
    for seat in range(_SEATS)
)
