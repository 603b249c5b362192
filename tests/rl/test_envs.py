"""The PettingZoo AEC environments: PettingZoo's own API and seed tests, the action
enumeration, rewards and text rendering, for every game at a few player counts."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from referee.engine import Table, get_game
from referee.rl import UnmappedCommand, env, games, spec
from referee.rl.core import rank_reward, win_reward


def counts(game: str) -> list[int]:
    """Fewest and most players, and 4 when allowed (the suite's runtime stays modest)."""
    info = get_game(game).info
    return sorted({info.min_players, min(4, info.max_players), info.max_players})


CASES = [pytest.param(g, n, id=f"{g}-{n}p") for g in games() for n in counts(g)]


def test_every_registered_game_has_an_environment() -> None:
    """docs/writing-a-game.md: a game's package includes its encoder module."""
    from referee.engine import all_games

    assert sorted(games()) == sorted(g.info.type_id for g in all_games())


@pytest.mark.parametrize(("game", "players"), CASES)
def test_pettingzoo_api_test(game: str, players: int) -> None:
    with warnings.catch_warnings():
        # api_test warns that Dict observations are not plain arrays: that is the convention
        # of action-masked envs (its own classic envs get the same warning).
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(game, players, seed=3), num_cycles=400, verbose_progress=False)


@pytest.mark.parametrize(("game", "players"), CASES)
def test_pettingzoo_seed_test(game: str, players: int) -> None:
    seed_test(lambda: env(game, players), num_cycles=400)


def play(aec: Any, rng: random.Random) -> list[tuple[str, int]]:
    """Random legal actions to the end; the (agent, action) sequence."""
    moves = []
    for agent in aec.agent_iter():
        obs, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        moves.append((agent, action))
        aec.step(action)
    return moves


@pytest.mark.parametrize("game", games())
def test_a_seed_reproduces_the_game_and_the_series(game: str) -> None:
    first, second = env(game, seed=11), env(game, seed=11)
    first.reset()
    second.reset()
    assert first.privileged_table is not None and second.privileged_table is not None
    assert first.privileged_table.log == second.privileged_table.log
    assert play(first, random.Random(1)) == play(second, random.Random(1))
    assert first.privileged_table.log == second.privileged_table.log
    # reset(seed=s) is the table seed b"s"; the series goes on with b"s/1".
    first.reset(seed=5)
    same = Table.create(game, first.spec_.players, seed=b"5")
    assert first.privileged_table.log == same.log
    first.reset()
    assert first.privileged_table.log == Table.create(game, first.spec_.players, seed=b"5/1").log


@pytest.mark.parametrize(("game", "players"), CASES)
def test_every_legal_command_has_an_action(game: str, players: int) -> None:
    """Random games from several seeds: every legal command maps to its index and back."""
    actions = spec(game, players).actions
    for seed in range(4):
        table = Table.create(game, players, seed=f"cover-{seed}".encode())
        rng = random.Random(seed)
        while table.results() is None:
            for seat in table.pending():
                legal = table.legal_commands(seat)
                mask = actions.mask(legal)
                assert mask.sum() == len(legal)
                assert [actions.command(i) for i in np.flatnonzero(mask)] == sorted(
                    legal, key=actions.action
                )
            seat = rng.choice(table.pending())
            table.submit(seat, rng.choice(table.legal_commands(seat)))


def test_an_unknown_command_is_a_clear_error() -> None:
    actions = spec("dracula-vs-van-helsing", 2).actions
    with pytest.raises(UnmappedCommand, match="extend actions"):
        actions.mask(("not a command",))


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    aec = env("vampire-queen", 3, seed=2)
    aec.reset()
    mask = aec.action_mask(aec.agent_selection)
    illegal = int(np.flatnonzero(mask == 0)[0])
    assert aec.privileged_table is not None
    version = aec.privileged_table.version
    with pytest.raises(ValueError, match="not legal"):
        aec.step(illegal)
    with pytest.raises(ValueError, match="action must be"):
        aec.step(10**6)
    assert aec.privileged_table.version == version


@pytest.mark.parametrize("game", games())
def test_rewards_are_the_documented_function_of_the_results(game: str) -> None:
    players = counts(game)[-1]
    aec = env(game, players, seed=21)
    aec.reset()
    rng = random.Random(21)
    totals = dict.fromkeys(aec.possible_agents, 0.0)
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, _ = aec.last()
        totals[agent] += reward
        if terminated or truncated:
            aec.step(None)
        else:
            assert reward == 0.0
            aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert aec.privileged_table is not None
    results = aec.privileged_table.results()
    assert results is not None
    name = spec(game, players).reward_name
    rewarded = {"rank": rank_reward, "win": win_reward}[name]
    assert totals == {f"seat_{r.seat}": rewarded(r.rank, players) for r in results}


def test_rank_and_win_rewards() -> None:
    assert [rank_reward(r, 4) for r in (1, 2, 3, 4)] == pytest.approx([1, 1 / 3, -1 / 3, -1])
    assert [win_reward(r, 3) for r in (1, 1, 2)] == [1.0, 1.0, -1.0]


@pytest.mark.parametrize("game", games())
def test_render_shows_the_acting_seat_and_its_actions(game: str) -> None:
    aec = env(game, seed=4, render_mode="ansi")
    aec.reset()
    text = aec.render()
    assert isinstance(text, str)
    mask = aec.action_mask(aec.agent_selection)
    for action in np.flatnonzero(mask):
        assert f"action {action}:" in text
    assert f"seat {aec.agent_selection.removeprefix('seat_')}" in text
    assert env(game).render() is None  # no render mode: nothing to show


def test_bad_setup_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="no environment"):
        env("chess")
    with pytest.raises(ValueError, match="2 to 2 players"):
        env("dracula-vs-van-helsing", 3)
    with pytest.raises(ValueError, match="unknown option"):
        env("vampire-queen", 3, options={"colour": "red"})
    with pytest.raises(ValueError, match="render_mode"):
        env("vampire-queen", 3, render_mode="rgb_array")


@pytest.mark.parametrize(("game", "players"), CASES)
def test_every_command_type_of_the_game_has_actions(game: str, players: int) -> None:
    """A command type added to a game (a new rule) fails here until its module lists it."""
    listed = {type(command) for command in spec(game, players).actions.commands}
    assert listed == set(get_game(game).command_types)
