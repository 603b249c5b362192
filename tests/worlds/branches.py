"""Time one Mau Mau Vampires world sample per position and count its start's branches (not a
test): the positions table of docs/performance.md ("Chains of gifts").

    python -m tests.worlds.branches [LIMIT] [SEED STEPS REFEREED SEAT]

Six seats, the short-hands options of the property test; a branch is counted by wrapping
``Ahead.touched`` (called once per branch taken); a sample taking over LIMIT seconds (120)
is stopped and printed as TIMEOUT with the branches by then.
"""

from __future__ import annotations

import signal
import sys
import time
from typing import Any

from referee.games.mau_mau_vampires.worlds.ahead import Ahead
from referee.search.worlds import knowledge_of, sample_world
from tests.worlds.support import random_position
from tests.worlds.test_worlds import SHORT

#: (seed, steps, refereed, seat) of the tables of docs/performance.md
POSITIONS = [
    (2488756680, 318, False, 0),
    (2569658347, 286, False, 3),
    (779749362, 355, True, 5),
    (691162646, 300, False, 0),
    (1417982939, 324, True, 1),
    (2391990712, 287, False, 3),
]


def _alarm(*_: Any) -> None:
    raise TimeoutError


def main() -> None:
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    positions = POSITIONS
    if len(sys.argv) > 5:
        seed, steps, refereed, seat = (int(a) for a in sys.argv[2:6])
        positions = [(seed, steps, bool(refereed), seat)]
    count = [0]
    touched = Ahead.touched

    def counted(self: Ahead, *args: Any) -> set[int]:
        count[0] += 1
        return touched(self, *args)

    Ahead.touched = counted  # type: ignore[method-assign]
    signal.signal(signal.SIGALRM, _alarm)
    for seed, steps, refereed, seat in positions:
        game = "mau-mau-vampires"
        table = random_position(game, 6, seed, steps, SHORT[game], refereed=refereed)
        known = knowledge_of(table, seat)
        count[0] = 0
        began = time.perf_counter()
        signal.alarm(limit)
        try:
            sample_world(known, seed)
            signal.alarm(0)
            result = "ok"
        except TimeoutError:
            result = "TIMEOUT"
        took = time.perf_counter() - began
        print(
            f"{seed} {steps} {'refereed' if refereed else '-'} {seat}: {took:.2f} s, "
            f"{count[0]} branches, {result}",
            flush=True,
        )


if __name__ == "__main__":
    main()
