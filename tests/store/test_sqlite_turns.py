"""The SQLite store's calls queue for their turn at the connection (a long queue on a loaded
machine is not a fault, so it must not end in ``UNAVAILABLE``, "no turn within 2 s"): a call
waits while the queue moves, in the order the calls asked, and fails with ``StoreUnavailable``
(a retry hint) only when the turn it waits behind is stuck."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from referee.store import SqliteEventStore, StoreUnavailable, sqlite_documents
from referee.store.base import DocumentWrite
from referee.store.turns import Turns
from tests.store.test_event_store import record

#: The store's wait in the queue test, and how long each call there holds its turn: eight
#: calls queue for 8 x HOLD, twice WAIT, while a turn passes every HOLD, a quarter of it.
WAIT = 1.0
HOLD = 0.25
CALLS = 8


def test_calls_queued_for_longer_than_the_wait_all_succeed_while_the_queue_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight creations at once, each holding the connection a quarter of the wait (a slow
    machine, a long transaction): the last waits two whole waits for its turn. Before, every
    call still waiting after one wait failed "busy (no turn within 1 s)"."""
    write = sqlite_documents.write

    def slow_write(conn: object, writes: Sequence[DocumentWrite]) -> object:
        time.sleep(HOLD)  # inside the creation's transaction: the turn lasts HOLD at least
        return write(conn, writes)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite_documents, "write", slow_write)
    failed: list[BaseException] = []
    with SqliteEventStore(tmp_path / "s.sqlite3", wait=WAIT) as store:

        def create(index: int) -> None:
            try:
                store.create_game(dataclasses.replace(record(), game_id=f"g{index}"), [b"a"])
            except StoreUnavailable as fault:
                failed.append(fault)

        threads = [threading.Thread(target=create, args=(i,)) for i in range(CALLS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failed == []
        assert [store.version(f"g{i}") for i in range(CALLS)] == [1] * CALLS


def _queue_up(turns: Turns, count: int, order: list[int]) -> list[threading.Thread]:
    """``count`` threads waiting for a turn, queued in the order of their index."""

    def take(index: int) -> None:
        if turns.take():
            order.append(index)
            turns.give()

    threads = []
    for index in range(count):
        thread = threading.Thread(target=take, args=(index,))
        thread.start()
        while turns.queued < index + 1:  # queued before the next one asks
            time.sleep(0.001)
        threads.append(thread)
    return threads


def test_turns_are_taken_in_the_order_asked() -> None:
    """No barging: a call that asked first has its turn first (a lock handed to whichever
    thread woke first let a waiter be passed over until its wait ran out)."""
    turns = Turns(stall=60.0)
    order: list[int] = []
    assert turns.take()
    threads = _queue_up(turns, 5, order)
    turns.give()
    for thread in threads:
        thread.join()
    assert order == [0, 1, 2, 3, 4]
    assert turns.turns == 6 and turns.queued == 0


def test_a_stuck_turn_fails_the_queue_and_leaves_it_empty() -> None:
    """A turn that never ends: the calls behind it give up (the store answers UNAVAILABLE
    with a retry hint) and leave the queue, and the next call after the turn is free."""
    turns = Turns(stall=0.05)
    assert turns.take()
    answers: list[bool] = []
    waiting = [threading.Thread(target=lambda: answers.append(turns.take())) for _ in range(3)]
    for thread in waiting:
        thread.start()
    for thread in waiting:
        thread.join()
    assert answers == [False, False, False] and turns.queued == 0
    turns.give()
    assert turns.take()


def test_a_stuck_store_is_unavailable_with_a_retry_hint(tmp_path: Path) -> None:
    with SqliteEventStore(tmp_path / "s.sqlite3", wait=0.05) as store:
        store.create_game(record(), [b"a"])
        assert store._turns.take()  # a call that holds the connection and never ends
        try:
            with pytest.raises(StoreUnavailable) as raised:
                store.version("g1")
            assert raised.value.retry_after > 0 and "stuck" in str(raised.value)
        finally:
            store._turns.give()
        assert store.version("g1") == 1
