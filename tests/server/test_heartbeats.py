"""An idle stream sends heartbeats, so a proxy's idle timeout does not cut it: through real
nginx (deploy/nginx/nginx.conf, its read timeouts cut to :data:`PROXY_TIMEOUT`), over gRPC
(``grpc_read_timeout``) and Connect (``proxy_read_timeout``), each stream is still open and
still answering long after that timeout, having sent nothing but heartbeats.

Needs the nginx binary (REFEREE_REQUIRE_NGINX makes its absence a failure).
"""

from __future__ import annotations

import contextlib
import http.client
import struct
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.application import Limits
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.replicas.test_proxy import CONFIG, _free_port, _nginx, rewrite
from tests.server.conftest import create_game

SERVICE = "referee.v1.RefereeService"
#: nginx's read timeouts here: a stream silent for longer is cut.
PROXY_TIMEOUT = 2
#: How long each stream is held open: well past the proxy's timeout.
HOLD = 3 * PROXY_TIMEOUT
HEARTBEAT = 0.5


@contextlib.contextmanager
def nginx_before(server: RefereeServer, work: Path) -> Iterator[tuple[int, int]]:
    """nginx with the deploy config in front of ``server`` (its read timeouts short)."""
    assert server.http is not None
    grpc_port, http_port = _free_port(), _free_port()
    text = rewrite(
        CONFIG.read_text(),
        [server.address],
        grpc_port,
        http_port,
        work,
        [server.http.address],
    )
    text = text.replace("grpc_read_timeout 1h;", f"grpc_read_timeout {PROXY_TIMEOUT}s;")
    text = text.replace("proxy_read_timeout 1h;", f"proxy_read_timeout {PROXY_TIMEOUT}s;")
    assert f"read_timeout {PROXY_TIMEOUT}s;" in text
    config = work / "nginx.conf"
    config.write_text(text)
    nginx = _nginx()
    process = subprocess.Popen(
        [nginx, "-p", str(work), "-c", str(config), "-g", "daemon off;"],
        stderr=(work / "nginx.log").open("wb"),
    )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as probe:
            grpc.channel_ready_future(probe).result(timeout=30)
        yield grpc_port, http_port
    finally:
        process.terminate()
        process.wait(10)


class Reader:
    """Reads a stream in a thread: when each message came and whether it was a heartbeat;
    how the stream ended, if it did."""

    def __init__(self, messages: Iterator[Any]) -> None:
        self.seen: list[tuple[float, bool]] = []
        self.ended: str | None = None
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._read, args=(messages,), daemon=True)
        self._thread.start()

    def _read(self, messages: Iterator[Any]) -> None:
        try:
            for message in messages:
                self.seen.append((time.monotonic() - self.started, message.HasField("heartbeat")))
            self.ended = "the stream ended"
        except Exception as error:  # any end is what the test reports
            self.ended = f"the stream failed: {error}"


def _connect_stream(port: int, rpc: str, request: bytes, output: type[Any]) -> Iterator[Any]:
    """A Connect server stream through nginx's HTTP port, message by message."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request(
        "POST",
        f"/{SERVICE}/{rpc}",
        body=struct.pack(">BI", 0, len(request)) + request,
        headers={"content-type": "application/connect+proto", "connect-protocol-version": "1"},
    )
    response = connection.getresponse()
    assert response.status == 200, response.status
    while True:
        head = response.read(5)
        if len(head) < 5:
            raise ConnectionError("the connection closed mid-stream")
        flags, size = struct.unpack(">BI", head)
        body = response.read(size)
        if flags & 0x02:
            raise ConnectionError(f"end of stream: {body.decode()}")
        yield output.FromString(body)


def _request(stub: pb_grpc.RefereeServiceStub, rpc: str) -> Any:
    if rpc == "WatchLobby":
        return pb.WatchLobbyRequest()
    game = create_game(stub, players=3)
    if rpc == "StreamGame":
        return pb.StreamGameRequest(game_id=game.game_id, spectator=True)
    resume = pb.GameResume(game_id=game.game_id, seat=0, seat_token=game.tokens[0])
    if rpc == "PlayerSession":
        return pb.PlayerSessionRequest(resume=resume)
    return pb.WatchPlayerRequest(resume=[resume])


OUTPUTS = {
    "StreamGame": pb.StreamGameResponse,
    "WatchLobby": pb.WatchLobbyResponse,
    "WatchPlayer": pb.WatchPlayerResponse,
}


@pytest.mark.parametrize(
    ("wire", "rpc"),
    [
        *((wire, rpc) for wire in ("grpc", "connect") for rpc in OUTPUTS),
        ("grpc", "PlayerSession"),
    ],
)
def test_an_idle_stream_outlives_the_proxys_idle_timeout(
    wire: str, rpc: str, tmp_path: Path
) -> None:
    limits = Limits(stream_heartbeat_seconds=HEARTBEAT)
    with (
        running_server(store="memory:", limits=limits, http="127.0.0.1:0") as server,
        grpc.insecure_channel(server.address) as direct,
        nginx_before(server, tmp_path) as (grpc_port, http_port),
        grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as proxied,
    ):
        request = _request(pb_grpc.RefereeServiceStub(direct), rpc)
        stub = pb_grpc.RefereeServiceStub(proxied)
        if rpc == "PlayerSession":
            call: Any = stub.PlayerSession(iter([request]))
            messages: Iterator[Any] = call
        elif wire == "grpc":
            call = getattr(stub, rpc)(request)
            messages = call
        else:
            messages = _connect_stream(http_port, rpc, request.SerializeToString(), OUTPUTS[rpc])
        reader = Reader(messages)
        time.sleep(HOLD)  # the stream is idle: nothing happens in the game or the lobby
        assert reader.ended is None, reader.ended
        late = [at for at, heartbeat in reader.seen if heartbeat and at > PROXY_TIMEOUT]
        assert late, f"no heartbeat after the proxy's timeout: {reader.seen}"
        if wire == "grpc":
            call.cancel()
