"""P2, P3, P4 and P6: the gRPC service, measured from a client in another process.

The referee server (``referee serve``, SQLite store) and the bare echo server
(:mod:`referee.bench.echo`) run as child processes on 127.0.0.1; this process is the client:
asyncio bots that open every seat's stream and answer their turns with a random legal command.

* **P2** commands/s with many concurrent games, every seat's stream open, divided by the echo
  server's unary calls/s from the same client with the same concurrency, alternately.
* **P3** complete bot games over gRPC (same seeds, same random choices as the in-process
  games of :func:`referee.bench.engine.random_play`) against the same games in-process.
* **P4** games and open streams one server process holds, and its RSS (``/proc/PID/status``).
* **P6** latency from sending a command to its event arriving on every seat's stream, at
  about 70% of P2's throughput (paced, open loop), against the echo's latency at that rate.

Every loop is bounded in time and count and stops by itself.
"""

from __future__ import annotations

import asyncio
import signal
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import grpc

from referee.bench import echo, memtrace, session_play
from referee.bench.engine import random_play
from referee.bench.load import (
    CHANNEL_OPTIONS,
    ECHO_ARGV,
    RPC_TIMEOUT,
    GameSpec,
    Load,
    Pacer,
    ServerProcess,
    echo_request,
    echo_window,
    fanout_window,
    play_game,
    referee_argv,
    referee_window,
)
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

# --- P2 and P6 ------------------------------------------------------------------------------


@dataclass
class Settings:
    quick: bool
    spec: GameSpec
    concurrency: int
    rounds: int
    warmup: float
    seconds: float

    @classmethod
    def make(cls, quick: bool, spec: GameSpec, concurrency: int | None) -> Settings:
        if quick:
            return cls(quick, spec, concurrency or 4, 1, 0.2, 0.8)
        return cls(quick, spec, concurrency or 32, 3, 1.5, 6.0)


async def throughput(
    referee: ServerProcess, echo_server: ServerProcess, settings: Settings
) -> dict[str, Any]:
    """P2: alternate echo and referee windows; the ratio is the median of the rounds'."""
    rounds = []
    for index in range(settings.rounds):
        echo_run = await echo_window(
            echo_server, settings.concurrency, Load(settings.warmup, settings.seconds)
        )
        fanout_run = await fanout_window(
            echo_server,
            settings.concurrency,
            settings.spec.players,
            Load(settings.warmup, settings.seconds),
        )
        referee_run = await referee_window(
            referee,
            settings.spec,
            settings.concurrency,
            Load(settings.warmup, settings.seconds),
            seed=index * 10_000,
        )
        batched_run = await referee_window(
            referee,
            replace(settings.spec, batched=True),
            settings.concurrency,
            Load(settings.warmup, settings.seconds),
            seed=index * 10_000,
        )
        rounds.append(
            {
                "echo": echo_run,
                "fanout": fanout_run,
                "referee": referee_run,
                "batched": batched_run,
                "batched_to_fanout": batched_run["per_second"]
                / max(fanout_run["per_second"], 1e-9),
                "batched_cpu_to_fanout": batched_run["server_cpu_us_per_command"]
                / max(fanout_run["server_cpu_us_per_command"], 1e-9),
                "ratio": referee_run["per_second"] / max(echo_run["per_second"], 1e-9),
                "fanout_ratio": fanout_run["per_second"] / max(echo_run["per_second"], 1e-9),
                "referee_to_fanout": referee_run["per_second"]
                / max(fanout_run["per_second"], 1e-9),
            }
        )
    return {
        "game": settings.spec.game_type,
        "players": settings.spec.players,
        "concurrent_games": settings.concurrency,
        "open_streams": settings.concurrency * settings.spec.players,
        "referee_commands_per_second": statistics.median(
            r["referee"]["per_second"] for r in rounds
        ),
        "echo_calls_per_second": statistics.median(r["echo"]["per_second"] for r in rounds),
        "ratio": statistics.median(r["ratio"] for r in rounds),
        "fanout_calls_per_second": statistics.median(r["fanout"]["per_second"] for r in rounds),
        "fanout_ratio": statistics.median(r["fanout_ratio"] for r in rounds),
        "referee_to_fanout": statistics.median(r["referee_to_fanout"] for r in rounds),
        "batched_commands_per_second": statistics.median(
            r["batched"]["per_second"] for r in rounds
        ),
        "batched_to_fanout": statistics.median(r["batched_to_fanout"] for r in rounds),
        "batched_server_cpu_us_per_command": statistics.median(
            r["batched"]["server_cpu_us_per_command"] for r in rounds
        ),
        "batched_cpu_to_fanout": statistics.median(r["batched_cpu_to_fanout"] for r in rounds),
        "batched_stream_messages_per_command": statistics.median(
            r["batched"]["stream_messages_per_command"] for r in rounds
        ),
        "stream_messages_per_command": statistics.median(
            r["referee"]["stream_messages_per_command"] for r in rounds
        ),
        "fanout_server_cpu_us_per_call": statistics.median(
            r["fanout"]["server_cpu_us_per_command"] for r in rounds
        ),
        "referee_server_cpu_us_per_command": statistics.median(
            r["referee"]["server_cpu_us_per_command"] for r in rounds
        ),
        "echo_server_cpu_us_per_call": statistics.median(
            r["echo"]["server_cpu_us_per_command"] for r in rounds
        ),
        "referee_client_cpu_us_per_command": statistics.median(
            r["referee"]["client_cpu_us_per_command"] for r in rounds
        ),
        "echo_client_cpu_us_per_call": statistics.median(
            r["echo"]["client_cpu_us_per_command"] for r in rounds
        ),
        "rounds": rounds,
    }


