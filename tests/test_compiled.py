"""The compiled build (``make compiled``, docs/performance.md): the same source, its games'
rules, the engine's per-command path and the codec compiled by mypyc, imports, makes the same
field plans as the pure source, plays a game of each type exactly as the pure source does and
copies and pickles its values as the pure source does. It says it is compiled; with
``REFEREE_PURE=1`` it runs the source beside its extensions; a stale or missing extension is
an error that says what to do (:mod:`referee.build`).

The wheel is built here from the working tree into a temporary folder by the script
``make compiled`` runs (with a quicker C build of the same code), then imported ahead of the
editable install, in a child process; the same child runs on the pure source to compare.
``REFEREE_COMPILED_WHEEL`` names a wheel already built (CI's, by ``make compiled``) to test in
its place; it must have been built from this working tree, or the tests fail and say so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    shutil.which(os.environ.get("CC", "cc")) is None,
    reason="no C compiler here: the compiled build (make compiled) cannot be built",
)

#: Plays each game type to its end with seeded random legal commands and prints, as JSON,
#: each game's moves and results, every value class's field plan and which modules are
#: compiled.
PLAY = r"""
import copy, json, pickle, random
import referee.engine.fields as fields
from referee.engine.registry import all_games, game_module
from referee.engine.table import Table
from referee.engine.table_events import TableSettings

out = {"compiled": {}, "games": {}}
for module in (fields, *(game_module(g.info.type_id, "rules") for g in all_games())):
    out["compiled"][module.__name__] = not module.__file__.endswith(".py")
for game in all_games():
    info = game.info
    # A refereed table (its settings: deck commitments, the referee's openings), as served.
    table = Table.create(
        info.type_id, info.min_players, seed=b"compiled", settings=TableSettings(), salt=b"s"
    )
    chooser = random.Random(7)
    moves = []
    while not table.over and len(moves) < 5000:
        seat = table.pending()[0]
        command = chooser.choice(table.legal_commands(seat))
        table.submit(seat, command)
        moves.append(repr(command))
    kinds = (*game.command_types, *game.event_types, game.view_type)
    plans = {k.__qualname__: [[f.name, str(f.type)] for f in fields.field_plan(k)] for k in kinds}
    out["games"][info.type_id] = {
        "moves": moves,
        "results": repr(table.results()),
        "plans": plans,
        "copy": repr(table.copy().view(None)) == repr(table.view(None)),
        "values copied": all(
            copy.deepcopy(value) == value and pickle.loads(pickle.dumps(value)) == value
            for value in (table.view(0), table.view(None), *table.redacted_log(0), *table.log)
        ),
    }
print(json.dumps(out))
"""


def run(code: str, pythonpath: Path | None, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "REFEREE_PURE")}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**env, **environ},
        cwd=pythonpath or ROOT,
        timeout=600,
    )


def play(pythonpath: Path | None, **environ: str) -> dict[str, Any]:
    done = run(PLAY, pythonpath, **environ)
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


#: A compiled wheel already built from this working tree (``make compiled``'s, in CI), to test
#: in place of building one here: the build takes minutes, and CI has just made it.
WHEEL = "REFEREE_COMPILED_WHEEL"


def _working_tree_sources() -> dict[str, bytes]:
    """The package's Python files as the build script copies them (tracked and new files)."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "--", "referee/*.py"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        timeout=60,
    )
    return {name: (ROOT / name).read_bytes() for name in listed.stdout.splitlines()}


