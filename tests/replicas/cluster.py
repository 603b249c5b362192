"""Replicas as real processes: ``referee serve`` subprocesses on one PostgreSQL database.

:class:`Replica` starts one (an ephemeral port the first time, the same port on a restart, so
a client's address list stays valid), kills it with SIGKILL or stops it with SIGTERM.
:func:`round_robin_channel` is a client channel over every replica with gRPC's own
client-side load balancing.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import grpc

#: Seconds a replica may take to start (import, migrate, bind) before the test gives up.
START_TIMEOUT = 60.0


class Replica:
    """One ``referee serve`` process; ``address`` is known once it has started."""

    def __init__(self, store_url: str, log_dir: Path, name: str, *extra: str) -> None:
        self.store_url = store_url
        #: More ``referee serve`` flags (e.g. ``--http HOST:PORT``).
        self.extra = extra
        self.log_path = log_dir / f"{name}.log"
        self.name = name
        self.port = 0
        self.process: subprocess.Popen[str] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> Replica:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        log = self.log_path.open("a")
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "referee",
                "serve",
                "--listen",
                f"127.0.0.1:{self.port}",
                "--store",
                self.store_url,
                "--metrics",
                "",
                "--grace-seconds",
                "1",
                *self.extra,
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=env,
        )
        log.close()
        self.process = process
        assert process.stdout is not None
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(process.stdout.readline()))
        reader.start()
        reader.join(START_TIMEOUT)
        line = first[0] if first else ""
        if not line.startswith("referee listening on "):
            process.kill()
            process.wait()
            raise RuntimeError(f"{self.name} did not start: {line!r}; see {self.log_path}")
        #: The first line it printed for people (its address and store).
        self.banner = line
        self.port = int(line.split()[3].rsplit(":", 1)[1])
        # Drain stdout so the replica never blocks on a full pipe.
        threading.Thread(target=process.stdout.read, daemon=True).start()
        return self

    def kill(self) -> None:
        """SIGKILL: no shutdown at all, as a crash or an OOM kill."""
        self._signal(signal.SIGKILL)

    def stop(self) -> None:
        self._signal(signal.SIGTERM)

    def _signal(self, sig: int) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def round_robin_channel(addresses: Sequence[str]) -> grpc.Channel:
    """One channel over every address, each call to the next ready replica (gRPC's
    ``round_robin`` policy); a dead replica is skipped until it answers again."""
    target = "ipv4:" + ",".join(addresses)
    config = {"loadBalancingConfig": [{"round_robin": {}}]}
    return grpc.insecure_channel(
        target,
        options=[
            ("grpc.service_config", json.dumps(config)),
            # Reconnect quickly to a restarted replica (the default backoff starts at 1 s).
            ("grpc.initial_reconnect_backoff_ms", 100),
            ("grpc.max_reconnect_backoff_ms", 1000),
        ],
    )