async def latency(
    referee: ServerProcess, echo_server: ServerProcess, settings: Settings, max_rate: float
) -> dict[str, Any]:
    """P6: both servers paced at 70% of the referee's measured maximum."""
    rate = 0.7 * max_rate
    rounds = []
    for index in range(settings.rounds):
        echo_run = await echo_window(
            echo_server,
            settings.concurrency,
            Load(settings.warmup, settings.seconds, pacer=Pacer(rate)),
        )
        fanout_run = await fanout_window(
            echo_server,
            settings.concurrency,
            settings.spec.players,
            Load(settings.warmup, settings.seconds, pacer=Pacer(rate)),
        )
        referee_run = await referee_window(
            referee,
            settings.spec,
            settings.concurrency,
            Load(settings.warmup, settings.seconds, pacer=Pacer(rate)),
            seed=500_000 + index * 10_000,
        )
        batched_run = await referee_window(
            referee,
            replace(settings.spec, batched=True),
            settings.concurrency,
            Load(settings.warmup, settings.seconds, pacer=Pacer(rate)),
            seed=500_000 + index * 10_000,
        )
        rounds.append(
            {"echo": echo_run, "fanout": fanout_run, "referee": referee_run, "batched": batched_run}
        )

    def middle(side: str, key: str) -> float:
        return float(statistics.median(r[side].get(key, float("nan")) for r in rounds))

    found: dict[str, Any] = {
        "rate_per_second": rate,
        "referee_p50_ms": middle("referee", "p50_ms"),
        "referee_p99_ms": middle("referee", "p99_ms"),
        "echo_p50_ms": middle("echo", "p50_ms"),
        "echo_p99_ms": middle("echo", "p99_ms"),
        "fanout_p50_ms": middle("fanout", "p50_ms"),
        "fanout_p99_ms": middle("fanout", "p99_ms"),
        "batched_p50_ms": middle("batched", "p50_ms"),
        "batched_p99_ms": middle("batched", "p99_ms"),
        "rounds": rounds,
    }
    found["batched_p99_to_fanout"] = found["batched_p99_ms"] / found["fanout_p99_ms"]
    found["p50_ratio"] = found["referee_p50_ms"] / found["echo_p50_ms"]
    found["p99_ratio"] = found["referee_p99_ms"] / found["echo_p99_ms"]
    found["fanout_p50_ratio"] = found["fanout_p50_ms"] / found["echo_p50_ms"]
    found["fanout_p99_ratio"] = found["fanout_p99_ms"] / found["echo_p99_ms"]
    return found


# --- P3 -------------------------------------------------------------------------------------


