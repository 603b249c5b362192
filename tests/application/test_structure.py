"""The application package's shape: four rooms with one direction, and no circles.

The rooms (``referee/application/<room>/``) import one way only, ``tables`` <- ``players`` <-
``lobby`` <- ``house``: a room may import the rooms below it, never one above it, and no
room imports the facade (:mod:`referee.application.referee`) or the package that exports it.
Function-level and TYPE_CHECKING imports count (:mod:`tests.import_graph`), so a dependency
cannot hide from the test inside a function.
"""

from __future__ import annotations

from pathlib import Path

from tests.import_graph import circles, graph

#: The rooms, bottom first: each may import those before it.
ROOMS = ("tables", "players", "lobby", "house")
APPLICATION = "referee.application"


def _room(module: str) -> str | None:
    parts = module.split(".")
    if module.startswith(APPLICATION + ".") and len(parts) > 2 and parts[2] in ROOMS:
        return parts[2]
    return None


def against_the_direction(edges: dict[str, set[str]]) -> list[str]:
    """Every import of a room's module that goes up, or out to the facade."""
    found = []
    for module, targets in sorted(edges.items()):
        room = _room(module)
        if room is None:
            continue
        for target in sorted(targets):
            other = _room(target)
            if other is not None and ROOMS.index(other) > ROOMS.index(room):
                found.append(f"{module} imports {target} ({other} is above {room})")
            elif other is None and target.startswith(APPLICATION):
                found.append(f"{module} imports {target} (the facade, above every room)")
    return found


def test_the_rooms_import_one_way_only() -> None:
    edges = graph()
    assert {_room(m) for m in edges} >= set(ROOMS), "every room is read"
    assert against_the_direction(edges) == []


def test_the_direction_check_finds_an_import_against_it() -> None:
    """The checker itself: up, out to the facade, and sideways within a room."""
    edges = {
        "referee.application.tables.live": {"referee.application.players.seating"},
        "referee.application.players.sessions": {
            "referee.application.players.seating",
            "referee.application.tables.live",
        },
        "referee.application.lobby.room": {"referee.application.referee"},
        "referee.application.house.bots": {"referee.application.lobby.room"},
    }
    assert against_the_direction(edges) == [
        "referee.application.lobby.room imports referee.application.referee (the facade, "
        "above every room)",
        "referee.application.tables.live imports referee.application.players.seating "
        "(players is above tables)",
    ]


def test_the_application_modules_import_no_circle() -> None:
    """Function-level and TYPE_CHECKING imports count (``fanout`` and ``live`` once did)."""
    edges = graph()
    inside = {m: t for m, t in edges.items() if m.startswith(APPLICATION)}
    assert circles(inside) == []
    assert any("referee.application.tables.subscriber" in t for t in inside.values()), "read"


def test_the_graph_sees_hidden_imports(tmp_path: Path) -> None:
    """The checker itself: circles made only by a function-level or a TYPE_CHECKING import
    are found; a package importing its own modules is no circle."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg import a\n")
    (package / "a.py").write_text("def f():\n    from pkg import b\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import f\n"
    )
    (package / "c.py").write_text("from . import a\n")
    edges = graph("pkg", tmp_path)
    assert edges == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": {"pkg.a"}}
    assert circles(edges) == [["pkg.a", "pkg.b"]]
    (package / "b.py").write_text("")
    assert circles(graph("pkg", tmp_path)) == []
