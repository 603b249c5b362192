"""Worlds a seat could be in: complete states sampled from one seat's own information.

Information-set search (ISMCTS, PIMC, determinised MCTS) needs *determinisations*: complete
states that a seat cannot tell apart from the real one. :func:`sample_world` builds one from
what the seat received only, its :class:`Knowledge` (the public setup, its redacted event log
and its current view), never from the true state; over the wire the SDK rebuilds the same
knowledge from the seat's stream (``referee_bot.worlds``).

A sampled :class:`World` is a whole history: the game's events with every hidden part filled
in, the state they fold into and a fresh seed for the chance still to come. Redacting its
events for the seat gives back exactly the events the seat received, and its view for the
seat is the seat's view, legal commands included (:func:`check_world` says what differs).

**What "uniform" means.** Every game deals by shuffling. A world is drawn uniformly among the
shuffles (and hidden choices, such as which card was given away) under which every move the
seat saw, as it saw it, was legal and gave exactly what the seat saw: the moves are held
fixed, the chance is the unknown. So a card another seat played must have been in its hand
when it played it, and a move the rules force (a hand that must follow, a draw only for a
player who cannot play) excludes the cards it would have been impossible with. Each game's
``worlds`` module says what its observations rule out, rule by rule.

Each game package provides the sampler as its module :data:`MODULE` (``worlds.py``), found by
:func:`referee.engine.registry.game_module` as the encoder and the bot are, so a fifth game
adds its own. The module's contract is one function::

    def sample(knowledge: Knowledge, config: GameConfig, rng: Chance) -> list[Event]

the game's events (table events left out) with the hidden parts filled in, one for each game
event of ``knowledge.events`` and in that order; ``config`` is the world's (the seat's setup
with a fresh seed). The engine puts the table events back, folds the events into a state and,
unless told not to, checks the result against the knowledge.

>>> from referee.engine.table import Table
>>> table = Table.create("vampire-queen", players=3, seed=b"doc")
>>> known = knowledge_of(table, 0)
>>> world = sample_world(known, b"one")
>>> world.table().view(0) == table.view(0)
True
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from referee.engine.chance import _FOUR_WORDS, _LIMIT
from referee.engine.game import Command, Event, GameConfig, Seat
from referee.engine.registry import game_module, get_game
from referee.engine.table import Table, View
from referee.engine.table_events import TableEvent

T = TypeVar("T")

#: The module of a game package that holds its world sampler (``sample``).
MODULE = "worlds"


class Chance:
    """A seeded source of chance for sampling (sans-I/O: no ``random``), the same stream as
    :mod:`referee.engine.chance` derives its shuffles from (``_stream(seed, b"worlds")``).

    A sampler draws hundreds of times per world (a Mau Mau Vampires sample about seven
    thousand), so the stream is read here from one digest's four words at a time rather than
    through ``chance``'s generators: the same numbers, a third of the calls.

    >>> rng = Chance(b"seed")
    >>> sorted(rng.shuffled(range(4)))
    [0, 1, 2, 3]
    >>> Chance(b"seed").below(10) == Chance(b"seed").below(10)
    True
    """

    __slots__ = ("_counter", "_index", "_prefix", "_words")

    def __init__(self, seed: bytes | int | str) -> None:
        if isinstance(seed, int):
            seed = seed.to_bytes(16, "big", signed=True)
        elif isinstance(seed, str):
            seed = seed.encode()
        self._prefix = seed + b"worlds"
        self._counter = 0
        self._words: tuple[int, ...] = ()
        self._index = 4  # no word read yet: the first draw hashes block 0

    def _next(self) -> int:
        """The stream's next 8-byte word."""
        index = self._index
        if index >= len(self._words):
            self._refill()
            index = 0
        self._index = index + 1
        return self._words[index]

    def _refill(self) -> None:
        block = self._prefix + self._counter.to_bytes(8, "big")
        self._words = _FOUR_WORDS.unpack(hashlib.sha256(block).digest())
        self._counter += 1
        self._index = 0

    def below(self, n: int) -> int:
        """An integer in ``range(n)``, uniformly (``chance._below``'s rejection rule)."""
        if not 0 < n <= _LIMIT:
            raise ValueError(f"cannot draw below {n}: n must be in 1..2**64")
        cutoff = _LIMIT - (_LIMIT % n)
        while True:
            index = self._index
            if index >= 4:
                self._refill()
                index = 0
            self._index = index + 1
            x = self._words[index]
            if x < cutoff:
                return x % n

    def random(self) -> float:
        """A float in ``[0, 1)``."""
        return self._next() / 2**64

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffled(self, items: Any) -> list[Any]:
        """A uniformly shuffled copy (Fisher-Yates)."""
        deck = list(items)
        # The draws of ``below(i + 1)`` inline (a sampler shuffles a hundred small lists
        # per world): ``i + 1`` is far below 2**64, so its rejection bound is computed here.
        words, index = self._words, self._index
        for i in range(len(deck) - 1, 0, -1):
            n = i + 1
            cutoff = _LIMIT - (_LIMIT % n)
            while True:
                if index >= 4:
                    self._refill()
                    words, index = self._words, 0
                x = words[index]
                index += 1
                if x < cutoff:
                    break
            j = x % n
            deck[i], deck[j] = deck[j], deck[i]
        self._index = index
        return deck

    def seed(self) -> bytes:
        """32 fresh bytes (a world's seed for its future chance)."""
        return b"".join(self._next().to_bytes(8, "big") for _ in range(4))


