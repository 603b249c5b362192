"""Independent copies of an environment's parts, for search (which copies a position for
every simulation).

``copy.deepcopy`` of an environment costs milliseconds, most of it in copying what never
changes during play: the game's spec and action table, and the Gymnasium spaces' bounds. The
environments' ``copy()`` copies what play changes (the table by
:meth:`~referee.engine.table.Table.copy`, the histories, the per-agent dicts) and shares the
rest. A space is shared state only through its random generator (``space.seed`` and
``space.sample``), so a copy gets the space's own bounds and a generator of its own: none, to
be made on first use as for a fresh space, or a copy of the original's once it was seeded.

>>> from gymnasium import spaces
>>> space = spaces.Discrete(5)
>>> twin = copy_space(space)
>>> twin is not space and twin == space and not seeded(twin)
True
>>> _ = space.seed(3)
>>> twin = copy_space(space)
>>> bool(twin.sample() == space.sample())
True
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any, TypeVar

from gymnasium import spaces

from referee.engine import Table
from referee.rl.infostate import HistoryKeeper

SpaceT = TypeVar("SpaceT", bound="spaces.Space[Any]")


def _inner(space: spaces.Space[Any]) -> Iterable[spaces.Space[Any]]:
    """The spaces a Dict or Tuple space holds (none for the others)."""
    inner = space.__dict__.get("spaces")
    return inner.values() if isinstance(inner, dict) else inner if isinstance(inner, tuple) else ()


def seeded(space: spaces.Space[Any]) -> bool:
    """Whether ``space`` (or a space inside a Dict or Tuple) holds a random generator."""
    return space._np_random is not None or any(map(seeded, _inner(space)))


def copy_space(space: SpaceT) -> SpaceT:
    """An independent ``space``: a deep copy once seeded (the generator's state copied), else a
    shallow one without a generator (the bounds, never changed in place, shared)."""
    if seeded(space):
        return copy.deepcopy(space)
    return _unseeded(space)


def _unseeded(space: SpaceT) -> SpaceT:
    # The instance dict copied, not copy.copy: its reduce and setstate cost ten times more.
    twin = object.__new__(type(space))
    twin.__dict__.update(space.__dict__)
    inner = space.__dict__.get("spaces")
    if isinstance(inner, dict):
        twin.__dict__["spaces"] = {key: _unseeded(value) for key, value in inner.items()}
    elif isinstance(inner, tuple):
        twin.__dict__["spaces"] = tuple(map(_unseeded, inner))
    return twin


def copy_spaces(by_agent: dict[str, SpaceT]) -> dict[str, SpaceT]:
    """Each agent's space copied (:func:`copy_space`)."""
    return {agent: copy_space(space) for agent, space in by_agent.items()}


def copy_episode(
    table: Table[Any] | None, histories: HistoryKeeper | None
) -> tuple[Table[Any] | None, HistoryKeeper | None]:
    """An environment's episode copied: its table (:meth:`Table.copy`) and the seats'
    histories, following the copy (none before the first reset)."""
    if table is None:
        return None, None
    twin = table.copy()
    return twin, histories.copy(twin) if histories is not None else None


__all__ = ["copy_episode", "copy_space", "copy_spaces", "seeded"]
