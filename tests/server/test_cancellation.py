"""No client can wedge a game by giving up on a call.

Clients with tiny deadlines, and clients that hang up mid-call, must never leave a game whose
live state is behind its store: afterwards every game's version, views and streams equal what
the store holds, and every game can be played to the end.
"""

from __future__ import annotations

import contextlib
import random
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.server.app import RefereeServer, running_server
from referee.store.sqlite import SqliteEventStore
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    RPC_TIMEOUT,
    Game,
    create_game,
    failure_of,
    play_to_end,
    read_ok,
    stream_request,
    summary,
    view,
)

#: Deadlines from 0.2 ms to 20 ms: most calls expire somewhere inside the server.
DEADLINES = [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02]


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[tuple[RefereeServer, Path]]:
    # A real file store: its commits take long enough for deadlines to expire inside them.
    path = tmp_path / "referee.sqlite3"
    with running_server(store=f"sqlite:{path}", grace_seconds=1.0) as running:
        yield running, path


def _hammer(address: str, game: Game, seed: int, calls: int) -> None:
    """Random legal commands with tiny deadlines; some retried with the same id."""
    rng = random.Random(seed)
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        for _ in range(calls):
            try:
                game_summary = stub.GetGame(
                    pb.GetGameRequest(game_id=game.game_id), timeout=RPC_TIMEOUT
                ).game
                if game_summary.game_over or not game_summary.pending_seats:
                    return
                seat = rng.choice(list(game_summary.pending_seats))
                legal = list(view(stub, game, seat).legal_commands)
            except grpc.RpcError:
                continue
            if not legal:
                continue
            request = pb.SubmitCommandRequest(
                game_id=game.game_id,
                seat_token=game.tokens[seat],
                command_id=uuid.uuid4().hex,
                command=rng.choice(legal),
            )
            if rng.random() < 0.3:  # some clients also say which version they decided on
                request.expected_version = game_summary.version
            for _attempt in range(rng.choice([1, 1, 2])):  # a retry with the same id
                with contextlib.suppress(grpc.RpcError):
                    stub.SubmitCommand(request, timeout=rng.choice(DEADLINES))
            if rng.random() < 0.2:  # a spectator stream opened and dropped at once
                call = stub.StreamGame(stream_request(game, None), timeout=rng.choice(DEADLINES))
                call.cancel()


def _store_version(path: Path, game_id: str) -> int:
    with SqliteEventStore(path) as store:
        return store.version(game_id)


def test_tiny_deadlines_and_hang_ups_never_wedge_a_game(
    sqlite_server: tuple[RefereeServer, Path],
) -> None:
    server, path = sqlite_server
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        games = [create_game(stub, players=3, rounds=1) for _ in range(4)]
        threads = [
            threading.Thread(target=_hammer, args=(server.address, game, 100 * g + k, 40))
            for g, game in enumerate(games)
            for k in range(3)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        rng = random.Random(7)
        for game in games:
            # The live game equals the store, and answers as usual (no ABORTED without an
            # expected version, no stale duplicate).
            live = summary(stub, game)
            assert live.version == _store_version(path, game.game_id)
            for seat in [*range(game.players), None]:
                assert view(stub, game, seat).version == live.version
            play_to_end(stub, game, rng)
            final = summary(stub, game)
            assert final.version == _store_version(path, game.game_id)
            # Every stream of a finished game sends every event and ends.
            messages = read_ok(stub, stream_request(game, None))
            events = [m.event.sequence for m in messages if m.HasField("event")]
            assert events == list(range(1, final.version + 1))


# --- bytes that are not protobuf ---------------------------------------------------------------

#: Not a protobuf message: a field tag with wire type 7, which does not exist.
GARBAGE = b"\xff\xff\xff\xff\x0f"


@pytest.mark.parametrize(
    "method",
    [m.name for m in pb.DESCRIPTOR.services_by_name["RefereeService"].methods],
)
def test_bytes_that_are_not_protobuf_are_invalid_argument(method: str) -> None:
    """Every method answers undecodable request bytes with INVALID_ARGUMENT and a
    BadRequest detail (gRPC's own answer would be UNKNOWN, "Wire format was corrupt")."""
    streaming = pb.DESCRIPTOR.services_by_name["RefereeService"].methods_by_name[method]
    with (
        running_server(store="memory:", grace_seconds=1.0) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        path = f"/referee.v1.RefereeService/{method}"
        if streaming.server_streaming:
            call: Any = channel.unary_stream(path)(GARBAGE, timeout=RPC_TIMEOUT)
            with pytest.raises(grpc.RpcError) as raised:
                list(call)
        else:
            with pytest.raises(grpc.RpcError) as raised:
                channel.unary_unary(path)(GARBAGE, timeout=RPC_TIMEOUT)
        failure = failure_of(raised.value)
        assert failure.code is grpc.StatusCode.INVALID_ARGUMENT, failure
        assert failure.fields == ["request"]
        # The server is fine afterwards.
        stub = pb_grpc.RefereeServiceStub(channel)
        assert stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=RPC_TIMEOUT).game_types