@dataclass(frozen=True, slots=True)
class Knowledge:
    """Everything one seat knows: the public setup, the events it received (redacted for it,
    table events included, in order) and its current view (legal commands included)."""

    game_type: str
    players: int
    options: Mapping[str, str]
    seat: Seat
    events: tuple[Event, ...]
    view: View

    @property
    def game_events(self) -> list[Event]:
        """The game's own events (table events left out)."""
        return [event for event in self.events if not isinstance(event, TableEvent)]

    @property
    def legal(self) -> tuple[Command, ...]:
        return self.view.legal_commands


@dataclass(slots=True)
class World:
    """A complete history the seat cannot tell from the real one: its config (a fresh seed),
    every event unredacted, and the state they fold into."""

    config: GameConfig
    events: tuple[Event, ...]
    state: Any = field(repr=False)

    def table(self) -> Table[Any]:
        """A table of this world, ready to play on (a search's root)."""
        table: Table[Any] = Table(get_game(self.config.game_type), self.config)
        table.extend(self.events)
        return table


class WorldMismatch(AssertionError):
    """A sampled world the seat could tell from its own (a sampler's bug)."""


def knowledge_of(table: Table[Any], seat: Seat) -> Knowledge:
    """The knowledge of ``seat`` at ``table``: what the server streams to it."""
    config = table.config
    return Knowledge(
        config.game_type,
        config.players,
        dict(config.options),
        seat,
        tuple(table.redacted_log(seat)),
        table.view(seat),
    )


def sample_world(knowledge: Knowledge, seed: bytes | int | str, *, check: bool = True) -> World:
    """A world the seat could be in, drawn from its knowledge only (seeded: the same seed,
    the same world). ``check`` verifies it against the knowledge (:func:`check_world`)."""
    module = game_module(knowledge.game_type, MODULE)
    if module is None:
        raise LookupError(f"{knowledge.game_type} has no world sampler ({MODULE}.py)")
    rng = Chance(seed)
    config = GameConfig(
        knowledge.game_type, knowledge.players, dict(knowledge.options), rng.seed(), None, b""
    )
    filled = iter(module.sample(knowledge, config, rng))
    events = tuple(
        event if isinstance(event, TableEvent) else next(filled) for event in knowledge.events
    )
    if next(filled, None) is not None:
        raise WorldMismatch("the sampler returned more events than the seat received")
    game = get_game(knowledge.game_type)
    state = game.new_state(config)
    apply = game.apply
    for event in events:
        if not isinstance(event, TableEvent):
            state = apply(state, event)
    world = World(config, events, state)
    if check:
        check_world(world, knowledge)
    return world


def check_world(world: World, knowledge: Knowledge) -> None:
    """Raise :class:`WorldMismatch` naming the first difference the seat could see between
    ``world`` and what it knows (an event, the view, the legal commands)."""
    table = world.table()
    seat = knowledge.seat
    if len(world.events) != len(knowledge.events):
        raise WorldMismatch(
            f"{len(world.events)} events, the seat received {len(knowledge.events)}"
        )
    for number, (event, seen) in enumerate(zip(world.events, knowledge.events, strict=True), 1):
        if table.redact(event, seat) != seen:
            raise WorldMismatch(f"event {number}: {table.redact(event, seat)!r} != {seen!r}")
    view = table.view(seat)
    if view != knowledge.view:
        raise WorldMismatch(f"the view differs:\n{view!r}\n{knowledge.view!r}")


# --- dealing cards into places under bounds ----------------------------------------------


