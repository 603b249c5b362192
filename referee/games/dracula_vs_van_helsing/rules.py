"""Dracula vs Van Helsing rules (``docs/rules/dracula-vs-van-helsing.md``, DV-1 ... DV-26);
each rule id appears where it is enforced.

This module is the game (:class:`DraculaVsVanHelsing`): setup and the first deal, the pending
decisions and who may act, the legal commands. Around it: :mod:`.state` (the state),
:mod:`.decide` (a handler per step and command type), :mod:`.apply` (the event handlers) and
:mod:`.view` (views, redaction, hidden variants).

>>> from referee.engine import Table
>>> table = Table.create("dracula-vs-van-helsing", 2, options={"dracula": "1"}, seed=b"x")
>>> table.decisions()  # DV-6: Dracula takes the first turn
(Decision(seat=1, kind='turn', rule_id='DV-7'),)
>>> table.legal_commands(1)  # DV-7: no call before six discards
[Draw()]
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
from referee.games.dracula_vs_van_helsing import decide, labels, view
from referee.games.dracula_vs_van_helsing.apply import apply as apply_event
from referee.games.dracula_vs_van_helsing.model import (
    COLOURS,
    DECK,
    DISCARDS_TO_CALL,
    DISTRICTS,
    CallEnd,
    CardDrawn,
    ChooseTrump,
    Command,
    DeckTopRevealed,
    DiscardDrawn,
    DraculaVsVanHelsingView,
    Draw,
    Event,
    ExchangeDistrict,
    GameEnd,
    GameStarted,
    PlaceDrawn,
    RevealOpponent,
    RevealOwn,
    Role,
    RoundStarted,
    SlotsDealt,
    Step,
    SwapSlots,
    TurnKind,
    TurnStarted,
)
from referee.games.dracula_vs_van_helsing.state import (
    DISTRICT_NUMBERS,
    DraculaVsVanHelsingState,
    copy_state,
)
from referee.games.dracula_vs_van_helsing.view import SEAT_FIELDS
from referee.games.dracula_vs_van_helsing.view import view as view_of

__all__ = ["DraculaVsVanHelsing", "DraculaVsVanHelsingState"]

#: Decision kind and rule of each step (a turn after a call is "last_turn", DV-19).
_DECISION = {
    Step.TURN: ("turn", "DV-7"),
    Step.PLACE: ("place_or_discard", "DV-7"),
    Step.REVEAL_OWN: ("reveal_own", "DV-10"),
    Step.REVEAL_OPPONENT: ("reveal_opponent", "DV-12"),
    Step.SWAP_SLOTS: ("swap_slots", "DV-13"),
    Step.EXCHANGE_DISTRICT: ("exchange_district", "DV-15"),
    Step.CHOOSE_TRUMP: ("choose_trump", "DV-16"),
}

# Commands are frozen values: legal_commands hands out these (it runs on every step of a bot).
_DRAW = Draw()
_CALL = CallEnd()
_DISCARD = DiscardDrawn()
_PLACE = tuple(PlaceDrawn(d) for d in DISTRICT_NUMBERS)
_REVEAL_OWN = tuple(RevealOwn(d) for d in DISTRICT_NUMBERS)
_REVEAL_OPPONENT = tuple(RevealOpponent(d) for d in DISTRICT_NUMBERS)
_SWAPS = tuple(SwapSlots(a, b) for a in DISTRICT_NUMBERS for b in DISTRICT_NUMBERS if a < b)
_EXCHANGE = tuple(ExchangeDistrict(d) for d in DISTRICT_NUMBERS)
_TRUMPS = tuple(ChooseTrump(int(c)) for c in COLOURS)


#: (step, active seat, end called) -> the pending decisions, built once (frozen values).
_DECISIONS: dict[tuple[Step, int, bool], tuple[Decision, ...]] = {
    (step, seat, called): (
        Decision(seat, "last_turn", "DV-19")
        if step is Step.TURN and called
        else Decision(seat, *_DECISION[step]),
    )
    for step in _DECISION
    for seat in (0, 1)
    for called in (False, True)
}
#: Active seat -> the seats pending (DV-6: one seat decides at a time).
_ACTIVE = {0: (0,), 1: (1,)}


class DraculaVsVanHelsing(Game[DraculaVsVanHelsingState, Command, Event]):
    info = GameInfo(
        type_id="dracula-vs-van-helsing",
        name="Dracula vs Van Helsing",
        min_players=2,  # DV-1
        players_rule="DV-1",
        score_meaning="1 for the winner, 0 for the loser (DV-22, DV-23)",
        max_events=5_000,  # five rounds take about 300 events
        max_players=2,
        options=(
            OptionSpec(
                "dracula",
                "random",
                "DV-1: the seat that plays Dracula (the other plays Van Helsing)",
                allowed=("random", "0", "1"),
            ),
            OptionSpec(
                "resolution_order",
                "1-5",
                "DV-20: the order districts are resolved in (where the weather vane points)",
                allowed=("1-5", "5-1"),
            ),
        ),
        rules="dracula-vs-van-helsing.md",
        summary=(
            "Two-player duel over 5 districts: draw, swap and discard cards for their effects; "
            "Dracula turns humans into vampires, Van Helsing drains his HP."
        ),
    )
    command_types = union_members(Command)
    event_types = union_members(Event)
    view_type = DraculaVsVanHelsingView
    seat_fields = SEAT_FIELDS

    # Display text for people, never for parsing (labels.py, View/Event in the protos).
    def command_label(self, command: Command, view: Any) -> str:
        return labels.command_label(command, view)

    def event_text(self, event: Event) -> str:
        return labels.event_text(event)

    # --- setup -------------------------------------------------------------------------------

    def new_state(self, config: GameConfig) -> DraculaVsVanHelsingState:
        if config.deal is not None:
            # Checked here, not at the deal of a later round: a bad deck must fail the setup.
            for index in range(len(config.deal.decks)):
                check_fixed_deck(config, index, DECK, note=f"round {index + 1}, DV-2")
            for index, (n, note) in enumerate(
                ((2, "Dracula's seat, DV-1"), (4, "trump, DV-4"), (3, "DV-4"), (2, "DV-4"))
            ):
                check_fixed_pick(config, index, n, note)
        order = tuple(DISTRICT_NUMBERS)
        if config.options["resolution_order"] == "5-1":
            order = order[::-1]
        return DraculaVsVanHelsingState(config=config, order=order)

    def start(self, state: DraculaVsVanHelsingState) -> list[Event]:
        config = state.config
        # DV-1: the option names Dracula's seat, or pick 0 draws it.
        option = config.options["dracula"]
        picked = option == "random"
        dracula = pick_for(config, 0, 2) if picked else int(option)
        # DV-4: picks 1-3 draw the track one colour at a time, trump first.
        left = list(COLOURS)
        track = [left.pop(pick_for(config, index, len(left))) for index in (1, 2, 3)]
        track.append(left[0])
        events: list[Event] = [
            GameStarted(dracula, 1 - dracula, picked, tuple(track), state.order),
            *decide.deal(config, 1),
            TurnStarted(dracula, TurnKind.NORMAL),  # DV-6
        ]
        return events

    # --- deciding ----------------------------------------------------------------------------

    def decisions(self, state: DraculaVsVanHelsingState) -> tuple[Decision, ...]:
        step = state.step
        if step is Step.OVER or step is Step.UNSPECIFIED:
            return ()
        return _DECISIONS[step, state.active, state.called_by >= 0]

    def pending(self, state: DraculaVsVanHelsingState) -> tuple[Seat, ...]:
        # The seats of decisions(): only the active seat is ever asked (runs on every step).
        step = state.step
        if step is Step.OVER or step is Step.UNSPECIFIED:
            return ()
        return _ACTIVE[state.active]

    # The engine's decide checks who may act and the command's shape, then calls the
    # handler of (step, command type): decide.HANDLERS.
    handlers: ClassVar[Mapping[tuple[Any, type], Handler[DraculaVsVanHelsingState, Event]]] = (
        decide.HANDLERS
    )

    def phase(self, state: DraculaVsVanHelsingState) -> Step:
        return state.step

    def may_decide(self, state: DraculaVsVanHelsingState, seat: Seat) -> bool:
        step = state.step  # DV-6: only the active seat, while a step waits for it
        return seat == state.active and step is not Step.OVER and step is not Step.UNSPECIFIED

    def end_rule(self, state: DraculaVsVanHelsingState) -> str:
        # Once over, a command is refused by the rule that ended the game.
        return "DV-23" if state.end is GameEnd.ROUNDS else "DV-22"

    # The functions themselves, not methods calling them: they run on every step.
    def apply(self, state: DraculaVsVanHelsingState, event: Event) -> DraculaVsVanHelsingState:
        return apply_event(state, event)

    # --- what a seat may see and do ----------------------------------------------------------

    def legal_commands(self, state: DraculaVsVanHelsingState, seat: Seat) -> list[Command]:
        step = state.step
        if seat != state.active or step is Step.OVER or step is Step.UNSPECIFIED:
            return []
        if step is Step.TURN:
            if state.called_by < 0 and len(state.pile) >= DISCARDS_TO_CALL:  # DV-7, DV-19
                return [_DRAW, _CALL]
            return [_DRAW]
        if step is Step.PLACE:
            if len(state.pile) >= DISCARDS_TO_CALL:  # DV-8: an 8 may go now
                return [_DISCARD, *_PLACE]
            moves: list[Command] = [] if state.drawn % 10 == 8 else [_DISCARD]
            slots = state.slots[seat]
            moves += [p for p, c in zip(_PLACE, slots, strict=True) if c % 10 != 8]
            return moves
        revealed = state.revealed
        if step is Step.REVEAL_OWN:  # DV-10
            own = state.slots[seat]
            return [r for r, c in zip(_REVEAL_OWN, own, strict=True) if not revealed[c]]
        if step is Step.REVEAL_OPPONENT:  # DV-12
            theirs = state.slots[1 - seat]
            return [r for r, c in zip(_REVEAL_OPPONENT, theirs, strict=True) if not revealed[c]]
        if step is Step.SWAP_SLOTS:  # DV-13
            return list(_SWAPS)
        if step is Step.EXCHANGE_DISTRICT:  # DV-15
            return list(_EXCHANGE)
        trump = state.track[0]  # DV-16: any colour but the trump
        return [command for command in _TRUMPS if command.colour != trump]

    def command_space(self, state: DraculaVsVanHelsingState, seat: Seat) -> list[Command]:
        near = range(0, DISTRICTS + 2)  # 0 and 6 are out of range on purpose
        space: list[Command] = [_DRAW, _CALL, _DISCARD]
        for district in near:
            space += [
                PlaceDrawn(district),
                RevealOwn(district),
                RevealOpponent(district),
                ExchangeDistrict(district),
            ]
        space += [SwapSlots(a, b) for a in near for b in near]
        space += [ChooseTrump(c) for c in range(0, 6)]
        return space

    def view(self, state: DraculaVsVanHelsingState, viewer: Viewer) -> Any:
        return view_of(state, viewer)

    def chance_steps(self, config: GameConfig, event: Event) -> Sequence[ChanceStep]:
        """DV-5: positions 0-4 are seat 0's slots, 5-9 seat 1's, the rest the deck, drawn
        from the top (the drawer sees the card; everyone when a 2 revealed it, DV-11)."""
        if isinstance(event, RoundStarted):
            return (DeckOrder(event.shuffle, tuple(deck_for(config, event.shuffle, DECK))),)
        if isinstance(event, SlotsDealt):
            return (CardsTaken(len(event.cards), (event.seat,)),)
        if isinstance(event, CardDrawn):
            return (CardsTaken(1, None if event.revealed else (event.seat,)),)
        if isinstance(event, DeckTopRevealed):
            return (CardShown(None),)
        return ()

    def redact(self, event: Event, viewer: Viewer) -> Event:
        return view.redact(event, viewer)

    def ending(self, state: DraculaVsVanHelsingState) -> Ending | None:
        # Written by the end event from its public fields (model.GameEnded.end_reason).
        ended = state.ended
        return None if ended is None else Ending(ended.end_rule_id, ended.end_reason)

    def results(self, state: DraculaVsVanHelsingState) -> tuple[SeatResult, ...] | None:
        """The winner scores 1 and ranks 1, the loser scores 0 and ranks 2 (DV-22, DV-23)."""
        if state.step is not Step.OVER:
            return None
        winner = state.dracula if state.winner is Role.DRACULA else 1 - state.dracula
        return rank_by_score([int(seat == winner) for seat in (0, 1)], lower_wins=False)

    def hidden_variant(
        self, state: DraculaVsVanHelsingState, viewer: Viewer, salt: int
    ) -> DraculaVsVanHelsingState:
        return view.hidden_variant(state, viewer, salt)

    def copy_state(self, state: DraculaVsVanHelsingState) -> DraculaVsVanHelsingState:
        return copy_state(state)
