"""The shipped package's shape: what imports what.

The benchmarks (:mod:`referee.bench`) are a command, not part of the referee: nothing outside
them imports them except ``referee bench`` itself, lazily, when it runs. Function-level and
TYPE_CHECKING imports count as imports (:mod:`tests.import_graph`).
"""

from __future__ import annotations

import subprocess
import sys

from tests.import_graph import ROOT, circles, graph


def test_only_the_bench_command_imports_the_benchmarks() -> None:
    edges = graph()
    importers = {
        module
        for module, targets in edges.items()
        if not module.startswith("referee.bench")
        and any(t == "referee.bench" or t.startswith("referee.bench.") for t in targets)
    }
    assert importers == {"referee.cli"}


def test_the_cli_the_server_and_the_kits_load_no_benchmark() -> None:
    """In a fresh interpreter: importing the command line, the server, the application and
    the scenario kit loads no module of :mod:`referee.bench` (``referee bench`` loads it)."""
    code = (
        "import sys, referee.cli, referee.server.app, referee.application, "
        "referee.scenario.command; "
        "print(sorted(m for m in sys.modules if m.startswith('referee.bench')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_scenario_kit_imports_no_circle_and_no_module_is_over_600_lines() -> None:
    edges = graph()
    kit = {m: t for m, t in edges.items() if m.startswith("referee.scenario")}
    assert circles(kit) == []
    assert "referee.scenario.model" in kit["referee.scenario.report"], "the graph is read"
    for module in kit:
        path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
        if not path.exists():
            path = ROOT.joinpath(*module.split("."), "__init__.py")
        assert len(path.read_text().splitlines()) <= 600, module
