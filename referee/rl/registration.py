"""``gymnasium.make`` ids: one per game, registered when :mod:`referee.rl` is imported.

``gymnasium.make("referee/<game>-v0", players=..., seat=..., opponents=..., seed=...)`` builds
:class:`~referee.rl.single.SingleAgentEnv` for ``<game>`` (any keyword of :func:`gym_env`), and
``gymnasium.make_vec("referee/<game>-v0", num_envs=n, vectorization_mode="vector_entry_point")``
builds :class:`~referee.rl.vector.VectorEnv` (many tables stepped in one call). A program that
has not imported :mod:`referee.rl` names the module in the id, as Gymnasium allows:
``gymnasium.make("referee.rl:referee/<game>-v0")``.

>>> import gymnasium
>>> env_id("dracula-vs-van-helsing")
'referee/dracula-vs-van-helsing-v0'
>>> env = gymnasium.make(env_id("dracula-vs-van-helsing"), seed=1)
>>> env.unwrapped.game.game
'dracula-vs-van-helsing'
"""

from __future__ import annotations

import importlib.util

import gymnasium

from referee.engine import all_games
from referee.engine.registry import ENCODER, package_of

#: The namespace of every id, and the version of the environments' contract.
NAMESPACE = "referee"
VERSION = 0


def env_id(game: str) -> str:
    """The ``gymnasium.make`` id of ``game``'s environment."""
    return f"{NAMESPACE}/{game}-v{VERSION}"


def _has_encoder(game: str) -> bool:
    """Whether ``game``'s package has an encoder module, *without importing it*: this runs
    while :mod:`referee.rl` is imported, which an encoder module itself may have started
    (it imports :mod:`referee.rl.core`), so importing encoders here would meet one half-made.
    A module that fails to load fails at ``gymnasium.make`` instead, naming itself."""
    package = package_of(game)
    return package is not None and importlib.util.find_spec(f"{package}.{ENCODER}") is not None


def register_all() -> list[str]:
    """Register every game's id (those already registered are left alone); returns the ids."""
    ids = []
    for game in (g.info.type_id for g in all_games()):
        if not _has_encoder(game):
            continue
        found = env_id(game)
        ids.append(found)
        if found not in gymnasium.registry:
            gymnasium.register(
                id=found,
                entry_point="referee.rl.single:SingleAgentEnv",
                vector_entry_point="referee.rl.vector:VectorEnv",
                kwargs={"game": game},
            )
    return ids
