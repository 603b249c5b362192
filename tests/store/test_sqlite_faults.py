"""SQLite faults under a real server on gRPC: the file's write lock held by another
connection, and a full database. Each call that meets one answers UNAVAILABLE with a
``RetryInfo`` within about ``--store-wait-seconds`` (not after SQLite's own busy timeout, never as
UNKNOWN); once the fault is gone, the same command id applies once.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee.server.app import RefereeServer, running_server
from referee.store import SqliteEventStore, StoreUnavailable
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.store.faults import DEADLINE, Fault, fault_of
from tests.store.test_event_store import outcome, record

WAIT = 0.5


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[RefereeServer, pb_grpc.RefereeServiceStub, Path]]:
    path = tmp_path / "referee.sqlite3"
    with (
        running_server(f"sqlite:{path}", store_wait=WAIT) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        yield server, pb_grpc.RefereeServiceStub(channel), path


def _game(stub: pb_grpc.RefereeServiceStub) -> tuple[str, list[str]]:
    created = stub.CreateGame(
        pb.CreateGameRequest(game_type="sleeping-queens", players=2), timeout=DEADLINE
    )
    return created.game_id, [s.token for s in sorted(created.seats, key=lambda s: s.seat)]


def _next_command(
    stub: pb_grpc.RefereeServiceStub, game_id: str, tokens: list[str]
) -> pb.SubmitCommandRequest:
    game = stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=DEADLINE).game
    seat = game.pending_seats[0]
    view = stub.GetView(
        pb.GetViewRequest(game_id=game_id, seat_token=tokens[seat]), timeout=DEADLINE
    ).view
    return pb.SubmitCommandRequest(
        game_id=game_id,
        seat_token=tokens[seat],
        command_id=uuid.uuid4().hex,
        command=view.legal_commands[0],
    )


def _fails(method: object, request: object) -> Fault:
    started = time.monotonic()
    try:
        method(request, timeout=DEADLINE)  # type: ignore[operator]
    except grpc.RpcError as error:
        return fault_of("call", error, time.monotonic() - started)
    raise AssertionError("the call succeeded during the fault")


def _assert_unavailable(fault: Fault) -> None:
    assert fault.code is grpc.StatusCode.UNAVAILABLE, fault
    assert fault.retry_delay is not None and fault.retry_delay > 0, fault
    # A hang guard, not a speed check: SQLite's busy timeout used to be 10 s.
    assert fault.seconds < WAIT + 5, fault


def test_a_write_lock_held_elsewhere_is_unavailable_then_the_retry_applies_once(
    served: tuple[RefereeServer, pb_grpc.RefereeServiceStub, Path],
) -> None:
    _, stub, path = served
    game_id, tokens = _game(stub)
    request = _next_command(stub, game_id, tokens)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # a backup tool, a second process: holds the lock
        _assert_unavailable(_fails(stub.SubmitCommand, request))
        _assert_unavailable(
            _fails(stub.CreateGame, pb.CreateGameRequest(game_type="sleeping-queens", players=2))
        )
        # Reads go on (WAL): the lock blocks writers only.
        assert stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=DEADLINE).game
    finally:
        other.execute("ROLLBACK")
        other.close()
    answer = stub.SubmitCommand(request, timeout=DEADLINE)
    assert not answer.duplicate, "the failed attempt was not applied"
    again = stub.SubmitCommand(request, timeout=DEADLINE)
    assert again.duplicate and again.first_sequence == answer.first_sequence


def test_a_full_database_is_unavailable_then_the_retry_applies_once(
    served: tuple[RefereeServer, pb_grpc.RefereeServiceStub, Path],
) -> None:
    server, stub, _ = served
    game_id, tokens = _game(stub)
    store = server.referee.store
    assert isinstance(store, SqliteEventStore)

    def limit_pages(extra: int) -> None:
        # max_page_count is a setting of the connection: set on the server's own.
        with store._locked() as conn:
            (pages,) = conn.execute("PRAGMA page_count").fetchone()
            conn.execute(f"PRAGMA max_page_count = {pages + extra}")

    limit_pages(0)
    fault = None
    for _ in range(200):  # commands until one needs a page the file may not grow by
        request = _next_command(stub, game_id, tokens)
        try:
            stub.SubmitCommand(request, timeout=DEADLINE)
        except grpc.RpcError as error:
            fault = fault_of("SubmitCommand", error, 0.0)
            break
    assert fault is not None, "the database never filled up"
    _assert_unavailable(fault)
    version = stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=DEADLINE).game.version
    limit_pages(1000)  # space freed
    answer = stub.SubmitCommand(request, timeout=DEADLINE)
    assert not answer.duplicate and answer.first_sequence == version + 1


def test_the_sqlite_store_raises_store_unavailable_within_its_wait(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with SqliteEventStore(path, wait=0.2) as store:
        store.create_game(record(), [b"a"])
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StoreUnavailable) as raised:
                store.append("g1", 1, [b"b"], outcome("c1", 2, 2))
            assert raised.value.retry_after > 0 and not raised.value.uncertain
            assert "SQLITE_BUSY" in str(raised.value)
            assert store.read("g1") and store.version("g1") == 1
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert store.append("g1", 1, [b"b"], outcome("c1", 2, 2)) == 2


def test_calls_queued_behind_a_held_lock_do_not_each_wait_the_whole_wait(
    served: tuple[RefereeServer, pb_grpc.RefereeServiceStub, Path],
) -> None:
    """The server makes store calls one at a time: ten commands waiting for a lock held
    elsewhere used to answer after 1, 2, ... 10 waits. Once a wait has run out, the next
    ones wait briefly, so every one answers within a few waits."""
    _, stub, path = served
    requests = []
    for _ in range(10):
        game_id, tokens = _game(stub)
        requests.append(_next_command(stub, game_id, tokens))
    other = sqlite3.connect(path, isolation_level=None)
    faults: list[Fault] = []
    try:
        other.execute("BEGIN IMMEDIATE")
        threads = [
            threading.Thread(target=lambda r=r: faults.append(_fails(stub.SubmitCommand, r)))
            for r in requests
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(DEADLINE)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert len(faults) == 10
    for fault in faults:
        assert fault.code is grpc.StatusCode.UNAVAILABLE, fault
    slowest = max(fault.seconds for fault in faults)
    assert slowest < 5 * WAIT, f"a queued call answered after {slowest:.1f} s"
    for request in requests:  # the lock is free again: each applies, once
        assert not stub.SubmitCommand(request, timeout=DEADLINE).duplicate
