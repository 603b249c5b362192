"""A search player over one seat's knowledge: determinised Monte Carlo.

Perfect-information Monte Carlo (PIMC) over paired playouts. The seat's legal commands are
the same in every world it could be in (they are part of its view). The search samples a
world from the seat's :class:`~referee.search.worlds.Knowledge`
(:func:`~referee.search.worlds.sample_world` without its check: the samplers' property tests
check them, and the check costs as much as the sampling), and in that world plays **every**
legal command on a :class:`~referee.engine.search_table.SearchTable` fork, each followed by the
same deterministic playout: the game's heuristic bot for every seat, the world's own seed for
the chance to come. The reward is the seat's final rank scaled to [0, 1] (or, for a game of
rounds, the round's outcome: :class:`Settings`). The heuristic's own command is played unless
another beats it significantly over the worlds completed (its paired differences' mean is
``confidence`` standard errors above ``margin``: :func:`best`).

Why paired, and why the heuristic by default: a playout costs milliseconds (games run to tens
or hundreds of decisions, and the heuristic is most of a step's cost), so a tenth of a
second holds a handful of worlds, not thousands of playouts. Comparing the commands in the
same worlds under the same future cancels the luck of the deal (common random numbers), and
starting from the heuristic's choice means a search that learned too little plays no worse
than the heuristic: it deviates only where its worlds say another command does better.

**Its own information only.** Everything the search reads comes from the knowledge (the
view, the redacted events, the public setup) and its seeded :class:`Chance`; the true state
is never reached. So two positions that differ only in what the seat cannot see get the same
decision from the same seed and iteration budget (``tests/search/test_pimc.py``).

The engine is sans-I/O: the budget is a callable ``stop(playouts)`` the caller supplies
(a clock lives in :mod:`referee.bots`, outside the engine).

>>> from referee.engine.table import Table
>>> from referee.search.worlds import knowledge_of
>>> table = Table.create("vampire-queen", players=3, seed=b"doc")
>>> seat = table.pending()[0]
>>> known = knowledge_of(table, seat)
>>> command = search(known, Chance(b"s"), stop=lambda done: done >= 8)
>>> command in table.legal_commands(seat)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.engine.bot import Bot, game_bot
from referee.engine.game import Command, Rejection, Seat
from referee.engine.registry import BOT, game_module, get_game
from referee.engine.search_table import SearchTable
from referee.engine.table import View
from referee.search.worlds import Chance, Knowledge, sample_world

#: A playout longer than this many decisions is stopped and scored as a draw (0.5): no game
#: here comes near it; it bounds a search against a game that loops.
MAX_PLAYOUT = 2000


@dataclass(frozen=True, slots=True)
class Settings:
    """How the search spends its budget."""

    #: How much better (in mean reward over the worlds) a command must do than the
    #: heuristic's own to be played instead.
    margin: float = 0.0
    #: ... and by how many standard errors of the paired differences over the worlds, in
    #: at least ``min_worlds`` worlds: the best of several noisy means beats the heuristic's
    #: by chance (the winner's curse), which measured worse than the heuristic itself.
    confidence: float = 2.0
    min_worlds: int = 3
    #: ``"game"``: play out to the end; ``"round"``: stop once the game's standing (its
    #: ``limit_results`` scores) changes, a round or hand scored. A game of several rounds
    #: costs tens of milliseconds to play out, its next round's scoring a few; the command
    #: played now matters most to the round it is in.
    horizon: str = "game"


def settings_for(type_id: str) -> Settings:
    """The game's search settings: ``SEARCH`` of its bot module, or the defaults."""
    module = game_module(type_id, BOT)
    found = getattr(module, "SEARCH", None) if module is not None else None
    return found if isinstance(found, Settings) else Settings()


@dataclass(slots=True)
class Arm:
    command: Command
    worlds: int = 0
    total: float = 0.0
    #: The reward in each world, in order (paired with the other arms').
    rewards: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return self.total / self.worlds if self.worlds else 0.0


