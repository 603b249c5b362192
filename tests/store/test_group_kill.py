"""Nothing acknowledged is lost when the process dies mid-group (group commit).

A child process appends for 32 games at once through ``append_soon`` (so its writer commits
them in groups) and prints each append as soon as it is answered; the test kills it with
SIGKILL while it writes, reopens the store and finds every printed append in it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from referee.store import EventStore, SqliteEventStore
from tests.store.pg import postgres_url, temporary_database

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from referee.store import open_store
    from referee.store.base import CommandOutcome, GameRecord

    store = open_store(sys.argv[1])
    games = [f"k{i}" for i in range(32)]
    for game_id in games:
        store.create_game(GameRecord(game_id, "t", 2, {}, b"s", b"", ("a", "b"), 1.0), [b"e"])
    print("ready", flush=True)

    async def play(game_id):
        version = 1
        while True:
            outcome = CommandOutcome(f"{game_id}-{version}", 0, "fp", version + 1, version + 1)
            future = store.append_soon(game_id, version, [b"x"], outcome)
            version = await asyncio.wrap_future(future)
            # One write per acknowledgement, so the kill cannot split a line between writes.
            sys.stdout.write(f"{game_id} {version}\\n")
            sys.stdout.flush()

    async def main():
        await asyncio.gather(*(play(game_id) for game_id in games))

    asyncio.run(main())
    """
)


def _kill_mid_run(url: str) -> dict[str, int]:
    """Run the child on ``url``, SIGKILL it after some appends; its acknowledgements."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, url], stdout=subprocess.PIPE, text=True, env=env
    )
    assert child.stdout is not None
    acknowledged: dict[str, int] = {}
    try:
        assert child.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 60
        while len(acknowledged) < 32 or min(acknowledged.values()) < 6:
            assert time.monotonic() < deadline, "the child appended too slowly"
            game_id, version = child.stdout.readline().split()
            acknowledged[game_id] = int(version)
        os.kill(child.pid, signal.SIGKILL)  # while its writer commits the next groups
        for line in child.stdout:  # answered before the kill, read after it
            if not line.endswith("\n"):
                break  # cut off by the kill mid-write: that acknowledgement never arrived
            game_id, version = line.split()
            acknowledged[game_id] = max(acknowledged[game_id], int(version))
    finally:
        child.kill()
        child.wait(30)
    return acknowledged


def _check(store: EventStore, acknowledged: dict[str, int]) -> None:
    for game_id, version in acknowledged.items():
        found = store.version(game_id)
        assert found >= version, f"{game_id}: acknowledged {version}, stored {found}"
        assert [e.sequence for e in store.read(game_id)] == list(range(1, found + 1))
        assert len(store.commands(game_id)) == found - 1


def test_sqlite_keeps_every_acknowledged_append_after_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "kill.sqlite3"
    acknowledged = _kill_mid_run(f"sqlite:{path}")
    with SqliteEventStore(path) as store:
        _check(store, acknowledged)


def test_postgres_keeps_every_acknowledged_append_after_sigkill() -> None:
    from referee.store.postgres import PostgresEventStore

    with temporary_database() as url:
        acknowledged = _kill_mid_run(postgres_url(url))
        with PostgresEventStore(url, listen=False) as store:
            _check(store, acknowledged)
