"""Dracula vs Van Helsing and Sleeping Queens end to end over gRPC: bots self-play whole games
(JSON reports), and a person plays referee-cli from stdin against bots."""

from __future__ import annotations

import json
import re

import pytest

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.__main__ import main as bot_main
from tests.clients import cli


@pytest.mark.parametrize(
    ("game", "players", "strategy"),
    [
        ("dracula-vs-van-helsing", 2, "heuristic"),
        ("dracula-vs-van-helsing", 2, "mix"),
        ("sleeping-queens", 2, "heuristic"),
        ("sleeping-queens", 4, "heuristic"),
        ("sleeping-queens", 4, "mix"),
    ],
)
def test_selfplay_reports_valid_json(
    address: str,
    stub: referee_pb2_grpc.RefereeServiceStub,
    capsys: pytest.CaptureFixture[str],
    game: str,
    players: int,
    strategy: str,
) -> None:
    argv = ["selfplay", "--server", address, "--game", game, "--players", str(players)]
    argv += ["--games", "2", "--seed", "21", "--strategy", strategy]
    assert bot_main(argv) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert len(lines) == 2
    for report in map(json.loads, lines):
        assert report["game"] == game
        assert isinstance(report["commands"], int) and report["commands"] > 0
        seats = report["seats"]
        assert [s["seat"] for s in seats] == list(range(players))
        for s in seats:
            heuristic = strategy == "heuristic" or s["seat"] % 2 == 0  # mix: even seats
            assert s["strategy"] == ("heuristic" if heuristic else "random")
        summary = stub.GetGame(referee_pb2.GetGameRequest(game_id=report["game_id"])).game
        assert summary.game_over and summary.game_type == game
        assert [(r.seat, r.score, r.rank) for r in summary.results] == [
            (s["seat"], s["score"], s["rank"]) for s in seats
        ]
        winners = [s for s in seats if s["rank"] == 1]
        assert winners and all(s["score"] == 1 for s in winners)
        if game == "dracula-vs-van-helsing":
            assert sorted(s["rank"] for s in seats) == [1, 2]


def test_dracula_played_from_stdin_against_one_bot(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    argv = ["new", "--server", address, "--game", "dracula-vs-van-helsing", "--seed", "8"]
    code, out = cli([*argv, "--bots", "1"], "1\n" * 3000)
    assert code == 0, out
    found = re.search(r"Created game (\S+) \(dracula-vs-van-helsing, 2 players\)", out)
    assert found is not None  # 2 players by default: the game's only size
    game = stub.GetGame(referee_pb2.GetGameRequest(game_id=found.group(1))).game
    assert game.game_over
    assert "seat 1: bot (heuristic)" in out
    assert out.index("Dracula is seat") < out.index("round 1 starts") < out.index("Your move:")
    assert re.search(r"\nseat 0 is dealt \(districts 1-5\):( [YBRP]\d){5}\n", out)
    assert re.search(r"Your move:\n1\) draw a card\n", out)
    assert re.search(r"\n1\) discard the drawn card \([YBRP]\d: ", out)
    assert re.search(r"seat 0 draws [YBRP]\d \(\d+ left in the deck\)", out)
    assert re.search(r"seat 1 draws a card \(\d+ left in the deck\)", out)
    assert re.search(r"\nround \d ends \(", out)
    assert re.search(r"district \d: (Dracula|Van Helsing)'s [YBRP]\d beats [YBRP]\d", out)
    assert re.search(r"\ngame over: (Dracula|Van Helsing) \(seat [01]\) wins: ", out)
    final = out.split("\ngame over:")[-1]
    assert "Game over." in final and "Final standings: 1. seat " in final
    # every round deals seat 0 its cards once, and only seat 0's cards are ever listed
    rounds = len(re.findall(r"\nround \d starts", out))
    assert out.count("seat 0 is dealt") == rounds >= 1
    assert out.count("seat 1 is dealt 5 cards, face down") == rounds


def test_sleeping_queens_played_from_stdin_against_two_bots(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    argv = ["new", "--server", address, "--game", "sleeping-queens", "--players", "3"]
    code, out = cli([*argv, "--seed", "4"], "1\n" * 3000)
    assert code == 0, out
    found = re.search(r"Created game (\S+)", out)
    assert found is not None
    assert stub.GetGame(referee_pb2.GetGameRequest(game_id=found.group(1))).game.game_over
    assert "\n12 queens lie asleep, face down, in positions 0-11\n" in out
    assert re.search(r"\nseat 0 draws( \w+){5}\n", out)  # the deal, shown to its owner
    assert "\nseat 1 draws 5 cards\n" in out
    assert re.search(r"\nyour hand: (\S+ )*\S+\n", out) and "Your move:\n1) discard " in out
    assert re.search(r"seat \d wakes the \w+ Queen \(\d+\) at position \d+", out)
    assert "\ngame over: " in out
    assert "Final standings: 1. seat " in out.split("\ngame over:")[-1]


def test_spectating_a_dracula_game_from_the_start(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    argv = ["selfplay", "--server", address, "--game", "dracula-vs-van-helsing"]
    assert bot_main([*argv, "--seed", "3"]) == 0  # 2 players by default: the game's only size
    game = stub.ListGames(
        referee_pb2.ListGamesRequest(game_type="dracula-vs-van-helsing", page_size=1)
    ).games[0]
    code, out = cli(["spectate", "--server", address, "--game-id", game.game_id, "--from-start"])
    assert code == 0, out
    assert "(you)" not in out and "is dealt (districts" not in out
    assert re.search(r"draws a card \(\d+ left in the deck\)", out)
    assert "\ngame over: " in out
    if "\nround 2 starts" in out:  # a new round redraws the table for spectators
        assert out.count("| spectator ==") >= 2
