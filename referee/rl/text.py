"""Plain text of a seat's view and its legal actions: what ``render()`` shows.

Built from the engine alone (the rules library depends on no client package): the game view's
fields one per line, enum values by name, and each legal action with its index and the label
the rules give the command (``Game.command_label``, the text the server sends next to a
view's legal commands). ``referee-cli`` draws the richer screen of a person playing.

>>> from referee.engine import Table
>>> from referee.rl import spec
>>> table = Table.create("dracula-vs-van-helsing", 2, options={"dracula": "1"}, seed=b"x")
>>> print(render_text(spec("dracula-vs-van-helsing", 2), table, 1))  # doctest: +ELLIPSIS
seat 1 (seat_1), Dracula vs Van Helsing, waiting for seat 1
  round: 1
  ...
  action 0: draw a card
"""

from __future__ import annotations

import dataclasses
import enum
import textwrap
from typing import Any

from referee.engine import Table
from referee.rl.games import GameSpec

#: Width of the view's lines (longer values wrap, indented).
WIDTH = 100


def value_text(value: Any) -> str:
    """A compact text of a view value: enums by name, dataclasses as ``Type(field=...)``,
    sequences in brackets.

    >>> from referee.games.dracula_vs_van_helsing.model import CARDS, Colour
    >>> value_text((Colour.RED, CARDS[13], None, "x"))
    "[red, Card(colour=yellow, value=3), None, 'x']"
    """
    if isinstance(value, enum.Enum):
        return value.name.lower()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        inner = ", ".join(
            f"{f.name}={value_text(getattr(value, f.name))}" for f in dataclasses.fields(value)
        )
        return f"{type(value).__name__}({inner})"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(value_text(item) for item in value) + "]"
    return repr(value)


def view_lines(game_view: Any) -> list[str]:
    """One line per field of a game view (wrapped at :data:`WIDTH`)."""
    lines: list[str] = []
    for f in dataclasses.fields(game_view):
        text = f"{f.name}: {value_text(getattr(game_view, f.name))}"
        lines += textwrap.wrap(
            text, WIDTH, initial_indent="  ", subsequent_indent="      ", break_on_hyphens=False
        )
    return lines


def render_text(game: GameSpec, table: Table[Any], seat: int) -> str:
    """A seat's view and its legal actions by index, from ``table.view(seat)`` only."""
    view = table.view(seat)
    rules = table.game
    if view.results is not None:
        status = "over: " + ", ".join(
            f"seat {r.seat} rank {r.rank} score {r.score}" for r in view.results
        )
    elif view.pending:
        status = "waiting for " + ", ".join(f"seat {s}" for s in view.pending)
    else:
        status = "nothing to decide"
    lines = [f"seat {seat} (seat_{seat}), {rules.info.name}, {status}", *view_lines(view.game)]
    for command in view.legal_commands:
        label = rules.command_label(command, view.game)
        lines.append(f"  action {game.actions.action(command)}: {label}")
    return "\n".join(lines)
