"""Scenario files: scripted games with expected outcomes (``referee scenario run FILE...``).

The format is described in ``docs/scenarios.md``. The kit's rooms: :mod:`~referee.scenario.model`
(what a file says, what a run found), :mod:`~referee.scenario.load` (reading and checking a
file), :mod:`~referee.scenario.run` (playing it on a driver), :mod:`~referee.scenario.compare`
(matching JSON values), :mod:`~referee.scenario.command` (``referee scenario run``), over
:mod:`~referee.scenario.drivers` (the in-process referee) and :mod:`~referee.scenario.remote`
(a server over gRPC).
"""

from referee.scenario.command import main
from referee.scenario.compare import subset_mismatch
from referee.scenario.load import load_scenario
from referee.scenario.model import Failure, Scenario, ScenarioError, ScenarioResult
from referee.scenario.run import run_loaded, run_scenario

__all__ = [
    "Failure",
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "load_scenario",
    "main",
    "run_loaded",
    "run_scenario",
    "subset_mismatch",
]