def deal_rows(
    rng: Chance,
    cards: Sequence[T],
    sizes: Sequence[int],
    *,
    low: Sequence[Mapping[T, int]] | None = None,
    high: Sequence[Mapping[T, int]] | None = None,
    steps: int | None = None,
) -> list[list[T]]:
    """Deal ``cards`` into rows of ``sizes`` (their sum is ``len(cards)``), uniformly among
    the deals in which row ``r`` holds at least ``low[r][c]`` and at most ``high[r][c]``
    copies of card ``c`` (cards not named: no bound).

    Rows start with their lower bounds and the rest dealt at random; a chain of random swaps
    of two cards between rows (a swap that breaks a bound is not made) then mixes the deal.
    The swaps are a symmetric proposal over the physical cards, so the chain's stationary
    law is uniform over the deals within the bounds; ``steps`` (default ``4 n ln n``) is far
    past its mixing time. Without bounds the deal is a plain shuffle. :class:`ValueError` if
    the bounds' start cannot be made.

    >>> rows = deal_rows(Chance(1), "aabbc", [2, 3], low=[{"c": 1}, {}])
    >>> "c" in rows[0] and sorted(rows[0] + rows[1]) == list("aabbc")
    True
    """
    if sum(sizes) != len(cards):
        raise ValueError(f"{len(cards)} cards for rows of {sum(sizes)}")
    bounded = bool(low and any(low)) or bool(high and any(high))
    if not bounded:
        deck = rng.shuffled(cards)
        rows, at = [], 0
        for size in sizes:
            rows.append(deck[at : at + size])
            at += size
        return rows
    lows = [dict(bound) for bound in low] if low else [{} for _ in sizes]
    highs = [dict(bound) for bound in high] if high else [{} for _ in sizes]
    rest = list(cards)
    rows = []
    for size, bound in zip(sizes, lows, strict=True):
        row: list[T] = []
        for card, count in bound.items():
            for _ in range(count):
                if card not in rest:
                    raise ValueError(f"no card {card!r} left for a lower bound")
                rest.remove(card)
                row.append(card)
        if len(row) > size:
            raise ValueError("a row's lower bounds exceed its size")
        rows.append(row)
    rest = rng.shuffled(rest)
    for row, size in zip(rows, sizes, strict=True):
        while len(row) < size:
            row.append(rest.pop())
    counts = [_counts(row) for row in rows]
    if not all(_within(c, lo, hi) for c, lo, hi in zip(counts, lows, highs, strict=True)):
        _repair(rng, rows, counts, lows, highs)
    slots = [(r, i) for r, row in enumerate(rows) for i in range(len(row))]
    n = len(slots)
    if steps is None:
        steps = int(4 * n * math.log(max(n, 2))) + 10
    for _ in range(steps):
        ra, ia = slots[rng.below(n)]
        rb, ib = slots[rng.below(n)]
        if ra == rb:
            continue
        a, b = rows[ra][ia], rows[rb][ib]
        if a == b or not _may_swap(counts, lows, highs, ra, a, rb, b):
            continue
        rows[ra][ia], rows[rb][ib] = b, a
        _move(counts[ra], a, b)
        _move(counts[rb], b, a)
    return rows


def _counts(row: Sequence[T]) -> dict[T, int]:
    counts: dict[T, int] = {}
    for card in row:
        counts[card] = counts.get(card, 0) + 1
    return counts


def _within(counts: Mapping[T, int], low: Mapping[T, int], high: Mapping[T, int]) -> bool:
    return all(counts.get(c, 0) >= n for c, n in low.items()) and all(
        counts.get(c, 0) <= n for c, n in high.items()
    )


def _move(counts: dict[T, int], out: T, into: T) -> None:
    counts[out] -= 1
    counts[into] = counts.get(into, 0) + 1


def _may_swap(
    counts: list[dict[T, int]],
    lows: list[dict[T, int]],
    highs: list[dict[T, int]],
    ra: int,
    a: T,
    rb: int,
    b: T,
) -> bool:
    """Whether row ``ra`` may give ``a`` for ``b`` and row ``rb`` ``b`` for ``a``."""
    return (
        counts[ra][a] - 1 >= lows[ra].get(a, 0)
        and counts[ra].get(b, 0) + 1 <= highs[ra].get(b, math.inf)
        and counts[rb][b] - 1 >= lows[rb].get(b, 0)
        and counts[rb].get(a, 0) + 1 <= highs[rb].get(a, math.inf)
    )


def _repair(
    rng: Chance,
    rows: list[list[T]],
    counts: list[dict[T, int]],
    lows: list[dict[T, int]],
    highs: list[dict[T, int]],
) -> None:
    """Swap cards until every row is within its upper bounds (the lower ones hold already):
    a card over a row's bound goes to a row that may take it, for a card it may give."""
    for _ in range(100 * sum(len(row) for row in rows) + 100):
        over = [
            (r, card)
            for r, hi in enumerate(highs)
            for card, n in hi.items()
            if counts[r].get(card, 0) > n
        ]
        if not over:
            return
        ra, a = rng.choice(over)
        moves = [
            (rb, ib)
            for rb, row in enumerate(rows)
            if rb != ra
            for ib, b in enumerate(row)
            if b != a
            and counts[rb][b] - 1 >= lows[rb].get(b, 0)
            and counts[rb].get(a, 0) + 1 <= highs[rb].get(a, math.inf)
            and counts[ra].get(b, 0) + 1 <= highs[ra].get(b, math.inf)
        ]
        if not moves:
            break
        rb, ib = rng.choice(moves)
        b = rows[rb][ib]
        ia = rows[ra].index(a)
        rows[ra][ia], rows[rb][ib] = b, a
        _move(counts[ra], a, b)
        _move(counts[rb], b, a)
    raise ValueError("no deal within the bounds")


def check_game_sampler(type_id: str) -> Callable[..., Any] | None:
    """The ``sample`` function of a game's :data:`MODULE`, or ``None`` if it has none."""
    module = game_module(type_id, MODULE)
    return None if module is None else module.sample


__all__ = [
    "MODULE",
    "Chance",
    "Knowledge",
    "World",
    "WorldMismatch",
    "check_game_sampler",
    "check_world",
    "deal_rows",
    "knowledge_of",
    "sample_world",
]
