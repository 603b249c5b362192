"""Fixtures of the tournament tests: a referee on an ephemeral port, the bots' command lines."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.server.app import running_server

ROOT = Path(__file__).resolve().parents[2]
NODE_BOT = ROOT / "clients" / "node-bot"
FLAKY = Path(__file__).resolve().parent / "flaky_bot.py"
SEAT_ARGS = "--server={server} --game-id={game_id} --token={token} --seed={seed}"


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    with running_server(store="memory:") as server:
        yield str(server.address)


def node_ready() -> str | None:
    """Why the Node.js bot cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (NODE_BOT / "node_modules" / "@game-referee" / "sdk" / "dist" / "index.js").is_file():
        return "clients/node-bot has no built SDK in node_modules (run: make node-bot)"
    return None


@pytest.fixture
def node_bot() -> dict[str, object]:
    """The Node.js bot's config entry; skipped without node (a failure on CI, which has it)."""
    reason = node_ready()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the Node.js bot: {reason}")
        pytest.skip(reason)
    return {"name": "node", "command": f"node {NODE_BOT / 'index.js'} {SEAT_ARGS}"}


def flaky_bot(name: str, mode: str, after: int = 1) -> dict[str, object]:
    return {
        "name": name,
        "command": [
            sys.executable,
            str(FLAKY),
            *SEAT_ARGS.split(),
            f"--mode={mode}",
            f"--after={after}",
        ],
    }
