"""Scenario features, each with a wrong expectation that fails: expected setup refusals and
the game description, indistinguishable deals, repetition, and the reports (keep going,
JUnit XML, the step's note)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from referee.scenario import ScenarioError, load_scenario, main, run_loaded, run_scenario
from referee.scenario.drivers import LibraryDriver, Outcome, Setup, SetupRefused
from tests.scenario.helpers import fails, passes, write

SHIPPED = Path(__file__).resolve().parents[2] / "scenarios"

# --- expected setup refusals and the game description -----------------------------------------


def _setup(tmp_path: Path, header: str, body: str = "steps: []\n") -> str:
    result = run_scenario(write(tmp_path, body, header))
    return "ok" if result.ok else result.line()


def test_expected_setup_refusal(tmp_path: Path) -> None:
    header = "game: vampire-queen\nplayers: 2\nexpect_setup: {code: INVALID_ARGUMENT%s}\n"
    assert _setup(tmp_path, header % ", message: 3 to 12") == "ok"
    assert "expect_setup: expected INVALID_ARGUMENT (message containing '13 players')" in (
        _setup(tmp_path, header % ", message: 13 players")
    )
    assert "expected FAILED_PRECONDITION, got INVALID_ARGUMENT" in _setup(
        tmp_path, header.replace("INVALID_ARGUMENT%s", "FAILED_PRECONDITION")
    )
    created = header.replace("players: 2", "players: 3") % ""
    assert "expect_setup: expected INVALID_ARGUMENT, but the table was created" in _setup(
        tmp_path, created
    )


def test_expected_setup_refusal_with_a_rule(tmp_path: Path) -> None:
    """A refusal without a rule id does not match an expected rule id."""
    header = "game: vampire-queen\nplayers: 2\nexpect_setup: {code: INVALID_ARGUMENT, rule: X-1}\n"
    assert "expected INVALID_ARGUMENT X-1, got INVALID_ARGUMENT" in _setup(tmp_path, header)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("expect_setup: ok\n", "expect_setup expects a refusal"),
        (
            "expect_setup: {code: INVALID_ARGUMENT}\n"
            "steps: [{expect_view: {seat: 0, match: {}}}]\n",
            "a scenario with expect_setup has no steps",
        ),
        ("expect_game_type: {match: {minPlayer: 3}}\n", "expect_game_type.match.minPlayer"),
        ("expect_game: {match: {option: {}}}\n", "did you mean options?"),
    ],
)
def test_malformed_setup_checks(tmp_path: Path, text: str, message: str) -> None:
    body = text if "steps" in text else text + "steps: []\n"
    with pytest.raises(ScenarioError, match=message.replace("?", r"\?")):
        load_scenario(write(tmp_path, body, "game: vampire-queen\nplayers: 3\n"))


def test_game_type_and_summary_checks(tmp_path: Path) -> None:
    body = "expect_game_type: {match: {options: {contains: [{name: rounds, maximum: %s}]}}}\n"
    passes(tmp_path, body % "50" + "steps: []\n")
    line = fails(tmp_path, body % "20" + "steps: []\n")
    assert "expect_game_type: at options: expected to contain" in line
    game = "expect_game: {match: {options: {rounds: '%s'}, players: 3}}\nsteps: []\n"
    passes(tmp_path, game % "5")
    assert 'expect_game: at options.rounds: expected "4", got "5"' in fails(tmp_path, game % "4")


# --- indistinguishability ---------------------------------------------------------------------

PLAY = """\
steps:
  - {seat: 1, command: {vampireQueen: {playSet: {value: 5, count: 2}}}, name: led}
  - {seat: 2, command: {vampireQueen: {pass: {}}}}
"""
OTHER_HANDS = """\
    deal:
      hands:
        - [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4]
        - [5, 5, 5, 5, 9, 9, 9, 9, 7, 7, 7, 7, 8]
        - [6, 6, 6, 6, 10, 10, 10, 10, 11, 11, 11, 11, Q]
