"""P7: replicas on PostgreSQL (docs/operations.md, "Running several replicas").

* Throughput and latency: the same client (one thread per game: GetView, then SubmitCommand
  with ``expected_version``; a spectator stream per game times each command's last event)
  against one replica on SQLite, then 1, 2 and 3 replicas on one PostgreSQL database, the
  client spreading calls over them with gRPC's round_robin policy.
* Cross-replica stream delay: commands sent to replica A, their events timed on a spectator
  stream at replica B (and at A, for comparison): from A's acknowledgement to B's event.
* The store against the driver: durable appends/s of :class:`PostgresEventStore` divided by
  raw single-row inserts/s through psycopg on the same server, each its own transaction,
  measured alternately: one append at a time, and 32 games appending at once as the server
  makes them (group commit, :func:`referee.bench.store.games_at_once`, with p99 latency).

Needs a PostgreSQL server whose user may create databases: ``REFEREE_BENCH_POSTGRES`` or
``REFEREE_TEST_POSTGRES`` (default: the local server as ``postgres``); each run uses a scratch
database, dropped at the end. Without one, P7 reports why it was skipped.
"""

from __future__ import annotations

import hashlib
import os
import random
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import grpc

from referee.bench.load import ServerProcess, referee_argv
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

DEFAULT_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
GAME = "vampire-queen"
PLAYERS = 4
RPC_TIMEOUT = 30.0
#: A typical event payload (as P5).
PAYLOAD = bytes(range(24))


def admin_url() -> str:
    return (
        os.environ.get("REFEREE_BENCH_POSTGRES")
        or os.environ.get("REFEREE_TEST_POSTGRES")
        or DEFAULT_ADMIN
    )


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _ms(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": _quantile(values, 0.5) * 1000,
        "p99_ms": _quantile(values, 0.99) * 1000,
        "samples": float(len(values)),
    }


def round_robin(addresses: list[str]) -> grpc.Channel:
    config = '{"loadBalancingConfig": [{"round_robin": {}}]}'
    return grpc.insecure_channel(
        "ipv4:" + ",".join(addresses), options=[("grpc.service_config", config)]
    )


class Arrivals:
    """A spectator stream in a thread: when each event sequence arrived (perf_counter)."""

    def __init__(self, stub: pb_grpc.RefereeServiceStub, game_id: str) -> None:
        self.seen: dict[int, float] = {}
        self.view: pb.View | None = None
        self._changed = threading.Condition()
        self._call = stub.StreamGame(pb.StreamGameRequest(game_id=game_id, spectator=True))
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for message in self._call:
                now = time.perf_counter()
                with self._changed:
                    if message.HasField("event"):
                        self.seen[message.event.sequence] = now
                    self.view = message.view
                    self._changed.notify_all()
        except grpc.RpcError:
            pass  # cancelled at the end
        with self._changed:
            self._changed.notify_all()

    def wait(self, sequence: int, timeout: float = RPC_TIMEOUT) -> float:
        """When ``sequence`` arrived (waiting for it); raises TimeoutError."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while sequence not in self.seen:
                left = deadline - time.monotonic()
                if left <= 0 or not self._thread.is_alive():
                    raise TimeoutError(f"event {sequence} did not arrive")
                self._changed.wait(left)
            return self.seen[sequence]

    def wait_view(self, timeout: float = RPC_TIMEOUT) -> None:
        """Wait for the stream's first message (the current view)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.view is None:
                left = deadline - time.monotonic()
                if left <= 0 or not self._thread.is_alive():
                    raise TimeoutError("the stream sent no view")
                self._changed.wait(left)

    def over(self) -> bool:
        with self._changed:
            return self.view is not None and self.view.game_over

    def close(self) -> None:
        self._call.cancel()
        self._thread.join(5)


