"""Behind deploy/nginx/nginx.conf (run as it is, upstreams rewritten to loopback), the
referee counts each client by its own address, which nginx forwards and the referee believes
from nginx alone (``--trusted-proxy``): two clients of nginx have a budget each, on the
browser port and on the gRPC port."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.application.players.accounts import PlayerSettings
from referee.application.tables.limits import AddressLimits
from referee.server.app import running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.replicas.test_proxy import proxy

CREATE = pb.CreateGameRequest(game_type="dracula-vs-van-helsing", players=2)


def _create(port: int, source: str) -> tuple[int, dict[str, str]]:
    """CreateGame (Connect, JSON) through nginx's browser port from ``source``: the HTTP
    status and, when refused, the ErrorInfo metadata."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=20, source_address=(source, 0)
    )
    try:
        connection.request(
            "POST",
            "/referee.v1.RefereeService/CreateGame",
            json.dumps({"gameType": CREATE.game_type, "players": 2}),
            {"content-type": "application/json"},
        )
        response = connection.getresponse()
        body = json.loads(response.read() or b"{}")
    finally:
        connection.close()
    details = [d.get("debug", {}) for d in body.get("details", [])]
    metadata = next((d["metadata"] for d in details if "metadata" in d), {})
    return response.status, metadata


def test_each_client_of_nginx_has_its_own_budget(tmp_path: Path) -> None:
    few = PlayerSettings(per_address=AddressLimits(games_created_per_minute=2))
    with running_server(
        store="memory:", http="127.0.0.1:0", players=few, trusted_proxies=("127.0.0.1",)
    ) as server:
        assert server.http is not None
        upstream, upstream_http = server.address, f"127.0.0.1:{server.http.port}"
        with proxy([upstream], tmp_path, [upstream_http]) as (grpc_port, http_port):
            assert [_create(http_port, "127.0.0.2")[0] for _ in range(2)] == [200, 200]
            status, metadata = _create(http_port, "127.0.0.2")
            assert status == 429 and metadata["address"] == "127.0.0.2"
            assert _create(http_port, "127.0.0.3")[0] == 200  # another client of nginx
            # gRPC: nginx adds the address it saw to what the client sent; the referee
            # reads it from the right, past the proxies it trusts (here the client is on
            # nginx's own address, so what it wrote is next).
            forwarded = [("x-forwarded-for", "198.51.100.7")]
            with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
                stub = pb_grpc.RefereeServiceStub(channel)
                for _ in range(2):
                    stub.CreateGame(CREATE, metadata=forwarded, timeout=20)
                with pytest.raises(grpc.RpcError) as caught:
                    stub.CreateGame(CREATE, metadata=forwarded, timeout=20)
                status = rpc_status.from_call(caught.value)  # type: ignore[arg-type]
                assert (
                    status is not None
                    and status.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
                )
                info = error_details_pb2.ErrorInfo()
                assert status.details[0].Unpack(info) and info.metadata["address"] == "198.51.100.7"
                stub.CreateGame(CREATE, timeout=20)  # 127.0.0.1's own budget
