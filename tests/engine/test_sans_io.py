"""The rules engine, the games and the search players are sans-I/O: no gRPC, database, clock,
asyncio or RNG; and the engine, the game interface, never imports the search players."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.import_graph import graph

ROOT = Path(__file__).resolve().parents[2] / "referee"
FORBIDDEN = {"grpc", "sqlite3", "asyncio", "time", "random", "socket", "threading", "datetime"}
SOURCES = sorted(
    [*ROOT.glob("engine/**/*.py"), *ROOT.glob("games/**/*.py"), *ROOT.glob("search/**/*.py")]
)
ENGINE = "referee.engine"
SEARCH = "referee.search"


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
    assert any(p.parent.name == "search" and p.name == "ismcts.py" for p in SOURCES)


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def engine_imports_of_search(edges: dict[str, set[str]]) -> list[str]:
    """Every import of a search module by an engine module (the search players import the
    engine; the reverse would tie the game interface to one family of algorithms)."""
    return [
        f"{module} imports {target}"
        for module, targets in sorted(edges.items())
        if _inside(module, ENGINE)
        for target in sorted(targets)
        if _inside(target, SEARCH)
    ]


def test_the_engine_never_imports_the_search_players() -> None:
    edges = graph()
    assert any(_inside(t, ENGINE) for t in edges.get("referee.search.ismcts", ())), "read"
    assert engine_imports_of_search(edges) == []


def test_the_direction_check_finds_an_engine_import_of_search() -> None:
    edges = {
        "referee.engine.table": {"referee.search.worlds", "referee.engine.game"},
        "referee.engine": {"referee.search"},
        "referee.search.pimc": {"referee.engine.table"},
        "referee.searching": {"referee.engine"},
    }
    assert engine_imports_of_search(edges) == [
        "referee.engine imports referee.search",
        "referee.engine.table imports referee.search.worlds",
    ]