def _create(stub: pb_grpc.RefereeServiceStub) -> pb.CreateGameResponse:
    response: pb.CreateGameResponse = stub.CreateGame(
        pb.CreateGameRequest(game_type=GAME, players=PLAYERS), timeout=RPC_TIMEOUT
    )
    return response


def _step(
    stub: pb_grpc.RefereeServiceStub,
    created: pb.CreateGameResponse,
    watch: Arrivals,
    rng: random.Random,
) -> tuple[pb.SubmitCommandResponse, float, float] | None:
    """One command of the pending seat: (response, sent, acknowledged); None at the end or
    after a conflict (a replica not yet current: the caller just tries again)."""
    with watch._changed:
        view = watch.view
    if view is None or view.game_over or not view.pending_seats:
        return None
    token = created.seats[view.pending_seats[0]].token
    seat_view = stub.GetView(
        pb.GetViewRequest(game_id=created.game_id, seat_token=token), timeout=RPC_TIMEOUT
    ).view
    if not seat_view.legal_commands:
        return None
    request = pb.SubmitCommandRequest(
        game_id=created.game_id,
        seat_token=token,
        command_id=str(uuid.uuid4()),
        command=rng.choice(list(seat_view.legal_commands)),
        expected_version=seat_view.version,
    )
    sent = time.perf_counter()
    try:
        response = stub.SubmitCommand(request, timeout=RPC_TIMEOUT)
    except grpc.RpcError as error:
        if error.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
            return None
        raise
    return response, sent, time.perf_counter()


@contextmanager
def _replicas(store: str, count: int, folder: Path, name: str) -> Iterator[list[ServerProcess]]:
    with ExitStack() as stack:
        started = []
        for index in range(count):
            server = ServerProcess.start(
                referee_argv(store, 100_000, 100_000), folder / f"p7-{name}-{index}.log"
            )
            stack.callback(server.stop)
            started.append(server)
        yield started


