"""Scenario files (``scenarios/**``) and the scenario runner (``referee.scenario``).

Every file under ``scenarios/`` runs as one test; the test id is the file and the rule ids its
header names (``# Rules: VQ-7 VQ-10``), so ``pytest -k VQ-7`` and ``grep -r VQ-7 scenarios``
both find the scenarios of a rule. Each header names only rule ids that exist in the
repository's rules pages (``docs/rules/``).

Then unit tests of the runner: a wrong expectation fails with a message naming the file, step,
expected and actual value; subset-match semantics; malformed files give clear errors.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from referee import rulebook
from referee.scenario import (
    ScenarioError,
    deals,
    load_scenario,
    main,
    model,
    run_scenario,
    subset_mismatch,
)
from tests.scenario.helpers import VQ_HEADER

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
DOCS = ROOT / "docs" / "scenarios.md"
RULES_DIR = ROOT / "docs" / "rules"
FILES = sorted(p for p in SCENARIOS.rglob("*") if p.suffix in model.SCENARIO_SUFFIXES)

#: Rules the brief requires at least one scenario file for.
REQUIRED_RULES = ("VQ-7", "VQ-9", "VQ-12", "VQ-13", "VQ-14", "VQ-15", "VQ-17")


def header_rules(path: Path) -> list[str]:
    """Rule ids named in the file's leading comment paragraph, by number."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#") or line.strip() == "#":
            break
        lines.append(line)
    found = set(re.findall(r"\b[A-Z]+-\d+\b", "\n".join(lines)))
    return sorted(found, key=lambda rule: (rule.split("-")[0], int(rule.split("-")[1])))


def _id(path: Path) -> str:
    return f"{path.relative_to(SCENARIOS).as_posix()} {' '.join(header_rules(path))}"


# --- the shipped scenarios ------------------------------------------------------------------


@pytest.mark.parametrize("path", FILES, ids=[_id(p) for p in FILES])
def test_scenario(path: Path) -> None:
    result = run_scenario(path)
    assert result.ok, result.line()
    assert result.steps_run == result.steps
    # A file without steps must check something else: its refused setup.
    assert result.steps > 0 or load_scenario(path).expect_setup is not None


def test_scenarios_exist() -> None:
    assert len(FILES) >= 7


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_header_names_rules(path: Path) -> None:
    assert path.read_text(encoding="utf-8").startswith("# Rules: ")
    assert header_rules(path), f"{path}: the first comment must name the rule ids it covers"


def test_required_rules_covered() -> None:
    covered = {rule for path in FILES for rule in header_rules(path)}
    assert not set(REQUIRED_RULES) - covered


def test_header_rule_ids_exist_in_the_rules_files() -> None:
    known = set()
    for rules_file in RULES_DIR.glob("*.md"):
        known |= set(rulebook.rule_ids(rules_file.read_text(encoding="utf-8")))
    assert "VQ-7" in known
    for path in FILES:
        unknown = set(header_rules(path)) - known
        assert not unknown, f"{path.name} names rules that do not exist: {sorted(unknown)}"


def test_docs_example_runs(tmp_path: Path) -> None:
    text = DOCS.read_text(encoding="utf-8")
    examples = re.findall(r"<!-- example -->\n```yaml\n(.*?)```", text, flags=re.S)
    assert examples, "docs/scenarios.md must hold an example marked <!-- example -->"
    for index, example in enumerate(examples):
        path = tmp_path / f"example{index}.yaml"
        path.write_text(example, encoding="utf-8")
        result = run_scenario(path)
        assert result.ok, result.line()


# --- helpers ----------------------------------------------------------------------------------

#: A 3-player deal: seat 0 gets the 15, seat 1 the 20 and leads (order 1, 2, 0).
HEADER = VQ_HEADER


def write(tmp_path: Path, body: str, name: str = "s.yaml", header: str = HEADER) -> Path:
    path = tmp_path / name
    path.write_text(header + textwrap.dedent(body), encoding="utf-8")
    return path


def fails(tmp_path: Path, body: str) -> str:
    result = run_scenario(write(tmp_path, body))
    assert not result.ok
    return result.line()


# --- failures are reported clearly ---------------------------------------------------------


