"""Who plays the seats the learner does not: built-in strategies or policies.

A **policy** is any callable taking an observation dict (``observation``, ``action_mask``, as
the environments give) and returning an action index. A **strategy** is a built-in strategy
name (``random``, ``heuristic``: :mod:`referee.bots`, the same players as ``referee-bot``'s): it
sees the seat's view (engine values, what the server would send the seat) and answers with one
of its legal commands.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from referee.bots import RandomStrategy, make_strategy
from referee.engine import Table
from referee.rl.aec import ObsDict, observe
from referee.rl.games import GameSpec

Policy = Callable[[ObsDict], int]
#: A strategy name or a policy.
PlayerSpec = str | Policy


class Player(Protocol):
    def choose(self, table: Table[Any], seat: int) -> Any:
        """The command ``seat`` sends now (one of its legal commands)."""

    def copy(self) -> Player:
        """A player that goes on as this one would, for a copied environment."""


class StrategyPlayer:
    """A built-in strategy (:mod:`referee.bots`) with its own random generator."""

    def __init__(self, name: str, game: GameSpec, rng: random.Random) -> None:
        self.name = name
        self.game = game
        self.rng = rng
        self.strategy = make_strategy(name, game.game)
        self.plain_random = isinstance(self.strategy, RandomStrategy)

    def choose(self, table: Table[Any], seat: int) -> Any:
        if self.plain_random:
            # The same generator picks the same command among the same legal commands in the
            # same order, without building the view.
            return self.rng.choice(table.legal_commands(seat))
        return self.strategy.choose(table.view(seat), self.game.players, self.rng)

    def copy(self) -> StrategyPlayer:
        """The same strategy (the built-in ones keep no state between moves) with a copy of
        the generator: the copy makes the choices this player would make."""
        twin = object.__new__(StrategyPlayer)
        twin.__dict__.update(self.__dict__)
        twin.rng = random.Random()
        twin.rng.setstate(self.rng.getstate())
        return twin


class PolicyPlayer:
    """A policy over the seat's observation."""

    def __init__(self, policy: Policy, game: GameSpec) -> None:
        self.policy = policy
        self.game = game

    def choose(self, table: Table[Any], seat: int) -> Any:
        action = int(self.policy(observe(self.game, table.view(seat))))
        command = self.game.actions.command(action)
        if command not in table.legal_commands(seat):
            raise ValueError(f"the policy of seat {seat} chose illegal action {action}")
        return command

    def copy(self) -> PolicyPlayer:
        """The same policy: it is the caller's object (a network, a function), not copied."""
        return PolicyPlayer(self.policy, self.game)


def make_player(player: PlayerSpec, game: GameSpec, rng: random.Random) -> Player:
    if isinstance(player, str):
        return StrategyPlayer(player, game, rng)
    if callable(player):
        return PolicyPlayer(player, game)
    raise TypeError(f"a player is a strategy name or a policy (callable), got {player!r}")


def expand(players: PlayerSpec | Sequence[PlayerSpec], count: int) -> list[PlayerSpec]:
    """One player spec per other seat: a single spec is repeated ``count`` times.

    >>> expand("random", 2), expand(["random", "heuristic"], 2)
    (['random', 'random'], ['random', 'heuristic'])
    """
    if isinstance(players, str) or callable(players):
        return [players] * count
    chosen = list(players)
    if len(chosen) != count:
        raise ValueError(f"give one opponent or {count} (one per other seat), got {len(chosen)}")
    return chosen
