"""Fixtures of the client tests: one real referee server per test module (in memory, on an
ephemeral port) and a gRPC stub connected to it."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from referee.server.app import running_server
from referee.v1 import referee_pb2_grpc


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    """Where the module's server listens (``host:port``)."""
    with running_server(store="memory:") as server:
        yield str(server.address)


@pytest.fixture
def stub(address: str) -> Iterator[referee_pb2_grpc.RefereeServiceStub]:
    """A stub on a fresh channel to the module's server."""
    with grpc.insecure_channel(address) as channel:
        yield referee_pb2_grpc.RefereeServiceStub(channel)


@pytest.fixture(autouse=True)
def no_bot_left() -> Iterator[None]:
    """The bots of ``referee-cli new --bots`` are processes that outlive a CLI that quit:
    stop the ones a test left running."""
    yield
    from referee_cli import app

    while app.STARTED_BOTS:
        process = app.STARTED_BOTS.pop()
        if process.poll() is None:
            process.terminate()
        process.wait(30)


@pytest.fixture(autouse=True)
def cli_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """``referee-cli new`` keeps organiser tokens under $XDG_STATE_HOME: a test's own
    folder, never the user's."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
