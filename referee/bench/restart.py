"""RESTART: a replica's time from start to serving, on PostgreSQL holding many games.

The database holds ``games`` games: half finished and rated (with their rating's record, as a
server that rated them leaves it), half running, every fourth of those with a clock (ten
minutes a decision: none runs out during the run). A ``referee serve`` starts on it, and the
client asks, as soon as the port is open, for a write (``CreateGame``) and then a cold read
(``GetGame`` of a running game without a clock, which loads and replays it). Each figure
is seconds from starting the process: the banner (imports, opening the store, listing the
games), the first write answered, the first cold read answered, and the server's own
``start_finished`` log line (every clocked game loaded, when each game last moved read, in
the background). Nothing here asserts a speed.

Needs PostgreSQL as P7 does (``REFEREE_BENCH_POSTGRES`` or ``REFEREE_TEST_POSTGRES``).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import grpc

from referee.application.tables.clocks import Clock, GameSettings
from referee.bench.load import ServerProcess, referee_argv
from referee.bench.replicas import admin_url
from referee.bench.store import _logs, _record
from referee.store import DocumentWrite, EventStore
from referee.stored import encode_deal
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

#: Games in the database, and in ``--quick``.
GAMES = 2000
QUICK_GAMES = 40
#: The rating's record of a rated game (what the ratings write when they rate it).
RATED_GAME = "rated_game"
RPC_TIMEOUT = 120.0
#: Longest wait for the server's ``start_finished`` line.
START_WAIT = 600.0


def _fill(store: EventStore, games: int) -> dict[str, list[str]]:
    """``games`` games in ``store`` (four threads): the ids of each kind."""
    logs = _logs(min(games, 16), 4)
    clocked = GameSettings(clock=Clock(decision_ms=600_000)).to_json()
    kinds: dict[str, list[str]] = {"finished": [], "running": [], "clocked": []}

    def create(index: int) -> None:
        config, payloads = logs[index % len(logs)]
        finished = index % 2 == 0
        kind = "finished" if finished else "clocked" if (index // 2) % 4 == 0 else "running"
        settings = {"rated": True} if finished else clocked if kind == "clocked" else {}
        record = dataclasses.replace(
            _record(f"g{index:08d}"),
            seed=config.seed,
            deal=encode_deal(config.deal),
            settings=settings,
        )
        rated = [DocumentWrite(RATED_GAME, record.game_id, {"rated": True}, 0)]
        kept = payloads if finished else payloads[: len(payloads) // 2]
        store.create_game(record, kept, rated if finished else ())
        if finished:
            store.set_finished(record.game_id)
        kinds[kind].append(record.game_id)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(create, range(games)))
    return kinds


def _start_finished(log_path: Path, until: float) -> float | None:
    """Unix time of the server's ``start_finished`` line, waiting for it until ``until``
    (monotonic)."""
    while time.monotonic() < until:
        for line in log_path.read_text().splitlines():
            if '"start_finished"' in line:
                stamp = str(json.loads(line)["timestamp"]).replace("Z", "+00:00")
                return datetime.datetime.fromisoformat(stamp).timestamp()
        time.sleep(0.05)
    return None


def _imports_seconds() -> float:
    """Seconds for a fresh Python to import the server (part of every start)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import referee.server.app"], check=True)
    return time.perf_counter() - started


def measure(url: str, kinds: dict[str, list[str]], folder: Path) -> dict[str, Any]:
    """Start a server on ``url`` and time it (seconds from starting the process)."""
    log_path = folder / "restart.log"
    started_at = time.time()
    started = time.monotonic()
    server = ServerProcess.start(referee_argv(url, 10**6, 10**6), log_path)
    banner = time.monotonic() - started
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.RefereeServiceStub(channel)
            create = pb.CreateGameRequest(game_type="vampire-queen", players=3)
            stub.CreateGame(create, timeout=RPC_TIMEOUT)
            write = time.monotonic() - started
            stub.GetGame(pb.GetGameRequest(game_id=kinds["running"][-1]), timeout=RPC_TIMEOUT)
            read = time.monotonic() - started
            cold = []
            for game_id in kinds["running"][:20]:
                asked = time.monotonic()
                stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=RPC_TIMEOUT)
                cold.append(time.monotonic() - asked)
            done = _start_finished(log_path, time.monotonic() + START_WAIT)
    finally:
        server.stop()
    return {
        "banner_seconds": round(banner, 3),
        "first_write_seconds": round(write, 3),
        "first_cold_read_seconds": round(read, 3),
        "cold_read_median_ms": round(statistics.median(cold) * 1000, 1) if cold else None,
        "background_start_seconds": round(done - started_at, 3) if done else None,
    }


def run(quick: bool, games: int | None = None) -> dict[str, Any]:
    try:
        import psycopg

        from referee.store.postgres import PostgresEventStore, scratch_database
    except ImportError as error:
        return {"skipped": f"psycopg is not installed ({error}): pip install '.[postgres]'"}
    size = games or (QUICK_GAMES if quick else GAMES)
    admin = admin_url()
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="referee-restart-")))
        try:
            url = stack.enter_context(scratch_database(admin, "referee_bench"))
        except psycopg.OperationalError as error:
            return {"skipped": f"PostgreSQL not available at {admin}: {str(error).strip()}"}
        built = time.perf_counter()
        with PostgresEventStore(url, listen=False) as store:
            kinds = _fill(store, size)
        built_seconds = time.perf_counter() - built
        load = os.getloadavg()[0]
        runs = [measure(url, kinds, folder) for _ in range(1 if quick else 3)]
        imports = _imports_seconds()
    figures = {
        name: statistics.median(r[name] for r in runs if r[name] is not None)
        for name in runs[0]
        if any(r[name] is not None for r in runs)
    }
    return {
        "games": size,
        **{kind: len(ids) for kind, ids in kinds.items()},
        "build_seconds": round(built_seconds, 1),
        "load_average": round(load, 2),
        "imports_seconds": round(imports, 3),
        **figures,
        "runs": runs,
    }


def markdown(result: dict[str, Any]) -> list[str]:
    out = ["", "## RESTART a replica on PostgreSQL with many games", ""]
    if "skipped" in result:
        return [*out, f"Skipped: {result['skipped']}"]
    return [
        *out,
        f"{result['games']:,} games ({result['finished']:,} finished and rated, "
        f"{result['running']:,} running, {result['clocked']:,} with a clock), load average "
        f"{result['load_average']:.1f}; seconds from starting the process (median of "
        f"{len(result['runs'])}): banner {result['banner_seconds']:.2f} (importing the "
        f"server alone: {result['imports_seconds']:.2f}), first write "
        f"**{result['first_write_seconds']:.2f}**, first cold read "
        f"**{result['first_cold_read_seconds']:.2f}**, every clocked game loaded "
        f"{result.get('background_start_seconds', float('nan')):.2f}.",
    ]


__all__ = ["markdown", "run"]
