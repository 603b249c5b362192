"""Where ``referee-cli new`` keeps the organiser tokens of the games it creates.

The organiser token aborts a running game, reveals a deferred seed and exports the full log
(``referee verify --server``): whoever creates a game needs it afterwards, and nobody else
may read it. It is kept in ``$XDG_STATE_HOME/referee-cli/organiser-tokens.json`` (default
``~/.local/state/...``), readable by its owner only (0600, from the file's creation), in the
same form as ``referee-tournament``'s ``organiser-tokens.json``::

    {"secret": "...", "games": {"GAME_ID": "TOKEN", ...}, "servers": {"GAME_ID": "host:port"}}

so ``referee verify GAME_ID --server ADDR --organiser-token-file FILE`` reads either.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

NOTICE = "organiser tokens: whoever holds them may abort, reveal and export games"


def tokens_file() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "referee-cli" / "organiser-tokens.json"


def keep(game_id: str, token: str, server: str) -> Path:
    """Add the game's organiser token to the file (written anew, owner-only, then renamed
    over the old one, so a reader never sees half a file)."""
    path = tokens_file()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    data: dict[str, object] = {"secret": NOTICE, "games": {}, "servers": {}}
    with contextlib.suppress(OSError, ValueError):
        old = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(old, dict):
            data["games"] = dict(old.get("games") or {})
            data["servers"] = dict(old.get("servers") or {})
    games = data["games"]
    servers = data["servers"]
    assert isinstance(games, dict) and isinstance(servers, dict)
    games[game_id] = token
    servers[game_id] = server
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(data, file, indent=2)
        file.write("\n")
    os.replace(partial, path)
    return path
