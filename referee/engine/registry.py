"""The game registry: game type id -> rules. Games register themselves on import."""

from __future__ import annotations

import importlib
from typing import Any

from referee.engine.game import Game

#: Game modules imported on first use of the registry (one package per game).
GAME_MODULES = (
    "referee.games.vampire_queen",
    "referee.games.sleeping_queens",
    "referee.games.dracula_vs_van_helsing",
    "referee.games.mau_mau_vampires",
)

_games: dict[str, Game[Any]] = {}
_loaded = False


def register(game: Game[Any]) -> Game[Any]:
    _games[game.info.type_id] = game
    return game


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in GAME_MODULES:
            importlib.import_module(module)


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
