"""Sleeping Queens rules (``docs/rules/sleeping-queens.md``): the :class:`Game`, wired to its
parts.

``state`` holds the table and the decisions, ``decide`` the handlers of each (phase, command),
``commands`` the legal commands, ``apply`` the event handlers, ``view`` what each viewer may
know; each rule id appears where it is enforced. The default (first) command of a block is
DeclineBlock, as at the table a player who says nothing has let the chance pass (seed FAQ);
of a turn the single discard of the lowest card.

>>> from referee.engine import Table
>>> table = Table.create("sleeping-queens", players=3, seed=b"doc")
>>> [len(h) for h in (table.view(s).game.hand for s in range(3))]  # SQ-3: 5 cards each
[5, 5, 5]
>>> table.decisions()[0].kind
'turn'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from referee.engine.chance import check_fixed_deck, check_fixed_pick, deck_for, pick_for
from referee.engine.endings import Ending
from referee.engine.game import (
    CardShown,
    CardsTaken,
    ChanceStep,
    Decision,
    DeckOrder,
    Game,
    GameConfig,
    GameInfo,
    Handler,
    OptionSpec,
    Seat,
    SeatResult,
    Viewer,
    rank_by_score,
    union_members,
)
from referee.games.sleeping_queens import labels
from referee.games.sleeping_queens.apply import apply
from referee.games.sleeping_queens.commands import command_space, is_valid_discard, legal_commands
from referee.games.sleeping_queens.decide import HANDLERS
from referee.games.sleeping_queens.model import (
    CARD_NOTATION,
    CARDS,
    HAND_SIZE,
    NAME_QUEEN,
    NOTATION_CARD,
    QUEEN_NAMES,
    CardsDrawn,
    Command,
    DeckShuffled,
    Event,
    JesterTurned,
    Phase,
    PlayKing,
    QueenBounced,
    QueensLaid,
    QueenWoken,
    SleepingQueensView,
    TurnStarted,
)
from referee.games.sleeping_queens.state import (
    CARDS_SHUFFLE,
    CAT_DOG_OPTIONS,
    DECK,
    QUEEN_DECK,
    QUEENS_SHUFFLE,
    SleepingQueensState,
    copy_state,
    decisions_in,
    thresholds,
)
from referee.games.sleeping_queens.view import SEAT_FIELDS, hidden_variant, redact, view

__all__ = ["DECK", "QUEEN_DECK", "SleepingQueens", "SleepingQueensState", "is_valid_discard"]

_OVER = Phase.OVER


class SleepingQueens(Game[SleepingQueensState, Command, Event]):
    info = GameInfo(
        type_id="sleeping-queens",
        name="Sleeping Queens",
        min_players=2,  # SQ-3
        players_rule="SQ-3",
        score_meaning="1 for a winner, 0 otherwise (SQ-15, SQ-16; tied winners share)",
        max_events=10_000,  # a game takes a few hundred events; one nobody ends never stops
        max_players=5,
        options=(
            OptionSpec(
                "knight_cat_dog",
                "illegal",
                "SQ-12: a Knight on the Cat (Dog) Queen by the holder of the Dog (Cat) Queen is "
                "illegal, wasted (spent, nothing moves) or bounce (she goes back to sleep)",
                allowed=CAT_DOG_OPTIONS,
            ),
        ),
        rules="sleeping-queens.md",
        summary="Wake the queens with Kings, steal them with Knights, put them back to sleep "
        "with Potions; blocks out of turn, blind picks by position.",
    )
    command_types = union_members(Command)
    event_types = union_members(Event)
    view_type = SleepingQueensView
    seat_fields = SEAT_FIELDS

    # Display text for people, never for parsing (labels.py, View/Event in the protos).
    def command_label(self, command: Command, view: Any) -> str:
        return labels.command_label(command, view)

    def event_text(self, event: Event) -> str:
        return labels.event_text(event)

    # --- setup -------------------------------------------------------------------------------

    def new_state(self, config: GameConfig) -> SleepingQueensState:
        deal = config.deal
        if deal is not None:
            # Every part of a fixed deal is checked here, so no shuffle can fail mid-game.
            check_fixed_deck(config, 0, DECK, note="the 67 cards of SQ-2, top first")
            check_fixed_deck(config, 1, QUEEN_DECK, note="the 12 queens by position, SQ-3")
            for index in range(2, len(deal.decks)):
                # SQ-14: what the discard pile holds is known only then: the top cards only.
                check_fixed_deck(config, index, DECK, prefix=True, note="a reshuffle, SQ-14")
            check_fixed_pick(config, 0, config.players, "the starting seat, SQ-3")
        n = config.players
        queens, points = thresholds(n)
        return SleepingQueensState(
            config=config,
            players=n,
            cat_dog=CAT_DOG_OPTIONS.index(config.options["knight_cat_dog"]),
            queens_to_win=queens,
            points_to_win=points,
            hands=[[0] * (CARDS + 1) for _ in range(n)],
            sizes=[0] * n,
            awake=((),) * n,
            points=(0,) * n,
        )

    def start(self, state: SleepingQueensState) -> list[Event]:
        """SQ-3: shuffle the cards and the queens, deal 5 each, a random player starts."""
        config = state.config
        cards = [NOTATION_CARD[c] for c in deck_for(config, CARDS_SHUFFLE, DECK)]
        queens = [NAME_QUEEN[q] for q in deck_for(config, QUEENS_SHUFFLE, QUEEN_DECK)]
        first = pick_for(config, 0, state.players)
        events: list[Event] = [
            DeckShuffled(CARDS_SHUFFLE, len(cards), tuple(cards), False),
            QueensLaid(tuple(queens)),
        ]
        for seat in range(state.players):
            hand = cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
            events.append(CardsDrawn(seat, HAND_SIZE, tuple(sorted(hand))))
        events.append(TurnStarted(first))
        return events

    # --- deciding (the engine checks who may act and the shape; decide.py the rest) ---------

    handlers: ClassVar[Mapping[tuple[Any, type], Handler[SleepingQueensState, Event]]] = HANDLERS

    def phase(self, state: SleepingQueensState) -> Phase:
        return state.phase

    def end_rule(self, state: SleepingQueensState) -> str:
        return state.end_rule or "SQ-15"  # the rule that ended the game (SQ-15 or SQ-16)

    def decisions(self, state: SleepingQueensState) -> tuple[Decision, ...]:
        return decisions_in(state.phase, state.attack, state.decider)

    def may_decide(self, state: SleepingQueensState, seat: Seat) -> bool:
        # One seat decides at a time (a block or a Jester count moves the decision only).
        return seat == state.decider and state.phase is not _OVER

    def pending(self, state: SleepingQueensState) -> tuple[Seat, ...]:
        return () if state.phase is _OVER else (state.decider,)

    # --- the rest: the functions themselves (methods, as a compiled class needs) ----------

    def apply(self, state: SleepingQueensState, event: Event) -> SleepingQueensState:
        return apply(state, event)

    def legal_commands(self, state: SleepingQueensState, seat: Seat) -> list[Command]:
        return legal_commands(state, seat)

    def command_space(self, state: SleepingQueensState, seat: Seat) -> list[Command]:
        return command_space(state, seat)

    def view(self, state: SleepingQueensState, viewer: Viewer) -> Any:
        return view(state, viewer)

    def redact(self, event: Event, viewer: Viewer) -> Event:
        return redact(event, viewer)

    def hidden_variant(
        self, state: SleepingQueensState, viewer: Viewer, salt: int
    ) -> SleepingQueensState:
        return hidden_variant(state, viewer, salt)

    def copy_state(self, state: SleepingQueensState) -> SleepingQueensState:
        return copy_state(state)

    def chance_steps(self, config: GameConfig, event: Event) -> Sequence[ChanceStep]:
        """SQ-3/SQ-14: the draw pile is the latest card shuffle, drawn from the top (a Jester
        turns its top card face up, SQ-8); the queens' shuffle lies on positions 0-11, and a
        queen woken or bounced is seen by everyone (SQ-5, SQ-18)."""
        if isinstance(event, DeckShuffled):
            cards = tuple(CARD_NOTATION[c] for c in event.cards)
            return (DeckOrder(event.shuffle, cards),)
        if isinstance(event, QueensLaid):
            queens = tuple(QUEEN_NAMES[q] for q in event.queens)
            return (DeckOrder(QUEENS_SHUFFLE, queens, pile=False),)
        if isinstance(event, CardsDrawn):
            return (CardsTaken(event.count, (event.seat,)),)
        if isinstance(event, JesterTurned):
            return (CardsTaken(1, None),)
        if isinstance(event, QueenWoken | QueenBounced):
            return (CardShown(None, event.position, QUEENS_SHUFFLE),)
        return ()

    def ending(self, state: SleepingQueensState) -> Ending | None:
        # Written by the end event from its public fields (model.GameEnded.end_reason).
        ended = state.ended
        return None if ended is None else Ending(ended.end_rule_id, ended.end_reason)

    def results(self, state: SleepingQueensState) -> tuple[SeatResult, ...] | None:
        """Score 1 for each winner (SQ-15, SQ-16; tied winners share), 0 for the others.

        Points are not the score: by SQ-15 a player with 5 queens beats one with more points.
        Points and queens by seat are in :class:`GameEnded` and the view.
        """
        if state.phase is not Phase.OVER:
            return None
        winners = state.winners
        return rank_by_score(
            [1 if s in winners else 0 for s in range(state.players)], lower_wins=False
        )

    def limit_results(self, state: SleepingQueensState, players: int) -> tuple[SeatResult, ...]:
        """At the event limit: the points of the queens each seat holds, most first (as SQ-16
        ranks a game with no queen left asleep; tied seats share)."""
        return rank_by_score(state.points, lower_wins=False)

    def default_command(self, state: SleepingQueensState, seat: Seat) -> Command | None:
        """A timeout wakes a queen when the seat holds a King (SQ-5: the game moves on),
        else plays the first legal command (the gentlest)."""
        legal = self.legal_commands(state, seat)
        return next((c for c in legal if isinstance(c, PlayKing)), legal[0] if legal else None)
