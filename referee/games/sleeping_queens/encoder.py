"""Sleeping Queens (2-5 players) for learning agents: actions, observation and reward.

**Actions** (the same for every player count), in this order: Discard of one card (codes
1-16, SQ-2), Discard of a pair of equal numbers (1-10), Discard of every equation of 3-5
number cards the deck allows (SQ-9, shortest first, then ascending), PlayKing(position 0-11),
PlayKnight(queen 1-12), PlayPotion(queen 1-12), PlayJester, Block, DeclineBlock,
WakeQueen(position 0-11), PlaceQueen(position 0-11). ``actions(n, {}).commands`` lists them.

**Observation**: only the seat's view (SQ-17 ... SQ-19). Seats are relative to the viewer.
The hand as counts per card (/5); every seat's hand size; the draw pile size; the discard pile
as counts per card (card counting); the 12 positions (asleep, identity known, her points if
known); for every queen where she is (awake in front of a relative seat, asleep where known,
asleep somewhere unknown); every seat's awake points and queens; the phase, the seats on turn,
deciding and attacking, the queen targeted, the Jester's card; the options and the winners.

**Reward: win/loss**, ``+1`` for each winner, ``-1`` for everyone else. SQ-15/SQ-16 name the
winners only (5 queens or 50 points, or the most when the queens run out) and rank nobody else:
points are not the score (the results give 1 to each winner and 0 to the rest).
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.engine import View
from referee.games.sleeping_queens.model import (
    CARD_COUNTS,
    CARDS,
    HAND_SIZE,
    POSITIONS,
    QUEEN_POINTS,
    Block,
    DeclineBlock,
    Discard,
    PlaceQueen,
    PlayJester,
    PlayKing,
    PlayKnight,
    PlayPotion,
    SleepingQueensView,
    WakeQueen,
)
from referee.rl.core import ActionTable, Layout, Observation, finish, scaled, win_reward, zeros

REWARD = "win"
NUMBERS = range(1, 11)
QUEENS = range(1, 13)
DECK = sum(CARD_COUNTS.values())
CAT_DOG = ("illegal", "wasted", "bounce")
_QUEEN_SET = frozenset(QUEENS)


def equations() -> list[tuple[int, ...]]:
    """SQ-9: every equation of 3-5 number cards (at most 4 of a number): ascending cards whose
    largest is the sum of the others, shortest first.

    >>> equations()[:3]
    [(1, 1, 2), (1, 2, 3), (1, 3, 4)]
    """
    found: list[tuple[int, ...]] = []

    def extend(prefix: tuple[int, ...]) -> None:
        if len(prefix) >= 3 and prefix[-1] == sum(prefix[:-1]):
            found.append(prefix)
        if len(prefix) < HAND_SIZE:
            for n in range(prefix[-1] if prefix else 1, 11):
                if prefix.count(n) < CARD_COUNTS[n]:
                    extend((*prefix, n))

    extend(())
    return sorted(found, key=lambda cards: (len(cards), cards))


def actions(players: int, options: Mapping[str, str]) -> ActionTable:
    commands: list[object] = [Discard((c,)) for c in range(1, CARDS + 1)]
    commands += [Discard((n, n)) for n in NUMBERS]
    commands += [Discard(cards) for cards in equations()]
    commands += [PlayKing(p) for p in range(POSITIONS)]
    commands += [PlayKnight(q) for q in QUEENS]
    commands += [PlayPotion(q) for q in QUEENS]
    commands += [PlayJester(), Block(), DeclineBlock()]
    commands += [WakeQueen(p) for p in range(POSITIONS)]
    commands += [PlaceQueen(p) for p in range(POSITIONS)]
    return ActionTable(__name__, commands)


def reward(rank: int, players: int) -> float:
    return win_reward(rank, players)


class Encoder:
    def __init__(self, players: int, options: Mapping[str, str]) -> None:
        n = self.players = players
        layout = self.layout = Layout()
        self.o_hand = layout.add("hand", CARDS, "counts of cards 1-16 (/5)")
        self.o_sizes = layout.add("hand_sizes", n, "cards in hand / 5, by relative seat")
        self.o_draw = layout.add("draw_pile", 1, "draw pile size / 67")
        self.o_discard = layout.add("discard_pile", CARDS, "counts of cards 1-16 / their number")
        self.o_positions = layout.add(
            "positions", 3 * POSITIONS, "per position: asleep, identity known, her points / 20"
        )
        self.where = n + 2
        self.o_queens = layout.add(
            "queens",
            12 * self.where,
            "per queen: awake at relative seat (n), asleep where known, asleep unknown",
        )
        self.o_awake = layout.add("awake", 2 * n, "per relative seat: points / 50, queens / 5")
        self.o_turn = layout.add("turn", n + 1, "relative seat on turn (last: none)")
        self.o_phase = layout.add("phase", 7, "phase one-hot")
        self.o_decider = layout.add("decider", n + 1, "relative seat deciding (last: none)")
        self.o_attacker = layout.add("attacker", n + 1, "relative seat attacking (last: none)")
        self.o_target = layout.add("target_queen", 13, "queen targeted, one-hot (0: none)")
        self.o_jester = layout.add("jester_card", CARDS + 1, "card the Jester turned (0: none)")
        self.o_options = layout.add(
            "options", 5, "knight_cat_dog one-hot (3), queens_to_win / 5, points_to_win / 50"
        )
        self.o_winners = layout.add("winners", n, "winners, by relative seat")
        self.size = layout.size

    def encode(self, view: View) -> Observation:
        # Runs on every step (P8): entries go straight into a C float array (core.zeros),
        # counts are taken by C code (set, tuple.count) and divided once: k / count is, in
        # float32, the same number as adding 1 / count k times.
        game: SleepingQueensView = view.game
        n = self.players
        me = view.viewer or 0
        x = zeros(self.size)
        at = self.o_hand - 1
        hand = game.hand
        for card in set(hand):  # a hand holds 5 cards (SQ-4), the deck CARD_COUNTS of each
            if 1 <= card <= CARDS:
                x[at + card] = hand.count(card) / HAND_SIZE
        at = self.o_sizes
        for seat, size in enumerate(game.hand_sizes[:n]):
            x[at + (seat - me) % n] = min(size / HAND_SIZE, 1.0)
        x[self.o_draw] = min(game.draw_pile_size / DECK, 1.0)
        at = self.o_discard - 1
        pile = game.discard_pile
        for card in set(pile):
            if 1 <= card <= CARDS:
                x[at + card] = pile.count(card) / CARD_COUNTS[card]
        placed: set[int] = set()
        queens, where = self.o_queens - self.where, self.where
        positions = self.o_positions
        for position in game.positions[:POSITIONS]:
            if position.asleep:
                at = positions + 3 * position.position
                x[at] = 1.0
                queen = position.queen
                if 1 <= queen <= 12:
                    placed.add(queen)
                    x[at + 1] = 1.0
                    x[at + 2] = QUEEN_POINTS[queen] / 20
                    x[queens + where * queen + n] = 1.0
        awake: set[int] = set()
        for group in game.awake:
            rel = (group.seat - me) % n
            at = self.o_awake + 2 * rel
            x[at] = min(group.points / 50, 1.0)
            x[at + 1] = min(len(group.queens) / 5, 1.0)
            for queen in group.queens:
                if 1 <= queen <= 12:
                    awake.add(queen)
                    x[queens + where * queen + rel] = 1.0
        unknown = queens + n + 1
        for queen in _QUEEN_SET.difference(awake, placed):
            x[unknown + where * queen] = 1.0
        turn, decider, attacker = game.turn, game.decider, game.attacker
        x[self.o_turn + (n if turn is None else (turn - me) % n)] = 1.0
        x[self.o_phase + min(int(game.phase), 6)] = 1.0
        x[self.o_decider + (n if decider is None else (decider - me) % n)] = 1.0
        x[self.o_attacker + (n if attacker is None else (attacker - me) % n)] = 1.0
        x[self.o_target + min(max(game.target_queen, 0), 12)] = 1.0
        x[self.o_jester + min(max(game.jester_card, 0), CARDS)] = 1.0
        if game.knight_cat_dog in CAT_DOG:
            x[self.o_options + CAT_DOG.index(game.knight_cat_dog)] = 1.0
        x[self.o_options + 3] = scaled(game.queens_to_win, 5)
        x[self.o_options + 4] = scaled(game.points_to_win, 50)
        for seat in game.winners:
            x[self.o_winners + (seat - me) % n] = 1.0
        return finish(x)
