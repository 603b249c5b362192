"""What the games' encoder modules (``referee/games/<game>/encoder.py``, :mod:`referee.rl.games`)
share: the fixed action enumeration, the observation layout and the rewards.

**Actions.** Every encoder module lists, for a player count and options, every command a seat
could ever be allowed to send, in a fixed order: :class:`ActionTable`. Action ``i`` is
``table.commands[i]``; the mask of a view marks the indices of ``view.legal_commands``. A
legal command the table does not list (a rule added since) is an :class:`UnmappedCommand`
error naming the encoder module to extend, never a silently shorter mask.

**Observations.** An encoder writes a fixed-size ``float32`` vector with every entry in
``[0, 1]`` from a :class:`referee.engine.View` (the seat's view, never the state): one-hot
blocks for categories, counts divided by their maximum (clipped), and seats *relative to the
viewer* (block index 0 is the viewer, 1 the next seat, ...), so that one policy can play any
seat. :class:`Layout` names the blocks, so the layout documents itself
(``referee.rl.spec("vampire-queen", 4).encoder.layout.describe()``).

>>> table = ActionTable("demo", ("a", "b", "c"))
>>> table.mask(("c", "a")).tolist(), table.command(1), table.size
([1, 0, 1], 'b', 3)
>>> table.mask(("z",))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
referee.rl.core.UnmappedCommand: demo: legal command 'z' has no action index; extend actions() ...
>>> rank_reward(1, 4), rank_reward(4, 4), rank_reward(2, 3)
(1.0, -1.0, 0.0)
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

Observation = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]
#: What an encoder writes its entries into: a sparse dict (:func:`dense`) or an array from
#: :func:`zeros`.
Entries: TypeAlias = "dict[int, float] | array[float]"


class UnmappedCommand(KeyError):
    """A legal command with no index in the game's action enumeration."""

    def __str__(self) -> str:
        return str(self.args[0])


#: Masks an :class:`ActionTable` keeps, by the set of legal actions, and the masks after which
#: it stops keeping them if most were new.
_MASK_LIMIT = 2048
_MASK_TRIAL = 1000


class ActionTable:
    """The fixed ``Discrete`` action space of one game and player count."""

    def __init__(self, module: str, commands: Sequence[Hashable]) -> None:
        self.module = module
        self.commands: tuple[Any, ...] = tuple(commands)
        self.index: dict[Any, int] = {}
        for i, command in enumerate(self.commands):
            if command in self.index:
                raise ValueError(f"{module}: command {command!r} is listed twice")
            self.index[command] = i
        self.size = len(self.commands)
        self._masks: dict[tuple[int, ...], Mask] | None = {}
        self._mask_hits = self._mask_misses = 0

    def command(self, action: int) -> Any:
        return self.commands[action]

    def action(self, command: Any) -> int:
        try:
            return self.index[command]
        except KeyError:
            raise UnmappedCommand(
                f"{self.module}: legal command {command!r} has no action index; "
                f"extend actions() in {self.module}"
            ) from None
        except TypeError:  # unhashable: not a command of this game at all
            raise UnmappedCommand(f"{self.module}: {command!r} is not a command") from None

    def indices(self, commands: Sequence[Any]) -> list[int]:
        """The action of each command (UnmappedCommand for one with none)."""
        try:
            return list(map(self.index.__getitem__, commands))
        except (KeyError, TypeError):  # name the first command without an action
            return [self.action(c) for c in commands]

    def mask(self, legal: Sequence[Any]) -> Mask:
        # A mask is written into a bytearray that numpy views: cheaper than np.zeros and fancy
        # indexing from a list. Where the same sets of legal actions come back again and again
        # (Dracula vs Van Helsing: a few dozen), each mask is also kept and copied (the caller
        # owns what it gets); where they seldom repeat (Sleeping Queens' hands) keeping them
        # costs more than it saves, so the table stops after a trial of _MASK_TRIAL masks.
        actions = self.indices(legal)
        masks = self._masks
        if masks is None:
            return self._new_mask(actions)
        key = tuple(actions)
        mask = masks.get(key)
        if mask is not None:
            self._mask_hits += 1
            return mask.copy()
        self._mask_misses += 1
        mask = self._new_mask(actions)
        if self._mask_misses + self._mask_hits >= _MASK_TRIAL and self._mask_misses > (
            self._mask_hits
        ):
            self._masks = None
        elif len(masks) < _MASK_LIMIT:
            masks[key] = mask.copy()
        return mask

    def _new_mask(self, actions: list[int]) -> Mask:
        out = bytearray(self.size)
        for action in actions:
            out[action] = 1
        return np.frombuffer(out, np.int8)


