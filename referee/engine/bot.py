"""What a game's bot is, and the helpers the games' bots share.

A game's package may hold a heuristic player over engine values, ``bot.py`` exposing ``BOT``
(found by :func:`referee.engine.registry.game_module` under
:data:`~referee.engine.registry.BOT`): an object whose ``choose(view, players)`` returns one of
``view.legal_commands`` from the seat's :class:`~referee.engine.View` (never empty when it is
asked) and the table's size, reading the view's values (the game's model classes), never the
state. A bot is a function of what its seat may know and has no random generator: the same
view always gets the same answer (the rules modules are sans-I/O, ``random`` included). A game
without one is played at random (:mod:`referee.bots`, the strategies by name).

>>> from referee.engine import Table
>>> table = Table.create("vampire-queen", 3, seed=b"docs")
>>> seat = table.pending()[0]
>>> game_bot("vampire-queen").choose(table.view(seat), 3) in table.legal_commands(seat)
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from referee.engine.registry import BOT, game_module
from referee.engine.table import View


class Bot(Protocol):
    """A game's heuristic player (its package's ``bot.BOT``)."""

    def choose(self, view: View, players: int) -> Any:
        """One of ``view.legal_commands`` for the viewer of ``view`` at a table of ``players``."""


def game_bot(type_id: str) -> Bot | None:
    """The bot of the game's package, or ``None`` when it has none (:class:`KeyError` for an
    unknown game, :class:`TypeError` for a ``bot`` module without a ``BOT`` that chooses)."""
    module = game_module(type_id, BOT)
    if module is None:
        return None
    bot = getattr(module, "BOT", None)
    if not callable(getattr(bot, "choose", None)):
        raise TypeError(f"{module.__name__} must expose BOT, an object with choose(view, players)")
    return bot


def seat_of(view: View) -> int:
    """The viewer's seat; 0 for a spectator's view (the message's default, which the bots have
    always read)."""
    return view.viewer or 0


def argmax(commands: Sequence[Any], value: Callable[[Any], float]) -> Any:
    """The first command of the highest value (ties within 1e-9: the canonical order).

    >>> argmax(["a", "b", "c"], {"a": 1.0, "b": 2.0, "c": 2.0}.get)
    'b'
    """
    best, best_value = commands[0], float("-inf")
    for command in commands:
        v = value(command)
        if v > best_value + 1e-9:
            best, best_value = command, v
    return best
