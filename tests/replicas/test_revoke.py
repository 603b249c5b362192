"""Revoking an account's token as an operator does it, against two real ``referee serve``
replicas on one PostgreSQL database: a bot streams on one replica with its
token, the operator runs ``referee account revoke`` (its own process, straight on the store),
and both replicas refuse the token while the bot's stream ends UNAUTHENTICATED
``CREDENTIAL_REVOKED``; ``referee account rotate`` gives a token both accept."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.replicas.cluster import Replica
from tests.store.pg import postgres_url, temporary_database

#: Seconds a call or the stream's end may take (a hang guard, not a timing check).
TIMEOUT = 30.0


@pytest.fixture
def replicas(tmp_path: Path) -> Iterator[tuple[str, list[Replica]]]:
    with temporary_database() as url:
        store = postgres_url(url)
        started = [Replica(store, tmp_path, f"replica-{n}").start() for n in range(2)]
        try:
            yield store, started
        finally:
            for replica in started:
                replica.stop()


def _account(store: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", "account", *argv, "--store", store],
        capture_output=True,
        text=True,
        timeout=TIMEOUT * 2,
        check=False,
    )


def _who(replica: Replica, token: str) -> tuple[str, str]:
    """WhoAmI at ``replica``: ``("OK", name)`` or the refusal's ``(code, reason)``."""
    with grpc.insecure_channel(replica.address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        try:
            me = stub.WhoAmI(
                pb.WhoAmIRequest(), metadata=[("authorization", f"Bearer {token}")], timeout=10
            )
        except grpc.RpcError as error:
            return _refusal(error)
        return "OK", me.player.name


def _refusal(error: grpc.RpcError) -> tuple[str, str]:
    call: Any = error
    status = rpc_status.from_call(call)
    reason = ""
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
    return call.code().name, reason


def test_the_operator_revokes_a_token_that_streams_on_another_replica(
    replicas: tuple[str, list[Replica]],
) -> None:
    store, (first, second) = replicas
    created = _account(store, "create", "bo", "--bot")
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip()
    assert _who(first, token) == ("OK", "bo") == _who(second, token)

    ended: list[tuple[str, str]] = []
    opened = threading.Event()
    channel = grpc.insecure_channel(second.address)
    stub = pb_grpc.RefereeServiceStub(channel)
    as_bo = [("authorization", f"Bearer {token}")]
    # A game bo holds a seat of, so its stream says something as it opens.
    game = stub.CreateGame(
        pb.CreateGameRequest(
            game_type="dracula-vs-van-helsing",
            players=2,
            seat_requests=[
                pb.SeatRequest(mode=pb.SEAT_MODE_CREATOR),
                pb.SeatRequest(mode=pb.SEAT_MODE_OPEN),
            ],
        ),
        metadata=as_bo,
        timeout=TIMEOUT,
    )
    code = game.invitations[0].claim_code
    stub.ClaimSeat(pb.ClaimSeatRequest(game_id=game.game_id, claim_code=code), timeout=TIMEOUT)
    stream = stub.WatchPlayer(pb.WatchPlayerRequest(), metadata=as_bo, timeout=TIMEOUT)

    def read() -> None:
        try:
            for _ in stream:
                opened.set()
        except grpc.RpcError as error:
            ended.append(_refusal(error))

    reader = threading.Thread(target=read)
    reader.start()
    assert opened.wait(TIMEOUT), "the stream said nothing"
    revoked = _account(store, "revoke", "bo")
    assert revoked.returncode == 0, revoked.stderr
    assert revoked.stdout == "" and token not in revoked.stderr
    reader.join(TIMEOUT)
    channel.close()
    assert ended == [("UNAUTHENTICATED", "CREDENTIAL_REVOKED")]
    for replica in (first, second):
        assert _who(replica, token) == ("UNAUTHENTICATED", "CREDENTIAL_REVOKED")

    rotated = _account(store, "rotate", "bo")
    assert rotated.returncode == 0, rotated.stderr
    fresh = rotated.stdout.strip()
    deadline = time.monotonic() + TIMEOUT
    while _who(first, fresh) != ("OK", "bo") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _who(first, fresh) == ("OK", "bo") == _who(second, fresh)
    for replica in (first, second):
        log = replica.log_path.read_text()
        assert token not in log and fresh not in log, "a token in a replica's log"
