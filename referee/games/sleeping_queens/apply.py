"""Sleeping Queens: folding an event into the state, one small function per event (the only
code that changes a state). Events carry everything needed: nothing is checked or drawn."""

from __future__ import annotations

from typing import Any

from referee.engine.search_table import replaced
from referee.games.sleeping_queens.model import (
    JESTER,
    KING,
    KNIGHT,
    POSITIONS,
    POTION,
    QUEEN_POINTS,
    BlockDeclined,
    Blocked,
    CardsDrawn,
    DeckShuffled,
    Discarded,
    Event,
    GameEnded,
    JesterPlayed,
    JesterTurned,
    KingPlayed,
    KnightBounced,
    KnightPlayed,
    KnightWasted,
    Phase,
    PotionPlayed,
    QueenBounced,
    QueenPutToSleep,
    QueensLaid,
    QueenStolen,
    QueenWoken,
    RoseBonus,
    TurnStarted,
)
from referee.games.sleeping_queens.state import QUEENS_SHUFFLE, SleepingQueensState


def apply(state: SleepingQueensState, event: Event) -> SleepingQueensState:
    """Fold ``event`` into ``state`` (in place) and return it; the view's public part goes."""
    state.public = None
    _APPLY[type(event)](state, event)
    return state


def _apply_deck_shuffled(state: SleepingQueensState, e: DeckShuffled) -> None:
    state.draw = list(reversed(e.cards))
    if e.reshuffle:
        state.discard = []  # SQ-14: the whole discard pile
    state.shuffles = e.shuffle + 1


def _apply_queens_laid(state: SleepingQueensState, e: QueensLaid) -> None:
    state.positions = tuple(e.queens)
    state.known = (False,) * POSITIONS
    state.sleeping = len(e.queens)
    state.shuffles = QUEENS_SHUFFLE + 1


def _apply_cards_drawn(state: SleepingQueensState, e: CardsDrawn) -> None:
    del state.draw[len(state.draw) - e.count :]
    hand = state.hands[e.seat]
    for card in e.cards:
        hand[card] += 1
    state.sizes[e.seat] += e.count


def _apply_turn_started(state: SleepingQueensState, e: TurnStarted) -> None:
    state.turn = state.decider = e.seat
    state.phase = Phase.TURN
    state.attacker = -1
    state.target_queen = state.attack = state.jester_card = 0


def _play(state: SleepingQueensState, seat: int, card: int) -> None:
    state.hands[seat][card] -= 1
    state.sizes[seat] -= 1
    state.discard.append(card)


def _apply_discarded(state: SleepingQueensState, e: Discarded) -> None:
    hand = state.hands[e.seat]
    for card in e.cards:
        hand[card] -= 1
    state.sizes[e.seat] -= len(e.cards)
    state.discard += e.cards


def _apply_king_played(state: SleepingQueensState, e: KingPlayed) -> None:
    _play(state, e.seat, KING)
    state.phase = Phase.UNSPECIFIED


def _apply_queen_woken(state: SleepingQueensState, e: QueenWoken) -> None:
    state.positions = replaced(state.positions, e.position, 0)
    state.known = replaced(state.known, e.position, False)
    state.sleeping -= 1
    _gain(state, e.seat, e.queen)
    state.phase = Phase.UNSPECIFIED


def _apply_queen_bounced(state: SleepingQueensState, e: QueenBounced) -> None:
    state.known = replaced(state.known, e.position, True)  # SQ-18: everyone saw her
    state.phase = Phase.UNSPECIFIED


def _apply_rose_bonus(state: SleepingQueensState, e: RoseBonus) -> None:
    if not e.lost:
        state.phase = Phase.ROSE_WAKE
        state.decider = e.seat


def _apply_jester_played(state: SleepingQueensState, e: JesterPlayed) -> None:
    _play(state, e.seat, JESTER)


