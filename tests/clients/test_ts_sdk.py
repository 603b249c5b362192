"""The TypeScript SDK (clients/ts-sdk) against real referees, from Node's test runner
(clients/ts-sdk/tests/*.test.mjs): each file is one test here. Each starts ``referee serve``
of this venv itself (its tests kill and restart it mid-game), so nothing is shared; replicas
share a PostgreSQL database made here (``REFEREE_TEST_POSTGRES``).

Without node or the built SDK (``make sdk``) the tests are skipped with a message, except in
CI (``CI=true``), where they must run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.store.pg import postgres_url, temporary_database

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "clients" / "ts-sdk"
FILES = sorted(p.name for p in (SDK / "tests").glob("*.test.mjs"))


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not (SDK / "dist" / "index.js").is_file():
        return "the TypeScript SDK is not built (make sdk)"
    return None


@pytest.mark.parametrize("name", FILES)
def test_the_sdk(name: str) -> None:
    missing = _missing()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the SDK's tests cannot run in CI: {missing}")
        pytest.skip(f"the SDK's tests skipped: {missing}")
    referee = Path(sys.executable).parent / "referee"
    with temporary_database() as url:  # the replicas' shared store (skips without PostgreSQL)
        run = subprocess.run(
            ["node", "--test", "--test-concurrency=1", f"tests/{name}"],
            cwd=SDK,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
            env={**os.environ, "REFEREE": str(referee), "REFEREE_TEST_STORE": postgres_url(url)},
        )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
