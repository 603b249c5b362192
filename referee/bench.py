"""``referee bench``: in-process random-play steps per second for every registered game.

A step is one command: enumerate the pending seat's legal commands, pick one at random,
decide it and apply its events (what an RL environment's ``step`` does). Results go to
``OUT/engine.json`` and ``OUT/engine.md``. No speed is asserted anywhere: compare ratios
measured side by side in one run.
"""

from __future__ import annotations

import json
import platform
import random
import time
from pathlib import Path
from typing import Any

from referee.engine.registry import all_games
from referee.engine.table import Table


def random_play(game_type: str, players: int, seed: int) -> int:
    """Play one game with uniformly random legal commands; returns the number of steps."""
    rng = random.Random(seed)
    table = Table.create(game_type, players=players, seed=str(seed).encode())
    steps = 0
    while True:
        pending = table.pending()
        if not pending:
            return steps
        seat = pending[0] if len(pending) == 1 else rng.choice(pending)
        table.submit(seat, rng.choice(table.legal_commands(seat)))
        steps += 1


def measure(game_type: str, players: int, seconds: float) -> dict[str, Any]:
    steps = games = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        steps += random_play(game_type, players, games)
        games += 1
    elapsed = time.perf_counter() - started
    return {
        "game": game_type,
        "players": players,
        "games": games,
        "steps": steps,
        "seconds": round(elapsed, 3),
        "steps_per_second": round(steps / elapsed),
    }


def main(*, quick: bool = False, out: str = "bench-results") -> int:
    seconds = 0.3 if quick else 5.0
    rows = []
    for game in all_games():
        info = game.info
        counts = sorted({info.min_players, min(4, info.max_players), info.max_players})
        for players in counts:
            row = measure(info.type_id, players, seconds)
            rows.append(row)
            print(
                f"{row['game']:<24} {players:>2} players  {row['steps_per_second']:>9,} steps/s"
                f"  ({row['games']} games)",
                flush=True,
            )
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"python": platform.python_version(), "machine": platform.machine(), "quick": quick}
    (folder / "engine.json").write_text(json.dumps({"meta": meta, "engine": rows}, indent=2))
    lines = ["| game | players | steps/s | games |", "|---|---:|---:|---:|"]
    lines += [
        f"| {r['game']} | {r['players']} | {r['steps_per_second']:,} | {r['games']} |" for r in rows
    ]
    (folder / "engine.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {folder / 'engine.json'} and {folder / 'engine.md'}")
    return 0
