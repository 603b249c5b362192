"""Calls the server received but had not started are served, not CANCELLED.

gRPC cancels calls beyond its queue of received-but-unstarted calls (1,000 by default: a
burst of stream opens lost a third), and the calls still queued when a server stops. The
referee raises the queue bound and, at SIGTERM, serves on until calls stop arriving; a call
that comes after that is refused with UNAVAILABLE, which clients retry (docs/clients.md).
"""

from __future__ import annotations

import asyncio
import collections
import signal
import socket
import subprocess
import sys

import grpc

from referee.server.app import running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

#: Codes a client may get for a call sent while a server stops: served, or told to retry.
RETRYABLE = {"OK", "UNAVAILABLE"}


async def _open_streams(address: str, game_id: str, count: int) -> collections.Counter[str]:
    codes: collections.Counter[str] = collections.Counter()
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)

        async def one() -> None:
            call = stub.StreamGame(
                pb.StreamGameRequest(game_id=game_id, spectator=True), timeout=120
            )
            try:
                await call.read()
                codes["OK"] += 1
            except grpc.aio.AioRpcError as error:
                codes[error.code().name] += 1
            call.cancel()

        await asyncio.gather(*(one() for _ in range(count)))
    return codes


def test_a_burst_of_stream_opens_is_served() -> None:
    with running_server(store="memory:", grace_seconds=1.0) as server:
        with grpc.insecure_channel(server.address) as channel:
            created = pb_grpc.RefereeServiceStub(channel).CreateGame(
                pb.CreateGameRequest(game_type="vampire-queen", players=3), timeout=30
            )
        codes = asyncio.run(_open_streams(server.address, created.game_id, 2500))
    assert codes == {"OK": 2500}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_calls_sent_just_before_sigterm_are_served_or_unavailable() -> None:
    address = f"127.0.0.1:{_free_port()}"
    command = [sys.executable, "-m", "referee", "serve", "--listen", address]
    process = subprocess.Popen(
        [*command, "--store", "memory:", "--metrics", ""],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert "listening" in process.stdout.readline()

        async def main() -> collections.Counter[str]:
            codes: collections.Counter[str] = collections.Counter()
            async with grpc.aio.insecure_channel(address) as channel:
                stub = pb_grpc.RefereeServiceStub(channel)
                created = await stub.CreateGame(
                    pb.CreateGameRequest(game_type="vampire-queen", players=3), timeout=30
                )
                request = pb.GetViewRequest(game_id=created.game_id, spectator=True)

                async def one() -> None:
                    try:
                        await stub.GetView(request, timeout=60)
                        codes["OK"] += 1
                    except grpc.aio.AioRpcError as error:
                        codes[error.code().name] += 1

                calls = [asyncio.ensure_future(one()) for _ in range(300)]
                await asyncio.sleep(0.005)  # the calls are on their way
                process.send_signal(signal.SIGTERM)
                await asyncio.gather(*calls)
            return codes

        codes = asyncio.run(main())
        assert set(codes) <= RETRYABLE, codes
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()
        process.wait()
