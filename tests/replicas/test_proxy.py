"""deploy/nginx/nginx.conf as it is (upstreams and ports rewritten to loopback) in front of
two real replicas: whole games through nginx's grpc_pass, before and after one replica stops.

Needs the nginx binary (Debian's nginx-light; .ci/run installs it and sets
REFEREE_REQUIRE_NGINX, so CI fails instead of skipping).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from referee_bot.runner import selfplay_game
from tests.replicas.cluster import Replica
from tests.store.pg import postgres_url, temporary_database

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "nginx" / "nginx.conf"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _nginx() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else "")
    if not found:
        message = "nginx not installed (Debian: apt-get install nginx-light)"
        if os.environ.get("REFEREE_REQUIRE_NGINX"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def rewrite(config: str, replicas: list[str], grpc_port: int, http_port: int, work: Path) -> str:
    """The deploy config with compose's names replaced: replica i's address for
    ``referee-i``'s gRPC upstream (lines of absent replicas dropped), loopback ports, files
    under ``work``."""
    lines = []
    for line in config.splitlines():
        match = re.search(r"server referee-(\d):(\d+)", line)
        if match:
            index = int(match.group(1)) - 1
            if index >= len(replicas):
                continue
            host, port = replicas[index], match.group(2)
            # gRPC upstreams: the replica; HTTP upstreams (no --http here): the same host.
            target = host if port == "50051" else f"{host.rsplit(':', 1)[0]}:{http_port}"
            line = line.replace(match.group(0), f"server {target}")
        line = line.replace("listen 50051 http2;", f"listen 127.0.0.1:{grpc_port} http2;")
        line = line.replace("listen 8080;", f"listen 127.0.0.1:{http_port};")
        line = re.sub(r"^pid .*;", f"pid {work / 'nginx.pid'};", line)
        lines.append(line)
    return "\n".join(lines) + "\n"


@pytest.fixture
def database() -> Iterator[str]:
    with temporary_database() as url:
        yield postgres_url(url)


def test_games_through_nginx_grpc_pass(database: str, tmp_path: Path) -> None:
    nginx = _nginx()
    replicas = [Replica(database, tmp_path, f"replica-{i}") for i in range(2)]
    proxy: subprocess.Popen[bytes] | None = None
    try:
        for replica in replicas:
            replica.start()
        grpc_port, http_port = _free_port(), _free_port()
        config = tmp_path / "nginx.conf"
        config.write_text(
            rewrite(
                CONFIG.read_text(), [r.address for r in replicas], grpc_port, http_port, tmp_path
            )
        )
        check = subprocess.run(
            [nginx, "-t", "-q", "-p", str(tmp_path), "-c", str(config)],
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stderr
        proxy = subprocess.Popen(
            [nginx, "-p", str(tmp_path), "-c", str(config), "-g", "daemon off;"],
            stderr=(tmp_path / "nginx.log").open("wb"),
        )
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
            stub = pb_grpc.RefereeServiceStub(channel)
            first = selfplay_game(stub, "sleeping-queens", 3, ["random"] * 3, seed="nginx-1")
            replicas[0].stop()  # nginx sends the next calls to the replica left
            second = selfplay_game(stub, "sleeping-queens", 3, ["random"] * 3, seed="nginx-2")
            for report in (first, second):
                game_id = str(report["game_id"])
                for _ in range(4):  # whichever connection nginx picks
                    game = stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=20).game
                    assert game.game_over
        # No replica at all: nginx answers as gRPC does, UNAVAILABLE, which clients retry.
        replicas[1].stop()
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            stub = pb_grpc.RefereeServiceStub(channel)
            with pytest.raises(grpc.RpcError) as caught:
                stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=20)
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        if proxy is not None:
            proxy.terminate()
            try:
                proxy.wait(10)
            except subprocess.TimeoutExpired:
                proxy.kill()
        for replica in replicas:
            replica.stop()
