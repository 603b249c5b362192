"""A house bot decides from its seat's view only, exactly as a remote bot would: two states
that differ only in what its seat may not see give every level the same decision (the
views' indistinguishability property, through :func:`house_levels.decide`). Also: the
module where a house bot decides reads views only, never a table or a state."""

from __future__ import annotations

import ast
import asyncio
import copy
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.application import house_levels
from referee.engine import Table, all_games, get_game

GAMES = sorted(g.info.type_id for g in all_games())
PROPERTY = settings(
    max_examples=3, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
#: Moments inspected per random game.
SAMPLES = 6


def decision(table: Table[Any], state: Any, seat: int, level: house_levels.Level) -> Any:
    """``level``'s command for ``seat`` on a copy of ``table`` holding ``state``, with a
    generator seeded alike every time (so only the view can make a difference)."""
    clone = copy.copy(table)
    clone.state = state
    view = clone.view(seat)
    made = asyncio.run(
        house_levels.decide(level, view, table.config.players, random.Random(9), 10**6)
    )
    assert not made.fallback, made
    return made.command


@pytest.mark.parametrize("game_type", GAMES)
@PROPERTY
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_hidden_information_never_changes_a_house_bots_decision(game_type: str, seed: int) -> None:
    rules = get_game(game_type)
    # One seat more than the fewest, where the game allows it: more hidden hands.
    players = min(int(rules.info.min_players) + 1, int(rules.info.max_players))
    table = Table.create(game_type, players, seed=seed.to_bytes(8, "big"))
    rng = random.Random(seed)
    moments = []
    while table.results() is None:
        moments.append(rules.copy_state(table.state))
        seat = rng.choice(table.pending())
        table.submit(seat, rng.choice(table.legal_commands(seat)))
    chosen = [moments[0], *rng.sample(moments[1:], min(SAMPLES, len(moments) - 1))]
    differing = 0
    decided = 0
    for state in chosen:
        clone = copy.copy(table)
        clone.state = state
        for seat in clone.pending():
            for level in house_levels.LEVELS.values():
                real = decision(table, state, seat, level)
                decided += 1
                for _ in range(2):
                    variant = rules.hidden_variant(state, seat, rng.randrange(2**32))
                    differing += variant != state
                    assert decision(table, variant, seat, level) == real, (
                        f"{level.name} at seat {seat} decides on what it may not see"
                    )
    assert decided and differing > 0, "hidden_variant never changed anything: the test is blind"


def test_the_deciding_module_reads_views_not_tables_or_states() -> None:
    source = Path(house_levels.__file__).read_text()
    tree = ast.parse(source)
    touched = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not touched & {"state", "table", "games", "repository", "log"}
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= {
        "__future__",
        "asyncio",
        "concurrent.futures",
        "random",
        "time",
        "collections.abc",
        "dataclasses",
        "typing",
        "referee.bots",
        "referee.engine",
    }
