"""PostgreSQL faults under a real ``referee serve``, as an operator meets them.

While clients play (retrying UNAVAILABLE as docs/clients.md says), the test terminates the
referee's database connections again and again (``pg_terminate_backend``), then refuses new
connections for a while (``ALLOW_CONNECTIONS false``). Every failed call must be UNAVAILABLE
with a ``RetryInfo``, answered within a few store waits (not psycopg's 30 s), every command
retried by its id must end applied once with the outcome the store recorded, every line the
server writes must be a JSON log line, and a 400 ms clock must stay within its documented
lateness after each fault.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc
import pytest

from referee.application.tables.timekeeper import FAULT_RETRY_SECONDS
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.test_ops import Served, log_records
from tests.store.faults import Fault, Player, create, play_all
from tests.store.pg import postgres_url, temporary_database

#: --store-wait-seconds of the server under test.
WAIT = 1.0
#: The clock of the clocked game.
DECISION_MS = 400
#: How long the connections are refused in the second phase.
OUTAGE = 3.0


@dataclass
class Run:
    faults: list[Fault] = field(default_factory=list)
    players: list[Player] = field(default_factory=list)
    terminated: int = 0
    #: (decision_ms of each timeout, unix ms it was recorded) in the terminating phase.
    timeouts: list[tuple[int, int]] = field(default_factory=list)
    #: Unix ms connections were allowed again, and the first timeout recorded after it.
    recovered_ms: int = 0
    first_timeout_after_ms: int = 0
    records: list[dict[str, object]] = field(default_factory=list)
    other_lines: list[str] = field(default_factory=list)
    stored: dict[str, tuple[int, int]] = field(default_factory=dict)


def _terminate(admin: object, database: str) -> int:
    rows = admin.execute(  # type: ignore[attr-defined]
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE datname = %s AND pid <> pg_backend_pid()",
        (database,),
    ).fetchall()
    return len(rows)


def _timeouts(stub: pb_grpc.RefereeServiceStub, game_id: str) -> list[tuple[int, int]]:
    stream = stub.StreamGame(
        pb.StreamGameRequest(game_id=game_id, spectator=True, batched=False), timeout=30
    )
    found = []
    version = stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=20).game.version
    for message in stream:
        event = message.event
        if event.HasField("referee") and event.referee.WhichOneof("kind") == "timed_out":
            assert event.decided.by == pb.DECIDED_BY_TIMEOUT
            found.append((event.decided.decision_ms, event.recorded_unix_ms))
        if event.sequence >= version:
            stream.cancel()
            break
    return found


@pytest.fixture(scope="module")
def run() -> Iterator[Run]:
    import psycopg

    result = Run()
    with temporary_database() as url:
        database = postgres_url(url).rsplit("/", 1)[1]
        served = Served(
            "--store",
            postgres_url(url),
            "--store-wait-seconds",
            str(WAIT),
            "--log-level",
            "debug",
        )
        admin = psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True)
        try:
            with grpc.insecure_channel(served.address) as channel:
                stub = pb_grpc.RefereeServiceStub(channel)
                clocked, _ = create(
                    stub,
                    pb.CreateGameRequest(
                        game_type="vampire-queen",
                        players=3,
                        options={"rounds": "20"},
                        clock=pb.ClockSettings(decision_ms=DECISION_MS),
                        # Nobody plays it: its clocks must start at once, not after the
                        # default grace for a seat's first call (30 s, past this run).
                        connect_grace_ms=1,
                    ),
                )
                for index in range(4):
                    game_id, tokens = create(
                        stub,
                        pb.CreateGameRequest(game_type="sleeping-queens", players=3, options={}),
                    )
                    result.players.append(Player(stub, game_id, tokens, random.Random(index)))
                threads = play_all(result.players)
                # Phase 1: the referee's connections terminated every 50-300 ms for 6 s.
                rng = random.Random(24)
                end = time.monotonic() + 6.0
                while time.monotonic() < end:
                    result.terminated += _terminate(admin, database)
                    time.sleep(rng.uniform(0.05, 0.3))
                time.sleep(1.0)
                result.timeouts = _timeouts(stub, clocked)
                # Phase 2: no connection at all for OUTAGE seconds, then back.
                admin.execute(f'ALTER DATABASE "{database}" WITH ALLOW_CONNECTIONS false')
                result.terminated += _terminate(admin, database)
                time.sleep(OUTAGE)
                admin.execute(f'ALTER DATABASE "{database}" WITH ALLOW_CONNECTIONS true')
                result.recovered_ms = int(time.time() * 1000)
                for thread in threads:
                    thread.join(180)
                time.sleep(2 * DECISION_MS / 1000 + WAIT)
                after = [at for _, at in _timeouts(stub, clocked) if at >= result.recovered_ms]
                result.first_timeout_after_ms = min(after, default=0)
            with psycopg.connect(url, autocommit=True) as conn:
                rows = conn.execute(
                    "SELECT command_id, first_sequence, last_sequence FROM commands"
                ).fetchall()
            result.stored = {str(c): (int(f), int(last)) for c, f, last in rows}
        finally:
            admin.execute(f'ALTER DATABASE "{database}" WITH ALLOW_CONNECTIONS true')
            admin.close()
            served.stop()
        result.records, result.other_lines = log_records(served.lines)
        result.faults = [f for p in result.players for f in p.faults]
    yield result


def test_every_store_fault_is_unavailable_with_a_retry_hint_and_answered_soon(run: Run) -> None:
    assert run.terminated > 10, "the faults did not happen"
    assert run.faults, "no call failed: the test did not reach the store faults"
    wrong = [f for f in run.faults if f.code is not grpc.StatusCode.UNAVAILABLE]
    assert not wrong, f"{len(wrong)} faults were not UNAVAILABLE, e.g. {wrong[:3]}"
    hintless = [f for f in run.faults if f.retry_delay is None]
    assert not hintless, f"{len(hintless)} UNAVAILABLE without RetryInfo, e.g. {hintless[:3]}"
    # A hang guard, not a speed check: psycopg's default wait was 30 s; the server's is 1 s.
    slow = [f for f in run.faults if f.seconds > 3 * WAIT + 1]
    assert not slow, f"{len(slow)} faults took more than a few store waits: {slow[:3]}"


def test_every_command_retried_by_its_id_applied_once_with_the_recorded_outcome(run: Run) -> None:
    for player in run.players:
        assert player.error is None, repr(player.error)
    answered = {c: o for p in run.players for c, o in p.outcomes.items()}
    assert len(answered) > 20
    for command_id, outcome in answered.items():
        assert run.stored.get(command_id) == outcome, (command_id, outcome)


def test_the_server_writes_only_json_log_lines_under_store_faults(run: Run) -> None:
    assert not run.other_lines, "non-JSON lines on stderr:\n" + "\n".join(run.other_lines[:10])
    events = {str(r.get("event")) for r in run.records}
    assert "store_unavailable" in events, sorted(events)


def test_a_clock_stays_within_its_lateness_bound_after_store_faults(run: Run) -> None:
    # docs/operations.md: an overdue decision times out at most one store wait plus the
    # fault retry after the store answers again (and scheduling slack on a busy machine).
    bound_ms = (WAIT + FAULT_RETRY_SECONDS) * 1000 + 500
    assert run.timeouts, "the clocked game never timed out"
    late = [ms - DECISION_MS for ms, _ in run.timeouts]
    assert max(late) <= bound_ms, sorted(late)[-5:]
    assert run.first_timeout_after_ms, "no timeout after the store came back"
    assert run.first_timeout_after_ms - run.recovered_ms <= bound_ms + DECISION_MS
