"""Profile the tree search's iterations in one position (docs/performance.md "Cheaper
iterations, and a margin reward").

    python tournaments/profile_search.py GAME MOVES ITERATIONS

Plays the deal ``prof-1`` with the heuristic for MOVES moves (then on to the next decision
with a choice), and runs three ``ismcts.search`` calls of ITERATIONS iterations each from the
mover's knowledge under ``cProfile``, with the game's ``TREE_SEARCH``: the cumulative table
says where an iteration goes (sampling worlds, the rollout's heuristic and views, steps).
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import time

from duel import GAMES

from referee.engine.bot import game_bot
from referee.engine.table import Table
from referee.search import ismcts
from referee.search.worlds import Chance, knowledge_of


def main() -> None:
    game, steps, iterations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    players, options = GAMES[game]
    table = Table.create(game, players, options, seed=b"prof-1")
    bot = game_bot(game)
    assert bot is not None
    played = 0
    while True:
        mover = table.pending()[0]
        if played >= steps and len(table.legal_commands(mover)) > 1:
            break
        table.submit(mover, bot.choose(table.view(mover), players))
        played += 1
    known = knowledge_of(table, mover)
    settings = ismcts.ismcts_settings_for(game)
    started = time.thread_time()
    profile = cProfile.Profile()
    profile.enable()
    for run in range(3):
        ismcts.search(known, Chance(b"p%d" % run), lambda done: done >= iterations, settings)
    profile.disable()
    spent = (time.thread_time() - started) / 3 * 1000
    print(f"{game}: {played} moves in, {spent:.0f} ms CPU per search (profiled)")
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(45)
    print(out.getvalue())


if __name__ == "__main__":
    main()
