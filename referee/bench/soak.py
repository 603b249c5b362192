"""SOAK: the server's memory while games are played for many minutes (a leak shows as growth).

A ``referee serve`` process on a SQLite store in a temporary folder; client threads play
games to the end with random legal commands over gRPC, one after the other, some with a
spectator stream read to the end. The server's RSS is sampled every few seconds. After a
warm-up (the first fifth of the run), RSS must stay flat: the figure is the growth from the
median of the first post-warm-up minute to the median of the last minute (target < 5%).
Before idle games left memory, RSS grew about 200-260 KiB per game played.
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
QUICK_SECONDS = 20.0


def _play_games(address: str, seed: int, until: float, counts: dict[str, int]) -> None:
    rng = random.Random(seed)
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        while time.monotonic() < until:
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


def run(quick: bool, seconds: float | None = None, clients: int = 2) -> dict[str, Any]:
    duration = seconds or (QUICK_SECONDS if quick else FULL_SECONDS)
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
            "5" if not quick else "1",
        ]
        server = ServerProcess.start(argv, Path(folder) / "server.log")
        counts = {"games": 0, "commands": 0}
        samples: list[tuple[float, float]] = []  # (seconds since start, RSS MiB)
        try:
            started = time.monotonic()
            until = started + duration
            threads = [
                threading.Thread(target=_play_games, args=(server.address, k, until, counts))
                for k in range(clients)
            ]
            for thread in threads:
                thread.start()
            step = 1.0 if quick else 5.0
            while any(thread.is_alive() for thread in threads):
                samples.append((time.monotonic() - started, server.memory_kib()["VmRSS"] / 1024))
                time.sleep(step)
            for thread in threads:
                thread.join()
        finally:
            server.stop()
    warm = duration / 5
    window = min(60.0, duration / 5)
    after = [rss for at, rss in samples if warm <= at < warm + window]
    last = [rss for at, rss in samples if at >= duration - window]
    first_mib = statistics.median(after) if after else float("nan")
    last_mib = statistics.median(last) if last else float("nan")
    return {
        "seconds": round(duration, 1),
        "clients": clients,
        "games": counts["games"],
        "commands": counts["commands"],
        "rss_after_warmup_mib": round(first_mib, 1),
        "rss_at_end_mib": round(last_mib, 1),
        "growth": round((last_mib - first_mib) / first_mib, 4) if after and last else None,
        "samples": [(round(at, 1), round(rss, 1)) for at, rss in samples],
    }


__all__ = ["run"]
