"""Standings: openskill ratings with their uncertainty, win rates with Wilson intervals,
mean ranks and scores, how often each bot left a game before its end, and every bot's faults.

Every rank is the referee's (:class:`~referee_tournament.records.SeatRecord`: the one rule,
which ranks a seat that left below every seat that finished); nothing here ranks a seat.

Ratings use openskill's Plackett-Luce model, built by :mod:`referee.ratings_model` as the
referee's own persisted ratings build it (a Bayesian rating for games of any number of
players, TrueSkill-like: ``mu`` the skill estimate, ``sigma`` its uncertainty; the
**ordinal** ``mu - 3 sigma`` is what the standings sort by: a bot ranks high only once the
rating is sure of it). Every rated game is one update with the seats' ranks (equal ranks are
ties), folded in the games' schedule order: the same games give the same ratings whatever
order they finished in.

>>> low, high = wilson(8, 10)
>>> round(low, 3), round(high, 3)
(0.49, 0.943)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.ratings_model import plackett_luce
from referee_tournament.records import GameRecord

#: z for a 95% interval.
Z95 = 1.959963984540054


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) without trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Standing:
    bot: str
    games: int = 0
    #: Games finished at rank 1 (a shared first place counts).
    wins: int = 0
    win_low: float = 0.0
    win_high: float = 1.0
    mean_rank: float | None = None
    mean_score: float | None = None
    mu: float = 0.0
    sigma: float = 0.0
    #: Swiss points (Swiss format only).
    points: float | None = None
    #: Fault kind -> count (crash, hang, game_timeout, absent; rejected, timeout, disconnect
    #: when the referee counts them).
    faults: dict[str, int] = field(default_factory=dict)
    #: Games this bot did not finish (resigned, forfeited on time, abandoned, absent): each
    #: ranked below every seat that finished, by the referee.
    left: int = 0
    #: Those games by how the seat ended (``resigned``, ``forfeited``, ``abandoned``,
    #: ``absent``).
    ends: dict[str, int] = field(default_factory=dict)
    #: Decisions the referee made for it by default (timeouts, the plays of a seat it left).
    default_moves: int = 0
    #: Games it never sat down for (scored no-shows and void games alike).
    absences: int = 0
    place: int = 0
    #: Mean decision time in ms as the referee measured it (None when it does not).
    decision_ms_mean: float | None = None

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "place": self.place,
            "bot": self.bot,
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 6),
            "win_rate_ci95": [round(self.win_low, 6), round(self.win_high, 6)],
            "mean_rank": None if self.mean_rank is None else round(self.mean_rank, 6),
            "mean_score": None if self.mean_score is None else round(self.mean_score, 6),
            "rating": {
                "mu": round(self.mu, 6),
                "sigma": round(self.sigma, 6),
                "ordinal": round(self.ordinal, 6),
            },
            "points": None if self.points is None else round(self.points, 6),
            "faults": dict(sorted(self.faults.items())),
            "left": self.left,
            "ends": dict(sorted(self.ends.items())),
            "timeouts": self.faults.get("timeout", 0),
            "default_moves": self.default_moves,
            "absences": self.absences,
            "decision_ms_mean": (
                None if self.decision_ms_mean is None else round(self.decision_ms_mean, 3)
            ),
        }


def standings(
    bots: Sequence[str],
    records: Iterable[GameRecord],
    *,
    points: Mapping[str, float] | None = None,
) -> list[Standing]:
    """The standings of ``bots`` over ``records`` (rated ones only), best first."""
    model = plackett_luce()  # the referee's persisted ratings use the same model
    ratings = {name: model.rating(name=name) for name in bots}
    table = {name: Standing(bot=name) for name in bots}
    ranks: Counter[str] = Counter()
    scores: Counter[str] = Counter()
    scored: Counter[str] = Counter()
    decided: Counter[str] = Counter()
    decision_ms: Counter[str] = Counter()
    for record in sorted(records, key=lambda r: r.spec.index):
        for fault in record.faults:
            faults = table[fault.bot].faults
            faults[fault.kind] = faults.get(fault.kind, 0) + fault.count
            if fault.kind == "absent":
                table[fault.bot].absences += 1
        if not record.rated:
            continue
        seats = sorted(record.seats, key=lambda s: s.seat)
        for seat in seats:
            row = table[seat.bot]
            row.games += 1
            row.wins += seat.rank == 1
            ranks[seat.bot] += seat.rank
            row.default_moves += seat.default_moves
            if seat.score is not None and seat.finished:
                scores[seat.bot] += seat.score
                scored[seat.bot] += 1
            if not seat.finished:
                row.left += 1
                row.ends[seat.end] = row.ends.get(seat.end, 0) + 1
            if seat.commands is not None and seat.decision_ms is not None:
                decided[seat.bot] += seat.commands
                decision_ms[seat.bot] += seat.decision_ms
        teams = [[ratings[seat.bot]] for seat in seats]
        updated = model.rate(teams, ranks=[float(seat.rank) for seat in seats])
        for seat, team in zip(seats, updated, strict=True):
            ratings[seat.bot] = team[0]
    for name, row in table.items():
        row.mu = float(ratings[name].mu)
        row.sigma = float(ratings[name].sigma)
        row.win_low, row.win_high = wilson(row.wins, row.games)
        if row.games:
            row.mean_rank = ranks[name] / row.games
        if scored[name]:
            row.mean_score = scores[name] / scored[name]
        if decided[name]:
            row.decision_ms_mean = decision_ms[name] / decided[name]
        if points is not None:
            row.points = points.get(name, 0.0)
    order = {name: i for i, name in enumerate(bots)}
    if points is not None:
        key: Any = lambda r: (-(r.points or 0.0), -r.ordinal, order[r.bot])  # noqa: E731
    else:
        key = lambda r: (-r.ordinal, order[r.bot])  # noqa: E731
    result = sorted(table.values(), key=key)
    for place, row in enumerate(result, 1):
        row.place = place
    return result
