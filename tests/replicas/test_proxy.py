"""deploy/nginx/nginx.conf as it is (upstreams and ports rewritten to loopback) in front of
two real replicas: whole games through nginx's grpc_pass, before and after one replica stops;
a call cut off by a dying upstream is sent to the other one; a replica killed with SIGKILL
mid-game, after which every stream resumes by sequence with no gap.

Needs the nginx binary (Debian's nginx-light; .ci/run installs it and sets
REFEREE_REQUIRE_NGINX, so CI fails instead of skipping).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import re
import shutil
import socket
import struct
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from referee_bot.runner import selfplay_game
from tests.replicas.cluster import Replica
from tests.store.faults import Player, create, play_all
from tests.store.pg import postgres_url, temporary_database

#: Seconds the play behind the proxy may take (a hang guard).
PLAY_TIMEOUT = 180.0

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


def rewrite(
    config: str,
    replicas: list[str],
    grpc_port: int,
    http_port: int,
    work: Path,
    http_replicas: list[str] | None = None,
) -> str:
    """The deploy config with compose's names replaced: replica i's address for
    ``referee-i``'s gRPC upstream (lines of absent replicas dropped) and ``http_replicas[i]``
    for its HTTP one, loopback ports, files under ``work``."""
    lines = []
    for line in config.splitlines():
        match = re.search(r"server referee-(\d):(\d+)", line)
        if match:
            index = int(match.group(1)) - 1
            if index >= len(replicas):
                continue
            host, port = replicas[index], match.group(2)
            # gRPC upstreams: the replica; HTTP upstreams: its HTTP port if given, else (no
            # --http) a port of the same host.
            if port == "50051":
                target = host
            elif http_replicas is not None:
                target = http_replicas[index]
            else:
                target = f"{host.rsplit(':', 1)[0]}:{http_port}"
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


@contextlib.contextmanager
def proxy(
    upstreams: list[str], work: Path, http_upstreams: list[str] | None = None
) -> Iterator[tuple[int, int]]:
    """nginx running deploy/nginx/nginx.conf in front of ``upstreams`` (host:port of gRPC
    servers) and ``http_upstreams`` (their HTTP ports); yields its gRPC and HTTP ports."""
    nginx = _nginx()
    grpc_port, http_port = _free_port(), _free_port()
    config = work / "nginx.conf"
    config.write_text(
        rewrite(CONFIG.read_text(), upstreams, grpc_port, http_port, work, http_upstreams)
    )
    check = subprocess.run(
        [nginx, "-t", "-q", "-p", str(work), "-c", str(config)], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr
    process = subprocess.Popen(
        [nginx, "-p", str(work), "-c", str(config), "-g", "daemon off;"],
        stderr=(work / "nginx.log").open("wb"),
    )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as probe:
            grpc.channel_ready_future(probe).result(timeout=30)  # nginx is listening
        yield grpc_port, http_port
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def behind_nginx(
    database: str, work: Path, count: int = 2
) -> Iterator[tuple[list[Replica], int, pb_grpc.RefereeServiceStub]]:
    """``count`` replicas behind nginx: (the replicas, nginx's gRPC port, a stub through it)."""
    replicas = [Replica(database, work, f"replica-{i}") for i in range(count)]
    try:
        for replica in replicas:
            replica.start()
        with (
            proxy([r.address for r in replicas], work) as (port, _),
            grpc.insecure_channel(f"127.0.0.1:{port}") as channel,
        ):
            yield replicas, port, pb_grpc.RefereeServiceStub(channel)
    finally:
        for replica in replicas:
            replica.stop()


def test_games_through_nginx_grpc_pass(database: str, tmp_path: Path) -> None:
    with behind_nginx(database, tmp_path) as (replicas, port, stub):
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
        with grpc.insecure_channel(f"127.0.0.1:{port}") as fresh:
            with pytest.raises(grpc.RpcError) as caught:
                pb_grpc.RefereeServiceStub(fresh).ListGameTypes(
                    pb.ListGameTypesRequest(), timeout=20
                )
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE


class DyingUpstream:
    """A gRPC upstream that dies in every call: it takes the connection and the request,
    then resets the connection, as a replica killed before it answered."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        #: Bytes received on each connection before it was reset.
        self.received: list[int] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            conn.settimeout(0.3)
            got = 0
            with contextlib.suppress(OSError):
                while chunk := conn.recv(65536):  # until the request is in (or 0.3 s idle)
                    got += len(chunk)
            self.received.append(got)
            # SO_LINGER 0: close with a reset, as the kernel does for a killed process.
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    def close(self) -> None:
        self.listener.close()


def _started_with_a_game(replica: Replica) -> tuple[str, list[str]]:
    """Start ``replica`` and create a two-seat game on it directly: (game id, seat tokens)."""
    replica.start()
    with grpc.insecure_channel(replica.address) as direct:
        return create(
            pb_grpc.RefereeServiceStub(direct),
            pb.CreateGameRequest(game_type="sleeping-queens", players=2),
        )


def test_a_call_cut_off_by_a_dying_replica_is_unavailable_and_its_retry_lands_once(
    database: str, tmp_path: Path
) -> None:
    """A call in flight on a replica that dies before it answers cannot be sent
    again by nginx (grpc_pass keeps no request body); it must end UNAVAILABLE, never
    INTERNAL or UNKNOWN, so that clients retry it (a command by the same id) on a live one."""
    dying = DyingUpstream()
    replica = Replica(database, tmp_path, "replica-0")
    try:
        game_id, tokens = _started_with_a_game(replica)
        with (
            proxy([dying.address, replica.address], tmp_path) as (port, _),
            grpc.insecure_channel(f"127.0.0.1:{port}") as channel,
        ):
            stub = pb_grpc.RefereeServiceStub(channel)
            player = Player(stub, game_id, tokens, random.Random(24))
            # GetGame, GetView, SubmitCommand each time: the dying upstream gets some.
            player.play(max_commands=4)
            version = stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=20).game.version
        assert dying.received and all(dying.received), "no call reached the dying upstream"
        assert player.error is None, repr(player.error)
        assert player.faults, "no call was cut off"
        wrong = [f for f in player.faults if f.code is not grpc.StatusCode.UNAVAILABLE]
        assert not wrong, f"cut-off calls that clients would not retry: {wrong}"
        assert len(player.outcomes) == 4
        spans = sorted(player.outcomes.values())
        assert spans[-1][1] == version, "the retried commands did not land once each"
        assert all(a[1] + 1 == b[0] for a, b in itertools.pairwise(spans)), spans
    finally:
        dying.close()
        replica.stop()


@dataclass
class Follower:
    """A stream followed to the game's end by a plain resume loop: after any end that is not
    the game's (a status of any code, a transport cut, OK before game over) it opens the
    stream again with ``after_sequence`` = the last sequence received."""

    stub: pb_grpc.RefereeServiceStub
    request: pb.StreamGameRequest
    #: (after_sequence, event sequences received) of each connection.
    connections: list[tuple[int, list[int]]] = field(default_factory=list)
    ends: list[str] = field(default_factory=list)
    error: BaseException | None = None

    def follow(self) -> None:
        last = 0
        try:
            for _ in range(100):
                request = pb.StreamGameRequest()
                request.CopyFrom(self.request)
                request.after_sequence = last
                received: list[int] = []
                self.connections.append((last, received))
                over = False
                try:
                    for message in self.stub.StreamGame(request, timeout=PLAY_TIMEOUT):
                        events = [message.event] if message.HasField("event") else []
                        for event in [*events, *message.events]:  # one, or a batch
                            received.append(event.sequence)
                            last = event.sequence
                        over = message.view.game_over
                except grpc.RpcError as error:
                    self.ends.append(f"{error.code().name}: {error.details()}")  # type: ignore[attr-defined]
                    time.sleep(0.1)
                    continue
                if over:
                    return
                self.ends.append("OK before the game was over")
            raise AssertionError("the stream never reached the game's end")
        except BaseException as error:
            self.error = error


def test_a_replica_killed_behind_nginx_every_stream_resumes_with_no_gap(
    database: str, tmp_path: Path
) -> None:
    with behind_nginx(database, tmp_path) as (replicas, _, stub):
        players, followers = [], []
        for index in range(3):
            game_id, tokens = create(
                stub, pb.CreateGameRequest(game_type="sleeping-queens", players=3)
            )
            players.append(Player(stub, game_id, tokens, random.Random(index)))
            for request in (
                pb.StreamGameRequest(game_id=game_id, spectator=True),
                pb.StreamGameRequest(game_id=game_id, seat_token=tokens[0]),
                pb.StreamGameRequest(game_id=game_id, seat_token=tokens[1], batched=True),
            ):
                followers.append(Follower(stub, request))
        threads = [threading.Thread(target=f.follow, daemon=True) for f in followers]
        for thread in threads:
            thread.start()
        threads += play_all(players)
        deadline = time.monotonic() + PLAY_TIMEOUT
        while sum(len(p.outcomes) for p in players) < 30 and time.monotonic() < deadline:
            time.sleep(0.05)
        replicas[0].kill()
        for thread in threads:
            thread.join(max(1.0, deadline - time.monotonic()))
        finals = {
            p.game_id: stub.GetGame(pb.GetGameRequest(game_id=p.game_id), timeout=20).game
            for p in players
        }
        for player in players:
            assert player.error is None, repr(player.error)
            assert finals[player.game_id].game_over
        problems = []
        for follower in followers:
            if follower.error is not None:
                problems.append(repr(follower.error))
                continue
            events = [seq for _, got in follower.connections for seq in got]
            final = finals[follower.request.game_id].version
            if events != list(range(1, final + 1)):
                problems.append(f"gap or duplicate: {follower.connections}")
            for after, got in follower.connections:
                if got and got[0] <= after:
                    problems.append(f"resumed after {after} but got {got[0]} first")
        assert not problems, "\n".join(problems)
        resumed = [f for f in followers if len(f.connections) > 1]
        assert resumed, "no stream was cut by the kill: the test did not test resuming"


def _connect(port: int, method: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A Connect unary call (JSON) through nginx's browser port: (HTTP status, answer)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/referee.v1.RefereeService/{method}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, {}


def test_a_browser_call_cut_off_by_a_dying_replica_is_sent_to_another(
    database: str, tmp_path: Path
) -> None:
    """On the browser port nginx keeps request bodies: a call cut off by a replica that died
    before it answered is sent to another replica by nginx itself (CreateGame excepted)."""
    dying = DyingUpstream()
    http = f"127.0.0.1:{_free_port()}"
    replica = Replica(database, tmp_path, "replica-0", "--http", http)
    try:
        game_id, tokens = _started_with_a_game(replica)
        upstreams = [dying.address, replica.address]
        with proxy(upstreams, tmp_path, [dying.address, http]) as (_, port):
            answers = [
                _connect(port, "GetView", {"gameId": game_id, "seatToken": tokens[0]})
                for _ in range(4)
            ]
        assert dying.received and all(dying.received), "no call reached the dying upstream"
        assert [status for status, _ in answers] == [200] * 4, answers
        assert all(answer["view"] for _, answer in answers)
    finally:
        dying.close()
        replica.stop()
