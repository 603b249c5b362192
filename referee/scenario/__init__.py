"""Scenario files: scripted games with expected outcomes (``referee scenario run FILE...``).

The format is described in ``docs/scenarios.md``; the runner is :mod:`referee.scenario.runner`.
"""

from referee.scenario.runner import (
    Failure,
    Scenario,
    ScenarioError,
    ScenarioResult,
    load_scenario,
    main,
    run_loaded,
    run_scenario,
    subset_mismatch,
)

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
