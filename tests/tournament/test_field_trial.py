"""What the field trial of referee-tournament stumbled on: the README's --local hint
works on a shipped example; a bot that crashed is not credited with what the referee's default
moves did in its seat (its seat is abandoned, ranked last by the referee); every bot command is
checked before the first game."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import grpc
import pytest

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_tournament.__main__ import main
from referee_tournament.config import TournamentConfig, load, parse
from referee_tournament.processes import startable
from referee_tournament.tournament import run

from .conftest import flaky_bot

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_local_hint_runs_on_the_shipped_example(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [
        line.split("#")[0].split()
        for line in readme.splitlines()
        if line.startswith(".venv/bin/referee-tournament") and "--local" in line
    ]
    assert lines, "the README shows no --local tournament"
    for words in lines:
        args = words[1:]
        assert (ROOT / args[0]).is_file(), f"the README names {args[0]}, which is not shipped"
        monkeypatch.chdir(ROOT)
        assert main([*args, "--quiet", "--out", str(tmp_path / "out")]) == 0, shlex.join(words)
        out = capsys.readouterr().out
        summary = r"\d+ games in .* \(\d+ ok, 0 no-show, 0 failed, 0 void\)"
        assert re.search(summary, out), out


def _config(bots: list[dict[str, object]], **extra: object) -> TournamentConfig:
    return parse(
        {
            "name": "trial",
            "seed": "trial",
            "format": "duplicate",
            "deals": 2,
            "games": [{"game": "vampire-queen", "players": 3, "options": {"rounds": 1}}],
            "limits": {"move_timeout": 10},
            "bots": bots,
            **extra,
        }
    )


def test_a_crashed_bot_is_not_credited_with_the_default_moves_results(
    address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(
        [
            {"name": "heuristic", "strategy": "heuristic"},
            {"name": "random", "strategy": "random"},
            flaky_bot("crashy", "crash", after=1),
        ]
    )
    results = run(config, out=tmp_path, server=address).results
    games = results["games"]
    seats = [s for g in games for s in g["seats"] if s["bot"] == "crashy"]
    assert seats and all(g["status"] == "ok" for g in games)
    # The runner removed the crashed seat; the referee played for it to the end and ranked
    # it below both seats that finished, whatever its default moves made of its hand.
    for seat in seats:
        assert (seat["end"], seat["end_rule_id"], seat["rank"]) == ("abandoned", "ABANDONED", 3)
        assert "the organiser removed it: crash: exited with status 3" in seat["end_reason"]
    # (What the default moves made of it is kept apart: the rules' rank, never credited.)
    assert all(1 <= s["rules_rank"] <= 3 for s in seats)
    row = next(r for r in results["standings"] if r["bot"] == "crashy")
    assert row["games"] == len(seats) and row["left"] == len(seats)
    assert row["ends"] == {"abandoned": len(seats)}
    assert row["wins"] == 0 and row["mean_rank"] == 3 and row["mean_score"] is None
    assert row["place"] == 3
    for label_rows in results["by_game"].values():
        assert next(r for r in label_rows if r["bot"] == "crashy")["wins"] == 0

    out = tmp_path / "cli"
    assert main([str(_write(tmp_path, config_text(address))), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "abandoned" in printed  # the standings' "left" column says how
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Seats that left before the end" in report and "crash: exited with status" in report


def config_text(address: str) -> str:
    return (
        f"name: cli\nseed: trial\nserver: {address}\nformat: duplicate\ndeals: 1\n"
        "game: vampire-queen\nplayers: 3\noptions: {rounds: 1}\nbots:\n"
        "  - {name: heuristic, strategy: heuristic}\n  - {name: random, strategy: random}\n"
        f"  - name: crashy\n    command: {json.dumps(flaky_bot('crashy', 'crash')['command'])}\n"
    )


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tournament.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("no-such-program-7f3 {server} {token}", "'no-such-program-7f3' is not found on PATH"),
        ("{python} bots/missing_bot.py --token={token}", "would run 'bots/missing_bot.py'"),
        ("./not-here.sh {token}", "'./not-here.sh' is not an executable file"),
    ],
)
def test_every_bot_command_is_checked_before_the_first_game(
    address: str, tmp_path: Path, command: str, message: str
) -> None:
    with grpc.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        before = len(stub.ListGames(referee_pb2.ListGamesRequest()).games)
        config = _config(
            [
                {"name": "heuristic", "strategy": "heuristic"},
                {"name": "random", "strategy": "random"},
                {"name": "broken", "command": command, "cwd": str(tmp_path)},
            ]
        )
        with pytest.raises(ValueError, match=re.escape(message)) as raised:
            run(config, out=tmp_path / "out", server=address)
        assert "a bot cannot start" in str(raised.value) and "broken" in str(raised.value)
        assert len(stub.ListGames(referee_pb2.ListGamesRequest()).games) == before, (
            "a game was played before the check"
        )


def test_the_shipped_bot_commands_pass_the_check() -> None:
    for name in ("example.yaml", "local.yaml"):
        config = load(ROOT / "tournaments" / name)
        for bot in config.bots:
            if bot.command and bot.command[0] == "node" and shutil.which("node") is None:
                continue
            assert startable(bot) is None, (name, bot.name, startable(bot))
