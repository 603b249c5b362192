"""Vampire Queen rules (``docs/rules/vampire-queen.md``): the :class:`Game`, wired to its parts.

``state`` holds the table, ``decide`` the handlers of each (phase, command) and the legal
commands, ``apply`` the event handlers, ``view`` what each viewer may know; each rule id
appears where it is enforced.

>>> from referee.engine import Table
>>> table = Table.create("vampire-queen", players=3, seed=b"x")
>>> view = table.view(table.pending()[0])
>>> len(view.game.hand) >= 13  # VQ-3: 13 cards, plus any Hunter
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from referee.engine.chance import check_fixed_deck, check_fixed_pick, deck_for, pick_for
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
    Seat,
    SeatResult,
    Viewer,
    rank_by_score,
    union_members,
)
from referee.games.vampire_queen import labels
from referee.games.vampire_queen.apply import apply
from referee.games.vampire_queen.decide import (
    HANDLERS,
    command_space,
    deal,
    decision,
    legal_commands,
)
from referee.games.vampire_queen.model import (
    Command,
    Event,
    HandDealt,
    RoundStarted,
    TrickKind,
    VampireQueenView,
)
from referee.games.vampire_queen.state import (
    DECK,
    VampireQueenState,
    copy_state,
    hand_size_for,
)
from referee.games.vampire_queen.view import SEAT_FIELDS, hidden_variant, redact, view

__all__ = ["DECK", "VampireQueen", "VampireQueenState", "hand_size_for"]


class VampireQueen(Game[VampireQueenState, Command, Event]):
    info = GameInfo(
        type_id="vampire-queen",
        name="Vampire Queen",
        min_players=3,  # VQ-2
        players_rule="VQ-2",
        score_meaning="penalty points, lower is better (VQ-19)",
        max_events=50_000,  # 5 rounds take a few hundred events, 50 rounds of 12 about 15,000
        max_players=12,
        options=(
            OptionSpec(
                "hunter_tie",
                "first",
                "VQ-14: who takes a Hunter trick when several tie for the highest card",
                allowed=("first", "last"),
            ),
            OptionSpec(
                "hunter_queen",
                "1",
                "VQ-12: what a queen counts in a Hunter trick",
                allowed=("1", "14"),
            ),
            OptionSpec("rounds", "5", "VQ-19: rounds in the game", minimum=1, maximum=50),
        ),
        rules="vampire-queen.md",
        summary="Climbing and shedding: beat the set led or pass; never get stuck with a Hunter.",
    )
    command_types = union_members(Command)
    event_types = union_members(Event)
    view_type = VampireQueenView
    seat_fields = SEAT_FIELDS

    # Display text for people, never for parsing (labels.py, View/Event in the protos).
    def command_label(self, command: Command, view: Any) -> str:
        return labels.command_label(command, view)

    def event_text(self, event: Event) -> str:
        return labels.event_text(event)

    # --- setup -------------------------------------------------------------------------------

    def new_state(self, config: GameConfig) -> VampireQueenState:
        if config.deal is not None:
            # Every part of a fixed deal is checked here, so no shuffle can fail mid-game:
            # deck k deals round k + 1 (the 108 cards of VQ-1), pick 0 the 15 Hunter (VQ-4).
            for index in range(len(config.deal.decks)):
                check_fixed_deck(config, index, DECK, note=f"round {index + 1}, VQ-1")
            check_fixed_pick(config, 0, config.players, "the seat of the 15 Hunter, VQ-4")
        n = config.players
        return VampireQueenState(
            config=config,
            players=n,
            rounds=int(config.options["rounds"]),
            hunter_tie_last=config.options["hunter_tie"] == "last",
            hunter_queen=int(config.options["hunter_queen"]),
            hand_size=hand_size_for(n),
            hands=[bytearray(15) for _ in range(n)],
            barred=(0,) * n,
            totals=(0,) * n,
        )

    def start(self, state: VampireQueenState) -> list[Event]:
        # VQ-4: a random seat receives the 15 Hunter; its left neighbour the 20 and leads.
        first = pick_for(state.config, state.picks, state.players)
        return deal(state, 1, first, state.next_seat(first), hunter_pick=True)

    # --- deciding (the engine checks who may act and the shape; decide.py the rest) ---------

    handlers: ClassVar[Mapping[tuple[Any, type], Handler[VampireQueenState, Event]]] = HANDLERS
    shape_rule = "VQ-8"  # a malformed set (or any command) is refused as not a set of VQ-8

    def phase(self, state: VampireQueenState) -> TrickKind:
        return state.trick_kind  # the lead, a normal trick or a Hunter trick

    def end_rule(self, state: VampireQueenState) -> str:
        return "VQ-19"  # the last round was scored

    def decisions(self, state: VampireQueenState) -> tuple[Decision, ...]:
        if state.over:
            return ()
        return (decision(state.turn, state.trick_kind),)

    def may_decide(self, state: VampireQueenState, seat: Seat) -> bool:
        return not state.over and seat == state.turn  # one seat decides at a time

    def pending(self, state: VampireQueenState) -> tuple[Seat, ...]:
        return () if state.over else (state.turn,)

    # --- the rest: the functions themselves (methods, as a compiled class needs) ----------

    def apply(self, state: VampireQueenState, event: Event) -> VampireQueenState:
        return apply(state, event)

    def legal_commands(self, state: VampireQueenState, seat: Seat) -> list[Command]:
        return legal_commands(state, seat)

    def command_space(self, state: VampireQueenState, seat: Seat) -> list[Command]:
        return command_space(state, seat)

    def view(self, state: VampireQueenState, viewer: Viewer) -> Any:
        return view(state, viewer)

    def redact(self, event: Event, viewer: Viewer) -> Event:
        return redact(event, viewer)

    def hidden_variant(
        self, state: VampireQueenState, viewer: Viewer, salt: int
    ) -> VampireQueenState:
        return hidden_variant(state, viewer, salt)

    def copy_state(self, state: VampireQueenState) -> VampireQueenState:
        return copy_state(state)

    def chance_steps(self, config: GameConfig, event: Event) -> Sequence[ChanceStep]:
        """VQ-4: each round's shuffle deals ``hand_size`` cards to each seat in seat order
        (positions ``s*size ..``); the rest stay set aside, opened to no one (VQ-21)."""
        if isinstance(event, RoundStarted):
            return (DeckOrder(event.shuffle, tuple(deck_for(config, event.shuffle, DECK))),)
        if isinstance(event, HandDealt):
            return (CardsTaken(event.count, (event.seat,)),)
        return ()

    def ending(self, state: VampireQueenState) -> Ending | None:
        # Written by the end event from its public fields (model.GameEnded.end_reason).
        ended = state.ended
        return None if ended is None else Ending(ended.end_rule_id, ended.end_reason)

    def results(self, state: VampireQueenState) -> tuple[SeatResult, ...] | None:
        if not state.over:
            return None
        return rank_by_score(state.totals, lower_wins=True)  # VQ-19

    def limit_results(self, state: VampireQueenState, players: int) -> tuple[SeatResult, ...]:
        """At the event limit: the totals of the rounds played, lowest first (VQ-19)."""
        return rank_by_score(state.totals, lower_wins=True)
