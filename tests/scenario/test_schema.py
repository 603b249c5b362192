"""Every key of every ``match`` is checked against the proto schema when a file is loaded.

The defect this guards against: a misspelt key whose expected value is a default
(``deckTopp: {colour: COLOUR_UNSPECIFIED}``, ``calledByy: null``) used to match the missing
key of the actual JSON, so the check could never fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.scenario import ScenarioError, load_scenario, run_scenario
from referee.scenario import match as schema
from referee.v1 import referee_pb2 as pb
from tests.scenario.helpers import DV_HEADER, FILES, fails, passes, write

DV_DRAW = "  - seat: 0\n    command: {draculaVsVanHelsing: {draw: {}}}\n"


@pytest.mark.parametrize(
    ("check", "path", "hint"),
    [
        (
            "view: {match: {draculaVsVanHelsing: {deckTopp: {colour: COLOUR_UNSPECIFIED}}}}",
            "steps[0] (line 9).view.match.draculaVsVanHelsing.deckTopp",
            "did you mean deckTop?",
        ),
        (
            "view: {match: {draculaVsVanHelsing: {calledByy: null}}}",
            "steps[0] (line 9).view.match.draculaVsVanHelsing.calledByy",
            "did you mean calledBy?",
        ),
        (
            "view: [{seat: 1, match: {pendingSeats: []}}, {match: {legalComands: []}}]",
            "steps[0] (line 9).view[1].match.legalComands",
            "did you mean legalCommands?",
        ),
        (
            "view: {match: {pending_seats: []}}",
            "steps[0] (line 9).view.match.pending_seats",
            "did you mean pendingSeats? keys are the proto JSON names",
        ),
        (
            "events: [{draculaVsVanHelsing: {cardDrawn: {seat: 0, kard: {}}}}]",
            "steps[0] (line 9).events[0].draculaVsVanHelsing.cardDrawn.kard",
            "unknown field of referee.v1.DraculaVsVanHelsingEvent.CardDrawn",
        ),
        (
            "events: {as: spectator, match: [{}, {sequnce: 3}]}",
            "steps[0] (line 9).events.match[1].sequnce",
            "did you mean sequence?",
        ),
        (
            "view: {match: {draculaVsVanHelsing: {step: STEP_DRAWN_CARD}}}",
            "steps[0] (line 9).view.match.draculaVsVanHelsing.step",
            "is not a value of referee.v1.DraculaVsVanHelsingView.Step",
        ),
    ],
)
def test_unknown_keys_fail_the_file_with_their_path(
    tmp_path: Path, check: str, path: str, hint: str
) -> None:
    body = "steps:\n" + DV_DRAW + "    " + check + "\n"
    with pytest.raises(ScenarioError) as error:
        load_scenario(write(tmp_path, body, DV_HEADER))
    assert f"{path}: " in str(error.value)
    assert hint in str(error.value)


def test_the_defect_file_is_refused() -> None:
    """The shipped regression file: misspelt keys with default values, once a silent pass."""
    with pytest.raises(ScenarioError, match=re.escape("draculaVsVanHelsing.deckTopp")):
        run_scenario(FILES / "misspelt_key.yaml")


def test_correct_keys_with_default_values_still_match(tmp_path: Path) -> None:
    passes(
        tmp_path,
        "steps:\n" + DV_DRAW + "    view: {seat: 1, match: {draculaVsVanHelsing: "
        "{deckTop: {colour: COLOUR_UNSPECIFIED}, calledBy: null}}}\n",
        DV_HEADER,
    )


def test_an_event_of_another_kind_does_not_match_defaults(tmp_path: Path) -> None:
    """``{passed: {seat: 0}}`` names an event kind: another kind must not match it, although
    every value it gives is a default."""
    body = """\
        steps:
          - seat: 1
            command: {vampireQueen: {leadHunter: {hunter: 20}}}
            events: [{vampireQueen: {passed: {seat: 0}}}]
        """
    line = fails(tmp_path, body)
    assert "at [0].vampireQueen.passed: expected" in line
    assert "got (absent)" in line


def test_an_optional_field_left_out_is_not_zero(tmp_path: Path) -> None:
    """``bestSeat`` has presence: absent (nothing led) is not seat 0."""
    body = """\
        steps:
          - expect_view: {seat: spectator, match: {vampireQueen: {bestSeat: 0}}}
        """
    assert "at vampireQueen.bestSeat: expected 0, got (absent)" in fails(tmp_path, body)


def test_no_field_is_named_like_an_operator() -> None:
    """Operator mappings are told from sub-messages by their keys: no field may share them."""
    seen: set[str] = set()
    stack = [pb.View.DESCRIPTOR, pb.Event.DESCRIPTOR, pb.GameType.DESCRIPTOR]
    while stack:
        message = stack.pop()
        if message.full_name in seen:
            continue
        seen.add(message.full_name)
        for field in message.fields:
            assert field.json_name not in schema.OPS, f"{message.full_name}.{field.name}"
            if field.message_type is not None:
                stack.append(field.message_type)
    assert len(seen) > 50
