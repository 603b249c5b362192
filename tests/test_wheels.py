"""The pure wheel (``make wheels``), installed in a virtualenv of its own, serves the games'
rules pages and the built web client, as a checkout does: both travel in the wheel as package
data (``deploy/compiled/build.sh``, :mod:`referee.shipped`). The compiled wheel is built by the
same script; tests/test_compiled.py checks what it carries, and the compiled stage runs the
served-path tests on it.

The virtualenv reads the dependencies from this test's own environment (a path file, without
that environment's editable install) and the ``referee`` package only from the wheel.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WEB_BUILD = ROOT / "clients" / "web" / "dist"
SERVICE = "referee.v1.RefereeService"


def _run(command: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=cwd)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return done.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv with the pure wheel built from the working tree installed in it."""
    if not (WEB_BUILD / "index.html").is_file():
        if os.environ.get("CI") == "true":
            pytest.fail("the web client is not built (make web): the wheel cannot carry it")
        pytest.skip("the web client is not built (make web)")
    folder = tmp_path_factory.mktemp("wheel")
    _run([str(ROOT / "deploy/compiled/build.sh"), str(ROOT), str(folder), sys.executable, "pure"])
    (wheel,) = (folder / "dist").glob("*.whl")
    env = folder / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(env)])
    python = env / "bin" / "python"
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    # A plain path line: the dependencies (and pip), not this environment's .pth files.
    Path(purelib.strip(), "dependencies.pth").write_text(
        sysconfig.get_path("purelib") + "\n", encoding="utf-8"
    )
    # --ignore-installed: where the dependencies' folder holds an installed referee (the
    # compiled stage's), pip would otherwise count it as installed and install nothing here.
    install = ["install", "--quiet", "--no-deps", "--no-index", "--ignore-installed", str(wheel)]
    _run([str(python), "-m", "pip", *install])
    return env


@pytest.fixture(scope="module")
def served(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The installed ``referee serve`` with its HTTP port: that port's base URL."""
    here = tmp_path_factory.mktemp("serve")
    log = here / "serve.log"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "REFEREE_PURE")}
    command = [str(venv / "bin" / "referee"), "serve", "--listen", "127.0.0.1:0"]
    command += ["--store", "memory:", "--metrics", "", "--http", "127.0.0.1:0"]
    with log.open("w") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=here, env=env)
    try:
        found = None
        for _ in range(600):
            found = re.search(r"http://([0-9.]+:[0-9]+)/", log.read_text())
            if found or server.poll() is not None:
                break
            time.sleep(0.1)
        assert found, log.read_text()
        yield f"http://{found.group(1)}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_wheel_runs_its_own_package_not_the_checkout(venv: Path) -> None:
    code = "import referee.shipped as s; print(s.SHIPPED, s.SHIPPED.is_dir())"
    shipped, present = _run([str(venv / "bin" / "python"), "-c", code], cwd=venv).split()
    assert Path(shipped).is_relative_to(venv) and present == "True"


def test_an_installed_wheel_serves_the_rules_pages(served: str) -> None:
    request = urllib.request.Request(
        f"{served}/{SERVICE}/ListGameTypes",
        data=b"{}",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        game_types = json.loads(answer.read())["gameTypes"]
    assert game_types
    for game_type in game_types:
        page = ROOT / game_type["rulesPath"]
        assert game_type["rulesText"] == page.read_text(encoding="utf-8"), game_type["gameType"]


def test_an_installed_wheel_serves_the_web_client(served: str) -> None:
    with urllib.request.urlopen(f"{served}/", timeout=30) as answer:
        page = answer.read()
    assert page == (WEB_BUILD / "index.html").read_bytes()
    script = re.search(rb'src="(?:\./|/)?(assets/[^"]+\.js)"', page)
    assert script, page[:400]
    with urllib.request.urlopen(f"{served}/{script.group(1).decode()}", timeout=30) as answer:
        assert answer.read() == (WEB_BUILD / script.group(1).decode()).read_bytes()
