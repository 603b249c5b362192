"""Both modes of the scenario kit agree on everything a file can check (docs/scenarios.md):
every shipped scenario is played in-process (``LibraryDriver``, the referee application) and
over gRPC (``ServerDriver``, a real server), and what the runner was handed in each is the
same: every outcome, version, sequence number, description, view, event and summary, but for
what differs by design between two games (ids, times, salted commitments)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.engine.game import Viewer
from referee.scenario import run_scenario
from referee.scenario.compare import comparable
from referee.scenario.drivers import Driver, LibraryDriver, Outcome, Setup
from referee.scenario.model import SCENARIO_SUFFIXES
from referee.scenario.remote import ServerDriver
from referee.server.app import RefereeServer

SHIPPED = Path(__file__).resolve().parents[2] / "scenarios"
FILES = sorted(p for p in SHIPPED.rglob("*") if p.suffix in SCENARIO_SUFFIXES)

#: Keys whose values differ between any two games by design: the game id and times, and what
#: is salted with a per-game random salt (the commitments; the reveal shows the salt).
DIFFERENT_BY_DESIGN = {
    "gameId",
    "createdUnixMs",
    "recordedUnixMs",
    "decisionMs",
    "decisionMsTotal",
    "clientDecisionMs",
    "seedCommitment",
    "dealCommitment",
    "commitment",
    "salt",
}


def same_in_any_game(value: Any) -> Any:
    return comparable(value, DIFFERENT_BY_DESIGN)


class Recording(Driver):
    """``inner``, noting in ``notes`` everything it hands the runner."""

    def __init__(self, inner: Driver, notes: list[Any]) -> None:
        self.inner = inner
        self.notes = notes

    def game_type(self, game_type: str) -> dict[str, Any] | None:
        described = self.inner.game_type(game_type)
        self.notes.append(("game type", described))
        return described

    def create(self, setup: Setup) -> None:
        try:
            self.inner.create(setup)
        except Exception as error:
            self.notes.append(("create refused", repr(error)))
            raise
        self.players = self.inner.players
        self.notes.append(("created", same_in_any_game(self.inner.summary())))

    def submit(self, seat: int, command: Any) -> Outcome:
        outcome = self.inner.submit(seat, command)
        self.notes.append(("submit", seat, outcome))
        return outcome

    def version(self) -> int:
        version = self.inner.version()
        self.notes.append(("version", version))
        return version

    def view(self, viewer: Viewer) -> dict[str, Any]:
        view = self.inner.view(viewer)
        self.notes.append(("view", viewer, same_in_any_game(view)))
        return view

    def current_view(self, viewer: Viewer) -> dict[str, Any]:
        view = self.inner.current_view(viewer)
        self.notes.append(("current view", viewer, same_in_any_game(view)))
        return view

    def events(self, first: int, last: int, viewer: Viewer) -> list[dict[str, Any]]:
        events = self.inner.events(first, last, viewer)
        self.notes.append(("events", first, last, viewer, same_in_any_game(events)))
        return events

    def summary(self) -> dict[str, Any]:
        summary = self.inner.summary()
        self.notes.append(("summary", same_in_any_game(summary)))
        return summary

    def close(self) -> None:
        self.inner.close()


def played(path: Path, make: Any) -> tuple[list[Any], Any]:
    notes: list[Any] = []
    result = run_scenario(path, lambda: Recording(make(), notes), mode="recorded")
    return notes, result


def first_disagreement(library: list[Any], server: list[Any]) -> str | None:
    for index, (ours, theirs) in enumerate(zip(library, server, strict=False)):
        if ours != theirs:
            return f"item {index}:\n  library {ours!r}\n  server  {theirs!r}"
    if len(library) != len(server):
        return f"{len(library)} items in the library, {len(server)} on the server"
    return None


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(SHIPPED).as_posix() for p in FILES])
def test_both_modes_hand_the_runner_the_same(server: RefereeServer, path: Path) -> None:
    library, in_library = played(path, LibraryDriver)
    remote, on_server = played(path, lambda: ServerDriver(server.address))
    assert in_library.ok, in_library.line()
    assert on_server.ok, on_server.line()
    assert on_server.steps_run == on_server.steps
    assert library, "the run handed the runner nothing"
    problem = first_disagreement(library, remote)
    assert problem is None, problem


def test_the_library_has_the_servers_versions_and_descriptions(tmp_path: Path) -> None:
    """Library mode says what the server says: the spectator's first view has the version of a
    log with the per-card commitments, and events carry their description."""
    path = tmp_path / "one.yaml"
    path.write_text(
        "game: vampire-queen\nplayers: 3\nsteps:\n  - {view: {seat: spectator, match: {}}}\n"
    )
    notes, result = played(path, LibraryDriver)
    assert result.ok, result.line()
    [view] = [note for note in notes if note[0] == "view"]
    summary = notes[0][1] if notes[0][0] == "created" else {}
    assert int(view[2]["version"]) == int(summary["version"]) > 1
    driver = LibraryDriver()
    try:
        driver.create(Setup("vampire-queen", 3, {}, "scenario"))
        events = driver.events(1, int(summary["version"]), None)
        live = driver.referee.games[driver.game_id]
        names = [type(event).__name__ for event in live.table.log]
    finally:
        driver.close()
    assert {"DeckCommitted", "SeedCommitted"} <= set(names), names
    assert events and all(event.get("description") for event in events)


def test_the_comparison_sees_a_difference() -> None:
    """The check itself: a version that differs is reported, a salted commitment is not."""

    def view(version: int, game_id: str, commitment: str) -> list[Any]:
        seen = {"version": version, "gameId": game_id, "seedCommitment": commitment}
        return [("view", None, same_in_any_game(seen))]

    problem = first_disagreement(view(6, "a", "x"), view(9, "b", "y"))
    assert problem is not None and "'version': 6" in problem and "'version': 9" in problem
    assert first_disagreement(view(9, "a", "x"), view(9, "b", "y")) is None