"""


def _alternative(viewers: str, deal: str = OTHER_HANDS, until: str = "") -> str:
    return f"indistinguishable:\n  - name: other\n    viewers: {viewers}\n{deal}{until}" + PLAY


def test_indistinguishable_for_those_who_cannot_see(tmp_path: Path) -> None:
    passes(tmp_path, _alternative("[0, spectator]"))


def test_a_seat_that_sees_the_difference_fails(tmp_path: Path) -> None:
    line = fails(tmp_path, _alternative("[0, 1]"))
    assert (
        "indistinguishable[0] (other): seat 1 can tell the deals apart by the opening events"
        in (line)
    )
    assert "seat 1 is dealt 5 5 5 5 6 6 6 6 7 7 7 7 8" in line  # the event's description


def test_a_public_difference_fails_for_everyone(tmp_path: Path) -> None:
    """Who holds the 15 Hunter is public (VQ-20): another pick is seen by the spectator."""
    line = fails(tmp_path, _alternative("[spectator]", deal="    deal: {picks: [2]}\n"))
    assert "the spectator can tell the deals apart" in line


def test_until_limits_the_comparison(tmp_path: Path) -> None:
    """``until`` names the last step compared; an unknown name fails the file."""
    passes(tmp_path, _alternative("[0]", until="    until: led\n"))
    with pytest.raises(ScenarioError, match="no step named 'nope'; names: led"):
        load_scenario(write(tmp_path, _alternative("[0]", until="    until: nope\n")))


class LeakyMessageDriver(LibraryDriver):
    """A faulty referee: its refusals name the cards of seat 2."""

    def submit(self, seat: int, command: Any) -> Outcome:
        outcome = super().submit(seat, command)
        if outcome.code == "OK" or self.table is None:
            return outcome
        hand = self.table.view(2).game.hand
        return Outcome(outcome.code, outcome.rule, f"{outcome.message} (seat 2 holds {hand})")


def test_an_outcome_that_depends_on_the_deal_is_seen(tmp_path: Path) -> None:
    """Seat 1 sees neither seat 0's nor seat 2's cards: swapping a card between them must not
    show, and does not, except through the faulty refusal message."""
    other = OTHER_HANDS.replace(
        "[1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4]", "[1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 9]"
    ).replace("[5, 5, 5, 5, 9, 9, 9, 9, 7, 7, 7, 7, 8]", "[5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8]")
    other = other.replace(
        "[6, 6, 6, 6, 10, 10, 10, 10, 11, 11, 11, 11, Q]",
        "[9, 9, 9, 4, 10, 10, 10, 10, 11, 11, 11, 11, Q]",
    )
    body = _alternative("[1]", deal=other) + (
        "  - {seat: 1, command: {vampireQueen: {pass: {}}}, expect: {code: FAILED_PRECONDITION}}\n"
    )
    path = write(tmp_path, body)
    assert run_scenario(path).ok
    result = run_loaded(load_scenario(path), LeakyMessageDriver)
    assert "seat 1 can tell the deals apart by steps[2] (line 20): the outcome" in result.line()


# --- repetition -------------------------------------------------------------------------------


def test_repeat_and_sequences(tmp_path: Path) -> None:
    body = """\
        sequences:
          nothing for seat 2: [{seat: 2, command: {vampireQueen: {pass: {}}}, expect: %s}]
        steps:
          - use: nothing for seat 2
            repeat: 3
          - repeat: 2
            steps:
              - {expect_view: {seat: 2, match: {pendingSeats: [1]}}}
        """
    passes(tmp_path, body % "{code: FAILED_PRECONDITION}")
    line = fails(tmp_path, body % "ok")
    assert line.split("  ")[2].startswith(
        "steps[0] (line 12) use nothing for seat 2 1/3 > sequences.nothing for seat 2[0] (line 10)"
    )
    result = run_scenario(write(tmp_path, body % "{code: FAILED_PRECONDITION}"))
    assert result.steps == 5


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ("  - {use: nope}\n", "no sequence 'nope'"),
        ("  - {repeat: 0, steps: [{expect_view: {seat: 0, match: {}}}]}\n", "repeat: expected"),
        ("  - {repeat: 2}\n", "a block has either use: NAME or steps"),
        ("  - {repeat: 2, steps: []}\n", "expected a non-empty list of steps"),
        ("  - {repeat: 30000, steps: [{expect_view: {seat: 0, match: {}}}]}\n", "more than 20000"),
    ],
)
def test_malformed_repetition(tmp_path: Path, steps: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        load_scenario(write(tmp_path, "steps:\n" + steps))


def test_a_sequence_may_not_use_itself(tmp_path: Path) -> None:
    body = "sequences: {loop: [{use: loop}]}\nsteps: [{use: loop}]\n"
    with pytest.raises(ScenarioError, match="sequence 'loop' uses itself"):
        load_scenario(write(tmp_path, body))


# --- reports ----------------------------------------------------------------------------------

TWO_WRONG = """\
steps:
  - note: the leader is seat 1
    expect_view: {seat: 0, match: {pendingSeats: [0]}}
  - seat: 1
    command: {vampireQueen: {pass: {}}}
  - expect_view: {seat: 2, match: {vampireQueen: {handSizes: [14, 14, 13]}}}
