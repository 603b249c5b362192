"""The built-in players by name, over engine values: ``random`` and ``heuristic``.

A game's **bot** lives in its package (``referee/games/<game>/bot.py``; what it is:
:mod:`referee.engine.bot`).

A **strategy** is what a seat is played with by name, with a random generator the caller
seeds: ``random`` picks uniformly among the legal commands (``rng.choice``, in their order);
``heuristic`` is the game's bot, or ``random`` for a game whose package has none. The learning
environments (:mod:`referee.rl`) play them over the table's views, ``referee-bot`` over the
views the server sends (read back into engine values), so both play the same moves.

>>> from referee.engine import Table
>>> table = Table.create("vampire-queen", 3, seed=b"docs")
>>> strategy = make_strategy("heuristic", "vampire-queen")
>>> seat = table.pending()[0]
>>> strategy.choose(table.view(seat), 3, random.Random(0)) in table.legal_commands(seat)
True
>>> effective_name("heuristic", "vampire-queen"), STRATEGY_NAMES
('heuristic', ('heuristic', 'random'))
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from referee.engine import View
from referee.engine.bot import Bot, game_bot

#: The built-in strategies.
STRATEGY_NAMES = ("heuristic", "random")


class Strategy(Protocol):
    def choose(self, view: View, players: int, rng: random.Random) -> Any:
        """One of ``view.legal_commands`` (never empty when called)."""


class RandomStrategy:
    """Uniformly random among the legal commands: plays every game."""

    def choose(self, view: View, players: int, rng: random.Random) -> Any:
        return rng.choice(view.legal_commands)


class BotStrategy:
    """A game's bot as a strategy (it draws nothing from the generator)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def choose(self, view: View, players: int, rng: random.Random) -> Any:
        return self.bot.choose(view, players)


def effective_name(name: str, type_id: str) -> str:
    """The strategy ``make_strategy(name, type_id)`` really plays: ``random`` for ``heuristic``
    where the game has no bot."""
    if name == "heuristic" and game_bot(type_id) is None:
        return "random"
    return name


def make_strategy(name: str, type_id: str) -> Strategy:
    """The strategy ``name`` for the game ``type_id`` (:class:`ValueError` for another name)."""
    if name not in STRATEGY_NAMES:
        raise ValueError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGY_NAMES)}")
    bot = game_bot(type_id) if name == "heuristic" else None
    return RandomStrategy() if bot is None else BotStrategy(bot)
