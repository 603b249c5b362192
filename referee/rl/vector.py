"""Many tables stepped in one call: a Gymnasium ``VectorEnv`` of one learner per table.

``VectorEnv(game, num_envs, players=None, seat=0, opponents="random", options=None,
seed=None, illegal_action="random")`` holds ``num_envs`` tables, each one
:class:`~referee.rl.single.SingleAgentEnv` (the learner plays ``seat``, ``opponents`` the
rest), and steps all of them with one call: ``step(actions)`` takes one action per table and
returns numpy batches, ``obs["observation"]`` of shape ``(num_envs, size)`` (float32),
``obs["action_mask"]`` ``(num_envs, actions)`` (int8), rewards, terminations and truncations
of shape ``(num_envs,)``. Each call returns new arrays (the caller may keep or edit them).

**Autoreset: same step** (``metadata["autoreset_mode"]``): a table whose game ends in a step is
reset in that step; the row returned is the new game's first observation, and the ended
game's last observation and info are in ``infos["final_obs"][i]`` and
``infos["final_info"]`` (``infos["_final_obs"][i]`` true), as Gymnasium's ``SyncVectorEnv``
does in that mode. So every row of every batch is a decision of the learner, with at least one
legal action: masked sampling over the batch never meets an empty mask.

Seeding: ``reset(seed=s)`` seeds table ``i`` with ``s + i`` (a list gives one per table);
``VectorEnv(..., seed=s)`` does the same for the first ``reset()``. Also built by
``gymnasium.make_vec("referee/<game>-v0", num_envs=n)`` (:mod:`referee.rl.registration`).

>>> import numpy as np
>>> envs = VectorEnv("dracula-vs-van-helsing", num_envs=3, seed=1)
>>> obs, infos = envs.reset()
>>> obs["observation"].shape, obs["action_mask"].shape
((3, 290), (3, 37))
>>> rng = np.random.default_rng(0)
>>> actions = [rng.choice(np.flatnonzero(row)) for row in obs["action_mask"]]
>>> obs, rewards, terminated, truncated, infos = envs.step(actions)
>>> rewards.shape, bool(obs["action_mask"].any(axis=1).all())
((3,), True)

Why no PettingZoo parallel form with simultaneous moves: the games are turn-based (one seat
decides at a time; where several seats are asked at once they answer one after the other, and
a later answer may depend on an earlier one). :func:`referee.rl.parallel.parallel_env` offers
the parallel API over the turns instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from referee.rl.aec import ObsDict
from referee.rl.players import PlayerSpec
from referee.rl.single import SingleAgentEnv


class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` tables of one learner each, stepped together (see the module)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        players: int | None = None,
        seat: int = 0,
        opponents: PlayerSpec | Sequence[PlayerSpec] = "random",
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
        illegal_action: str = "random",
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.num_envs = num_envs
        self.envs = [
            SingleAgentEnv(
                game,
                players,
                seat=seat,
                opponents=opponents,
                options=options,
                seed=None if seed is None else seed + i,
                illegal_action=illegal_action,
            )
            for i in range(num_envs)
        ]
        first = self.envs[0]
        self.game = first.game
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._observations = np.zeros((num_envs, self.game.encoder.size), np.float32)
        self._masks = np.zeros((num_envs, self.game.actions.size), np.int8)

    def _put(self, i: int, obs: ObsDict) -> None:
        self._observations[i] = obs["observation"]
        self._masks[i] = obs["action_mask"]

    def _batch(self) -> ObsDict:
        return {"observation": self._observations.copy(), "action_mask": self._masks.copy()}

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[ObsDict, dict[str, Any]]:
        if seed is None or isinstance(seed, int):
            seeds: list[int | None] = [
                None if seed is None else seed + i for i in range(self.num_envs)
            ]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"give {self.num_envs} seeds, got {len(seeds)}")
        infos: dict[str, Any] = {}
        for i, (env, one) in enumerate(zip(self.envs, seeds, strict=True)):
            obs, info = env.reset(seed=one, options=options)
            self._put(i, obs)
            infos = self._add_info(infos, info, i)
        return self._batch(), infos

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        ObsDict,
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        chosen = np.asarray(actions).reshape(-1)
        if chosen.shape != (self.num_envs,):
            raise ValueError(f"give one action per table ({self.num_envs}), got {chosen.shape}")
        rewards = np.zeros(self.num_envs, np.float64)
        terminated = np.zeros(self.num_envs, np.bool_)
        truncated = np.zeros(self.num_envs, np.bool_)
        infos: dict[str, Any] = {}
        for i, env in enumerate(self.envs):
            obs, reward, ended, cut, info = env.step(int(chosen[i]))
            rewards[i], terminated[i], truncated[i] = reward, ended, cut
            if ended or cut:
                infos = self._add_info(infos, {"final_obs": obs, "final_info": info}, i)
                obs, info = env.reset()
            self._put(i, obs)
            infos = self._add_info(infos, info, i)
        return self._batch(), rewards, terminated, truncated, infos

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()
