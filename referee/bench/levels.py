"""LEVELS: the house bots' levels against each other, over duplicate deals, in every game.

Each game at its fewest seats (Vampire Queen one round, Mau Mau Vampires one hand: a level's
strength shows in a round as in a match, at a fraction of the moves); each **pairing** of
neighbours in the order of strength, ``easy`` against the random player, ``normal`` against
``easy``, ``hard`` against ``normal``, plays the same deals: every deal once per seat, the
stronger level in that seat and the weaker in the others (in a two-seat game, the seats
swapped). The deal's luck and the seat's cancel within a deal; deals are independent.

Two figures per pairing, each with its 95 % interval (:mod:`referee.bench.intervals`):

* **lead**: per deal, the stronger level's points minus the weaker seats' mean points (points:
  the rank scaled to [0, 1], 1 first and 0 last; in a two-seat game the win), averaged over
  the deals, with the percentile bootstrap over deals. The stronger level **beats** the
  weaker when this interval lies above 0: the order the levels promise.
* **wins**: the share of its games the stronger level finished first (a first place shared
  by k seats counts 1/k), with Wilson's interval, beside the par of equal players (one over
  the number of seats).

The levels decide as a house bot does (:func:`referee.application.house.levels.choose`, with
:func:`~referee.application.house.levels.arguments_of`): from the seat's view, and ``hard``
from the seat's knowledge (its redacted events), never from the table. ``hard`` searches a
fixed number of iterations per move (:data:`HARD_ITERATIONS`), about what its share of the
default per-move budget (:data:`~referee.application.house.levels.SEARCH_SHARE` of
:data:`~referee.application.house.levels.DEFAULT_BUDGET_MS`, thread CPU time) buys on the
bench machine: so the figure is the same on a loaded machine as on an idle one, and the
report gives the CPU time a searched move took, to compare with the budget. Every draw is
seeded by the game, the deal and the seat: the same command gives the same games.

Deals run in a process pool (one worker per core, two at most: the machine is shared); the
results do not depend on which worker played a deal.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import json
import os
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.application.house import levels as house
from referee.application.house.levels import LEVELS, Level
from referee.bench.intervals import bootstrap_mean, wilson
from referee.engine.table import Table
from referee.search.worlds import knowledge_of

#: The games as measured: seats and options (the fewest seats, one round or hand).
GAMES: dict[str, tuple[int, dict[str, str]]] = {
    "vampire-queen": (3, {"rounds": "1"}),
    "dracula-vs-van-helsing": (2, {}),
    "sleeping-queens": (2, {}),
    "mau-mau-vampires": (2, {"hands": "1"}),
}

#: The baseline below the weakest level: uniformly random among the legal commands.
RANDOM = Level("random", "random", description="uniformly random among the legal moves")

#: The pairings measured, each (stronger, weaker): neighbours in the order of strength.
PAIRINGS: tuple[tuple[str, str], ...] = (("easy", "random"), ("normal", "easy"), ("hard", "normal"))

#: ``hard``'s search iterations per move in the measurement, by game: about the median a
#: move's search share of the default budget (500 ms of thread CPU time) bought on the bench
#: machine (docs/performance.md, "The house bots' levels").
HARD_ITERATIONS: dict[str, int] = {
    "vampire-queen": 700,
    "dracula-vs-van-helsing": 130,
    "sleeping-queens": 350,
    "mau-mau-vampires": 110,
}
#: The quick run's iterations (a smoke test of the search's path, not its strength).
QUICK_ITERATIONS = 4

#: Deals per pairing without the search, in each game (a game is milliseconds).
PLAIN_DEALS = 300
#: Deals of the searching pairing by game (a deal is a minute of CPU): more in Sleeping
#: Queens, where the search is only about as strong as the heuristic, so the lead is smallest.
SEARCH_DEALS = {
    "vampire-queen": 20,
    "dracula-vs-van-helsing": 20,
    "sleeping-queens": 60,
    "mau-mau-vampires": 20,
}
QUICK_DEALS = {"plain": 2, "search": 1}


def level(name: str, game: str, quick: bool) -> Level:
    """The level ``name`` as measured in ``game`` (``hard`` at its fixed iterations)."""
    if name == RANDOM.name:
        return RANDOM
    chosen = LEVELS[name]
    if chosen.knows:
        iterations = QUICK_ITERATIONS if quick else HARD_ITERATIONS[game]
        chosen = dataclasses.replace(chosen, iterations=iterations)
    return chosen


@dataclass(frozen=True, slots=True)
class Deal:
    """One deal of a pairing, played once per seat of the stronger level."""

    game: str
    stronger: str
    weaker: str
    deal: int
    #: The stronger level's mean points minus the weaker seats' mean points.
    lead: float
    #: Games the stronger level finished first (a shared first place counts 1/k).
    wins: float
    games: int
    #: Moves decided by a searching level, and their thread CPU seconds and iterations.
    searched: int = 0
    search_seconds: float = 0.0
    iterations: int = 0


def play_deal(game: str, stronger: str, weaker: str, deal: int, quick: bool) -> Deal:
    """Play deal number ``deal`` of a pairing in ``game``: the stronger level in each seat in
    turn, the weaker in the others."""
    players, options = GAMES[game]
    seed = f"levels/{game}/{deal}".encode()
    strong, weak = level(stronger, game, quick), level(weaker, game, quick)
    mine: list[float] = []
    others: list[float] = []
    wins = 0.0
    searched, seconds, iterations = 0, 0.0, 0
    for seat in range(players):
        table = Table.create(game, players, options, seed=seed)
        seats = [strong if s == seat else weak for s in range(players)]
        rngs = [random.Random(f"{game}/{deal}/{seat}/{s}") for s in range(players)]
        while (results := table.results()) is None:
            mover = table.pending()[0]
            legal = table.legal_commands(mover)
            chosen = seats[mover]
            if len(legal) == 1:
                table.submit(mover, legal[0])
                continue
            knowledge = knowledge_of(table, mover) if chosen.knows else None
            view = knowledge.view if knowledge is not None else table.view(mover)
            started = time.thread_time()
            command = house.choose(
                *house.arguments_of(
                    chosen,
                    view,
                    players,
                    rngs[mover].getrandbits(64),
                    knowledge,
                    house.DEFAULT_BUDGET_MS,
                )
            )
            if chosen.knows:
                searched += 1
                seconds += time.thread_time() - started
                iterations += chosen.iterations or 0
            table.submit(mover, command)
        points = {r.seat: (players - r.rank) / (players - 1) for r in results}
        mine.append(points[seat])
        others.extend(p for s, p in points.items() if s != seat)
        firsts = [r.seat for r in results if r.rank == 1]
        wins += 1 / len(firsts) if seat in firsts else 0.0
    return Deal(
        game,
        stronger,
        weaker,
        deal,
        statistics.fmean(mine) - statistics.fmean(others),
        wins,
        players,
        searched,
        seconds,
        iterations,
    )


def _play(task: tuple[str, str, str, int, bool]) -> Deal:
    return play_deal(*task)


def tasks(
    quick: bool, games: Sequence[str], deals: dict[str, int] | None = None
) -> list[tuple[str, str, str, int, bool]]:
    """Every deal of every pairing of ``games``, the searching pairings first (the longest)."""
    counts = deals or (QUICK_DEALS if quick else None)
    found = []
    for stronger, weaker in PAIRINGS:
        kind = "search" if _searching(stronger, weaker) else "plain"
        for game in games:
            if counts is not None:
                count = counts[kind]
            else:
                count = SEARCH_DEALS[game] if kind == "search" else PLAIN_DEALS
            found += [(game, stronger, weaker, d, quick) for d in range(count)]
    # The searching pairings first (the longest), deal by deal across the games: a run cut
    # short has as many deals of each game.
    return sorted(found, key=lambda t: (not _searching(t[1], t[2]), t[3]))


def _searching(*names: str) -> bool:
    return any(name in LEVELS and LEVELS[name].knows for name in names)


def summary(deals: Sequence[Deal]) -> dict[str, Any]:
    """One pairing's figures over its deals."""
    first = deals[0]
    leads = [d.lead for d in deals]
    games = sum(d.games for d in deals)
    wins = sum(d.wins for d in deals)
    low, high = bootstrap_mean(leads)
    win_low, win_high = wilson(wins, games)
    searched = sum(d.searched for d in deals)
    return {
        "game": first.game,
        "players": GAMES[first.game][0],
        "stronger": first.stronger,
        "weaker": first.weaker,
        "deals": len(deals),
        "games": games,
        "lead": statistics.fmean(leads),
        "lead_low": low,
        "lead_high": high,
        "beats": low > 0,
        "win_rate": wins / games,
        "win_low": win_low,
        "win_high": win_high,
        "par": 1 / GAMES[first.game][0],
        "searched_moves": searched,
        "search_ms_per_move": 1000 * sum(d.search_seconds for d in deals) / searched
        if searched
        else None,
        "iterations_per_move": sum(d.iterations for d in deals) / searched if searched else None,
    }


