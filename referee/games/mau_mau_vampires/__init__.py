"""Mau Mau Vampires (``docs/rules/mau-mau-vampires.md``, MM-1 ... MM-28).

Importing this package reads and checks the character data file (``characters.json``, MM-4):
a malformed file fails here, at start-up, with a message naming the entry.
"""

from referee.games.mau_mau_vampires.model import *  # noqa: F403 (the wire vocabulary)
from referee.games.mau_mau_vampires.rules import MauMauVampires
from referee.games.mau_mau_vampires.state import MauMauVampiresState

#: The rules, found by the registry (referee.engine.registry).
GAME = MauMauVampires()

__all__ = ["GAME", "MauMauVampires", "MauMauVampiresState"]
