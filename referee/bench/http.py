"""P9: the HTTP adapter (Connect) against gRPC, and the web client's first load.

One referee process serves both ports. The same client pattern runs over each in turn, in
one process: concurrent Vampire Queen games, each followed by a spectator stream; for every
decision the client reads the deciding seat's view, sends one of its legal commands and waits
for that command's first event on the stream. Reported: commands/s and the p99 of command
sent -> its event on the stream, over Connect (binary, connect-python's client) ÷ over gRPC.

The page: the bytes of the built client (HTML, JS, CSS) as the HTTP port sends them gzipped,
and, with node and Chromium, the time from opening a seat's join link to an interactive table
(clients/web/tests/tti.mjs).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import subprocess
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

import grpc
from connectrpc.client import ConnectClient
from connectrpc.method import IdempotencyLevel, MethodInfo
from google.protobuf.message import Message

from referee.bench.load import Load, ServerProcess, referee_argv
from referee.metrics import SERVICE
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"


class Rpc(Protocol):
    async def unary(self, name: str, request: Message) -> Any: ...

    def stream(self, request: pb.StreamGameRequest) -> AsyncIterator[pb.StreamGameResponse]: ...


class GrpcRpc:
    def __init__(self, address: str) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = pb_grpc.RefereeServiceStub(self.channel)

    async def unary(self, name: str, request: Message) -> Any:
        return await getattr(self.stub, name)(request, timeout=30)

    def stream(self, request: pb.StreamGameRequest) -> AsyncIterator[pb.StreamGameResponse]:
        call: AsyncIterator[pb.StreamGameResponse] = self.stub.StreamGame(request)
        return call

    async def close(self) -> None:
        await self.channel.close()


class ConnectRpc:
    def __init__(self, url: str) -> None:
        self.client = ConnectClient(url, send_compression=None, accept_compression=())
        service = pb.DESCRIPTOR.services_by_name["RefereeService"]
        self.methods = {
            m.name: MethodInfo(
                name=m.name,
                service_name=SERVICE,
                input=getattr(pb, m.input_type.name),
                output=getattr(pb, m.output_type.name),
                idempotency_level=IdempotencyLevel.UNKNOWN,
            )
            for m in service.methods
        }

    async def unary(self, name: str, request: Message) -> Any:
        return await self.client.execute_unary(request=request, method=self.methods[name])

    def stream(self, request: pb.StreamGameRequest) -> AsyncIterator[pb.StreamGameResponse]:
        stream: AsyncIterator[pb.StreamGameResponse] = self.client.execute_server_stream(
            request=request, method=self.methods["StreamGame"]
        )
        return stream

    async def close(self) -> None:
        await self.client.close()


async def _follow(
    rpc: Rpc,
    load: Load,
    game_id: str,
    after: int,
    arrived: dict[int, float],
    waiting: dict[int, asyncio.Future[float]],
) -> None:
    """The game's spectator stream: when each event arrived, and wake whoever waits for it."""
    request = pb.StreamGameRequest(game_id=game_id, spectator=True, after_sequence=after)
    async for message in rpc.stream(request):
        load.messages += 1
        if message.HasField("event"):
            now = time.perf_counter()
            arrived[message.event.sequence] = now
            future = waiting.pop(message.event.sequence, None)
            if future is not None and not future.done():
                future.set_result(now)


