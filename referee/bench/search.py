"""P11: copies, steps and undo for search, next to OpenSpiel's.

For every game at its fewest and 4 players, a few hundred positions of random games, each
with one random legal command chosen up front (as an OpenSpiel action is: the search has
enumerated the moves already). Operations per second of this process's CPU time, every
position in turn, in alternating rounds:

* ``fork``: ``SearchTable.fork()`` (shares the state: O(1));
* ``fork + step``: fork, then ``step(seat, command)`` on the fork (the copy of the state that
  a step makes, the rules' decide and the events' apply);
* ``step + undo``: ``step`` then ``undo`` on one search table;
* ``Table.fork + step``: the first fork from a live table (copies its state), then a step;
* ``deepcopy + submit``: what a search had before, ``copy.deepcopy`` of the live table's
  fields (what ``copy.deepcopy(table)`` did before tables defined their copy: state, log,
  status and all) and ``submit`` on the copy.

And whole random playouts from each game's opening, a few seeds per game, the same moves on
each (checked once: the same end): ``Table playout`` (a copy of the fresh table, then
``submit`` of a random legal command to the end), ``fork playout`` (``Table.fork()``, then
``play``, in place, as the search's playouts play) and ``fork step playout`` (``step``, a copy
of the state at every move, what they did before). The figure: a playout on a fork ÷ one on a
plain Table, as speeds (target >= 0.9).

And per game at its fewest players, the PettingZoo environment (``referee.rl.env``) at
positions of the docs' loop, with an action chosen up front: ``env copy + step``
(``env.copy()``, which ``copy.deepcopy(env)`` is) and ``env deepcopy + step``, a
``copy.deepcopy`` of the environment's fields as ``copy.deepcopy(env)`` did before
environments defined their copy.

Next to them, in the same rounds: OpenSpiel (``pyspiel``, from the ``bench`` extra)
``state.clone()`` and ``clone()`` then ``apply_action`` on positions of random play, for its
C++ ``crazy_eights`` and its Python ``python_block_dominoes`` (a hidden-hand tile game; its
clone is Python's ``deepcopy``). The figure: every game's ``fork + step`` time ÷ crazy_eights'
``clone + apply`` time (target <= 3), and ``deepcopy + submit`` ÷ ``fork + step`` (>= 10).
"""

from __future__ import annotations

import copy
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee import rl
from referee.bench import engine, peers
from referee.engine.search_table import SearchTable
from referee.engine.table import Table
from referee.rl.aec import RefereeAECEnv

#: OpenSpiel games measured: its C++ crazy_eights (the target's peer) and one Python game.
SPIEL_GAMES = ("crazy_eights", "python_block_dominoes")
OURS = ("fork", "fork_step", "step_undo", "table_fork_step", "deepcopy_submit")
THEIRS = ("clone", "clone_apply")


@dataclass(frozen=True, slots=True)
class Position:
    table: Table[Any]
    search: SearchTable[Any]
    seat: int
    command: Any


def positions(game_type: str, players: int, count: int, seed: int) -> list[Position]:
    """``count`` positions of random games where a seat is asked, one random legal command
    each (the same seeds give the same positions)."""
    rng = random.Random(seed)
    found: list[Position] = []
    game_seed = seed
    while len(found) < count:
        table = Table.create(game_type, players, seed=game_seed.to_bytes(8, "big"))
        game_seed += 1
        while table.pending() and len(found) < count:
            seat = rng.choice(table.pending())
            command = rng.choice(table.legal_commands(seat))
            if rng.random() < 0.2:
                found.append(Position(table.copy(), table.fork(), seat, command))
            table.submit(seat, command)
    return found


def _fork(p: Position) -> None:
    p.search.fork()


def _fork_step(p: Position) -> None:
    p.search.fork().step(p.seat, p.command)


def _step_undo(p: Position) -> None:
    search = p.search
    search.step(p.seat, p.command)
    search.undo()


def _table_fork_step(p: Position) -> None:
    p.table.fork().step(p.seat, p.command)


def _deepcopy_submit(p: Position) -> None:
    table = p.table
    if hasattr(table, "__dict__"):
        twin = object.__new__(Table)
        twin.__dict__ = copy.deepcopy(table.__dict__)
    else:  # the compiled build: no instance dict, and no table made without its __init__; a
        # copy (microseconds beside the deep copy's milliseconds) given deep copies of the
        # attributes mypyc's __getstate__ names
        twin = table.copy()
        for name, value in copy.deepcopy(table.__getstate__()).items():  # type: ignore[attr-defined]
            object.__setattr__(twin, name, value)
    twin.submit(p.seat, p.command)


