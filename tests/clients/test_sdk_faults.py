"""The bot SDK through a server that dies: a real ``referee serve`` process on SQLite, killed
with SIGKILL mid-game and started again on the same port.

- every bot's stream resumes after the transport-level end and the game finishes; a
  spectator's stream, resumed the same way, delivers every event once, in order, no gap;
- a command whose outcome is unknown is retried with its id until the server is back, and is
  applied once: a retry of an applied command answers ``duplicate`` and appends nothing.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot import runner
from referee_bot.runner import GameStream, SeatBot, send_command
from referee_bot.strategies import make_strategy
from tests.replicas.cluster import Replica

#: Seconds the server stays dead before it is started again.
DOWN_SECONDS = 1.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Replica]:
    replica = Replica(f"sqlite:{tmp_path / 'referee.sqlite3'}", tmp_path, "referee").start()
    try:
        yield replica
    finally:
        replica.stop()


def restart(server: Replica) -> None:
    """SIGKILL (no shutdown at all), a pause, then the same store on the same port."""
    server.kill()
    time.sleep(DOWN_SECONDS)
    server.start()


def test_streams_resume_and_the_game_finishes_across_a_server_kill(server: Replica) -> None:
    channel = grpc.insecure_channel(server.address)
    stub = referee_pb2_grpc.RefereeServiceStub(channel)
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(
            game_type="vampire-queen", players=3, options={"rounds": "2"}
        ),
        timeout=30,
    )
    spectator = GameStream(stub, created.game_id, spectator=True, max_retries=60)
    sequences: list[int] = []

    def watch() -> None:
        for message in spectator:
            if message.HasField("event"):
                sequences.append(message.event.sequence)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    bots = [
        SeatBot(
            stub,
            created.game_id,
            seat.token,
            make_strategy("heuristic", "vampire-queen"),
            random.Random(seat.seat),
        ).start()
        for seat in created.seats
    ]
    deadline = time.monotonic() + 60
    while len(sequences) < 20 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(sequences) >= 20, "the game is under way before the kill"
    restart(server)
    outcomes = [bot.join(120) for bot in bots]
    watcher.join(60)
    final = stub.GetGame(referee_pb2.GetGameRequest(game_id=created.game_id), timeout=30).game
    assert final.game_over
    assert sequences == list(range(1, final.version + 1)), "no gap, no duplicate"
    assert spectator.reconnects >= 1
    assert sum(outcome.reconnects for outcome in outcomes) >= len(bots)
    channel.close()


def test_a_command_retried_through_an_outage_is_applied_once(server: Replica) -> None:
    channel = grpc.insecure_channel(server.address)
    stub = referee_pb2_grpc.RefereeServiceStub(channel)
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(
            game_type="vampire-queen", players=3, options={"rounds": "1"}
        ),
        timeout=30,
    )
    seat = stub.GetGame(referee_pb2.GetGameRequest(game_id=created.game_id), timeout=30).game
    mover = seat.pending_seats[0]
    token = created.seats[mover].token
    view = stub.GetView(
        referee_pb2.GetViewRequest(game_id=created.game_id, seat_token=token), timeout=30
    ).view
    request = referee_pb2.SubmitCommandRequest(
        game_id=created.game_id,
        seat_token=token,
        command_id=str(uuid.uuid4()),
        expected_version=view.version,
        command=view.legal_commands[0],
    )
    server.kill()
    answer: list[referee_pb2.SubmitCommandResponse] = []
    sender = threading.Thread(
        target=lambda: answer.append(send_command(stub, request, retries=40, timeout=5)),
        daemon=True,
    )
    sender.start()  # its first tries find no server: the outcome is unknown, it retries
    time.sleep(DOWN_SECONDS)
    server.start()
    sender.join(60)
    assert answer, "the command went through once the server was back"
    first = answer[0]
    assert not first.duplicate and first.first_sequence == view.version + 1
    again = send_command(stub, request)  # as after a lost answer: the same id
    assert again.duplicate and again.last_sequence == first.last_sequence
    after = stub.GetGame(referee_pb2.GetGameRequest(game_id=created.game_id), timeout=30).game
    assert after.version == first.last_sequence, "applied once: nothing appended by the retry"
    channel.close()


def test_only_refusals_of_the_request_end_a_stream() -> None:
    """The SDK gives up on a stream only for the server's answers to the request itself; a
    transport end (INTERNAL "Received RST_STREAM" from a proxy, UNKNOWN, CANCELLED by the
    peer) is resumed, and a command whose outcome is unknown is retried."""
    transport = {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
    assert not transport & runner.STREAM_REFUSED
    assert transport <= runner.OUTCOME_UNKNOWN
    answers = {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNAUTHENTICATED,
    }
    assert not answers & runner.OUTCOME_UNKNOWN, "a definite answer is never retried"
