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

from referee.rl.aec import PrivilegedAccessWarning, RefereeAECEnv, env
from referee.rl.core import ActionTable, Layout, UnmappedCommand
from referee.rl.evaluate import Evaluation, evaluate
from referee.rl.games import GameSpec, games, spec
from referee.rl.infostate import SeatHistory
from referee.rl.parallel import parallel_env
from referee.rl.registration import env_id, register_all
from referee.rl.selfplay import SelfPlayVectorEnv
from referee.rl.single import TERMINAL_ACTION, SingleAgentEnv, gym_env
from referee.rl.vector import VectorEnv

# ``gymnasium.make("referee/<game>-v0")`` works once this package is imported.
register_all()

__all__ = [
    "TERMINAL_ACTION",
    "ActionTable",
    "Evaluation",
    "GameSpec",
    "Layout",
    "PrivilegedAccessWarning",
    "RefereeAECEnv",
    "SeatHistory",
    "SelfPlayVectorEnv",
    "SingleAgentEnv",
    "UnmappedCommand",
    "VectorEnv",
    "env",
    "env_id",
    "evaluate",
    "games",
    "gym_env",
    "parallel_env",
    "register_all",
    "spec",
]