def test_passing_scenario_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        steps:
          - seat: 1
            command: {vampireQueen: {playSet: {value: 5, count: 2, queens: 0}}}
            view: {match: {vampireQueen: {handSizes: [14, 12, 13]}}}
        """,
    )
    result = run_scenario(path)
    assert result.ok
    assert result.line() == f"ok  {path}  (1 steps)"


def test_wrong_view_expectation(tmp_path: Path) -> None:
    line = fails(
        tmp_path,
        """\
        steps:
          - seat: 1
            command: {vampireQueen: {playSet: {value: 5, count: 2, queens: 0}}}
          - expect_view:
              seat: 0
              match: {vampireQueen: {handSizes: [14, 13, 13]}}
        """,
    )
    assert line.startswith("FAIL  ")
    assert "s.yaml" in line
    assert "steps[1] (line 12)" in line
    assert "view of seat 0" in line
    assert "vampireQueen.handSizes[1]: expected 13, got 12" in line


def test_expected_rejection_but_accepted(tmp_path: Path) -> None:
    line = fails(
        tmp_path,
        """\
        steps:
          - seat: 1
            command: {vampireQueen: {playSet: {value: 5, count: 2, queens: 0}}}
            expect: {code: INVALID_ARGUMENT, rule: VQ-7}
        """,
    )
    assert "steps[0]" in line
    assert "expected INVALID_ARGUMENT VQ-7, got ok" in line


def test_expected_ok_but_rejected(tmp_path: Path) -> None:
    line = fails(
        tmp_path,
        """\
        steps:
          - seat: 1
            command: {vampireQueen: {playSet: {value: 9, count: 1, queens: 0}}}
        """,
    )
    assert "expected ok, got INVALID_ARGUMENT VQ-8: you do not hold" in line


def test_wrong_rule_and_code(tmp_path: Path) -> None:
    line = fails(
        tmp_path,
        """\
        steps:
          - seat: 0
            command: {vampireQueen: {pass: {}}}
            expect: {code: INVALID_ARGUMENT, rule: VQ-7}
        """,
    )
    assert "expected INVALID_ARGUMENT VQ-7, got FAILED_PRECONDITION VQ-6" in line
    line = fails(
        tmp_path,
        """\
        steps:
          - seat: 1
            command: {vampireQueen: {pass: {}}}
            expect: {code: INVALID_ARGUMENT, rule: VQ-7}
        """,
    )
    assert "got INVALID_ARGUMENT VQ-6" in line


def test_message_substring(tmp_path: Path) -> None:
    body = """\
        steps:
          - seat: 2
            command: {vampireQueen: {pass: {}}}
            expect: {code: FAILED_PRECONDITION, message: "%s"}
        """
    assert run_scenario(write(tmp_path, body % "waiting for seat 1")).ok
    assert "message containing 'seat 7'" in fails(tmp_path, body % "seat 7")


def test_wrong_events(tmp_path: Path) -> None:
    line = fails(
        tmp_path,
        """\
        steps:
          - seat: 1
            command: {vampireQueen: {leadHunter: {hunter: 20}}}
            events:
              as: spectator
              match: [{vampireQueen: {hunterLed: {seat: 1, hunter: 15}}}]
        """,
    )
    assert "events as the spectator: at [0].vampireQueen.hunterLed.hunter: expected 15, got 20" in (
        line
    )


def test_events_are_redacted_for_the_viewer(tmp_path: Path) -> None:
    """The last trick of a round deals round 2; each seat sees only its own new cards."""
    header = """\
        game: vampire-queen
        players: 3
        deal:
          picks: [0]
          decks:
            - hands:
                - [1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3]
                - [5, 5, 5, 5, 5, 5, 5, 5, Q, Q, Q, Q, 4]
                - [6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 8]
            - hands:
                - [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
        """
    body = """\
        steps:
          - {seat: 1, command: {vampireQueen: {playSet: {value: 5, count: 12, queens: 4}}}}
          - {seat: 2, command: {vampireQueen: {pass: {}}}}
          - {seat: 0, command: {vampireQueen: {pass: {}}}}
          - {seat: 1, command: {vampireQueen: {playSet: {value: 4, count: 1, queens: 0}}}}
          - {seat: 2, command: {vampireQueen: {pass: {}}}}
          - {seat: 0, command: {vampireQueen: {pass: {}}}}
          - {seat: 1, command: {vampireQueen: {leadHunter: {hunter: 20}}}}
          - {seat: 2, command: {vampireQueen: {playCard: {value: 8}}}}
          - seat: 0
            command: {vampireQueen: {playCard: {value: 3}}}
            events:
              as: %s
              match:
                - {vampireQueen: {cardPlayed: {seat: 0, value: 3}}}
                - {vampireQueen: {trickWon: {winner: 2}}}
                - {vampireQueen: {roundScored: {round: 1}}}
                - {vampireQueen: {roundStarted: {round: 2}}}
                - {vampireQueen: {handDealt: {seat: 0, count: 13, cards: %s}}}
                - {vampireQueen: {handDealt: {seat: 1, count: 13, cards: []}}}
                - {vampireQueen: {handDealt: {seat: 2, count: 13, cards: []}}}
        """
    own = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]"
    header = textwrap.dedent(header)
    assert run_scenario(write(tmp_path, body % (0, own), header=header)).ok
    assert run_scenario(write(tmp_path, body % ("spectator", "[]"), header=header)).ok
    line = run_scenario(write(tmp_path, body % (1, own), header=header)).line()
    want = "events as seat 1: at [4].vampireQueen.handDealt.cards: expected 13 item(s)"
    assert f"{want} {own}, got 0 []" in line


def test_stops_at_first_mismatch(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        steps:
          - seat: 1
            command: {vampireQueen: {pass: {}}}
            expect: {code: INVALID_ARGUMENT, rule: VQ-7}
          - seat: 1
            command: {vampireQueen: {pass: {}}}
            expect: {code: INVALID_ARGUMENT, rule: VQ-8}
        """,
    )
    result = run_scenario(path)
    assert result.failure is not None and result.failure.step is not None
    assert result.failure.step.index == 0
    assert result.steps_run == 0 and result.steps == 2


