"""The web client in a real browser: Debian's Chromium, driven by playwright-core from Node's
test runner (clients/web/tests/*.test.mjs), against a real referee on ephemeral ports.

Each test file is one test here. Without node, the built page (``make web``) or chromium the
tests are skipped with a message, except in CI (``CI=true``), where they must run.
Screenshots go to ``test-results/web/`` (``SCREENSHOT_DIR``), which .ci/run lists.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.application.players.accounts import PlayerSettings
from referee.application.tables.limits import AddressLimits
from referee.server.app import RefereeServer, running_server

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "test-results" / "web"))
#: The server's own bot players (``referee serve --house-bots``): the tests know their names.
HOUSE_BOTS = "easy:2,normal:2"
FILES = sorted(p.name for p in (WEB / "tests").glob("*.test.mjs"))


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not (WEB / "node_modules" / "playwright-core").is_dir():
        return "clients/web has no node_modules (make web)"
    if not (WEB / "dist" / "index.html").is_file():
        return "the web client is not built (make web)"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    missing = _missing()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests cannot run in CI: {missing}")
        pytest.skip(f"browser tests skipped: {missing}")
    # Open registration: the lobby tests sign two browsers in by name (Register). House bots
    # (two accounts of each level): the house-bot tests reserve seats for them, fill a table
    # with them and are paired with one after a short wait.
    # Every browser of every file comes from 127.0.0.1: no per-address budget either (as for a
    # benchmark's clients; the limits have tests of their own).
    players = PlayerSettings(
        open_registration=True,
        registrations_per_minute=0,
        calls_per_minute=0,
        per_address=AddressLimits(0, 0, 0, 0),
    )
    with running_server(
        store="memory:",
        http="127.0.0.1:0",
        grace_seconds=1.0,
        players=players,
        house_bots=HOUSE_BOTS,
        house_bots_pair_after=2.0,
    ) as running:
        yield running


@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", FILES)
def test_in_chromium(server: RefereeServer, name: str) -> None:
    assert server.http is not None
    SHOTS.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "REFEREE_URL": f"http://{server.http.address}",
        # The bots test starts `referee-bot player` (the Python SDK) on the gRPC port.
        "REFEREE_GRPC": str(server.address),
        "REFEREE_PYTHON": sys.executable,
        "SCREENSHOT_DIR": str(SHOTS),
        "CHROMIUM": CHROMIUM,
        "REFEREE_HOUSE_BOTS": HOUSE_BOTS,
    }
    result = subprocess.run(
        ["node", "--test", "--test-concurrency=1", f"tests/{name}"],
        cwd=WEB,
        env=env,
        capture_output=True,
        text=True,
        timeout=840,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]


def test_every_browser_test_file_is_collected() -> None:
    expected = {
        "games",
        "reload",
        "spectator",
        "reject",
        "docs",
        "replay",
        "lobby",
        "bots",
        "table",
        "housebots",
        "offline",
        "links",
        "resign",
        "ratings",
    }
    assert {f"{name}.test.mjs" for name in expected} <= set(FILES)
