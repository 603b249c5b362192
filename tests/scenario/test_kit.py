"""The conformance-kit features of scenario files, each with a wrong expectation that fails:
unchanged after a refusal, list matchers, alternatives and comparisons, several viewers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.scenario import ScenarioError, load_scenario, run_loaded
from referee.scenario import match as schema
from referee.scenario.drivers import LibraryDriver, Outcome
from referee.scenario.model import EVENTS, VIEW
from tests.scenario.helpers import fails, passes, write

SHIPPED = Path(__file__).resolve().parents[2] / "scenarios"

# --- unchanged after a refusal ----------------------------------------------------------------


class SlipperyDriver(LibraryDriver):
    """A faulty referee: it refuses a command, but plays a legal one for the seat first."""

    def submit(self, seat: int, command: Any) -> Outcome:
        outcome = super().submit(seat, command)
        if outcome.code != "OK" and self.table is not None:
            legal = self.table.legal_commands(seat)
            if legal:
                self.submit_value(seat, legal[0])
        return outcome


class LeakyViewDriver(LibraryDriver):
    """A faulty referee: after a refusal, the refused seat's view shows one more legal move."""

    refused = False

    def submit(self, seat: int, command: Any) -> Outcome:
        outcome = super().submit(seat, command)
        self.refused = self.refused or outcome.code != "OK"
        return outcome

    def current_view(self, viewer: int | None) -> dict[str, Any]:
        view = super().current_view(viewer)
        if self.refused and viewer == 1:
            view["legalCommands"] = [*view.get("legalCommands", []), {"vampireQueen": {}}]
        return view


REFUSAL = """\
steps:
  - seat: 1
    command: {vampireQueen: {pass: {}}}
    expect: {code: INVALID_ARGUMENT, rule: VQ-6}
"""


def test_a_refusal_that_appends_events_fails(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, REFUSAL))
    assert run_loaded(scenario).ok
    result = run_loaded(scenario, SlipperyDriver)
    assert not result.ok
    assert "steps[0] (line 10): the refusal changed the game: version 7 became 8" in result.line()


def test_a_refusal_that_changes_a_view_fails(tmp_path: Path) -> None:
    result = run_loaded(load_scenario(write(tmp_path, REFUSAL)), LeakyViewDriver)
    assert "the refusal changed the view of seat 1: at legalCommands" in result.line()


def test_unchanged_can_be_turned_off_per_step(tmp_path: Path) -> None:
    body = REFUSAL + "    unchanged: false\n"
    assert run_loaded(load_scenario(write(tmp_path, body)), SlipperyDriver).ok


def test_unchanged_needs_a_command(tmp_path: Path) -> None:
    body = "steps:\n  - {expect_view: {seat: 0, match: {}}, unchanged: false}\n"
    with pytest.raises(ScenarioError, match="unchanged needs a command"):
        load_scenario(write(tmp_path, body))


# --- matchers ---------------------------------------------------------------------------------

PASS = {"vampireQueen": {"pass": {}}}
PLAY9 = {"vampireQueen": {"playSet": {"value": 9, "count": 1}}}
PLAY10 = {"vampireQueen": {"playSet": {"value": 10, "count": 1}}}
LEGAL = {"legalCommands": [PASS, PLAY9, PLAY10]}


@pytest.mark.parametrize(
    ("expected", "message"),
    [
        ({"contains": [PLAY9, PLAY9]}, "expected to contain"),  # one item cannot match twice
        ({"contains": [{"vampireQueen": {"leadHunter": {}}}]}, "expected to contain"),
        ({"excludes": [PLAY10]}, "expected not to contain"),
        ({"any_order": [PLAY10, PASS]}, "expected 2 item(s) in any order"),
        ({"any_order": [PLAY10, PASS, PASS]}, "expected 3 item(s) in any order"),
        ({"set": [PASS, PLAY9]}, 'extra [{"vampireQueen": {"playSet"'),
        ({"set": [PASS, PLAY9, PLAY10, {"vampireQueen": {"leadHunter": {}}}]}, "missing [{"),
        ({"length": 2}, "expected length 2, got 3"),
        ({"length": "< 3"}, "expected length < 3, got 3"),
        ([PLAY9, PASS, PLAY10], "at legalCommands[0].vampireQueen.playSet: expected"),
        ({"absent": True}, "at legalCommands: expected (absent)"),
    ],
)
def test_wrong_list_expectations_fail(expected: Any, message: str) -> None:
    schema.check_spec({"legalCommands": expected}, VIEW)
    problem = schema.mismatch({"legalCommands": expected}, LEGAL, VIEW)
    assert problem is not None and message in problem, problem


@pytest.mark.parametrize(
    "expected",
    [
        {"contains": [PLAY10, PASS]},
        {"excludes": [{"vampireQueen": {"leadHunter": {}}}]},
        {"any_order": [PLAY10, PASS, PLAY9]},
        {"set": [PLAY10, PASS, {"vampireQueen": {"playSet": {}}}]},
        {"length": ">= 3", "contains": [PASS]},
        {"absent": False},
    ],
)
def test_right_list_expectations_match(expected: Any) -> None:
    schema.check_spec({"legalCommands": expected}, VIEW)
    assert schema.mismatch({"legalCommands": expected}, LEGAL, VIEW) is None


