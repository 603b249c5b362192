"""``referee bench --quick`` writes its JSON and Markdown (P1 and P5 at minimal size).

A smoke test only: no speed is asserted anywhere (the machine is shared and noisy); the
figures themselves are compared in docs/performance.md, as ratios measured side by side.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from referee.bench import parse_parts
from referee.cli import main


def test_quick_p1_and_p5_write_json_and_markdown(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    argv = ["bench", "--quick", "--only", "P1,P5", "--out", str(out), "--recovery-games", "4"]
    assert main(argv) == 0

    report = json.loads((out / "bench.json").read_text())
    assert set(report) == {"meta", "headline", "targets", "results"}
    assert report["meta"]["quick"] is True
    assert report["meta"]["parts"] == ["P1", "P5"]
    assert report["meta"]["command"] == "referee " + " ".join(argv)
    assert set(report["results"]) == {"P1", "P5"}

    p1 = report["results"]["P1"]
    assert {"games", "peers", "notes", "peer_versions", "min_ratio"} <= set(p1)
    assert {row["game"] for row in p1["games"]} >= {"vampire-queen"}
    for row in p1["games"]:
        assert row["steps"] > 0 and row["steps_per_second"] > 0
        assert "ratio_to_rlcard_uno" in row
    # A peer is either measured or skipped with a note, never an error.
    measured = {row["game"] for row in p1["peers"]}
    assert len(measured) + len(p1["notes"]) == 2

    p5 = report["results"]["P5"]
    for mode in ("normal", "full"):
        appends = p5["appends"][mode]
        assert appends["store_appends_per_second"] > 0 and appends["raw_inserts_per_second"] > 0
        assert {"ratio", "raw_same_writes_ratio", "grouped_ratio", "grouped_p99_ms"} <= set(appends)
        assert appends["grouped_appends_per_second"] > 0 and appends["grouped_mean_group"] >= 1
    recovery = p5["recovery"]
    assert (recovery["games"], recovery["finished"], recovery["running"]) == (4, 2, 2)
    assert recovery["games_listed"] == 4
    assert {"ready_seconds", "replay_running_seconds"} <= set(recovery)

    markdown = (out / "bench.md").read_text()
    assert "| P1 |" in markdown and "| P5 |" in markdown
    assert "## P1 engine" in markdown and "## P5 store" in markdown
    assert report["meta"]["command"] in markdown


def test_unknown_part_is_refused() -> None:
    with pytest.raises(ValueError, match="P99"):
        parse_parts("P1,P99")
    with pytest.raises(SystemExit):
        main(["bench", "--only", "P99"])


def test_quick_p10_plays_over_player_streams(tmp_path: Path) -> None:
    """P10's three windows run and its programs' commands are all accepted (no speed)."""
    out = tmp_path / "bench"
    assert main(["bench", "--quick", "--only", "P10", "--out", str(out)]) == 0
    p10 = json.loads((out / "bench.json").read_text())["results"]["P10"]
    assert p10["errors"] == 0 and p10["player_commands_per_second"] > 0
    assert {"to_fanout", "to_p2", "cpu_to_p2"} <= set(p10)
    assert all("load average" in r["uptime_before"] for r in p10["rounds"])
    assert "## P10 the player stream" in (out / "bench.md").read_text()


def test_quick_p12_splits_a_command_by_stage(tmp_path: Path) -> None:
    """P12's windows run and every stage of ``stages.STAGES`` has a row (no speed)."""
    from referee.bench import stages

    out = tmp_path / "bench"
    assert main(["bench", "--quick", "--only", "P12", "--out", str(out)]) == 0
    p12 = json.loads((out / "bench.json").read_text())["results"]["P12"]
    assert p12["plain_us"] > 0 and p12["engine_step_us"] > 0 and p12["steps_per_command"] > 0
    assert set(stages.STAGES) | {"unattributed"} == set(p12["stages_us"])
    assert p12["missing"] == [] and all(r["load_average"] for r in p12["rounds"])
    assert "## P12 the in-process budget per command" in (out / "bench.md").read_text()


