"""Cheap copies and undo for search (:mod:`referee.search`): :class:`SearchTable`.

A search (MCTS, expectimax, alpha-beta over a sampled world) copies a position thousands of
times per move and plays a few commands on each copy. A :class:`~referee.engine.table.Table`
is the wrong thing to copy: it carries the whole event log, the table's status and the
per-card commitments, and ``copy.deepcopy`` of one costs a millisecond. A search table holds
only what the rules need: the game, its config and one game state.

The one discipline that makes copies cheap: **a state held by a search table is never changed
in place**. ``step`` applies the command's events to a copy of the current state
(``Game.copy_state``, a few microseconds: the state's immutable values are shared, its small
mutable containers copied) and keeps the previous state for ``undo``. So

* ``fork()`` shares the current state and the undo chain with the new table: O(1), no copy;
* ``undo()`` puts the previous state back: O(1);
* a fork's steps never change the table it was forked from, nor the other way round.

A playout that is never taken back needs no state to go back to: ``play`` applies the
command's events in place to a state the table made itself and shares with nobody (no fork,
no undo chain; it copies the state first when it has none), so a whole playout copies the
state once, as a plain table's would.

``Table.fork()`` makes the first search table from a live table (copying its state once, as
the live table goes on changing its own in place). A search table plays the game's rules
only: it has no event log, clocks, forfeits, seed commitments or event limit, and a fork of a
table that was over (aborted, or at its event limit) stays over.

>>> from referee.engine.table import Table
>>> table = Table.create("vampire-queen", players=3, seed=b"doc")
>>> search = table.fork()
>>> seat = search.pending()[0]
>>> events = search.step(seat, search.legal_commands(seat)[0])
>>> search.depth, table.game.view(table.state, seat) == search.game_view(seat)
(1, False)
>>> search.undo()
>>> search.depth, table.game.view(table.state, seat) == search.game_view(seat)
(0, True)
"""

from __future__ import annotations

import itertools
import operator
from typing import Any, Generic, TypeVar

from referee.engine.game import (
    Command,
    Decision,
    Event,
    Game,
    GameConfig,
    Rejection,
    Seat,
    SeatResult,
    StateT,
    Viewer,
)

T = TypeVar("T")

#: An undo chain: (the state before the last step, the depth then, the chain before it), or
#: None when empty. Shared by forks (a tuple is never changed), so a fork can undo past the
#: point it was made. The tail is typed ``Any``, not ``_Chain``: mypyc recurses without end on
#: a recursive alias.
_Chain = tuple[Any, int, Any] | None