async def _game(rpc: Rpc, load: Load, rng: random.Random) -> None:
    """Games one after another until the window closes."""
    loop = asyncio.get_running_loop()
    while not load.stopping():
        created = await rpc.unary(
            "CreateGame",
            pb.CreateGameRequest(game_type="vampire-queen", players=4, options={"rounds": "50"}),
        )
        tokens = [s.token for s in sorted(created.seats, key=lambda s: s.seat)]
        arrived: dict[int, float] = {}
        waiting: dict[int, asyncio.Future[float]] = {}

        follower = asyncio.ensure_future(
            _follow(rpc, load, created.game_id, created.game.version, arrived, waiting)
        )
        pending = list(created.game.pending_seats)
        try:
            while pending and not load.stopping():
                seat = pending[0]
                request = pb.GetViewRequest(game_id=created.game_id, seat_token=tokens[seat])
                view = (await rpc.unary("GetView", request)).view
                sent = time.perf_counter()
                response = await rpc.unary(
                    "SubmitCommand",
                    pb.SubmitCommandRequest(
                        game_id=created.game_id,
                        seat_token=tokens[seat],
                        command_id=str(uuid.uuid4()),
                        command=rng.choice(list(view.legal_commands)),
                    ),
                )
                first = response.first_sequence
                if first in arrived:
                    at = arrived[first]
                else:
                    future = waiting.setdefault(first, loop.create_future())
                    at = await asyncio.wait_for(future, 30)
                load.done(time.perf_counter())
                load.latency(sent, at)
                pending = list(response.view.pending_seats)
        finally:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await follower


async def _window(rpc: Rpc, concurrency: int, warmup: float, seconds: float) -> dict[str, Any]:
    load = Load(warmup=warmup, seconds=seconds)
    await asyncio.gather(*(_game(rpc, load, random.Random(i)) for i in range(concurrency)))
    return load.summary()


def _http_address(server: ServerProcess) -> str:
    """The HTTP port from the banner's lines after "listening on"."""
    assert server.process.stdout is not None
    for _ in range(20):
        line = server.process.stdout.readline()
        if "ListGameTypes" in line:
            return line.split("http://", 1)[1].split("/", 1)[0]
    raise RuntimeError("the referee printed no HTTP address")


def page_load(http: str) -> dict[str, Any]:
    """Bytes of the page's first load as sent (gzip), and the time to an interactive table."""
    found: dict[str, Any] = {"built": (WEB / "dist" / "index.html").is_file()}
    if not found["built"]:
        return found
    total = 0
    files = {}
    # What index.html itself loads (chunks loaded later, e.g. the rules renderer, are not).
    index = (WEB / "dist" / "index.html").read_text()
    assets = sorted(set(re.findall(r'(?:src|href)="\./(assets/[^"]+)"', index)))
    paths = ["/", *(f"/{asset}" for asset in assets)]
    for path in paths:
        request = urllib.request.Request(
            f"http://{http}{path}", headers={"Accept-Encoding": "gzip"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            size = len(response.read())
        files[path] = size
        total += size
    found["gzip_bytes"] = total
    found["files"] = files
    chromium = Path("/usr/bin/chromium")
    if shutil.which("node") and chromium.exists() and (WEB / "node_modules").is_dir():
        result = subprocess.run(
            ["node", "tests/tti.mjs"],
            cwd=WEB,
            env={**os.environ, "REFEREE_URL": f"http://{http}"},
            capture_output=True,
            text=True,
            timeout=180,
        )
        if result.returncode == 0:
            found |= json.loads(result.stdout.strip().splitlines()[-1])
        else:
            found["tti_error"] = result.stderr[-500:]
    return found


def run(quick: bool) -> dict[str, Any]:
    warmup, seconds, concurrency = (0.5, 2.0, 4) if quick else (2.0, 10.0, 8)
    argv = [*referee_argv("memory:", 100_000, 100_000), "--http", "127.0.0.1:0"]
    server = ServerProcess.start(argv)
    try:
        http = _http_address(server)

        async def both() -> dict[str, Any]:
            results = {}
            for name, rpc in (
                ("grpc", GrpcRpc(server.address)),
                ("connect", ConnectRpc(f"http://{http}")),
            ):
                try:
                    results[name] = await _window(rpc, concurrency, warmup, seconds)
                finally:
                    await rpc.close()
            return results

        found = asyncio.run(both())
        found["page"] = page_load(http)
    finally:
        server.stop()
    grpc_, connect = found["grpc"], found["connect"]
    found["concurrency"] = concurrency
    found["commands_ratio"] = connect["per_second"] / max(grpc_["per_second"], 1e-9)
    if "p99_ms" in connect and "p99_ms" in grpc_:
        found["p99_ratio"] = connect["p99_ms"] / grpc_["p99_ms"]
    return found
