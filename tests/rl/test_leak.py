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


#: Commands played on in both worlds, at most (the leak test of information states).
COMMON = 60


def feed(history: Any, table: Table[Any], seat: int, start: int, acted: Any, before: Any) -> None:
    """One command into ``seat``'s history from ``table`` (what the seat received for it)."""
    history.add(table.redacted_log(seat, start), table.view(seat), acted, before)


@pytest.mark.parametrize(("game_type", "players"), CASES)
@settings(PROPERTY, max_examples=10)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_hidden_information_never_changes_an_information_state(
    game_type: str, players: int, seed: int
) -> None:
    """Two worlds that differ only in what a seat may not see: the real game at a moment, and
    a copy whose state is the seat's hidden variant, both played on with the same commands
    (legal in both). As long as the seat has received the same events in both, its
    information state (string and tensor, referee.rl.infostate) is the same in both."""
    from referee.rl import SeatHistory

    rules = get_game(game_type)
    game = spec(game_type, players)
    rng = random.Random(seed)
    table = Table.create(game_type, players, seed=seed.to_bytes(8, "big"))
    for _ in range(rng.randrange(40)):  # to a random moment
        if table.results() is not None:
            break
        mover = table.pending()[0]
        table.submit(mover, rng.choice(table.legal_commands(mover)))
    seat = rng.randrange(players)
    variant = copy.deepcopy(table)
    variant.state = rules.hidden_variant(table.state, seat, rng.randrange(2**32))
    changed = variant.state != table.state
    histories = []
    for world in (table, variant):
        history = SeatHistory(game, seat)
        history.add(world.redacted_log(seat), world.view(seat), None, None)
        histories.append(history)
    compared = 0
    while table.results() is None and variant.results() is None and compared < COMMON:
        if table.pending() != variant.pending():
            break
        mover = table.pending()[0]
        common = [c for c in table.legal_commands(mover) if c in variant.legal_commands(mover)]
        if not common:
            break
        command = rng.choice(common)
        acted = game.actions.action(command) if mover == seat else None
        starts = (table.version, variant.version)
        befores = (table.view(seat).game, variant.view(seat).game)
        for world, history, start, before in zip(
            (table, variant), histories, starts, befores, strict=True
        ):
            world.submit(mover, command)
            feed(history, world, seat, start, acted, before)
        if table.redacted_log(seat, starts[0]) != variant.redacted_log(seat, starts[1]):
            break  # the seat now learnt something that tells the worlds apart: legitimately
        real, other = histories
        if compared % 10 == 0:  # the whole history now and then (it is long), else the news
            assert real.string() == other.string(), f"seat {seat}'s history string leaks"
            assert np.array_equal(real.tensor(), other.tensor()), f"seat {seat}'s tensor leaks"
        assert real.lines[-3:] == other.lines[-3:], f"seat {seat}'s history string leaks"
        assert np.array_equal(real.rows[-1], other.rows[-1]), f"seat {seat}'s tensor leaks"
        compared += 1
    if changed and compared:
        # The check can fail: another seat's history of the same world differs from this one.
        other_seat = (seat + 1) % players
        theirs = SeatHistory(game, other_seat)
        theirs.add(table.redacted_log(other_seat), table.view(other_seat), None, None)
        mine = SeatHistory(game, seat)
        mine.add(table.redacted_log(seat), table.view(seat), None, None)
        assert theirs.tensor().tobytes() != mine.tensor().tobytes()
