"""The application package's shape: rooms of one concern, none over 600 lines, no circles."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.import_graph import ROOT, circles, graph

APPLICATION = sorted((ROOT / "referee" / "application").glob("*.py"))


@pytest.mark.parametrize("path", APPLICATION, ids=lambda p: p.name)
def test_no_module_of_the_application_is_over_600_lines(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= 600


def test_the_application_modules_import_no_circle() -> None:
    """Function-level and TYPE_CHECKING imports count (``fanout`` and ``live`` once did)."""
    edges = graph()
    inside = {m: t for m, t in edges.items() if m.startswith("referee.application")}
    assert circles(inside) == []
    assert any("referee.application.subscriber" in t for t in inside.values()), "graph is read"


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
