"""A seat's information state: its action-observation history, as a string and a tensor
(what OpenSpiel's ``information_state_string`` / ``information_state_tensor`` give).

Built from what the seat received only: the events of the game as *redacted for that seat*
(the events a gRPC client of the seat receives), the seat's view after every command (its
observation, :mod:`referee.rl.core`) and the seat's own actions. :class:`SeatHistory` takes
those, one command at a time, and never a table or a state; the environments feed it by
replaying their episode's log on a private replica (:class:`HistoryKeeper`), so asking costs
nothing while playing and only the commands since the last question when asked.

**String**: a header line (game, players, seat), then per command a line ``> action i: label``
when the seat itself sent it, and one line per event the seat received (its text as
:func:`referee.rl.text.value_text` writes it). Two moments give the same string exactly when
the seat received the same events and sent the same actions: perfect recall.

**Tensor**: float32 of shape ``(commands + 1, size + actions + 1)``: row 0 is the seat's
observation after the deal; row ``k`` is its observation after the ``k``-th command of the
game, then the one-hot of the action the seat sent in that command (zeros when another seat
sent it) and a last entry 1 when it was the seat's. Rows hold the encoder's observation, so they
are what the seat's view shows at each moment (the string keeps every event verbatim).

>>> from referee.rl import env
>>> aec = env("dracula-vs-van-helsing", seed=7)
>>> aec.reset()
>>> agent = aec.agent_selection
>>> aec.step(int(aec.action_mask(agent).argmax()))
>>> aec.information_state_tensor(agent).shape
(2, 328)
>>> aec.information_state_string(agent).splitlines()[0]
'dracula-vs-van-helsing, 2 players, seat 0 (seat_0)'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from referee.engine import Table, View, get_game
from referee.rl.core import Observation
from referee.rl.games import GameSpec
from referee.rl.text import value_text


class SeatHistory:
    """The action-observation history of one seat, from what it received (see the module)."""

    def __init__(self, game: GameSpec, seat: int) -> None:
        self.game = game
        self.seat = seat
        self.rules = get_game(game.game)
        self.lines = [f"{game.game}, {game.players} players, seat {seat} (seat_{seat})"]
        self.rows: list[Observation] = []
        self._width = game.encoder.size + game.actions.size + 1

    def add(self, events: Sequence[Any], view: View, action: int | None, before: Any) -> None:
        """One command (or the deal, with ``action`` None and no rows yet): the events the
        seat received for it (redacted for the seat), its view after it, and the action the
        seat sent (None when another seat did); ``before`` is the seat's game view when it
        sent it (for the action's label)."""
        game = self.game
        if action is not None:
            label = self.rules.command_label(game.actions.command(action), before)
            self.lines.append(f"> action {action}: {label}")
        self.lines += [value_text(event) for event in events]
        row = np.zeros(self._width, np.float32)
        row[: game.encoder.size] = game.encoder.encode(view)
        if action is not None:
            row[game.encoder.size + action] = 1.0
            row[-1] = 1.0
        self.rows.append(row)

    def copy(self) -> SeatHistory:
        """An independent history with the same lines and rows (rows are never changed in
        place: :meth:`tensor` stacks new arrays)."""
        twin = object.__new__(SeatHistory)
        twin.__dict__.update(self.__dict__)
        twin.lines = self.lines.copy()
        twin.rows = self.rows.copy()
        return twin

    def string(self) -> str:
        return "\n".join(self.lines)

    def tensor(self) -> Observation:
        """A new array (the caller owns it)."""
        return np.stack(self.rows)


class HistoryKeeper:
    """The seats' histories of one episode, fed from its log on a private replica.

    The environment records each command as it is played (:meth:`played`: who, which action,
    the log's length after it); a history is brought up to date only when asked for. The
    replica is this object's own (one per seat asked about), rebuilt from the table's config,
    and lives as long as the episode (the environment makes a new keeper on reset).
    """

    def __init__(self, game: GameSpec, table: Table[Any]) -> None:
        self.game = game
        self.table = table
        self.opening = len(table.log)
        #: (seat, action, log length after the command), in the order played.
        self.commands: list[tuple[int, int, int]] = []
        self._seats: dict[int, tuple[Table[Any], SeatHistory, list[int]]] = {}

    def copy(self, table: Table[Any]) -> HistoryKeeper:
        """An independent keeper for ``table``, a copy of this keeper's table (an environment's
        :meth:`copy`): the commands and the seats' replicas and histories copied."""
        twin = object.__new__(HistoryKeeper)
        twin.game, twin.table, twin.opening = self.game, table, self.opening
        twin.commands = self.commands.copy()
        twin._seats = {
            seat: (replica.copy(), history.copy(), done.copy())
            for seat, (replica, history, done) in self._seats.items()
        }
        return twin

    def played(self, seat: int, action: int) -> None:
        self.commands.append((seat, action, len(self.table.log)))

    def history(self, seat: int) -> SeatHistory:
        found = self._seats.get(seat)
        if found is None:
            table = self.table
            replica: Table[Any] = Table(table.game, table.config, table.settings)
            opening = table.log[: self.opening]
            replica.extend(opening)
            history = SeatHistory(self.game, seat)
            redact = replica.redact
            history.add([redact(e, seat) for e in opening], replica.view(seat), None, None)
            found = self._seats[seat] = (replica, history, [0])
        replica, history, done = found
        log = self.table.log
        for who, action, end in self.commands[done[0] :]:
            start = len(replica.log)
            before = replica.view(seat).game if who == seat else None
            events = log[start:end]
            replica.extend(events)
            redacted = [replica.redact(e, seat) for e in events]
            history.add(redacted, replica.view(seat), action if who == seat else None, before)
        done[0] = len(self.commands)
        return history
