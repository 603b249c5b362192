"""Connections are not held for nothing, on a real server on loopback, from raw sockets: a
request head (or HTTP/2's first request) that does not arrive, a body that trickles, an idle
keep-alive connection on the HTTP port; an idle HTTP/2 connection, a channel without calls,
pings too often, and a connection past its age on the gRPC port. Each waits generously for
the server to close the connection; the client keeps sending meanwhile where it says so."""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Iterator

import grpc
import pytest

from referee.server.app import RefereeServer, running_server
from referee.server.connections import Connections
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

#: How long a test waits for the server to close a connection (the limits are 1-2 s).
WAIT = 30.0
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#: An empty SETTINGS frame, and a PING frame.
SETTINGS = struct.pack(">I", 0)[1:] + bytes((0x4, 0, 0, 0, 0, 0))
PING = struct.pack(">I", 8)[1:] + bytes((0x6, 0, 0, 0, 0, 0)) + b"12345678"
SHORT = Connections(
    http_header_seconds=1.0,
    http_idle_seconds=60.0,
    grpc_handshake_seconds=60.0,
    grpc_idle_seconds=60.0,
)


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with running_server(
        store="memory:", grace_seconds=1.0, http="127.0.0.1:0", connections=SHORT
    ) as running:
        yield running


def closed_while_sending(port: int, pieces: list[bytes], gap: float = 0.25) -> bytes:
    """Send ``pieces`` one every ``gap`` s (then nothing) until the server closes the
    connection; what it sent back. Fails if it is still open after :data:`WAIT`."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
        sock.settimeout(gap)
        received = b""
        deadline = time.monotonic() + WAIT
        queue = list(pieces)
        while time.monotonic() < deadline:
            try:
                if queue:
                    sock.sendall(queue.pop(0))
                data = sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:  # reset: closed too
                return received
            if not data:
                return received
            received += data
        raise AssertionError(f"still open after {WAIT} s (received {received[:200]!r})")


def trickle(head: bytes) -> list[bytes]:
    """``head`` a few bytes at a time, and then forever more of the same."""
    return [head[i : i + 4] for i in range(0, len(head), 4)] + [b"x-more: 1\r\n"] * 1000


def test_a_request_head_that_never_ends_is_closed(server: RefereeServer) -> None:
    assert server.http is not None
    closed_while_sending(server.http.port, trickle(b"GET /healthz HTTP/1.1\r\nhost: x\r\n"))


def test_a_body_that_trickles_is_refused_and_closed(server: RefereeServer) -> None:
    assert server.http is not None
    head = (
        b"POST /referee.v1.RefereeService/ListGames HTTP/1.1\r\nhost: x\r\n"
        b"content-type: application/json\r\ncontent-length: 4000\r\n\r\n"
    )
    answer = closed_while_sending(server.http.port, [head] + [b" "] * 4000)
    assert answer.startswith(b"HTTP/1.1 400") and b"did not arrive within 1 s" in answer


def test_an_http2_connection_that_sends_no_request_is_closed(server: RefereeServer) -> None:
    assert server.http is not None
    closed_while_sending(server.http.port, [PREFACE, SETTINGS])


def test_an_idle_keep_alive_connection_is_closed() -> None:
    idle = Connections(http_header_seconds=60.0, http_idle_seconds=1.0)
    with running_server(store="memory:", http="127.0.0.1:0", connections=idle) as server:
        assert server.http is not None
        answer = closed_while_sending(
            server.http.port, [b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n"]
        )
        assert answer.startswith(b"HTTP/1.1 200") and b"ok\n" in answer


def test_an_idle_http2_connection_on_the_grpc_port_is_closed() -> None:
    idle = Connections(grpc_idle_seconds=1.0, grpc_handshake_seconds=60.0)
    with running_server(store="memory:", connections=idle) as server:
        closed_while_sending(server.port, [PREFACE, SETTINGS])
        # A channel that makes no call is let go too (gRPC sends GOAWAY; it reconnects
        # when it has a call to make).
        with grpc.insecure_channel(server.address) as channel:
            grpc.channel_ready_future(channel).result(timeout=WAIT)
            left = threading.Event()
            channel.subscribe(
                lambda state: left.set() if state != grpc.ChannelConnectivity.READY else None
            )
            assert left.wait(WAIT)
            stub = pb_grpc.RefereeServiceStub(channel)
            assert stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=WAIT).game_types


def test_a_client_that_pings_too_often_is_sent_away() -> None:
    with running_server(store="memory:", connections=Connections()) as server:
        goaway = closed_while_sending(server.port, [PREFACE, SETTINGS] + [PING] * 20, gap=0.05)
        frames = _frames(goaway)
        assert any(kind == 0x7 for kind, _ in frames), frames  # GOAWAY
        [code] = [struct.unpack(">I", body[4:8])[0] for kind, body in frames if kind == 0x7]
        assert code == 0xB  # ENHANCE_YOUR_CALM: too many pings


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    frames = []
    while len(data) >= 9:
        size = int.from_bytes(data[:3], "big")
        frames.append((data[3], data[9 : 9 + size]))
        data = data[9 + size :]
    return frames


def test_a_stream_past_the_connections_age_ends_resumable_and_loses_nothing() -> None:
    aged = Connections(grpc_age_seconds=1.0, grpc_age_grace_seconds=1.0)
    with (
        running_server(store="memory:", grace_seconds=1.0, connections=aged) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        created = stub.CreateGame(
            pb.CreateGameRequest(game_type="dracula-vs-van-helsing", players=2), timeout=WAIT
        )
        request = pb.StreamGameRequest(game_id=created.game_id, spectator=True, batched=True)
        last = 0
        with pytest.raises(grpc.RpcError) as ended:
            for message in stub.StreamGame(request, timeout=WAIT):
                last = max([last, *(e.sequence for e in message.events)])
        # The connection grew old and its grace ran out: the stream ends UNAVAILABLE, which
        # a client resumes (docs/clients.md), from the last event it received.
        assert ended.value.code() == grpc.StatusCode.UNAVAILABLE and last > 0
        view = stub.GetView(
            pb.GetViewRequest(game_id=created.game_id, seat_token=created.seats[0].token),
            timeout=WAIT,
        ).view
        mover = view.pending_seats[0]
        token = created.seats[mover].token
        mine = stub.GetView(
            pb.GetViewRequest(game_id=created.game_id, seat_token=token), timeout=WAIT
        ).view
        stub.SubmitCommand(
            pb.SubmitCommandRequest(
                game_id=created.game_id,
                seat_token=token,
                command_id="while-away",
                command=mine.legal_commands[0],
            ),
            timeout=WAIT,
        )
        request.after_sequence = last
        sequences = []
        resumed = stub.StreamGame(request, timeout=WAIT)
        for message in resumed:
            sequences += [e.sequence for e in message.events]
            if message.caught_up:
                break
        resumed.cancel()
        assert sequences and sequences[0] == last + 1, (last, sequences)
