"""Strategies: how a bot picks one of the legal commands of its view.

A strategy sees only what the server sends its seat (a :class:`referee_pb2.View` with its
``legal_commands``); it never re-implements the rules. It always returns one of
``view.legal_commands``.

The built-in strategies are those of :mod:`referee.bots`: ``random`` (uniform among the legal
commands), ``search`` (and its slower levels: a search over the worlds the seat could be in,
:class:`KnowingBot`, which must be fed the seat's stream) and ``heuristic``, the game's own bot
from its package
(``referee/games/<game>/bot.py``, found by the registry), run on the engine values read back
from the view (:class:`GameBot`); a game whose package has no bot, or that this referee package
does not know, is played at random. Nothing here names a game.

A strategy that needs the seat's events as well as its view has a ``feed(message)`` method:
the SDK (:func:`referee_bot.sdk.play`) and the tournament runner call it with every message of
the seat's stream (a ``StreamGameResponse``, events redacted for the seat) before asking
``choose``; a caller that never feeds it gets the game's heuristic from it.

A program may add strategies by name and game type in :data:`STRATEGIES`
(``STRATEGIES[name][game_type]``, ``"*"`` for any game), which come before the built-ins::

    STRATEGIES["heuristic"]["my-game"] = MyGameHeuristic
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from referee import bots
from referee.codec import view_from_proto
from referee.engine import all_games
from referee.engine.bot import Bot, game_bot
from referee.engine.registry import get_game
from referee.v1 import referee_pb2
from referee_bot.worlds import SeatKnowledge


class Strategy(Protocol):
    """Picks one command among ``view.legal_commands`` (never empty when called)."""

    def choose(self, view: referee_pb2.View, rng: random.Random) -> referee_pb2.Command: ...


StrategyFactory = Callable[[], Strategy]

ANY_GAME = "*"


class RandomStrategy:
    """Uniformly random among the legal commands: works for every game."""

    def choose(self, view: referee_pb2.View, rng: random.Random) -> referee_pb2.Command:
        return rng.choice(list(view.legal_commands))


class GameBot:
    """A game's bot (:mod:`referee.bots`) over the view's engine values: it answers with the
    server's own message of the legal command the bot chose."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def choose(self, view: referee_pb2.View, rng: random.Random) -> referee_pb2.Command:
        values = view_from_proto(view)
        command = self.bot.choose(values, view.players)
        return view.legal_commands[values.legal_commands.index(command)]


class KnowingBot:
    """A :class:`referee.bots.KnowingStrategy` (``search``) over the seat's stream: ``feed``
    collects the seat's redacted events (:class:`~referee_bot.worlds.SeatKnowledge`), and
    ``choose`` searches from them; unfed, it plays as the heuristic would.

    ``options`` are the game's options (``GetGame``, the game summary): the worlds are
    sampled under them (the game's defaults fill in what is not given)."""

    def __init__(self, strategy: bots.KnowingStrategy, game_type: str) -> None:
        self.strategy = strategy
        self.game_type = game_type
        self.known = SeatKnowledge()
        self.options: dict[str, str] = {}

    def feed(self, message: referee_pb2.StreamGameResponse) -> None:
        self.known.feed(message)

    def choose(self, view: referee_pb2.View, rng: random.Random) -> referee_pb2.Command:
        values = view_from_proto(view)
        known = self.known
        if known.events and known.view is not None and known.view.version == values.version:
            known.options = get_game(self.game_type).info.normalise_options(self.options)
            known.players = view.players
            command = self.strategy.choose_known(known.knowledge(), rng)
        else:
            command = self.strategy.choose(values, view.players, rng)
        return view.legal_commands[values.legal_commands.index(command)]


#: Strategy factories a program adds: ``STRATEGIES[name][game_type]``; game type ``"*"`` means
#: any game. Every name is a built-in strategy of :mod:`referee.bots` too.
STRATEGIES: dict[str, dict[str, StrategyFactory]] = {
    name: {ANY_GAME: RandomStrategy} if name == "random" else {} for name in bots.STRATEGY_NAMES
}


def strategy_names() -> list[str]:
    """Every registered strategy name."""
    return sorted(STRATEGIES)


def _known(game_type: str) -> bool:
    """Whether this referee package has the game (a server may run others)."""
    return game_type in {game.info.type_id for game in all_games()}


def known_games() -> list[str]:
    """The game type ids some strategy knows by name, or whose package has a bot (for --help;
    a server's ListGameTypes is the full list, and any other game is played at random)."""
    added = {game for games in STRATEGIES.values() for game in games} - {ANY_GAME}
    packaged = {g.info.type_id for g in all_games() if game_bot(g.info.type_id)}
    return sorted(added | packaged)


def effective_name(name: str, game_type: str) -> str:
    """The strategy that ``make_strategy(name, game_type)`` really plays.

    >>> effective_name("heuristic", "vampire-queen"), effective_name("heuristic", "other")
    ('heuristic', 'random')
    """
    by_game = STRATEGIES.get(name, {})
    if game_type in by_game or ANY_GAME in by_game:
        return name
    return bots.effective_name(name, game_type) if _known(game_type) else "random"


def make_strategy(name: str, game_type: str) -> Strategy:
    """The strategy ``name`` for ``game_type``; ``random`` when that game has none of that name.

    >>> type(make_strategy("heuristic", "vampire-queen")).__name__
    'GameBot'
    >>> type(make_strategy("heuristic", "some-other-game")).__name__
    'RandomStrategy'
    """
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose one of {', '.join(strategy_names())}")
    by_game = STRATEGIES[name]
    factory = by_game.get(game_type) or by_game.get(ANY_GAME)
    if factory is not None:
        return factory()
    builtin = bots.make_strategy(name, game_type) if _known(game_type) else None
    if isinstance(builtin, bots.KnowingStrategy):
        return KnowingBot(builtin, game_type)
    return GameBot(builtin.bot) if isinstance(builtin, bots.BotStrategy) else RandomStrategy()
