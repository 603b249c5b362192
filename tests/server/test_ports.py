"""A second server on a port in use fails at start, clearly and non-zero."""

from __future__ import annotations

import subprocess
import sys

from referee.server.app import running_server


def test_a_second_server_on_a_port_in_use_refuses_to_start() -> None:
    with running_server(store="memory:") as first:
        command = [sys.executable, "-m", "referee", "serve", "--listen", first.address]
        result = subprocess.run(
            [*command, "--store", "memory:", "--metrics", ""],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1, result
    assert f"cannot listen on {first.address}" in result.stderr
    assert "Traceback" not in result.stderr
