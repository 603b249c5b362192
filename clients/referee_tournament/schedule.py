"""Who plays which seat of which deal: the three formats.

A **seating** of a table of ``n`` bots is a tuple ``row`` with ``row[seat]`` = the index of the
bot (in the table's list) that plays ``seat``; the seatings of a duplicate deal are those of
:func:`referee.engine.seatings.seatings` (every permutation up to 3 seats, a balanced Latin
square beyond), shared with :func:`referee.rl.evaluate`.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from referee.engine.seatings import seatings
from referee_tournament.config import GameEntry, TournamentConfig


@dataclass(frozen=True)
class GameSpec:
    """One game to play. ``index`` orders the games: ratings fold them in this order."""

    index: int
    entry: int
    game: str
    players: int
    options: Mapping[str, str]
    #: The CreateGame seed: the same seed gives the same deal.
    seed: str
    #: Bot name per seat.
    seating: tuple[str, ...]
    #: Deal number within the entry (duplicate: shared by every seating of the deal).
    deal: int
    #: Swiss round (from 1), 0 in the other formats.
    round: int = 0

    def bot_seed(self, seat: int) -> str:
        """The ``{seed}`` of the bot at ``seat``: fixed per game, seat and bot, and telling
        nothing about the deal's seed (an HMAC of it)."""
        return _hmac(self.seed, f"bot/{seat}/{self.seating[seat]}")[:32]

    def to_json(self) -> dict[str, object]:
        return {
            "index": self.index,
            "entry": self.entry,
            "game": self.game,
            "players": self.players,
            "options": dict(self.options),
            "seed": self.seed,
            "seating": list(self.seating),
            "deal": self.deal,
            "round": self.round,
        }


def _hmac(key: str, message: str) -> str:
    return hmac.new(key.encode(), message.encode(), hashlib.sha256).hexdigest()


def deal_seed(config: TournamentConfig, entry: int, tag: str) -> str:
    """The CreateGame seed of a deal: HMAC-SHA256 of its name under the tournament's seed, so
    nobody who does not know the tournament's seed can compute the deal (the referee's deal
    algorithm is public, docs/fairness.md).

    >>> from referee_tournament.config import parse
    >>> config = parse({"game": "vampire-queen", "players": 3, "seed": "s",
    ...                 "bots": [{"name": n, "strategy": "random"} for n in "abc"]})
    >>> deal_seed(config, 0, "d0")[:16]
    '130a6c6a052896bb'
    """
    return _hmac(config.seed, f"{entry}/{config.games[entry].game}/{tag}")


def _tables(names: Sequence[str], entry: GameEntry) -> list[tuple[str, ...]]:
    """Every group of ``players`` different bots (all of them when they fill one table)."""
    return list(itertools.combinations(names, entry.players))


def plan(config: TournamentConfig) -> list[GameSpec]:
    """Every game of a duplicate or round-robin tournament, in order.

    * ``duplicate``: for each entry, deal and table (group of bots), the deal is played once
      per seating of the table, all with the same seed; every table plays the same deals.
    * ``round-robin``: for each entry, table and seating, ``deals`` games with fresh deals.
    """
    if config.format == "swiss":
        raise ValueError("swiss tournaments are planned round by round: use SwissPlanner")
    specs: list[GameSpec] = []
    names = config.bot_names
    for entry_index, entry in enumerate(config.games):
        rows = seatings(entry.players)
        tables = _tables(names, entry)
        if config.format == "duplicate":
            for deal in range(entry.deals):
                seed = deal_seed(config, entry_index, f"d{deal}")
                for table in tables:
                    for row in rows:
                        specs.append(_spec(len(specs), entry_index, entry, seed, table, row, deal))
        else:
            game = 0
            for table in tables:
                for row in rows:
                    for _ in range(entry.deals):
                        seed = deal_seed(config, entry_index, f"g{game}")
                        specs.append(_spec(len(specs), entry_index, entry, seed, table, row, game))
                        game += 1
    return specs


