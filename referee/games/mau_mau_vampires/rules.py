"""Mau Mau Vampires rules (``docs/rules/mau-mau-vampires.md``); each rule id appears where it
is enforced.

This module is the game (:class:`MauMauVampires`): setup and the deal, the decisions, ``decide``
for a turn, abilities, wishes, called colours, sharing, and the end of a hand and of the game.
Around it: :mod:`.state` (the state and the draft ``decide`` builds on), :mod:`.apply` (the
event handlers), :mod:`.commands` (legal moves, the command space, command shapes) and
:mod:`.redaction` (views, redaction, hidden variants).

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
* **Blocked hand** (the MM-15 ruling). While nothing can be drawn (deck and pile under its top
  card are empty), drawing is not offered to a player who can play a card; one who can neither
  play nor draw passes (``DrawCard``, which then draws nothing). Once every playing seat in
  turn has passed so, the hand ends without an ender (no bonus) and is scored as MM-23.
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
from typing import Any, NoReturn

from referee.engine.chance import check_fixed_deck, check_fixed_pick, pick_for
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
    SetupRefused,
    Viewer,
    not_your_turn,
    rank_by_score,
    union_members,
)
from referee.games.mau_mau_vampires import labels, redaction
from referee.games.mau_mau_vampires.apply import _APPLY
from referee.games.mau_mau_vampires.characters import CHARACTERS
from referee.games.mau_mau_vampires.commands import (
    _PREBUILT,
    _check_shape,
    _command_space,
    legal_commands,
    nothing_to_draw,
)
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CLOCK,
    CODES,
    COLOURS,
    FULL_DECK,
    FULL_DECK_NOTATION,
    MAU_MAU_CARDS,
    WEREWOLF,
    Ability,
    AbilityDeclined,
    AbilityTriggered,
    AbilityUsed,
    Announcement,
    CallColour,
    CardGiven,
    CardPlayed,
    CardsDealt,
    CardsDrawn,
    CardSetAside,
    CardShown,
    CharactersSwapped,
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
    HandStarted,
    MauMauVampiresView,
    NoWish,
    Phase,
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
    WishReason,
    code_of,
    colour_of,
    symbol_of,
)
from referee.games.mau_mau_vampires.state import (
    _ABILITY_COMMANDS,
    _ABILITY_KINDS,
    _ANSWER_CALL,
    _NEEDS_A_CARD,
    _NONE,
    _PLAY_DRAWN,
    _TURN,
    _TURN_PHASES,
    _WISH,
    FULL_DECK_NOTATION_BY_CODE,
    MAX_PLAYERS,
    MAX_TIEBREAKS,
    MauMauVampiresState,
    _Draft,
    _opponents,
    _playable,
    _raw_triggers,
    _sorted_cards,
    copy_state,
    hand_size_for,
    owed_for,
)

#: The game's class, and the names other code imported from here before the rules were split
#: (state.py, commands.py, apply.py, redaction.py hold the rest).
__all__ = ["MAX_TIEBREAKS", "MauMauVampires", "MauMauVampiresState", "hand_size_for"]


class MauMauVampires(Game[MauMauVampiresState]):
    info = GameInfo(
        type_id="mau-mau-vampires",
        name="Mau Mau Vampires",
        min_players=2,  # MM-5
        players_rule="MM-5",
        max_events=100_000,  # 5 hands take a few thousand events, 15 hands about 15,000
        max_players=MAX_PLAYERS,
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

    # Display text for people, never for parsing (labels.py, View/Event in the protos).
    def command_label(self, command: Any, view: Any) -> str:
        return labels.command_label(command, view)

    def event_text(self, event: Any) -> str:
        return labels.event_text(event)

    # --- setup -------------------------------------------------------------------------------

    def new_state(self, config: GameConfig) -> MauMauVampiresState:
        n = config.players
        first_game = config.options["first_game"] == "true"
        if first_game:
            available = sum(1 for c in CHARACTERS.characters if c.first_game)
            if n > available:
                raise SetupRefused(
                    "options.first_game",
                    f"option first_game has {available} characters for {n} players (a first "
                    "game is for at most 4 players)",
                    "MM-5",
                )
        elif n > len(CHARACTERS.characters):
            raise SetupRefused(
                "players",
                f"the character data has {len(CHARACTERS.characters)} characters",
                "MM-4",
            )
        if config.deal is not None:
            # Every part of a fixed deal is checked here, so no shuffle can fail mid-game:
            # deck 0 is the first hand's 55 cards; what a later shuffle holds is known only
            # then (the turned special cards, the discard pile, MM-6, MM-15), so a later deck
            # gives the top cards only (model.py).
            check_fixed_deck(config, 0, FULL_DECK_NOTATION, note="the 55 cards of MM-1, MM-2")
            for index in range(1, len(config.deal.decks)):
                check_fixed_deck(config, index, FULL_DECK_NOTATION, prefix=True)
            check_fixed_pick(config, 0, n, "the first dealer, MM-6")
            available = sum(1 for c in CHARACTERS.characters if c.first_game or not first_game)
            for seat in range(n):
                check_fixed_pick(config, 1 + seat, available - seat, f"seat {seat}'s character")
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
            if nothing_to_draw(state) and self.legal_commands(state, seat)[0] != command:
                # MM-15 ruling: with nothing to draw, a player who can play must play.
                raise Rejection(
                    "MM-15",
                    "nothing can be drawn (deck and discard pile are empty): drawing is not a "
                    "choice while you can play a card",
                )
            # MM-8: draw 1; the drawer then decides whether to play it (PLAY_DRAWN).
            if d.draw(seat, 1, DrawReason.TURN) == 0:
                self._idle_turn_over(state, d, seat)  # MM-15: the player passes
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
        """A player who could neither play nor draw passed (MM-15); once every playing seat
        in turn has passed so, the hand ends blocked (MM-15 ruling)."""
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
        state.public = None
        _APPLY[type(event)](state, event)  # apply.py
        return state

    # --- what a seat may do (commands.py) and see (redaction.py) -------------------------------

    # The function itself, not a method calling it: random play asks for it at every step.
    legal_commands = staticmethod(legal_commands)

    def command_space(self, state: MauMauVampiresState, seat: Seat) -> list[Any]:
        return list(_command_space(state.players))

    def view(self, state: MauMauVampiresState, viewer: Viewer) -> MauMauVampiresView:
        return redaction.view(state, viewer)

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
        return redaction.redact(event, viewer)

    def results(self, state: MauMauVampiresState) -> tuple[SeatResult, ...] | None:
        if not state.over:
            return None
        return rank_by_score(state.final, lower_wins=False)  # MM-24

    def limit_results(self, state: MauMauVampiresState, players: int) -> tuple[SeatResult, ...]:
        """At the event limit: the totals of the hands played (and any tie-break points),
        highest first (MM-24)."""
        scores = [t + p for t, p in zip(state.totals, state.tiebreak_points, strict=True)]
        return rank_by_score(scores, lower_wins=False)

    def default_command(self, state: MauMauVampiresState, seat: Seat) -> Any:
        """A timeout plays a card where one can be played (MM-8: on a turn, or the card just
        drawn; the owed announcement is made), else the first legal command (draw, end the
        turn, decline, no wish): the hand moves on towards its end."""
        legal = self.legal_commands(state, seat)
        return next((c for c in legal if isinstance(c, PlayCard)), legal[0] if legal else None)

    # --- support for the conformance suite ---------------------------------------------------

    def hidden_variant(
        self, state: MauMauVampiresState, viewer: Viewer, salt: int
    ) -> MauMauVampiresState:
        return redaction.hidden_variant(state, viewer, salt)

    def copy_state(self, state: MauMauVampiresState) -> MauMauVampiresState:
        return copy_state(state)


# --- helpers --------------------------------------------------------------------------------
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
