"""Vampire Queen (``docs/rules/vampire-queen.md``, VQ-1 ... VQ-22)."""

from referee.games.vampire_queen.model import *  # noqa: F403 (the wire vocabulary)
from referee.games.vampire_queen.rules import VampireQueen, VampireQueenState

#: The rules, found by the registry (referee.engine.registry).
GAME = VampireQueen()

__all__ = ["GAME", "VampireQueen", "VampireQueenState"]