def replaced(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """``items`` with the one at ``index`` replaced by ``value``: a new tuple. A state keeps
    the containers its events seldom change as tuples, which its copies share (a step's copy
    then copies only what changes at every move), and changes one of them by this.

    >>> replaced((1, 2, 3), 1, 5)
    (1, 5, 3)
    """
    return (*items[:index], value, *items[index + 1 :])


def among(command: Command, offered: tuple[Command, ...]) -> bool:
    """Whether ``command`` is one of the objects ``offered`` (the legal commands a table gave),
    not merely equal to one: an equal command may hold other types (``True`` for ``1``), which
    only the full check refuses.

    >>> from referee.engine.game import Decision
    >>> lead = Decision(0, "lead", "VQ-6")
    >>> among(lead, (lead,)), among(Decision(0, "lead", "VQ-6"), (lead,))
    (True, False)
    """
    return any(map(operator.is_, offered, itertools.repeat(command)))


class SearchTable(Generic[StateT]):
    """A position for search: step, undo and fork in microseconds (module docstring).

    Made by :meth:`referee.engine.table.Table.fork` (or :meth:`fork` of another search
    table). ``state`` is shared with forks and the undo chain: read it, never change it.
    ``copy.copy`` and ``copy.deepcopy`` of a search table are its :meth:`fork` (its states
    are never changed in place, so sharing them is a full copy).
    """

    __slots__ = (
        "_aborted",
        "_chain",
        "_depth",
        "_halted",
        "_idle",
        "_offered",
        "_owned",
        "_state",
        "config",
        "game",
    )

    def __init__(
        self,
        game: Game[StateT, Any, Any],
        config: GameConfig,
        state: StateT,
        *,
        idle: bool = False,
        aborted: bool = False,
        halted: tuple[SeatResult, ...] | None = None,
    ) -> None:
        """A search table owning ``state`` (which nothing else may change from now on).

        ``idle``: nobody is asked anything (the table had not started, was aborted or hit its
        event limit); ``aborted``: the game was aborted (over, without results); ``halted``:
        the results the game had at its event limit."""
        self.game = game
        self.config = config
        self._state = state
        self._chain: _Chain = None
        self._depth = 0
        self._idle = idle
        self._aborted = aborted
        self._halted = halted
        #: Whether the table made ``_state`` itself and nothing else holds it (no fork, no
        #: undo chain, no caller who gave it): then :meth:`play` may change it in place.
        self._owned = False
        #: The legal commands :meth:`legal_commands` last gave, and to which seat, until the
        #: state changes: passed back, one is decided without the checks its listing settled.
        self._offered: tuple[Seat, tuple[Command, ...]] | None = None

    # --- copies ---------------------------------------------------------------------------

    def fork(self) -> SearchTable[StateT]:
        """A new search table in this position, sharing its state and undo chain: O(1)."""
        forked: SearchTable[StateT] = SearchTable(self.game, self.config, self._state)
        forked._idle = self._idle
        forked._aborted = self._aborted
        forked._halted = self._halted
        forked._chain = self._chain
        forked._depth = self._depth
        self._owned = False  # the state is the fork's too now
        return forked

    def __copy__(self) -> SearchTable[StateT]:
        return self.fork()

    def __deepcopy__(self, memo: dict[int, Any]) -> SearchTable[StateT]:
        return self.fork()

    # --- step and undo --------------------------------------------------------------------

    @property
    def state(self) -> StateT:
        """The current game state (shared: never change it)."""
        return self._state

    @property
    def depth(self) -> int:
        """How many moves were made since the first table of the line (its forks' and theirs:
        steps and plays); :meth:`undo` takes it back to what it was before the last step."""
        return self._depth

    def decide(self, seat: Seat, command: Command) -> list[Event]:
        """The events ``command`` would cause (the game's own, as ``Table.decide`` has them on
        a plain table); raises :class:`Rejection`. Changes nothing. One of the objects
        :meth:`legal_commands` gave ``seat`` in this state goes straight to the game's handler
        (``Game.decide_legal``, as on a plain table); any other command is checked in full."""
        offered = self._offered
        if offered is not None and offered[0] == seat and among(command, offered[1]):
            return self.game.decide_legal(self._state, seat, command)
        if not 0 <= seat < self.config.players:
            raise Rejection("SEAT", f"no seat {seat} at this table", "precondition")
        if self._idle:
            raise Rejection("SEARCH", "nobody is asked anything at this table", "precondition")
        return self.game.decide(self._state, seat, command)

    def step(self, seat: Seat, command: Command) -> list[Event]:
        """Decide ``command`` and apply its events to a copy of the state, keeping the
        previous state for :meth:`undo`. Returns the events; raises :class:`Rejection`
        (and then nothing changed)."""
        events = self.decide(seat, command)
        self.apply(events)
        return events

    def apply(self, events: list[Event]) -> None:
        """Apply ``events`` (a decided batch, e.g. a sampled chance outcome) to a copy of the
        state, as one step that :meth:`undo` takes back."""
        game = self.game
        before = self._state
        state = game.copy_state(before)
        apply = game.apply
        for event in events:
            state = apply(state, event)
        self._chain = (before, self._depth, self._chain)
        self._depth += 1
        self._state = state
        self._owned = True
        self._offered = None

    def play(self, seat: Seat, command: Command) -> list[Event]:
        """Decide ``command`` and apply its events, as :meth:`step` does, but not as a step to
        take back: in place, to a state this table made and shares with nobody (copied first
        when it has none). For a playout: a whole one copies the state once. :meth:`undo` after
        it goes back to the state before the last step (the plays since go with it). Returns
        the events; raises :class:`Rejection` (and then nothing changed)."""
        events = self.decide(seat, command)
        game = self.game
        state = self._state
        if not self._owned:
            state = game.copy_state(state)
            self._owned = True
        apply = game.apply
        for event in events:
            state = apply(state, event)
        self._state = state
        self._depth += 1
        self._offered = None
        return events

    def undo(self) -> None:
        """Take the last step back. Raises IndexError when there is none."""
        chain = self._chain
        if chain is None:
            raise IndexError("nothing to undo: no step since the first fork")
        self._state, self._depth, self._chain = chain
        self._owned = False  # a state of the chain, which forks may share
        self._offered = None

    # --- what the rules say now -----------------------------------------------------------

    def pending(self) -> tuple[Seat, ...]:
        return () if self._idle else self.game.pending(self._state)

    def decisions(self) -> tuple[Decision, ...]:
        return () if self._idle else self.game.decisions(self._state)

    def legal_commands(self, seat: Seat) -> list[Command]:
        """Every command ``seat`` may send now; one of them passed back to :meth:`step`,
        :meth:`play` or :meth:`decide` in this state is not checked again."""
        if self._idle:
            return []
        legal = self.game.legal_commands(self._state, seat)
        self._offered = (seat, tuple(legal)) if legal else None
        return legal

    def results(self) -> tuple[SeatResult, ...] | None:
        """The game's results, or those it had at the event limit of the table forked."""
        return self._halted if self._halted is not None else self.game.results(self._state)

    @property
    def over(self) -> bool:
        return self._aborted or self.results() is not None

    def game_view(self, viewer: Viewer) -> Any:
        """The game's view of the current state for ``viewer`` (``Game.view``)."""
        return self.game.view(self._state, viewer)


__all__ = ["SearchTable", "among", "replaced"]
