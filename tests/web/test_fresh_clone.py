"""A newcomer's first five minutes, as the README has them: a fresh clone, ``make run``, then in
Chromium the home page's first game, one click, against one of the server's own bots, played
on the drawn table to the end.

``make run`` installs only what serving and playing need (the dependencies, no extra): none
of the test, tournament, learning or PostgreSQL extras' packages are in the clone's venv. How long
it takes and how big the venv is are measured, not asserted (README, "Set up").

Without git, node or chromium the test is skipped with a message, except in CI (``CI=true``),
where it must run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
#: The packages of the other extras: a lean ``make run`` installs none of them.
NOT_FOR_PLAYING = ("scipy", "matplotlib", "mypy", "numpy", "pettingzoo", "psycopg", "hypothesis")

FIRST_GAME = """
import { launch, ready, playOnTable } from "%(browser)s";
const base = process.env.REFEREE_URL;
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
const errors = [];
page.on("pageerror", (e) => errors.push(e.message));
await page.goto(`${base}/#/`);
await ready(page);
const first = page.locator("button.quick-play").first();
const game = await first.getAttribute("data-game");
await first.click();
await page.waitForURL(/#\\/seat\\//, { timeout: 60000 });
await ready(page);
const opponents = await page.locator(".felt .seat-box:not(.mine) .seat-player").allInnerTexts();
const made = await playOnTable(page, {
  clock: false,
  pick: (choices) => {
    const plays = choices.filter((c) => c.hand.length);
    const from = plays.length ? plays : choices;
    return from[Math.floor(Math.random() * from.length)];
  },
});
const headline = await page.locator(".end-banner h2").innerText({ timeout: 60000 });
console.log(JSON.stringify({ game, opponents, made, headline, errors }));
await browser.close();
"""


def _missing() -> str | None:
    for tool in ("git", "make", "node", "npm"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM}"
    if not (ROOT / ".git").exists():
        return f"{ROOT} is not a git checkout"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, Path]]:
    """A fresh clone of this checkout's HEAD, served by its own ``make run``: the clone,
    the HTTP address, and the server's output."""
    missing = _missing()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the fresh clone test cannot run in CI: {missing}")
        pytest.skip(f"fresh clone test skipped: {missing}")
    where = tmp_path_factory.mktemp("fresh") / "repo"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(where)], check=True, timeout=300)
    http = f"127.0.0.1:{_free_port()}"
    ports = [
        f"ADDR=127.0.0.1:{_free_port()}",
        f"HTTP={http}",
        f"METRICS=127.0.0.1:{_free_port()}",
    ]
    output = where.parent / "make-run.log"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    with output.open("w") as log:
        # Its own process group: the make, the venv's server and whatever they started stop
        # together at the end.
        process = subprocess.Popen(
            ["make", "run", *ports], cwd=where, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    started = time.monotonic()
    try:
        while "referee listening on " not in output.read_text():
            if process.poll() is not None:
                raise AssertionError(
                    f"make run ended ({process.returncode}):\n{output.read_text()[-4000:]}"
                )
            if time.monotonic() - started > 900:
                raise AssertionError(
                    f"make run was not serving after 900 s:\n{output.read_text()[-4000:]}"
                )
            time.sleep(1)
        print(f"fresh clone: make run served after {time.monotonic() - started:.0f} s")
        yield where, http, output
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.mark.timeout(1200)
def test_make_run_installs_only_what_serving_and_playing_need(
    clone: tuple[Path, str, Path],
) -> None:
    where, _, output = clone
    banner = output.read_text()
    # The banner: where to play, the house bots, open registration, commands that run.
    assert "  play in a browser: http://" in banner
    assert "  house bots (accounts): easy (3), normal (3), hard (3)" in banner
    assert "  registration: open: " in banner
    assert "  try: .venv/bin/referee-cli new " in banner
    site = next((where / ".venv" / "lib").glob("python3*/site-packages"))
    installed = {p.name.split("-")[0].lower() for p in site.iterdir()}
    assert not installed & set(NOT_FOR_PLAYING), sorted(installed & set(NOT_FOR_PLAYING))
    size = sum(p.stat().st_size for p in (where / ".venv").rglob("*") if p.is_file())
    print(f"fresh clone: .venv holds {size / 2**20:.0f} MiB")


@pytest.mark.timeout(1200)
def test_the_home_pages_first_game_is_against_a_house_bot_and_is_played_to_the_end(
    clone: tuple[Path, str, Path],
) -> None:
    where, http, _ = clone
    web = where / "clients" / "web"
    script = where.parent / "first-game.mjs"
    script.write_text(FIRST_GAME % {"browser": (web / "tests" / "browser.mjs").as_uri()})
    played = subprocess.run(
        ["node", str(script)],
        cwd=web,
        env=dict(os.environ, REFEREE_URL=f"http://{http}", CHROMIUM=CHROMIUM),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert played.returncode == 0, played.stdout[-3000:] + played.stderr[-3000:]
    result = json.loads(played.stdout.strip().splitlines()[-1])
    assert result["opponents"] == ["house-easy"], result
    assert result["made"] > 0
    assert result["headline"].startswith("You "), result["headline"]
    assert result["errors"] == []
