"""referee-cli names players, not seat numbers: a signed-in player plays a bot account to the
end in a pseudo-terminal of 80x24, then watches the game again from its start; the game's
lines, the replay and the final standings say the players' names (the referee's words say
``seat N``), and every line, names included, fits 80 columns broken at words."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest

from referee.application.players.accounts import PlayerSettings
from referee.server.app import running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.clients.test_cli_player import PROMPT, BotAccount, cli

#: Names as long as the server takes (32 characters): lines with them wrap.
LONG = 32


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    with running_server(store="memory:", players=PlayerSettings(open_registration=True)) as s:
        yield str(s.address)


def register(stub: pb_grpc.RefereeServiceStub, prefix: str, kind: int) -> tuple[str, str]:
    name = f"{prefix}-{uuid.uuid4().hex}"[:LONG]
    return name, stub.Register(pb.RegisterRequest(name=name, kind=kind)).token


def bare_seats(text: str) -> list[str]:
    """The lines that still name a seat by its number alone (not ``name (seat N)``, not the
    header's ``you are seat 0``, not the join line)."""
    return [
        line
        for line in text.splitlines()
        if re.search(r"\bseat \d\b", re.sub(r"\(seat \d\)|you are seat 0|as seat 0", "", line))
    ]


@pytest.mark.parametrize("game", ["dracula-vs-van-helsing", "sleeping-queens"])
def test_the_log_the_replay_and_the_results_name_the_players(
    address: str, stub: pb_grpc.RefereeServiceStub, game: str
) -> None:
    bot_name, bot_token = register(stub, "a-bot-with-a-long-name", pb.PLAYER_KIND_BOT)
    me, token = register(stub, "ann-with-a-long-name", pb.PLAYER_KIND_PERSON)
    bot = BotAccount(address, bot_token)
    session = cli(address, token, "challenge", bot_name, "--game", game, "--players", "2")
    try:
        game_id = session.expect(r"Joined game (\S+) as seat 0\.")[1]
        while "Final standings" not in session.expect(rf"Final standings: |{PROMPT}")[0]:
            session.send("1")
        assert session.wait() == 0
    finally:
        session.close()
        bot.close()
    played = session.text
    replay = cli(address, "", "spectate", "--game-id", game_id, "--from-start")
    try:
        replay.expect(r"Final standings: ")
        assert replay.wait() == 0
    finally:
        replay.close()
    for text in (played, replay.text):
        log = text[text.index("Joined game") if "Joined game" in text else 0 :]
        assert all(len(line) <= 80 for line in log.splitlines()), max(log.splitlines(), key=len)
        assert not bare_seats(log), "\n".join(bare_seats(log)[:10])
        standings = log[log.rindex("Final standings:") :]
        assert me[:16] in standings and bot_name[:16] in standings, standings
        events = [line for line in log.splitlines() if line.startswith((me, bot_name))]
        assert events, log[-3000:]
