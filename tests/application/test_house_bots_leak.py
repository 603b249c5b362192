"""A house bot decides from its seat's view only, exactly as a remote bot would: two states
that differ only in what its seat may not see give every level the same decision (the
views' indistinguishability property, through :func:`levels.decide`). A level that
searches (``hard``) decides from the seat's redacted events and view, its knowledge: a
whole other history the seat cannot tell from the real one (a sampled world) gives it the
same decision too. Also: the module where a house bot decides reads views only, never a
table or a state."""

from __future__ import annotations

import ast
import asyncio
import copy
import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.application.house import levels
from referee.engine import Table, all_games, get_game
from referee.search.worlds import Knowledge, sample_world

GAMES = sorted(g.info.type_id for g in all_games())
# Derandomized: the same seeds every run. A few random deals of Mau Mau Vampires make the
# sampler's search run for minutes at the fixed iterations used here (no wall clock), which
# made the suite's time a matter of luck.
PROPERTY = settings(
    max_examples=3,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
#: Moments inspected per random game.
SAMPLES = 6
#: Moments at which the searching levels (slow: a tree search each) are inspected too.
SEARCHED = 2
#: Every level; the searching ones on a fixed number of iterations, so that the decision is
#: a function of what the seat knows and the generator only (not of the machine's speed).
TESTED = [
    dataclasses.replace(level, iterations=6) if level.knows else level
    for level in levels.LEVELS.values()
]


def seat_knowledge(table: Table[Any], seat: int) -> Knowledge:
    """What the seat's session delivers: its redacted events, and its view."""
    config = table.config
    events = tuple(table.redacted_log(seat))
    return Knowledge(
        config.game_type, config.players, dict(config.options), seat, events, table.view(seat)
    )


def decision(table: Table[Any], state: Any, seat: int, level: levels.Level) -> Any:
    """``level``'s command for ``seat`` on a copy of ``table`` holding ``state``, with a
    generator seeded alike every time (so only what the seat sees can make a difference)."""
    clone = copy.copy(table)
    clone.state = state
    return decided(clone, seat, level)


def decided(table: Table[Any], seat: int, level: levels.Level) -> Any:
    known = seat_knowledge(table, seat) if level.knows else None
    view = table.view(seat)
    made = asyncio.run(
        levels.decide(level, view, table.config.players, random.Random(9), 10**6, knowledge=known)
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
        moments.append(table.version)
        seat = rng.choice(table.pending())
        table.submit(seat, rng.choice(table.legal_commands(seat)))
    chosen = [moments[0], *rng.sample(moments[1:], min(SAMPLES, len(moments) - 1))]
    differing = 0
    histories = 0
    made = 0
    for moment, version in enumerate(chosen):
        # The table as it was then: its events so far (the seat's knowledge) and state.
        clone: Table[Any] = Table(rules, table.config)
        clone.extend(table.log[:version])
        state = clone.state
        for seat in clone.pending():
            for level in TESTED:
                if level.knows and moment >= SEARCHED:
                    continue
                real = decision(clone, state, seat, level)
                made += 1
                for _ in range(2):
                    variant = rules.hidden_variant(state, seat, rng.randrange(2**32))
                    differing += variant != state
                    assert decision(clone, variant, seat, level) == real, (
                        f"{level.name} at seat {seat} decides on what it may not see"
                    )
                if level.knows:
                    # Another whole history, the seat's events as it received them.
                    world = sample_world(seat_knowledge(clone, seat), rng.randrange(2**32))
                    other = world.table()
                    histories += other.log != clone.log
                    assert decided(other, seat, level) == real, (
                        f"{level.name} at seat {seat} decides on events it may not see"
                    )
    assert made and differing > 0, "hidden_variant never changed anything: the test is blind"
    assert histories > 0, "every sampled world was the real history: the test is blind"


def test_the_deciding_module_reads_views_not_tables_or_states() -> None:
    source = Path(levels.__file__).read_text()
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
        "referee.search.worlds",
    }
