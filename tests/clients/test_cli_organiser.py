"""referee-cli new keeps the game's organiser token: owner-only, never printed, and
``referee verify --server --organiser-token-file`` works from it afterwards."""

from __future__ import annotations

import json
import re
import stat

from referee import cli as referee_cli
from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_cli import organiser
from tests.clients import cli


def test_new_keeps_the_organiser_token_secret(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    argv = ["new", "--server", address, "--game", "sleeping-queens", "--players", "2"]
    code, out = cli([*argv, "--bots", "1", "--seed", "5"], "1\n" * 400)
    assert code == 0, out
    found = re.search(r"Created game (\S+)", out)
    assert found is not None
    game_id = found.group(1)
    path = organiser.tokens_file()
    assert f"kept in {path}" in out
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads(path.read_text())
    token = data["games"][game_id]
    assert token and token not in out and data["servers"][game_id] == address
    # The creator can release and check the deal afterwards with it.
    game = stub.GetGame(referee_pb2.GetGameRequest(game_id=game_id)).game
    assert game.game_over
    argv = ["verify", game_id, "--server", address, "--organiser-token-file", str(path)]
    assert referee_cli.main(argv) == 0
