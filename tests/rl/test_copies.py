"""Copies of the environments for search, which copies a position many times a move:
``env.copy()``, which ``copy.copy`` and
``copy.deepcopy`` are. A copy goes on exactly as the original would, and nothing either does
changes the other."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from referee.rl import env, games, gym_env
from referee.rl.aec import RefereeAECEnv
from referee.rl.single import SingleAgentEnv


def aec_moment(aec: RefereeAECEnv) -> tuple[Any, ...]:
    """What an agent and its trainer can read of an AEC env now."""
    agent = aec.agent_selection
    observation, reward, terminated, truncated, info = aec.last()
    return (
        agent,
        observation["observation"].tobytes(),
        observation["action_mask"].tobytes(),
        reward,
        terminated,
        truncated,
        dict(info),
        tuple(aec.agents),
        dict(aec.rewards),
        dict(aec._cumulative_rewards),
        tuple(aec.information_state_string(a) for a in aec.possible_agents),
        tuple(aec.information_state_tensor(a).tobytes() for a in aec.possible_agents),
    )


def aec_play(aec: RefereeAECEnv, rng: np.random.Generator, steps: int) -> list[int | None]:
    """``steps`` steps of the docs' loop (dead steps at the end); the actions played."""
    played: list[int | None] = []
    for _ in range(steps):
        if not aec.agents:
            break
        observation, _, terminated, truncated, _ = aec.last()
        action = None
        if not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        aec.step(action)
        played.append(action)
    return played


@pytest.mark.parametrize("how", [RefereeAECEnv.copy, copy.copy, copy.deepcopy])
@pytest.mark.parametrize("game", games())
def test_an_aec_copy_goes_on_as_the_original_and_alone(game: str, how: Any) -> None:
    aec = env(game, seed=11)
    aec.reset()
    aec_play(aec, np.random.default_rng(0), 15)
    aec.information_state_string(aec.possible_agents[0])  # a history replica to copy too
    before = aec_moment(aec)
    twin = how(aec)
    assert twin is not aec and twin.privileged_table is not aec.privileged_table
    assert aec_moment(twin) == before
    # The copy plays to the end: the original is where it was.
    played = aec_play(twin, np.random.default_rng(1), 10_000)
    assert not twin.agents and aec_moment(aec) == before
    # The original then plays the same actions: the same moments as the copy had.
    again = how(aec)
    aec_play(aec, np.random.default_rng(1), len(played))
    assert not aec.agents and aec.rewards == twin.rewards and aec.infos == twin.infos
    assert aec_moment(again) == before  # the second copy was left alone by the original
    assert twin.privileged_table is not None and aec.privileged_table is not None
    assert twin.privileged_table.log == aec.privileged_table.log


def test_a_copys_spaces_have_their_own_generators() -> None:
    aec = env("sleeping-queens", seed=3)
    aec.reset()
    agent = aec.possible_agents[0]
    fresh = aec.copy()
    assert fresh.action_space(agent) is not aec.action_space(agent)
    fresh.action_space(agent).seed(5)  # seeding the copy's space leaves the original's unseeded
    assert aec.action_space(agent)._np_random is None
    aec.action_space(agent).seed(9)
    aec.observation_space(agent).seed(9)
    twin = aec.copy()
    # Seeded: the copy's generators start where the original's are and then go their own way.
    assert twin.action_space(agent).sample() == aec.action_space(agent).sample()
    ours, theirs = twin.observation_space(agent).sample(), aec.observation_space(agent).sample()
    assert np.array_equal(ours["observation"], theirs["observation"])
    twin.action_space(agent).sample()
    assert [twin.action_space(agent).sample() for _ in range(5)] != [
        aec.action_space(agent).sample() for _ in range(5)
    ]


def single_moment(single: SingleAgentEnv, obs: dict[str, Any]) -> tuple[Any, ...]:
    return (
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        single.information_state_string(),
        single.information_state_tensor().tobytes(),
    )


def single_play(single: SingleAgentEnv, obs: dict[str, Any], rng: np.random.Generator) -> Any:
    """To the end with the docs' loop; the final step's reward and info."""
    while True:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, _, info = single.step(action)
        if terminated:
            return reward, info, single_moment(single, obs)


@pytest.mark.parametrize("how", [SingleAgentEnv.copy, copy.deepcopy])
@pytest.mark.parametrize("game", games())
def test_a_gym_copy_goes_on_as_the_original_and_alone(game: str, how: Any) -> None:
    """With built-in opponents that draw random numbers (``random``), the copy's opponents make
    the original's choices: the copy's game is the original's game."""
    single = gym_env(game, opponents="random")
    obs, _ = single.reset(seed=21)
    rng = np.random.default_rng(2)
    for _ in range(4):
        obs, _, terminated, _, _ = single.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert not terminated
    before = single_moment(single, obs)
    twin = how(single)
    assert twin.privileged_table is not single.privileged_table
    ended = single_play(twin, obs, np.random.default_rng(3))
    assert single_moment(single, obs) == before
    assert single_play(single, obs, np.random.default_rng(3)) == ended
