"""A search player over one seat's knowledge (issue 22 section 3): determinised Monte Carlo.

Perfect-information Monte Carlo (PIMC) with a bandit at the root: the seat's legal commands
are the same in every world it could be in (they are part of its view), so they are the arms.
Each iteration takes a world sampled from the seat's :class:`~referee.engine.worlds.Knowledge`
(:func:`~referee.engine.worlds.sample_world`, without its check: the samplers' property tests
check them, and the check costs as much as the sampling), picks an arm by UCB1, plays it on a
:class:`~referee.engine.search.SearchTable` of the world and plays the game out with the
game's heuristic bot for every seat (with a little randomness, so that the playouts of one
world differ). The reward is the seat's final rank, scaled to [0, 1]. The command chosen is
the arm played most.

Why this shape and not a tree: the games are long (tens to hundreds of decisions) and a
sampled world costs milliseconds, so within a tenth of a second there are tens of playouts,
not thousands; a tree below the root would hold one visit per node. A world is reused for
several playouts (``reuse``) because sampling one costs more than playing one out.

**Its own information only.** Everything the search reads comes from the knowledge (the
view, the redacted events, the public setup) and its seeded :class:`Chance`; the true state
is never reached. So two positions that differ only in what the seat cannot see get the same
decision from the same seed and iteration budget (``tests/engine/test_pimc.py``).

The engine is sans-I/O: the budget is a callable ``stop(iterations)`` the caller supplies
(a clock lives in :mod:`referee.bots`, outside the engine).

>>> from referee.engine.table import Table
>>> from referee.engine.worlds import knowledge_of
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
from dataclasses import dataclass
from typing import Any

from referee.engine.bot import Bot, game_bot
from referee.engine.game import Command, Rejection, Seat
from referee.engine.registry import BOT, game_module, get_game
from referee.engine.search import SearchTable
from referee.engine.table import View
from referee.engine.worlds import Chance, Knowledge, sample_world

#: A playout longer than this many decisions is stopped and scored as a draw (0.5): no game
#: here comes near it; it bounds a search against a game that loops.
MAX_PLAYOUT = 2000


@dataclass(frozen=True, slots=True)
class Settings:
    """How the search spends its budget."""

    #: Playouts per sampled world (a world costs more to sample than to play out).
    reuse: int = 4
    #: The UCB1 exploration constant, for rewards in [0, 1].
    exploration: float = 0.7
    #: The chance that a playout's move is random rather than the heuristic's.
    epsilon: float = 0.1
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
    visits: int = 0
    total: float = 0.0


def search(
    knowledge: Knowledge,
    rng: Chance,
    stop: Callable[[int], bool],
    settings: Settings | None = None,
) -> Command:
    """The command the seat of ``knowledge`` should play: one of ``knowledge.legal``.

    ``stop(n)`` is asked before each iteration with the number done; at least one iteration
    per command is played when the budget allows, and the first command is the answer to a
    budget that allows none."""
    legal = knowledge.legal
    if len(legal) == 1:
        return legal[0]
    arms = [Arm(command) for command in legal]
    search_arms(knowledge, rng, stop, arms, settings or settings_for(knowledge.game_type))
    return best(arms).command


def best(arms: list[Arm]) -> Arm:
    """The arm played most (ties: the higher mean, then the canonical order)."""
    top = arms[0]
    for arm in arms[1:]:
        if (arm.visits, _mean(arm)) > (top.visits, _mean(top)):
            top = arm
    return top


def _mean(arm: Arm) -> float:
    return arm.total / arm.visits if arm.visits else 0.0


def search_arms(
    knowledge: Knowledge,
    rng: Chance,
    stop: Callable[[int], bool],
    arms: list[Arm],
    settings: Settings = Settings(),
) -> int:
    """Play iterations into ``arms`` until ``stop`` says so; the number played."""
    seat = knowledge.seat
    bot = game_bot(knowledge.game_type)
    game = get_game(knowledge.game_type)
    done = 0
    root: SearchTable[Any] | None = None
    while not stop(done):
        if root is None or done % settings.reuse == 0:
            world = sample_world(knowledge, rng.seed(), check=False)
            # The world's state is ours alone: the search table may own it.
            root = SearchTable(game, world.config, world.state)
        arm = _pick(arms, done, settings.exploration)
        table = root.fork()
        try:
            table.step(seat, arm.command)
        except Rejection:
            # The world disagrees with the seat's legal commands: a sampler's bug, never the
            # search's to hide; a command the world refuses is worth nothing here.
            arm.visits += 1
            done += 1
            continue
        arm.total += playout(table, seat, bot, rng, settings.epsilon, settings.horizon == "round")
        arm.visits += 1
        done += 1
    return done


def _pick(arms: list[Arm], done: int, exploration: float) -> Arm:
    """UCB1: an unplayed arm first (in order), then the highest upper bound."""
    for arm in arms:
        if arm.visits == 0:
            return arm
    log_n = math.log(done + 1)
    top, top_bound = arms[0], -1.0
    for arm in arms:
        bound = arm.total / arm.visits + exploration * math.sqrt(log_n / arm.visits)
        if bound > top_bound:
            top, top_bound = arm, bound
    return top


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
    game_type = table.config.game_type
    game = table.game
    start = game.limit_results(table.state, players) if rounds else ()
    for _ in range(MAX_PLAYOUT):
        results = table.results()
        if results is not None:
            return reward(results, seat, players)
        if rounds:
            now = game.limit_results(table.state, players)
            if [r.score for r in now] != [r.score for r in start]:
                return standing_reward(start, now, seat, players)
        pending = table.pending()
        if not pending:
            return 0.5
        mover = pending[0]
        legal = table.legal_commands(mover)
        if not legal:
            return 0.5
        if bot is None or len(legal) == 1 or rng.random() < epsilon:
            command = legal[rng.below(len(legal))] if len(legal) > 1 else legal[0]
        else:
            view = View(
                game_type, mover, 0, pending, (), tuple(legal), table.game_view(mover), None
            )
            command = bot.choose(view, players)
        table.step(mover, command)
    return 0.5


def standing_reward(start: Any, now: Any, seat: Seat, players: int) -> float:
    """Half the seat's rank in the standing ``now``, half how its gain since ``start`` (the
    round just scored) compares with each other seat's (1 better, 0.5 equal), both in [0, 1].
    Which way is better is read off the standing (its first-ranked seat's score)."""
    scores = {r.seat: r.score for r in now}
    first = min(now, key=lambda r: r.rank)
    lower_wins = first.score == min(scores.values()) and first.score != max(scores.values())
    gains = {r.seat: scores[r.seat] - r.score for r in start}
    mine = gains[seat]
    beaten = 0.0
    for other, gain in gains.items():
        if other != seat:
            better = gain > mine if lower_wins else gain < mine
            beaten += 1.0 if better else 0.5 if gain == mine else 0.0
    return 0.5 * reward(now, seat, players) + 0.5 * beaten / max(players - 1, 1)


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
    "playout",
    "reward",
    "search",
    "search_arms",
    "settings_for",
    "standing_reward",
]
