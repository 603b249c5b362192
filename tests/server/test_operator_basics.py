"""What an operator expects of ``referee serve``: the per-command log only at debug
level, a ``game_ended`` line with the outcome, counters of games created, finished and aborted
by game type (``referee/server/metrics.py``), and the RPC that points clients at the rules."""

from __future__ import annotations

import random
import urllib.request
from pathlib import Path

import grpc
from prometheus_client.parser import text_string_to_metric_families

from referee.server.app import RefereeServer
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import GAME, RPC_TIMEOUT, create_game, play_to_end
from tests.server.test_ops import Served, log_records, value

#: The repository root, which a game type's rules path is relative to.
ROOT = Path(__file__).resolve().parents[2]


def test_default_log_level_has_no_command_lines_but_logs_each_game_end() -> None:
    process = Served()  # --log-level info, the default
    try:
        with grpc.insecure_channel(process.address) as channel:
            stub = pb_grpc.RefereeServiceStub(channel)
            finished = create_game(stub, players=3, rounds=1, seed="ops-basics")
            play_to_end(stub, finished, random.Random(11))
            aborted = create_game(stub, players=4, rounds=1)
            stub.AbortGame(
                pb.AbortGameRequest(
                    game_id=aborted.game_id,
                    organiser_token=aborted.created.organiser_token,
                    reason="closing time",
                ),
                timeout=RPC_TIMEOUT,
            )
            other = create_game(stub, players=2, rounds=None, game_type="sleeping-queens")
            results = stub.GetGame(
                pb.GetGameRequest(game_id=finished.game_id), timeout=RPC_TIMEOUT
            ).game.results
            url = f"http://127.0.0.1:{process.metrics_port}/metrics"
            with urllib.request.urlopen(url, timeout=10) as response:
                metrics = response.read().decode()
        code, _ = process.stop()
    finally:
        if process.process.poll() is None:
            process.process.kill()
            process.process.wait(10)
    assert code == 0
    records, other_lines = log_records(process.lines)
    assert not other_lines
    events = [r["event"] for r in records]
    assert "command" not in events, "per-command lines are for --log-level debug"
    assert events.count("game_created") == 3
    ended = {r["game_id"]: r for r in records if r["event"] == "game_ended"}
    assert set(ended) == {finished.game_id, aborted.game_id}, "a running game did not end"
    assert other.game_id not in ended
    done = ended[finished.game_id]
    assert done["game_type"] == GAME and done["outcome"] == "finished"
    assert done["level"] == "info" and done["events"] > 0 and done["seconds"] >= 0
    expected = [
        {"seat": r.seat, "score": r.score, "rank": r.rank, "end": "finished"} for r in results
    ]
    assert sorted(done["results"], key=lambda r: r["seat"]) == expected
    assert done["winners"] == [r.seat for r in results if r.rank == 1]
    stopped = ended[aborted.game_id]
    assert stopped["outcome"] == "aborted" and stopped["reason"] == "closing time"
    assert "results" not in stopped

    counters = {
        (sample.name, sample.labels.get("game_type")): sample.value
        for family in text_string_to_metric_families(metrics)
        for sample in family.samples
        if sample.name.startswith("referee_games_") and sample.name.endswith("_total")
    }
    assert counters[("referee_games_created_total", GAME)] == 2
    assert counters[("referee_games_created_total", "sleeping-queens")] == 1
    assert counters[("referee_games_finished_total", GAME)] == 1
    assert counters[("referee_games_aborted_total", GAME)] == 1
    assert counters.get(("referee_games_finished_total", "sleeping-queens"), 0) == 0


def test_counters_in_process(server: RefereeServer, stub: pb_grpc.RefereeServiceStub) -> None:
    game = create_game(stub, players=3, rounds=1, seed="in-process")
    assert value(server, "referee_games_created_total", game_type=GAME) == 1
    assert value(server, "referee_games_finished_total", game_type=GAME) == 0
    play_to_end(stub, game, random.Random(5))
    assert value(server, "referee_games_finished_total", game_type=GAME) == 1
    assert value(server, "referee_games_aborted_total", game_type=GAME) == 0


def test_list_game_types_points_at_the_rules(stub: pb_grpc.RefereeServiceStub) -> None:
    types = stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=RPC_TIMEOUT).game_types
    assert len(types) == 4
    for game_type in types:
        assert game_type.rules_path == f"docs/rules/{game_type.rules}"
        assert (ROOT / game_type.rules_path).is_file()
        text = game_type.rules_text
        assert text.startswith(f"# {game_type.name}\n"), text[:80]
        prefix = {"vampire-queen": "VQ", "sleeping-queens": "SQ"}.get(game_type.game_type)
        if prefix:
            assert f"- **{prefix}-1**" in text
