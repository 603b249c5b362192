"""Mau Mau Vampires end to end over gRPC: bots self-play whole games (JSON reports), a person
plays referee-cli from stdin against bots, a spectator watches a finished game."""

from __future__ import annotations

import json
import re

import pytest

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.__main__ import main as bot_main
from tests.clients import cli

GAME = "mau-mau-vampires"


@pytest.mark.parametrize(("players", "strategy"), [(2, "heuristic"), (4, "heuristic"), (3, "mix")])
def test_selfplay_reports_valid_json(
    address: str,
    stub: referee_pb2_grpc.RefereeServiceStub,
    capsys: pytest.CaptureFixture[str],
    players: int,
    strategy: str,
) -> None:
    argv = ["selfplay", "--server", address, "--game", GAME, "--players", str(players)]
    argv += ["--games", "2", "--seed", "5", "--strategy", strategy, "--options", "hands=1"]
    assert bot_main(argv) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert len(lines) == 2
    for report in map(json.loads, lines):
        assert report["game"] == GAME
        assert isinstance(report["commands"], int) and report["commands"] > 0
        seats = report["seats"]
        assert [s["seat"] for s in seats] == list(range(players))
        for s in seats:
            heuristic = strategy == "heuristic" or s["seat"] % 2 == 0  # mix: even seats
            assert s["strategy"] == ("heuristic" if heuristic else "random")
        summary = stub.GetGame(referee_pb2.GetGameRequest(game_id=report["game_id"])).game
        assert summary.game_over and summary.game_type == GAME
        assert summary.options["hands"] == "1"
        assert [(r.seat, r.score, r.rank) for r in summary.results] == [
            (s["seat"], s["score"], s["rank"]) for s in seats
        ]
        # MM-23: 1 point per card in the other hands (+2 for the one who went out); the
        # highest score wins (MM-24)
        best = max(s["score"] for s in seats)
        assert best > 0
        assert all((s["rank"] == 1) == (s["score"] == best) for s in seats)


def test_played_from_stdin_against_bots(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    argv = ["new", "--server", address, "--game", GAME, "--players", "3", "--seed", "11"]
    code, out = cli([*argv, "--options", "hands=1"], "1\n" * 3000)
    assert code == 0, out
    found = re.search(r"Created game (\S+) \(mau-mau-vampires, 3 players\)", out)
    assert found is not None
    game = stub.GetGame(referee_pb2.GetGameRequest(game_id=found.group(1))).game
    assert game.game_over
    assert "seat 1: bot (heuristic)" in out and "seat 2: bot (heuristic)" in out
    # the server's lines: the deal (seat 0's cards to seat 0 only), each move
    start = re.search(r"\nhand 1: seat \d deals 8 cards each, day side up; characters: ", out)
    assert start is not None
    assert re.search(r"\nseat 0 is dealt ((red|blue|green|purple) \w+|a Clock|a Werewolf)", out)
    assert "\nseat 1 is dealt 8 cards\n" in out and "\nseat 2 is dealt 8 cards\n" in out
    assert re.search(r"the discard pile starts with (red|blue|green|purple) \w+", out)
    # the screen: the table, every seat, the hand, the menu in the server's words
    assert "== Mau Mau Vampires | game " in out and " | you are seat 0 ==" in out
    assert re.search(r"\ntop card: (red|blue|green|purple) [a-z]+", out), "MM-4 symbol names"
    assert re.search(r"\n> seat 0 \(you\) +\d+ +\d+ +\d+", out)
    assert re.search(r"\ncharacters: seat 0 The \w+, seat 1 The \w+", out)
    assert re.search(r"\nyour hand: ((red|blue|green|purple) [a-z]+|a Clock|a Werewolf)", out)
    assert re.search(r"Your move:\n1\) draw a card\n", out)
    assert re.search(r"\n1\) keep (a Clock|a Werewolf|(red|blue|green|purple) \w+) and end", out)
    # the narration
    assert re.search(r"seat 0 draws (a Clock|a Werewolf|(red|blue|green|purple) \w+)", out)
    assert re.search(r"seat [12] plays (a Clock|a Werewolf|(red|blue|green|purple) \w+)", out)
    assert re.search(r"seat [12] draws \d cards?", out)
    assert re.search(r"\nhand 1 ends \((seat \d is out of cards|blocked)", out)
    assert re.search(r"\ngame over: seat \d", out)
    final = out.split("\ngame over:")[-1]
    assert "Game over." in final and "Final standings: 1. seat " in final
    assert not re.search(r"seat [12] draws (red|blue|green|purple)", out), "hidden (MM-28)"
    assert "mau_mau_vampires {" not in out  # every event and command is in words


def test_spectating_a_finished_game_from_the_start(
    address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["selfplay", "--server", address, "--game", GAME, "--players", "2"]
    assert bot_main([*argv, "--seed", "8", "--options", "hands=2"]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    game_id = report["game_id"]
    code, out = cli(["spectate", "--server", address, "--game-id", game_id, "--from-start"])
    assert code == 0, out
    assert "(you)" not in out and not re.search(r"is dealt (?!\d+ cards)", out)
    assert re.search(r"seat [01] draws \d cards?", out)
    assert "\nhand 2: " in out
    assert out.count("| spectator ==") >= 2  # a new hand redraws the table
    assert "\ngame over: " in out