def throughput(
    store: str, count: int, games: int, seconds: float, folder: Path, name: str
) -> dict[str, Any]:
    """Commands/s and command-to-stream latency of ``games`` games played at once over
    ``count`` replicas (round_robin)."""
    with _replicas(store, count, folder, name) as servers:
        channel = round_robin([s.address for s in servers])
        stub = pb_grpc.RefereeServiceStub(channel)
        latencies: list[float] = []
        commands = [0]
        conflicts = [0]
        lock = threading.Lock()
        stop = time.monotonic() + seconds

        def play(index: int) -> None:
            rng = random.Random(index)
            while time.monotonic() < stop:
                created = _create(stub)
                watch = Arrivals(stub, created.game_id)
                try:
                    watch.wait_view()
                    while time.monotonic() < stop:
                        stepped = _step(stub, created, watch, rng)
                        if stepped is None:
                            if watch.over():
                                break
                            with lock:
                                conflicts[0] += 1
                            time.sleep(0.001)
                            continue
                        response, sent, _ = stepped
                        arrived = watch.wait(response.last_sequence)
                        with lock:
                            commands[0] += 1
                            latencies.append(arrived - sent)
                finally:
                    watch.close()

        started = time.perf_counter()
        threads = [threading.Thread(target=play, args=(i,)) for i in range(games)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(seconds + 120)
        elapsed = time.perf_counter() - started
        channel.close()
    return {
        "store": store.split(":", 1)[0],
        "replicas": count,
        "games_at_once": games,
        "commands": commands[0],
        "conflicts_retried": conflicts[0],
        "commands_per_second": commands[0] / elapsed,
        **_ms(latencies),
    }


def cross_replica(store: str, commands: int, folder: Path) -> dict[str, Any]:
    """Commands at replica A; the delay until their events reach a stream at replica B."""
    with ExitStack() as stack:
        a, b = stack.enter_context(_replicas(store, 2, folder, "delay"))
        at_a = stack.enter_context(grpc.insecure_channel(a.address))
        at_b = stack.enter_context(grpc.insecure_channel(b.address))
        stub_a, stub_b = pb_grpc.RefereeServiceStub(at_a), pb_grpc.RefereeServiceStub(at_b)
        rng = random.Random(7)
        ack_to_b: list[float] = []
        send_to_b: list[float] = []
        send_to_a: list[float] = []
        while len(ack_to_b) < commands:
            created = _create(stub_a)
            local, remote = Arrivals(stub_a, created.game_id), Arrivals(stub_b, created.game_id)
            try:
                local.wait_view()
                remote.wait_view()
                while len(ack_to_b) < commands:
                    stepped = _step(stub_a, created, local, rng)
                    if stepped is None:
                        break
                    response, sent, acked = stepped
                    there = remote.wait(response.last_sequence)
                    here = local.wait(response.last_sequence)
                    ack_to_b.append(there - acked)
                    send_to_b.append(there - sent)
                    send_to_a.append(here - sent)
            finally:
                local.close()
                remote.close()
    return {
        "commands": len(ack_to_b),
        "ack_at_a_to_event_at_b": _ms(ack_to_b),
        "command_to_event_at_b": _ms(send_to_b),
        "command_to_event_at_a": _ms(send_to_a),
    }


def append_ratio(url: str, count: int, rounds: int) -> dict[str, Any]:
    """PostgresEventStore appends/s ÷ raw single-row INSERTs/s through psycopg, alternately."""
    import psycopg

    from referee.bench.store import GAMES_AT_ONCE, games_at_once
    from referee.store import CommandOutcome, GameRecord
    from referee.store.postgres import PostgresEventStore

    fingerprint = hashlib.sha256(PAYLOAD).hexdigest()
    store_rates: list[float] = []
    raw_rates: list[float] = []
    grouped: list[dict[str, float]] = []
    with (
        PostgresEventStore(url, listen=False, pool_size=1) as store,
        psycopg.connect(url, autocommit=True) as raw,
    ):
        raw.execute("CREATE TABLE IF NOT EXISTS raw_inserts (id bigserial PRIMARY KEY, b bytea)")
        for index in range(rounds):
            game_id = f"bench-{index}"
            store.create_game(
                GameRecord(game_id, GAME, 4, {}, b"s", b"", ("a",) * 4, time.time()), []
            )
            started = time.perf_counter()
            for version in range(count):
                outcome = CommandOutcome(
                    str(uuid.uuid4()), 0, fingerprint, version + 1, version + 1, PAYLOAD
                )
                store.append(game_id, version, [PAYLOAD], outcome)
            store_rates.append(count / (time.perf_counter() - started))
            started = time.perf_counter()
            for _ in range(count):
                raw.execute("INSERT INTO raw_inserts (b) VALUES (%s)", (PAYLOAD,))
            raw_rates.append(count / (time.perf_counter() - started))
            grouped.append(games_at_once(store, 4 * count, 10.0))
    store_rate, raw_rate = statistics.median(store_rates), statistics.median(raw_rates)
    grouped_rate = statistics.median(g["appends_per_second"] for g in grouped)
    return {
        "store_appends_per_second": store_rate,
        "raw_inserts_per_second": raw_rate,
        "ratio": store_rate / raw_rate,
        "appends_per_round": count,
        "rounds": rounds,
        "games_at_once": GAMES_AT_ONCE,
        "grouped_appends_per_second": grouped_rate,
        "grouped_ratio": grouped_rate / raw_rate,
        "grouped_p50_ms": statistics.median(g["p50_ms"] for g in grouped),
        "grouped_p99_ms": statistics.median(g["p99_ms"] for g in grouped),
        "grouped_mean_group": statistics.median(g["mean_group"] for g in grouped),
    }


def run(quick: bool, folder: Path | None = None) -> dict[str, Any]:
    try:
        import psycopg

        from referee.store.postgres import scratch_database
    except ImportError as error:
        return {"skipped": f"psycopg is not installed ({error}): pip install '.[postgres]'"}
    admin = admin_url()
    seconds = 2.0 if quick else 10.0
    games = 2 if quick else 6
    with ExitStack() as stack:
        folder = folder or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        try:
            url = stack.enter_context(scratch_database(admin, "referee_bench"))
        except psycopg.OperationalError as error:
            return {"skipped": f"PostgreSQL not available at {admin}: {str(error).strip()}"}
        appends = append_ratio(url, 100 if quick else 1000, 1 if quick else 3)
        delay = cross_replica(url, 20 if quick else 300, folder)
        sqlite = f"sqlite:{folder / 'p7.sqlite3'}"
        configs = [(sqlite, 1, "sqlite")] + [(url, n, f"pg{n}") for n in (1, 2, 3)]
        rows = [throughput(s, n, games, seconds, folder, name) for s, n, name in configs]
    base = rows[0]["commands_per_second"] or float("nan")
    for row in rows:
        row["ratio_to_sqlite"] = row["commands_per_second"] / base
    return {
        "game": GAME,
        "players": PLAYERS,
        "seconds_per_config": seconds,
        "throughput": rows,
        "cross_replica": delay,
        "appends": appends,
        "cores": os.cpu_count(),
    }


def markdown(p7: dict[str, Any]) -> list[str]:
    """P7's section of bench.md."""
    out = ["", "## P7 replicas on PostgreSQL", ""]
    if "skipped" in p7:
        return [*out, f"Skipped: {p7['skipped']}"]
    out += [
        f"{p7['game']}, {p7['players']} players, the same client (one thread per game, "
        f"{p7['throughput'][0]['games_at_once']} games at once, {p7['seconds_per_config']:.0f} s "
        f"per configuration, round_robin over the replicas), {p7['cores']} cores shared by "
        "client, replicas and PostgreSQL:",
        "",
        "| store | replicas | commands/s | ÷ SQLite | p50 ms | p99 ms | conflicts retried |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in p7["throughput"]:
        out.append(
            f"| {row['store']} | {row['replicas']} | {row['commands_per_second']:,.0f} "
            f"| {row['ratio_to_sqlite']:.2f} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} "
            f"| {row['conflicts_retried']} |"
        )
    delay = p7["cross_replica"]
    appends = p7["appends"]
    out += [
        "",
        f"Cross-replica stream delay ({delay['commands']} commands at replica A, a spectator "
        f"stream at B): A's acknowledgement to the event at B p50 "
        f"**{delay['ack_at_a_to_event_at_b']['p50_ms']:.1f} ms**, p99 "
        f"**{delay['ack_at_a_to_event_at_b']['p99_ms']:.1f} ms**; command sent to its event at "
        f"B p50 {delay['command_to_event_at_b']['p50_ms']:.1f} ms, p99 "
        f"{delay['command_to_event_at_b']['p99_ms']:.1f} ms (at A itself: p50 "
        f"{delay['command_to_event_at_a']['p50_ms']:.1f} ms, p99 "
        f"{delay['command_to_event_at_a']['p99_ms']:.1f} ms).",
        "",
        f"Store appends {appends['store_appends_per_second']:,.0f}/s against raw single-row "
        f"inserts through psycopg {appends['raw_inserts_per_second']:,.0f}/s (each its own "
        f"transaction, median of {appends['rounds']} alternating rounds of "
        f"{appends['appends_per_round']}): ratio **{appends['ratio']:.2f}**. "
        f"{appends['games_at_once']} games appending at once (group commit): "
        f"{appends['grouped_appends_per_second']:,.0f}/s, ratio "
        f"**{appends['grouped_ratio']:.2f}**, p50 {appends['grouped_p50_ms']:.2f} ms, p99 "
        f"**{appends['grouped_p99_ms']:.2f} ms**, {appends['grouped_mean_group']:.1f} appends "
        "per commit.",
    ]
    return out
