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

Every action of the action space is accepted, as Gymnasium's API (and its ``check_env``)
expects: by default (``illegal_action="random"``) an action outside the mask is replaced by a
uniformly random legal one (from the env's ``np_random``) and ``info["illegal_action"]`` is
true, for learners that do not mask; with ``illegal_action="raise"`` it raises ``ValueError``
and nothing changes (for learners that must never send one). Legality is judged by the table's
legal commands, never by the mask array the learner holds.

**The terminal mask.** The observation that ends an episode has one entry set, action
:data:`TERMINAL_ACTION` (0): no command is legal then, but a mask with no entry breaks masked
sampling (``rng.choice(np.flatnonzero(mask))``) in a vector env's batch, and the action a
vector env draws for an ended episode is discarded when it resets that env (Gymnasium's
autoreset). ``step()`` after the end raises ``RuntimeError``; call ``reset()``.

:attr:`SingleAgentEnv.privileged_table` is the true state (every hand), as in the AEC env:
for evaluation and debugging, never the learner's input (``table`` warns).
"""

from __future__ import annotations

import copy
import random
import secrets
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from referee.engine import Table
from referee.rl.aec import ObsDict, PrivilegedAccessWarning, observation_space, observe
from referee.rl.copies import copy_episode, copy_space
from referee.rl.core import Observation
from referee.rl.games import default_players, spec
from referee.rl.infostate import HistoryKeeper
from referee.rl.players import Player, PlayerSpec, expand, make_player
from referee.rl.text import render_text
from referee.rl.worlds import seat_world
from referee.search.worlds import World

#: The one action the terminal observation's mask marks (see the module).
TERMINAL_ACTION = 0


class SingleAgentEnv(gymnasium.Env[ObsDict, np.int64]):
    """The learner plays ``seat``; ``opponents`` (a strategy name or a policy, or one per other
    seat in seat order) play the rest."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        game: str,
        players: int | None = None,
        seat: int = 0,
        opponents: PlayerSpec | Sequence[PlayerSpec] = "random",
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        illegal_action: str = "random",
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
        #: The episode's table: the true state, never the learner's input (see the module).
        self.privileged_table: Table[Any] | None = None
        self.players: dict[int, Player] = {}
        self._histories: HistoryKeeper | None = None

    def copy(self) -> SingleAgentEnv:
        """An independent environment in the same position, for search: in microseconds,
        where ``copy.deepcopy`` took milliseconds (``copy.copy`` and ``copy.deepcopy`` are
        this). The table, histories, spaces' and env's generators and the opponents'
        generators are copied (a built-in opponent then makes the same choices in both);
        the game's spec and a policy opponent (the caller's object) are shared. The copy
        holds the true state: for search over the learner's information, copy a world
        (:meth:`sample_world`).
        """
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        episode = copy_episode(self.privileged_table, self._histories)
        twin.privileged_table, twin._histories = episode
        twin.players = {seat: player.copy() for seat, player in self.players.items()}
        twin.observation_space = copy_space(self.observation_space)
        twin.action_space = copy_space(self.action_space)
        if self._np_random is not None:
            twin._np_random = copy.deepcopy(self._np_random)
        return twin

    def __copy__(self) -> SingleAgentEnv:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> SingleAgentEnv:
        return self.copy()

    @property
    def table(self) -> Table[Any] | None:
        """Deprecated name of :attr:`privileged_table` (the true state: every hand)."""
        warnings.warn(
            "SingleAgentEnv.table is the true state (every hand); use privileged_table, "
            "and never as the learner's input",
            PrivilegedAccessWarning,
            stacklevel=2,
        )
        return self.privileged_table

    def _table(self) -> Table[Any]:
        if self.privileged_table is None:
            raise RuntimeError("call reset() before step()")
        return self.privileged_table

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
        table = self.privileged_table = Table.create(
            game.game, game.players, game.options, seed=table_seed
        )
        self._histories = HistoryKeeper(game, table)
        others = [s for s in range(game.players) if s != self.seat]
        self.players = {
            s: make_player(p, game, random.Random(table_seed + b"/%d" % s))
            for s, p in zip(others, self.opponents, strict=True)
        }
        self._advance()
        return self._observe(table), {}

    def _observe(self, table: Table[Any]) -> ObsDict:
        obs = observe(self.game, table.view(self.seat))
        if not obs["action_mask"].any():  # the end (see the module)
            obs["action_mask"][TERMINAL_ACTION] = 1
        return obs

    def _advance(self) -> None:
        """Let the other seats play until the learner is asked or the game is over."""
        table = self._table()
        while table.results() is None:
            seat = table.pending()[0]
            if seat == self.seat:
                return
            self._submit(table, seat, self.players[seat].choose(table, seat))

    def _submit(self, table: Table[Any], seat: int, command: Any) -> None:
        table.submit(seat, command)
        if self._histories is not None:
            self._histories.played(seat, self.game.actions.action(command))

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
        self._submit(table, self.seat, command)
        self._advance()
        obs = self._observe(table)
        results = table.results()
        if results is None:
            return obs, 0.0, False, False, info
        mine = results[self.seat]
        reward = self.game.reward(mine.rank, self.game.players)
        if self.render_mode == "human":
            self.render()
        return obs, reward, True, False, {**info, "score": mine.score, "rank": mine.rank}

    def _history_keeper(self) -> HistoryKeeper:
        self._table()
        assert self._histories is not None  # made with the table
        return self._histories

    def information_state_string(self) -> str:
        """The learner's action-observation history as text (:mod:`referee.rl.infostate`)."""
        return self._history_keeper().history(self.seat).string()

    def information_state_tensor(self) -> Observation:
        """The learner's action-observation history, one row per command (a new array)."""
        return self._history_keeper().history(self.seat).tensor()

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
