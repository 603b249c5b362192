"""High Card for learning agents (tests/engine/example_game.py): its action table, observation
and reward, in the shape every game's ``encoder.py`` has (referee/rl/games.py).
tests/engine/test_registry.py copies it into the temporary ``referee/games/high_card`` package
as ``encoder.py``; the registry finds it and ``referee.rl`` builds the game's environment.

**Actions**: ``Play(1)`` ... ``Play(9)`` (HC-1, HC-2). **Observation**: the seat's hand and
the cards played (one-hot by card), every hand's size and score by seat relative to the viewer.
**Reward: rank** (HC-4 ranks by score).
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.games.high_card import HighCardView, Play

from referee.engine import View
from referee.rl.core import ActionTable, Layout, Observation, finish, rank_reward, scaled, zeros

REWARD = "rank"
CARDS = 9


def actions(players: int, options: Mapping[str, str]) -> ActionTable:
    return ActionTable(__name__, [Play(card) for card in range(1, CARDS + 1)])


def reward(rank: int, players: int) -> float:
    return rank_reward(rank, players)


class Encoder:
    def __init__(self, players: int, options: Mapping[str, str]) -> None:
        self.players = players
        layout = self.layout = Layout()
        self.o_hand = layout.add("hand", CARDS, "cards 1-9 held, one-hot")
        self.o_played = layout.add("played", CARDS, "cards 1-9 played, one-hot")
        self.o_sizes = layout.add("hand_sizes", players, "cards in hand / 2, by relative seat")
        self.o_scores = layout.add("scores", players, "score / 17, by relative seat")
        self.size = layout.size

    def encode(self, view: View) -> Observation:
        game: HighCardView = view.game
        n, me = self.players, view.viewer or 0
        x = zeros(self.size)
        for card in game.hand:
            x[self.o_hand + card - 1] = 1.0
        for card in game.played:
            x[self.o_played + card - 1] = 1.0
        for seat, (size, score) in enumerate(zip(game.hand_sizes, game.scores, strict=True)):
            x[self.o_sizes + (seat - me) % n] = scaled(size, 2)
            x[self.o_scores + (seat - me) % n] = scaled(score, 17)
        return finish(x)