@dataclass(frozen=True)
class Block:
    name: str
    offset: int
    size: int
    doc: str


@dataclass
class Layout:
    """Named blocks of an observation vector, in order."""

    blocks: list[Block] = field(default_factory=list)
    size: int = 0

    def add(self, name: str, size: int, doc: str) -> int:
        """Append a block of ``size`` entries; returns its offset."""
        offset = self.size
        self.blocks.append(Block(name, offset, size, doc))
        self.size += size
        return offset

    def offset(self, name: str) -> int:
        """The offset of the block ``name`` (KeyError if there is none)."""
        for block in self.blocks:
            if block.name == name:
                return block.offset
        raise KeyError(f"no block {name!r}; blocks: {', '.join(b.name for b in self.blocks)}")

    def describe(self) -> str:
        """One line per block: offset, size, name and meaning (for the docs)."""
        return "\n".join(f"{b.offset:5d} {b.size:4d}  {b.name}: {b.doc}" for b in self.blocks)


def scaled(value: float, maximum: float) -> float:
    """``value / maximum`` clipped to ``[0, 1]``.

    >>> scaled(3, 12), scaled(20, 12), scaled(-1, 12)
    (0.25, 1.0, 0.0)
    """
    ratio = value / maximum
    return 0.0 if ratio < 0 else 1.0 if ratio > 1 else ratio


def squashed(value: float, half: float) -> float:
    """An unbounded non-negative count mapped into ``[0, 1)``: ``half`` maps to 0.5.

    >>> squashed(0, 50), squashed(50, 50)
    (0.0, 0.5)
    """
    value = max(value, 0.0)
    return value / (value + half)


def put_seat(x: Entries, offset: int, seat: int | None, me: int, players: int) -> None:
    """One-hot of ``seat`` relative to the viewer ``me`` in a block of ``players + 1`` entries
    (the last one: no seat)."""
    x[offset + (players if seat is None else (seat - me) % players)] = 1.0


#: An all-zero C float array of each observation size met (copied by :func:`zeros`).
_ZEROS: dict[int, array[float]] = {}


def zeros(size: int) -> array[float]:
    """A new all-zero C float array of ``size`` entries: an encoder writes its entries into it
    and hands it to :func:`finish`. Writing items of a C array is about as fast as filling a
    dict, and numpy then views it without a copy: twice as fast as fancy indexing from Python
    lists (P8 runs an encoder on every step)."""
    found = _ZEROS.get(size)
    if found is None:
        found = _ZEROS[size] = array("f", bytes(4 * size))
    return array("f", found)


def finish(out: array[float]) -> Observation:
    """The float32 observation of an array from :func:`zeros` (a view of it, no copy)."""
    return np.frombuffer(out, np.float32)  # dtype as a keyword is slower (P8)


def dense(x: dict[int, float], size: int) -> Observation:
    """The vector of ``size`` entries with ``x[i]`` at index ``i`` and 0 elsewhere.

    >>> dense({1: 0.5, 3: 1.0}, 4).tolist()
    [0.0, 0.5, 0.0, 1.0]
    """
    out = zeros(size)
    for index, value in x.items():
        out[index] = value
    return finish(out)


def rank_reward(rank: int, players: int) -> float:
    """``+1`` for rank 1, ``-1`` for the last rank, linear between (ties share a rank)."""
    return 1.0 - 2.0 * (rank - 1) / (players - 1)


def win_reward(rank: int, players: int) -> float:
    """``+1`` for a winner (rank 1, ties included), ``-1`` for everyone else."""
    return 1.0 if rank == 1 else -1.0