def test_codec_error_is_invalid_argument_without_rule(tmp_path: Path) -> None:
    body = """\
        steps:
          - seat: 1
            command: {vampireQueen: {playSet: {value: 5, colour: red}}}
            expect: %s
        """
    assert run_scenario(write(tmp_path, body % "{code: INVALID_ARGUMENT}")).ok
    line = fails(tmp_path, body % "{code: INVALID_ARGUMENT, rule: VQ-8}")
    assert "got INVALID_ARGUMENT (no rule): command:" in line
    assert "colour" in line
    empty = """\
        steps:
          - {seat: 1, command: {vampireQueen: {}}, expect: {code: INVALID_ARGUMENT}}
        """
    assert run_scenario(write(tmp_path, empty)).ok


def test_no_such_seat(tmp_path: Path) -> None:
    """A seat outside the table has no seat token: refused as a server refuses it."""
    path = write(
        tmp_path,
        """\
        steps:
          - seat: 5
            command: {vampireQueen: {pass: {}}}
            expect: {code: PERMISSION_DENIED, message: not a seat token}
        """,
    )
    result = run_scenario(path)
    assert result.ok, result.line()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # As CreateGame refuses them: the field at fault first.
        ("players: 2", "table not created: players: VQ-2: vampire-queen is for 3 to 12 players"),
        ("game: chess", "table not created: game_type: unknown game type 'chess'"),
        ("options: {hunter_tie: middle}", "option 'hunter_tie' must be one of first, last"),
        ("options: {colour: red}", "unknown option(s) colour"),
        ("deal: {picks: [7]}", "must be"),
    ],
)
def test_setup_errors(tmp_path: Path, change: str, message: str) -> None:
    header = f"game: vampire-queen\nplayers: 3\n{change}\n"
    path = write(tmp_path, "steps: []\n", header=header)
    result = run_scenario(path)
    assert not result.ok
    assert result.line().startswith(f"FAIL  {path}  setup: ")
    assert message in result.line()