def test_quick_p13_plays_on_one_and_three_replicas(tmp_path: Path) -> None:
    """P13's four windows run on PostgreSQL, every command is accepted and the CPU is read
    for each replica (no speed)."""
    from tests.store.pg import temporary_database

    with temporary_database():  # skips (or, in CI, fails) without a PostgreSQL server
        pass
    out = tmp_path / "bench"
    assert main(["bench", "--quick", "--only", "P13", "--out", str(out)]) == 0
    p13 = json.loads((out / "bench.json").read_text())["results"]["P13"]
    assert "skipped" not in p13 and p13["errors"] == 0
    [windows] = [r["windows"] for r in p13["rounds"]]
    assert set(windows) == {"one", "split", "together", "one/3"}
    for window in windows.values():
        assert window["measured_commands"] > 0
        assert len(window["replica_cpu_us_per_command"]) == window["replicas"]
        assert all(cpu > 0 for cpu in window["replica_cpu_us_per_command"])
    assert "## P13 replicas scale" in (out / "bench.md").read_text()


def test_quick_p11_reports_every_game_and_its_peers() -> None:
    from referee.bench import search

    p11 = search.run(quick=True)
    games = {(row["game"], row["players"]) for row in p11["games"]}
    assert {game for game, _ in games} == {
        "dracula-vs-van-helsing",
        "mau-mau-vampires",
        "sleeping-queens",
        "vampire-queen",
    }
    for row in p11["games"]:
        for op in search.OURS:
            assert row[f"{op}_per_second"] > 0
    # OpenSpiel is either measured (both games) or skipped with a note, never an error.
    assert len(p11["peers"]) == len(search.SPIEL_GAMES) or p11["notes"]
    assert {row["game"] for row in p11["environments"]} == {game for game, _ in games}
    for row in p11["environments"]:
        assert row["env_copy_step_us"] > 0 and row["env_deepcopy_step_us"] > 0
    text = "\n".join(search.markdown(p11))
    assert "## P11 search" in text and "| env copy + step µs |" in text


def test_the_memory_breakdown_names_the_line_that_holds_the_bytes(tmp_path: Path) -> None:
    """P4's ``--trace``: two tracemalloc snapshots, the growth between them
    divided by what was added, by line; the line that allocated what is still held comes first
    with its bytes each."""
    import tracemalloc

    from referee.bench import memtrace

    held: list[bytes] = []
    tracemalloc.start(memtrace.FRAMES)
    try:
        tracemalloc.take_snapshot().dump(str(tmp_path / "before"))
        for _ in range(500):
            held.append(bytes(1000))  # the line to find: 500 blocks of about 1 KB
        tracemalloc.take_snapshot().dump(str(tmp_path / "after"))
    finally:
        tracemalloc.stop()
    found = memtrace.breakdown(tmp_path / "before", tmp_path / "after", len(held))
    top = found["by_line"][0]
    assert "test_bench.py:" in top["where"]
    assert 1000 <= top["bytes_each"] < 1100 and round(top["blocks_each"], 1) == 1
    assert found["traced_kib_each"] >= 1000 / 1024
    assert found["by_file"][0]["where"].endswith("test_bench.py")


def _boardgameio_or_skip() -> None:
    from referee.bench import boardgame

    note = boardgame.missing()
    if note is not None:
        pytest.skip(note)


