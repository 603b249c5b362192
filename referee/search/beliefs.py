"""How well a sampled world explains the other seats' recent moves.

:func:`~referee.search.worlds.sample_world` draws worlds uniformly among the shuffles under
which every move the seat saw was *legal*: it treats the other seats as if they could have
played anything. At a table of heuristic bots (or of people) they do not: a seat that kept
its queen-stealing knight for three turns probably holds no knight now. A world in which the
heuristic would have made every recent move the others made is likelier than one in which
it would have made none of them.

:func:`surprises` counts, over the other seats' last ``recent`` decisions in a world, those
where the game's heuristic, reading the mover's own view *of that world* at that point,
would have played something else. The tree search (:mod:`referee.search.ismcts`,
``Settings.infer``) weighs each world by ``tremble ** surprises``: a "trembling hand" model
in which each seat plays the heuristic's move except, with a small chance, another. Only the
recent decisions are read, because they are what a seat's hand now most depends on and
because each costs the heuristic's choice at that point.

A decision is a position where another seat was asked, had more than one legal command, and
the events that followed are all those of one of them (a forced command, a chance event or
the rest of a command's batch is no decision). Everything read is the world's own (its
events, the hidden parts filled in), so a world gets the same count whatever the true state.

>>> from referee.engine.table import Table
>>> from referee.engine.bot import game_bot
>>> from referee.search.worlds import World
>>> table = Table.create("sleeping-queens", players=3, seed=b"doc")
>>> bot = game_bot("sleeping-queens")
>>> for _ in range(12):
...     mover = table.pending()[0]
...     _ = table.submit(mover, bot.choose(table.view(mover), 3))
>>> truth = World(table.config, tuple(table.log), table.state)
>>> surprises(truth, 0, bot, 4)
0
"""

from __future__ import annotations

from typing import Any

from referee.engine.bot import Bot
from referee.engine.game import Command, Event, Game, Rejection, Seat
from referee.engine.registry import get_game
from referee.engine.search_table import SearchTable
from referee.engine.table_events import TableEvent
from referee.search.pimc import view_for
from referee.search.worlds import World


def surprises(world: World, seat: Seat, bot: Bot, recent: int) -> int:
    """How many of the last ``recent`` decisions of seats other than ``seat`` in ``world``
    the heuristic ``bot`` would have made otherwise (module docstring)."""
    if recent <= 0:
        return 0
    game: Game[Any, Any, Any] = get_game(world.config.game_type)
    players = world.config.players
    events = [event for event in world.events if not isinstance(event, TableEvent)]
    # The positions at which another seat was asked, with the event that followed: states
    # are changed in place by apply, so each is kept as a copy (a few microseconds).
    asked: list[tuple[int, Seat, Any]] = []
    state = game.new_state(world.config)
    for index, event in enumerate(events):
        pending = game.pending(state)
        if pending and pending[0] != seat:
            asked.append((index, pending[0], game.copy_state(state)))
        state = game.apply(state, event)
    found = 0
    count = 0
    for index, mover, before in reversed(asked):
        legal = game.legal_commands(before, mover)
        if len(legal) < 2:
            continue
        table: SearchTable[Any] = SearchTable(game, world.config, before)
        choice = bot.choose(view_for(table, mover, legal), players)
        if _made(game, before, mover, choice, events, index):
            found += 1
        elif any(_made(game, before, mover, command, events, index) for command in legal):
            found += 1
            count += 1
        if found >= recent:
            break
    return count


def _made(
    game: Game[Any, Any, Any],
    state: Any,
    mover: Seat,
    command: Command,
    events: list[Event],
    index: int,
) -> bool:
    """Whether the events from ``index`` on begin with all that ``command`` of ``mover`` causes
    in ``state`` (the whole batch: two commands may open alike, and the rest of a batch is no
    decision)."""
    try:
        decided = game.decide(state, mover, command)
    except Rejection:
        return False
    return bool(decided) and events[index : index + len(decided)] == decided


__all__ = ["surprises"]
