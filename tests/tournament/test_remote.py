"""Remote bots (player accounts running on their own), absences, faults scored one way, the
organiser tokens kept: docs/tournaments.md ("Remote bots", "Faults")."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee.application.players.accounts import PlayerSettings
from referee.server.app import running_server
from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.reserved import ReservedSeats
from referee_tournament.config import parse
from referee_tournament.tournament import TOKENS_FILE, run
from tests.tournament.conftest import NODE_BOT, ROOT, flaky_bot, node_ready


@pytest.fixture(scope="module")
def open_server() -> Iterator[str]:
    with running_server(store="memory:", players=PlayerSettings(open_registration=True)) as server:
        yield str(server.address)


def _register(address: str, name: str) -> str:
    with grpc.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        request = referee_pb2.RegisterRequest(name=name, kind=referee_pb2.PLAYER_KIND_BOT)
        return str(stub.Register(request, timeout=10).token)


@pytest.fixture
def remote_bot(open_server: str, tmp_path: Path) -> Iterator[object]:
    """Starts ``referee-bot player --claim-reserved`` for a new account: a bot already running
    somewhere, which the tournament reaches by its name only."""
    started: list[subprocess.Popen[bytes]] = []

    def start(name: str, strategy: str = "random") -> str:
        token = _register(open_server, name)
        env = {
            **os.environ,
            "REFEREE_CREDENTIAL": token,
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "clients")]),
        }
        log = (tmp_path / f"{name}.log").open("wb")
        started.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "referee_bot",
                    "player",
                    "--server",
                    open_server,
                    "--claim-reserved",
                    "--games",
                    "0",
                    "--strategy",
                    strategy,
                    "--seed",
                    "1",
                ],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
        return name

    yield start
    for process in started:
        process.kill()
        process.wait(10)


def test_remote_bots_play_and_an_absent_bot_voids_only_its_games(
    open_server: str, remote_bot: object, tmp_path: Path
) -> None:
    start = remote_bot
    assert callable(start)
    present = start("remote-present")
    _register(open_server, "remote-absent")  # an account whose bot never runs
    config = parse(
        {
            "name": "remote",
            "seed": "remote",
            "game": "sleeping-queens",
            "players": 2,
            "limits": {"join_timeout": 12, "move_timeout": 20, "exit_grace": 1},
            "bots": [
                {"name": "here", "account": present},
                {"name": "away", "account": "remote-absent"},
                {"name": "local", "strategy": "random"},
            ],
        }
    )
    outcome = run(config, out=tmp_path / "out", server=open_server, parallel=6)
    games = outcome.results["games"]
    assert len(games) == 6  # 3 tables of 2, 2 seatings each
    void = [g for g in games if g["status"] == "void"]
    played = [g for g in games if g["status"] == "ok"]
    assert len(void) == 4 and len(played) == 2, [(g["status"], g["detail"]) for g in games]
    for game in void:
        assert "away" in game["seating"] and game["seats"] == []
        assert [f["bot"] for f in game["faults"]] == ["away"] * game["seating"].count("away")
    for game in played:
        assert set(game["seating"]) == {"here", "local"} and game["remote"]
    rows = {row["bot"]: row for row in outcome.results["standings"]}
    assert rows["away"]["absences"] == 4 and rows["away"]["games"] == 0
    # The bots that were there lose nothing by the absence: only their real games count.
    assert rows["here"]["games"] == 2 and rows["local"]["games"] == 2
    assert rows["here"]["absences"] == rows["local"]["absences"] == 0


def test_a_rated_tournament_updates_the_players_persisted_ratings(
    open_server: str, remote_bot: object, tmp_path: Path
) -> None:
    start = remote_bot
    assert callable(start)
    names = [start("rated-a", "heuristic"), start("rated-b"), start("rated-c")]
    config = parse(
        {
            "name": "rated",
            "seed": "rated",
            "rated": True,
            "game": "sleeping-queens",
            "players": 2,
            "limits": {"join_timeout": 20, "exit_grace": 1},
            "bots": [{"name": n, "account": n} for n in names],
        }
    )
    outcome = run(config, out=tmp_path / "out", server=open_server, parallel=3)
    assert {g["status"] for g in outcome.results["games"]} == {"ok"}
    persisted = outcome.results["player_ratings"]
    for name in names:
        rating = persisted[name]["sleeping-queens"]
        assert rating["games"] == 4, rating  # every table of 2 of 3, both seatings
    with grpc.insecure_channel(open_server) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        board = stub.GetLeaderboard(
            referee_pb2.GetLeaderboardRequest(game_type="sleeping-queens"), timeout=10
        )
        assert set(names) <= {r.player for r in board.ratings}


def test_a_bot_that_hangs_after_its_first_move_is_ranked_last(address: str, tmp_path: Path) -> None:
    """The issue's report: in a clocked tournament a bot that hung after its first move was
    ranked 3rd of 7 (41.7% wins): after its clock forfeit the referee's default moves won for
    it, and the standings showed 0 forfeits. Now the forfeited seat is its loss."""
    bots: list[dict[str, object]] = [
        {"name": f"random-{i}", "strategy": "random"} for i in range(4)
    ]
    bots.append(flaky_bot("hangs", "hang", after=1))
    config = parse(
        {
            "name": "clocked",
            "seed": "clocked",
            "game": "sleeping-queens",
            "players": 2,
            "clock": {"decision_ms": 500, "bank_ms": 2000, "forfeit_after_timeouts": 2},
            "limits": {"move_timeout": 30, "exit_grace": 0.5},
            "bots": bots,
        }
    )
    outcome = run(config, out=tmp_path / "out", server=address, parallel=2)
    standings = outcome.results["standings"]
    last = standings[-1]
    assert last["bot"] == "hangs", [(r["bot"], r["win_rate"]) for r in standings]
    assert (last["wins"], last["games"]) == (0, 8), last
    assert last["forfeits"] == 8  # every game it sat in: forfeited by the clock
    assert last["timeouts"] >= 16 and last["default_moves"] > last["timeouts"]
    assert last["faults"].get("clock_forfeit") == 8
    for row in standings[:-1]:
        # A working bot may time out once on a loaded machine; it never forfeits here.
        assert row["forfeits"] == 0, row
    for game in outcome.results["games"]:
        for seat in game["seats"]:
            assert seat["forfeited"] == (seat["bot"] == "hangs")
            if seat["bot"] == "hangs":
                assert seat["default_moves"] > 0


def test_the_organiser_tokens_are_kept_secret_and_verify_works_from_them(
    address: str, tmp_path: Path
) -> None:
    config = parse(
        {
            "name": "tokens",
            "seed": "tokens",
            "game": "sleeping-queens",
            "players": 2,
            "bots": [{"name": "a", "strategy": "random"}, {"name": "b", "strategy": "random"}],
        }
    )
    out = tmp_path / "out"
    outcome = run(config, out=out, server=address)
    path = out / TOKENS_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads(path.read_text())
    games = [g["game_id"] for g in outcome.results["games"]]
    assert sorted(data["games"]) == sorted(games) and data["server"] == address
    # No token anywhere else in the output.
    for token in data["games"].values():
        for other in out.rglob("*"):
            if other.is_file() and other != path:
                assert token not in other.read_text(errors="replace")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "referee",
            "verify",
            games[0],
            "--server",
            address,
            "--organiser-token-file",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "clients")])},
    )
    assert result.returncode == 0, result.stderr + result.stdout


class _SitsOnly(threading.Thread):
    """A remote bot that claims the seats reserved for it and then never moves (a hang the
    runner cannot kill), or resigns each one at once."""

    def __init__(self, address: str, token: str, *, resign: bool) -> None:
        super().__init__(daemon=True)
        self.channel = grpc.insecure_channel(address)
        self.stub = referee_pb2_grpc.RefereeServiceStub(self.channel)
        self.claimer = ReservedSeats(self.stub, token)
        self.metadata = [("authorization", f"Bearer {token}")]
        self.resign = resign
        self.stopped = threading.Event()

    def run(self) -> None:
        self.claimer.start()
        done: set[tuple[str, int]] = set()
        while not self.stopped.wait(0.2):
            for game_id, seat in list(self.claimer.claimed):
                if self.resign and (game_id, seat) not in done:
                    done.add((game_id, seat))
                    request = referee_pb2.ResignRequest(game_id=game_id, seat=seat)
                    self.stub.Resign(request, metadata=self.metadata, timeout=10)

    def stop(self) -> None:
        self.stopped.set()
        self.claimer.stop()
        self.join(5)
        self.channel.close()


@pytest.mark.parametrize("resign", [False, True], ids=["hangs", "resigns"])
def test_a_remote_bot_that_hangs_or_resigns_loses_its_games(
    open_server: str, tmp_path: Path, resign: bool
) -> None:
    name = f"remote-{'resigns' if resign else 'hangs'}"
    bot = _SitsOnly(open_server, _register(open_server, name), resign=resign)
    bot.start()
    try:
        config = parse(
            {
                "name": name,
                "seed": name,
                "game": "sleeping-queens",
                "players": 2,
                "limits": {"move_timeout": 3, "start_timeout": 15, "join_timeout": 30},
                "bots": [{"name": "far", "account": name}, {"name": "near", "strategy": "random"}],
            }
        )
        outcome = run(config, out=tmp_path / "out", server=open_server)
    finally:
        bot.stop()
    games = outcome.results["games"]
    assert len(games) == 2
    for game in games:
        ranks = {s["bot"]: s["rank"] for s in game["seats"]}
        kinds = {f["kind"] for f in game["faults"] if f["bot"] == "far"}
        if resign:
            # The referee played the resigned seat to the end: never the bot's result.
            assert game["status"] == "ok" and "resigned" in kinds, game["faults"]
            far = next(s for s in game["seats"] if s["bot"] == "far")
            assert far["forfeited"] and far["default_moves"] > 0
        else:
            # No process to kill, no token to finish the seat with: the game is stopped.
            assert game["status"] == "forfeit" and "hang" in kinds, game
            assert ranks == {"far": 2, "near": 1}, game["faults"]
    rows = {row["bot"]: row for row in outcome.results["standings"]}
    assert rows["far"]["wins"] == 0 and rows["far"]["forfeits"] == 2
    assert rows["near"]["wins"] == 2 and rows["near"]["forfeits"] == 0


def test_the_node_bot_in_player_mode_is_a_remote_bot(open_server: str, tmp_path: Path) -> None:
    """The Node.js sample bot, as a player program (--claim-reserved), takes the seats the
    runner reserves for its account, seat 0 and seat 1 alike."""
    reason = node_ready()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the Node.js bot: {reason}")
        pytest.skip(reason)
    token = _register(open_server, "node-remote")
    log = (tmp_path / "node.log").open("wb")
    process = subprocess.Popen(
        [
            "node",
            str(NODE_BOT / "index.js"),
            "--server",
            open_server,
            "--claim-reserved",
            "--games",
            "0",
            "--seed",
            "1",
        ],
        env={**os.environ, "REFEREE_CREDENTIAL": token},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        config = parse(
            {
                "name": "node-remote",
                "seed": "node-remote",
                "game": "sleeping-queens",
                "players": 2,
                "limits": {"join_timeout": 20, "exit_grace": 1},
                "bots": [
                    {"name": "node", "account": "node-remote"},
                    {"name": "local", "strategy": "random"},
                ],
            }
        )
        outcome = run(config, out=tmp_path / "out", server=open_server)
    finally:
        process.kill()
        process.wait(10)
        log.close()
    games = outcome.results["games"]
    assert [g["status"] for g in games] == ["ok", "ok"], (tmp_path / "node.log").read_text()
    assert {g["seating"].index("node") for g in games} == {0, 1}
