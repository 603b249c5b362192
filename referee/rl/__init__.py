"""Learning environments over the engine: PettingZoo (AEC) and Gymnasium (one learner).

Needs the optional extra ``rl`` (``pip install -e '.[rl]'``: pettingzoo, gymnasium). Every
observation is built from the acting seat's *view* only (``referee.engine.View``), so an agent
cannot see what its seat may not (docs/embedding.md, "For learning agents").

>>> from referee.rl import env
>>> aec = env("dracula-vs-van-helsing", seed=7)
>>> aec.reset()
>>> obs, reward, terminated, truncated, info = aec.last()
>>> obs["observation"].shape == aec.observation_space(aec.agent_selection)["observation"].shape
True
"""

from referee.rl.aec import RefereeAECEnv, env
from referee.rl.core import ActionTable, Layout, UnmappedCommand
from referee.rl.evaluate import Evaluation, evaluate
from referee.rl.games import GameSpec, games, spec
from referee.rl.single import SingleAgentEnv, gym_env

__all__ = [
    "ActionTable",
    "Evaluation",
    "GameSpec",
    "Layout",
    "RefereeAECEnv",
    "SingleAgentEnv",
    "UnmappedCommand",
    "env",
    "evaluate",
    "games",
    "gym_env",
    "spec",
]