@dataclass(frozen=True, slots=True)
class Start:
    """A fresh game and the seed of the random moves of its playouts."""

    table: Table[Any]
    seed: int


def playout_starts(game_type: str, players: int, count: int, seed: int) -> list[Start]:
    """``count`` fresh games; each one's playouts checked to end alike on a Table and a fork."""
    starts = []
    for index in range(count):
        table = Table.create(game_type, players, seed=(seed + index).to_bytes(8, "big"))
        start = Start(table, seed + index)
        ends = [_table_playout(start).state, _fork_playout(start).state]
        if ends[0] != ends[1]:
            raise AssertionError(f"{game_type}: a fork's playout left the moves of a Table's")
        starts.append(start)
    return starts


def _random_moves(start: Start, table: Any, move: Callable[[int, Any], object]) -> None:
    """Random legal commands (``move``) from ``start``'s seed until nobody is asked."""
    rng = random.Random(start.seed)
    while True:
        pending = table.pending()
        if not pending:
            return
        seat = pending[0] if len(pending) == 1 else rng.choice(pending)
        move(seat, rng.choice(table.legal_commands(seat)))


def _table_playout(start: Start) -> Table[Any]:
    table = start.table.copy()
    _random_moves(start, table, table.submit)
    return table


def _fork_playout(start: Start) -> SearchTable[Any]:
    search = start.table.fork()
    _random_moves(start, search, search.play)
    return search


def _fork_step_playout(start: Start) -> SearchTable[Any]:
    search = start.table.fork()
    _random_moves(start, search, search.step)
    return search


PLAYOUTS: dict[str, Callable[[Start], object]] = {
    "table_playout": _table_playout,
    "fork_playout": _fork_playout,
    "fork_step_playout": _fork_step_playout,
}


OPERATIONS: dict[str, Callable[[Position], None]] = {
    "fork": _fork,
    "fork_step": _fork_step,
    "step_undo": _step_undo,
    "table_fork_step": _table_fork_step,
    "deepcopy_submit": _deepcopy_submit,
}


def env_positions(game_type: str, count: int, seed: int) -> list[tuple[RefereeAECEnv, int]]:
    """``count`` copies of a PettingZoo env at positions of the docs' loop (``rng.choice``
    over the mask), each with the action then chosen."""
    aec = rl.env(game_type, seed=seed)
    aec.reset()
    rng = np.random.default_rng(seed)
    found: list[tuple[RefereeAECEnv, int]] = []
    while len(found) < count:
        if not aec.agents:
            aec.reset()
            continue
        observation, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        if rng.random() < 0.2:
            found.append((aec.copy(), action))
        aec.step(action)
    return found


def _env_copy_step(item: tuple[RefereeAECEnv, int]) -> None:
    aec, action = item
    aec.copy().step(action)


def _env_deepcopy_step(item: tuple[RefereeAECEnv, int]) -> None:
    aec, action = item
    twin = object.__new__(RefereeAECEnv)
    twin.__dict__ = copy.deepcopy(aec.__dict__)
    twin.step(action)


ENV_OPERATIONS: dict[str, Callable[[tuple[RefereeAECEnv, int]], None]] = {
    "env_copy_step": _env_copy_step,
    "env_deepcopy_step": _env_deepcopy_step,
}


def rate(operation: Callable[[Any], object], items: Sequence[Any], seconds: float) -> float:
    """Operations per CPU second: ``operation`` on every item in turn for about ``seconds``."""
    done = 0
    started = time.process_time()
    while True:
        for item in items:
            operation(item)
        done += len(items)
        spent = time.process_time() - started
        if spent >= seconds:
            return done / spent


def spiel_positions(pyspiel: Any, name: str, count: int, seed: int) -> list[tuple[Any, int]]:
    """Decision nodes of random play (chance outcomes sampled by their weights), with one
    random legal action each."""
    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    found: list[tuple[Any, int]] = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights)[0])
                continue
            action = rng.choice(state.legal_actions())
            if rng.random() < 0.2:
                found.append((state.clone(), action))
            state.apply_action(action)
    return found