# --- subset matching ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ({"a": 1}, {"a": 1, "b": 2}),  # extra keys are ignored
        ({"a": {"b": [1, {"c": 2}]}}, {"a": {"b": [1, {"c": 2, "d": 3}], "e": 4}}),
        ({"n": 0, "s": "", "f": False, "l": [], "x": None}, {}),  # proto3 JSON omits defaults
        ({"k": "TRICK_KIND_UNSPECIFIED", "p": "PLAY_KIND_UNSPECIFIED"}, {}),  # enum zeros
        ({"m": {"n": 0, "l": []}}, {}),  # a message of defaults
        ({"m": {}}, {}),
        ({"version": 12}, {"version": "12"}),  # 64-bit integers are JSON strings
        ({"x": 1.0}, {"x": 1}),
        ([], []),
        ("a", "a"),
    ],
)
def test_subset_matches(expected: object, actual: object) -> None:
    assert subset_mismatch(expected, actual) is None


@pytest.mark.parametrize(
    ("expected", "actual", "message"),
    [
        ({"a": 1}, {"a": 2}, "at a: expected 1, got 2"),
        ({"a": 1}, {}, "at a: expected 1, got (absent)"),
        ({"a": {"b": 1}}, {}, 'at a: expected {"b": 1}, got (absent)'),
        ({"k": "TRICK_KIND_HUNTER"}, {}, 'at k: expected "TRICK_KIND_HUNTER", got (absent)'),
        ({"a": [1, 2]}, {"a": [1, 2, 3]}, "at a: expected 2 item(s) [1, 2], got 3 [1, 2, 3]"),
        ({"a": [1, 2]}, {"a": [2, 1]}, "at a[0]: expected 1, got 2"),
        ({"a": [{"b": 1}]}, {"a": [{"b": 2}]}, "at a[0].b: expected 1, got 2"),
        ({"a": None}, {"a": 0}, "at a: expected null, got 0"),
        ({"a": True}, {"a": 1}, "at a: expected true, got 1"),
        ({"a": 1}, {"a": True}, "at a: expected 1, got true"),
        ({"a": 1}, {"a": "1x"}, 'at a: expected 1, got "1x"'),
        ({"a": "1"}, {"a": 1}, 'at a: expected "1", got 1'),
        ({"a": {}}, {"a": [1]}, "at a: expected an object {}, got [1]"),
        ({"a": []}, {"a": {}}, "at a: expected a list [], got {}"),
        ([1], [], "at (top): expected 1 item(s) [1], got 0 []"),
    ],
)
def test_subset_mismatches(expected: object, actual: object, message: str) -> None:
    assert subset_mismatch(expected, actual) == message


