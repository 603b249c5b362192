"""Are the worlds a heuristic explains better nearer the truth? (Sleeping Queens)

    python tournaments/beliefs.py [POSITIONS] [WORLDS]

For POSITIONS (default 40) positions of heuristic play (4-11 steps into a two-seat game),
samples WORLDS (default 30) worlds from seat 0's knowledge and prints, by the number of
seat 1's last four decisions the heuristic would have made otherwise in the world
(``referee.search.beliefs.surprises``), how many worlds had that count and the mean share of
seat 1's true hand that those worlds give it. A weight on worlds by that count
(``ismcts.Settings.infer``) can only help if the share falls as the count rises
(docs/performance.md, "Worlds weighed by the others' moves").
"""

from __future__ import annotations

import statistics
import sys

from referee.engine.bot import game_bot
from referee.engine.table import Table
from referee.search.beliefs import surprises
from referee.search.worlds import knowledge_of, sample_world


def main() -> None:
    positions = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    worlds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    bot = game_bot("sleeping-queens")
    assert bot is not None
    shares: dict[int, list[float]] = {}
    for number in range(positions):
        table = Table.create("sleeping-queens", 2, seed=f"beliefs{number}".encode())
        for _ in range(4 + number % 8):
            if table.results() is not None:
                break
            mover = table.pending()[0]
            table.submit(mover, bot.choose(table.view(mover), 2))
        if table.results() is not None or not table.pending():
            continue
        true = table.state.hands[1]
        known = knowledge_of(table, 0)
        for seed in range(worlds):
            world = sample_world(known, seed, check=False)
            held = sum(min(a, b) for a, b in zip(true, world.state.hands[1], strict=True))
            shares.setdefault(surprises(world, 0, bot, 4), []).append(held / sum(true))
    print("surprises  worlds  share of the true hand")
    for count in sorted(shares):
        print(f"{count:9}  {len(shares[count]):6}  {statistics.mean(shares[count]):.3f}")


if __name__ == "__main__":
    main()
