"""Dracula vs Van Helsing (``docs/rules/dracula-vs-van-helsing.md``, DV-1 ... DV-26)."""

from referee.games.dracula_vs_van_helsing.model import *  # noqa: F403 (the wire vocabulary)
from referee.games.dracula_vs_van_helsing.rules import (
    DraculaVsVanHelsing,
    DraculaVsVanHelsingState,
)

#: The rules, found by the registry (referee.engine.registry).
GAME = DraculaVsVanHelsing()

__all__ = ["GAME", "DraculaVsVanHelsing", "DraculaVsVanHelsingState"]
