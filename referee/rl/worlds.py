"""Worlds for search agents: a world the environment's seat could be in, sampled from what that
seat received only (its redacted events and its view, :mod:`referee.search.worlds`), never
from the environment's true table. The environments' ``sample_world`` methods call this.
"""

from __future__ import annotations

from typing import Any

from referee.engine.table import Table
from referee.search.worlds import World, knowledge_of, sample_world


def seat_world(table: Table[Any], seat: int, seed: bytes | int | str, check: bool = False) -> World:
    """A world ``seat`` could be in: built from ``table.redacted_log(seat)`` and
    ``table.view(seat)`` (what the server streams to that seat), nothing else of ``table``.

    >>> from referee.rl import env
    >>> aec = env("vampire-queen", seed=3)
    >>> aec.reset()
    >>> world = aec.sample_world(aec.agent_selection, seed=1)
    >>> world.table().view(0) == aec.view("seat_0")
    True
    """
    return sample_world(knowledge_of(table, seat), seed, check=check)
