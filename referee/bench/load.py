"""What the service benchmarks share: the server processes, the client's bots and pacing.

The referee server (``referee serve``) and the bare echo server (:mod:`referee.bench.echo`)
run as child processes on 127.0.0.1; the bots of this process open every seat's stream and
answer their turns with a random legal command (:func:`play_game`), or send the echo its
payload, paced (:class:`Pacer`) and bounded in time and count (:class:`Load`). The figures
built on them are :mod:`referee.bench.service`'s (P2, P3, P4, P6), :mod:`referee.bench.http`'s
and :mod:`referee.bench.replicas`'.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import select
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import grpc

from referee.bench import echo
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

#: Seconds any single RPC may take before the benchmark gives up on it.
RPC_TIMEOUT = 30.0
CHANNEL_OPTIONS = [("grpc.use_local_subchannel_pool", 1)]  # one TCP connection per channel


# --- child processes ------------------------------------------------------------------------


#: The benchmarks measure the server, not its limits: a benchmark's many clients share one
#: address, so every server they start has no per-address limit.
UNLIMITED = {
    **{
        f"REFEREE_ADDRESS_{kind}_PER_MINUTE": "0"
        for kind in ("CLAIM_ATTEMPTS", "GAMES", "REGISTRATIONS", "READS")
    },
    "REFEREE_MAX_STREAMS_PER_ADDRESS": "0",
    "REFEREE_MAX_STREAMS_PER_PLAYER": "0",
}


@dataclass
class ServerProcess:
    """A server in a child process; ``address`` is read from its banner."""

    process: subprocess.Popen[str]
    address: str
    log: IO[str] | None = None

    @classmethod
    def start(
        cls,
        argv: Sequence[str],
        log_path: Path | None = None,
        *,
        program: str = sys.executable,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> ServerProcess:
        """``program argv`` (this Python by default), once its banner names its address."""
        log = log_path.open("w") if log_path is not None else None
        process = subprocess.Popen(
            [program, *argv],
            cwd=cwd,
            env={**(env if env is not None else os.environ), **UNLIMITED},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log if log is not None else subprocess.DEVNULL,
            text=True,
        )
        assert process.stdout is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 0.5)
            if ready:
                line = process.stdout.readline()
                if not line:
                    break
                if " listening on " in line:
                    address = line.split(" listening on ", 1)[1].split()[0]
                    return cls(process, address, log)
            if process.poll() is not None:
                break
        process.kill()
        process.wait()
        raise RuntimeError(f"server {' '.join(argv)} did not start (see {log_path})")

    @property
    def pid(self) -> int:
        return self.process.pid

    def memory_kib(self) -> dict[str, int]:
        """VmRSS and VmHWM (peak RSS) of the process, in KiB."""
        found = {}
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                found[name] = int(value.split()[0])
        return found

    def cpu_seconds(self) -> float:
        """User + system CPU time the process has used so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        if self.log is not None:
            self.log.close()


def referee_argv(store: str, max_games: int, max_streams: int) -> list[str]:
    return [
        "-m",
        "referee",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--store",
        store,
        "--metrics",
        "",
        "--max-games",
        str(max_games),
        "--max-streams",
        str(max_streams),
    ]


ECHO_ARGV = ["-m", "referee.bench.echo", "--listen", "127.0.0.1:0"]


# --- load accounting --------------------------------------------------------------------------


