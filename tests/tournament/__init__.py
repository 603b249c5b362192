"""Tests of referee-tournament (clients/referee_tournament), the bot SDK and the Node.js bot."""

import sys
from pathlib import Path

# The clients install as top-level packages; from a plain checkout, find them in clients/.
_CLIENTS = str(Path(__file__).resolve().parents[2] / "clients")
if _CLIENTS not in sys.path:
    sys.path.insert(0, _CLIENTS)