def test_the_boardgameio_peer_game_accepts_what_its_views_offer() -> None:
    """P14's own game for boardgame.io (game.js), under node's test runner."""
    import subprocess

    from referee.bench import boardgame

    _boardgameio_or_skip()
    done = subprocess.run(
        ["node", "--test", "game.test.js"],
        cwd=boardgame.FOLDER,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# pass 3" in done.stdout


def test_quick_p14_drives_both_servers_with_their_users_clients(tmp_path: Path) -> None:
    """P14's windows run on boardgame.io and on the referee, every move is accepted on both,
    and every figure has its ratio (no speed)."""
    _boardgameio_or_skip()
    out = tmp_path / "bench"
    assert main(["bench", "--quick", "--only", "P14", "--out", str(out)]) == 0
    p14 = json.loads((out / "bench.json").read_text())["results"]["P14"]
    assert p14["errors"] == 0 and p14["versions"]["boardgame.io"] == "0.50.2"
    for r in p14["rounds"]:
        assert "load average" in r["uptime_before"]
        for side in ("boardgameio", "referee", "referee_sqlite"):
            assert r[side]["moves"] > 0 and r[side]["server_cpu_seconds"] > 0
            assert 0 < r[side]["p50_ms"] <= r[side]["p99_ms"]
    for side in ("boardgameio", "referee", "referee_sqlite"):
        assert p14["memory"][side]["games"] == 40 and p14["memory"][side]["clients"] == 40
    assert p14["memory"]["grpc_floor"]["clients"] == 40
    assert p14["figures"]["kib_per_client"]["grpc_floor_ratio"] is not None
    for figure in p14["figures"].values():
        assert figure["referee_ratio"] is not None and figure["referee_sqlite_ratio"] is not None
    assert "## P14 beside boardgame.io" in (out / "bench.md").read_text()


def test_quick_levels_plays_every_pairing_in_every_game(tmp_path: Path) -> None:
    from referee.application.house.levels import LEVELS
    from referee.bench import levels

    out = tmp_path / "bench"
    assert main(["bench", "--quick", "--only", "LEVELS", "--out", str(out)]) == 0
    report = json.loads((out / "bench.json").read_text())
    found = report["results"]["LEVELS"]
    pairings = {(row["game"], row["stronger"], row["weaker"]) for row in found["pairings"]}
    games = {"dracula-vs-van-helsing", "mau-mau-vampires", "sleeping-queens", "vampire-queen"}
    named = ["random", *LEVELS]
    assert pairings == {(g, named[i + 1], named[i]) for g in games for i in range(len(LEVELS))}
    for row in found["pairings"]:
        assert row["deals"] >= 1 and row["games"] == row["deals"] * row["players"]
        assert row["lead_low"] <= row["lead"] <= row["lead_high"]
        assert 0 <= row["win_low"] <= row["win_rate"] <= row["win_high"] <= 1
        # The searching level searched, at the fixed iterations (no strength is asserted).
        assert (row["searched_moves"] > 0) == LEVELS[row["stronger"]].knows
    assert set(found["hard_iterations"].values()) == {levels.QUICK_ITERATIONS}
    assert report["headline"]["LEVELS"] == found["least_lower_bound"]
    markdown = (out / "bench.md").read_text()
    assert "## LEVELS the house bots' levels" in markdown and "| LEVELS |" in markdown
    assert markdown.count("| hard vs normal |") == len(games)


def test_a_levels_deal_is_the_same_when_played_again() -> None:
    from referee.bench import levels

    def play() -> levels.Deal:  # the same games; only the CPU time they took may differ
        deal = levels.play_deal("sleeping-queens", "hard", "normal", 3, quick=True)
        return dataclasses.replace(deal, search_seconds=0.0)

    first = play()
    assert play() == first
    assert first.searched > 0 and first.iterations == first.searched * levels.QUICK_ITERATIONS


def test_quick_restart_times_a_replica_from_start_to_serving(tmp_path: Path) -> None:
    """RESTART starts a server on PostgreSQL holding games and reports each figure (no speed);
    without a PostgreSQL it says why it skipped."""
    out = tmp_path / "bench"
    argv = ["bench", "--quick", "--only", "RESTART", "--out", str(out), "--recovery-games", "12"]
    assert main(argv) == 0
    restart = json.loads((out / "bench.json").read_text())["results"]["RESTART"]
    assert "## RESTART" in (out / "bench.md").read_text()
    if "skipped" in restart:
        return
    assert (restart["games"], restart["finished"]) == (12, 6)
    assert restart["running"] + restart["clocked"] == 6 and restart["clocked"] >= 1
    for name in ("banner", "first_write", "first_cold_read", "background_start"):
        assert restart[f"{name}_seconds"] > 0, name


def test_quick_soak_reports_memory_before_during_and_after_the_load(tmp_path: Path) -> None:
    """SOAK plays, then waits for the games to leave memory: RSS at the start, before, during
    and after the load are all reported (no figure is asserted)."""
    out = tmp_path / "bench"
    assert main(["bench", "--quick", "--only", "SOAK", "--out", str(out)]) == 0
    soak = json.loads((out / "bench.json").read_text())["results"]["SOAK"]
    assert soak["games"] > 0 and soak["commands"] > 0 and soak["samples"]
    for name in ("start", "before", "peak", "after_load"):
        assert soak[f"rss_{name}_mib"] > 0, name
    assert {"after_to_before", "after_to_start", "growth"} <= set(soak)
    assert "after the load, every game evicted" in (out / "bench.md").read_text()
