"""A black-holed PostgreSQL: its connections stay open and nothing comes back.

A TCP relay of the test's own sits between the referee and a real PostgreSQL; pausing it
forwards nothing either way and makes no new connection upstream, while every connection
stays open (as a network path that drops packets, or a database host that froze). A store
call must then fail UNAVAILABLE within the store wait (plus scheduling slack), not wait out
the pause; once the relay forwards again the service must recover by itself, and every
command a client was told was applied must be in the database.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator

import grpc
import pytest

from referee.server.app import running_server
from referee.store import StoreUnavailable
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.store.faults import Player, create
from tests.store.pg import postgres_url, temporary_database
from tests.store.relay import CuttingRelay, relayed_url, upstream_of
from tests.store.test_event_store import record

#: --store-wait-seconds of the store under test.
WAIT = 1.0
#: How long the store is black-holed: well past any bound below, so a call that waits out
#: the pause fails the test.
PAUSE = 6.0
#: A call answers within one wait for a connection and one for a statement's answer, plus
#: scheduling slack on a loaded machine.
BOUND = 2 * WAIT + 1.0


@pytest.fixture
def relayed() -> Iterator[tuple[CuttingRelay, str, str]]:
    """(the relay, the store's URL through it, the direct URL)."""
    with temporary_database() as url:
        direct = postgres_url(url)
        relay = CuttingRelay(upstream_of(direct))
        try:
            yield relay, relayed_url(direct, relay), direct
        finally:
            relay.resume()
            relay.close()


def _timed(call: object, *args: object) -> tuple[BaseException | None, float]:
    started = time.monotonic()
    try:
        call(*args)  # type: ignore[operator]
    except StoreUnavailable as fault:
        return fault, time.monotonic() - started
    return None, time.monotonic() - started


def test_a_black_holed_store_answers_unavailable_within_the_wait_and_recovers(
    relayed: tuple[CuttingRelay, str, str],
) -> None:
    from referee.store.postgres import PostgresEventStore

    relay, url, _ = relayed
    store = PostgresEventStore(url, wait=WAIT, listen=False)
    try:
        store.create_game(record("g1"), [b"e1"])
        relay.pause()
        # A hang guard: a call that waits out the pause then answers, and fails below.
        guard = threading.Timer(PAUSE, relay.resume)
        guard.start()
        for call, args in (
            (store.version, ("g1",)),
            (store.read, ("g1",)),
            (store.append, ("g1", 1, [b"e2"])),
            (store.list_games, ()),
        ):
            fault, seconds = _timed(call, *args)
            assert isinstance(fault, StoreUnavailable), (call, fault)
            assert seconds <= BOUND, (call, seconds)
        guard.cancel()
        relay.resume()
        deadline = time.monotonic() + 30
        while True:  # a hang guard: the pool reconnects within about a second
            try:
                version = store.version("g1")
                break
            except StoreUnavailable:
                assert time.monotonic() < deadline, "the store did not recover"
                time.sleep(0.1)
        # The append sent into the black hole was uncertain: it may have committed.
        assert version in (1, 2)
        assert store.append("g1", version, [b"e3"]) == version + 1
    finally:
        relay.resume()
        store.close()


def test_a_server_on_a_black_holed_store_answers_unavailable_and_loses_nothing(
    relayed: tuple[CuttingRelay, str, str],
) -> None:
    import psycopg

    relay, url, direct = relayed
    with (
        running_server(url, store_wait=WAIT) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        players = []
        for index in range(3):
            game_id, tokens = create(
                stub, pb.CreateGameRequest(game_type="sleeping-queens", players=3)
            )
            players.append(Player(stub, game_id, tokens, random.Random(index)))
        threads = [threading.Thread(target=p.play, args=(60,), daemon=True) for p in players]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        while sum(len(p.outcomes) for p in players) < 5:  # playing before the pause
            assert time.monotonic() < deadline, "the players did not get going"
            time.sleep(0.05)
        relay.pause()
        time.sleep(PAUSE)
        relay.resume()
        for thread in threads:
            thread.join(180)
        # The service serves again: a new game, and a command in it.
        game_id, tokens = create(stub, pb.CreateGameRequest(game_type="sleeping-queens", players=2))
        after = Player(stub, game_id, tokens, random.Random(9))
        after.play(3)
    with psycopg.connect(direct, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT command_id, first_sequence, last_sequence FROM commands"
        ).fetchall()
    stored = {str(c): (int(f), int(last)) for c, f, last in rows}

    for player in [*players, after]:
        assert player.error is None, repr(player.error)
    faults = [f for p in players for f in p.faults]
    assert faults, "no call failed: the calls waited out the black hole"
    wrong = [f for f in faults if f.code is not grpc.StatusCode.UNAVAILABLE]
    assert not wrong, f"{len(wrong)} faults were not UNAVAILABLE, e.g. {wrong[:3]}"
    assert all(f.retry_delay is not None for f in faults), faults
    slow = [f for f in faults if f.seconds > BOUND]
    assert not slow, f"{len(slow)} calls waited past the store wait: {slow[:3]}"
    answered = {c: o for p in [*players, after] for c, o in p.outcomes.items()}
    assert after.outcomes, "no command applied after the store came back"
    lost = {c: o for c, o in answered.items() if stored.get(c) != o}
    assert not lost, f"{len(lost)} acknowledged commands not stored as answered: {lost}"