class Pacer:
    """Open-loop pacing: at most ``rate`` starts per second, no catch-up bursts."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate
        self.next = time.perf_counter()

    async def wait(self) -> None:
        now = time.perf_counter()
        slot = max(self.next, now)
        self.next = slot + self.interval
        if slot > now:
            await asyncio.sleep(slot - now)


@dataclass
class Load:
    """A measured window after a warm-up; work stops by itself at the window's end."""

    warmup: float
    seconds: float
    pacer: Pacer | None = None
    max_commands: int = 10**9
    started: float = field(default_factory=time.perf_counter)
    commands: int = 0
    total: int = 0  # commands including the warm-up (for CPU time per command)
    messages: int = 0  # stream messages received, warm-up included
    errors: int = 0
    latencies: list[float] = field(default_factory=list)

    @property
    def begin(self) -> float:
        return self.started + self.warmup

    @property
    def end(self) -> float:
        return self.begin + self.seconds

    def stopping(self) -> bool:
        return time.perf_counter() >= self.end or self.commands >= self.max_commands

    def done(self, finished: float) -> None:
        self.total += 1
        if self.begin <= finished <= self.end:
            self.commands += 1

    def latency(self, sent: float, arrived: float) -> None:
        if self.begin <= sent and arrived <= self.end:
            self.latencies.append(arrived - sent)

    def summary(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "per_second": self.commands / self.seconds,
            "commands": self.commands,
            "seconds": self.seconds,
            "errors": self.errors,
            "stream_messages_per_command": self.messages / max(self.total, 1),
        }
        if self.latencies:
            ordered = sorted(self.latencies)
            found["p50_ms"] = 1000 * ordered[len(ordered) // 2]
            found["p99_ms"] = 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
            found["samples"] = len(ordered)
        return found


def _settled(message: pb.StreamGameResponse) -> bool:
    """The view ends its command's batch of events (see ``referee_bot.runner.settled``);
    every message of a batched stream does."""
    if not message.HasField("event"):
        return True
    return message.event.sequence >= message.event.batch_end_sequence


def _sequences(message: pb.StreamGameResponse) -> list[int]:
    """The sequences of the events a stream message carries (one, or a batch's)."""
    if message.HasField("event"):
        return [message.event.sequence]
    return [event.sequence for event in message.events]


@dataclass
class GameSpec:
    game_type: str = "vampire-queen"
    players: int = 4
    options: dict[str, str] = field(default_factory=dict)
    #: Streams with one message per batch (StreamGameRequest.batched).
    batched: bool = False


# --- bots -------------------------------------------------------------------------------------


@dataclass
class _Table:
    """One game as the client sees it."""

    game_id: str
    players: int
    rng: random.Random
    sent_at: dict[int, float] = field(default_factory=dict)
    arrivals: dict[int, int] = field(default_factory=dict)
    commands: int = 0


async def _seat(
    stub: pb_grpc.RefereeServiceStub,
    table: _Table,
    token: str,
    call: Any,
    load: Load | None,
) -> bool:
    """Read one seat's stream; play its turns. True when the game ended."""
    acted = -1
    async for message in call:
        now = time.perf_counter()
        if load is not None:
            load.messages += 1
        for sequence in _sequences(message):
            seen = table.arrivals.get(sequence, 0) + 1
            if seen < table.players:
                table.arrivals[sequence] = seen
            else:
                table.arrivals.pop(sequence, None)
                sent = table.sent_at.pop(sequence, None)
                if sent is not None and load is not None:
                    load.latency(sent, now)
        view = message.view
        if view.game_over:
            return True
        if (
            not _settled(message)
            or view.version <= acted
            or view.seat not in view.pending_seats
            or not view.legal_commands
        ):
            continue
        acted = view.version
        if load is not None and load.stopping():
            return False
        command = table.rng.choice(view.legal_commands)
        if load is not None and load.pacer is not None:
            await load.pacer.wait()
        sent = time.perf_counter()
        table.sent_at[view.version + 1] = sent
        await stub.SubmitCommand(
            pb.SubmitCommandRequest(
                game_id=table.game_id,
                seat_token=token,
                command_id=str(uuid.uuid4()),
                command=command,
                expected_version=view.version,
            ),
            timeout=RPC_TIMEOUT,
        )
        table.commands += 1
        if load is not None:
            load.done(time.perf_counter())
    return False


async def play_game(
    stub: pb_grpc.RefereeServiceStub, spec: GameSpec, seed: int, load: Load | None = None
) -> int:
    """One complete game (or until ``load`` stops) with a bot on every seat and every seat's
    stream open; the choices are those of ``random_play(…, seed)``. Returns the commands."""
    created = await stub.CreateGame(
        pb.CreateGameRequest(
            game_type=spec.game_type,
            players=spec.players,
            options=spec.options,
            seed=str(seed),
            public_reproducible_seed=True,  # reproducible benchmark games, nothing secret
        ),
        timeout=RPC_TIMEOUT,
    )
    table = _Table(created.game_id, spec.players, random.Random(seed))
    calls = [
        stub.StreamGame(
            pb.StreamGameRequest(game_id=created.game_id, seat_token=s.token, batched=spec.batched)
        )
        for s in created.seats
    ]
    tasks = [
        asyncio.ensure_future(_seat(stub, table, s.token, call, load))
        for s, call in zip(created.seats, calls, strict=True)
    ]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if any(task.exception() is None and task.result() for task in done):
            await asyncio.wait(tasks, timeout=RPC_TIMEOUT)  # the others see the end too
        for task in done:
            task.result()  # raise a bot's error
    finally:
        for call in calls:
            call.cancel()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return table.commands


async def _games_until(
    stub: pb_grpc.RefereeServiceStub, spec: GameSpec, load: Load, first_seed: int
) -> None:
    seed = first_seed
    while not load.stopping():
        try:
            await play_game(stub, spec, seed, load)
        except grpc.aio.AioRpcError:
            load.errors += 1
            await asyncio.sleep(0.05)
        seed += 1_000_003


async def _echo_until(call: Any, request: pb.SubmitCommandRequest, load: Load) -> None:
    while not load.stopping():
        if load.pacer is not None:
            await load.pacer.wait()
        sent = time.perf_counter()
        try:
            await call(request, timeout=RPC_TIMEOUT)
        except grpc.aio.AioRpcError:
            load.errors += 1
            continue
        arrived = time.perf_counter()
        load.done(arrived)
        load.latency(sent, arrived)


#: What each watcher of the bare fan-out receives: about one stream message of the referee
#: (an event with the seat's view after it).
FANOUT_PAYLOAD = bytes(400)


def echo_request() -> pb.SubmitCommandRequest:
    """A SubmitCommand request like the bots send (the echo returns it unread)."""
    command = pb.Command()
    command.vampire_queen.play_set.value = 9
    command.vampire_queen.play_set.count = 2
    command.vampire_queen.play_set.queens = 1
    return pb.SubmitCommandRequest(
        game_id=uuid.uuid4().hex[:16],
        seat_token="x" * 32,
        command_id=str(uuid.uuid4()),
        command=command,
        expected_version=123,
    )


@contextlib.contextmanager
def _cpu(server: ServerProcess, load: Load, into: dict[str, Any]) -> Iterator[None]:
    """CPU time per command of the server and of this client process, over the whole run."""
    server_before, client_before = server.cpu_seconds(), time.process_time()
    started = time.perf_counter()
    yield
    wall = time.perf_counter() - started
    server_cpu = server.cpu_seconds() - server_before
    client_cpu = time.process_time() - client_before
    total = max(load.total, 1)
    into["server_cpu_us_per_command"] = 1e6 * server_cpu / total
    into["client_cpu_us_per_command"] = 1e6 * client_cpu / total
    into["server_cpu_share"] = server_cpu / wall
    into["client_cpu_share"] = client_cpu / wall


async def referee_window(
    server: ServerProcess, spec: GameSpec, concurrency: int, load: Load, seed: int
) -> dict[str, Any]:
    cpu: dict[str, Any] = {}
    with _cpu(server, load, cpu):
        await _referee_load(server.address, spec, concurrency, load, seed)
    return load.summary() | cpu


async def _referee_load(
    address: str, spec: GameSpec, concurrency: int, load: Load, seed: int
) -> None:
    channels = [grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS) for _ in range(2)]
    try:
        stubs = [pb_grpc.RefereeServiceStub(c) for c in channels]
        runs = [
            _games_until(stubs[i % len(stubs)], spec, load, seed + i) for i in range(concurrency)
        ]
        await asyncio.wait_for(asyncio.gather(*runs), load.warmup + load.seconds + RPC_TIMEOUT)
    finally:
        for channel in channels:
            await channel.close()


