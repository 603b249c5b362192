"""The game modules by game type: each one's actions, encoder and reward in one object.

A game module (``referee/rl/<game>.py``) defines ``GAME`` (its type id), ``REWARD`` (the
reward's name), ``actions(players, options) -> ActionTable``, ``reward(rank, players)`` and an
``Encoder(players, options)`` with ``layout``, ``size`` and ``encode(view)``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from referee.engine import View, get_game
from referee.rl.core import ActionTable, Layout, Observation

MODULES = {
    "vampire-queen": "referee.rl.vampire_queen",
    "sleeping-queens": "referee.rl.sleeping_queens",
    "dracula-vs-van-helsing": "referee.rl.dracula_vs_van_helsing",
    "mau-mau-vampires": "referee.rl.mau_mau_vampires",
}


class Encoder(Protocol):
    layout: Layout
    size: int

    def encode(self, view: View) -> Observation: ...


@dataclass(frozen=True)
class GameSpec:
    """One game at one player count and options, as a learning environment sees it."""

    game: str
    players: int
    options: Mapping[str, str]
    actions: ActionTable
    encoder: Encoder
    reward_name: str
    reward: Callable[[int, int], float]


def games() -> list[str]:
    """Every game type with an environment."""
    return list(MODULES)


def default_players(game: str) -> int:
    """The fewest players ``game`` allows (ValueError for a game with no environment)."""
    _known(game)
    return get_game(game).info.min_players


def _known(game: str) -> None:
    if game not in MODULES:
        raise ValueError(f"no environment for game {game!r}; known: {', '.join(MODULES)}")


def spec(game: str, players: int, options: Mapping[str, str] | None = None) -> GameSpec:
    """The spec of ``game`` for ``players`` (ValueError for an unknown game or bad setup)."""
    _known(game)
    info = get_game(game).info
    if not info.min_players <= players <= info.max_players:
        raise ValueError(
            f"{game} is for {info.min_players} to {info.max_players} players, got {players}"
        )
    normal = info.normalise_options(options or {})
    return _spec(game, players, tuple(sorted(normal.items())))


@cache
def _spec(game: str, players: int, options: tuple[tuple[str, str], ...]) -> GameSpec:
    module: Any = importlib.import_module(MODULES[game])
    chosen = dict(options)
    return GameSpec(
        game=game,
        players=players,
        options=chosen,
        actions=module.actions(players, chosen),
        encoder=module.Encoder(players, chosen),
        reward_name=module.REWARD,
        reward=module.reward,
    )
