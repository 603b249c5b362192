"""Whole tournaments against a real referee: bot processes (Python strategies, the Node.js bot,
a crashing and a hanging bot), every output, and --local giving the same results."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from referee_tournament.__main__ import main
from referee_tournament.config import parse
from referee_tournament.tournament import comparable, run

from .conftest import flaky_bot

PNG = b"\x89PNG\r\n\x1a\n"


def test_four_bots_duplicate_deals_of_two_games(
    address: str, node_bot: dict[str, Any], tmp_path: Path
) -> None:
    """A tournament of two Python strategies, the Node.js bot and a crashing bot over
    duplicate deals of Vampire Queen and Sleeping Queens."""
    config = parse(
        {
            "name": "four-bots",
            "seed": "ci",
            "format": "duplicate",
            "deals": 1,
            "parallel": 2,
            "games": [
                {"game": "vampire-queen", "players": 4, "options": {"rounds": 1}},
                {"game": "sleeping-queens", "players": 4},
            ],
            "limits": {"move_timeout": 5},
            "bots": [
                {"name": "heuristic", "strategy": "heuristic"},
                {"name": "random", "strategy": "random"},
                node_bot,
                flaky_bot("crashy", "crash", after=2),
            ],
        }
    )
    started = time.monotonic()
    outcome = run(config, out=tmp_path, server=address)
    elapsed = time.monotonic() - started
    assert elapsed < 60, f"the tournament took {elapsed:.1f} s"
    results = outcome.results
    games = results["games"]
    # 4 seatings (a balanced Latin square) of one deal per game type
    assert len(games) == 8 and results["summary"]["failed"] == 0
    for game in games:
        assert len({g["seed"] for g in games if g["game"] == game["game"]}) == 1
        crashy = next(s for s in game["seats"] if s["bot"] == "crashy")
        # The crash costs the bot, never the game: the referee finishes its seat, last.
        assert game["status"] == "ok" and crashy["end"] == "abandoned" and crashy["rank"] == 4
        assert next(f["kind"] for f in game["faults"] if f["bot"] == "crashy") == "crash"
        assert not [f for f in game["faults"] if f["bot"] != "crashy"], game["faults"]
        assert sorted(s["rank"] for s in game["seats"])[0] == 1
    table = {row["bot"]: row for row in results["standings"]}
    assert set(table) == {"heuristic", "random", "node", "crashy"}
    assert table["crashy"]["faults"]["crash"] == 8 and table["node"]["faults"] == {}
    for row in table.values():
        assert row["games"] == 8
        low, high = row["win_rate_ci95"]
        assert 0 <= low <= row["win_rate"] <= high <= 1
        assert row["rating"]["sigma"] < 25 / 3  # games made the ratings surer
    assert set(results["by_game"]) == {"vampire-queen", "sleeping-queens"}
    # Outputs: JSON, a real PNG, the HTML with the chart inline and links to replays.
    assert json.loads((tmp_path / "results.json").read_text())["name"] == "four-bots"
    assert (tmp_path / "standings.png").read_bytes().startswith(PNG)
    page = (tmp_path / "report.html").read_text()
    assert "data:image/png;base64,iVBORw0KGgo" in page
    for game in games:
        assert f'href="{game["replay"]}"' in page
        replay = json.loads((tmp_path / game["replay"]).read_text())
        assert replay["game_id"] == game["game_id"] and replay["events"]
        assert replay["final_view"]["game_over"]
    features = results["referee_features"]
    if features["seat_stats"]:
        assert all(s["commands"] is not None for g in games for s in g["seats"])
    if features["defer_seed_reveal"]:
        assert all(g["seed_revealed"] and g["seed_commitment"] for g in games)
    # referee verify passed on every game of the tournament
    assert all(g["verified"] is True for g in games), [g["detail"] for g in games]


def test_a_hanging_bot_is_removed_and_ranked_last(address: str, tmp_path: Path) -> None:
    config = parse(
        {
            "name": "hang",
            "seed": "hang",
            "game": "sleeping-queens",
            "players": 2,
            "limits": {"move_timeout": 1, "exit_grace": 1},
            "bots": [{"name": "random", "strategy": "random"}, flaky_bot("sleepy", "hang")],
        }
    )
    results = run(config, out=tmp_path, server=address).results
    assert results["summary"]["ok"] == 2
    for game in results["games"]:
        ends = {s["bot"]: (s["rank"], s["end"]) for s in game["seats"]}
        assert ends == {"random": (1, "finished"), "sleepy": (2, "abandoned")}
        sleepy = next(s for s in game["seats"] if s["bot"] == "sleepy")
        assert "the organiser removed it: hang: no move within 1" in sleepy["end_reason"]
        assert [f["kind"] for f in game["faults"]] == ["hang"]  # no disconnect for the others
    table = {row["bot"]: row for row in results["standings"]}
    assert table["sleepy"]["left"] == 2 and table["sleepy"]["faults"] == {"hang": 2}
    assert table["random"]["place"] == 1


def test_illegal_commands_are_counted_by_the_referee(address: str, tmp_path: Path) -> None:
    config = parse(
        {
            "name": "illegal",
            "seed": "illegal",
            "game": "sleeping-queens",
            "players": 2,
            "bots": [{"name": "random", "strategy": "random"}, flaky_bot("clumsy", "illegal", 99)],
        }
    )
    outcome = run(config, out=tmp_path, server=address)
    results = outcome.results
    assert results["summary"]["ok"] == 2
    if not results["referee_features"]["seat_stats"]:
        pytest.skip("this referee has no GameSummary.seat_stats")
    assert {row["bot"]: row["faults"] for row in results["standings"]} == {
        "random": {},
        "clumsy": {"rejected": 2},
    }


def deterministic(games: list[dict[str, Any]], **extra: Any) -> Any:
    return parse(
        {
            "name": "same",
            "seed": "same",
            "games": games,
            "bots": [
                {"name": "heuristic", "strategy": "heuristic"},
                {"name": "random-1", "strategy": "random"},
                {"name": "random-2", "strategy": "random"},
            ],
            **extra,
        }
    )


@pytest.mark.parametrize("fmt", ["duplicate", "swiss"])
def test_local_mode_gives_the_networked_results(address: str, tmp_path: Path, fmt: str) -> None:
    games: list[dict[str, Any]] = [{"game": "sleeping-queens", "players": 2}]
    extra: dict[str, Any] = {"format": fmt}
    if fmt == "swiss":
        extra["rounds"] = 2
    else:
        games.insert(0, {"game": "vampire-queen", "players": 3, "options": {"rounds": 1}})
    config = deterministic(games, **extra)
    network = run(config, out=tmp_path / "network", server=address, outputs=False).results
    local = run(config, out=tmp_path / "local", local=True, outputs=False).results
    assert network["mode"] == "network" and local["mode"] == "local"
    assert network["summary"]["ok"] == len(network["games"]) > 0
    assert comparable(network) == comparable(local)


def test_local_mode_needs_strategies(tmp_path: Path) -> None:
    config = parse(
        {
            "game": "vampire-queen",
            "players": 3,
            "bots": [
                {"name": "a", "strategy": "random"},
                {"name": "b", "strategy": "random"},
                {"name": "c", "command": "somebot {token}"},
            ],
        }
    )
    with pytest.raises(ValueError, match="bot 'c' has no strategy"):
        run(config, out=tmp_path, local=True)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        "name: cli\nseed: 1\nformat: round-robin\ngame: vampire-queen\nplayers: 3\n"
        "options: {rounds: 1}\nbots:\n"
        + "".join(f"  - {{name: {n}, strategy: {n}}}\n" for n in ("heuristic", "random"))
        + "  - {name: other, strategy: random}\n"
    )
    out = tmp_path / "out"
    assert main([str(path), "--local", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "cli: 6 games" in captured.out and "report:" in captured.out
    assert "[6/6]" in captured.err  # one line per game when not on a terminal
    assert (out / "report.html").is_file() and len(list((out / "games").iterdir())) == 6

    path.write_text("game: vampire-queen\nplayers: 3\nbots: []\n")
    assert main([str(path), "--local"]) == 2
    assert "bots: a list of at least two bots" in capsys.readouterr().err
    path.write_text(
        "game: no-such-game\nplayers: 3\nbots:\n"
        + "".join(f"  - {{name: {n}, strategy: random}}\n" for n in "abc")
    )
    assert main([str(path), "--local", "--out", str(out)]) == 2
    assert "unknown game type 'no-such-game'" in capsys.readouterr().err


def test_cli_against_a_server_checks_the_game(
    address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        "game: vampire-queen\nplayers: 2\nbots:\n"
        + "".join(f"  - {{name: {n}, strategy: random}}\n" for n in "ab")
    )
    assert main([str(path), "--server", address, "--out", str(tmp_path / "o")]) == 2
    assert "vampire-queen is for 3 to 12 players" in capsys.readouterr().err
