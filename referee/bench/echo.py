"""A bare ``grpc.aio`` echo server: the yardstick of P2 and P6.

``Echo`` answers each request with its own bytes (no parsing, no work), so it costs what gRPC
itself costs for one unary call. ``Watch`` and ``Publish`` add the referee's fan-out and
nothing else: ``Watch(room)`` is a server stream that first sends an empty message, then
every payload published to the room; ``Publish(room + payload)`` (16 bytes of room id) sends
the payload to each of the room's watchers and echoes the request.

``python -m referee.bench.echo --listen 127.0.0.1:0`` prints ``echo listening on HOST:PORT``
and serves until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections.abc import AsyncIterator
from typing import Any

import grpc

SERVICE = "referee.bench.Echo"
METHOD = f"/{SERVICE}/Echo"
WATCH = f"/{SERVICE}/Watch"
PUBLISH = f"/{SERVICE}/Publish"
ROOM_BYTES = 16

_rooms: dict[bytes, set[asyncio.Queue[bytes]]] = {}


async def _echo(request: bytes, context: Any) -> bytes:
    return request


async def _watch(request: bytes, context: Any) -> AsyncIterator[bytes]:
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    watchers = _rooms.setdefault(request, set())
    watchers.add(queue)
    try:
        yield b""
        while True:
            yield await queue.get()
    finally:
        watchers.discard(queue)
        if not watchers:
            _rooms.pop(request, None)


async def _publish(request: bytes, context: Any) -> bytes:
    for queue in _rooms.get(request[:ROOM_BYTES], ()):
        queue.put_nowait(request)
    return request


async def serve(listen: str) -> None:
    server = grpc.aio.server()
    handlers = {  # no (de)serializers: raw bytes
        "Echo": grpc.unary_unary_rpc_method_handler(_echo),
        "Watch": grpc.unary_stream_rpc_method_handler(_watch),
        "Publish": grpc.unary_unary_rpc_method_handler(_publish),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    port = server.add_insecure_port(listen)
    if port == 0:
        raise OSError(f"cannot listen on {listen}")
    await server.start()
    print(f"echo listening on {listen.rsplit(':', 1)[0]}:{port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(1.0)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m referee.bench.echo")
    parser.add_argument("--listen", default="127.0.0.1:0")
    asyncio.run(serve(parser.parse_args().listen))


if __name__ == "__main__":
    main()