async def remote_vs_local(referee: str, echo_address: str, settings: Settings) -> dict[str, Any]:
    """P3: the same seeded random games in-process and over gRPC, one after the other, and
    (throughput view) all of them at once over gRPC. The floor is as many echo round trips,
    one after the other, as the games have commands: what gRPC alone costs."""
    spec = settings.spec
    seeds = list(range(700, 700 + (2 if settings.quick else 12)))
    local_seconds = 0.0
    local_steps = []
    for seed in seeds:
        started = time.perf_counter()
        local_steps.append(random_play(spec.game_type, spec.players, seed, spec.options or None))
        local_seconds += time.perf_counter() - started
    async with grpc.aio.insecure_channel(referee, options=CHANNEL_OPTIONS) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        await play_game(stub, spec, 1)  # warm-up
        remote_steps = []
        started = time.perf_counter()
        for seed in seeds:
            remote_steps.append(
                await asyncio.wait_for(play_game(stub, spec, seed), 10 * RPC_TIMEOUT)
            )
        sequential = time.perf_counter() - started
        started = time.perf_counter()
        await asyncio.wait_for(
            asyncio.gather(*(play_game(stub, spec, seed) for seed in seeds)), 10 * RPC_TIMEOUT
        )
        concurrent = time.perf_counter() - started
        # The same games on the player stream: commands and their events on one connection.
        await session_play.play_on_session(stub, spec, 1)  # warm-up
        session_steps = []
        started = time.perf_counter()
        for seed in seeds:
            session_steps.append(
                await asyncio.wait_for(
                    session_play.play_on_session(stub, spec, seed), 10 * RPC_TIMEOUT
                )
            )
        on_session = time.perf_counter() - started
    async with grpc.aio.insecure_channel(echo_address, options=CHANNEL_OPTIONS) as channel:
        call = channel.unary_unary(
            echo.METHOD,
            request_serializer=pb.SubmitCommandRequest.SerializeToString,
            response_deserializer=pb.SubmitCommandRequest.FromString,
        )
        request = echo_request()
        await call(request, timeout=RPC_TIMEOUT)
        started = time.perf_counter()
        for _ in range(sum(local_steps)):
            await call(request, timeout=RPC_TIMEOUT)
        floor = time.perf_counter() - started
    return {
        "game": spec.game_type,
        "players": spec.players,
        "games": len(seeds),
        "commands": sum(local_steps),
        "same_games": local_steps == remote_steps,
        "local_seconds": local_seconds,
        "remote_sequential_seconds": sequential,
        "remote_concurrent_seconds": concurrent,
        "ratio": sequential / local_seconds,
        "concurrent_ratio": concurrent / local_seconds,
        "echo_round_trips_seconds": floor,
        "floor_ratio": floor / local_seconds,
        "remote_ms_per_command": 1000 * sequential / sum(local_steps),
        "echo_ms_per_round_trip": 1000 * floor / sum(local_steps),
        "session_seconds": on_session,
        "session_commands": sum(session_steps),
        "session_ms_per_command": 1000 * on_session / max(sum(session_steps), 1),
        "session_to_echo": (on_session / max(sum(session_steps), 1)) / (floor / sum(local_steps)),
    }


# --- P4 -------------------------------------------------------------------------------------


#: Tries to open one stream of P4 (UNAVAILABLE is retried, as a client does).
OPEN_ATTEMPTS = 5


