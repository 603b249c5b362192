"""Server limits: games, streams, message size, and a stream whose reader stalls."""

from __future__ import annotations

import random
import time

import grpc

from referee.application import Limits
from referee.server.app import running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    GAME,
    RPC_TIMEOUT,
    create_game,
    fails,
    failure_of,
    play_random,
    read_until,
    serialised,
    stream_fails,
    stream_request,
    submit_request,
    summary,
    view,
)

#: Client channel options that keep HTTP/2 flow control small and fixed, so a reader that does
#: not read really holds the server back. By default gRPC's BDP probing grows the receive window
#: (to megabytes) and the client library buffers a whole unread stream: then the server never
#: sees a slow consumer at all (measured: 3,655 events of an unread stream all buffered).
SMALL_WINDOW = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]


def test_max_games() -> None:
    with (
        running_server(limits=Limits(max_games=2), grace_seconds=1.0) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        create_game(stub)
        create_game(stub)
        failure = fails(stub.CreateGame, pb.CreateGameRequest(game_type=GAME, players=3))
        assert failure.code is grpc.StatusCode.RESOURCE_EXHAUSTED, failure
        assert failure.info is not None and failure.info.reason
        listed = stub.ListGames(pb.ListGamesRequest(), timeout=RPC_TIMEOUT)
        assert len(listed.games) == 2


def test_max_streams(rng: random.Random) -> None:
    with (
        running_server(limits=Limits(max_streams=1), grace_seconds=1.0) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        game = create_game(stub)
        opening = game.created.game.version
        first = stub.StreamGame(stream_request(game, 0, opening), timeout=RPC_TIMEOUT)
        assert next(first).view.version == opening
        for viewer in (1, None, 0):
            failure = stream_fails(stub, stream_request(game, viewer))
            assert failure.code is grpc.StatusCode.RESOURCE_EXHAUSTED, failure
            assert failure.info is not None and failure.info.reason
        # The open stream still works, and once it is gone a new one may open.
        play_random(stub, game, rng, max_commands=1)
        assert next(first).event.sequence == opening + 1
        first.cancel()
        deadline = time.monotonic() + RPC_TIMEOUT
        while True:
            messages, failure = None, None
            try:
                messages = read_until(stub, stream_request(game, 1), 1)
                break
            except grpc.RpcError as error:
                failure = failure_of(error)
                assert failure.code is grpc.StatusCode.RESOURCE_EXHAUSTED, failure
                assert time.monotonic() < deadline, "a cancelled stream was never released"
                time.sleep(0.02)
        assert messages and messages[0].view.seat == 1


def test_request_over_max_message_bytes_is_resource_exhausted() -> None:
    limit = 16 * 1024
    with (
        running_server(max_message_bytes=limit, grace_seconds=1.0) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        failure = fails(
            stub.CreateGame,
            pb.CreateGameRequest(game_type=GAME, players=3, seed="s" * (2 * limit)),
        )
        assert failure.code is grpc.StatusCode.RESOURCE_EXHAUSTED, failure
        # Under the limit: fine (options are checked after the size; an unknown one is named).
        failure = fails(
            stub.CreateGame,
            pb.CreateGameRequest(game_type=GAME, players=3, options={"x" * (limit // 2): "1"}),
        )
        assert failure.code is grpc.StatusCode.INVALID_ARGUMENT, failure
        game = create_game(stub)
        request = submit_request(game, 0, None, command_id="c" * (2 * limit))
        failure = fails(stub.SubmitCommand, request)
        assert failure.code is grpc.StatusCode.RESOURCE_EXHAUSTED, failure
        assert summary(stub, game).version == game.created.game.version


def test_slow_stream_consumer_is_ended_with_resource_exhausted(rng: random.Random) -> None:
    with (
        running_server(limits=Limits(stream_buffer=2), grace_seconds=1.0) as server,
        grpc.insecure_channel(server.address) as channel,
        grpc.insecure_channel(server.address, options=SMALL_WINDOW) as slow_channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        slow_stub = pb_grpc.RefereeServiceStub(slow_channel)
        game = create_game(stub, players=4, rounds=50, seed="slow")
        stalled = slow_stub.StreamGame(stream_request(game, 0), timeout=60)
        assert not next(stalled).HasField("event")  # open; from now on nobody reads it
        played = play_random(stub, game, rng, max_commands=120)
        version = summary(stub, game).version
        assert not summary(stub, game).game_over

        # Other games, and other streams, keep working while that stream is stalled.
        other = create_game(stub, players=3, seed="meanwhile")
        started = time.monotonic()
        other_played = play_random(stub, other, rng, max_commands=20)
        assert time.monotonic() - started < 10
        other_stream = read_until(
            stub, stream_request(other, None), other_played.responses[-1].last_sequence
        )
        assert other_stream[-1].event.sequence == other_played.responses[-1].last_sequence

        # Now read the stalled stream: what was delivered, then RESOURCE_EXHAUSTED.
        delivered: list[pb.StreamGameResponse] = []
        try:
            delivered.extend(stalled)
        except grpc.RpcError as error:
            failure = failure_of(error)
        else:
            raise AssertionError("the stalled stream ended with OK")
        assert failure.code is grpc.StatusCode.RESOURCE_EXHAUSTED, failure
        assert failure.info is not None, failure
        last = int(failure.metadata["last_sequence"])
        sequences = [m.event.sequence for m in delivered]
        assert sequences == list(range(1, last + 1)), "no gap before the end"
        assert last < version, "the stream was not ended early: nothing to observe"

        # The client resumes from last_sequence and gets exactly the rest.
        rest = read_until(stub, stream_request(game, 0, last), version)
        assert [m.event.sequence for m in rest[1:]] == list(range(last + 1, version + 1))
        full = read_until(stub, stream_request(game, 0), version)
        assert serialised(delivered + rest[1:]) == serialised(full[1:])
        assert rest[-1].view == view(stub, game, 0)
        assert played.responses[-1].last_sequence == version
        deadline = time.monotonic() + RPC_TIMEOUT
        while server.metrics.streams_open._value.get() != 0:
            assert time.monotonic() < deadline, "streams were not released"
            time.sleep(0.02)