def _stale(installed: Path) -> list[str]:
    """The package's Python files that differ between the unpacked wheel and the working
    tree, or that one of them lacks."""
    tree = _working_tree_sources()
    wheel = {
        p.relative_to(installed).as_posix(): p.read_bytes()
        for p in (installed / "referee").rglob("*.py")
        if "_shipped" not in p.parts and p.name != "_compiled.py"
    }
    return sorted(name for name in tree.keys() | wheel.keys() if tree.get(name) != wheel.get(name))


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The compiled wheel, built from the working tree (or given by ``REFEREE_COMPILED_WHEEL``,
    which must have been built from it) and unpacked."""
    folder = tmp_path_factory.mktemp("compiled")
    given = os.environ.get(WHEEL)
    if given:
        wheel = Path(given)
    else:
        env = dict(os.environ, REFEREE_MYPYC_OPT="0")
        built = subprocess.run(
            [str(ROOT / "deploy/compiled/build.sh"), str(ROOT), str(folder), sys.executable],
            capture_output=True,
            text=True,
            env=env,
            timeout=1100,
        )
        assert built.returncode == 0, (built.stdout + built.stderr)[-4000:]
        (wheel,) = (folder / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(folder / "installed")
    stale = _stale(folder / "installed")
    assert not stale, f"{wheel} was not built from this working tree (make compiled): {stale}"
    return folder / "installed"


@pytest.fixture(scope="module")
def pure() -> dict[str, Any]:
    return play(None)


@pytest.mark.timeout(1200)
def test_the_compiled_build_plays_every_game_as_the_pure_source_does(
    installed: Path, pure: dict[str, Any]
) -> None:
    compiled = play(installed)

    assert all(compiled["compiled"].values()), compiled["compiled"]
    assert not any(pure["compiled"].values())
    assert compiled["games"].keys() == pure["games"].keys()
    for type_id, game in pure["games"].items():
        assert game["results"] != "None", type_id  # played to its end
        assert compiled["games"][type_id] == game, type_id
        assert game["copy"], type_id
        assert game["values copied"], type_id


@pytest.mark.timeout(1200)
def test_referee_pure_runs_the_source_beside_the_extensions(
    installed: Path, pure: dict[str, Any]
) -> None:
    set_aside = play(installed, REFEREE_PURE="1")

    assert not any(set_aside["compiled"].values()), set_aside["compiled"]
    assert set_aside["games"] == pure["games"]


def test_the_compiled_build_says_so(installed: Path) -> None:
    code = (
        "import referee, referee.build as b, referee.metrics as m; print(b.current().describe()); "
        "print(m.Metrics().registry.get_sample_value('referee_build_info', "
        "{'build': 'compiled', 'version': referee.__version__}))"
    )
    done = run(code, installed)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    record = (installed / "referee/_compiled.py").read_text(encoding="utf-8")
    assert lines[0] == f"compiled build (mypyc), {len(lines) - 2} modules compiled:"
    assert {"  referee.codec", "  referee.engine.openings", "  referee.engine.table"} <= set(lines)
    assert all(f"'{name.strip()}'" in record for name in lines[1:-1])
    assert lines[-1] == "1.0"


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def test_the_compiled_wheel_carries_the_rules_pages_and_the_web_client(installed: Path) -> None:
    """As the pure wheel does (tests/test_wheels.py serves them from an installed one)."""
    shipped = installed / "referee" / "_shipped"
    rules = {p.name: p.read_bytes() for p in (ROOT / "docs" / "rules").glob("*.md")}
    assert _files(shipped / "rules") == rules
    web = ROOT / "clients" / "web" / "dist"
    if not (web / "index.html").is_file():
        if os.environ.get("CI") == "true":
            pytest.fail("the web client is not built (make web): the wheel cannot carry it")
        pytest.skip("the web client is not built here (make web)")
    assert _files(shipped / "web") == _files(web)


@pytest.fixture
def copied(installed: Path, tmp_path: Path) -> Path:
    shutil.copytree(installed, tmp_path / "installed")
    return tmp_path / "installed"


def test_an_edited_source_beside_its_extension_is_an_error_that_says_what_to_do(
    copied: Path,
) -> None:
    source = copied / "referee/engine/openings.py"
    source.write_text(source.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")

    done = run("import referee", copied)  # openings is imported by compiled modules only
    assert done.returncode != 0
    assert "ImportError: referee.engine.openings: its extension is stale" in done.stderr
    assert "rebuild with `make compiled`, or set REFEREE_PURE=1" in done.stderr
    assert run("import referee.engine.table", copied, REFEREE_PURE="1").returncode == 0


def test_a_given_wheel_must_be_of_this_working_tree(copied: Path) -> None:
    assert _stale(copied) == []
    source = copied / "referee/engine/openings.py"
    source.write_text(source.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    (copied / "referee/engine/words.py").unlink()

    assert _stale(copied) == ["referee/engine/openings.py", "referee/engine/words.py"]


def test_a_missing_extension_is_an_error_that_says_what_to_do(copied: Path) -> None:
    (extension,) = (copied / "referee").glob("codec.*.so")
    extension.unlink()

    done = run("import referee.codec", copied)
    assert done.returncode != 0
    assert "ImportError: referee.codec is recorded as compiled but its extension is missing" in (
        done.stderr
    )
    assert "rebuild with `make compiled`, or set REFEREE_PURE=1" in done.stderr
