"""The built-in players by name, over engine values: ``random``, ``heuristic`` and ``search``.

A game's **bot** lives in its package (``referee/games/<game>/bot.py``; what it is:
:mod:`referee.engine.bot`).

A **strategy** is what a seat is played with by name, with a random generator the caller
seeds: ``random`` picks uniformly among the legal commands (``rng.choice``, in their order);
``heuristic`` is the game's bot, or ``random`` for a game whose package has none. The learning
environments (:mod:`referee.rl`) play them over the table's views, ``referee-bot`` over the
views the server sends (read back into engine values), so both play the same moves.

``search`` (and ``search-300ms``, ``search-1s``: :data:`SEARCH_LEVELS`, milliseconds per move)
is an information-set Monte Carlo tree search over the worlds the seat could be in, with the
game's heuristic as its prior and rollout (:mod:`referee.search.ismcts`; the earlier flat
determinised search, :mod:`referee.search.pimc`, stays as ``SearchStrategy(algorithm="pimc")``).
It needs the seat's whole knowledge, its redacted events, not only the view: it is a
:class:`KnowingStrategy`, whose ``choose_known(knowledge, rng)`` callers use when they hold the
seat's :class:`~referee.search.worlds.Knowledge` (``knowledge_of(table, seat)`` in-process;
``referee_bot.worlds.SeatKnowledge`` from a stream). Asked with a view only (``choose``), it
plays as ``heuristic``: a caller that does not know the interface still gets a legal, sensible
move. The clock of its budget is here, not in the sans-I/O engine: the **CPU time of the
deciding thread** (``time.thread_time``), not the wall clock, so that a move gets the same
search on a loaded machine as on a quiet one (a wall-clock budget would measure the load: on
a shared two-core box it bought a tenth of the iterations), or a fixed number of iterations
(reproducible: the move is then a function of the knowledge and the generator only).

>>> from referee.engine import Table
>>> table = Table.create("vampire-queen", 3, seed=b"docs")
>>> strategy = make_strategy("heuristic", "vampire-queen")
>>> seat = table.pending()[0]
>>> strategy.choose(table.view(seat), 3, random.Random(0)) in table.legal_commands(seat)
True
>>> effective_name("heuristic", "vampire-queen"), STRATEGY_NAMES
('heuristic', ('heuristic', 'random', 'search', 'search-300ms', 'search-1s'))
"""

from __future__ import annotations

import random
import time
from typing import Any, Protocol, runtime_checkable

from referee.engine import View
from referee.engine.bot import Bot, game_bot
from referee.search import ismcts, pimc
from referee.search.worlds import Chance, Knowledge

#: The search strategies by name: their budget in milliseconds per move.
SEARCH_LEVELS = {"search": 100.0, "search-300ms": 300.0, "search-1s": 1000.0}

#: The built-in strategies.
STRATEGY_NAMES = ("heuristic", "random", *SEARCH_LEVELS)


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


@runtime_checkable
class KnowingStrategy(Protocol):
    """A strategy that decides from the seat's whole knowledge (its redacted events too)."""

    def choose(self, view: View, players: int, rng: random.Random) -> Any: ...

    def choose_known(self, knowledge: Knowledge, rng: random.Random) -> Any:
        """One of ``knowledge.legal``."""


class SearchStrategy:
    """Information-set search over sampled worlds (:mod:`referee.search.ismcts`; ``algorithm
    ="pimc"``: :mod:`referee.search.pimc`) within a budget: ``millis`` of the deciding
    thread's CPU time per move (``time.thread_time``: the load of other processes and threads
    does not shorten it), or exactly ``iterations`` iterations (then the move is a function of
    the knowledge and the generator only: reproducible, and what the tests use). It draws one
    seed from ``rng`` per move."""

    def __init__(
        self,
        type_id: str,
        millis: float = 100.0,
        iterations: int | None = None,
        algorithm: str = "ismcts",
        settings: ismcts.Settings | None = None,
    ) -> None:
        if algorithm not in ("ismcts", "pimc"):
            raise ValueError(f"unknown search algorithm {algorithm!r}; choose ismcts or pimc")
        self.type_id = type_id
        self.millis = millis
        self.iterations = iterations
        self.algorithm = algorithm
        #: The tree search's settings (``None``: the game's, ``ismcts_settings_for``).
        self.settings = settings
        bot = game_bot(type_id)
        self.fallback: Strategy = RandomStrategy() if bot is None else BotStrategy(bot)
        #: Iterations of the last move searched (for measurements).
        self.last_iterations = 0

    def choose(self, view: View, players: int, rng: random.Random) -> Any:
        """Without the seat's events there is nothing to sample from: the heuristic."""
        return self.fallback.choose(view, players, rng)

    def choose_known(self, knowledge: Knowledge, rng: random.Random) -> Any:
        chance = Chance(rng.getrandbits(64))
        if self.iterations is not None:
            limit = self.iterations

            def stop(done: int) -> bool:
                self.last_iterations = done
                return done >= limit
        else:
            # CPU time of this thread: what the search itself spent, whatever else runs.
            deadline = time.thread_time() + self.millis / 1000.0

            def stop(done: int) -> bool:
                self.last_iterations = done
                return done > 0 and time.thread_time() >= deadline

        if self.algorithm == "pimc":
            return pimc.search(knowledge, chance, stop)
        return ismcts.search(knowledge, chance, stop, self.settings)


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
    if name in SEARCH_LEVELS:
        return SearchStrategy(type_id, SEARCH_LEVELS[name])
    bot = game_bot(type_id) if name == "heuristic" else None
    return RandomStrategy() if bot is None else BotStrategy(bot)
