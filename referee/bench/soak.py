"""SOAK: the server's memory while games are played for many minutes (a leak shows as growth).

A ``referee serve`` process on a SQLite store in a temporary folder; client threads play
games to the end with random legal commands over gRPC, one after the other, some with a
spectator stream read to the end. The server's RSS is sampled every few seconds. After a
warm-up (the first fifth of the run), RSS must stay flat: the figure is the growth from the
median of the first post-warm-up minute to the median of the last minute (target < 5%).
Before idle games left memory, RSS grew about 200-260 KiB per game played.

It also reports RSS before the load (after one game, played and evicted, so that what a first
game sets up once counts before) and after it, once every game has left memory: within 10%
of before is the target; docs/operations.md ("Memory after load") says what stays and how
to bound it.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import grpc

from referee.bench.load import ServerProcess
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

#: Seconds of the full run (at least ten minutes, for a slow leak to show), and of ``--quick``.
FULL_SECONDS = 660.0
QUICK_SECONDS = 4.0
#: The server's --evict-idle-seconds: short enough that games played in the run leave memory
#: within it, and that the after-load figure comes soon after the load.
EVICT_SECONDS = 5.0
QUICK_EVICT_SECONDS = 1.0


def _play_games(
    address: str, seed: int, until: float, counts: dict[str, int], most: int | None = None
) -> None:
    """Play games to their end until ``until`` (monotonic), the last one to its end; at most
    ``most`` games."""
    rng = random.Random(seed)
    played = 0
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        while time.monotonic() < until and (most is None or played < most):
            played += 1
            request = pb.CreateGameRequest(
                game_type="vampire-queen", players=3, options={"rounds": "1"}
            )
            created = stub.CreateGame(request, timeout=30)
            tokens = [seat.token for seat in sorted(created.seats, key=lambda s: s.seat)]
            watcher = None
            if rng.random() < 0.3:  # some games are watched to the end
                watcher = stub.StreamGame(
                    pb.StreamGameRequest(game_id=created.game_id, spectator=True), timeout=300
                )
            while True:
                game = stub.GetGame(pb.GetGameRequest(game_id=created.game_id), timeout=30).game
                if game.game_over or time.monotonic() > until + 60:
                    break
                seat = rng.choice(list(game.pending_seats))
                view = stub.GetView(
                    pb.GetViewRequest(game_id=created.game_id, seat_token=tokens[seat]),
                    timeout=30,
                ).view
                stub.SubmitCommand(
                    pb.SubmitCommandRequest(
                        game_id=created.game_id,
                        seat_token=tokens[seat],
                        command_id=uuid.uuid4().hex,
                        command=rng.choice(list(view.legal_commands)),
                    ),
                    timeout=30,
                )
                counts["commands"] += 1
            if watcher is not None:
                for _message in watcher:
                    pass
            counts["games"] += 1


def _rss_mib(server: ServerProcess) -> float:
    return server.memory_kib()["VmRSS"] / 1024


def _settled(server: ServerProcess, seconds: float, step: float) -> list[tuple[float, float]]:
    """RSS samples over ``seconds`` of no load: (seconds since the first, MiB)."""
    started = time.monotonic()
    samples = []
    while (at := time.monotonic() - started) < seconds:
        samples.append((at, _rss_mib(server)))
        time.sleep(step)
    return samples


def run(quick: bool, seconds: float | None = None, clients: int = 2) -> dict[str, Any]:
    """Play for ``seconds``; RSS at the start, before the load (idle, after one game played and
    evicted), during it, and after it, once every game has left memory (idle for the
    eviction's limit, then a few sweeps)."""
    duration = seconds or (QUICK_SECONDS if quick else FULL_SECONDS)
    evict = QUICK_EVICT_SECONDS if quick else EVICT_SECONDS
    step = 1.0 if quick else 5.0
    with tempfile.TemporaryDirectory(prefix="referee-soak-") as folder:
        argv = [
            "-m",
            "referee",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--store",
            f"sqlite:{Path(folder) / 'soak.sqlite3'}",
            "--metrics",
            "",
            # Short enough that games played in the run leave memory within it.
            "--evict-idle-seconds",
            f"{evict:g}",
        ]
        server = ServerProcess.start(argv, Path(folder) / "server.log")
        counts = {"games": 0, "commands": 0}
        samples: list[tuple[float, float]] = []  # (seconds since the load began, RSS MiB)
        try:
            rss_start = _rss_mib(server)
            # One game first, then its eviction: what a first game sets up once (threads,
            # the store's page cache, code paths run once) counts before the load.
            first_game = {"games": 0, "commands": 0}
            _play_games(server.address, clients, time.monotonic() + duration, first_game, most=1)
            time.sleep(evict + evict / 2)
            idle_before = _settled(server, step, step / 4)
            started = time.monotonic()
            until = started + duration
            threads = [
                threading.Thread(target=_play_games, args=(server.address, k, until, counts))
                for k in range(clients)
            ]
            for thread in threads:
                thread.start()
            while any(thread.is_alive() for thread in threads):
                samples.append((time.monotonic() - started, _rss_mib(server)))
                time.sleep(step)
            for thread in threads:
                thread.join()
            # Every game idle for the eviction's limit, then swept (a sweep every quarter of
            # it), then the settled figure.
            time.sleep(evict + evict / 2)
            idle_after = _settled(server, step, step / 4)
        finally:
            server.stop()
    warm = duration / 5
    window = min(60.0, duration / 5)
    after = [rss for at, rss in samples if warm <= at < warm + window]
    last = [rss for at, rss in samples if at >= duration - window]
    first_mib = statistics.median(after) if after else float("nan")
    last_mib = statistics.median(last) if last else float("nan")
    before_mib = statistics.median(rss for _, rss in idle_before)
    after_load_mib = statistics.median(rss for _, rss in idle_after)
    return {
        "seconds": round(duration, 1),
        "clients": clients,
        "games": counts["games"],
        "commands": counts["commands"],
        "evict_idle_seconds": evict,
        "rss_start_mib": round(rss_start, 1),
        "rss_before_mib": round(before_mib, 1),
        "rss_peak_mib": round(max((rss for _, rss in samples), default=float("nan")), 1),
        "rss_after_warmup_mib": round(first_mib, 1),
        "rss_at_end_mib": round(last_mib, 1),
        "rss_after_load_mib": round(after_load_mib, 1),
        "growth": round((last_mib - first_mib) / first_mib, 4) if after and last else None,
        "after_to_before": round(after_load_mib / before_mib - 1, 4),
        "after_to_start": round(after_load_mib / rss_start - 1, 4),
        "samples": [(round(at, 1), round(rss, 1)) for at, rss in samples],
    }


__all__ = ["run"]
