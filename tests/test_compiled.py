"""The compiled build (``make compiled``, docs/performance.md): the same source, its games'
rules and the engine's per-command path compiled by mypyc, imports, makes the same field plans
as the pure source and plays a game of each type exactly as the pure source does.

The wheel is built here from the working tree into a temporary folder by the script
``make compiled`` runs (with a quicker C build of the same code), then imported ahead of the
editable install, in a child process; the same child runs on the pure source to compare.
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
import json, random
import referee.engine.fields as fields
from referee.engine.registry import all_games, game_module
from referee.engine.table import Table

out = {"compiled": {}, "games": {}}
for module in (fields, *(game_module(g.info.type_id, "rules") for g in all_games())):
    out["compiled"][module.__name__] = not module.__file__.endswith(".py")
for game in all_games():
    info = game.info
    table = Table.create(info.type_id, players=info.min_players, seed=b"compiled")
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
    }
print(json.dumps(out))
"""


def play(pythonpath: Path | None) -> dict[str, Any]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run(
        [sys.executable, "-c", PLAY],
        capture_output=True,
        text=True,
        env=env,
        cwd=pythonpath or ROOT,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.timeout(1200)
def test_the_compiled_build_plays_every_game_as_the_pure_source_does(tmp_path: Path) -> None:
    env = dict(os.environ, REFEREE_MYPYC_OPT="0")
    built = subprocess.run(
        [str(ROOT / "deploy/compiled/build.sh"), str(ROOT), str(tmp_path), sys.executable],
        capture_output=True,
        text=True,
        env=env,
        timeout=1100,
    )
    assert built.returncode == 0, (built.stdout + built.stderr)[-4000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    installed = tmp_path / "installed"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(installed)

    compiled = play(installed)
    pure = play(None)

    assert all(compiled["compiled"].values()), compiled["compiled"]
    assert not any(pure["compiled"].values())
    assert compiled["games"].keys() == pure["games"].keys()
    for type_id, game in pure["games"].items():
        assert game["results"] != "None", type_id  # played to its end
        assert compiled["games"][type_id] == game, type_id
        assert game["copy"], type_id