def run(
    quick: bool,
    games: Sequence[str] | None = None,
    deals: dict[str, int] | None = None,
    workers: int | None = None,
    progress: Path | None = None,
) -> dict[str, Any]:
    """Every pairing in every game (or ``games``): the figures of the docstring. Each deal is
    written to ``progress`` (a JSON line) as it ends, so that a long run can be followed."""
    chosen = list(games or GAMES)
    work = tasks(quick, chosen, deals)
    started = time.perf_counter()
    if workers is None:
        workers = 1 if quick else min(2, os.cpu_count() or 1)
    played: list[Deal] = []
    with contextlib.ExitStack() as stack:
        log = stack.enter_context(progress.open("w")) if progress is not None else None
        pool = None
        if workers > 1:
            pool = stack.enter_context(concurrent.futures.ProcessPoolExecutor(workers))
        for deal in pool.map(_play, work, chunksize=1) if pool else map(_play, work):
            played.append(deal)
            if log is not None:
                log.write(json.dumps(dataclasses.asdict(deal)) + "\n")
                log.flush()
    result = figures(played, chosen, quick)
    return result | {"workers": workers, "seconds": time.perf_counter() - started}


def figures(played: Sequence[Deal], games: Sequence[str], quick: bool) -> dict[str, Any]:
    """The figures of the deals ``played`` (of ``games``; a pairing with no deal is left out):
    also what a run's ``levels-deals.jsonl`` gives, read back as :class:`Deal`."""
    by_pairing: dict[tuple[str, str, str], list[Deal]] = {}
    for deal in sorted(played, key=lambda d: d.deal):
        by_pairing.setdefault((deal.game, deal.stronger, deal.weaker), []).append(deal)
    rows = [
        summary(by_pairing[(game, stronger, weaker)])
        for game in games
        for stronger, weaker in PAIRINGS
        if (game, stronger, weaker) in by_pairing
    ]
    return {
        "pairings": rows,
        "levels": {
            name: {
                "strategy": lv.strategy,
                "blunders": lv.blunders,
                "description": lv.description,
            }
            for name, lv in LEVELS.items()
        },
        "hard_iterations": {g: level("hard", g, quick).iterations for g in games},
        "budget_ms": house.DEFAULT_BUDGET_MS,
        "search_budget_ms": house.DEFAULT_BUDGET_MS * house.SEARCH_SHARE,
        "ordered": all(row["beats"] for row in rows),
        "least_lower_bound": min(row["lead_low"] for row in rows),
    }


