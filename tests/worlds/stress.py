"""Stress a world sampler over many random positions, timing each sample (not a test).

    python -m tests.worlds.stress [COUNT] [MASTER] [GAME] [--seats N] [--min-steps S]

The positions are drawn as the property test's (tests/worlds/test_worlds.py) ranges, from
``random.Random(MASTER)``: seed 0..2^32, steps 0..400, every seat count, refereed or not, any
seat. A sample taking over 120 s counts as a failure. Prints the failures, the total and
median time and the slowest positions (their arguments for ``check_position``).
"""

from __future__ import annotations

import argparse
import random
import signal
import time
from typing import Any

from referee.engine import get_game
from referee.search.worlds import knowledge_of, sample_world
from tests.worlds.support import random_position
from tests.worlds.test_worlds import SHORT, VALID

LIMIT = 120


def _alarm(*_: Any) -> None:
    raise TimeoutError


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, nargs="?", default=300)
    parser.add_argument("master", type=int, nargs="?", default=1)
    parser.add_argument("game", nargs="?", default="mau-mau-vampires")
    parser.add_argument("--seats", type=int, default=0, help="this many seats (0: any)")
    parser.add_argument("--min-steps", type=int, default=0)
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(args.master)
    info = get_game(args.game).info
    times: list[tuple[float, int, int, int, bool, int]] = []
    failures = []
    for _ in range(args.count):
        seed, steps = rng.randint(0, 2**32), rng.randint(0, 400)
        players, refereed, seat = rng.randint(0, 10), rng.random() < 0.5, rng.randint(0, 11)
        players = info.min_players + players % (info.max_players - info.min_players + 1)
        players = args.seats or players
        steps = args.min_steps + steps % (401 - args.min_steps)
        seat %= players
        table = random_position(
            args.game, players, seed, steps, SHORT.get(args.game), refereed=refereed
        )
        known = knowledge_of(table, seat)
        began = time.perf_counter()
        signal.alarm(LIMIT)
        try:
            world = sample_world(known, seed)
            signal.alarm(0)
            took = time.perf_counter() - began
            VALID.get(args.game, lambda world: None)(world)
        except Exception as error:  # a timeout or a sampler's error: both are findings
            signal.alarm(0)
            took = time.perf_counter() - began
            failures.append((seed, steps, players, refereed, seat, repr(error)[:200]))
        times.append((took, seed, steps, players, refereed, seat))
    times.sort(reverse=True)
    print(f"positions {len(times)}, failures {len(failures)}: {failures}")
    total = sum(t for t, *_ in times)
    print(f"total {total:.1f} s, median {times[len(times) // 2][0]:.4f} s")
    print("slowest (s, seed, steps, seats, refereed, seat):")
    for took, *position in times[:8]:
        print(f"  {took:.2f}", *position)


if __name__ == "__main__":
    main()