def _spec(
    index: int,
    entry_index: int,
    entry: GameEntry,
    seed: str,
    table: Sequence[str],
    row: Sequence[int],
    deal: int,
    round_: int = 0,
) -> GameSpec:
    return GameSpec(
        index=index,
        entry=entry_index,
        game=entry.game,
        players=entry.players,
        options=dict(entry.options),
        seed=seed,
        seating=tuple(table[i] for i in row),
        deal=deal,
        round=round_,
    )


def game_points(players: int, rank: int) -> float:
    """Swiss points of one game: 1 for rank 1, 0 for the last rank, linear between.

    >>> game_points(4, 1), game_points(4, 4), game_points(3, 2)
    (1.0, 0.0, 0.5)
    """
    return (players - rank) / (players - 1)


@dataclass
class SwissPlanner:
    """Swiss rounds: bots meet others with about the same points so far.

    Each round, per game entry, the bots are ordered by points (then by their order in the
    config); the lowest-placed bots with the fewest byes sit out when the bots do not fill
    whole tables (a bye is worth 0.5 points per game missed); the others are seated from the
    top, each table taking the first free bot and then the free bots it has met least often.
    Every table plays the entry's deals (the same deals at every table), each deal once per
    seating, as in the duplicate format.
    """

    config: TournamentConfig
    points: dict[str, float] = field(default_factory=dict)
    byes: Counter[str] = field(default_factory=Counter)
    met: Counter[frozenset[str]] = field(default_factory=Counter)
    next_index: int = 0

    def __post_init__(self) -> None:
        self.points = {name: 0.0 for name in self.config.bot_names}

    def standings_order(self) -> list[str]:
        order = {name: i for i, name in enumerate(self.config.bot_names)}
        return sorted(self.config.bot_names, key=lambda n: (-self.points[n], order[n]))

    def pair(self, players: int) -> tuple[list[tuple[str, ...]], list[str]]:
        """(tables, bots with a bye) for one entry of the next round."""
        ranked = self.standings_order()
        spare = len(ranked) % players
        bye: list[str] = []
        if spare:
            # The fewest byes first, then the lowest placed.
            candidates = sorted(reversed(ranked), key=lambda n: (self.byes[n], -ranked.index(n)))
            bye = sorted(candidates[:spare], key=ranked.index)
        free = [n for n in ranked if n not in bye]
        tables: list[tuple[str, ...]] = []
        while free:
            table = [free.pop(0)]
            while len(table) < players:
                best = min(
                    range(len(free)),
                    key=lambda i: (sum(self.met[frozenset((free[i], m))] for m in table), i),
                )
                table.append(free.pop(best))
            tables.append(tuple(table))
        return tables, bye

    def plan_round(self, round_: int) -> tuple[list[GameSpec], dict[str, int]]:
        """The games of round ``round_`` (from 1), and the games each bye stands for."""
        specs: list[GameSpec] = []
        bye_games: Counter[str] = Counter()
        for entry_index, entry in enumerate(self.config.games):
            rows = seatings(entry.players)
            tables, bye = self.pair(entry.players)
            for name in bye:
                self.byes[name] += 1
                bye_games[name] += entry.deals * len(rows)
            for table in tables:
                for a, b in itertools.combinations(table, 2):
                    self.met[frozenset((a, b))] += 1
            for deal in range(entry.deals):
                seed = deal_seed(self.config, entry_index, f"r{round_}d{deal}")
                for table in tables:
                    for row in rows:
                        specs.append(
                            _spec(
                                self.next_index,
                                entry_index,
                                entry,
                                seed,
                                table,
                                row,
                                deal,
                                round_,
                            )
                        )
                        self.next_index += 1
        return specs, dict(bye_games)

    def record(self, ranks: Sequence[tuple[str, int, int]], bye_games: Mapping[str, int]) -> None:
        """Add a round's points: ``ranks`` holds (bot, players, rank) per game seat."""
        for name, players, rank in ranks:
            self.points[name] += game_points(players, rank)
        for name, games in bye_games.items():
            self.points[name] += 0.5 * games
