"""Where the tree search leaves the heuristic's command, and what each departure is worth in
the true deal (docs/performance.md "Checked deviations").

    python tournaments/deviations.py GAME DEALS ITERATIONS [FIELD=VALUE ...]

Plays DEALS deals of heuristic against heuristic (``devs-GAME-N``, the options of
``duel.GAMES``). At every decision with a choice, the mover's search (the game's
``TREE_SEARCH`` with any FIELD=VALUE changed, ITERATIONS iterations, so the run does not
depend on the machine's load) is asked too. Where it picks another command, both commands are
played on from the **true** position with the heuristic for every seat to the end: the
mover's points (rank in [0, 1]) after the search's command minus after the heuristic's is what
that departure was worth in this deal. Over many departures the mean is what the search's
departures are worth on average, with no duel's noise from the moves both agree on. Prints
the count and mean by kind of departure (the two commands' types).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from typing import Any

from duel import GAMES, assigned, interval

from referee.engine.bot import game_bot
from referee.engine.table import Table
from referee.search import ismcts
from referee.search.worlds import Chance, knowledge_of


def finish(table: Table[Any], players: int) -> dict[int, float]:
    """Every seat's points after the heuristic plays the table to its end."""
    bot = game_bot(table.config.game_type)
    assert bot is not None
    while table.results() is None:
        mover = table.pending()[0]
        table.submit(mover, bot.choose(table.view(mover), players))
    return {r.seat: (players - r.rank) / (players - 1) for r in table.results() or ()}


def main() -> None:
    game, deals, iterations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    settings = assigned(ismcts.ismcts_settings_for(game), sys.argv[4:])
    players, options = GAMES[game]
    bot = game_bot(game)
    assert bot is not None
    worth: dict[str, list[float]] = defaultdict(list)
    decisions = 0
    for deal in range(deals):
        table = Table.create(game, players, options, seed=f"devs-{game}-{deal}".encode())
        while table.results() is None:
            mover = table.pending()[0]
            heuristic = bot.choose(table.view(mover), players)
            if len(table.legal_commands(mover)) > 1:
                decisions += 1
                known = knowledge_of(table, mover)
                rng = Chance(f"{deal}-{table.version}".encode())
                searched = ismcts.search(known, rng, lambda done: done >= iterations, settings)
                if searched != heuristic:
                    after_search, after_heuristic = table.copy(), table.copy()
                    after_search.submit(mover, searched)
                    after_heuristic.submit(mover, heuristic)
                    gain = finish(after_search, players)[mover]
                    gain -= finish(after_heuristic, players)[mover]
                    kind = f"{type(heuristic).__name__} -> {type(searched).__name__}"
                    worth[kind].append(gain)
            table.submit(mover, heuristic)
    every = [gain for gains in worth.values() for gain in gains]
    print(f"{game}, {iterations} iterations, {settings}")
    worth_of = interval(every) if every else "none"
    print(f"{deals} deals, {decisions} decisions, {len(every)} departures: {worth_of}")
    for kind, gains in sorted(worth.items(), key=lambda item: -len(item[1])):
        print(f"  {kind:36s} {len(gains):5d}  {interval(gains)}")


if __name__ == "__main__":
    main()
