"""Remote bots (player accounts running on their own), absences (scored, or void and replayed),
faults scored by the referee's one rule, the organiser tokens kept: docs/tournaments.md
("Remote bots", "Faults")."""

from __future__ import annotations

import contextlib
import html
import json
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee.application.players.accounts import PlayerSettings
from referee.server.app import running_server
from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.reserved import ReservedSeats
from referee_tournament.config import TournamentConfig, parse
from referee_tournament.tournament import TOKENS_FILE, run
from tests.tournament.conftest import NODE_BOT, ROOT, flaky_bot, node_ready


@pytest.fixture(scope="module")
def open_server() -> Iterator[str]:
    with running_server(store="memory:", players=PlayerSettings(open_registration=True)) as server:
        yield str(server.address)


def _online(address: str, name: str) -> None:
    """Wait until ``name`` has a player stream open (``GetPresence``): a remote bot an
    organiser has seen come up, before the tournament reserves seats for it."""
    with grpc.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        request = referee_pb2.GetPresenceRequest(players=[name])
        for _ in range(600):
            if stub.GetPresence(request, timeout=10).players[0].online:
                return
            time.sleep(0.1)
    raise AssertionError(f"{name} never came online")


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
        _online(open_server, name)
        return name

    yield start
    for process in started:
        process.kill()
        process.wait(10)


def _absent_config(present: str, **extra: object) -> TournamentConfig:
    return parse(
        {
            "name": "remote",
            "seed": "remote",
            "game": "sleeping-queens",
            "players": 2,
            "limits": {"join_timeout": 30, "move_timeout": 20, "exit_grace": 1, "start_timeout": 3},
            "bots": [
                {"name": "here", "account": present},
                {"name": "away", "account": "remote-absent"},
                {"name": "local", "strategy": "random"},
            ],
            **extra,
        }
    )


def test_an_absent_remote_bot_loses_its_games_at_once(
    open_server: str, remote_bot: object, tmp_path: Path
) -> None:
    """A no-show's games are not void (which would make skipping them free) and wait no
    whole join timeout: the referee scores each as the absent bot's loss, and an offline bot
    (no player stream open) holds no game up: it is absent at once."""
    start = remote_bot
    assert callable(start)
    present = start("remote-present")
    with contextlib.suppress(grpc.RpcError):
        _register(open_server, "remote-absent")  # an account whose bot never runs
    started = time.monotonic()
    outcome = run(_absent_config(present), out=tmp_path / "out", server=open_server, parallel=6)
    assert time.monotonic() - started < 30, "a game waited for the offline bot"
    games = outcome.results["games"]
    assert len(games) == 6  # 3 tables of 2, 2 seatings each
    absent = [g for g in games if g["status"] == "no_show"]
    played = [g for g in games if g["status"] == "ok"]
    assert len(absent) == 4 and len(played) == 2, [(g["status"], g["detail"]) for g in games]
    for game in absent:
        away = next(s for s in game["seats"] if s["bot"] == "away")
        other = next(s for s in game["seats"] if s["bot"] != "away")
        assert (away["end"], away["end_rule_id"], away["rank"]) == ("absent", "NO-SHOW", 2)
        assert (other["end"], other["rank"]) == ("finished", 1)
        [fault] = game["faults"]
        assert (fault["bot"], fault["kind"]) == ("away", "absent") and "offline" in fault["detail"]
    for game in played:
        assert set(game["seating"]) == {"here", "local"} and game["remote"]
    rows = {row["bot"]: row for row in outcome.results["standings"]}
    assert rows["away"]["absences"] == 4 and rows["away"]["games"] == 4
    assert rows["away"]["wins"] == 0 and rows["away"]["place"] == 3
    assert rows["here"]["games"] == 4 and rows["local"]["games"] == 4


