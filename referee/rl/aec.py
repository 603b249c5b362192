"""The PettingZoo AEC environment over the engine's :class:`~referee.engine.Table`.

One table per episode; the agent to act is the first seat the game waits for
(``table.pending()[0]``: when several seats are asked at once, e.g. the opponents answering a
called colour in Mau Mau Vampires, they act one after the other in that order). Every
observation is built from ``table.view(seat)``, the same redacted view a gRPC client of that
seat receives, and its ``action_mask`` from that view's legal commands: a seat with nothing to
decide sees an all-zero mask. Rewards are 0 until the game ends, then every seat gets the
reward of its result at once (see each game module) and every agent terminates. The terminal
observation's mask is all zeros: every agent then steps ``None`` (PettingZoo's dead step).

**What the agent holds is its own.** Every ``observe()``/``last()`` returns new arrays, so a
policy may preprocess them in place; legality is judged by the env's own record of the legal
commands of the view it encoded (never by the array the agent was handed, which it may have
edited). An action that is not legal now raises ``ValueError`` and changes nothing.

**The true state is privileged.** :attr:`RefereeAECEnv.privileged_table` is the episode's
:class:`~referee.engine.Table`: every hand, the deck, the unredacted log. It is there for
evaluation, debugging and search *outside* the agent (results, replays, the log); an agent's
input must come from ``observe``/``last``/``information_state_*`` only. The old name ``table``
still works and warns (:class:`PrivilegedAccessWarning`).

Seeding: ``reset(seed=s)`` plays the table seed ``str(s).encode()`` (the same game as
``Table.create(game, players, options, seed=b"<s>")``); each later ``reset()`` without a seed
plays the next game of that series (``b"<s>/1"``, ``b"<s>/2"``, ...). ``env(..., seed=s)``
gives the series of the first ``reset()``; without any seed the series starts from a random
number.
"""

from __future__ import annotations

import secrets
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from referee.engine import Table, View
from referee.rl.copies import copy_episode, copy_spaces
from referee.rl.core import Mask, Observation
from referee.rl.games import GameSpec, default_players, spec
from referee.rl.infostate import HistoryKeeper
from referee.rl.text import render_text
from referee.rl.worlds import seat_world
from referee.search.worlds import World

ObsDict = dict[str, Any]


class PrivilegedAccessWarning(UserWarning):
    """The true state was read through a name that does not say it is privileged."""


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


def observation_space(game: GameSpec) -> spaces.Dict:
    """The Dict space of one seat: ``observation`` (float32 in [0, 1]) and ``action_mask``."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, shape=(game.encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(game.actions.size,), dtype=np.int8),
        }
    )


def observe(game: GameSpec, view: View) -> ObsDict:
    """The observation of a seat's view: its encoding and the mask of its legal commands."""
    return {
        "observation": game.encoder.encode(view),
        "action_mask": game.actions.mask(view.legal_commands),
    }


class RefereeAECEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """A game of the referee as a PettingZoo AEC environment (build it with :func:`env`)."""

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        game: str,
        players: int,
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of human, ansi or None, got {render_mode}")
        self.spec_ = spec(game, players, options)
        self.metadata = {**self.metadata, "name": f"referee_{game.replace('-', '_')}_v0"}
        self.render_mode = render_mode
        self.possible_agents = [agent_name(s) for s in range(players)]
        self.agents = self.possible_agents[:]
        self._seats = {agent: s for s, agent in enumerate(self.possible_agents)}
        space = observation_space(self.spec_)
        self.observation_spaces = {a: space for a in self.possible_agents}
        # Distinct objects per agent: api_test seeds each agent's action space on its own.
        self.action_spaces = {a: spaces.Discrete(self.spec_.actions.size) for a in self.agents}
        self._series = seed if seed is not None else secrets.randbits(63)
        self._episode = 0
        #: The episode's table: the true state (see the module), never an agent's input.
        self.privileged_table: Table[Any] | None = None
        #: The env's own record per seat: (table version, observation, mask) of the view it
        #: last encoded. Owned here, cleared on reset and close; only copies leave it.
        self._seen: dict[int, tuple[int, Observation, Mask]] = {}
        self._histories: HistoryKeeper | None = None

    def __str__(self) -> str:
        return str(self.metadata["name"])

    def copy(self) -> RefereeAECEnv:
        """An independent environment in the same position, for search: in microseconds,
        where ``copy.deepcopy`` took milliseconds (``copy.copy`` and ``copy.deepcopy`` are
        this). What play changes is copied (the table by
        :meth:`~referee.engine.table.Table.copy`, the histories, the per-agent dicts, the
        spaces' generators: :mod:`referee.rl.copies`); the game's spec and the encoded
        records (never changed in place) are shared. For a search over one seat's
        information, copy a world (:meth:`sample_world`), not this: the copy holds the true
        state."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        episode = copy_episode(self.privileged_table, self._histories)
        twin.privileged_table, twin._histories = episode
        twin._seen = self._seen.copy()
        twin.observation_spaces = copy_spaces(self.observation_spaces)
        twin.action_spaces = copy_spaces(self.action_spaces)
        twin.agents = self.agents.copy()
        for name in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
            if name in self.__dict__:
                setattr(twin, name, getattr(self, name).copy())
        if "infos" in self.__dict__:
            twin.infos = {agent: dict(info) for agent, info in self.infos.items()}
        return twin

    def __copy__(self) -> RefereeAECEnv:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> RefereeAECEnv:
        return self.copy()

    @property
    def table(self) -> Table[Any] | None:
        """Deprecated name of :attr:`privileged_table` (the true state: every hand)."""
        warnings.warn(
            "RefereeAECEnv.table is the true state (every hand); use privileged_table, "
            "and never as an agent's input",
            PrivilegedAccessWarning,
            stacklevel=2,
        )
        return self.privileged_table

    # --- spaces -------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # --- the game -----------------------------------------------------------------------

    def table_seed(self) -> bytes:
        """The seed of the table the next ``reset()`` (without a seed) plays."""
        suffix = f"/{self._episode}" if self._episode else ""
        return f"{self._series}{suffix}".encode()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._series = int(seed)
            self._episode = 0
        game = self.spec_
        table = Table.create(game.game, game.players, game.options, seed=self.table_seed())
        self.privileged_table = table
        self._histories = HistoryKeeper(game, table)
        self._episode += 1
        self._seen.clear()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = agent_name(table.pending()[0])

    def _table(self) -> Table[Any]:
        if self.privileged_table is None:
            raise RuntimeError("call reset() before using the environment")
        return self.privileged_table

    def view(self, agent: str) -> View:
        """The seat's view (what its observation is built from)."""
        return self._table().view(self._seats[agent])

    def sample_world(self, agent: str, seed: bytes | int | str) -> World:
        """A world ``agent``'s seat could be in, from its own events and view only, for search
        agents (:func:`referee.rl.worlds.seat_world`); ``world.table()`` plays on."""
        return seat_world(self._table(), self._seats[agent], seed)

    def _record(self, seat: int) -> tuple[int, Observation, Mask]:
        """The env's record of ``seat``'s current view: encoded once per table version."""
        table = self._table()
        seen = self._seen.get(seat)
        version = len(table.log)
        if seen is None or seen[0] != version:
            view = table.view(seat)
            game = self.spec_
            seen = self._seen[seat] = (
                version,
                game.encoder.encode(view),
                game.actions.mask(view.legal_commands),
            )
        return seen

    def observe(self, agent: str) -> ObsDict:
        """The agent's observation: new arrays on every call (the agent may write to them)."""
        _, encoded, mask = self._record(self._seats[agent])
        return {"observation": encoded.copy(), "action_mask": mask.copy()}

    def action_mask(self, agent: str) -> Mask:
        """A copy of the agent's current mask."""
        return self._record(self._seats[agent])[2].copy()

    def encoded(self, agent: str) -> Observation:
        """A copy of the agent's current observation vector."""
        return self._record(self._seats[agent])[1].copy()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self._table()
        actions = self.spec_.actions
        if action is None or not 0 <= (index := int(action)) < actions.size:
            raise ValueError(f"{agent}: action must be 0..{actions.size - 1}")
        command = actions.commands[index]
        seat = self._seats[agent]
        # The env's own record, not any array an agent holds (it may have been edited).
        if not self._record(seat)[2][index]:
            raise ValueError(f"{agent}: action {action} ({command!r}) is not legal now")
        table.submit(seat, command)
        if self._histories is not None:
            self._histories.played(seat, index)
        self._cumulative_rewards[agent] = 0.0
        results = table.results()
        if results is None:
            # Rewards stay 0 (as reset() set them) until the end: nothing to clear or add.
            self.agent_selection = self.possible_agents[table.pending()[0]]
        else:
            players = self.spec_.players
            reward = self.spec_.reward
            self.rewards = {agent_name(r.seat): reward(r.rank, players) for r in results}
            self.terminations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a] = {"score": results[self._seats[a]].score}
            self._accumulate_rewards()
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _history_keeper(self) -> HistoryKeeper:
        self._table()
        assert self._histories is not None  # made with the table
        return self._histories

    def information_state_string(self, agent: str) -> str:
        """The agent's action-observation history as text (:mod:`referee.rl.infostate`)."""
        return self._history_keeper().history(self._seats[agent]).string()

    def information_state_tensor(self, agent: str) -> Observation:
        """The agent's action-observation history, one row per command (a new array)."""
        return self._history_keeper().history(self._seats[agent]).tensor()

    # --- text ---------------------------------------------------------------------------

    def render(self) -> str | None:
        """The acting seat's view as plain text and its legal actions by index
        (:func:`referee.rl.text.render_text`); ``ansi`` returns it, ``human`` prints it."""
        if self.render_mode is None:
            return None
        text = render_text(self.spec_, self._table(), self._seats[self.agent_selection])
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        self.privileged_table = None
        self._histories = None
        self._seen.clear()


def env(
    game: str,
    players: int | None = None,
    options: Mapping[str, str] | None = None,
    seed: int | None = None,
    render_mode: str | None = None,
) -> RefereeAECEnv:
    """A PettingZoo AEC environment of ``game`` (default player count: the game's fewest)."""
    if players is None:
        players = default_players(game)
    return RefereeAECEnv(game, players, options, seed=seed, render_mode=render_mode)
