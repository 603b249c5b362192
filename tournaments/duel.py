"""In-process duplicate-deal duel of the search strategy with the game's heuristic.

    python tournaments/duel.py GAME DEALS [MILLIS] [--bias B] [--start N]
        [--opponents heuristic|tree]

The same comparison as a ``format: duplicate`` tournament read by ``tournaments/paired.py``
(every deal played with the search in every seat, the heuristic in the others; per deal the
search's mean points, its rank scaled to [0, 1], minus the heuristic seats' mean; the mean of
those over the deals with a 95% normal interval), without the server and the wire: on this
shared machine the tournament runner's gRPC and referee cost as much CPU as the bots. The
search's budget is its thread's CPU time (``time.thread_time``), as in every caller. Prints
each deal's difference as it ends, then the summary and the mean iterations per move.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import time

from referee.bots import SearchStrategy
from referee.engine import ismcts
from referee.engine.bot import game_bot
from referee.engine.table import Table
from referee.engine.worlds import knowledge_of

#: The tournaments' options (tournaments/search-*.yaml).
GAMES = {
    "dracula-vs-van-helsing": (2, {}),
    "sleeping-queens": (2, {}),
    "mau-mau-vampires": (2, {"hands": "1"}),
    "vampire-queen": (3, {"rounds": "1"}),
}


@dataclasses.dataclass
class Tally:
    """The searched moves and their iterations."""

    moves: int = 0
    iterations: int = 0


def play(
    game: str, seed: bytes, seat: int, search: SearchStrategy, rng: random.Random, tally: Tally
) -> dict[int, float]:
    """One game with the search at ``seat``: every seat's points."""
    players, options = GAMES[game]
    table = Table.create(game, players, options, seed=seed)
    bot = game_bot(game)
    assert bot is not None
    while table.results() is None:
        mover = table.pending()[0]
        if mover == seat and len(table.legal_commands(mover)) > 1:
            command = search.choose_known(knowledge_of(table, mover), rng)
            tally.moves += 1
            tally.iterations += search.last_iterations
        else:
            command = bot.choose(table.view(mover), players)
        table.submit(mover, command)
    return {r.seat: (players - r.rank) / (players - 1) for r in table.results() or ()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("deals", type=int)
    parser.add_argument("millis", type=float, nargs="?", default=100.0)
    parser.add_argument("--bias", type=float, default=None)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--opponents", choices=("heuristic", "tree"), default=None)
    args = parser.parse_args()
    settings = ismcts.ismcts_settings_for(args.game)
    if args.bias is not None:
        settings = dataclasses.replace(settings, bias=args.bias)
    if args.opponents is not None:
        settings = dataclasses.replace(settings, opponents=args.opponents)
    search = SearchStrategy(args.game, millis=args.millis, settings=settings)
    tally = Tally()
    players = GAMES[args.game][0]
    diffs = []
    started = time.process_time()
    for deal in range(args.start, args.start + args.deals):
        seed = f"duel-{args.game}-{deal}".encode()
        mine: list[float] = []
        others: list[float] = []
        for seat in range(players):
            points = play(args.game, seed, seat, search, random.Random(deal * 10 + seat), tally)
            mine.append(points[seat])
            others.extend(v for s, v in points.items() if s != seat)
        diffs.append(sum(mine) / len(mine) - sum(others) / len(others))
        print(deal, f"{diffs[-1]:+.3f}", flush=True)
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    print(
        f"{args.game} {args.millis:g} ms, {settings}: {n} deals, points search - heuristic "
        f"{mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}]; "
        f"{tally.iterations / max(tally.moves, 1):.1f} iterations per searched move "
        f"({tally.moves} moves, {time.process_time() - started:.0f} s CPU)"
    )


if __name__ == "__main__":
    main()
