"""Play a policy against the built-in bots over duplicate deals, with confidence intervals.

Duplicate deals as ``referee-tournament`` plays them: every deal (a table seed) is played once
per seating of the table, the policy and the opponents in every arrangement the tournament's
:func:`referee.engine.seatings.seatings` gives (every permutation up to 3 seats, a balanced
Latin square beyond), arrangements that only swap identical opponents played once. Luck of the
deal and of the seat cancels out within a deal; deals are independent, so the intervals are
over deals: ``mean ± 1.96 · sd / √deals`` of the per-deal means (a normal approximation, good
from a few dozen deals).

With ``baseline`` (a strategy name, default ``random``) the same deals, seatings and opponent
generators are played a second time with the baseline in the policy's place, and the paired
difference (policy - baseline) per deal gets its own interval: the policy beats the baseline
when that interval lies above 0.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.engine import Table
from referee.engine.seatings import seatings
from referee.rl.games import GameSpec, default_players, spec
from referee.rl.players import PlayerSpec, expand, make_player

#: A game asking for more commands than this is stopped (no real game does).
MAX_COMMANDS = 200_000


@dataclass(frozen=True)
class Interval:
    """A mean and its 95 % normal confidence interval.

    >>> Interval.of([1.0, 0.0, 1.0, 1.0]).mean
    0.75
    """

    mean: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Interval:
        mean = statistics.fmean(values)
        half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0
        return cls(mean, mean - half, mean + half, len(values))

    def __str__(self) -> str:
        return f"{self.mean:+.3f} [{self.low:+.3f}, {self.high:+.3f}] (n={self.n})"


@dataclass
class Side:
    """How one player (the policy or the baseline) did over the deals."""

    reward: Interval
    win_rate: Interval
    per_deal: list[float] = field(repr=False)


@dataclass
class Evaluation:
    game: str
    players: int
    opponents: list[str]
    deals: int
    games: int
    policy: Side
    baseline: Side | None = None
    baseline_name: str | None = None
    #: Per-deal policy reward minus baseline reward.
    difference: Interval | None = None

    def summary(self) -> str:
        lines = [
            f"{self.game}, {self.players} players, against {', '.join(self.opponents)}: "
            f"{self.deals} duplicate deals, {self.games} games per side",
            f"  policy   reward {self.policy.reward}  win rate {self.policy.win_rate}",
        ]
        if self.baseline is not None and self.difference is not None:
            lines.append(
                f"  {self.baseline_name:8} reward {self.baseline.reward}  "
                f"win rate {self.baseline.win_rate}"
            )
            verdict = "beats" if self.difference.low > 0 else "does not clearly beat"
            lines.append(
                f"  difference {self.difference}: the policy {verdict} {self.baseline_name}"
            )
        return "\n".join(lines)


def labels(players: Sequence[PlayerSpec]) -> list[str]:
    """A name per player: a strategy's own, ``policy N`` for the N-th distinct policy object
    (the same object twice plays alike, so seatings that swap the two are played once).

    >>> me = lambda obs: 0
    >>> labels([me, "random", me, lambda obs: 1])
    ['policy 0', 'random', 'policy 0', 'policy 1']
    """
    policies: list[PlayerSpec] = []
    names = []
    for player in players:
        if isinstance(player, str):
            names.append(player)
            continue
        number = next((i for i, known in enumerate(policies) if known is player), len(policies))
        if number == len(policies):
            policies.append(player)
        names.append(f"policy {number}")
    return names


def arrangements(players: int, labels: Sequence[str]) -> list[tuple[int, ...]]:
    """The seatings of the tournament's duplicate schedule (``row[seat]`` = index into
    ``labels``, 0 the policy), one of each arrangement of distinct labels.

    >>> arrangements(3, ["me", "random", "random"])
    [(0, 1, 2), (1, 0, 2), (1, 2, 0)]
    """
    rows: list[tuple[int, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for row in seatings(players):
        key = tuple(labels[b] for b in row)
        if key not in seen:
            seen.add(key)
            rows.append(row)
    return rows


def play_game(
    game: GameSpec, seed: bytes, row: Sequence[int], bots: Sequence[PlayerSpec]
) -> tuple[int, Any]:
    """One game of a deal; returns the seat of bot 0 and its result."""
    table = Table.create(game.game, game.players, game.options, seed=seed)
    seats = {
        s: make_player(bots[b], game, random.Random(seed + b"/%d" % s)) for s, b in enumerate(row)
    }
    for _ in range(MAX_COMMANDS):
        results = table.results()
        if results is not None:
            seat = row.index(0)
            return seat, results[seat]
        seat = table.pending()[0]
        table.submit(seat, seats[seat].choose(table, seat))
    raise RuntimeError(f"{game.game}: no result after {MAX_COMMANDS} commands")


def _side(
    game: GameSpec, deals: list[bytes], rows: list[tuple[int, ...]], bots: list[PlayerSpec]
) -> Side:
    per_deal, wins = [], []
    for seed in deals:
        rewards, won = [], []
        for row in rows:
            _, result = play_game(game, seed, row, bots)
            rewards.append(game.reward(result.rank, game.players))
            won.append(1.0 if result.rank == 1 else 0.0)
        per_deal.append(statistics.fmean(rewards))
        wins.append(statistics.fmean(won))
    return Side(Interval.of(per_deal), Interval.of(wins), per_deal)


def evaluate(
    policy: PlayerSpec,
    game: str,
    players: int | None = None,
    opponents: PlayerSpec | Sequence[PlayerSpec] = "random",
    deals: int = 100,
    options: Mapping[str, str] | None = None,
    seed: int | str = 0,
    baseline: str | None = "random",
) -> Evaluation:
    """``policy`` (a policy callable or a strategy name) against ``opponents`` over ``deals``
    duplicate deals; see the module."""
    if deals < 1:
        raise ValueError("deals must be at least 1")
    if players is None:
        players = default_players(game)
    chosen = spec(game, players, options)
    others = expand(opponents, players - 1)
    bots: list[PlayerSpec] = [policy, *others]
    names = labels(bots)
    rows = arrangements(players, names)
    seeds = [f"{seed}/deal/{d}".encode() for d in range(deals)]
    mine = _side(chosen, seeds, rows, bots)
    result = Evaluation(
        game=game,
        players=players,
        opponents=names[1:],
        deals=deals,
        games=deals * len(rows),
        policy=mine,
    )
    if baseline is not None:
        theirs = _side(chosen, seeds, rows, [baseline, *others])
        result.baseline, result.baseline_name = theirs, baseline
        result.difference = Interval.of(
            [a - b for a, b in zip(mine.per_deal, theirs.per_deal, strict=True)]
        )
    return result
