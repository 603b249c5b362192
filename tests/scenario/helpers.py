"""Helpers of the scenario-runner tests: write a scenario file, run it, get its report."""

from __future__ import annotations

import textwrap
from pathlib import Path

from referee.scenario.model import ScenarioResult
from referee.scenario.run import run_scenario

FILES = Path(__file__).resolve().parent / "files"

#: Dracula vs Van Helsing, seat 0 Dracula (the default), a fixed first deck.
DV_HEADER = """\
game: dracula-vs-van-helsing
players: 2
deal:
  picks: [0, 0, 0, 0]
  decks:
    - [B8, B7, B6, B5, B4, Y8, Y7, Y6, Y5, Y4, P3, P1, B3,
       Y1, Y2, Y3, B1, B2, R1, R2, R3, R4, R5, R6, R7, R8, P2, P4, P5, P6, P7, P8]
"""

#: Vampire Queen, 3 players: seat 0 gets the 15, seat 1 the 20 and leads (order 1, 2, 0).
VQ_HEADER = """\
game: vampire-queen
players: 3
deal:
  picks: [0]
  hands:
    - [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4]
    - [5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8]
    - [9, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 11, Q]
"""


def write(tmp_path: Path, body: str, header: str = VQ_HEADER, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(header + textwrap.dedent(body), encoding="utf-8")
    return path


def run(tmp_path: Path, body: str, header: str = VQ_HEADER) -> ScenarioResult:
    return run_scenario(write(tmp_path, body, header))


def fails(tmp_path: Path, body: str, header: str = VQ_HEADER) -> str:
    result = run(tmp_path, body, header)
    assert not result.ok, "the scenario passed but should have failed"
    return result.line()


def passes(tmp_path: Path, body: str, header: str = VQ_HEADER) -> None:
    result = run(tmp_path, body, header)
    assert result.ok, result.line()
