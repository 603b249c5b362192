"""The learning environments' view of each game: its actions, encoder and reward in one object.

Every game's package holds its own **encoder module**, ``referee/games/<game>/encoder.py``
(found by :func:`referee.engine.registry.game_module` under
:data:`~referee.engine.registry.ENCODER`, as OpenSpiel keeps a game's observer beside its
rules). It defines:

``REWARD``
    the reward's name (``"rank"``, ``"win"``), for the docs and the evaluation;
``actions(players, options) -> ActionTable``
    every command a seat could ever be allowed to send, in a fixed order (:mod:`referee.rl.core`);
``reward(rank, players) -> float``
    a seat's reward from its final rank (:func:`~referee.rl.core.rank_reward`,
    :func:`~referee.rl.core.win_reward`);
``Encoder(players, options)``
    with ``layout`` (:class:`~referee.rl.core.Layout`), ``size`` and ``encode(view)``: the
    observation of a seat's :class:`~referee.engine.View`, never of the state.

A game has an environment exactly when its package has that module (:func:`games`); the
repository's own games all do (``tests/rl``), and docs/writing-a-game.md lists it as part of a
game.

>>> "vampire-queen" in games()
True
>>> spec("vampire-queen", 3).actions.module
'referee.games.vampire_queen.encoder'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Protocol

from referee.engine import View, all_games, get_game
from referee.engine.registry import ENCODER, game_module
from referee.rl.core import ActionTable, Layout, Observation

#: What an encoder module must define (see the module's docstring).
CONTRACT = ("REWARD", "actions", "reward", "Encoder")


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


def encoder_module(game: str) -> ModuleType | None:
    """The encoder module of ``game``'s package, or ``None`` when it has none
    (:class:`TypeError` names what a module that exists lacks; KeyError for an unknown game)."""
    module = game_module(game, ENCODER)
    if module is not None:
        missing = [name for name in CONTRACT if not hasattr(module, name)]
        if missing:
            raise TypeError(f"{module.__name__} must define {', '.join(missing)}")
    return module


def games() -> list[str]:
    """Every game type with an environment, by type id."""
    return [g.info.type_id for g in all_games() if encoder_module(g.info.type_id) is not None]


def default_players(game: str) -> int:
    """The fewest players ``game`` allows (ValueError for a game with no environment)."""
    _module(game)
    return get_game(game).info.min_players


def _module(game: str) -> ModuleType:
    try:
        module = encoder_module(game)
    except KeyError:
        module = None
    if module is None:
        raise ValueError(
            f"no environment for game {game!r} (its package has no {ENCODER} module); "
            f"known: {', '.join(games())}"
        )
    return module


def spec(game: str, players: int, options: Mapping[str, str] | None = None) -> GameSpec:
    """The spec of ``game`` for ``players`` (ValueError for an unknown game or bad setup)."""
    _module(game)
    info = get_game(game).info
    if not info.min_players <= players <= info.max_players:
        raise ValueError(
            f"{game} is for {info.min_players} to {info.max_players} players, got {players}"
        )
    normal = info.normalise_options(options or {})
    return _spec(game, players, tuple(sorted(normal.items())))


@cache
def _spec(game: str, players: int, options: tuple[tuple[str, str], ...]) -> GameSpec:
    module = _module(game)
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
