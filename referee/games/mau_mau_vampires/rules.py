"""Mau Mau Vampires rules (``docs/rules/mau-mau-vampires.md``); each rule id appears where it
is enforced.

This module is the game (:class:`MauMauVampires`): setup, the pending decisions and who may
act. Around it: :mod:`.state` (the state and the draft ``decide`` builds on), :mod:`.decide`
(a handler per phase and command type; abilities in :mod:`.abilities`, what follows an action
in :mod:`.flow`), :mod:`.apply` (the event handlers), :mod:`.commands` (legal moves, the
command space, command shapes) and :mod:`.view` (views, redaction, hidden variants).

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

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from referee.engine.chance import check_fixed_deck, check_fixed_pick, pick_for
from referee.engine.endings import Ending
from referee.engine.game import (
    CardsTaken,
    ChanceStep,
    Decision,
    DeckOrder,
    Game,
    GameConfig,
    GameInfo,
    Handler,
    OptionSpec,
    Rejection,
    Seat,
    SeatResult,
    SetupRefused,
    Viewer,
    rank_by_score,
    union_members,
)
from referee.games.mau_mau_vampires import decide, labels, view
from referee.games.mau_mau_vampires.apply import apply as apply_event
from referee.games.mau_mau_vampires.characters import CHARACTERS
from referee.games.mau_mau_vampires.commands import _command_space, legal_commands
from referee.games.mau_mau_vampires.flow import start_hand
from referee.games.mau_mau_vampires.model import (
    CODES,
    FULL_DECK_NOTATION,
    Ability,
    CardsDealt,
    CardsDrawn,
    CardSetAside,
    Command,
    DeckShuffled,
    Event,
    MauMauVampiresView,
    Phase,
    PlayCard,
    StartingCardTurned,
    WishReason,
    code_of,
)
from referee.games.mau_mau_vampires.state import (
    _ABILITY_COMMANDS,
    _ABILITY_KINDS,
    _TURN_PHASES,
    FULL_DECK_NOTATION_BY_CODE,
    MAX_PLAYERS,
    MAX_TIEBREAKS,
    MauMauVampiresState,
    _Draft,
    copy_state,
    hand_size_for,
)
from referee.games.mau_mau_vampires.view import SEAT_FIELDS
from referee.games.mau_mau_vampires.view import view as view_of

#: The game's class, and the names other code imported from here before the rules were split
#: (state.py holds them).
__all__ = ["MAX_TIEBREAKS", "MauMauVampires", "MauMauVampiresState", "hand_size_for"]


class MauMauVampires(Game[MauMauVampiresState, Command, Event]):
    info = GameInfo(
        type_id="mau-mau-vampires",
        name="Mau Mau Vampires",
        min_players=2,  # MM-5
        players_rule="MM-5",
        score_meaning="points: hand totals plus tie-break points, higher is better (MM-24)",
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
    seat_fields = SEAT_FIELDS

    # Display text for people, never for parsing (labels.py, View/Event in the protos).
    def command_label(self, command: Command, view: Any) -> str:
        return labels.command_label(command, view)

    def event_text(self, event: Event) -> str:
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
            tiebreak_points=(0,) * n,
        )

    def start(self, state: MauMauVampiresState) -> list[Event]:
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
        start_hand(draft, 1, 0, dealer, tuple(range(state.players)), characters)
        return draft.events

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
        if phase is Phase.WISH:
            return (state.wisher,)
        if phase is Phase.ANSWER_CALL:
            return tuple(sorted(state.answering))
        return ()

    # The engine's decide checks who may act and the command's shape (refused under the
    # rule of the seat's decision), then calls the handler of (phase, command type):
    # decide.HANDLERS; a pair without one is refused under that rule too.
    handlers: ClassVar[Mapping[tuple[Any, type], Handler[MauMauVampiresState, Event]]] = (
        decide.HANDLERS
    )

    def phase(self, state: MauMauVampiresState) -> Phase:
        return state.phase

    def may_decide(self, state: MauMauVampiresState, seat: Seat) -> bool:
        phase = state.phase
        if phase in _TURN_PHASES:
            return seat == state.turn
        if phase is Phase.WISH:
            return seat == state.wisher
        return phase is Phase.ANSWER_CALL and seat in state.answering

    def end_rule(self, state: MauMauVampiresState) -> str:
        return "MM-24"  # the game's winner is decided

    def refuse_seat(self, state: MauMauVampiresState, seat: Seat, command: Command) -> Rejection:
        if isinstance(command, _ABILITY_COMMANDS) and self.decisions(state):
            return Rejection(
                "MM-18",
                f"seat {seat} has no triggered ability to use: abilities trigger only on the "
                "owner's own Mau Mau cards, without a werewolf on the character",
                "precondition",
            )
        return super().refuse_seat(state, seat, command)

    # --- applying ----------------------------------------------------------------------------

    # The functions themselves, not methods calling them: they run on every step.
    def apply(self, state: MauMauVampiresState, event: Event) -> MauMauVampiresState:
        return apply_event(state, event)

    # --- what a seat may do (commands.py) and see (view.py) -------------------------------

    # The function itself, not a method calling it: random play asks for it at every step.
    def legal_commands(self, state: MauMauVampiresState, seat: Seat) -> list[Command]:
        return legal_commands(state, seat)

    def command_space(self, state: MauMauVampiresState, seat: Seat) -> list[Command]:
        return list(_command_space(state.players))

    def view(self, state: MauMauVampiresState, viewer: Viewer) -> Any:
        return view_of(state, viewer)

    def chance_steps(self, config: GameConfig, event: Event) -> Sequence[ChanceStep]:
        """MM-5/MM-15: every shuffle becomes the deck, taken from the top: dealt and drawn
        cards by their seat (both cards of (g) by the drawer), the starting card by everyone
        (MM-6), the cards set aside from the deck by no one (MM-22 h)."""
        if isinstance(event, DeckShuffled):
            cards = tuple(FULL_DECK_NOTATION_BY_CODE[code_of(c)] for c in event.order)
            return (DeckOrder(event.shuffle, cards),)
        if isinstance(event, CardsDealt | CardsDrawn):
            return (CardsTaken(event.count, (event.seat,)),)
        if isinstance(event, StartingCardTurned):
            return (CardsTaken(1, None),)
        if isinstance(event, CardSetAside):
            return (CardsTaken(event.deck_count, ()),)
        return ()

    def redact(self, event: Event, viewer: Viewer) -> Event:
        return view.redact(event, viewer)

    def ending(self, state: MauMauVampiresState) -> Ending | None:
        # Written by the end event from its public fields (model.GameEnded.end_reason).
        ended = state.ended
        return None if ended is None else Ending(ended.end_rule_id, ended.end_reason)

    def results(self, state: MauMauVampiresState) -> tuple[SeatResult, ...] | None:
        if not state.over:
            return None
        return rank_by_score(state.final, lower_wins=False)  # MM-24

    def limit_results(self, state: MauMauVampiresState, players: int) -> tuple[SeatResult, ...]:
        """At the event limit: the totals of the hands played (and any tie-break points),
        highest first (MM-24)."""
        scores = [t + p for t, p in zip(state.totals, state.tiebreak_points, strict=True)]
        return rank_by_score(scores, lower_wins=False)

    def default_command(self, state: MauMauVampiresState, seat: Seat) -> Command | None:
        """A timeout plays a card where one can be played (MM-8: on a turn, or the card just
        drawn; the owed announcement is made), else the first legal command (draw, end the
        turn, decline, no wish): the hand moves on towards its end."""
        legal = self.legal_commands(state, seat)
        return next((c for c in legal if isinstance(c, PlayCard)), legal[0] if legal else None)

    # --- support for the conformance suite ---------------------------------------------------

    def hidden_variant(
        self, state: MauMauVampiresState, viewer: Viewer, salt: int
    ) -> MauMauVampiresState:
        return view.hidden_variant(state, viewer, salt)

    def copy_state(self, state: MauMauVampiresState) -> MauMauVampiresState:
        return copy_state(state)