def test_void_games_of_an_absent_bot_are_replayed_then_scored(
    open_server: str, remote_bot: object, tmp_path: Path
) -> None:
    """``no_show: void``: the referee voids the game; the runner replays the deal after the
    others, the last replay scored as a loss, so every pairing has the same deals."""
    start = remote_bot
    assert callable(start)
    present = start("remote-present-2")
    with contextlib.suppress(grpc.RpcError):
        _register(open_server, "remote-absent")
    config = _absent_config(present, no_show="void", replays=1)
    outcome = run(config, out=tmp_path / "out", server=open_server, parallel=6)
    games = outcome.results["games"]
    assert len(games) == 6 and sorted(g["index"] for g in games) == list(range(6))
    replayed = [g for g in games if "away" in g["seating"]]
    assert {(g["status"], g["replays"]) for g in replayed} == {("no_show", 1)}
    rows = {row["bot"]: row for row in outcome.results["standings"]}
    assert rows["away"]["absences"] == 8 and rows["away"]["games"] == 4  # 2 per deal


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
    """In a clocked tournament a bot that hangs after its first move is not carried by the
    referee's default moves after its clock forfeit (they could win for it, to a good rank
    with 0 forfeits in the standings): the forfeited seat is its loss."""
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
    assert last["ends"] == {"forfeited": 8}  # every game it sat in: forfeited by the clock
    assert last["timeouts"] >= 16 and last["default_moves"] > last["timeouts"]
    for row in standings[:-1]:
        # A working bot may time out once on a loaded machine; it never forfeits here.
        assert row["left"] == 0, row
    for game in outcome.results["games"]:
        for seat in game["seats"]:
            assert (seat["end"] == "forfeited") == (seat["bot"] == "hangs")
            if seat["bot"] == "hangs":
                assert seat["default_moves"] > 0 and seat["rank"] == 2
                assert seat["end_reason"].endswith("forfeited on time after 2 timeouts")


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
    _online(open_server, name)
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
        far = next(s for s in game["seats"] if s["bot"] == "far")
        # The referee played the seat to the end (never the bot's result): a resignation,
        # or, for a hang, the runner's removal of the seat (nothing to kill, no token).
        assert game["status"] == "ok" and ranks == {"far": 2, "near": 1}, game
        assert far["default_moves"] > 0
        if resign:
            assert (far["end"], far["end_rule_id"]) == ("resigned", "RESIGNED")
        else:
            assert (far["end"], far["end_rule_id"]) == ("abandoned", "ABANDONED")
            assert "hang" in kinds and "hang: no move within" in far["end_reason"]
    rows = {row["bot"]: row for row in outcome.results["standings"]}
    assert rows["far"]["wins"] == 0 and rows["far"]["left"] == 2
    assert rows["near"]["wins"] == 2 and rows["near"]["left"] == 0


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
        _online(open_server, "node-remote")
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


def test_a_tournament_with_a_hanging_a_resigning_a_crashing_and_an_absent_bot(
    open_server: str, tmp_path: Path
) -> None:
    """A tournament with every way of not finishing, with real bot processes. Each
    seat's end and reason is in results.json and the report, and in no game does a seat that
    left rank above a seat that finished (the referee's one rule; the runner ranks nobody)."""
    with contextlib.suppress(grpc.RpcError):
        _register(open_server, "never-here")  # a remote bot that never runs: offline
    config = parse(
        {
            "name": "leavers",
            "seed": "leavers",
            "game": "sleeping-queens",
            "players": 2,
            "parallel": 4,
            "clock": {"decision_ms": 500, "bank_ms": 1000, "forfeit_after_timeouts": 2},
            # The clock catches the hang (a forfeit on time), not the runner.
            "limits": {"move_timeout": 30, "exit_grace": 1, "join_timeout": 30, "start_timeout": 3},
            "bots": [
                {"name": "steady", "strategy": "random"},
                flaky_bot("hangs", "hang", after=1),
                flaky_bot("resigns", "resign", after=1),
                flaky_bot("crashes", "crash", after=1),
                {"name": "absent", "account": "never-here"},
            ],
        }
    )
    out = tmp_path / "out"
    outcome = run(config, out=out, server=open_server)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["standings"] == outcome.results["standings"]
    games = results["games"]
    assert len(games) == 20 and results["summary"]["failed"] == 0, results["summary"]
    expected = {
        "hangs": ("forfeited", "FORFEIT", "forfeited on time after 2 timeouts"),
        "resigns": ("resigned", "RESIGNED", "resigned"),
        "crashes": ("abandoned", "ABANDONED", "the organiser removed it: crash: exited"),
        "absent": ("absent", "NO-SHOW", "did not claim its reserved seat"),
    }
    seen: dict[str, set[str]] = {name: set() for name in expected}
    for game in games:
        seats = game["seats"]
        finished = [s["rank"] for s in seats if s["end"] == "finished"]
        left = [s["rank"] for s in seats if s["end"] != "finished"]
        if finished and left:
            assert max(finished) < min(left), game
        for seat in seats:
            if seat["bot"] == "steady":
                assert seat["end"] == "finished", game
            if seat["end"] == "finished":
                continue
            end, rule, words = expected[seat["bot"]]
            assert (seat["end"], seat["end_rule_id"]) == (end, rule), seat
            assert words in seat["end_reason"], seat
            seen[seat["bot"]].add(seat["end"])
    # Each of them left every game it sat in but those its opponent left first (or, for
    # the absent bot, every one).
    assert {name: ends for name, ends in seen.items()} == {
        name: {end} for name, (end, _, _) in expected.items()
    }
    rows = {row["bot"]: row for row in results["standings"]}
    assert results["standings"][0]["bot"] == "steady" and rows["steady"]["left"] == 0
    assert rows["steady"]["wins"] == 8  # it beat every one of them, twice
    assert rows["absent"]["absences"] == 8 and rows["absent"]["ends"] == {"absent": 8}
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Seats that left before the end" in report
    for name, (end, rule, words) in expected.items():
        assert f"{name} (2, " in report and end in report and rule in report
        assert html.escape(words) in report
