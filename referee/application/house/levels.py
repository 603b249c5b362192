"""House bots' strengths and how one decides: from its seat's view only, in bounded time.

A **level** names a strength a server offers (``referee serve --house-bots easy,normal:5``),
how many accounts play it (each holds one seat of a game; :data:`DEFAULT_ACCOUNTS` unless
``:COUNT`` says) and the built-in strategy (:mod:`referee.bots`) that plays it. Adding one
is one entry of :data:`LEVELS` naming its strategy in :mod:`referee.bots`; a level whose
strategy is CPU-heavy sets ``process=True`` so it runs in a process pool rather than in a
thread that would hold the event loop's GIL.

:func:`decide` is everything a house bot knows when it moves: the engine :class:`View` its
seat's stream delivered (the same redacted view a remote bot reads back from the wire), the
number of seats and a random generator; for a level that ``knows`` (``hard``: the ``search``
strategy's ISMCTS), also the seat's :class:`~referee.search.worlds.Knowledge`, the
redacted events its session delivered with the options of the game's summary, exactly what
a remote bot's ``SeatKnowledge`` collects from its stream. It is handed no table, state or
live game, so it cannot see what its seat may not (``tests/application/test_house_bots_leak.py``
checks that two states, or two whole histories, that differ only in what the seat may not
see give the same decision).

**A searching level's budget** is CPU time: the search stops after :data:`SEARCH_SHARE` of
the per-move budget of its worker thread's CPU time (``time.thread_time``, the search's own
clock, so a loaded machine does not make it search less), the rest of the budget being the
margin for the process hop, the pickling of the knowledge and waiting for a core. The
per-move budget itself stays wall-clock: a search that has not answered by then (its worker
busy with another seat's move, say) is replaced (``budget``). ``Level.iterations`` searches
a fixed number of iterations instead (tests: the move is then reproducible).

**The replacement rule** (never silent: logged as ``house_bot_fallback`` and counted in
``referee_house_bot_fallbacks_total`` by reason): when the level's strategy raises
(``error``), takes longer than the per-move budget (``budget``), or returns a command that
is not among the view's legal commands (``illegal``), the bot plays the ``random``
strategy's choice for the same view instead (uniform among the legal commands). A command
the referee still refuses is replaced the same way once (``refused``); after that the seat
is left to the game's clock rules, as any seat that does not move.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.bots import RandomStrategy, SearchStrategy, make_strategy
from referee.engine import View, all_games
from referee.search.worlds import Knowledge

#: A house bot's per-move budget unless configured (``--house-bot-budget-ms``).
DEFAULT_BUDGET_MS = 1000
#: Accounts a level runs unless its entry says (``normal:5``): one account holds one seat of
#: a game (``ALREADY_SEATED``), and three fill a four-player table with one person at it.
DEFAULT_ACCOUNTS = 3
#: The share of the per-move budget a searching level searches for, in CPU time: the rest is
#: the margin for the process hop, the pickling and a busy machine's wait for a core.
SEARCH_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class Level:
    """A strength: its name, the built-in strategy that plays it, and where it runs."""

    name: str
    strategy: str
    #: CPU-heavy: decide in a worker process (the view is pickled there and back).
    process: bool = False
    description: str = ""
    #: How many accounts play it (``house-normal``, ``house-normal-2``, ...): a game needs
    #: one account per seat, as a seat is held by a player at most once per game.
    accounts: int = 1
    #: Decides from the seat's whole knowledge (its redacted events), not its view only: the
    #: bot keeps the events its session delivered for each seat it holds.
    knows: bool = False
    #: Search exactly this many iterations per move instead of a share of the budget in CPU
    #: time (``None``): a reproducible move, for tests and for the measurement of the levels.
    iterations: int | None = None
    #: The share of moves played uniformly at random instead of by the strategy: what sets a
    #: level between the random player and the strategy's own strength.
    blunders: float = 0.0
    #: Games where a searching level plays the game's heuristic instead, whole: where its
    #: search is not measured stronger than the heuristic, the level would otherwise not beat
    #: the one below it (docs/performance.md, "The house bots' levels").
    heuristic_in: frozenset[str] = frozenset()


#: The levels a server may offer, weakest first, each measured against the one below it
#: (and ``easy`` against the random player) in every game: ``referee bench --only LEVELS``,
#: whose figures are in docs/performance.md. A new strategy in referee/bots.py becomes a
#: level by one entry here, and its place in the order is measured there.
LEVELS: Mapping[str, Level] = {
    "easy": Level(
        "easy",
        "heuristic",
        blunders=0.7,
        description="plays the game's heuristic three moves in ten, a random legal move otherwise",
    ),
    "normal": Level(
        "normal",
        "heuristic",
        blunders=0.3,
        description="plays the game's heuristic seven moves in ten, a random legal move otherwise",
    ),
    "hard": Level(
        "hard",
        "search",
        process=True,
        knows=True,
        description="searches a tree over the hands the others could hold, guided by the "
        "game's heuristic, every move (in Sleeping Queens, plays the heuristic itself: the "
        "search does not beat it there)",
        heuristic_in=frozenset({"sleeping-queens"}),
    ),
}


def max_accounts() -> int:
    """The most accounts a level may run: the largest table of any game type but one seat
    (the person's); more could never sit at one game."""
    return max(int(game.info.max_players) for game in all_games()) - 1


def parse_levels(text: str) -> tuple[Level, ...]:
    """``"easy,normal:5"`` as levels, each with its number of accounts (``LEVEL[:COUNT]``,
    :data:`DEFAULT_ACCOUNTS` when no count; :class:`ValueError` naming an unknown level or a
    count that is not 1..:func:`max_accounts`). A level named twice keeps its first entry."""
    chosen: dict[str, Level] = {}
    for part in (part.strip() for part in text.split(",")):
        if not part:
            continue
        name, _, count_text = (p.strip() for p in part.partition(":"))
        if name not in LEVELS:
            raise ValueError(f"unknown house bot level {name!r}; choose from {', '.join(LEVELS)}")
        count = DEFAULT_ACCOUNTS
        if count_text:
            most = max_accounts()
            try:
                count = int(count_text)
            except ValueError:
                count = 0
            if not 1 <= count <= most:
                raise ValueError(
                    f"house bot level {name!r}: the count {count_text!r} must be 1..{most}"
                )
        if name not in chosen:
            chosen[name] = dataclasses.replace(LEVELS[name], accounts=count)
    return tuple(chosen.values())


def account_name(level: Level, prefix: str = "house-", index: int = 1) -> str:
    """The player account that plays ``level`` as its ``index``-th account (``house-easy``,
    then ``house-easy-2``, ...): the first keeps the plain name, so a level of one account
    is named as before."""
    return f"{prefix}{level.name}" if index <= 1 else f"{prefix}{level.name}-{index}"


def account_names(level: Level, prefix: str = "house-") -> tuple[str, ...]:
    """Every account of ``level``, in order."""
    return tuple(account_name(level, prefix, i) for i in range(1, level.accounts + 1))


def choose(
    strategy: str,
    view: View,
    players: int,
    seed: int,
    knowledge: Knowledge | None = None,
    millis: float = 0.0,
    iterations: int | None = None,
    blunders: float = 0.0,
) -> Any:
    """The strategy's choice for ``view``: what a worker runs (a module-level function, so a
    process pool can run it: its arguments are pickled, the seat's redacted events and view,
    never a table). With ``knowledge``, a search strategy searches ``millis`` of its thread's
    CPU time or ``iterations`` iterations. A share ``blunders`` of the moves is uniformly
    random among the legal commands instead (drawn first, from the same seed)."""
    rng = random.Random(seed)
    if blunders and rng.random() < blunders:
        return RandomStrategy().choose(view, players, rng)
    if knowledge is None:
        return make_strategy(strategy, view.game_type).choose(view, players, rng)
    if knowledge.view != view:
        raise ValueError("the knowledge is not of the view decided on")
    if strategy != "search":
        raise ValueError(f"the strategy {strategy!r} does not decide from knowledge")
    return SearchStrategy(view.game_type, millis, iterations).choose_known(knowledge, rng)


def arguments_of(
    level: Level,
    view: View,
    players: int,
    seed: int,
    knowledge: Knowledge | None,
    budget_ms: float,
) -> tuple[Any, ...]:
    """:func:`choose`'s arguments for ``level`` (positional: what a pool's worker is given).

    >>> from referee.engine import Table
    >>> view = Table.create("sleeping-queens", 2, seed=b"levels").view(0)
    >>> arguments_of(LEVELS["hard"], view, 2, 1, None, 500)[0]
    'heuristic'
    """
    if view.game_type in level.heuristic_in:
        return ("heuristic", view, players, seed, None, 0.0, None, 0.0)
    searching = level.knows
    return (
        level.strategy,
        view,
        players,
        seed,
        knowledge if searching else None,
        budget_ms * SEARCH_SHARE if searching else 0.0,
        level.iterations if searching else None,
        level.blunders,
    )


@dataclass(frozen=True, slots=True)
class Decision:
    """What a house bot plays: the command, how long the level took, and why it was
    replaced (``""``: it was not)."""

    command: Any
    seconds: float
    fallback: str = ""


class Deciders:
    """The pools the levels decide in: a small thread pool, and a process pool started on
    first use by a ``process`` level."""

    def __init__(self, threads: int = 2, processes: int = 1) -> None:
        self.threads = concurrent.futures.ThreadPoolExecutor(threads, "house-bot")
        self._processes = processes
        self._process_pool: concurrent.futures.ProcessPoolExecutor | None = None

    def pool(self, level: Level) -> concurrent.futures.Executor:
        if not level.process:
            return self.threads
        if self._process_pool is None:
            self._process_pool = concurrent.futures.ProcessPoolExecutor(self._processes)
        return self._process_pool

    def close(self) -> None:
        # Do not wait: a strategy that overran its budget may still be running, and its
        # answer is wanted by no one.
        self.threads.shutdown(wait=False, cancel_futures=True)
        if self._process_pool is not None:
            self._process_pool.shutdown(wait=False, cancel_futures=True)


async def decide(
    level: Level,
    view: View,
    players: int,
    rng: random.Random,
    budget_ms: int,
    deciders: Deciders | None = None,
    knowledge: Knowledge | None = None,
) -> Decision:
    """``level``'s command for ``view`` within ``budget_ms``, or the replacement rule's (see
    the module's docstring). Draws one seed from ``rng`` for the strategy, and (when it
    falls back) one choice, so a seeded ``rng`` gives a reproducible decision. A level that
    ``knows`` needs the seat's ``knowledge`` (of this very view): without it, it is replaced
    (``error``: the bot missed some of the seat's events)."""
    seed = rng.getrandbits(64)
    started = time.perf_counter()
    reason = ""
    command: Any = None
    arguments = arguments_of(level, view, players, seed, knowledge, budget_ms)
    try:
        if level.knows and knowledge is None:
            raise ValueError("the seat's events are incomplete")
        if deciders is None:
            command = choose(*arguments)
        else:
            loop = asyncio.get_running_loop()
            work = loop.run_in_executor(deciders.pool(level), choose, *arguments)
            command = await asyncio.wait_for(work, budget_ms / 1000)
    except TimeoutError:
        reason = "budget"
    except Exception:
        reason = "error"
    seconds = time.perf_counter() - started
    if not reason and seconds * 1000 > budget_ms:
        reason = "budget"  # decided in-line (no pool), but too slowly
    if not reason and command not in view.legal_commands:
        reason = "illegal"
    if reason:
        command = RandomStrategy().choose(view, players, rng)
    return Decision(command, seconds, reason)


__all__ = [
    "DEFAULT_ACCOUNTS",
    "DEFAULT_BUDGET_MS",
    "LEVELS",
    "SEARCH_SHARE",
    "Deciders",
    "Decision",
    "Level",
    "account_name",
    "account_names",
    "arguments_of",
    "choose",
    "decide",
    "max_accounts",
    "parse_levels",
]
