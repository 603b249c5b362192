"""The Node.js sample bot, on the TypeScript SDK: a random legal command for any game."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.v1 import referee_pb2, referee_pb2_grpc

from .conftest import NODE_BOT


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("vampire-queen", 3, {"rounds": "1"}),
        ("sleeping-queens", 2, {}),
        ("dracula-vs-van-helsing", 2, {}),
    ],
)
def test_node_bot_plays_every_seat(
    address: str, node_bot: dict[str, Any], game: str, players: int, options: dict[str, str]
) -> None:
    with grpc.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        created = stub.CreateGame(
            referee_pb2.CreateGameRequest(
                game_type=game,
                players=players,
                options=options,
                seed="node",
                public_reproducible_seed=True,
            )
        )
        processes = [
            subprocess.Popen(
                [
                    "node",
                    str(NODE_BOT / "index.js"),
                    *("--server", address, "--game-id", created.game_id),
                    *(f"--token={seat.token}", "--seed", str(seat.seat)),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for seat in created.seats
        ]
        outputs = [p.communicate(timeout=60) for p in processes]
        assert [p.returncode for p in processes] == [0] * players, outputs
        reports = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
        summary = stub.GetGame(referee_pb2.GetGameRequest(game_id=created.game_id)).game
        assert summary.game_over
        assert {r["seat"]: r["rank"] for r in reports} == {r.seat: r.rank for r in summary.results}
        assert all(r["commands"] > 0 for r in reports)


def test_node_bot_reports_bad_arguments(node_bot: dict[str, Any]) -> None:
    done = subprocess.run(
        ["node", str(NODE_BOT / "index.js"), "--game-id", "x"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "--token are required" in done.stderr


def test_package_lock_is_committed_and_the_bot_is_on_the_sdk() -> None:
    lock = json.loads((NODE_BOT / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/@game-referee/sdk"]["resolved"] == "../ts-sdk"
    assert not list(Path(NODE_BOT).glob("*.proto"))
    assert "new PlayerLoop(" in (NODE_BOT / "index.js").read_text()
