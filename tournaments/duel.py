"""In-process duplicate-deal duel of the search strategy with the game's heuristic.

    python tournaments/duel.py GAME DEALS [MILLIS] [--bias B] [--start N]
        [--opponents heuristic|tree] [--set FIELD=VALUE ...] [--reveal hands|queens ...]
    python tournaments/duel.py --combine FILE [FILE ...]
    python tournaments/duel.py --paired A.out [...] vs B.out [...]

The same comparison as a ``format: duplicate`` tournament read by ``tournaments/paired.py``
(every deal played with the search in every seat, the heuristic in the others; per deal the
search's mean minus the heuristic seats' mean; the mean of those over the deals with a 95%
normal interval), without the server and the wire: on this shared machine the tournament
runner's gRPC and referee cost as much CPU as the bots. Two measures per deal:

* **points**: the rank scaled to [0, 1] (1 first, 0 last; in a two-seat game the win);
* **score**: ``SeatResult.score`` as the game counts it (:data:`SCORE`): Mau Mau Vampires'
  points (higher is better), Vampire Queen's penalty points (lower is better), and in
  Dracula vs Van Helsing and Sleeping Queens 1 for the winner, 0 otherwise (the win again).

The search's budget is its thread's CPU time (``time.thread_time``), as in every caller.
Prints one JSON line per deal as it ends (``--combine`` pools such lines from several runs,
e.g. deal ranges split with ``--start`` over two processes), then the summary and the mean
iterations per move. ``--paired`` compares two settings over the deals both played: B's
per-deal value minus A's, with a 95% interval (the same deals, so the deal's luck cancels).

``--reveal`` (Sleeping Queens only) is an experiment, not a bot: the search is handed more
than its seat knows, the other seat's draws (``hands``, so its whole hand) or the queens'
positions (``queens``), to bound what knowing them would be worth (docs/performance.md
"What a seat cannot know").
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import time

from referee.bots import SearchStrategy
from referee.engine.bot import game_bot
from referee.engine.table import Table
from referee.games.sleeping_queens.model import CardsDrawn, QueensLaid
from referee.search import ismcts
from referee.search.worlds import Knowledge, knowledge_of

#: The tournaments' options (tournaments/search-*.yaml).
GAMES = {
    "dracula-vs-van-helsing": (2, {}),
    "sleeping-queens": (2, {}),
    "mau-mau-vampires": (2, {"hands": "1"}),
    "vampire-queen": (3, {"rounds": "1"}),
}

#: Which way each game's score is better (its rules' ``score_meaning``).
SCORE = {
    "dracula-vs-van-helsing": "1 for the winner, 0 for the loser: higher is better",
    "sleeping-queens": "1 for a winner, 0 otherwise: higher is better",
    "mau-mau-vampires": "points: higher is better",
    "vampire-queen": "penalty points: lower is better",
}


#: What ``--reveal`` may hand the search, by game: the event class it then sees unredacted.
REVEALABLE: dict[str, dict[str, type]] = {
    "sleeping-queens": {"hands": CardsDrawn, "queens": QueensLaid},
}


def knowing(table: Table[object], seat: int, reveal: frozenset[str] = frozenset()) -> Knowledge:
    """The seat's knowledge, with the events of each kind in ``reveal`` as they really were."""
    knowledge = knowledge_of(table, seat)
    if not reveal:
        return knowledge
    shown = tuple(REVEALABLE[table.config.game_type][what] for what in reveal)
    events = tuple(
        true if isinstance(true, shown) else seen
        for true, seen in zip(table.log, knowledge.events, strict=True)
    )
    return dataclasses.replace(knowledge, events=events)


@dataclasses.dataclass
class Tally:
    """The searched moves, their iterations, and how many left the heuristic's command."""

    moves: int = 0
    iterations: int = 0
    deviations: int = 0


def play(
    game: str,
    seed: bytes,
    seat: int,
    search: SearchStrategy,
    rng: random.Random,
    tally: Tally,
    reveal: frozenset[str] = frozenset(),
) -> dict[int, tuple[float, int]]:
    """One game with the search at ``seat``: every seat's points and score."""
    players, options = GAMES[game]
    table = Table.create(game, players, options, seed=seed)
    bot = game_bot(game)
    assert bot is not None
    while table.results() is None:
        mover = table.pending()[0]
        if mover == seat and len(table.legal_commands(mover)) > 1:
            command = search.choose_known(knowing(table, mover, reveal), rng)
            tally.moves += 1
            tally.iterations += search.last_iterations
            tally.deviations += command != bot.choose(table.view(mover), players)
        else:
            command = bot.choose(table.view(mover), players)
        table.submit(mover, command)
    return {r.seat: ((players - r.rank) / (players - 1), r.score) for r in table.results() or ()}


def deal_line(
    game: str,
    deal: int,
    search: SearchStrategy,
    settings: ismcts.Settings,
    millis: float,
    reveal: frozenset[str] = frozenset(),
) -> dict[str, object]:
    """Play one deal with the search in every seat: its machine-readable line."""
    players = GAMES[game][0]
    tally = Tally()
    seed = f"duel-{game}-{deal}".encode()
    mine: list[tuple[float, int]] = []
    others: list[tuple[float, int]] = []
    for seat in range(players):
        outcome = play(game, seed, seat, search, random.Random(deal * 10 + seat), tally, reveal)
        mine.append(outcome[seat])
        others.extend(v for s, v in outcome.items() if s != seat)
    return {
        "game": game,
        "millis": millis,
        "settings": repr(settings) + "".join(f" +{what}" for what in sorted(reveal)),
        "deal": deal,
        "points": mean([p for p, _ in mine]) - mean([p for p, _ in others]),
        "score": mean([s for _, s in mine]) - mean([s for _, s in others]),
        "moves": tally.moves,
        "iterations": tally.iterations,
        "deviations": tally.deviations,
    }