def test_subsequence_of_events() -> None:
    events = [
        {"vampireQueen": {"passed": {"seat": 0}}},
        {"vampireQueen": {"trickWon": {"winner": 2}}},
        {"vampireQueen": {"roundScored": {"round": 1}}},
    ]
    good = {
        "subsequence": [{"vampireQueen": {"passed": {}}}, {"vampireQueen": {"roundScored": {}}}]
    }
    assert schema.mismatch(good, events, EVENTS) is None
    wrong_order = {"subsequence": [events[2], events[0]]}
    problem = schema.mismatch(wrong_order, events, EVENTS)
    assert problem is not None and "item 1" in problem and "not found in order" in problem


@pytest.mark.parametrize(
    ("expected", "actual", "message"),
    [
        ({"turn": "> 1"}, {"turn": 1}, "expected > 1, got 1"),
        ({"turn": ">= 2"}, {}, "expected >= 2, got (absent)"),
        ({"turn": "!= 0"}, {"turn": 0}, "expected != 0, got 0"),
        ({"turn": [2, 3]}, {"turn": 1}, "expected one of [2, 3], got 1"),
        ({"turn": {"one_of": [2, 3]}}, {"turn": 1}, "expected one of [2, 3], got 1"),
        ({"turn": {"absent": True}}, {"turn": 0}, "expected (absent), got 0"),
        ({"turn": {"absent": False}}, {}, "expected a value, got (absent)"),
        ({"trickKind": ["TRICK_KIND_HUNTER"]}, {}, 'expected one of ["TRICK_KIND_HUNTER"]'),
    ],
)
def test_wrong_scalar_expectations_fail(expected: Any, actual: Any, message: str) -> None:
    spec = {"vampireQueen": expected}
    schema.check_spec(spec, VIEW)
    problem = schema.mismatch(spec, {"vampireQueen": actual}, VIEW)
    assert problem is not None and message in problem, problem


def test_comparisons_on_64_bit_fields() -> None:
    assert schema.mismatch({"version": "> 4"}, {"version": "5"}, VIEW) is None
    assert schema.mismatch({"version": "> 5"}, {"version": "5"}, VIEW) is not None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"legalCommands": {"contain": []}}, "unknown operator for a list"),
        ({"legalCommands": {"length": "many"}}, "expected a number or a comparison"),
        ({"vampireQueen": {"turn": "> x"}}, "expected a number or a comparison"),
        ({"vampireQueen": {"turn": {"contains": [1]}}}, "unknown operator for this field"),
        ({"vampireQueen": {"turn": []}}, "an empty list of alternatives can never match"),
        ({"legalCommands": {"contains": [{"vampireQueen": {"passs": {}}}]}}, "did you mean pass?"),
    ],
)
def test_malformed_matchers_fail_the_file(spec: Any, message: str) -> None:
    with pytest.raises(schema.SpecError) as error:
        schema.check_spec(spec, VIEW)
    assert message in str(error.value)


def test_rule_alternatives(tmp_path: Path) -> None:
    body = """\
        steps:
          - seat: 2
            command: {vampireQueen: {pass: {}}}
            expect: {code: [FAILED_PRECONDITION, INVALID_ARGUMENT], rule: %s}
        """
    passes(tmp_path, body % "[VQ-7, VQ-6]")
    line = fails(tmp_path, body % "[VQ-7, VQ-9]")
    assert "expected FAILED_PRECONDITION or INVALID_ARGUMENT VQ-7 or VQ-9, got" in line


# --- several viewers per step -----------------------------------------------------------------


def test_several_viewers_each_checked(tmp_path: Path) -> None:
    body = """\
        steps:
          - seat: 1
            command: {vampireQueen: {playSet: {value: 5, count: 2}}}
            events:
              - {as: [0, spectator], match: [{vampireQueen: {setPlayed: {seat: 1, count: 2}}}]}
              - {as: all, match: {length: 1}}
            view: {seat: %s, match: {vampireQueen: {handSizes: [14, 12, 13], hand: {length: 14}}}}
        """
    passes(tmp_path, body % "0")
    line = fails(tmp_path, body % "[0, 1, spectator]")
    assert "view of seat 1: at vampireQueen.hand: expected length 14, got 12" in line
    line = fails(tmp_path, body % "all")
    assert "view of seat 1" in line


def test_several_viewers_keep_going_names_each(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        steps:
          - expect_view: {seat: all, match: {vampireQueen: {hand: {length: 14}}}}
        """,
    )
    from referee.scenario import run_scenario

    result = run_scenario(path, keep_going=True)
    described = [failure.describe() for failure in result.failures]
    assert len(described) == 2, described  # seat 2 (13 cards) and the spectator (none)
    assert "view of seat 2" in described[0] and "view of the spectator" in described[1]


def test_shipped_kit_scenario_passes() -> None:
    from referee.scenario import run_scenario

    result = run_scenario(SHIPPED / "vampire_queen" / "vq07_refusals_change_nothing.yaml")
    assert result.ok, result.line()
