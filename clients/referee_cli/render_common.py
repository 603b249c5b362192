"""What every game's text shares: seat names, final standings, and :class:`GameText`, the
entry a game adds to :data:`referee_cli.render.GAMES` to be drawn and narrated."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from referee.v1 import referee_pb2

View = referee_pb2.View
Event = referee_pb2.Event
Command = referee_pb2.Command


def _never(event: Event, view: View) -> bool:
    return False


@dataclass(frozen=True)
class GameText:
    """The text functions of one game (pure: proto messages in, strings out)."""

    #: Display name, e.g. "Vampire Queen".
    name: str
    #: The game's field in the ``game`` oneof of View, Event and Command.
    field: str
    #: The whole screen of a view.
    render_view: Callable[[View], str]
    #: One line for an event (with the view right after it and the viewer's seat), or None.
    describe_event: Callable[[Event, View | None, int | None], str | None]
    #: A legal command in words, for the menu.
    describe_command: Callable[[Command, View | None], str]
    #: True when a spectator should see the whole screen after this event (e.g. a round end).
    redraw_for_spectator: Callable[[Event, View], bool] = _never
    #: For long menus asked in two steps: the label of a command's group (commands with the
    #: same label are chosen among in the second step), or None for a command of its own.
    menu_group: Callable[[Command, View | None], str | None] | None = None


def seat_name(seat: int, me: int | None = None) -> str:
    """``seat 2``, or ``seat 2 (you)`` for the viewer's own seat."""
    return f"seat {seat} (you)" if seat == me else f"seat {seat}"


def join_names(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 card``, ``3 cards``."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def viewer(view: View) -> int | None:
    """The seat the view is for, None for a spectator."""
    return view.seat if view.HasField("seat") else None


def render_results(view: View, unit: str = "points") -> str:
    """Final standings, best first."""
    me = viewer(view)
    lines = ["Final standings:"]
    for result in sorted(view.results, key=lambda r: (r.rank, r.seat)):
        lines.append(f"  {result.rank}. {seat_name(result.seat, me):<15} {result.score:>4} {unit}")
    return "\n".join(lines)
