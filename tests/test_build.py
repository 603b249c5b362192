"""Which build runs (:mod:`referee.build`), without a C compiler: a copy of the package given
the record a compiled build carries (``referee/_compiled.py``) for one module whose extension
is not there. Importing it is an error that says what to do, never the pure source in silence;
``REFEREE_PURE=1`` runs its source. The compiled build itself: tests/test_compiled.py."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import referee
from referee import build
from referee.metrics import Metrics

ROOT = Path(__file__).resolve().parents[1]
#: A module nothing imports when the package is imported.
RECORDED = "referee.engine.words"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package whose record names :data:`RECORDED` as compiled."""
    folder = tmp_path_factory.mktemp("recorded")
    shutil.copytree(
        ROOT / "referee", folder / "referee", ignore=shutil.ignore_patterns("__pycache__")
    )
    source = folder / "referee/engine/words.py"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    (folder / "referee/_compiled.py").write_text(
        f"SHARED = ''\nMODULES = {{{RECORDED!r}: {digest!r}}}\n", encoding="utf-8"
    )
    return folder


def run(folder: Path, code: str, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", build.PURE)}
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(folder), **environ},
        cwd=folder,
        timeout=120,
    )


def test_the_pure_source_says_it_is_pure() -> None:
    if build.current().installed:
        pytest.skip("this runs the compiled build (its own test: tests/test_compiled.py)")
    assert build.current() == build.Build("pure", (), ())
    sample = Metrics().registry.get_sample_value(
        "referee_build_info", {"build": "pure", "version": referee.__version__}
    )
    assert sample == 1


def test_a_recorded_module_without_its_extension_is_an_error_that_says_what_to_do(
    recorded: Path,
) -> None:
    done = run(recorded, "import referee")
    assert done.returncode != 0
    assert f"ImportError: {RECORDED} is recorded as compiled but its extension is missing" in (
        done.stderr
    )
    assert "rebuild with `make compiled`, or set REFEREE_PURE=1" in done.stderr


def test_referee_pure_runs_the_source_of_a_recorded_module(recorded: Path) -> None:
    code = (
        f"import {RECORDED} as m, referee.build as b; "
        "print(m.__file__); print(b.current().describe())"
    )
    done = run(recorded, code, REFEREE_PURE="1")
    assert done.returncode == 0, done.stderr
    path, described = done.stdout.splitlines()
    assert Path(path) == recorded / "referee/engine/words.py"
    assert (
        described == "pure build (REFEREE_PURE=1: the compiled build installed here is set aside)"
    )


def test_referee_pure_takes_one_or_nothing(recorded: Path) -> None:
    done = run(recorded, "import referee", REFEREE_PURE="yes")
    assert done.returncode != 0
    assert "REFEREE_PURE='yes': set it to 1 (the pure source) or leave it unset" in done.stderr
