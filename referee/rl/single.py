"""A Gymnasium environment for one learner: it plays one seat, the others are played by
``referee-bot`` strategies or policies (:mod:`referee.rl.players`).

>>> import numpy as np
>>> from referee.rl import gym_env
>>> env = gym_env("dracula-vs-van-helsing", seat=0, opponents="heuristic")
>>> obs, info = env.reset(seed=3)
>>> obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
>>> int(env.action_space.n), obs["observation"].shape
(37, (290,))

Seeding is the AEC environment's: ``reset(seed=s)`` plays table seed ``b"<s>"`` and later
resets go on with ``b"<s>/1"``, ...; each strategy's random generator is seeded from the
table seed and its seat, so a seed reproduces the whole game. ``reset(options={"seat": k})``
moves the learner to seat ``k`` from then on.

An action outside the mask raises ``ValueError`` (nothing changes); with
``illegal_action="random"`` a uniformly random legal action (from the env's ``np_random``) is
played instead and ``info["illegal_action"]`` is true, for learners that do not mask.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from referee.engine import Table
from referee.engine.worlds import World
from referee.rl.aec import ObsDict, observation_space, observe
from referee.rl.games import default_players, spec
from referee.rl.players import Player, PlayerSpec, expand, make_player
from referee.rl.text import render_text
from referee.rl.worlds import seat_world


class SingleAgentEnv(gymnasium.Env[ObsDict, np.int64]):
    """The learner plays ``seat``; ``opponents`` (a strategy name or a policy, or one per other
    seat in seat order) play the rest."""

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(
        self,
        game: str,
        players: int | None = None,
        seat: int = 0,
        opponents: PlayerSpec | Sequence[PlayerSpec] = "random",
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        illegal_action: str = "raise",
    ) -> None:
        if illegal_action not in ("raise", "random"):
            raise ValueError(f"illegal_action must be raise or random, got {illegal_action!r}")
        self.illegal_action = illegal_action
        if players is None:
            players = default_players(game)
        self.game = spec(game, players, options)
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1}, got {seat}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of human, ansi or None, got {render_mode}")
        self.render_mode = render_mode
        self.seat = seat
        self.opponents = expand(opponents, players - 1)
        self.observation_space = observation_space(self.game)
        self.action_space = spaces.Discrete(self.game.actions.size)
        self._series = seed if seed is not None else secrets.randbits(63)
        self._episode = 0
        self.table: Table[Any] | None = None
        self.players: dict[int, Player] = {}

    def _table(self) -> Table[Any]:
        if self.table is None:
            raise RuntimeError("call reset() before step()")
        return self.table

    def sample_world(self, seed: bytes | int | str) -> World:
        """A world the learner's seat could be in, from its own events and view only, for
        search agents (:func:`referee.rl.worlds.seat_world`); ``world.table()`` plays on."""
        return seat_world(self._table(), self.seat, seed)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._series, self._episode = int(seed), 0
        if options and "seat" in options:
            seat = int(options["seat"])
            if not 0 <= seat < self.game.players:
                raise ValueError(f"seat must be 0..{self.game.players - 1}, got {seat}")
            self.seat = seat
        suffix = f"/{self._episode}" if self._episode else ""
        table_seed = f"{self._series}{suffix}".encode()
        self._episode += 1
        game = self.game
        self.table = Table.create(game.game, game.players, game.options, seed=table_seed)
        others = [s for s in range(game.players) if s != self.seat]
        self.players = {
            s: make_player(p, game, random.Random(table_seed + b"/%d" % s))
            for s, p in zip(others, self.opponents, strict=True)
        }
        self._advance()
        return observe(game, self.table.view(self.seat)), {}

    def _advance(self) -> None:
        """Let the other seats play until the learner is asked or the game is over."""
        table = self._table()
        while table.results() is None:
            seat = table.pending()[0]
            if seat == self.seat:
                return
            table.submit(seat, self.players[seat].choose(table, seat))

    def step(self, action: np.int64 | int) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        table = self._table()
        if table.results() is not None:
            raise RuntimeError("the game is over: call reset()")
        legal = table.legal_commands(self.seat)
        size = self.game.actions.size
        command = self.game.actions.command(int(action)) if 0 <= int(action) < size else None
        info: dict[str, Any] = {}
        if command not in legal:
            if self.illegal_action == "raise":
                raise ValueError(f"action {action} ({command!r}) is not legal now")
            command = legal[int(self.np_random.integers(len(legal)))]
            info["illegal_action"] = True
        table.submit(self.seat, command)
        self._advance()
        obs = observe(self.game, table.view(self.seat))
        results = table.results()
        if results is None:
            return obs, 0.0, False, False, info
        mine = results[self.seat]
        reward = self.game.reward(mine.rank, self.game.players)
        if self.render_mode == "human":
            self.render()
        return obs, reward, True, False, {**info, "score": mine.score, "rank": mine.rank}

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = render_text(self.game, self._table(), self.seat)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None


#: ``gym_env(game, players, seat, opponents, options, seed, render_mode, illegal_action)``.
gym_env = SingleAgentEnv
