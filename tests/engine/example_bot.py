"""High Card's heuristic bot (tests/engine/example_game.py), in the shape every game's
``bot.py`` has (referee/engine/bot.py). tests/engine/test_registry.py copies it into the
temporary ``referee/games/high_card`` package as ``bot.py``; ``referee-bot``'s and the learning
environments' ``heuristic`` strategy then play it.

It plays its highest card (HC-2): every card is played in the end (HC-3), so the order never
changes a score, and the highest card first is as good as any.
"""

from __future__ import annotations

from typing import Any

from referee.engine import View


class HighCardHeuristic:
    def choose(self, view: View, players: int) -> Any:
        return max(view.legal_commands, key=lambda command: command.card)


#: The bot the registry finds.
BOT = HighCardHeuristic()
