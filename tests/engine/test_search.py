"""Search tables: forks, steps and undo, and copies of a table.

The properties, for random legal play in every game: a fork stepped and undone is the position
it was forked in; a fork's steps never change the table it came from (nor a fork its parent);
a fork stepped as a replayed table is stepped gives the same events, states, views and legal
commands. Speed is measured by ``referee bench --only P10``, never here.
"""

from __future__ import annotations

import copy
import random
from dataclasses import fields
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine.game import Rejection
from referee.engine.outcomes import SeatLeft
from referee.engine.registry import all_games
from referee.engine.search_table import SearchTable
from referee.engine.table import Table
from referee.engine.table_events import (
    SeatClaimed,
    SeatForfeited,
    SeatResigned,
    TableEvent,
    TableSettings,
    TableStatus,
    TimedOut,
)

CASES = [
    pytest.param(game.info.type_id, players, id=f"{game.info.type_id}-{players}p")
    for game in all_games()
    for players in sorted({game.info.min_players, min(4, game.info.max_players)})
]
PROPERTY = settings(
    max_examples=8, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def position(game_type: str, players: int, seed: int) -> tuple[Table[Any], random.Random]:
    """A table after a random number of random legal commands (still playing if possible)."""
    rng = random.Random(seed)
    table = Table.create(game_type, players, seed=seed.to_bytes(8, "big"))
    for _ in range(rng.randrange(0, 80)):
        if not random_move(table, rng):
            break
    return table, rng


def random_move(table: Table[Any] | SearchTable[Any], rng: random.Random) -> bool:
    """Play one random legal command; False when the game is over."""
    pending = table.pending()
    if not pending:
        return False
    seat = rng.choice(pending)
    if isinstance(table, Table):
        table.submit(seat, rng.choice(table.legal_commands(seat)))
    else:
        table.step(seat, rng.choice(table.legal_commands(seat)))
    return True


def snapshot(table: Table[Any] | SearchTable[Any]) -> tuple[Any, ...]:
    """What a player or a search sees of a position: every view, the pending seats, every
    seat's legal commands, the results (and the state itself, hidden parts included)."""
    game, players = table.game, table.config.players
    views = tuple(game.view(table.state, viewer) for viewer in (None, *range(players)))
    legal = tuple(tuple(table.legal_commands(seat)) for seat in range(players))
    return table.state, views, table.pending(), legal, table.results()


@pytest.mark.parametrize(("game_type", "players"), CASES)
@PROPERTY
@given(seed=SEEDS, steps=st.integers(min_value=1, max_value=40))
def test_a_fork_stepped_and_undone_is_the_position_it_was_forked_in(
    game_type: str, players: int, seed: int, steps: int
) -> None:
    table, rng = position(game_type, players, seed)
    before = snapshot(table)
    search = table.fork()
    assert snapshot(search) == before
    marks = [snapshot(search)]
    while search.depth < steps and random_move(search, rng):
        marks.append(snapshot(search))
    assert search.depth == len(marks) - 1
    while search.depth:
        assert snapshot(search) == marks[search.depth]
        search.undo()
    assert snapshot(search) == before == snapshot(table)
    with pytest.raises(IndexError):
        search.undo()


@pytest.mark.parametrize(("game_type", "players"), CASES)
@PROPERTY
@given(seed=SEEDS, steps=st.integers(min_value=1, max_value=40))
def test_a_forks_steps_never_change_what_it_was_forked_from(
    game_type: str, players: int, seed: int, steps: int
) -> None:
    table, rng = position(game_type, players, seed)
    before = snapshot(table)
    log = list(table.log)
    parent = table.fork()
    for _ in range(rng.randrange(0, 5)):
        random_move(parent, rng)
    parent_before = snapshot(parent)
    child = parent.fork()
    grandchild = copy.deepcopy(child)  # a search table's copies are forks
    for _ in range(steps):
        random_move(child, rng)
        random_move(grandchild, rng)
    assert snapshot(parent) == parent_before
    assert snapshot(table) == before and table.log == log
    # Nor does the table's own play change a fork.
    forked = snapshot(parent)
    random_move(table, rng)
    assert snapshot(parent) == forked


@pytest.mark.parametrize(("game_type", "players"), CASES)
def test_a_tables_forks_share_its_state_until_its_next_event(game_type: str, players: int) -> None:
    """Table.fork copies nothing: its forks hold the table's own state, which the table
    copies (once, for all of them) before its next event would change it."""
    table, rng = position(game_type, players, 11)
    first, second = table.fork(), table.fork()
    assert first.state is table.state and second.state is table.state
    forked = snapshot(first)
    if not random_move(table, rng):
        return
    assert first.state is second.state and first.state is not table.state
    assert snapshot(first) == forked
    shared = table.state
    random_move(table, rng)  # nothing lent since: changed in place, as before any fork
    assert table.state is shared


@pytest.mark.parametrize(("game_type", "players"), CASES)
@PROPERTY
@given(seed=SEEDS, steps=st.integers(min_value=1, max_value=60))
def test_fork_and_steps_equal_an_independent_copy_and_the_same_steps(
    game_type: str, players: int, seed: int, steps: int
) -> None:
    table, rng = position(game_type, players, seed)
    references = [copy.deepcopy(table), Table.replay(table.config, table.log)]
    search = table.fork()
    for _ in range(steps):
        pending = search.pending()
        assert all(reference.pending() == pending for reference in references)
        if not pending:
            break
        seat = rng.choice(pending)
        command = rng.choice(search.legal_commands(seat))
        events = search.step(seat, command)
        for reference in references:
            assert reference.submit(seat, command) == events
            assert snapshot(reference) == snapshot(search)
    assert search.over == references[0].over


@pytest.mark.parametrize(("game_type", "players"), CASES)
def test_a_refused_step_changes_nothing(game_type: str, players: int) -> None:
    table, _ = position(game_type, players, 7)
    search = table.fork()
    before, depth = snapshot(search), search.depth
    waiting = set(search.pending())
    idle = next((seat for seat in range(players) if seat not in waiting), None)
    if idle is not None:
        with pytest.raises(Rejection):
            search.step(idle, search.legal_commands(next(iter(waiting)))[0])
    with pytest.raises(Rejection):
        search.step(players, None)
    assert snapshot(search) == before and search.depth == depth


def test_a_fork_of_an_aborted_table_is_over() -> None:
    table = Table.create("vampire-queen", 3, seed=b"abort", settings=TableSettings())
    table.extend(table.abort("organiser"))
    search = table.fork()
    assert search.over and search.pending() == () and search.results() is None
    with pytest.raises(Rejection):
        search.step(0, table.game.legal_commands(table.state, table.game.pending(table.state)[0]))


@pytest.mark.parametrize("left", [False, True], ids=["all-seated", "one-resigned"])
@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy, Table.copy])
def test_a_copied_table_shares_nothing_that_changes(how: Any, left: bool) -> None:
    """A table copies whole, a seat that left included (its map of seats that left too)."""
    table = Table.create("mau-mau-vampires", 3, seed=b"copy", settings=TableSettings())
    rng = random.Random(3)
    for _ in range(10):
        random_move(table, rng)
    if left:
        table.extend(table.resign(1))
    # Its parts copy on their own too, as a search that deep-copies a table's fields does.
    assert copy.deepcopy(table.status) == table.status
    twin = how(table)
    assert twin is not table and snapshot(twin) == snapshot(table) and twin.log == table.log
    shared = {"game", "config", "settings"}  # stateless or frozen
    for name, value in vars(twin).items():
        if name not in shared and not isinstance(value, int | str | bytes | None):
            assert value is not vars(table)[name], f"a copy shares {name} with its table"
    log, before = list(table.log), snapshot(table)
    for _ in range(10):
        if not random_move(twin, rng) and (played := twin.forfeited_play()):
            twin.extend(played)  # the referee plays for the seat that left
    assert table.log == log and snapshot(table) == before
    assert twin.log[: len(log)] == log and len(twin.log) > len(log)
    # The per-card commitments are followed again from the copied log: the same as a replay.
    replayed = Table.replay(twin.config, twin.log, twin.settings)
    assert snapshot(replayed) == snapshot(twin)
    seat = next(iter(twin.pending()), None)
    if seat is None:  # the referee's turn: nothing for a seat to decide
        return
    for command in twin.legal_commands(seat):
        assert twin.decide(seat, command) == replayed.decide(seat, command)