# --- malformed files ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- 1\n- 2\n", "a scenario is a mapping with game, players and steps"),
        ("game: vampire-queen\nplayers: 3\n", "missing required key 'steps'"),
        ("game: vampire-queen\nplayers: 3\nsteps: []\nturns: 1\n", "unknown key(s) turns"),
        ("game: vampire-queen\nplayers: three\nsteps: []\n", "players: expected an integer"),
        ("game: vampire-queen\nplayers: 3\nsteps: {a: 1}\n", "steps: expected a list of steps"),
        ("game: [1]\nplayers: 3\nsteps: []\n", "game: expected a game type id"),
        ("game: vampire-queen\nplayers: 3\nsteps: [\n", "invalid YAML"),
        ("game: vampire-queen\nplayers: 3\noptions: {rounds: yes}\nsteps: []\n", "(quote it)"),
        ("game: vampire-queen\nplayers: 3\nseed: [1]\nsteps: []\n", "seed: expected a string"),
    ],
)
def test_malformed_top_level(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    assert str(error.value).startswith(str(path))
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ("- 3", "steps[0] (line 10): expected a mapping"),
        ("- {seat: 1, comand: {}}", "steps[0] (line 10): unknown key(s) comand"),
        ("- {command: {vampireQueen: {pass: {}}}}", "a command needs the seat that sends it"),
        ("- {seat: 1}", "a step needs a command or a view check"),
        ("- {seat: 1, expect: ok}", "expect needs a command"),
        ("- {seat: 1, events: []}", "events needs a command"),
        ("- {expect_view: {match: {}}}", "say whose view to check"),
        ("- {expect_view: {seat: 3, match: {}}}", "no seat 3: seats are 0..2 or 'spectator'"),
        ("- {expect_view: {seat: 0}}", "expected {seat: N | spectator (optional), match"),
        ("- {seat: 0, view: {match: {}}, expect_view: {match: {}}}", "not both"),
        (
            "- {seat: 1, command: {}, expect: {code: NOPE}}",
            "expect.code: expected one of OK, INVALID_ARGUMENT, FAILED_PRECONDITION",
        ),
        ("- {seat: 1, command: {}, expect: maybe}", "expected ok or {code: ..., rule: ...}"),
        ("- {seat: 1, command: {}, expect: {code: OK, rule: VQ-7}}", "only go with a rejection"),
        ("- {seat: 1, command: {}, expect: {code: OK, why: x}}", "unknown key(s) why"),
        ("- {seat: 1, command: {}, events: {as: 9, match: []}}", "events.as: no seat 9"),
        ("- {seat: 1, command: {}, events: {match: {}}}", "expected a list or a list operator"),
        ("- {seat: -1, command: {}}", "steps[0] (line 10).seat: expected an integer >= 0"),
        ("- {seat: 1, command: pass}", "steps[0] (line 10).command: expected the proto JSON form"),
    ],
)
def test_malformed_steps(tmp_path: Path, step: str, message: str) -> None:
    path = write(tmp_path, "steps:\n" + textwrap.indent(step, "  ") + "\n")
    with pytest.raises(ScenarioError, match=re.escape(message)):
        load_scenario(path)


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        ("{hands: [[1, 2]]}", "deal.hands[0]: 2 cards; each seat is dealt 13 with 3 players"),
        (
            "{hands: [[1,1,1,1,1,1,1,1,2,2,2,2,3], [1,4,4,4,4,5,5,5,5,6,6,6,6]]}",
            'deal: the cards given use more than the deck holds: 9 x "1" (deck has 8)',
        ),
        ("{hands: [[20,1,1,1,1,1,1,1,2,2,2,2,3]]}", "hands[0][0]: Hunters are not dealt"),
        ("{hands: [[K,1,1,1,1,1,1,1,2,2,2,2,3]]}", "hands[0][0]: a card is 1-13 or Q (14)"),
        ("{hands: [[], [], [], []]}", "4 hands given for 3 players"),
        ("{hands: [[]], decks: []}", "give either hands (the first deal) or decks"),
        ("{decks: [[1, 2, 3]]}", "deal.decks[0]: not a permutation of the 108-card deck"),
        ("{decks: [{cards: []}]}", "deal.decks[0]: unknown key(s) cards"),
        ("{picks: [x]}", "deal.picks[0]: expected an integer"),
        ("{seat: 1}", "deal: unknown key(s) seat"),
        ("[1]", "deal: expected a mapping"),
    ],
)
def test_malformed_deals(tmp_path: Path, deal: str, message: str) -> None:
    header = f"game: vampire-queen\nplayers: 3\ndeal: {deal}\n"
    with pytest.raises(ScenarioError, match=re.escape(message)):
        load_scenario(write(tmp_path, "steps: []\n", header=header))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(tmp_path / "nope.yaml")


def test_invalid_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ScenarioError, match="invalid JSON"):
        load_scenario(path)


# --- deals --------------------------------------------------------------------------------


def test_hands_fill_the_deck_in_canonical_order(tmp_path: Path) -> None:
    hand = "[Q, 14, '13', 13, 1, 1, 1, 1, 1, 1, 1, 1, 2]"
    header = f"game: vampire-queen\nplayers: 3\ndeal: {{hands: [{hand}]}}\n"
    scenario = load_scenario(write(tmp_path, "steps: []\n", header=header))
    assert scenario.deal is not None
    (deck,) = scenario.deal.decks
    assert len(deck) == 108
    assert deck[:13] == ("Q", "Q", "13", "13", *["1"] * 8, "2")
    assert deck[13:26] == ("2",) * 7 + ("3",) * 6  # seat 1: the rest, in canonical order
    assert deck[-2:] == ("Q", "Q")


