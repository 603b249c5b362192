"""The game registry: game type id -> rules.

Games are found, not listed: every subpackage of :mod:`referee.games` is a game and exposes its
rules as ``GAME`` (an instance of :class:`~referee.engine.game.Game`). The registry imports them
all, in name order, on first use, so adding a game means adding its package and nothing here.
Other games (a platform's own, a test's) can be added with :func:`register`.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Any

from referee.engine.game import Game

#: The package whose subpackages are the games.
GAMES_PACKAGE = "referee.games"

_games: dict[str, Game[Any]] = {}
_loaded = False


def register(game: Game[Any]) -> Game[Any]:
    """Add ``game`` under its type id; :class:`ValueError` if another game has that id."""
    type_id = game.info.type_id
    known = _games.get(type_id)
    if known is not None and type(known) is not type(game):
        raise ValueError(
            f"game type {type_id!r} is taken by {type(known).__qualname__}, "
            f"cannot register {type(game).__qualname__}"
        )
    _games[type_id] = game
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


def discover(package: ModuleType | None = None) -> list[Game[Any]]:
    """Import every game package and return the ``GAME`` each exposes, in package order.
    :class:`TypeError` names a package that exposes none."""
    games = []
    for name in game_packages(package):
        game = getattr(importlib.import_module(name), "GAME", None)
        if not isinstance(game, Game):
            raise TypeError(f"game package {name} must expose GAME, an instance of a Game class")
        games.append(game)
    return games


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for game in discover():
            register(game)


def get_game(type_id: str) -> Game[Any]:
    """The game with this type id; :class:`KeyError` if none is registered."""
    _load()
    try:
        return _games[type_id]
    except KeyError:
        known = ", ".join(sorted(_games))
        raise KeyError(f"unknown game type {type_id!r}; known: {known}") from None


def all_games() -> list[Game[Any]]:
    """Every registered game, by type id."""
    _load()
    return [_games[key] for key in sorted(_games)]