def _containers(value: Any, path: str) -> list[tuple[str, Any]]:
    """Every mutable container reachable through lists, dicts, tuples and sets of ``value``."""
    found: list[tuple[str, Any]] = []
    if isinstance(value, list | dict | set | bytearray):
        found.append((path, value))
    if isinstance(value, list | tuple | set | frozenset):
        for index, item in enumerate(value):
            found += _containers(item, f"{path}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            found += _containers(item, f"{path}[{key!r}]")
    return found


@pytest.mark.parametrize(("game_type", "players"), CASES)
def test_copy_state_shares_no_mutable_container(game_type: str, players: int) -> None:
    """A search table shares states and relies on each step's copy: a list or dict the copy
    shared with the original would let a fork's step change the original. Every field the
    game adds is checked, not only those ``copy_state`` names."""
    for seed in range(3):
        table, _ = position(game_type, players, seed)
        game, state = table.game, table.state
        game.view(state, 0)  # fills the state's view caches
        copied = game.copy_state(state)
        assert copied == state
        for name, value in vars(state).items():
            originals = [container for _, container in _containers(value, name)]
            for path, container in _containers(vars(copied)[name], name):
                assert all(container is not o for o in originals), f"copy_state shares {path}"


def test_a_copied_status_is_folded_on_alone() -> None:
    """``TableStatus.copy`` (what ``Table.copy`` uses instead of a deepcopy) shares no field
    that folding changes, and every field holds immutable values or containers of them, which
    is what a field-by-field container copy relies on."""
    status = TableStatus(players=3)
    for event in (TimedOut(1, "play", "T-1", None, 1), SeatClaimed(0, "ann")):
        status.fold(event)
    twin = status.copy()
    assert twin == status
    for event in (
        TimedOut(2, "play", "T-1", None, 1),
        SeatForfeited(2, 1),
        SeatClaimed(1, "bob"),
        SeatResigned(0),
    ):
        twin.fold(event)
    assert status == TableStatus(
        players=3, timeouts=[0, 1, 0], claims={0: SeatClaimed(0, "ann")}, count=2
    )
    assert twin.timeouts == [0, 1, 1] and twin.forfeited == {0, 2} and twin.resigned == {0}
    assert sorted(twin.left) == [0, 2] and not status.left
    for spec in fields(twin):
        value = getattr(twin, spec.name)
        items = value.values() if isinstance(value, dict) else value
        for item in items if isinstance(value, list | set | dict) else [value]:
            assert isinstance(item, int | str | None | TableEvent | SeatLeft), spec.name
            if isinstance(item, TableEvent):
                assert type(item).__dataclass_params__.frozen, spec.name  # type: ignore[attr-defined]
