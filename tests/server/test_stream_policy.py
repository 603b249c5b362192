"""Every server stream under one policy, tested from outside with real sockets.

A reader that stops: a raw socket that sends its request and then never reads (a receive
buffer of a couple of kilobytes; over gRPC, an HTTP/2 stream window of 1 KiB it never
widens). Over HTTP/1.1 (Connect, gRPC-Web) the server must end the stream and close the
connection; over gRPC it must end the stream with RESOURCE_EXHAUSTED, which the reader finds
when it reads at last. The stream's slot is free again either way. StreamGame, WatchPlayer
and WatchLobby on all three wires, PlayerSession on gRPC (the one wire that serves it).

The caps: every stream counts against ``--max-streams`` (WatchLobby too), and against the
per-player and per-address caps; over one, RESOURCE_EXHAUSTED with RetryInfo.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import h2.config
import h2.connection
import h2.events
import h2.settings
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.application import Limits
from referee.application.players.accounts import PlayerSettings
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import create_game, failure_of, play_random, wait_for

SERVICE = "referee.v1.RefereeService"
#: Generous: the machine may be busy.
WAIT = 60.0
STALL = 1.0
#: The state of a connection neither end has closed (Linux's /proc/net/tcp).
TCP_ESTABLISHED = 1


def _envelope(message: bytes) -> bytes:
    return struct.pack(">BI", 0, len(message)) + message


def _tiny_socket(address: str) -> socket.socket:
    """A connected socket whose receive buffer is the kernel's smallest."""
    host, port = address.rsplit(":", 1)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    sock.settimeout(WAIT)
    sock.connect((host, int(port)))
    return sock


class StalledHttp:
    """A Connect or gRPC-Web stream over HTTP/1.1 whose client never reads."""

    def __init__(self, address: str, wire: str, method: str, request: bytes, token: str) -> None:
        self.sock = _tiny_socket(address)
        kind = "application/connect+proto" if wire == "connect" else "application/grpc-web+proto"
        body = _envelope(request)
        headers = [
            f"POST /{SERVICE}/{method} HTTP/1.1",
            f"host: {address}",
            f"content-type: {kind}",
            f"content-length: {len(body)}",
        ]
        if wire == "connect":
            headers.append("connect-protocol-version: 1")
        else:
            headers.append("x-grpc-web: 1")
        if token:
            headers.append(f"authorization: Bearer {token}")
        self.sock.sendall(("\r\n".join(headers) + "\r\n\r\n").encode() + body)

    def closed(self) -> bool:
        """Whether the server has let go of the connection, as the kernel's table of TCP
        sockets says (the server's end no longer established): without reading, which would
        let the stream go on. (A connection the server's socket gave up on is dropped
        without a reset, so the client's own end cannot tell until it sends.)"""
        client_port = self.sock.getsockname()[1]
        server_port = self.sock.getpeername()[1]
        with open("/proc/net/tcp") as table:
            next(table)
            for line in table:
                local, remote, state = line.split()[1:4]
                if (
                    int(local.split(":")[1], 16) == server_port
                    and int(remote.split(":")[1], 16) == client_port
                    and int(state, 16) == TCP_ESTABLISHED
                ):
                    return False
        return True

    def close(self) -> None:
        self.sock.close()