def _apply_jester_turned(state: SleepingQueensState, e: JesterTurned) -> None:
    state.draw.pop()
    state.jester_card = e.card
    if e.counted is None:  # a power card: into the hand, the same player plays again
        state.hands[e.seat][e.card] += 1
        state.sizes[e.seat] += 1
        state.phase = Phase.TURN
        state.decider = e.seat
    else:
        state.discard.append(e.card)
        state.phase = Phase.JESTER_WAKE
        state.decider = e.counted


def _attack(state: SleepingQueensState, e: KnightPlayed | PotionPlayed, card: int) -> None:
    _play(state, e.seat, card)
    state.phase = Phase.BLOCK
    state.decider = e.target
    state.attacker = e.seat
    state.target_queen = e.queen
    state.attack = card


def _apply_knight_played(state: SleepingQueensState, e: KnightPlayed) -> None:
    _attack(state, e, KNIGHT)


def _apply_potion_played(state: SleepingQueensState, e: PotionPlayed) -> None:
    _attack(state, e, POTION)


def _apply_blocked(state: SleepingQueensState, e: Blocked) -> None:
    _play(state, e.seat, e.card)
    state.phase = Phase.UNSPECIFIED


def _place(state: SleepingQueensState) -> None:
    state.phase = Phase.PLACE_QUEEN
    state.decider = state.attacker


def _apply_block_declined(state: SleepingQueensState, e: BlockDeclined) -> None:
    if state.attack == POTION:
        _place(state)
    else:
        state.phase = Phase.UNSPECIFIED


def _lose(state: SleepingQueensState, seat: int, queen: int) -> None:
    awake = state.awake[seat]
    at = awake.index(queen)
    state.awake = replaced(state.awake, seat, awake[:at] + awake[at + 1 :])
    state.points = replaced(state.points, seat, state.points[seat] - QUEEN_POINTS[queen])
    state.owner = replaced(state.owner, queen, -1)


def _gain(state: SleepingQueensState, seat: int, queen: int) -> None:
    state.owner = replaced(state.owner, queen, seat)
    state.awake = replaced(state.awake, seat, (*state.awake[seat], queen))
    state.points = replaced(state.points, seat, state.points[seat] + QUEEN_POINTS[queen])


def _apply_queen_stolen(state: SleepingQueensState, e: QueenStolen) -> None:
    _lose(state, e.from_seat, e.queen)
    _gain(state, e.seat, e.queen)


def _apply_knight_wasted(state: SleepingQueensState, e: KnightWasted) -> None:
    pass  # SQ-12 ruling: nothing moves


def _apply_knight_bounced(state: SleepingQueensState, e: KnightBounced) -> None:
    _place(state)


def _apply_queen_put_to_sleep(state: SleepingQueensState, e: QueenPutToSleep) -> None:
    _lose(state, e.seat, e.queen)
    state.positions = replaced(state.positions, e.position, e.queen)
    state.known = replaced(state.known, e.position, True)  # SQ-18
    state.sleeping += 1
    state.phase = Phase.UNSPECIFIED


def _apply_game_ended(state: SleepingQueensState, e: GameEnded) -> None:
    state.ended = e
    state.phase = Phase.OVER
    state.decider = -1
    state.winners = e.winners
    state.end_rule = e.rule


_APPLY: dict[type, Any] = {  # the event's type -> its handler
    DeckShuffled: _apply_deck_shuffled,
    QueensLaid: _apply_queens_laid,
    CardsDrawn: _apply_cards_drawn,
    TurnStarted: _apply_turn_started,
    Discarded: _apply_discarded,
    KingPlayed: _apply_king_played,
    QueenWoken: _apply_queen_woken,
    QueenBounced: _apply_queen_bounced,
    RoseBonus: _apply_rose_bonus,
    JesterPlayed: _apply_jester_played,
    JesterTurned: _apply_jester_turned,
    KnightPlayed: _apply_knight_played,
    PotionPlayed: _apply_potion_played,
    Blocked: _apply_blocked,
    BlockDeclined: _apply_block_declined,
    QueenStolen: _apply_queen_stolen,
    KnightWasted: _apply_knight_wasted,
    KnightBounced: _apply_knight_bounced,
    QueenPutToSleep: _apply_queen_put_to_sleep,
    GameEnded: _apply_game_ended,
}
