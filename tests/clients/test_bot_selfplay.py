"""referee-bot against a real server over gRPC: self-play, one-seat play, stream resumption,
and the minimal client of docs/clients.md."""

from __future__ import annotations

import doctest
import json
import random
import re
import threading
import time
from pathlib import Path

import grpc
import pytest

from referee.application import Limits
from referee.server.app import running_server
from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot import runner
from referee_bot.__main__ import main
from referee_bot.runner import GameStream, SeatBot, selfplay_game
from referee_bot.strategies import make_strategy

DOCS = Path(__file__).resolve().parents[2] / "docs" / "clients.md"


def test_runner_doctests() -> None:
    assert doctest.testmod(runner).failed == 0


def check_report(
    report: dict[str, object], players: int, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    assert set(report) >= {"game_id", "game", "seed", "seats", "commands"}
    assert report["game"] == "vampire-queen"
    seats = report["seats"]
    assert isinstance(seats, list) and [s["seat"] for s in seats] == list(range(players))
    assert isinstance(report["commands"], int) and report["commands"] > 0
    game = stub.GetGame(referee_pb2.GetGameRequest(game_id=str(report["game_id"]))).game
    assert game.game_over
    assert [(r.seat, r.score, r.rank) for r in game.results] == [
        (s["seat"], s["score"], s["rank"]) for s in seats
    ]
    best = min(s["score"] for s in seats)
    assert all((s["rank"] == 1) == (s["score"] == best) for s in seats)


@pytest.mark.parametrize(("players", "options"), [(3, []), (4, ["--options", "rounds=2"])])
def test_selfplay_prints_one_json_line_per_game(
    address: str,
    stub: referee_pb2_grpc.RefereeServiceStub,
    capsys: pytest.CaptureFixture[str],
    players: int,
    options: list[str],
) -> None:
    argv = ["selfplay", "--server", address, "--game", "vampire-queen"]
    argv += ["--players", str(players), "--games", "2", "--seed", "10", "--strategy", "mix"]
    assert main(argv + options) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert len(lines) == 2
    reports = [json.loads(line) for line in lines]
    assert [r["seed"] for r in reports] == ["10", "11"]
    for report in reports:
        check_report(report, players, stub)
    assert [s["strategy"] for s in reports[0]["seats"]][:2] == ["heuristic", "random"]


def test_selfplay_with_a_seed_is_reproducible(stub: referee_pb2_grpc.RefereeServiceStub) -> None:
    def play() -> dict[str, object]:
        return selfplay_game(
            stub, "vampire-queen", 4, ["heuristic", "random"] * 2, options={"rounds": "2"}, seed="7"
        )

    first, second = play(), play()
    assert first["game_id"] != second["game_id"]
    assert first["seats"] == second["seats"]
    assert first["commands"] == second["commands"]


def test_selfplay_fails_with_a_non_zero_status(
    address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["selfplay", "--server", address, "--game", "no-such-game", "--players", "3"]
    assert main(argv) == 1
    assert "referee-bot: game 0:" in capsys.readouterr().err
    assert main(["selfplay", "--server", address, "--options", "rounds"]) == 2


def test_play_one_seat_per_process_style(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub, capsys: pytest.CaptureFixture[str]
) -> None:
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(game_type="vampire-queen", players=3, options={"rounds": "1"})
    )
    codes: list[int] = []

    def seat(token: str, strategy: str) -> None:
        argv = ["play", "--server", address, "--game-id", created.game_id, "--token", token]
        codes.append(main([*argv, "--strategy", strategy, "--seed", "1"]))

    threads = [
        threading.Thread(target=seat, args=(s.token, "heuristic" if s.seat else "random"))
        for s in created.seats
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert codes == [0, 0, 0]
    reports = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert sorted(r["seat"] for r in reports) == [0, 1, 2]
    game = stub.GetGame(referee_pb2.GetGameRequest(game_id=created.game_id)).game
    assert game.game_over
    assert sum(r["commands"] for r in reports) > 0
    assert {r["seat"]: r["score"] for r in reports} == {r.seat: r.score for r in game.results}


def test_play_reports_token_errors(address: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["play", "--server", address, "--game-id", "missing", "--token", "x"]
    assert main(argv) == 1
    assert "NOT_FOUND" in capsys.readouterr().err


def test_stream_resumes_after_a_cancel_without_gap_or_duplicate(
    stub: referee_pb2_grpc.RefereeServiceStub,
) -> None:
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(
            game_type="vampire-queen",
            players=3,
            options={"rounds": "1"},
            seed="r",
            public_reproducible_seed=True,
        )
    )
    bots = [
        SeatBot(stub, created.game_id, s.token, make_strategy("random", ""), random.Random(s.seat))
        for s in created.seats
    ]
    for bot in bots:
        bot.start()
    for bot in bots:
        bot.join(60)
    final = stub.GetGame(referee_pb2.GetGameRequest(game_id=created.game_id)).game.version
    seen: list[int] = []
    first = GameStream(stub, created.game_id, spectator=True)
    for message in first:
        if message.HasField("event"):
            seen.append(message.event.sequence)
        if len(seen) == 10:
            first.cancel()
    assert seen == list(range(1, 11))
    rest = GameStream(stub, created.game_id, spectator=True, after_sequence=first.last_sequence)
    seen += [m.event.sequence for m in rest if m.HasField("event")]
    assert seen == list(range(1, final + 1))


def test_slow_consumer_is_resumed_after_resource_exhausted() -> None:
    """With a tiny server stream buffer, a stalled spectator is cut off (RESOURCE_EXHAUSTED);
    the stream reconnects with after_sequence and still sees every event exactly once."""
    with running_server(store="memory:", limits=Limits(stream_buffer=1)) as server:
        # a small flow-control window, so the stalled reader really holds the server back
        slow = [("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)]
        with (
            grpc.insecure_channel(str(server.address)) as channel,
            grpc.insecure_channel(str(server.address), options=slow) as slow_channel,
        ):
            stub = referee_pb2_grpc.RefereeServiceStub(channel)
            created = stub.CreateGame(
                referee_pb2.CreateGameRequest(
                    game_type="vampire-queen",
                    players=4,
                    options={"rounds": "2"},
                    seed="s",
                    public_reproducible_seed=True,
                )
            )
            slow_stub = referee_pb2_grpc.RefereeServiceStub(slow_channel)
            stream = GameStream(slow_stub, created.game_id, spectator=True, backoff=0.01)
            iterator = iter(stream)
            next(iterator)  # the stream is open: now stall while the bots play
            bots = [
                SeatBot(
                    stub, created.game_id, s.token, make_strategy("random", ""), random.Random(1)
                ).start()
                for s in created.seats
            ]
            outcomes = [bot.join(60) for bot in bots]
            time.sleep(0.2)
            sequences = [m.event.sequence for m in iterator if m.HasField("event")]
            final = stub.GetGame(referee_pb2.GetGameRequest(game_id=created.game_id)).game
            assert final.game_over
            assert sequences == list(range(1, final.version + 1))
            assert stream.reconnects >= 1
            assert sum(o.commands for o in outcomes) > 0


def test_bots_decide_only_on_settled_views(stub: referee_pb2_grpc.RefereeServiceStub) -> None:
    """One bot per seat, acting only at the end of each batch of events: no version conflict
    (only one seat decides at a time in Vampire Queen)."""
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(game_type="vampire-queen", players=4, options={"rounds": "2"})
    )
    bots = [
        SeatBot(
            stub,
            created.game_id,
            s.token,
            make_strategy("heuristic", "vampire-queen"),
            random.Random(s.seat),
        )
        for s in created.seats
    ]
    for bot in bots:
        bot.start()
    outcomes = [bot.join(60) for bot in bots]
    assert sum(o.commands for o in outcomes) > 0
    assert sum(o.conflicts for o in outcomes) == 0


def test_play_seat_waits_after_a_version_conflict(
    stub: referee_pb2_grpc.RefereeServiceStub,
) -> None:
    """Two bots on each seat: every conflict is an ABORTED that just means waiting."""
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(game_type="vampire-queen", players=3, options={"rounds": "1"})
    )
    tokens = [s.token for s in created.seats]
    bots = [
        SeatBot(stub, created.game_id, tokens[i % 3], make_strategy("random", ""), random.Random(i))
        for i in range(6)
    ]
    for bot in bots:
        bot.start()
    outcomes = [bot.join(60) for bot in bots]
    assert stub.GetGame(referee_pb2.GetGameRequest(game_id=created.game_id)).game.game_over
    assert all(o.final_view is not None and o.final_view.game_over for o in outcomes)
    assert sum(o.conflicts for o in outcomes) > 0


def test_docs_minimal_client_really_plays(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), flags=re.S)
    source = next(b for b in blocks if "def play(" in b)
    namespace: dict[str, object] = {"__name__": "docs_client"}
    exec(compile(source, str(DOCS), "exec"), namespace)
    play = namespace["play"]
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(game_type="vampire-queen", players=3, options={"rounds": "1"})
    )
    threads = [
        threading.Thread(target=play, args=(address, created.game_id, s.token))  # type: ignore[arg-type]
        for s in created.seats
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert stub.GetGame(referee_pb2.GetGameRequest(game_id=created.game_id)).game.game_over
