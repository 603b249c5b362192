"""Vampire Queen: folding an event into the state, one small function per event (the only
code that changes a state). Events carry everything needed: nothing is checked or drawn."""

from __future__ import annotations

from functools import cache
from typing import Any

from referee.engine.search_table import replaced
from referee.games.vampire_queen.model import (
    HUNTER_15,
    HUNTER_20,
    HUNTERS,
    QUEEN,
    CardPlayed,
    Event,
    GameEnded,
    HandDealt,
    HunterLed,
    Passed,
    PlayKind,
    RoundScored,
    RoundStarted,
    SetPlayed,
    Skipped,
    TrickKind,
    TrickPlay,
    TrickWon,
)
from referee.games.vampire_queen.state import VampireQueenState

# Trick plays are immutable values with few distinct ones: each is built once (apply runs at
# every step, and a frozen dataclass's __init__ costs more than a cache hit).
_trick_play = cache(TrickPlay)


def apply(state: VampireQueenState, event: Event) -> VampireQueenState:
    """Fold ``event`` into ``state`` (in place) and return it; the view's public part goes."""
    state.public = None
    _APPLY[type(event)](state, event)
    return state


def _apply_round_started(state: VampireQueenState, e: RoundStarted) -> None:
    state.round = e.round
    state.hunter_holder = {HUNTER_15: e.hunter_15_holder, HUNTER_20: e.hunter_20_holder}
    state.hunter_on_table = 0
    state.leader = state.turn = e.leader
    state.hands = [bytearray(15) for _ in range(state.players)]
    state.barred = (0,) * state.players  # VQ-15 ruling: no carry-over into a new round
    _clear_trick(state)
    state.shuffles += 1
    if e.hunter_pick:
        state.picks += 1


def _apply_hand_dealt(state: VampireQueenState, e: HandDealt) -> None:
    counts = bytearray(15)  # state.py: one byte a count
    for value in e.cards:
        counts[value] += 1
    state.hands[e.seat] = counts


def _start_play(state: VampireQueenState, seat: int) -> None:
    if seat == state.leader and state.barred[seat]:
        state.barred = replaced(state.barred, seat, 0)  # VQ-15: it covers one lead only


def _apply_set_played(state: VampireQueenState, e: SetPlayed) -> None:
    _start_play(state, e.seat)
    hand = state.hands[e.seat]
    hand[QUEEN] -= e.queens
    if e.value != QUEEN:
        hand[e.value] -= e.count - e.queens
    if state.trick_kind is TrickKind.UNSPECIFIED:
        state.trick_kind = TrickKind.NORMAL
        state.lead_count = e.count
    state.trick += (_trick_play(e.seat, PlayKind.SET, e.value, e.count, e.queens),)
    state.best_value, state.best_seat = e.value, e.seat
    state.turn = state.next_seat(e.seat)


def _apply_passed(state: VampireQueenState, e: Passed) -> None:
    state.trick += (_trick_play(e.seat, PlayKind.PASS, 0, 0, 0),)
    state.turn = state.next_seat(e.seat)


def _apply_hunter_led(state: VampireQueenState, e: HunterLed) -> None:
    _start_play(state, e.seat)
    state.trick_kind = TrickKind.HUNTER
    state.hunter_on_table = e.hunter
    state.pile = (e.hunter,)
    state.best_value, state.best_seat = 0, -1  # VQ-11: the Hunter counts 0
    state.trick += (_trick_play(e.seat, PlayKind.HUNTER, e.hunter, 1, 0),)
    state.turn = state.next_seat(e.seat)


def _apply_card_played(state: VampireQueenState, e: CardPlayed) -> None:
    state.hands[e.seat][e.value] -= 1
    state.pile += (e.value,)
    rank = state.hunter_queen if e.value == QUEEN else e.value  # VQ-12 ruling
    if rank > state.best_value or (rank == state.best_value and state.hunter_tie_last):
        state.best_value, state.best_seat = rank, e.seat  # VQ-14 tie ruling
    queens = 1 if e.value == QUEEN else 0
    state.trick += (_trick_play(e.seat, PlayKind.CARD, e.value, 1, queens),)
    state.turn = state.next_seat(e.seat)


def _apply_skipped(state: VampireQueenState, e: Skipped) -> None:
    state.trick += (_trick_play(e.seat, PlayKind.SKIP, 0, 0, 0),)
    state.turn = state.next_seat(e.seat)


def _apply_trick_won(state: VampireQueenState, e: TrickWon) -> None:
    if e.hunter_trick:
        hand = state.hands[e.winner]
        for value in e.taken:
            if value in HUNTERS:
                state.hunter_holder[value] = e.winner
            else:
                hand[value] += 1
        if e.winner != state.leader:
            state.barred = replaced(state.barred, e.winner, state.hunter_on_table)  # VQ-15
        state.hunter_on_table = 0
    state.leader = state.turn = e.winner  # VQ-10/VQ-14: the winner leads next
    _clear_trick(state)


def _apply_round_scored(state: VampireQueenState, e: RoundScored) -> None:
    state.totals = e.totals
    state.last_penalties = e.penalties


def _apply_game_ended(state: VampireQueenState, e: GameEnded) -> None:
    state.ended = e
    state.over = True
    state.turn = -1


def _clear_trick(state: VampireQueenState) -> None:
    state.trick_kind = TrickKind.UNSPECIFIED
    state.trick = ()
    state.lead_count = 0
    state.best_value = 0
    state.best_seat = -1
    state.pile = ()


_APPLY: dict[type, Any] = {  # the event's type -> its handler
    RoundStarted: _apply_round_started,
    HandDealt: _apply_hand_dealt,
    SetPlayed: _apply_set_played,
    Passed: _apply_passed,
    HunterLed: _apply_hunter_led,
    CardPlayed: _apply_card_played,
    Skipped: _apply_skipped,
    TrickWon: _apply_trick_won,
    RoundScored: _apply_round_scored,
    GameEnded: _apply_game_ended,
}
