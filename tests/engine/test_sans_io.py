"""The rules engine and the games are sans-I/O: no gRPC, database, clock, asyncio or RNG."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "referee"
FORBIDDEN = {"grpc", "sqlite3", "asyncio", "time", "random", "socket", "threading", "datetime"}
SOURCES = sorted([*ROOT.glob("engine/**/*.py"), *ROOT.glob("games/**/*.py")])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_and_games_import_no_io(path: Path) -> None:
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module.split(".")[0])
    assert not imported & FORBIDDEN, f"{path.name} imports {sorted(imported & FORBIDDEN)}"


def test_the_scan_sees_the_engine() -> None:
    assert any(p.name == "rules.py" for p in SOURCES) and any(p.name == "game.py" for p in SOURCES)
