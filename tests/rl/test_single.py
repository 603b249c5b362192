"""The Gymnasium single-agent environment: Gymnasium's own checker, opponents (strategies and
policies), seeding, seats and illegal actions."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from referee.rl import games, gym_env
from referee.rl.aec import ObsDict


def first_legal(obs: ObsDict) -> int:
    return int(np.flatnonzero(obs["action_mask"])[0])


def play(env: Any, seed: int | None, policy: Any) -> tuple[list[int], float, dict[str, Any]]:
    obs, _ = env.reset(seed=seed)
    actions, done, reward, info = [], False, 0.0, {}
    while not done:
        action = policy(obs)
        actions.append(action)
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
    return actions, reward, info


@pytest.mark.parametrize("game", games())
def test_gymnasium_check_env(game: str) -> None:
    # check_env steps unmasked random actions: the default illegal_action="random" plays a
    # legal one (tests/rl/test_defects.py checks the defaults with random opponents).
    check_env(gym_env(game, opponents="heuristic", seed=1))


@pytest.mark.parametrize("game", games())
def test_a_seed_reproduces_a_game_against_heuristic_bots(game: str) -> None:
    rng = random.Random(0)

    def policy(obs: ObsDict) -> int:
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    env = gym_env(game, seat=1 if game != "vampire-queen" else 2, opponents="heuristic")
    first = play(env, 9, policy)
    log = list(env.privileged_table.log) if env.privileged_table else []
    rng.seed(0)
    second = play(env, 9, policy)
    assert first == second
    assert env.privileged_table is not None and env.privileged_table.log == log
    results = env.privileged_table.results()
    assert results is not None
    assert second[2]["rank"] == results[env.seat].rank
    assert second[1] == env.game.reward(results[env.seat].rank, env.game.players)


def test_the_learner_plays_only_its_seat() -> None:
    env = gym_env("sleeping-queens", 3, seat=2, opponents=["heuristic", "random"], seed=5)
    obs, _ = env.reset()
    assert env.privileged_table is not None
    while True:
        # Whenever the learner is asked, its seat is pending and its mask is its legal moves.
        assert 2 in env.privileged_table.pending()
        assert obs["action_mask"].sum() == len(env.privileged_table.legal_commands(2))
        obs, _, done, _, _ = env.step(first_legal(obs))
        if done:
            break


def test_a_policy_can_play_the_other_seats() -> None:
    calls = []

    def opponent(obs: ObsDict) -> int:
        calls.append(obs["observation"].shape)
        return first_legal(obs)

    env = gym_env("dracula-vs-van-helsing", opponents=opponent, seed=2)
    _, reward, _ = play(env, None, first_legal)
    assert calls and reward in (1.0, -1.0)


def test_reset_can_move_the_learner() -> None:
    env = gym_env("vampire-queen", 4, seed=1)
    env.reset(options={"seat": 3})
    assert env.seat == 3 and env.privileged_table is not None
    with pytest.raises(ValueError, match="seat must be"):
        env.reset(options={"seat": 4})


def test_illegal_actions() -> None:
    env = gym_env("dracula-vs-van-helsing", seed=3, illegal_action="raise")
    obs, _ = env.reset()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    assert env.privileged_table is not None
    version = env.privileged_table.version
    with pytest.raises(ValueError, match="not legal"):
        env.step(illegal)
    assert env.privileged_table.version == version
    lenient = gym_env("dracula-vs-van-helsing", seed=3)  # the default: "random"
    lenient.reset()
    _, _, _, _, info = lenient.step(illegal)
    assert info["illegal_action"] is True


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="one opponent or 2"):
        gym_env("vampire-queen", 3, opponents=["random"])
    with pytest.raises(ValueError, match="unknown strategy"):
        gym_env("vampire-queen", 3, opponents="clever").reset(seed=1)
    with pytest.raises(ValueError, match="illegal_action"):
        gym_env("vampire-queen", 3, illegal_action="ignore")
    with pytest.raises(TypeError, match="strategy name or a policy"):
        gym_env("vampire-queen", 3, opponents=[1, 2]).reset(seed=1)  # type: ignore[list-item]
