"""P1: in-process random-play steps per second for every registered game.

A step is one command: enumerate the deciding seat's legal commands, pick one uniformly at
random, decide it and apply its events (what an RL environment's ``step`` does). Rates are
per second of this process's CPU time (the peers' too), which other programs on a shared
machine disturb far less than wall time; the runs are still bounded by wall time.
"""

from __future__ import annotations

import random
import time
from typing import Any

from referee.engine.registry import all_games
from referee.engine.table import Table


def random_play(
    game_type: str, players: int, seed: int, options: dict[str, str] | None = None
) -> int:
    """Play one game with uniformly random legal commands; returns the number of steps.

    The same ``seed`` gives the same deal and the same choices: the remote benchmark (P3)
    plays exactly these games over gRPC.
    """
    rng = random.Random(seed)
    table = Table.create(game_type, players=players, options=options, seed=str(seed).encode())
    steps = 0
    while True:
        pending = table.pending()
        if not pending:
            return steps
        seat = pending[0] if len(pending) == 1 else rng.choice(pending)
        table.submit(seat, rng.choice(table.legal_commands(seat)))
        steps += 1


def measure(game_type: str, players: int, seconds: float, first_seed: int = 0) -> dict[str, Any]:
    """Random games one after the other for about ``seconds`` (at least one game)."""
    steps = games = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while games == 0 or time.perf_counter() - started < seconds:
        steps += random_play(game_type, players, first_seed + games)
        games += 1
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    return {
        "games": games,
        "steps": steps,
        "seconds": elapsed,
        "cpu_seconds": cpu,
        "steps_per_second": steps / max(cpu, 1e-9),
    }


def configurations(quick: bool) -> list[tuple[str, int]]:
    """(game type, players) for every registered game: fewest, 4 and most players."""
    found = []
    for game in all_games():
        info = game.info
        counts = sorted({info.min_players, min(4, info.max_players), info.max_players})
        if quick:
            counts = [min(4, info.max_players)] if info.min_players <= 4 else [info.min_players]
        found += [(info.type_id, n) for n in counts]
    return found