async def _hold(
    server: ServerProcess,
    spec: GameSpec,
    games: int,
    streams_per_game: int,
    snapshot: Callable[[], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    per_channel = 500
    channel_count = max(1, (games * streams_per_game + per_channel - 1) // per_channel)
    channels = [
        grpc.aio.insecure_channel(server.address, options=CHANNEL_OPTIONS)
        for _ in range(channel_count)
    ]
    stubs = [pb_grpc.RefereeServiceStub(c) for c in channels]
    calls: list[Any] = []
    by_game: dict[str, Any] = {}  # seat 0's stream of each game
    gate = asyncio.Semaphore(64)
    retried = [0]  # streams opened again after UNAVAILABLE
    try:
        if snapshot is not None:
            await snapshot()
        before = server.memory_kib()
        started = time.perf_counter()

        async def create(index: int) -> pb.CreateGameResponse:
            async with gate:
                response: pb.CreateGameResponse = await stubs[index % len(stubs)].CreateGame(
                    pb.CreateGameRequest(game_type=spec.game_type, players=spec.players),
                    timeout=RPC_TIMEOUT,
                )
                return response

        created = await asyncio.gather(*(create(i) for i in range(games)))
        create_seconds = time.perf_counter() - started
        if snapshot is not None:
            await snapshot()
        with_games = server.memory_kib()

        async def open_stream(index: int, game: pb.CreateGameResponse, seat: int) -> None:
            async with gate:
                for attempt in range(OPEN_ATTEMPTS):
                    call = stubs[index % len(stubs)].StreamGame(
                        pb.StreamGameRequest(
                            game_id=game.game_id,
                            seat_token=game.seats[seat].token,
                            after_sequence=game.game.version,
                        )
                    )
                    try:
                        await asyncio.wait_for(call.read(), RPC_TIMEOUT)  # the current view
                    except grpc.aio.AioRpcError as error:
                        # A store that had no turn for a call (a loaded machine) says
                        # UNAVAILABLE, retry: a client retries, so the bench does too.
                        if error.code() != grpc.StatusCode.UNAVAILABLE:
                            raise
                        if attempt == OPEN_ATTEMPTS - 1:
                            raise
                        retried[0] += 1
                        await asyncio.sleep(0.5 * (attempt + 1))
                        continue
                    calls.append(call)
                    if seat == 0:
                        by_game[game.game_id] = call
                    return

        started = time.perf_counter()
        await asyncio.gather(
            *(
                open_stream(i * streams_per_game + seat, game, seat)
                for i, game in enumerate(created)
                for seat in range(streams_per_game)
            )
        )
        open_seconds = time.perf_counter() - started
        if snapshot is not None:
            await snapshot()
        with_streams = server.memory_kib()
        # Still serving: a command in a game whose streams are open reaches them.
        probe = created[0]
        started = time.perf_counter()
        pending = probe.game.pending_seats[0]
        legal = (
            await stubs[0].GetView(
                pb.GetViewRequest(game_id=probe.game_id, seat_token=probe.seats[pending].token),
                timeout=RPC_TIMEOUT,
            )
        ).view.legal_commands[0]
        await stubs[0].SubmitCommand(
            pb.SubmitCommandRequest(
                game_id=probe.game_id,
                seat_token=probe.seats[pending].token,
                command_id=str(uuid.uuid4()),
                command=legal,
            ),
            timeout=RPC_TIMEOUT,
        )
        event = await asyncio.wait_for(by_game[probe.game_id].read(), RPC_TIMEOUT)
        probe_ms = 1000 * (time.perf_counter() - started)
        streams = games * streams_per_game
        game_kib = (with_games["VmRSS"] - before["VmRSS"]) / games
        stream_kib = (with_streams["VmRSS"] - with_games["VmRSS"]) / streams
        return {
            "stream_retries": retried[0],
            "game": spec.game_type,
            "players": spec.players,
            "games": games,
            "streams": streams,
            "rss_start_mib": before["VmRSS"] / 1024,
            "rss_games_mib": with_games["VmRSS"] / 1024,
            "rss_streams_mib": with_streams["VmRSS"] / 1024,
            "peak_rss_mib": with_streams["VmHWM"] / 1024,
            "kib_per_game": game_kib,
            "kib_per_stream": stream_kib,
            "create_seconds": create_seconds,
            "open_seconds": open_seconds,
            "probe_ms": probe_ms,
            "probe_event_received": event.HasField("event"),
            "projected_10k_games_20k_streams_mib": (
                before["VmRSS"] + 10_000 * game_kib + 20_000 * stream_kib
            )
            / 1024,
        }
    finally:
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()


def capacity(
    quick: bool, spec: GameSpec, folder: Path, games: int | None = None, trace: bool = False
) -> dict[str, Any]:
    """P4 in a fresh server process (SQLite store): ``games`` games, two streams each. With
    ``trace``, again in a second server under :mod:`tracemalloc` at ``TRACE_GAMES`` games:
    the top allocators per live game and per open stream."""
    count = games or (100 if quick else 10_000)
    server = ServerProcess.start(
        referee_argv(f"sqlite:{folder / 'capacity.sqlite3'}", count + 10, 2 * count + 10),
        folder / "capacity.log",
    )
    try:
        result = asyncio.run(_hold(server, spec, count, 2))
    finally:
        server.stop()
    if trace:
        result["trace"] = traced_capacity(spec, folder, min(count, TRACE_GAMES))
    return result


#: Games of P4's traced run: tracemalloc slows the server and its snapshots grow with it.
TRACE_GAMES = 1_000


def traced_capacity(spec: GameSpec, folder: Path, count: int) -> dict[str, Any]:
    """P4's stages in a server under :mod:`referee.bench.traced_serve`, a snapshot after each."""
    prefix = folder / "trace"
    argv = referee_argv(f"sqlite:{folder / 'traced.sqlite3'}", count + 10, 2 * count + 10)
    server = ServerProcess.start(
        ["-m", "referee.bench.traced_serve", str(prefix), *argv[2:]], folder / "traced.log"
    )
    taken: list[Path] = []

    async def snapshot() -> None:
        path = Path(f"{prefix}.{len(taken)}")
        server.process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 120
        while not Path(f"{path}.done").exists():
            if time.monotonic() > deadline or server.process.poll() is not None:
                raise RuntimeError(f"no tracemalloc snapshot {path} (see traced.log)")
            await asyncio.sleep(0.05)
        taken.append(path)

    try:
        held = asyncio.run(_hold(server, spec, count, 2, snapshot))
    finally:
        server.stop()
    start, with_games, with_streams = taken
    per_game = memtrace.breakdown(start, with_games, count)
    per_stream = memtrace.breakdown(with_games, with_streams, 2 * count)
    per_game["rss_kib_each"] = held["kib_per_game"]
    per_stream["rss_kib_each"] = held["kib_per_stream"]
    echo_server = ServerProcess.start(ECHO_ARGV)
    try:
        bare = asyncio.run(_bare_streams(echo_server, 2 * count))
    finally:
        echo_server.stop()
    return {"games": count, "per_game": per_game, "per_stream": per_stream, "bare_grpc": bare}


async def _bare_streams(server: ServerProcess, count: int) -> dict[str, Any]:
    """What an open server stream costs grpc.aio itself: ``count`` streams of the bare echo
    server's ``Watch`` (an async generator waiting on a queue), each past its first message,
    on as many channels as P4 uses; the echo server's RSS before and after (no tracemalloc)."""
    channels = [
        grpc.aio.insecure_channel(server.address, options=CHANNEL_OPTIONS)
        for _ in range(max(1, (count + 499) // 500))
    ]
    calls: list[Any] = []
    gate = asyncio.Semaphore(64)
    try:
        before = server.memory_kib()

        async def watch(index: int) -> None:
            async with gate:
                call = channels[index % len(channels)].unary_stream(echo.WATCH)(
                    index.to_bytes(echo.ROOM_BYTES, "big")
                )
                calls.append(call)
                await asyncio.wait_for(call.read(), RPC_TIMEOUT)

        await asyncio.gather(*(watch(i) for i in range(count)))
        after = server.memory_kib()
        return {
            "streams": count,
            "kib_per_stream": (after["VmRSS"] - before["VmRSS"]) / count,
        }
    finally:
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()


# --- all of it ------------------------------------------------------------------------------


def run(
    parts: set[str],
    quick: bool,
    spec: GameSpec,
    concurrency: int | None = None,
    capacity_games: int | None = None,
    trace: bool = False,
) -> dict[str, Any]:
    settings = Settings.make(quick, spec, concurrency)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="referee-bench-service-") as tmp:
        folder = Path(tmp)
        if parts & {"P2", "P3", "P6"}:
            referee = ServerProcess.start(
                referee_argv(f"sqlite:{folder / 'referee.sqlite3'}", 10**6, 10**6),
                folder / "referee.log",
            )
            try:
                echo_server = ServerProcess.start(ECHO_ARGV)
                try:
                    results |= asyncio.run(_service(parts, referee, echo_server, settings))
                finally:
                    echo_server.stop()
            finally:
                referee.stop()
        if "P4" in parts:
            results["P4"] = capacity(quick, spec, folder, capacity_games, trace)
    return results


async def _service(
    parts: set[str], referee: ServerProcess, echo_server: ServerProcess, settings: Settings
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    if "P3" in parts:
        results["P3"] = await remote_vs_local(referee.address, echo_server.address, settings)
    if parts & {"P2", "P6"}:
        p2 = await throughput(referee, echo_server, settings)
        if "P2" in parts:
            results["P2"] = p2
        if "P6" in parts:
            results["P6"] = await latency(
                referee,
                echo_server,
                settings,
                max_rate=p2["referee_commands_per_second"],
            )
    return results