def search(
    knowledge: Knowledge,
    rng: Chance,
    stop: Callable[[int], bool],
    settings: Settings | None = None,
) -> Command:
    """The command the seat of ``knowledge`` should play: one of ``knowledge.legal``.

    ``stop(n)`` is asked before each playout with the number done; a budget that ends before
    one world is complete gets the heuristic's command."""
    legal = knowledge.legal
    if len(legal) == 1:
        return legal[0]
    settings = settings or settings_for(knowledge.game_type)
    bot = game_bot(knowledge.game_type)
    first = bot.choose(knowledge.view, knowledge.players) if bot is not None else legal[0]
    arms = [Arm(first)] + [Arm(command) for command in legal if command != first]
    search_arms(knowledge, rng, stop, arms, settings)
    return best(arms, settings).command


def best(arms: list[Arm], settings: Settings = Settings()) -> Arm:
    """The first arm (the heuristic's) unless another beats it significantly: its mean
    paired difference over the worlds exceeds ``margin`` by ``confidence`` standard errors,
    in at least ``min_worlds`` worlds; of those, the largest difference (the earlier of
    equals)."""
    base = arms[0]
    top, top_gain = base, 0.0
    n = base.worlds
    if n < max(settings.min_worlds, 2):
        return base
    for arm in arms[1:]:
        diffs = [a - b for a, b in zip(arm.rewards, base.rewards, strict=True)]
        mean = sum(diffs) / n
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
        significant = mean - settings.margin > settings.confidence * sd / math.sqrt(n) + 1e-9
        if significant and mean > top_gain + 1e-9:
            top, top_gain = arm, mean
    return top


def search_arms(
    knowledge: Knowledge,
    rng: Chance,
    stop: Callable[[int], bool],
    arms: list[Arm],
    settings: Settings = Settings(),
) -> int:
    """Play worlds into ``arms`` (every arm once per world) until ``stop`` says so; the number
    of worlds completed. A world the budget cut short counts for none of its arms."""
    seat = knowledge.seat
    bot = game_bot(knowledge.game_type)
    game = get_game(knowledge.game_type)
    rounds = settings.horizon == "round"
    done = 0
    worlds = 0
    while not stop(done):
        world = sample_world(knowledge, rng.seed(), check=False)
        # The world's state is ours alone: the search table may own it.
        root: SearchTable[Any] = SearchTable(game, world.config, world.state)
        playout_seed = rng.seed()
        rewards: list[float] = []
        for arm in arms:
            if rewards and stop(done):
                return worlds
            table = root.fork()
            try:
                table.step(seat, arm.command)
            except Rejection:
                # The world refuses a command the seat holds legal: a sampler's bug, which
                # the samplers' tests catch; here the command earns nothing in this world.
                rewards.append(0.0)
            else:
                rewards.append(playout(table, seat, bot, Chance(playout_seed), 0.0, rounds))
            done += 1
        for arm, value in zip(arms, rewards, strict=True):
            arm.worlds += 1
            arm.total += value
            arm.rewards.append(value)
        worlds += 1
    return worlds


def playout(
    table: SearchTable[Any],
    seat: Seat,
    bot: Bot | None,
    rng: Chance,
    epsilon: float,
    rounds: bool = False,
) -> float:
    """Play ``table`` to its end with ``bot`` for every seat (a random command with chance
    ``epsilon``, every time without a bot); the seat's reward in [0, 1]. With ``rounds``, stop
    when the standing first changes and score that (:func:`standing_reward`)."""
    players = table.config.players
    start = table.game.limit_results(table.state, players) if rounds else ()
    return rollout(table, bot, rng, epsilon, players, rounds, start)[seat]


def view_for(table: SearchTable[Any], mover: Seat, legal: list[Command]) -> View:
    """The mover's view of the world (what a bot reads: its game view and legal commands)."""
    config = table.config
    return View(
        config.game_type, mover, 0, table.pending(), (), tuple(legal), table.game_view(mover), None
    )


