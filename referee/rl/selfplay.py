"""Self-play over many tables in one call: every seat is the caller's.

``SelfPlayVectorEnv(game, num_envs, players=None, options=None, seed=None)`` holds ``num_envs``
tables and, at each, the seat to act (as the AEC env picks it: the first seat the game waits
for). ``step(actions)`` plays one action per table, for that table's acting seat, and returns
numpy batches: ``obs["observation"]`` ``(num_envs, size)`` and ``obs["action_mask"]``
``(num_envs, actions)`` of each table's *next* acting seat (its own view only, as in the AEC
env), ``obs["seat"]`` ``(num_envs,)`` that seat, ``rewards`` ``(num_envs, players)`` (every
seat's reward by seat number, 0 until the step that ends a game), ``terminated`` and
``truncated`` ``(num_envs,)``. New arrays every call.

A table whose game ends is reset in the same step (the next game of its series: the AEC env's
seeds, ``reset(seed=s)`` plays ``b"<s + i>"``, then ``b"<s + i>/1"``, ... at table ``i``), so
every row is a live decision with a legal action; ``infos["final_results"][i]`` holds the
ended game's results. An illegal action raises ``ValueError`` and changes nothing at any
table (checked against the env's own record, before any table is stepped); the tables are
:attr:`privileged_tables` (the true states: never an agent's input).

>>> import numpy as np
>>> envs = SelfPlayVectorEnv("sleeping-queens", num_envs=2, players=3, seed=1)
>>> obs, _ = envs.reset()
>>> obs["observation"].shape, obs["seat"].shape
((2, 195), (2,))
>>> actions = [int(np.flatnonzero(row)[0]) for row in obs["action_mask"]]
>>> obs, rewards, terminated, truncated, infos = envs.step(actions)
>>> rewards.shape
(2, 3)
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.engine import Table
from referee.rl.aec import ObsDict
from referee.rl.games import default_players, spec


class SelfPlayVectorEnv:
    """``num_envs`` tables, every seat played by the caller (see the module)."""

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        players: int | None = None,
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.num_envs = num_envs
        self.game = spec(game, players if players is not None else default_players(game), options)
        base = seed if seed is not None else secrets.randbits(62)
        self._series = [base + i for i in range(num_envs)]
        self._episodes = [0] * num_envs
        #: The tables: the true states (every hand), never an agent's input.
        self.privileged_tables: list[Table[Any]] = []
        self._seats = np.zeros(num_envs, np.int64)
        self._observations = np.zeros((num_envs, self.game.encoder.size), np.float32)
        #: The env's own record of the legal actions (only copies leave it).
        self._masks = np.zeros((num_envs, self.game.actions.size), np.int8)

    def _new_table(self, i: int) -> Table[Any]:
        suffix = f"/{self._episodes[i]}" if self._episodes[i] else ""
        self._episodes[i] += 1
        game = self.game
        return Table.create(
            game.game, game.players, game.options, seed=f"{self._series[i]}{suffix}".encode()
        )

    def _put(self, i: int) -> None:
        """Encode table ``i``'s acting seat's view into row ``i`` (one encoding per step)."""
        table = self.privileged_tables[i]
        seat = table.pending()[0]
        view = table.view(seat)
        self._seats[i] = seat
        self._observations[i] = self.game.encoder.encode(view)
        self._masks[i] = self.game.actions.mask(view.legal_commands)

    def _batch(self) -> ObsDict:
        return {
            "observation": self._observations.copy(),
            "action_mask": self._masks.copy(),
            "seat": self._seats.copy(),
        }

    def reset(self, seed: int | None = None) -> tuple[ObsDict, dict[str, Any]]:
        if seed is not None:
            self._series = [seed + i for i in range(self.num_envs)]
            self._episodes = [0] * self.num_envs
        self.privileged_tables = [self._new_table(i) for i in range(self.num_envs)]
        for i in range(self.num_envs):
            self._put(i)
        return self._batch(), {}

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        ObsDict,
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        if not self.privileged_tables:
            raise RuntimeError("call reset() before step()")
        chosen = np.asarray(actions, dtype=np.int64).reshape(-1)
        if chosen.shape != (self.num_envs,):
            raise ValueError(f"give one action per table ({self.num_envs}), got {chosen.shape}")
        size = self.game.actions.size
        for i, action in enumerate(chosen.tolist()):  # every check before any table moves
            if not 0 <= action < size or not self._masks[i, action]:
                raise ValueError(f"table {i}: action {action} is not legal now")
        game = self.game
        rewards = np.zeros((self.num_envs, game.players), np.float64)
        terminated = np.zeros(self.num_envs, np.bool_)
        finals: list[Any] = [None] * self.num_envs
        for i, action in enumerate(chosen.tolist()):
            table = self.privileged_tables[i]
            table.submit(int(self._seats[i]), game.actions.commands[action])
            results = table.results()
            if results is not None:
                terminated[i] = True
                finals[i] = results
                for result in results:
                    rewards[i, result.seat] = game.reward(result.rank, game.players)
                self.privileged_tables[i] = self._new_table(i)
            self._put(i)
        infos: dict[str, Any] = {}
        if terminated.any():
            infos = {"final_results": finals, "_final_results": terminated.copy()}
        truncated = np.zeros(self.num_envs, np.bool_)
        return self._batch(), rewards, terminated, truncated, infos
