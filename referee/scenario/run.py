"""Running a loaded scenario on a driver: set up, play each step and check its outcome,
views and events; then the indistinguishability checks (the same commands on another deal
must look the same to the viewers named).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from referee.engine.game import FixedDeal, Viewer
from referee.scenario import match as schema
from referee.scenario.compare import comparable, first_difference
from referee.scenario.drivers import (
    OK,
    DealRefused,
    Driver,
    LibraryDriver,
    Outcome,
    Setup,
    SetupRefused,
)
from referee.scenario.load import load_scenario
from referee.scenario.model import (
    EVENTS,
    GAME_SUMMARY,
    GAME_TYPE,
    VIEW,
    Alternative,
    Expect,
    Failure,
    Scenario,
    ScenarioResult,
    Step,
    ViewerSpec,
    all_viewers,
    viewer_name,
)


def _resolve(viewers: tuple[ViewerSpec, ...], step: Step, players: int) -> list[Viewer]:
    found: list[Viewer] = []
    for viewer in viewers:
        if viewer == "all":
            found.extend(all_viewers(players))
        elif viewer == "step":
            found.append(step.seat)
        else:
            found.append(viewer)
    return found


def _check_outcome(expect: Expect, outcome: Outcome) -> str | None:
    code, rule, message = outcome.code, outcome.rule, outcome.message
    got = "ok" if code == OK else f"{code} {rule or '(no rule)'}: {message}"
    if code not in expect.codes:
        return f"expected {expect.describe()}, got {got}"
    if expect.rules is not None and rule not in expect.rules:
        return f"expected {expect.describe()}, got {got}"
    if expect.message is not None and expect.message not in message:
        return f"expected {expect.describe()}, got {got}"
    if outcome.problem is not None:
        return f"{got}, but {outcome.problem}"
    return None


def _snapshot(driver: Driver, players: int) -> dict[str, Any]:
    """What must not change when a command is refused: the version, and every viewer's view
    (pending decisions, legal commands and the game's part included)."""
    return {
        "version": driver.version(),
        "views": {viewer_name(v): driver.current_view(v) for v in all_viewers(players)},
    }


def _unchanged_problem(before: dict[str, Any], after: dict[str, Any]) -> str | None:
    if before["version"] != after["version"]:
        return (
            f"the refusal changed the game: version {before['version']} became "
            f"{after['version']} (events were appended)"
        )
    for viewer, view in before["views"].items():
        problem = first_difference(view, after["views"][viewer])
        if problem is not None:
            return f"the refusal changed the view of {viewer}: {problem}"
    return None


def _run_step(driver: Driver, step: Step, players: int, every: Matcher) -> list[str]:
    """The step's mismatches (``every`` finds those of one match: the first, or all)."""
    problems: list[str] = []
    if step.command is not None:
        assert step.seat is not None
        refusal = OK not in step.expect.codes
        before = _snapshot(driver, players) if refusal and step.unchanged else None
        outcome = driver.submit(step.seat, step.command)
        problem = _check_outcome(step.expect, outcome)
        if problem is not None:
            return [problem]  # what was checked next assumes the expected outcome
        if before is not None:
            problem = _unchanged_problem(before, _snapshot(driver, players))
            if problem is not None:
                problems.append(problem)
        for check in step.events_checks:
            for viewer in _resolve(check.viewers, step, players):
                events = driver.events(outcome.first, outcome.last, viewer)
                for problem in every(check.match, events, EVENTS):
                    problems.append(f"events as {viewer_name(viewer)}: {problem}")
    for check in step.views:
        for viewer in _resolve(check.viewers, step, players):
            for problem in every(check.match, driver.view(viewer), VIEW):
                problems.append(f"view of {viewer_name(viewer)}: {problem}")
    return problems


#: Makes the driver a run plays on (the library by default).
DriverFactory = Callable[[], Driver]


def _first(expected: Any, actual: Any, kind: schema.Type) -> list[str]:
    problem = schema.mismatch(expected, actual, kind)
    return [] if problem is None else [problem]


#: Finds the mismatches of one match: :func:`_first`, or with ``--keep-going`` all of them
#: (:func:`referee.scenario.match.mismatches`).
Matcher = Callable[[Any, Any, schema.Type], list[str]]


def _setup(driver: Driver, scenario: Scenario, failures: list[Failure], every: Matcher) -> bool:
    """Check the game type, create the table and check the setup's outcome; True when the
    steps can run."""
    if scenario.game_type_checks:
        described = driver.game_type(scenario.game)
        for expected in scenario.game_type_checks:
            problems = (
                [f"no game type {scenario.game!r}"]
                if described is None
                else every(expected, described, GAME_TYPE)
            )
            failures.extend(Failure(None, problem, "expect_game_type") for problem in problems)
    try:
        driver.create(
            Setup(scenario.game, scenario.players, scenario.options, scenario.seed, scenario.deal)
        )
    except SetupRefused as refused:
        outcome = refused.outcome
        if scenario.expect_setup is None:
            failures.append(Failure(None, f"table not created: {outcome.message}"))
        else:
            problem = _check_outcome(scenario.expect_setup, outcome)
            if problem is not None:
                failures.append(Failure(None, problem, "expect_setup"))
        return False
    if scenario.expect_setup is not None:
        failures.append(
            Failure(
                None,
                f"expected {scenario.expect_setup.describe()}, but the table was created",
                "expect_setup",
            )
        )
        return False
    for expected in scenario.game_checks:
        for problem in every(expected, driver.summary(), GAME_SUMMARY):
            failures.append(Failure(None, problem, "expect_game"))
    return True


def run_loaded(
    scenario: Scenario,
    driver: DriverFactory = LibraryDriver,
    *,
    keep_going: bool = False,
    mode: str = "library",
) -> ScenarioResult:
    """Play ``scenario`` on a fresh table; stop at the first mismatch unless ``keep_going``."""
    total = len(scenario.steps)
    failures: list[Failure] = []
    done = 0
    every: Matcher = schema.mismatches if keep_going else _first
    table = driver()
    try:
        if _setup(table, scenario, failures, every) and (keep_going or not failures):
            for step in scenario.steps:
                try:
                    problems = _run_step(table, step, scenario.players, every)
                except DealRefused as refused:
                    failures.append(Failure(step, f"the fixed deal cannot be dealt: {refused}"))
                    break
                failures.extend(Failure(step, problem) for problem in problems)
                if problems and not keep_going:
                    break
                done += 1
    finally:
        table.close()
    if scenario.alternatives and (keep_going or not failures):
        for alternative in scenario.alternatives:
            problem = indistinguishable(scenario, alternative, driver)
            if problem is not None:
                failures.append(Failure(None, problem, alternative.where()))
                if not keep_going:
                    break
    return ScenarioResult(scenario.path, total, tuple(failures), done, mode)


def run_scenario(
    path: str | os.PathLike[str],
    driver: DriverFactory = LibraryDriver,
    *,
    keep_going: bool = False,
    mode: str = "library",
) -> ScenarioResult:
    """Load and play one scenario file. Raises :class:`ScenarioError` for a malformed file."""
    return run_loaded(load_scenario(path), driver, keep_going=keep_going, mode=mode)


# --- indistinguishability ---------------------------------------------------------------------

#: Keys left out when two runs are compared: they differ between any two tables by design


Transcript = list[tuple[str, dict[Viewer, Any]]]


def _transcript(
    scenario: Scenario,
    deal: FixedDeal | None,
    seed: str,
    viewers: tuple[Viewer, ...],
    until: int,
    driver: DriverFactory,
) -> Transcript:
    """What ``viewers`` receive, item by item: the opening events and view, then for every
    step up to ``until`` its outcome (the step's own seat only), events and views."""
    table = driver()
    items: Transcript = []
    try:
        try:
            table.create(Setup(scenario.game, scenario.players, scenario.options, seed, deal))
        except SetupRefused as refused:
            return [("setup", dict.fromkeys(viewers, refused.outcome.message))]
        opening = table.version()
        items.append(("the opening events", {v: table.events(1, opening, v) for v in viewers}))
        items.append(("the opening view", {v: table.view(v) for v in viewers}))
        for step in scenario.steps[: until + 1]:
            if step.command is not None:
                assert step.seat is not None
                outcome = table.submit(step.seat, step.command)
                seen = (outcome.code, outcome.rule, outcome.message)
                if step.seat in viewers:
                    items.append((f"{step.where()}: the outcome", {step.seat: seen}))
                if outcome.code == OK:
                    last = table.version()  # the referee's own batches too (the reveal)
                    events = {v: table.events(outcome.first, last, v) for v in viewers}
                    items.append((f"{step.where()}: the events", events))
            items.append((f"{step.where()}: the view", {v: table.view(v) for v in viewers}))
    finally:
        table.close()
    return items


def indistinguishable(
    scenario: Scenario, alternative: Alternative, driver: DriverFactory = LibraryDriver
) -> str | None:
    """``None`` when the alternative looks the same as the scenario to its viewers, else the
    first difference: which item, for whom, where."""
    base = _transcript(
        scenario, scenario.deal, scenario.seed, alternative.viewers, alternative.until, driver
    )
    other = _transcript(
        scenario, alternative.deal, alternative.seed, alternative.viewers, alternative.until, driver
    )
    for (what, seen), (_, other_seen) in zip(base, other, strict=False):
        for viewer in alternative.viewers:
            if viewer not in seen:
                continue
            a, b = comparable(seen[viewer]), comparable(other_seen.get(viewer))
            encoded = (json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True))
            if encoded[0] != encoded[1]:
                where = first_difference(a, b) or ""
                return (
                    f"{viewer_name(viewer)} can tell the deals apart by {what} "
                    f"({where.replace(' then ', ' in the scenario, ', 1)} in the alternative)"
                )
    if len(base) != len(other):
        return f"the runs differ in length ({len(base)} and {len(other)} items)"
    return None


__all__ = [
    "DriverFactory",
    "indistinguishable",
    "run_loaded",
    "run_scenario",
]