"""


def test_the_note_is_shown_with_a_failure(tmp_path: Path) -> None:
    line = fails(tmp_path, TWO_WRONG)
    assert line.endswith("[note: the leader is seat 1]")


def test_keep_going_reports_every_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, TWO_WRONG)
    result = run_scenario(path, keep_going=True)
    assert len(result.failures) == 2
    assert result.steps_run == 3 and "(+1 more)" in result.line()
    capsys.readouterr()  # what the run above printed (the referee's log, unconfigured)
    assert main(["--keep-going", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"FAIL  {path}  steps[0] (line 10): view of seat 0")
    assert lines[1].startswith("      steps[1] (line 12): expected ok, got INVALID_ARGUMENT VQ-6")
    assert main([str(path)]) == 1
    assert len(capsys.readouterr().out.splitlines()) == 1


THREE_WRONG_IN_ONE_MATCH = """\
steps:
  - expect_view:
      seat: 0
      match:
        pendingSeats: [0]
        gameOver: true
        vampireQueen: {handSizes: [13, 13, 13], hand: {length: 2}}
"""


def test_keep_going_reports_every_mismatch_of_one_match(tmp_path: Path) -> None:
    """Inside one ``match`` each wrong key is its own mismatch (a key that
    matches is not reported); without --keep-going the first one is reported alone."""
    path = write(tmp_path, THREE_WRONG_IN_ONE_MATCH)
    result = run_scenario(path, keep_going=True)
    assert [failure.message for failure in result.failures] == [
        "view of seat 0: at pendingSeats[0]: expected 0, got 1",
        "view of seat 0: at gameOver: expected true, got false",
        "view of seat 0: at vampireQueen.handSizes[0]: expected 13, got 14",
        "view of seat 0: at vampireQueen.handSizes[1]: expected 13, got 14",
        "view of seat 0: at vampireQueen.hand: expected length 2, got 14 "
        "[1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 15]",
    ]
    assert "(+4 more)" in result.line()
    [first] = run_scenario(path).failures
    assert first.message == result.failures[0].message


def test_junit_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, TWO_WRONG, name="bad.yaml")
    good = write(
        tmp_path,
        "steps: [{expect_view: {seat: 0, match: {pendingSeats: [1]}}}]\n",
        name="good.yaml",
    )
    broken = tmp_path / "broken.yaml"
    broken.write_text("game: vampire-queen\n", encoding="utf-8")
    out = tmp_path / "junit.xml"
    assert main(["--keep-going", "--junit", str(out), str(bad), str(good), str(broken)]) == 1
    capsys.readouterr()
    root = ET.parse(out).getroot()
    assert root.tag == "testsuites"
    assert root.attrib == {"tests": "3", "failures": "1", "errors": "1"}
    cases = {case.attrib["name"]: case for case in root.iter("testcase")}
    failure = cases["bad.yaml"].find("failure")
    assert failure is not None and failure.text is not None
    assert "[note: the leader is seat 1]" in failure.attrib["message"]
    assert len(failure.text.splitlines()) == 2
    assert cases["good.yaml"].find("failure") is None
    error = cases["broken.yaml"].find("error")
    assert error is not None and "missing required key 'players'" in error.attrib["message"]


def test_command_line_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--frobnicate", "x.yaml"]) == 1
    assert "unknown option --frobnicate" in capsys.readouterr().out
    assert main(["--junit"]) == 1
    assert "--junit needs a value" in capsys.readouterr().out


@pytest.mark.parametrize(
    "name",
    [
        "vampire_queen/vq02_two_players_refused.yaml",
        "vampire_queen/vq19_options_shown.yaml",
        "vampire_queen/vq20_hands_are_private.yaml",
        "mau_mau_vampires/mm08_draw_and_pass_repeated.yaml",
    ],
)
def test_shipped_feature_scenarios_pass(name: str) -> None:
    result = run_scenario(SHIPPED / name)
    assert result.ok, result.line()


class RuledSetupDriver(LibraryDriver):
    """A referee whose setup refusals carry rule ids (as the engine's will)."""

    def create(self, setup: Setup) -> None:
        try:
            super().create(setup)
        except SetupRefused as refused:
            raise SetupRefused(
                Outcome(refused.outcome.code, "VQ-2", refused.outcome.message)
            ) from None


def test_expected_setup_refusal_names_its_rule(tmp_path: Path) -> None:
    header = "game: vampire-queen\nplayers: 2\nexpect_setup: {code: INVALID_ARGUMENT, rule: %s}\n"
    path = write(tmp_path, "steps: []\n", header % "[VQ-2, VQ-3]")
    assert run_loaded(load_scenario(path), RuledSetupDriver).ok
    path = write(tmp_path, "steps: []\n", header % "VQ-3")
    line = run_loaded(load_scenario(path), RuledSetupDriver).line()
    assert "expect_setup: expected INVALID_ARGUMENT VQ-3, got INVALID_ARGUMENT VQ-2" in line


def test_the_seed_reveal_at_the_end_is_not_compared(tmp_path: Path) -> None:
    """A one-round game played to its end and its seed reveal (which, where a game makes it
    public, shows seed and deal by design): nothing differs for seat 0 and the spectator."""
    body = """\
        options: {rounds: 1}
        indistinguishable:
          - {name: other, viewers: [0, spectator], deal: {hands: %s}}
        steps:
          - {seat: 1, command: {vampireQueen: {playSet: {value: 5, count: 12, queens: 4}}}}
          - {seat: 2, command: {vampireQueen: {pass: {}}}}
          - {seat: 0, command: {vampireQueen: {pass: {}}}}
          - {seat: 1, command: {vampireQueen: {playSet: {value: 4, count: 1}}}}
          - {seat: 2, command: {vampireQueen: {pass: {}}}}
          - {seat: 0, command: {vampireQueen: {pass: {}}}}
          - {seat: 1, command: {vampireQueen: {leadHunter: {hunter: 20}}}}
          - {seat: 2, command: {vampireQueen: {playCard: {value: 8}}}}
          - seat: 0
            command: {vampireQueen: {playCard: {value: 3}}}
            view: {seat: spectator, match: {gameOver: true}}
        """
    hands = (
        "[[1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3], [5, 5, 5, 5, 5, 5, 5, 5, Q, Q, Q, Q, 4], "
        "[6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 8]]"
    )
    # Seat 2's other hand scores the same (VQ-18: its penalty points are public at the end).
    other = hands.replace(
        "[6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 8]", "[6, 6, 6, 6, 6, 6, 6, 4, 7, 7, 7, 9, 8]"
    )
    header = f"game: vampire-queen\nplayers: 3\ndeal: {{picks: [0], hands: {hands}}}\n"
    passes(tmp_path, body % other, header)
