"""The heuristic with a share of random moves against another share, over duplicate deals.

    python tournaments/blunders.py GAME DEALS

How the house levels' blunder shares (``Level.blunders``) were chosen (docs/performance.md,
"The house bots' levels"): for each pair of shares (a, b), every deal played once per seat
with share a in that seat and share b in the others; per deal a's mean points (rank scaled to
[0, 1]) minus the others'; the mean over the deals with a 95 % normal interval. Share 0 is the
heuristic, 1 the random player. A heuristic game takes milliseconds: hundreds of deals are
cheap, so the search is left out (``referee bench --only LEVELS`` measures the levels as
they are).
"""

from __future__ import annotations

import math
import random
import statistics
import sys
from collections.abc import Callable
from typing import Any

from referee.bench.levels import GAMES
from referee.engine import View
from referee.engine.bot import Bot, game_bot
from referee.engine.table import Table

#: The pairs of shares measured, (stronger, weaker).
PAIRS = ((0.0, 0.15), (0.0, 0.3), (0.0, 0.5), (0.3, 0.7), (0.5, 0.8), (0.7, 1.0), (0.5, 1.0))

Player = Callable[[View, int, random.Random], Any]


def blundering(share: float, bot: Bot) -> Player:
    def choose(view: View, players: int, rng: random.Random) -> Any:
        if share >= 1 or rng.random() < share:
            return rng.choice(view.legal_commands)
        return bot.choose(view, players)

    return choose


def points(game: str, seed: bytes, seats: list[Player], rngs: list[random.Random]) -> list[float]:
    players, options = GAMES[game]
    table = Table.create(game, players, options, seed=seed)
    while (results := table.results()) is None:
        mover = table.pending()[0]
        table.submit(mover, seats[mover](table.view(mover), players, rngs[mover]))
    ranked = {r.seat: (players - r.rank) / (players - 1) for r in results}
    return [ranked[s] for s in range(players)]


def duel(game: str, a: float, b: float, deals: int) -> tuple[float, float]:
    """Share ``a`` against share ``b``: the mean lead per deal and its 95 % half-width."""
    players = GAMES[game][0]
    bot = game_bot(game)
    assert bot is not None
    first, second = blundering(a, bot), blundering(b, bot)
    leads = []
    for deal in range(deals):
        mine, others = [], []
        for seat in range(players):
            seats = [first if s == seat else second for s in range(players)]
            rngs = [random.Random(deal * 100 + seat * 10 + s) for s in range(players)]
            got = points(game, f"eps-{game}-{deal}".encode(), seats, rngs)
            mine.append(got[seat])
            others += [p for s, p in enumerate(got) if s != seat]
        leads.append(statistics.fmean(mine) - statistics.fmean(others))
    half = 1.96 * statistics.stdev(leads) / math.sqrt(deals) if deals > 1 else 0.0
    return statistics.fmean(leads), half


def main() -> None:
    game, deals = sys.argv[1], int(sys.argv[2])
    for a, b in PAIRS:
        lead, half = duel(game, a, b, deals)
        print(f"{game} share {a} against {b}: {lead:+.3f} ±{half:.3f}", flush=True)


if __name__ == "__main__":
    main()
