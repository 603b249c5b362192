"""A copy of the repository with a fifth game on the wire, for tests/engine/test_registry.py.

:func:`build` copies ``referee/``, ``clients/`` and ``protos/`` into a folder and adds there
what docs/writing-a-game.md says a game is: its package (High Card, tests/engine/example_game.py)
and its proto file, and the ``import`` and three ``oneof`` lines in ``referee.proto``; then it
regenerates the Python code from the protos as ``make proto`` does. Nothing else in the copy
is edited: the server, the CLI and the web client must take the game from there.
:class:`Served` runs ``referee serve`` from the copy.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = Path(__file__).with_name("example_game.py")

#: The proto of High Card, named as its model is (tests/engine/example_game.py).
HIGH_CARD_PROTO = """syntax = "proto3";

package referee.v1;

message HighCardCommand {
  message Play {
    int32 card = 1;
  }
  oneof kind {
    Play play = 1;
  }
}

message HighCardEvent {
  message HandDealt {
    int32 seat = 1;
    int32 count = 2;
    repeated int32 cards = 3;
  }
  message Played {
    int32 seat = 1;
    int32 card = 2;
  }
  oneof kind {
    HandDealt hand_dealt = 1;
    Played played = 2;
  }
}

message HighCardView {
  repeated int32 hand = 1;
  repeated int32 hand_sizes = 2;
  repeated int32 played = 3;
  repeated int32 scores = 4;
}
"""

#: The lines a new game adds to referee.proto: (the line they follow, the new line).
ONEOF_LINES = [
    (
        'import "referee/v1/vampire_queen.proto";',
        'import "referee/v1/high_card.proto";',
    ),
    (
        "    MauMauVampiresCommand mau_mau_vampires = 13;",
        "    HighCardCommand high_card = 14;",
    ),
    (
        "    MauMauVampiresEvent mau_mau_vampires = 13;",
        "    HighCardEvent high_card = 14;",
    ),
    (
        "    MauMauVampiresView mau_mau_vampires = 13;",
        "    HighCardView high_card = 14;",
    ),
]

_SKIP = shutil.ignore_patterns(
    "__pycache__", "node_modules", "dist", "gen", "*.egg-info", ".mypy_cache", "test-results"
)


def build(root: Path) -> Path:
    """The copy with High Card added, in ``root``; returns ``root``."""
    for part in ("referee", "clients", "protos"):
        shutil.copytree(ROOT / part, root / part, ignore=_SKIP)
    package = root / "referee" / "games" / "high_card"
    package.mkdir()
    shutil.copy(EXAMPLE, package / "__init__.py")
    (root / "protos" / "referee" / "v1" / "high_card.proto").write_text(HIGH_CARD_PROTO)
    service = root / "protos" / "referee" / "v1" / "referee.proto"
    text = service.read_text()
    for after, line in ONEOF_LINES:
        assert text.count(after + "\n") == 1, after
        text = text.replace(after + "\n", f"{after}\n{line}\n")
    service.write_text(text)
    protos = sorted(str(p.relative_to(root)) for p in (root / "protos/referee/v1").glob("*.proto"))
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", "-Iprotos", "--python_out=.",
         "--grpc_python_out=.", *protos],
        cwd=root,
        check=True,
        timeout=120,
    )  # fmt: skip
    return root


def environment(root: Path) -> dict[str, str]:
    """The environment of a process that runs the copy's code (and only it)."""
    return dict(
        os.environ, PYTHONPATH=f"{root}{os.pathsep}{root / 'clients'}", PYTHONUNBUFFERED="1"
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Served:
    """``referee serve`` of the copy on loopback (gRPC and HTTP), in memory."""

    def __init__(self, root: Path, log: Path) -> None:
        self.address = f"127.0.0.1:{_free_port()}"
        self.http = f"127.0.0.1:{_free_port()}"
        with log.open("w") as output:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "referee", "serve", "--listen", self.address,
                 "--store", "memory:", "--http", self.http, "--metrics", ""],
                cwd=root,
                env=environment(root),
                stdout=output,
                stderr=output,
            )  # fmt: skip
        deadline = time.monotonic() + 60
        with grpc.insecure_channel(self.address) as channel:
            while True:
                try:
                    grpc.channel_ready_future(channel).result(timeout=1)
                    break
                except grpc.FutureTimeoutError:
                    if self.process.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"the copy's server did not start; see {log}") from None

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