class StalledGrpc:
    """A gRPC stream over a raw HTTP/2 connection that grants a 1 KiB stream window, sends
    its request (PlayerSession: a resume, the request stream left open) and never reads."""

    def __init__(self, address: str, method: str, request: bytes, token: str) -> None:
        self.sock = _tiny_socket(address)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        self.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1024})
        self.sock.sendall(self.conn.data_to_send())
        # The server's settings, acknowledged (a peer that never does is cut off for that).
        acked = False
        while not acked:
            for event in self.conn.receive_data(self.sock.recv(65536)):
                acked = acked or isinstance(event, h2.events.SettingsAcknowledged)
            self.sock.sendall(self.conn.data_to_send())
        self.stream_id = self.conn.get_next_available_stream_id()
        headers = [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", f"/{SERVICE}/{method}"),
            (":authority", address),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
        ]
        if token:
            headers.append(("authorization", f"Bearer {token}"))
        self.conn.send_headers(self.stream_id, headers)
        self.conn.send_data(
            self.stream_id, _envelope(request), end_stream=method != "PlayerSession"
        )
        self.sock.sendall(self.conn.data_to_send())

    def status(self) -> dict[str, str]:
        """Read at last (widening the window as data comes) until the stream ends: its
        trailers, or ``{"reset": code}``."""
        while True:
            data = self.sock.recv(65536)
            if not data:
                return {"closed": "eof"}
            for event in self.conn.receive_data(data):
                if isinstance(event, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(
                        event.flow_controlled_length, event.stream_id
                    )
                elif isinstance(event, h2.events.TrailersReceived):
                    return {k.decode(): v.decode() for k, v in event.headers}
                elif isinstance(event, h2.events.StreamReset):
                    return {"reset": str(event.error_code)}
                elif isinstance(event, h2.events.ConnectionTerminated):
                    return {"closed": str(event.error_code)}
            self.sock.sendall(self.conn.data_to_send())

    def close(self) -> None:
        self.sock.close()


@contextlib.contextmanager
def served(**limits: Any) -> Iterator[tuple[RefereeServer, pb_grpc.RefereeServiceStub]]:
    options = {"stream_stall_seconds": STALL, "stream_heartbeat_seconds": 0.0, **limits}
    with (
        running_server(
            store="memory:",
            limits=Limits(**options),
            grace_seconds=1.0,
            http="127.0.0.1:0",
            players=PlayerSettings(open_registration=True),
        ) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        yield server, pb_grpc.RefereeServiceStub(channel)


def _listed(stub: pb_grpc.RefereeServiceStub) -> None:
    """A listed game of twelve open seats: a table of the lobby."""
    open_seat = pb.SeatRequest(mode=pb.SEAT_MODE_OPEN)
    stub.CreateGame(
        pb.CreateGameRequest(
            game_type="sleeping-queens", players=5, seat_requests=[open_seat] * 5, listed=True
        ),
        timeout=WAIT,
    )


class Source:
    """What a stream of ``rpc`` is asked for, and how the test makes it something to send."""

    def __init__(self, stub: pb_grpc.RefereeServiceStub, rpc: str) -> None:
        self.stub = stub
        self.rpc = rpc
        self.rng = random.Random(7)
        if rpc == "WatchLobby":
            for _ in range(20):  # a listing of some kilobytes to send at once
                _listed(stub)
            self.request = pb.WatchLobbyRequest().SerializeToString()
            return
        self.game = create_game(stub, players=12, rounds=None)
        resume = pb.GameResume(game_id=self.game.game_id, seat=0, seat_token=self.game.tokens[0])
        if rpc == "StreamGame":
            request: Any = pb.StreamGameRequest(game_id=self.game.game_id, spectator=True)
        elif rpc == "WatchPlayer":
            request = pb.WatchPlayerRequest(resume=[resume])
        else:
            request = pb.PlayerSessionRequest(resume=resume)
        self.request = request.SerializeToString()

    def more(self) -> None:
        """Something more for the stream to send."""
        if self.rpc == "WatchLobby":
            _listed(self.stub)
        else:
            play_random(self.stub, self.game, self.rng, max_commands=10)


def _open(server: RefereeServer, rpc: str) -> float:
    """Calls of ``rpc`` started and not yet handled, as the server's metrics count them."""
    started = handled = 0.0
    for metric in server.metrics.registry.collect():
        for sample in metric.samples:
            if sample.labels.get("grpc_method") != rpc:
                continue
            if sample.name == "grpc_server_started_total":
                started += sample.value
            elif sample.name == "grpc_server_handled_total":
                handled += sample.value
    return started - handled


def _until_ended(server: RefereeServer, source: Source) -> None:
    """Give the stream more to send until the server has ended it."""
    deadline = time.monotonic() + WAIT
    while _open(server, source.rpc):
        assert time.monotonic() < deadline, "the stalled stream was never ended"
        source.more()
        time.sleep(0.05)


STREAMS = ["StreamGame", "WatchPlayer", "WatchLobby"]


@pytest.mark.parametrize("rpc", STREAMS)
@pytest.mark.parametrize("wire", ["connect", "grpc-web"])
def test_a_reader_that_stops_over_http_is_ended_and_its_connection_closed(
    wire: str, rpc: str
) -> None:
    with served() as (server, stub):
        assert server.http is not None
        source = Source(stub, rpc)
        stalled = StalledHttp(server.http.address, wire, rpc, source.request, "")
        try:
            wait_for(lambda: _open(server, rpc) == 1, "the stream to open", WAIT)
            _until_ended(server, source)
            wait_for(stalled.closed, "the server to close the stalled reader's connection", WAIT)
        finally:
            stalled.close()


@pytest.mark.parametrize("rpc", [*STREAMS, "PlayerSession"])
def test_a_reader_that_stops_over_grpc_is_ended_with_resource_exhausted(rpc: str) -> None:
    with served() as (server, stub):
        source = Source(stub, rpc)
        stalled = StalledGrpc(server.address, rpc, source.request, "")
        try:
            wait_for(lambda: _open(server, rpc) == 1, "the stream to open", WAIT)
            _until_ended(server, source)
            status = stalled.status()
            assert status.get("grpc-status") == str(grpc.StatusCode.RESOURCE_EXHAUSTED.value[0])
            assert "stall" in status.get("grpc-message", ""), status
        finally:
            stalled.close()


#: Stalled readers at once: each stream's stall is its own.
READERS = 8


def test_several_readers_that_stop_over_grpc_each_end_with_resource_exhausted() -> None:
    """Several stalled streams of one game, each on a connection of its own: every one is
    ended (its slot free) and finds RESOURCE_EXHAUSTED when it reads at last."""
    with served() as (server, stub):
        source = Source(stub, "StreamGame")
        stalled = [
            StalledGrpc(server.address, "StreamGame", source.request, "") for _ in range(READERS)
        ]
        try:
            wait_for(lambda: _open(server, "StreamGame") == READERS, "the streams to open", WAIT)
            _until_ended(server, source)
            assert server.referee.pacing.open == 0
            for reader in stalled:
                status = reader.status()
                code = str(grpc.StatusCode.RESOURCE_EXHAUSTED.value[0])
                assert status.get("grpc-status") == code, status
                assert "stall" in status.get("grpc-message", ""), status
        finally:
            for reader in stalled:
                reader.close()


# --- the caps ------------------------------------------------------------------------------


def _retry_of(error: grpc.RpcError) -> error_details_pb2.RetryInfo:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            return retry
    raise AssertionError(f"no RetryInfo in {status}")


def _refused(open_stream: Callable[[], Iterator[Any]]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        next(open_stream())
    error: Any = caught.value
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, error
    assert _retry_of(error).retry_delay.ToMilliseconds() > 0
    return caught.value


def test_every_stream_counts_against_max_streams_watch_lobby_too() -> None:
    with served(max_streams=2) as (server, stub):
        lobby = [stub.WatchLobby(pb.WatchLobbyRequest()) for _ in range(2)]
        for stream in lobby:
            next(stream)
        game = create_game(stub, players=3)
        refused = _refused(
            lambda: stub.StreamGame(pb.StreamGameRequest(game_id=game.game_id, spectator=True))
        )
        assert failure_of(refused).metadata["limit"] == "streams"
        _refused(lambda: stub.WatchLobby(pb.WatchLobbyRequest()))
        lobby[0].cancel()
        wait_for(lambda: _open(server, "WatchLobby") == 1, "the slot to be free", WAIT)
        assert next(stub.StreamGame(pb.StreamGameRequest(game_id=game.game_id, spectator=True)))
        lobby[1].cancel()


def test_a_player_and_an_address_have_stream_caps() -> None:
    with served(max_streams_per_player=2, max_streams_per_address=4) as (server, stub):
        token = stub.Register(pb.RegisterRequest(name="capped", kind=pb.PLAYER_KIND_BOT)).token
        signed_in = (("authorization", f"Bearer {token}"),)
        mine = [stub.WatchPlayer(pb.WatchPlayerRequest(), metadata=signed_in) for _ in range(2)]
        wait_for(lambda: _open(server, "WatchPlayer") == 2, "the player's streams", WAIT)
        refused = _refused(lambda: stub.WatchPlayer(pb.WatchPlayerRequest(), metadata=signed_in))
        assert failure_of(refused).metadata["limit"] == "streams per player"
        # Anyone else (from this address) still may, up to the address's cap.
        lobby = [stub.WatchLobby(pb.WatchLobbyRequest()) for _ in range(2)]
        for stream in lobby:
            next(stream)
        refused = _refused(lambda: stub.WatchLobby(pb.WatchLobbyRequest()))
        assert failure_of(refused).metadata["limit"] == "streams per address"
        for stream in [*mine, *lobby]:
            stream.cancel()
        wait_for(
            lambda: _open(server, "WatchPlayer") + _open(server, "WatchLobby") == 0,
            "every stream to end",
            WAIT,
        )


# --- a slow reader ---------------------------------------------------------------------------


def _slow_http(address: str, wire: str, rpc: str, request: bytes) -> Iterator[tuple[int, bytes]]:
    """A Connect or gRPC-Web stream read slowly: each envelope (flags, body), a pause
    between them."""
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=WAIT)
    kind = "application/connect+proto" if wire == "connect" else "application/grpc-web+proto"
    connection.request(
        "POST", f"/{SERVICE}/{rpc}", body=_envelope(request), headers={"content-type": kind}
    )
    response = connection.getresponse()
    while True:
        head = response.read(5)
        if len(head) < 5:
            return
        flags, size = struct.unpack(">BI", head)
        yield flags, response.read(size)
        time.sleep(SLOW)


def _http_end(frames: Iterator[tuple[int, bytes]]) -> str:
    """How a slowly read HTTP stream ended: the code, and the limit its ErrorInfo names."""
    for flags, body in frames:
        if flags & 0x80:  # gRPC-Web trailers
            trailers = dict(
                line.split(": ", 1) for line in body.decode().split("\r\n") if ": " in line
            )
            return f"grpc-status {trailers.get('grpc-status')}: {trailers.get('grpc-message')}"
        if flags & 0x02:  # Connect's end of stream
            error = json.loads(body).get("error", {})
            limits = [d["debug"]["metadata"].get("limit") for d in error.get("details", [])]
            return f"{error.get('code')}: {limits}"
    return "the stream ended with no status"


def _grpc_call(channel: grpc.Channel, rpc: str, request: bytes) -> Iterator[Any]:
    if rpc == "PlayerSession":
        return channel.stream_stream(  # type: ignore[no-any-return]
            f"/{SERVICE}/{rpc}", response_deserializer=pb.PlayerSessionResponse.FromString
        )(iter([request]))
    output = pb.StreamGameResponse if rpc == "StreamGame" else pb.WatchPlayerResponse
    return channel.unary_stream(  # type: ignore[no-any-return]
        f"/{SERVICE}/{rpc}", response_deserializer=output.FromString
    )(request)


#: A slow reader's pause between messages.
SLOW = 0.1


@pytest.mark.parametrize(
    ("wire", "rpc"),
    [
        *((wire, rpc) for wire in ("connect", "grpc-web", "grpc") for rpc in STREAMS[:2]),
        ("grpc", "PlayerSession"),
    ],
)
def test_a_slow_reader_is_ended_with_resource_exhausted_when_it_falls_behind(
    wire: str, rpc: str
) -> None:
    """A reader that takes messages, but slower than the game goes, is ended by the backlog
    bound (``--stream-buffer``) with RESOURCE_EXHAUSTED, on every wire."""
    with served(stream_buffer=8, stream_stall_seconds=0.0) as (server, stub):
        assert server.http is not None
        source = Source(stub, rpc)
        ended: list[str] = []

        def read() -> None:
            if wire == "grpc":
                options = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]
                with grpc.insecure_channel(server.address, options=options) as channel:
                    call = _grpc_call(channel, rpc, source.request)
                    try:
                        for _ in call:
                            time.sleep(SLOW)
                        ended.append("OK")
                    except grpc.RpcError as error:
                        failure = failure_of(error)
                        ended.append(f"{failure.code.name}: {failure.metadata.get('limit')}")
            else:
                assert server.http is not None
                ended.append(_http_end(_slow_http(server.http.address, wire, rpc, source.request)))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        wait_for(lambda: _open(server, rpc) == 1, "the stream to open", WAIT)
        deadline = time.monotonic() + WAIT
        while _open(server, rpc):
            assert time.monotonic() < deadline, "the slow reader was never ended"
            source.more()
        reader.join(WAIT)
        assert ended, "the slow reader never learned how its stream ended"
        assert "stream buffer" in ended[0], ended
        assert ended[0].startswith(("RESOURCE_EXHAUSTED", "resource_exhausted", "grpc-status 8"))
