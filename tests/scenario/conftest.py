"""A live referee for the scenario kit's ``--server`` tests (one per test module)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee.server.app import RefereeServer, running_server


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with running_server(store="memory:", grace_seconds=1.0) as running:
        yield running
