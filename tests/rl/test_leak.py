"""Observations leak nothing: a state that differs only in what a seat may not see gives that
seat the same observation and action mask (the views' indistinguishability property, through
the encoders). Also: the encoders read views only, never a state."""

from __future__ import annotations

import ast
import copy
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import Table, get_game
from referee.rl import games, spec
from referee.rl.games import encoder_module
from tests.rl.test_envs import counts

CASES = [pytest.param(g, n, id=f"{g}-{n}p") for g in games() for n in counts(g)]
PROPERTY = settings(
    max_examples=4, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
#: Moments inspected per random game.
SAMPLES = 8


def observe(table: Table[Any], state: Any, seat: int, game: Any) -> tuple[Any, Any]:
    """The observation and mask of ``seat`` on a copy of ``table`` holding ``state``."""
    clone = copy.copy(table)
    clone.state = state
    view = clone.view(seat)
    return game.encoder.encode(view), game.actions.mask(view.legal_commands)


@pytest.mark.parametrize(("game_type", "players"), CASES)
@PROPERTY
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_hidden_information_never_changes_an_observation(
    game_type: str, players: int, seed: int
) -> None:
    rules = get_game(game_type)
    game = spec(game_type, players)
    table = Table.create(game_type, players, seed=seed.to_bytes(8, "big"))
    rng = random.Random(seed)
    moments = []
    while table.results() is None:
        moments.append((table.version, rules.copy_state(table.state)))
        seat = rng.choice(table.pending())
        table.submit(seat, rng.choice(table.legal_commands(seat)))
    moments.append((table.version, rules.copy_state(table.state)))
    chosen = [moments[0], *rng.sample(moments[1:], min(SAMPLES, len(moments) - 1))]
    differing = 0
    for _, state in chosen:
        for seat in range(players):
            real_obs, real_mask = observe(table, state, seat, game)
            for _ in range(2):
                variant = rules.hidden_variant(state, seat, rng.randrange(2**32))
                differing += variant != state
                obs, mask = observe(table, variant, seat, game)
                assert np.array_equal(obs, real_obs), f"seat {seat} sees a hidden difference"
                assert np.array_equal(mask, real_mask)
    assert differing > 0, "hidden_variant never changed anything: the test is blind"


@pytest.mark.parametrize(("game_type", "players"), CASES)
def test_another_seat_sees_another_observation(game_type: str, players: int) -> None:
    """The check above can fail: the seats' own hands make their observations differ."""
    game = spec(game_type, players)
    table = Table.create(game_type, players, seed=b"differ")
    seen = {game.encoder.encode(table.view(s)).tobytes() for s in range(players)}
    assert len(seen) == players


@pytest.mark.parametrize("game_type", games())
def test_encoders_read_views_not_states(game_type: str) -> None:
    """No encoder module imports a game's rules (where its state lives) or touches ``.state``."""
    module = encoder_module(game_type)
    assert module is not None and module.__file__ is not None
    path = Path(module.__file__)
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            assert not node.module.endswith(".rules"), f"{path.name} imports {node.module}"
        if isinstance(node, ast.Attribute):
            assert node.attr != "state", f"{path.name} reads .state at line {node.lineno}"
