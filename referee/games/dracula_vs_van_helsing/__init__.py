"""Dracula vs Van Helsing (``shared/rules/dracula-vs-van-helsing.md``, DV-1 ... DV-26)."""

from referee.engine.registry import register
from referee.games.dracula_vs_van_helsing.model import *  # noqa: F403 (the wire vocabulary)
from referee.games.dracula_vs_van_helsing.rules import (
    DraculaVsVanHelsing,
    DraculaVsVanHelsingState,
)

GAME = register(DraculaVsVanHelsing())

__all__ = ["GAME", "DraculaVsVanHelsing", "DraculaVsVanHelsingState"]