async def fanout_window(
    server: ServerProcess, concurrency: int, watchers: int, load: Load
) -> dict[str, Any]:
    cpu: dict[str, Any] = {}
    with _cpu(server, load, cpu):
        await _fanout_load(server.address, concurrency, watchers, load)
    return load.summary() | cpu


async def _fanout_load(address: str, concurrency: int, watchers: int, load: Load) -> None:
    """Like the referee load, with the bare server: each worker publishes to its room (one
    unary call) and waits until each of the room's ``watchers`` streams has the message."""
    channels = [grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS) for _ in range(2)]
    calls: list[Any] = []
    try:

        async def worker(index: int) -> None:
            channel = channels[index % len(channels)]
            room = uuid.uuid4().bytes[: echo.ROOM_BYTES]
            streams = [channel.unary_stream(echo.WATCH)(room) for _ in range(watchers)]
            calls.extend(streams)
            for stream in streams:
                await stream.read()  # subscribed
            publish = channel.unary_unary(echo.PUBLISH)
            request = room + FANOUT_PAYLOAD
            while not load.stopping():
                if load.pacer is not None:
                    await load.pacer.wait()
                sent = time.perf_counter()
                await publish(request, timeout=RPC_TIMEOUT)
                for stream in streams:
                    await asyncio.wait_for(stream.read(), RPC_TIMEOUT)
                arrived = time.perf_counter()
                load.done(arrived)
                load.latency(sent, arrived)

        runs = [worker(i) for i in range(concurrency)]
        await asyncio.wait_for(asyncio.gather(*runs), load.warmup + load.seconds + RPC_TIMEOUT)
    finally:
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()


async def echo_window(server: ServerProcess, concurrency: int, load: Load) -> dict[str, Any]:
    cpu: dict[str, Any] = {}
    with _cpu(server, load, cpu):
        await _echo_load(server.address, concurrency, load)
    return load.summary() | cpu


async def _echo_load(address: str, concurrency: int, load: Load) -> None:
    channels = [grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS) for _ in range(2)]
    try:
        calls = [
            c.unary_unary(
                echo.METHOD,
                request_serializer=pb.SubmitCommandRequest.SerializeToString,
                response_deserializer=pb.SubmitCommandRequest.FromString,
            )
            for c in channels
        ]
        request = echo_request()
        runs = [_echo_until(calls[i % len(calls)], request, load) for i in range(concurrency)]
        await asyncio.wait_for(asyncio.gather(*runs), load.warmup + load.seconds + RPC_TIMEOUT)
    finally:
        for channel in channels:
            await channel.close()
