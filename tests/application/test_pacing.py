"""The one stream policy at the application layer (:mod:`referee.application.tables.pacing`):
admission against the caps, the stall limit on a write the reader does not take, and the
heartbeat of an idle stream. The transports' side (real sockets, nginx) is in
tests/server/test_stream_policy.py and tests/server/test_heartbeats.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest

from referee.application import Kind, RefereeError
from referee.application.tables.pacing import Outlet, Pacing, StreamPolicy


def test_every_cap_refuses_with_a_retry_delay() -> None:
    pacing = Pacing(
        StreamPolicy(max_streams=3, max_streams_per_player=1, max_streams_per_address=2)
    )
    with pacing.admit("10.0.0.1"), pacing.admit_player("ada"):
        with pytest.raises(RefereeError) as player:
            pacing.admit_player("ada").__enter__()
        assert player.value.metadata["limit"] == "streams per player"
        with pacing.admit("10.0.0.1"):
            with pytest.raises(RefereeError) as address:
                pacing.admit("10.0.0.1").__enter__()
            assert address.value.metadata["limit"] == "streams per address"
            with pacing.admit("10.0.0.2"), pytest.raises(RefereeError) as total:
                pacing.admit("10.0.0.3").__enter__()
            assert total.value.metadata["limit"] == "streams"
    for refused in (player.value, address.value, total.value):
        assert refused.kind is Kind.LIMIT and refused.retry_after
    assert (pacing.open, pacing.by_player, pacing.by_address) == (0, {}, {})


def test_a_write_the_reader_does_not_take_ends_the_stream_with_where_to_resume() -> None:
    async def main() -> RefereeError:
        pacing = Pacing(StreamPolicy(stall_seconds=0.2, heartbeat_seconds=0))
        taken: list[bytes] = []

        async def write(data: bytes) -> None:
            if taken:
                await asyncio.Event().wait()  # the reader stopped: never taken
            taken.append(data)

        with pytest.raises(RefereeError) as caught:
            async with pacing.outlet(write, bytes, last_sequence="0") as out:
                await out.send(b"first")
                out.resume["last_sequence"] = "7"
                await out.send(b"second")
        return caught.value

    error = asyncio.run(asyncio.wait_for(main(), 30))
    assert error.kind is Kind.LIMIT
    assert error.metadata["limit"] == "stream stall seconds"
    assert error.metadata["last_sequence"] == "7"


def test_an_idle_stream_sends_heartbeats() -> None:
    async def main() -> list[bytes]:
        pacing = Pacing(StreamPolicy(stall_seconds=5, heartbeat_seconds=0.1))
        written: list[bytes] = []

        async def write(data: bytes) -> None:
            written.append(data)

        async with pacing.outlet(write, lambda: b"beat") as out:
            await out.send(b"update")
            while written.count(b"beat") < 3:  # idle: heartbeats come
                await asyncio.sleep(0.01)
        return written

    written = asyncio.run(asyncio.wait_for(main(), 30))
    assert written[0] == b"update" and set(written[1:]) == {b"beat"}


def test_a_plain_write_is_never_cancelled_and_the_stall_gives_back_what_the_stream_holds() -> None:
    """A write that may not be cancelled (gRPC's) stalls: what the stream holds is given back
    at once (its slot, the generator it reads, a task of its own), the write itself is left
    to end, and then the stream ends with the stall's error."""

    async def main() -> tuple[RefereeError, list[str]]:
        pacing = Pacing(StreamPolicy(stall_seconds=0.2, heartbeat_seconds=0))
        reads = asyncio.Event()
        seen: list[str] = []

        async def write(data: bytes) -> None:
            if seen:
                try:
                    await reads.wait()  # the reader stopped, until it reads again
                except asyncio.CancelledError:
                    seen.append("write cancelled")
                    raise
            seen.append("taken")

        async def updates() -> AsyncGenerator[bytes, None]:
            try:
                while True:
                    yield b"update"
            finally:
                seen.append("updates closed")

        async def stream(out: Outlet) -> None:
            out.enter(pacing.admit("10.0.0.1"))
            async with out:
                helper = out.hold(asyncio.ensure_future(asyncio.Event().wait()))
                async for data in out.hold(updates()):
                    await out.send(data)
                await helper

        out = pacing.outlet(write, bytes, cancel_writes=False, last_sequence="3")
        task = asyncio.ensure_future(stream(out))
        while pacing.open or "updates closed" not in seen:  # given back at the stall
            await asyncio.sleep(0.01)
        assert not task.done()  # still in its write
        reads.set()
        with pytest.raises(RefereeError) as caught:
            await task
        return caught.value, seen

    error, seen = asyncio.run(asyncio.wait_for(main(), 30))
    assert seen == ["taken", "updates closed", "taken"]
    assert error.metadata["limit"] == "stream stall seconds"
    assert error.metadata["last_sequence"] == "3"
