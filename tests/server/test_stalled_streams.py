"""A client that keeps its connection but never reads cannot hold a stream.

The client below grants almost no HTTP/2 window (BDP probing off, a tiny lookahead), so the
server's writes to it block in the transport. The stream must be ended with
RESOURCE_EXHAUSTED within the stall limit, freeing its ``--max-streams`` slot for others.
"""

from __future__ import annotations

import random

import grpc

from referee.application import Limits
from referee.server.app import running_server
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    create_game,
    failure_of,
    play_random,
    read_until,
    stream_request,
    summary,
    wait_for,
)

#: A client that never reads: no window beyond a kilobyte, no probing for more.
STALLED_CLIENT = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]


def test_a_stream_whose_client_never_reads_is_ended_and_frees_its_slot() -> None:
    limits = Limits(max_streams=1, stream_stall_seconds=1.0)
    with (
        running_server(store="memory:", limits=limits, grace_seconds=1.0) as server,
        grpc.insecure_channel(server.address) as channel,
        grpc.insecure_channel(server.address, options=STALLED_CLIENT) as stalled_channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        stalled = pb_grpc.RefereeServiceStub(stalled_channel).StreamGame(
            stream_request(game := create_game(stub, players=12, rounds=None), None)
        )
        next(stalled)  # the first view: the stream is open and holds the only slot
        assert server.referee.streams == 1
        rng = random.Random(3)
        # Thousands of events the stalled client does not take; the game runs on regardless.
        while not summary(stub, game).game_over and server.referee.streams:
            play_random(stub, game, rng, max_commands=50)
        wait_for(lambda: server.referee.streams == 0, "the stalled stream to be ended", 30)
        # The slot is free for someone else.
        other = create_game(stub, players=3)
        assert read_until(stub, stream_request(other, None), 1)
        # The stalled client learns why when it reads at last, and can resume from there:
        # last_sequence is the last event written before the stalled one (which may still
        # arrive, or not), so resuming after it loses nothing.
        received = 0
        try:
            for message in stalled:
                if message.HasField("event"):
                    received = message.event.sequence
        except grpc.RpcError as error:
            call: grpc.Call = error  # type: ignore[assignment]
            assert call.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "stall" in (call.details() or "")
            assert 0 < int(failure_of(error).metadata["last_sequence"]) <= received
        else:
            raise AssertionError("the stalled stream ended with OK")
