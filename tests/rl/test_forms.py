"""The other forms of the environments: the vector env (many tables in one call), the
parallel API over the turns, ``gymnasium.make_vec``, and the information state."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from referee.rl import SeatHistory, VectorEnv, env, games, gym_env, parallel_env


@pytest.mark.parametrize("game", games())
def test_the_vector_env_is_the_single_envs_side_by_side(game: str) -> None:
    """Row i of every batch is what gym_env(seed=s + i) gives for the same actions; an ended
    game is reset in the same step (its last observation in infos["final_obs"])."""
    n = 3
    envs = VectorEnv(game, num_envs=n, opponents="heuristic")
    singles = [gym_env(game, opponents="heuristic") for _ in range(n)]
    obs, _ = envs.reset(seed=40)
    alone = [s.reset(seed=40 + i)[0] for i, s in enumerate(singles)]
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(400):
        for i in range(n):
            assert np.array_equal(obs["observation"][i], alone[i]["observation"])
            assert np.array_equal(obs["action_mask"][i], alone[i]["action_mask"])
        assert obs["action_mask"].any(axis=1).all()  # every row is a live decision
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in obs["action_mask"]])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert obs["observation"].shape == (n, envs.game.encoder.size)
        assert rewards.shape == terminated.shape == truncated.shape == (n,)
        for i, single in enumerate(singles):
            one, reward, done, _, _ = single.step(int(actions[i]))
            assert rewards[i] == reward and terminated[i] == done
            if done:
                ended += 1
                assert infos["_final_obs"][i]
                assert np.array_equal(infos["final_obs"][i]["observation"], one["observation"])
                one, _ = single.reset()
            alone[i] = one
    assert ended > 0


def test_make_vec_builds_the_vector_env() -> None:
    envs = gymnasium.make_vec("referee/sleeping-queens-v0", num_envs=2, players=3)
    obs, _ = envs.reset(seed=1)
    assert isinstance(envs.unwrapped, VectorEnv)
    assert obs["action_mask"].shape == (2, envs.unwrapped.game.actions.size)
    actions = envs.action_space.sample(mask=tuple(obs["action_mask"]))
    envs.step(actions)


@pytest.mark.parametrize("game", games())
def test_the_parallel_api_over_the_turns(game: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Dict observations, as in api_test
        parallel_api_test(parallel_env(game, seed=3), num_cycles=300)
    par = parallel_env(game, seed=4)
    observations, _ = par.reset()
    while par.agents:
        acting = [a for a, o in observations.items() if o["action_mask"].any()]
        assert len(acting) == 1  # one seat decides at a time
        actions = {a: 0 for a in par.agents}
        actions[acting[0]] = int(np.flatnonzero(observations[acting[0]]["action_mask"])[0])
        observations, *_ = par.step(actions)


@pytest.mark.parametrize("game", games())
def test_the_information_state_is_the_history_of_what_the_seat_received(game: str) -> None:
    """The env's information state equals a SeatHistory fed by hand with the seat's redacted
    events, its views and its actions; it has a row per command and grows as play goes on."""
    aec = env(game, seed=8)
    aec.reset()
    table = aec.privileged_table
    assert table is not None
    players = aec.spec_.players
    fed = [SeatHistory(aec.spec_, s) for s in range(players)]
    for s in range(players):
        fed[s].add(table.redacted_log(s), table.view(s), None, None)
    rng = np.random.default_rng(2)
    commands = 0
    for agent in aec.agent_iter(max_iter=120):
        obs, _, done, _, _ = aec.last()
        if done:
            aec.step(None)
            continue
        seat = aec.possible_agents.index(agent)
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        befores = [table.view(s).game for s in range(players)]
        start = table.version
        aec.step(action)
        commands += 1
        for s in range(players):
            fed[s].add(
                table.redacted_log(s, start),
                table.view(s),
                action if s == seat else None,
                befores[s],
            )
        if commands % 17 == 0:  # asked now and then: the history catches up from there
            tensor = aec.information_state_tensor(agent)
            assert tensor.shape == (commands + 1, fed[seat].tensor().shape[1])
    for s, agent in enumerate(aec.possible_agents):
        assert aec.information_state_string(agent) == fed[s].string()
        assert np.array_equal(aec.information_state_tensor(agent), fed[s].tensor())
    strings = {aec.information_state_string(a) for a in aec.possible_agents}
    assert len(strings) == players  # each seat's own history


def test_the_gym_env_gives_the_learners_information_state() -> None:
    single = gym_env("mau-mau-vampires", 3, seat=1, seed=3)
    obs, _ = single.reset()
    single.step(int(np.flatnonzero(obs["action_mask"])[0]))
    text = single.information_state_string()
    assert text.startswith("mau-mau-vampires, 3 players, seat 1")
    assert "> action" in text
    tensor = single.information_state_tensor()
    assert tensor[:, -1].sum() == 1.0  # one command was the learner's


@pytest.mark.parametrize("game", games())
def test_an_encoder_module_can_be_imported_first(game: str) -> None:
    """Importing referee.rl registers the ids without importing the encoders, so a program
    whose first import is an encoder module (which imports referee.rl.core) still works."""
    from referee.engine.registry import ENCODER, package_of

    code = (
        f"import {package_of(game)}.{ENCODER}, gymnasium; "
        f"gymnasium.make('referee/{game}-v0').reset(seed=1); print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


@pytest.mark.parametrize("game", games())
def test_self_play_over_many_tables_is_the_aec_env_side_by_side(game: str) -> None:
    """Table i of SelfPlayVectorEnv(seed=s) is env(seed=s + i) played with the same actions:
    the acting seat, its observation and mask, every seat's reward at the end, the series."""
    from referee.rl import SelfPlayVectorEnv

    n = 2
    envs = SelfPlayVectorEnv(game, num_envs=n, seed=60)
    obs, _ = envs.reset()
    alone = [env(game, seed=60 + i) for i in range(n)]
    for aec in alone:
        aec.reset()
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(8000):  # Mau Mau Vampires' random games are long
        actions = []
        for i, aec in enumerate(alone):
            mine, *_ = aec.last()
            assert obs["seat"][i] == aec.possible_agents.index(aec.agent_selection)
            assert np.array_equal(obs["observation"][i], mine["observation"])
            assert np.array_equal(obs["action_mask"][i], mine["action_mask"])
            actions.append(int(rng.choice(np.flatnonzero(mine["action_mask"]))))
        obs, rewards, terminated, _, infos = envs.step(actions)
        for i, aec in enumerate(alone):
            aec.step(actions[i])
            if terminated[i]:
                ended += 1
                assert all(aec.terminations.values())
                expected = [aec.rewards[a] for a in aec.possible_agents]
                assert rewards[i].tolist() == expected
                assert infos["final_results"][i] == aec.privileged_table.results()
                aec.reset()  # the next game of the series, as the vector env's
            else:
                assert not rewards[i].any()
        if ended >= 2:
            break
    assert ended >= 2


def test_self_play_refuses_an_illegal_action_at_any_table_and_moves_none() -> None:
    from referee.rl import SelfPlayVectorEnv

    envs = SelfPlayVectorEnv("dracula-vs-van-helsing", num_envs=3, seed=1)
    obs, _ = envs.reset()
    versions = [t.version for t in envs.privileged_tables]
    actions = [int(np.flatnonzero(row)[0]) for row in obs["action_mask"]]
    actions[2] = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
    obs["action_mask"][2][:] = 1  # the caller's copy: not the env's record
    with pytest.raises(ValueError, match="table 2"):
        envs.step(actions)
    assert [t.version for t in envs.privileged_tables] == versions
