"""Issue 10 §3-§4: games leave memory when idle and come back intact; abandoned games end.

Memory must not grow with every game ever played: idle games (no call, no stream, no clock
running) are dropped and load again from the store on demand, with at most
``max_live_games`` held. A game without a clock that nobody plays or watches any more is
aborted after ``idle_expiry_seconds`` with a public reason.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import grpc
import pytest

from referee.application import Limits
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    RPC_TIMEOUT,
    create_game,
    create_refereed,
    play_random,
    play_to_end,
    read_ok,
    snapshot,
    stream_request,
    summary,
    wait_for,
)


@pytest.fixture
def evicting() -> Iterator[RefereeServer]:
    limits = Limits(max_live_games=4, evict_idle_seconds=0.2)
    with running_server(store="memory:", limits=limits, grace_seconds=1.0) as server:
        yield server


def test_idle_games_leave_memory_and_come_back_unchanged(evicting: RefereeServer) -> None:
    rng = random.Random(11)
    with grpc.insecure_channel(evicting.address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        games = [create_game(stub, players=3) for _ in range(12)]
        for game in games[:6]:
            play_to_end(stub, game, rng)
        for game in games[6:]:
            play_random(stub, game, rng, max_commands=5)
        before = {game.game_id: snapshot(stub, game) for game in games}
        wait_for(lambda: len(evicting.referee.games) == 0, "idle games to leave memory", 30)
        # Every game answers as before: summaries, each seat's view and the spectator's.
        for game in games:
            assert snapshot(stub, game) == before[game.game_id]
        assert len(evicting.referee.games) <= 4 + 1  # the bound (one may be loading right now)
        listed = stub.ListGames(pb.ListGamesRequest(), timeout=RPC_TIMEOUT).games
        assert {g.game_id for g in listed} == {game.game_id for game in games}
        # A dropped running game plays on to the end, and its stream replays every event.
        for game in games[6:]:
            play_to_end(stub, game, rng)
            final = summary(stub, game)
            events = [m.event.sequence for m in read_ok(stub, stream_request(game, 1))[1:]]
            assert events == list(range(1, final.version + 1))


def test_a_watched_game_stays_in_memory_and_its_stream_goes_on(evicting: RefereeServer) -> None:
    rng = random.Random(12)
    with grpc.insecure_channel(evicting.address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        game = create_game(stub, players=3)
        received: list[pb.StreamGameResponse] = []
        reader = threading.Thread(
            target=lambda: received.extend(read_ok(stub, stream_request(game, 0)))
        )
        reader.start()
        wait_for(lambda: received or evicting.referee.streams, "the stream to open")
        wait_for(lambda: len(evicting.referee.games) <= 1, "other games to leave", 30)
        assert game.game_id in evicting.referee.games
        play_to_end(stub, game, rng)
        reader.join(timeout=60)
        events = [m.event.sequence for m in received[1:]]
        assert events == list(range(1, summary(stub, game).version + 1))


def test_an_abandoned_game_is_aborted_with_a_public_reason() -> None:
    limits = Limits(idle_expiry_seconds=1.0)
    with (
        running_server(store="memory:", limits=limits, grace_seconds=1.0) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        left = create_game(stub, players=3)
        watched = create_game(stub, players=3)
        clocked = create_refereed(stub, clock=pb.ClockSettings(decision_ms=600_000))
        call = stub.StreamGame(stream_request(watched, 1), timeout=60)
        next(call)  # seat 1 is connected
        wait_for(lambda: summary(stub, left).aborted, "the abandoned game to be aborted", 30)
        reason = summary(stub, left).abort_reason
        assert reason.startswith("abandoned"), reason
        assert summary(stub, left).game_over
        assert not summary(stub, watched).aborted  # a seat is still there
        assert not summary(stub, clocked).aborted  # its clock will move it on
        call.cancel()  # the last seat leaves: now the game is abandoned too
        wait_for(lambda: summary(stub, watched).aborted, "the left game to be aborted", 30)
