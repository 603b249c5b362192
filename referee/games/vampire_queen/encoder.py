"""Vampire Queen (3-12 players) for learning agents: actions, observation and reward.

**Actions** (the same for every player count): ``0`` Pass, ``1`` LeadHunter(15), ``2``
LeadHunter(20), ``3-16`` PlayCard(1-13, then 14 = a queen) for answering a Hunter (VQ-12),
then every PlaySet(value, count, queens) a hand can make (VQ-8): values 1-13 with ``count``
1-12 of which ``queens`` 0-4 are queens and at least one (at most 8) a real card, in the order
value, count, queens; last the queens-only sets PlaySet(14, n, n), n = 1-4 (VQ-9).
``actions(n, {}).commands`` lists them.

**Observation**: only the seat's view (VQ-20, VQ-21). Seats are relative to the viewer (0 is
the viewer, 1 the next seat, ...). The seat's hand as counts per value (/8, queens /4) and its
Hunters; every seat's hand size, who holds each Hunter, the leader and the seat on turn; the
trick: its kind, the lead count, the best value (one-hot) and who holds it, and the last play
of every seat in it; the Hunters barred to this seat (VQ-15); penalties of the last round and
totals (squashed: ``x / (x + 50)`` and ``x / (x + 100)``); the round and the options.

**Reward: rank**, ``+1`` for rank 1 down to ``-1`` for the last, linear between; tied seats
share a rank and its reward. VQ-19 ranks by total penalty points, lowest first, and their scale
depends on the rounds and the table size: the rank is what the game is won on and means the
same at every table.
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.engine import View
from referee.games.vampire_queen.model import (
    HUNTER_15,
    HUNTER_20,
    QUEEN,
    LeadHunter,
    Pass,
    PlayCard,
    PlaySet,
    VampireQueenView,
)
from referee.rl.core import (
    ActionTable,
    Layout,
    Observation,
    finish,
    put_seat,
    rank_reward,
    scaled,
    squashed,
    zeros,
)

REWARD = "rank"
#: VQ-1: 8 cards of each value, 4 queens; a set has at most 8 + 4 cards.
PER_VALUE = 8
QUEENS = 4
MAX_SET = PER_VALUE + QUEENS
TRICK_PLAY = 9
#: The six play-kind entries of a trick play, cleared before the seat's later play is written.
_NO_KIND = zeros(6)


def actions(players: int, options: Mapping[str, str]) -> ActionTable:
    commands: list[object] = [Pass(), LeadHunter(HUNTER_15), LeadHunter(HUNTER_20)]
    commands += [PlayCard(v) for v in range(1, QUEEN + 1)]
    commands += [
        PlaySet(value, count, queens)
        for value in range(1, QUEEN)
        for count in range(1, MAX_SET + 1)
        for queens in range(max(0, count - PER_VALUE), min(QUEENS, count - 1) + 1)
    ]
    commands += [PlaySet(QUEEN, n, n) for n in range(1, QUEENS + 1)]
    return ActionTable(__name__, commands)


def reward(rank: int, players: int) -> float:
    return rank_reward(rank, players)


class Encoder:
    def __init__(self, players: int, options: Mapping[str, str]) -> None:
        n = self.players = players
        layout = self.layout = Layout()
        self.o_hand = layout.add("hand", 16, "counts of 1-13 (/8), queens (/4), Hunter 15, 20")
        self.o_sizes = layout.add("hand_sizes", n, "cards in hand / 26, by relative seat")
        self.o_h15 = layout.add("hunter_15_holder", n, "relative seat, one-hot")
        self.o_h20 = layout.add("hunter_20_holder", n, "relative seat, one-hot")
        self.o_leader = layout.add("leader", n, "relative seat, one-hot")
        self.o_turn = layout.add("turn", n + 1, "relative seat on turn, one-hot (last: none)")
        self.o_kind = layout.add("trick_kind", 3, "nothing led / normal / Hunter trick")
        self.o_lead = layout.add("lead_count", 1, "cards per set in this trick / 12")
        self.o_best = layout.add("best_value", QUEEN + 1, "best value so far, one-hot 0-14")
        self.o_best_seat = layout.add("best_seat", n + 1, "its relative seat (last: none)")
        self.o_barred = layout.add("barred", 2, "Hunter 15, 20 barred to this seat (VQ-15)")
        self.o_trick = layout.add(
            "trick",
            n * TRICK_PLAY,
            "per relative seat: last play kind (6), value/14, count/12, queens/4",
        )
        self.o_penalties = layout.add("last_penalties", n, "x / (x + 50), by relative seat")
        self.o_totals = layout.add("totals", n, "x / (x + 100), by relative seat")
        self.o_round = layout.add("round", 2, "round / rounds, last round")
        self.o_options = layout.add("options", 2, "hunter_tie last, hunter_queen 14")
        self.size = layout.size

    def encode(self, view: View) -> Observation:
        # Runs on every step (P8): entries go straight into a C float array (core.zeros) and
        # the hand is counted by C code (set, tuple.count; k / 8 and k / 4 are exact).
        game: VampireQueenView = view.game
        n = self.players
        me = view.viewer or 0
        x = zeros(self.size)
        at = self.o_hand
        hand = game.hand
        for value in set(hand):  # at most 8 of a value and 4 queens exist (VQ-1)
            if 1 <= value < QUEEN:
                x[at + value - 1] = hand.count(value) / PER_VALUE
            elif value == QUEEN:
                x[at + 13] = hand.count(value) / QUEENS
            elif value == HUNTER_15:
                x[at + 14] = 1.0
            elif value == HUNTER_20:
                x[at + 15] = 1.0
        at = self.o_sizes
        for seat, size in enumerate(game.hand_sizes[:n]):
            x[at + (seat - me) % n] = scaled(size, 26)
        x[self.o_h15 + (game.hunter_15_holder - me) % n] = 1.0
        x[self.o_h20 + (game.hunter_20_holder - me) % n] = 1.0
        x[self.o_leader + (game.leader - me) % n] = 1.0
        put_seat(x, self.o_turn, game.turn, me, n)
        x[self.o_kind + min(int(game.trick_kind), 2)] = 1.0
        x[self.o_lead] = scaled(game.lead_count, MAX_SET)
        x[self.o_best + min(max(game.best_value, 0), QUEEN)] = 1.0
        put_seat(x, self.o_best_seat, game.best_seat, me, n)
        if me < len(game.barred_hunters):
            barred = game.barred_hunters[me]
            x[self.o_barred] = float(barred == HUNTER_15)
            x[self.o_barred + 1] = float(barred == HUNTER_20)
        for play in game.trick:  # later plays of a seat overwrite earlier ones
            at = self.o_trick + TRICK_PLAY * ((play.seat - me) % n)
            x[at : at + 6] = _NO_KIND
            x[at + min(int(play.kind), 5)] = 1.0
            x[at + 6] = scaled(play.value, QUEEN)
            x[at + 7] = scaled(play.count, MAX_SET)
            x[at + 8] = scaled(play.queens, QUEENS)
        at = self.o_penalties
        for seat, penalty in enumerate(game.last_penalties[:n]):
            x[at + (seat - me) % n] = squashed(penalty, 50)
        at = self.o_totals
        for seat, total in enumerate(game.totals[:n]):
            x[at + (seat - me) % n] = squashed(total, 100)
        x[self.o_round] = scaled(game.round, max(game.rounds, 1))
        x[self.o_round + 1] = float(game.round >= game.rounds)
        x[self.o_options] = float(game.hunter_tie == "last")
        x[self.o_options + 1] = float(game.hunter_queen == QUEEN)
        return finish(x)