def test_decks_accept_full_orders_and_hands(tmp_path: Path) -> None:
    full = json.dumps([str(v) for v in range(13, 0, -1) for _ in range(8)] + ["Q"] * 4)
    header = (
        "game: vampire-queen\nplayers: 3\n"
        f"deal: {{picks: [1], decks: [{full}, {{hands: [[], ]}}]}}\n"
    )
    with pytest.raises(ScenarioError, match=re.escape("deal.decks[1].hands[0]: 0 cards")):
        load_scenario(write(tmp_path, "steps: []\n", header=header))
    header = header.replace("{hands: [[], ]}", "{hands: []}")
    scenario = load_scenario(write(tmp_path, "steps: []\n", header=header))
    assert scenario.deal is not None
    assert scenario.deal.picks == (1,)
    assert scenario.deal.decks[0][:8] == ("13",) * 8
    path = write(
        tmp_path,
        """\
        steps:
          - expect_view:
              seat: 0
              match: {vampireQueen: {hand: [12, 12, 12, 12, 12, 13, 13, 13, 13, 13, 13, 13, 13],
                                     leader: 2, hunter15Holder: 1, hunter20Holder: 2}}
        """,
        header=header,
    )
    assert run_scenario(path).ok


def test_json_scenario(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    scenario: dict[str, Any] = {
        "game": "vampire-queen",
        "players": 3,
        "seed": "json",
        "deal": {"picks": [2]},
        "steps": [
            {
                "seat": 0,
                "command": {"vampireQueen": {"pass": {}}},
                "expect": {"code": "INVALID_ARGUMENT", "rule": "VQ-6"},
            },
            {
                "expect_view": {
                    "seat": "spectator",
                    "match": {"vampireQueen": {"leader": 0, "hunter15Holder": 2}},
                }
            },
        ],
    }
    path.write_text(json.dumps(scenario), encoding="utf-8")
    result = run_scenario(path)
    assert result.ok, result.line()
    assert result.line() == f"ok  {path}  (2 steps)"
    scenario["steps"][1]["expect_view"]["match"]["vampireQueen"]["leader"] = 1
    path.write_text(json.dumps(scenario, indent=1), encoding="utf-8")
    line = run_scenario(path).line()
    assert "steps[1] (line 23): view of the spectator: at vampireQueen.leader" in line


def test_default_seed_is_fixed(tmp_path: Path) -> None:
    header = "game: vampire-queen\nplayers: 4\n"
    path = write(tmp_path, "steps: []\n", header=header)
    assert load_scenario(path).seed == model.DEFAULT_SEED


def test_deal_modules(tmp_path: Path) -> None:
    """Every game offers its deal module; a game without one takes decks and picks only."""
    for game in ("vampire-queen", "sleeping-queens", "dracula-vs-van-helsing", "mau-mau-vampires"):
        assert deals.deal_module(game) is not None, game
    assert deals.deal_module("chess") is None
    header = "game: chess\nplayers: 3\ndeal: {hands: [[1]]}\n"
    with pytest.raises(ScenarioError, match=re.escape("deal: hands need a deal module for chess")):
        load_scenario(write(tmp_path, "steps: []\n", header=header))


# --- main -----------------------------------------------------------------------------------


def test_main(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(
        tmp_path,
        "steps:\n  - seat: 1\n    command: {vampireQueen: {pass: {}}}\n"
        "    expect: {code: INVALID_ARGUMENT}\n",
        name="good.yaml",
    )
    bad = write(
        tmp_path,
        "steps:\n  - {seat: 1, command: {vampireQueen: {pass: {}}}}\n",
        name="bad.yaml",
    )
    broken = tmp_path / "broken.yaml"
    broken.write_text("game: vampire-queen\n", encoding="utf-8")

    assert main([str(good)]) == 0
    assert capsys.readouterr().out == f"ok  {good}  (1 steps)\n"

    assert main([str(good), str(bad), str(broken)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"ok  {good}  (1 steps)"
    assert lines[1].startswith(
        f"FAIL  {bad}  steps[0] (line 10): expected ok, got INVALID_ARGUMENT VQ-6"
    )
    assert lines[2] == f"ERROR  {broken}  missing required key 'players'"

    assert main([str(tmp_path)]) == 1  # a directory: every scenario file below it, sorted
    names = [line.split()[1] for line in capsys.readouterr().out.splitlines()]
    assert names == [str(bad), str(broken), str(good)]


def test_main_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 1
    assert "usage: referee scenario run" in capsys.readouterr().out
    assert main(["--help"]) == 0
    assert "docs/scenarios.md" in capsys.readouterr().out


def test_main_shipped_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(SCENARIOS)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(FILES)
    assert all(line.startswith("ok  ") for line in lines)
