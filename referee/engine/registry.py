"""The game registry: game type id -> rules, and the optional parts of each game's package.

Games are found, not listed: every subpackage of :mod:`referee.games` is a game and exposes its
rules as ``GAME`` (an instance of :class:`~referee.engine.game.Game`). The registry imports them
all, in name order, on first use, so adding a game means adding its package and nothing here.
Other games (a platform's own, a test's) can be added with :func:`register`.

A game package may hold more than its rules, and the registry finds those parts the same way,
by name in the package (:func:`game_module`), so nothing outside the package names the game:

``encoder``
    The learning environment's encoder (:data:`ENCODER`): ``REWARD``, ``actions(players,
    options)``, ``reward(rank, players)`` and ``Encoder(players, options)``;
    :mod:`referee.rl.games` documents the contract. It needs the ``rl`` extra (numpy), so it is
    imported only when an environment asks for it: a game without one has no environment.
``bot``
    The game's heuristic player over engine values (:data:`BOT`): ``BOT``, an object whose
    ``choose(view, players)`` returns one of ``view.legal_commands``; :mod:`referee.bots`
    documents the contract. A game without one is played at random by the ``heuristic``
    strategy.
``labels``
    The game's display text (:data:`LABELS`); the registry looks up only its optional
    ``view_text(view)`` there (:func:`referee.engine.labels.view_lines`): a few lines of a
    seat's view in the game's words. A game without one sends no lines. A game may write
    them in two parts, ``public_text(view)`` (the texts every viewer's lines have alike,
    made once per batch: :func:`referee.engine.labels.public_text`) and ``seat_text(view,
    public)`` (a seat's lines with those in place); its ``view_text`` is then the two in one.

``worlds``
    The game's world sampler (:data:`referee.search.worlds.MODULE`): ``sample(knowledge,
    config, rng)``, the seat's events with their hidden parts filled in; found by
    :func:`referee.search.worlds.sample_world`.

Other packages may look up modules of their own by name the same way (``game_module(type_id,
"board")``).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
from types import ModuleType
from typing import Any

from referee.engine.game import Game

#: The package whose subpackages are the games.
GAMES_PACKAGE = "referee.games"
#: The module of a game package that holds its learning-environment encoder and action table.
ENCODER = "encoder"
#: The module of a game package that holds its heuristic bot.
BOT = "bot"
#: The module of a game package that holds its display text (``view_text``).
LABELS = "labels"

_games: dict[str, Game[Any, Any, Any]] = {}
#: The package each game came from (type id -> dotted name); a game registered without one
#: has no package modules.
_packages: dict[str, str] = {}
_loaded = False


def register(game: Game[Any, Any, Any], package: str | None = None) -> Game[Any, Any, Any]:
    """Add ``game`` under its type id; :class:`ValueError` if another game has that id.
    ``package`` (a dotted module name) is where :func:`game_module` looks for its parts."""
    type_id = game.info.type_id
    known = _games.get(type_id)
    if known is not None and type(known) is not type(game):
        raise ValueError(
            f"game type {type_id!r} is taken by {type(known).__qualname__}, "
            f"cannot register {type(game).__qualname__}"
        )
    _games[type_id] = game
    if package is not None:
        _packages[type_id] = package
    return game


def game_packages(package: ModuleType | None = None) -> list[str]:
    """The names of the game packages: the subpackages of ``package`` (:mod:`referee.games`),
    sorted, so the set and its order never depend on how the file system lists them."""
    if package is None:
        package = importlib.import_module(GAMES_PACKAGE)
    return sorted(
        f"{package.__name__}.{found.name}"
        for found in pkgutil.iter_modules(package.__path__)
        if found.ispkg
    )


def _discover(package: ModuleType | None) -> list[tuple[str, Game[Any, Any, Any]]]:
    found = []
    for name in game_packages(package):
        game = getattr(importlib.import_module(name), "GAME", None)
        if not isinstance(game, Game):
            raise TypeError(f"game package {name} must expose GAME, an instance of a Game class")
        found.append((name, game))
    return found


def discover(package: ModuleType | None = None) -> list[Game[Any, Any, Any]]:
    """Import every game package and return the ``GAME`` each exposes, in package order.
    :class:`TypeError` names a package that exposes none."""
    return [game for _, game in _discover(package)]


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for name, game in _discover(None):
            register(game, name)


def get_game(type_id: str) -> Game[Any, Any, Any]:
    """The game with this type id; :class:`KeyError` if none is registered."""
    _load()
    try:
        return _games[type_id]
    except KeyError:
        known = ", ".join(sorted(_games))
        raise KeyError(f"unknown game type {type_id!r}; known: {known}") from None


def all_games() -> list[Game[Any, Any, Any]]:
    """Every registered game, by type id."""
    _load()
    return [_games[key] for key in sorted(_games)]


def package_of(type_id: str) -> str | None:
    """The dotted name of the game's package (``referee.games.vampire_queen``), or ``None`` for
    a game registered without one; :class:`KeyError` for an unknown game."""
    get_game(type_id)
    return _packages.get(type_id)


def game_module(type_id: str, name: str) -> ModuleType | None:
    """The module ``name`` of the game's package (e.g. ``referee.games.vampire_queen.bot`` for
    :data:`BOT`), imported; ``None`` when the package has no such module (or the game has no
    package). An error raised while importing a module that exists is not hidden.

    >>> game_module("vampire-queen", BOT).__name__
    'referee.games.vampire_queen.bot'
    >>> game_module("vampire-queen", "no_such_part") is None
    True
    """
    package = package_of(type_id)
    if package is None:
        return None
    full = f"{package}.{name}"
    # Imported already (every view's lines ask for the labels module): the import system's
    # own table answers; looking for the module file again cost more than the view's text.
    imported = sys.modules.get(full)
    if imported is not None:
        return imported
    if importlib.util.find_spec(full) is None:
        return None
    return importlib.import_module(full)
