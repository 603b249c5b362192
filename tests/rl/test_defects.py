"""The learning environments' defects, one test each: every one of
these failed on the code before its fix."""

from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import SyncVectorEnv
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import Table
from referee.rl import env, games, gym_env

PROPERTY = settings(
    max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.mark.parametrize("game", games())
def test_check_env_passes_with_the_defaults(game: str) -> None:
    """Gymnasium's checker steps unmasked samples of the action space: the defaults accept
    every action of the space (an illegal one is replaced, ``info["illegal_action"]``)."""
    check_env(gym_env(game, seed=1))


@pytest.mark.parametrize("game", games())
def test_every_game_has_a_gymnasium_make_id(game: str) -> None:
    made = gymnasium.make(f"referee/{game}-v0", seed=2)
    assert made.unwrapped.game.game == game
    obs, _ = made.reset(seed=2)
    assert made.observation_space.contains(obs)
    made.step(int(np.flatnonzero(obs["action_mask"])[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # with a spec the checker also tries the render modes
        check_env(gymnasium.make(f"referee/{game}-v0", seed=2).unwrapped)
    # A program that has not imported referee.rl names the module in the id.
    code = (
        "import gymnasium; "
        f"e = gymnasium.make('referee.rl:referee/{game}-v0'); "
        "print(e.unwrapped.game.game)"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert found.strip() == game


def true_table(aec: Any) -> Table[Any]:
    """The env's table, under its old name too: so that the legality test shows the legality
    defect on the code before the rename, not the rename."""
    found = vars(aec).get("privileged_table") or vars(aec).get("table")
    assert isinstance(found, Table)
    return found


def _illegal_and_legal(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.flatnonzero(mask == 0), np.flatnonzero(mask)


@pytest.mark.parametrize("game", games())
@PROPERTY
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 30), pick=st.integers(0, 2**16))
def test_legality_is_the_envs_record_not_the_agents_array(
    game: str, seed: int, moves: int, pick: int
) -> None:
    """Whatever the agent does to the mask it holds, an illegal action raises the documented
    ValueError (never the engine's Rejection) and changes nothing, and a legal one plays."""
    aec = env(game, seed=seed)
    aec.reset()
    rng = np.random.default_rng(pick)
    for _ in range(moves):
        obs, _, done, _, _ = aec.last()
        if done:
            return
        aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    obs, _, done, _, _ = aec.last()
    if done:
        return
    table = true_table(aec)
    mask = obs["action_mask"]
    illegal, legal = _illegal_and_legal(mask.copy())
    mask[illegal] = 1  # the agent marks every illegal action legal...
    mask[legal] = 0  # ...and every legal one illegal
    version = table.version
    if len(illegal):
        bad = int(illegal[pick % len(illegal)])
        with pytest.raises(ValueError, match="not legal") as raised:
            aec.step(bad)
        assert type(raised.value) is ValueError  # not a Rejection (nor a subclass)
        assert table.version == version
    aec.step(int(legal[pick % len(legal)]))
    assert table.version > version


@pytest.mark.parametrize("game", games())
def test_each_last_gives_new_arrays(game: str) -> None:
    """In-place preprocessing of one ``last()`` does not change the next one."""
    aec = env(game, seed=5)
    aec.reset()
    first, *_ = aec.last()
    kept = {k: v.copy() for k, v in first.items()}
    first["observation"] *= 0.5
    first["observation"][0] = 0.75
    first["action_mask"][:] = 1 - first["action_mask"]
    second, *_ = aec.last()
    for key in ("observation", "action_mask"):
        assert np.array_equal(second[key], kept[key])
        assert not np.shares_memory(second[key], first[key])
        assert second[key].flags.writeable
    assert np.array_equal(aec.observe(aec.agent_selection)["action_mask"], kept["action_mask"])


@pytest.mark.parametrize("game", games())
def test_the_terminal_mask_is_safe_for_masked_sampling_in_a_vector_env(game: str) -> None:
    """Gymnasium's SyncVectorEnv (autoreset on the next step) over the Gym env: the docs' own
    masked sampling (``rng.choice`` over each row's mask) never meets an empty mask, the
    terminal mask is the documented one-hot, and the action drawn for it is discarded."""
    envs = SyncVectorEnv([lambda: gym_env(game, illegal_action="raise") for _ in range(3)])
    obs, _ = envs.reset(seed=7)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(3000):
        actions = [int(rng.choice(np.flatnonzero(row))) for row in obs["action_mask"]]
        sampled = envs.action_space.sample(mask=tuple(obs["action_mask"]))
        for row, action in zip(obs["action_mask"], sampled, strict=True):
            assert row[action] == 1
        obs, _, terminated, truncated, _ = envs.step(actions)
        for row, done in zip(obs["action_mask"], terminated | truncated, strict=True):
            if done:
                ended += 1
                assert np.flatnonzero(row).tolist() == [0]  # referee.rl.TERMINAL_ACTION
        if ended >= 4:
            break
    assert ended >= 4


def test_the_true_state_is_marked_privileged() -> None:
    aec = env("sleeping-queens", seed=1)
    aec.reset()
    assert isinstance(aec.privileged_table, Table)
    with pytest.warns(UserWarning, match="true state"):
        assert aec.table is aec.privileged_table
    single = gym_env("sleeping-queens", seed=1)
    single.reset()
    assert isinstance(single.privileged_table, Table)
    with pytest.warns(UserWarning, match="true state"):
        assert single.table is single.privileged_table
    # Playing through the documented API never reads it that way.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in aec.agent_iter(max_iter=20):
            obs, _, done, _, _ = aec.last()
            aec.step(None if done else int(np.flatnonzero(obs["action_mask"])[0]))