def markdown(result: dict[str, Any]) -> list[str]:
    out = [
        "",
        "## LEVELS the house bots' levels, over duplicate deals",
        "",
        "Each pairing's stronger level in every seat in turn, the weaker in the others. Lead: "
        "the stronger level's points (rank scaled to [0, 1]) minus the weaker seats', per "
        "deal, [95 % bootstrap over deals]; wins: the stronger level's first places [95 % "
        "Wilson], beside the par of equal players. Ordered: the lead's interval lies above 0.",
        "",
        "| game | players | stronger vs weaker | deals (games) | lead [95 %] | wins [95 %] | par "
        "| hard: iterations, CPU ms a move | ordered |",
        "|---|---:|---|---:|---|---|---:|---|---|",
    ]
    for row in result["pairings"]:
        search = ""
        if row["search_ms_per_move"] is not None:
            search = f"{row['iterations_per_move']:.0f}, {row['search_ms_per_move']:.0f} ms"
        out.append(
            f"| {row['game']} | {row['players']} | {row['stronger']} vs {row['weaker']} "
            f"| {row['deals']} ({row['games']}) "
            f"| {row['lead']:+.3f} [{row['lead_low']:+.3f}, {row['lead_high']:+.3f}] "
            f"| {row['win_rate']:.3f} [{row['win_low']:.3f}, {row['win_high']:.3f}] "
            f"| {row['par']:.3f} | {search} | {'yes' if row['beats'] else '**no**'} |"
        )
    out += [
        "",
        f"`hard` searched a fixed number of iterations per move "
        f"({', '.join(f'{g} {n}' for g, n in result['hard_iterations'].items())}); a house "
        f"bot's search stops after {result['search_budget_ms']:.0f} ms of thread CPU time "
        f"(its share of the {result['budget_ms']} ms per-move budget). "
        f"{result['workers']} worker(s), {result['seconds']:.0f} s.",
    ]
    return out


__all__ = [
    "GAMES",
    "HARD_ITERATIONS",
    "PAIRINGS",
    "PLAIN_DEALS",
    "RANDOM",
    "SEARCH_DEALS",
    "Deal",
    "figures",
    "level",
    "markdown",
    "play_deal",
    "run",
    "summary",
]