def mean(values: list[float] | list[int]) -> float:
    return sum(values) / len(values)


def interval(values: list[float]) -> str:
    """The mean and its 95% normal interval."""
    n = len(values)
    centre = mean(values)
    sd = math.sqrt(sum((v - centre) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return f"{centre:+.3f} [{centre - half:+.3f}, {centre + half:+.3f}]"


def summary(lines: list[dict[str, object]]) -> str:
    """Both measures over the deals of ``lines`` (one game and budget)."""
    first = lines[0]
    game = str(first["game"])
    deals = sorted(int(str(line["deal"])) for line in lines)
    moves = sum(int(str(line["moves"])) for line in lines)
    iterations = sum(int(str(line["iterations"])) for line in lines)
    deviations = sum(int(str(line.get("deviations", 0))) for line in lines)
    points = [float(str(line["points"])) for line in lines]
    scores = [float(str(line["score"])) for line in lines]
    return (
        f"{game} {first['millis']:g} ms, {first['settings']}: {len(lines)} deals "
        f"({deals[0]}-{deals[-1]}); search - heuristic: points {interval(points)}, "
        f"score {interval(scores)} ({SCORE[game]}); "
        f"{iterations / max(moves, 1):.1f} iterations per searched move ({moves} moves, "
        f"{deviations} off the heuristic's command)"
    )


def read(paths: list[str]) -> dict[tuple[str, str, str], dict[int, dict[str, object]]]:
    """The per-deal lines of several runs by game, budget and settings, then by deal."""
    groups: dict[tuple[str, str, str], dict[int, dict[str, object]]] = {}
    for path in paths:
        with open(path, encoding="utf-8") as lines:
            for text in lines:
                if text.startswith("{"):
                    line = json.loads(text)
                    key = (line["game"], str(line["millis"]), line["settings"])
                    groups.setdefault(key, {})[line["deal"]] = line
    return groups


def combine(paths: list[str]) -> None:
    """Pool the per-deal lines of several runs, one summary per game, budget and settings."""
    for deals in read(paths).values():
        print(summary(list(deals.values())))


def paired(paths: list[str]) -> None:
    """``A... vs B...``: B's per-deal values minus A's over the deals both played (one game,
    budget and settings on each side), the mean of the differences with its 95% interval."""
    if "vs" not in paths:
        raise SystemExit("--paired A.out [A2.out ...] vs B.out [B2.out ...]")
    cut = paths.index("vs")
    sides = []
    for side in (paths[:cut], paths[cut + 1 :]):
        groups = list(read(side).values())
        if len(groups) != 1:
            raise SystemExit(f"{side}: {len(groups)} kinds of run, one expected per side")
        sides.append(groups[0])
    before, after = sides
    deals = sorted(set(before) & set(after))
    if len(deals) < 2:
        raise SystemExit("fewer than two deals in common")
    for measure in ("points", "score"):
        differences = [
            float(str(after[deal][measure])) - float(str(before[deal][measure])) for deal in deals
        ]
        print(f"{measure}: B - A over {len(deals)} deals: {interval(differences)}")


def assigned(settings: ismcts.Settings, assignments: list[str]) -> ismcts.Settings:
    """``settings`` with each ``FIELD=VALUE`` of ``assignments`` set, the value read as the
    field's type."""
    for assignment in assignments:
        name, _, value = assignment.partition("=")
        kind = type(getattr(settings, name))
        settings = dataclasses.replace(settings, **{name: kind(value)})
    return settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", nargs="?", choices=sorted(GAMES))
    parser.add_argument("deals", nargs="?", type=int)
    parser.add_argument("millis", type=float, nargs="?", default=100.0)
    parser.add_argument("--bias", type=float, default=None)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--opponents", choices=("heuristic", "tree"), default=None)
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    parser.add_argument("--combine", nargs="+", metavar="FILE")
    parser.add_argument("--paired", nargs="+", metavar="FILE")
    parser.add_argument("--reveal", action="append", default=[], choices=("hands", "queens"))
    args = parser.parse_args()
    if args.combine:
        combine(args.combine)
        return
    if args.paired:
        paired(args.paired)
        return
    if args.game is None or args.deals is None:
        parser.error("GAME and DEALS are required without --combine")
    settings = ismcts.ismcts_settings_for(args.game)
    if args.bias is not None:
        settings = dataclasses.replace(settings, bias=args.bias)
    if args.opponents is not None:
        settings = dataclasses.replace(settings, opponents=args.opponents)
    settings = assigned(settings, args.set)
    reveal = frozenset(args.reveal)
    if reveal and args.game not in REVEALABLE:
        parser.error(f"--reveal is for {', '.join(REVEALABLE)} only")
    search = SearchStrategy(args.game, millis=args.millis, settings=settings)
    started = time.process_time()
    lines = []
    for deal in range(args.start, args.start + args.deals):
        lines.append(deal_line(args.game, deal, search, settings, args.millis, reveal))
        print(json.dumps(lines[-1]), flush=True)
    print(f"{summary(lines)}; {time.process_time() - started:.0f} s CPU")


if __name__ == "__main__":
    main()
