"""Group commit in the durable stores: appends of many games queued while a commit
is in flight go to the database in one transaction, each answered on its own.

The writer thread is held in a listener (listeners run in it, after a commit and before the
append is answered), so the appends made meanwhile queue up exactly as the server's games'
appends do while the database commits.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

import pytest

from referee.store import (
    DuplicateCommand,
    EventStore,
    GameNotFound,
    SqliteEventStore,
    StoreUnavailable,
    VersionConflict,
)
from referee.store.group import GroupWriter
from tests.store.pg import temporary_database
from tests.store.test_event_store import outcome, record

GAMES = 12


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EventStore]:
    if request.param == "sqlite":
        with SqliteEventStore(tmp_path / "g.sqlite3") as sqlite_store:
            yield sqlite_store
        return
    from referee.store.postgres import PostgresEventStore

    with temporary_database() as url, PostgresEventStore(url, listen=False) as pg_store:
        yield pg_store


def _writer(store: EventStore) -> GroupWriter:
    writer = getattr(store, "_writer", None)
    assert isinstance(writer, GroupWriter)
    return writer


class Held:
    """A listener that holds the writer thread in its first call until :meth:`release`."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self._release = threading.Event()

    def __call__(self, game_id: str, version: int) -> None:
        if not self.entered.is_set():
            self.entered.set()
            assert self._release.wait(30)

    def release(self) -> None:
        self._release.set()


def test_appends_queued_during_a_commit_share_one_and_are_answered_each(
    store: EventStore,
) -> None:
    for index in range(GAMES):
        store.create_game(record(f"g{index}"), [b"e1"])
    writer = _writer(store)
    held = Held()
    store.add_listener(held)
    first = store.append_soon("g0", 1, [b"e2"], outcome("c0", 2, 2))
    assert held.entered.wait(30)
    queued: dict[str, Future[int]] = {
        f"g{i}": store.append_soon(f"g{i}", 1, [b"e2", b"e3"], outcome(f"c{i}", 2, 3))
        for i in range(1, GAMES - 2)
    }
    # In the same group: a stale version, a game that does not exist, and a second append
    # of a game already in it (which goes to the next group and sees the first's outcome).
    stale = store.append_soon(f"g{GAMES - 2}", 0, [b"late"])
    missing = store.append_soon("nope", 0, [b"x"])
    again = store.append_soon("g1", 3, [b"e4"], outcome("g1-next", 4, 4))
    assert not first.done(), "answered before its listeners ran"
    groups = writer.groups
    held.release()
    assert first.result(30) == 2
    for future in queued.values():
        assert future.result(30) == 3
    with pytest.raises(VersionConflict):
        stale.result(30)
    with pytest.raises(GameNotFound):
        missing.result(30)
    assert again.result(30) == 4
    # g0's commit, then everything queued meanwhile but g1's second append, then that one.
    assert writer.groups == groups + 2
    for game_id in queued:
        tail = [b"e4"] if game_id == "g1" else []
        assert [e.payload for e in store.read(game_id)] == [b"e1", b"e2", b"e3", *tail]
    assert store.version(f"g{GAMES - 2}") == 1 and store.commands(f"g{GAMES - 2}") == []


def test_a_recorded_command_in_a_group_is_refused_alone(store: EventStore) -> None:
    for index in range(3):
        store.create_game(record(f"g{index}"), [b"e1"])
    recorded = store.append("g0", 1, [b"e2"], outcome("c0", 2, 2))
    held = Held()
    store.add_listener(held)
    blocker = store.append_soon("g2", 1, [b"e2"])
    assert held.entered.wait(30)
    retry = store.append_soon("g0", 1, [b"e2"], outcome("c0", 2, 2))  # a client's retry
    other = store.append_soon("g1", 1, [b"e2"], outcome("c0", 2, 2))  # same id, other game
    held.release()
    assert blocker.result(30) == 2 and recorded == 2
    with pytest.raises(DuplicateCommand) as duplicate:
        retry.result(30)
    assert duplicate.value.outcome == store.find_command("g0", "c0")
    assert other.result(30) == 2
    assert store.version("g0") == 2 and len(store.read("g0")) == 2


def test_a_fault_fails_every_member_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "fault.sqlite3"
    with SqliteEventStore(path, wait=0.2) as store:
        for index in range(4):
            store.create_game(record(f"g{index}"), [b"e1"])
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            futures = [
                store.append_soon(f"g{i}", 1, [b"e2"], outcome(f"c{i}", 2, 2)) for i in range(4)
            ]
            for future in futures:
                with pytest.raises(StoreUnavailable) as raised:
                    future.result(30)
                assert raised.value.retry_after > 0 and not raised.value.uncertain
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert [store.version(f"g{i}") for i in range(4)] == [1] * 4
        for index in range(4):  # the retries apply, once
            assert store.append(f"g{index}", 1, [b"e2"], outcome(f"c{index}", 2, 2)) == 2


def test_a_member_the_database_refuses_fails_alone() -> None:
    """A command id PostgreSQL cannot store (a NUL character) fails its own append only: the
    group is retried member by member."""
    from referee.store.postgres import PostgresEventStore

    with temporary_database() as url, PostgresEventStore(url, listen=False) as store:
        for index in range(3):
            store.create_game(record(f"g{index}"), [b"e1"])
        held = Held()
        store.add_listener(held)
        blocker = store.append_soon("g0", 1, [b"e2"])
        assert held.entered.wait(30)
        good = store.append_soon("g1", 1, [b"e2"], outcome("fine", 2, 2))
        bad = store.append_soon("g2", 1, [b"e2"], outcome("bad\x00id", 2, 2))
        held.release()
        assert blocker.result(30) == 2 and good.result(30) == 2
        with pytest.raises(Exception) as raised:
            bad.result(30)
        assert not isinstance(raised.value, StoreUnavailable)
        assert store.version("g2") == 1 and store.version("g1") == 2


def test_closing_commits_what_is_queued(tmp_path: Path) -> None:
    path = tmp_path / "close.sqlite3"
    store = SqliteEventStore(path)
    for index in range(GAMES):
        store.create_game(record(f"g{index}"), [b"e1"])
    queued = [store.append_soon(f"g{i}", 1, [b"e2"]) for i in range(GAMES)]
    store.close()
    assert [future.result(30) for future in queued] == [2] * GAMES
    with pytest.raises(RuntimeError):
        store.append_soon("g1", 2, [b"e3"])
    with SqliteEventStore(path) as reopened:
        assert [reopened.version(f"g{i}") for i in range(GAMES)] == [2] * GAMES