def rollout(
    table: SearchTable[Any],
    bot: Bot | None,
    rng: Chance,
    epsilon: float,
    players: int,
    rounds: bool,
    start: Any,
    cutoff: int = 0,
) -> list[float]:
    """Every seat's reward after playing on with the heuristic (ISMCTS's step 4, PIMC's playouts);
    0.5 each for a playout that cannot go on or runs past :data:`MAX_PLAYOUT`. With ``cutoff``
    above 0 the playout stops after that many decisions and the standing there is scored
    (:func:`leads`: a cheaper playout that says who leads rather than who won). ``table`` is
    left where the playout stopped, played in place (``SearchTable.play``: a move of a playout
    is never taken back, so none copies the state)."""
    game = table.game
    draw = [0.5] * players
    for _ in range(cutoff or MAX_PLAYOUT):
        results = table.results()
        if results is not None:
            return [reward(results, seat, players) for seat in range(players)]
        if rounds:
            now = game.limit_results(table.state, players)
            if [r.score for r in now] != [r.score for r in start]:
                return [standing_reward(start, now, seat, players) for seat in range(players)]
        pending = table.pending()
        if not pending:
            return draw
        mover = pending[0]
        legal = table.legal_commands(mover)
        if not legal:
            return draw
        if len(legal) == 1:
            command = legal[0]
        elif bot is None or (epsilon > 0.0 and rng.random() < epsilon):
            command = legal[rng.below(len(legal))]
        else:
            command = bot.choose(view_for(table, mover, legal), players)
        table.play(mover, command)  # never taken back: in place, no copy per move
    if cutoff:
        now = game.limit_results(table.state, players)
        return [leads(now, seat) for seat in range(players)]
    return draw


def leads(standing: Any, seat: Seat) -> float:
    """The share of the other seats ``seat`` ranks above in ``standing`` (ties count half):
    the outcome of a rollout cut off before the end.

    >>> from referee.engine.game import rank_by_score
    >>> [leads(rank_by_score([12, 5], lower_wins=False), s) for s in (0, 1)]
    [1.0, 0.0]
    >>> [leads(rank_by_score([3, 3], lower_wins=False), s) for s in (0, 1)]
    [0.5, 0.5]
    """
    ranks = {r.seat: r.rank for r in standing}
    mine = ranks[seat]
    others = [rank for other, rank in ranks.items() if other != seat]
    if not others:
        return 1.0
    return sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in others) / len(others)


def standing_reward(start: Any, now: Any, seat: Seat, players: int) -> float:
    """Half the seat's rank in the standing ``now``, half how its gain since ``start`` (the
    round just scored) compares with each other seat's (1 better, 0.5 equal), both in [0, 1].
    Which way is better is read off the standing (its first-ranked seat's score)."""
    scores = {r.seat: r.score for r in now}
    lower_wins = lower_scores_win(now)
    gains = {r.seat: scores[r.seat] - r.score for r in start}
    mine = gains[seat]
    beaten = 0.0
    for other, gain in gains.items():
        if other != seat:
            better = gain > mine if lower_wins else gain < mine
            beaten += 1.0 if better else 0.5 if gain == mine else 0.0
    return 0.5 * reward(now, seat, players) + 0.5 * beaten / max(players - 1, 1)


def lower_scores_win(standing: Any) -> bool:
    """Whether the lower score is the better in ``standing``, read off its first-ranked seat
    (a standing of equal scores says nothing: taken as higher wins).

    >>> from referee.engine.game import rank_by_score
    >>> [lower_scores_win(rank_by_score([3, 9], lower_wins=w)) for w in (True, False)]
    [True, False]
    """
    scores = [r.score for r in standing]
    first = min(standing, key=lambda r: r.rank)
    return bool(first.score == min(scores) and first.score != max(scores))


def reward(results: Any, seat: Seat, players: int) -> float:
    """The seat's rank scaled to [0, 1] (1: first, ties sharing the better rank)."""
    for result in results:
        if result.seat == seat:
            return (players - result.rank) / (players - 1) if players > 1 else 1.0
    return 0.0


__all__ = [
    "MAX_PLAYOUT",
    "Arm",
    "Settings",
    "best",
    "leads",
    "lower_scores_win",
    "playout",
    "reward",
    "rollout",
    "search",
    "search_arms",
    "settings_for",
    "standing_reward",
    "view_for",
]