def _clone(item: tuple[Any, int]) -> None:
    item[0].clone()


def _clone_apply(item: tuple[Any, int]) -> None:
    state, action = item
    state.clone().apply_action(action)


#: (game or peer label, operation) -> the rate of each round.
Measured = dict[tuple[str, str], list[float]]


def run(quick: bool) -> dict[str, Any]:
    seconds = 0.05 if quick else 0.4
    rounds = 1 if quick else 3
    count = 40 if quick else 300
    configs = engine.configurations(quick)
    ours = {config: positions(*config, count, seed=11) for config in configs}
    starts = {config: playout_starts(*config, 2 if quick else 5, seed=11) for config in configs}
    notes: list[str] = []
    pyspiel = peers._module("pyspiel")
    theirs: dict[str, list[tuple[Any, int]]] = {}
    if pyspiel is None:
        notes.append("open_spiel is not installed (pip install -e '.[bench]')")
    else:
        peers._module("open_spiel.python.games")  # registers OpenSpiel's Python games
        theirs = {name: spiel_positions(pyspiel, name, count, seed=11) for name in SPIEL_GAMES}
    env_games = sorted({game_type for game_type, _ in configs})
    envs = {game_type: env_positions(game_type, count // 4, seed=11) for game_type in env_games}
    measured: Measured = {}
    for _ in range(rounds):
        _measure_round(measured, theirs, ours, envs, seconds)
        _measure_playouts(measured, starts, seconds)
    rows = _game_rows(measured, configs)
    ratios = [row["to_crazy_eights"] for row in rows if row["to_crazy_eights"] is not None]
    return {
        "games": rows,
        "peers": [_peer_row(measured, name) for name in theirs],
        "environments": [_env_row(measured, game_type) for game_type in envs],
        "peer_versions": peers.versions(),
        "notes": notes,
        "positions": count,
        "seconds_per_run": seconds,
        "rounds": rounds,
        "rounds_per_second": {f"{k[0]} {k[1]}": v for k, v in measured.items()},
        "max_to_crazy_eights": max(ratios) if ratios else None,
        "min_deepcopy_to_fork_step": min(row["deepcopy_to_fork_step"] for row in rows),
        "min_fork_playout_to_table": min(row["fork_playout_to_table"] for row in rows),
    }


def _measure_playouts(
    measured: Measured, starts: dict[tuple[str, int], list[Start]], seconds: float
) -> None:
    """One round of every playout of every game, the Table's and the forks' in turn."""
    for (game_type, players), items in starts.items():
        for op, function in PLAYOUTS.items():
            key = (f"{game_type}/{players}", op)
            measured.setdefault(key, []).append(rate(function, items, seconds))


def _measure_round(
    measured: Measured,
    theirs: dict[str, list[tuple[Any, int]]],
    ours: dict[tuple[str, int], list[Position]],
    envs: dict[str, list[tuple[RefereeAECEnv, int]]],
    seconds: float,
) -> None:
    """One round of every operation: the peers', ours, the environments'."""
    for name, nodes in theirs.items():
        for op, clone in (("clone", _clone), ("clone_apply", _clone_apply)):
            measured.setdefault((name, op), []).append(rate(clone, nodes, seconds))
    for (game_type, players), items in ours.items():
        for op, function in OPERATIONS.items():
            # deepcopy takes a millisecond: a tenth of the positions say enough.
            chosen = items[: max(4, len(items) // 10)] if op == "deepcopy_submit" else items
            key = (f"{game_type}/{players}", op)
            measured.setdefault(key, []).append(rate(function, chosen, seconds))
    for game_type, places in envs.items():
        for op, env_function in ENV_OPERATIONS.items():
            # Likewise: a tenth of the positions for the milliseconds of a deepcopy.
            few = places[: max(4, len(places) // 10)] if "deepcopy" in op else places
            key = (f"env {game_type}", op)
            measured.setdefault(key, []).append(rate(env_function, few, seconds))


def _median(measured: Measured, key: tuple[str, str]) -> float:
    return float(statistics.median(measured[key]))


def _game_rows(measured: Measured, configs: list[tuple[str, int]]) -> list[dict[str, Any]]:
    peer = ("crazy_eights", "clone_apply")
    peer_rate = _median(measured, peer) if peer in measured else None
    rows = []
    for game_type, players in configs:
        label = f"{game_type}/{players}"
        row: dict[str, Any] = {"game": game_type, "players": players}
        for op in OURS:
            row[f"{op}_per_second"] = _median(measured, (label, op))
            row[f"{op}_us"] = 1e6 / _median(measured, (label, op))
        row["to_crazy_eights"] = (
            peer_rate / row["fork_step_per_second"] if peer_rate is not None else None
        )
        fork_step, deepcopy = row["fork_step_per_second"], row["deepcopy_submit_per_second"]
        row["deepcopy_to_fork_step"] = fork_step / deepcopy
        for op in PLAYOUTS:
            row[f"{op}_ms"] = 1e3 / _median(measured, (label, op))
        # As speeds: above 1, a fork plays out faster than a Table.
        row["fork_playout_to_table"] = row["table_playout_ms"] / row["fork_playout_ms"]
        row["fork_step_playout_to_table"] = row["table_playout_ms"] / row["fork_step_playout_ms"]
        rows.append(row)
    return rows


def _peer_row(measured: Measured, name: str) -> dict[str, Any]:
    peer_row: dict[str, Any] = {"game": f"open_spiel {name}"}
    for op in THEIRS:
        peer_row[f"{op}_per_second"] = _median(measured, (name, op))
        peer_row[f"{op}_us"] = 1e6 / _median(measured, (name, op))
    return peer_row


def _env_row(measured: Measured, game_type: str) -> dict[str, Any]:
    env_row: dict[str, Any] = {"game": game_type}
    for op in ENV_OPERATIONS:
        env_row[f"{op}_us"] = 1e6 / _median(measured, (f"env {game_type}", op))
    env_row["deepcopy_to_copy"] = env_row["env_deepcopy_step_us"] / env_row["env_copy_step_us"]
    return env_row


def markdown(p11: dict[str, Any]) -> list[str]:
    out = [
        "",
        "## P11 search: copies, steps and undo",
        "",
        f"{p11['positions']} positions per game, CPU time, median of {p11['rounds']} rounds; "
        "time ratios (÷ crazy_eights: our `fork + step` time over its `clone + apply`).",
        "",
        "| game | players | fork µs | fork + step µs | step + undo µs | Table.fork + step µs "
        "| deepcopy + submit µs | ÷ crazy_eights | deepcopy ÷ fork + step |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in p11["games"]:
        ratio = row["to_crazy_eights"]
        out.append(
            f"| {row['game']} | {row['players']} | {row['fork_us']:.2f} "
            f"| {row['fork_step_us']:.2f} | {row['step_undo_us']:.2f} "
            f"| {row['table_fork_step_us']:.2f} | {row['deepcopy_submit_us']:,.0f} "
            f"| {'n/a' if ratio is None else f'{ratio:.2f}'} "
            f"| {row['deepcopy_to_fork_step']:.0f} |"
        )
    out += [
        "",
        "Whole random playouts from the opening (the same moves on each); ÷ Table as speeds "
        "(above 1: faster than on a Table).",
        "",
        "| game | players | Table playout ms | fork playout (`play`) ms | ÷ Table "
        "| fork playout (`step`) ms | ÷ Table |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in p11["games"]:
        out.append(
            f"| {row['game']} | {row['players']} | {row['table_playout_ms']:.2f} "
            f"| {row['fork_playout_ms']:.2f} | {row['fork_playout_to_table']:.2f} "
            f"| {row['fork_step_playout_ms']:.2f} | {row['fork_step_playout_to_table']:.2f} |"
        )
    out += ["", "| OpenSpiel game | clone µs | clone + apply µs |", "|---|---:|---:|"]
    for row in p11["peers"]:
        out.append(f"| {row['game']} | {row['clone_us']:.2f} | {row['clone_apply_us']:.2f} |")
    out += [
        "",
        "| environment (fewest players) | env copy + step µs | env deepcopy + step µs "
        "| deepcopy ÷ copy |",
        "|---|---:|---:|---:|",
    ]
    for row in p11.get("environments", []):
        out.append(
            f"| {row['game']} | {row['env_copy_step_us']:.1f} "
            f"| {row['env_deepcopy_step_us']:,.0f} | {row['deepcopy_to_copy']:.0f} |"
        )
    out += [f"- note: {note}" for note in p11["notes"]]
    return out
