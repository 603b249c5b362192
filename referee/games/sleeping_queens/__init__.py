"""Sleeping Queens (``docs/rules/sleeping-queens.md``, SQ-1 ... SQ-19)."""

from referee.games.sleeping_queens.model import *  # noqa: F403 (the wire vocabulary)
from referee.games.sleeping_queens.rules import SleepingQueens, SleepingQueensState

#: The rules, found by the registry (referee.engine.registry).
GAME = SleepingQueens()

__all__ = ["GAME", "SleepingQueens", "SleepingQueensState"]
