"""Scenario files against a live referee over gRPC (``referee scenario run --server``): a real
server on an ephemeral port, real seat tokens, streams and ``google.rpc`` error details."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from referee.scenario import main, run_scenario
from referee.scenario.drivers import Driver
from referee.scenario.model import SCENARIO_SUFFIXES
from referee.scenario.remote import ServerDriver, refusal
from referee.server.app import RefereeServer
from tests.scenario.helpers import DV_HEADER, VQ_HEADER, write

SHIPPED = Path(__file__).resolve().parents[2] / "scenarios"
FILES = sorted(p for p in SHIPPED.rglob("*") if p.suffix in SCENARIO_SUFFIXES)


def over(server: RefereeServer) -> Any:
    def factory() -> Driver:
        return ServerDriver(server.address)

    return factory


def test_wrong_expectations_fail_over_grpc(server: RefereeServer, tmp_path: Path) -> None:
    body = """\
        steps:
          - seat: 2
            command: {vampireQueen: {pass: {}}}
            expect: {code: FAILED_PRECONDITION, rule: VQ-7}
          - seat: 1
            command: {vampireQueen: {playSet: {value: 5, count: 2}}}
            events: {as: 0, match: [{vampireQueen: {setPlayed: {seat: 1, count: 3}}}]}
            view: {seat: spectator, match: {gameId: scenario}}
        """
    result = run_scenario(write(tmp_path, body, VQ_HEADER), over(server), keep_going=True)
    described = [failure.describe() for failure in result.failures]
    assert len(described) == 3, described
    assert described[0].startswith(
        "steps[0] (line 10): expected FAILED_PRECONDITION VQ-7, got FAILED_PRECONDITION VQ-6: "
        "seat 2 has no decision to make"
    )
    assert (
        "events as seat 0: at [0].vampireQueen.setPlayed.count: expected 3, got 2" in (described[1])
    )
    # What is checked is the server's own view (its game id), as the spectator's stream had it.
    assert 'view of the spectator: at gameId: expected "scenario", got "' in described[2]


def test_a_seat_outside_the_table_has_no_token(server: RefereeServer, tmp_path: Path) -> None:
    body = """\
        steps:
          - seat: 5
            command: {vampireQueen: {pass: {}}}
            expect: {code: [FAILED_PRECONDITION, PERMISSION_DENIED]}
        """
    path = write(tmp_path, body, VQ_HEADER)
    assert run_scenario(path).ok  # in-process: the same referee, the same PERMISSION_DENIED
    assert run_scenario(path, over(server)).ok  # the server: PERMISSION_DENIED


def test_setup_refused_over_grpc(server: RefereeServer, tmp_path: Path) -> None:
    header = "game: dracula-vs-van-helsing\nplayers: 3\n"
    body = "expect_setup: {code: INVALID_ARGUMENT, message: '%s'}\nsteps: []\n"
    assert run_scenario(write(tmp_path, body % "2 to 2 players", header), over(server)).ok
    result = run_scenario(write(tmp_path, body % "4 players", header), over(server))
    assert "expect_setup: expected INVALID_ARGUMENT (message containing '4 players')" in (
        result.line()
    )


def test_main_with_server(
    server: RefereeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(
        tmp_path,
        "steps: [{seat: 0, command: {draculaVsVanHelsing: {draw: {}}}}]\n",
        DV_HEADER,
        name="good.yaml",
    )
    bad = write(
        tmp_path,
        "steps: [{seat: 1, command: {draculaVsVanHelsing: {draw: {}}}}]\n",
        DV_HEADER,
        name="bad.yaml",
    )
    junit = tmp_path / "junit.xml"
    code = main(["--server", server.address, "--junit", str(junit), str(good), str(bad)])
    assert code == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"ok  {good}  (1 steps)"
    assert lines[1].startswith(
        f"FAIL  {bad}  steps[0] (line 8): expected ok, got FAILED_PRECONDITION DV-7: seat 1 has"
    )
    assert f"server {server.address}" in junit.read_text(encoding="utf-8")


class _Refused(grpc.RpcError):
    """A refused call as a client sees it: a code, a message, and trailing metadata."""

    def __init__(self, status: status_pb2.Status | None, code: grpc.StatusCode) -> None:
        self._status = status
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._status.message if self._status else "bare"

    def trailing_metadata(self) -> Any:
        if self._status is None:
            return ()
        return rpc_status.to_status(self._status).trailing_metadata


def _status(code: int, *details: Any) -> status_pb2.Status:
    packed = []
    for detail in details:
        item = any_pb2.Any()
        item.Pack(detail)
        packed.append(item)
    return status_pb2.Status(code=code, message="VQ-7: no", details=packed)


INFO = error_details_pb2.ErrorInfo(
    reason="RULE_VIOLATION", domain="referee.v1", metadata={"rule_id": "VQ-7"}
)


@pytest.mark.parametrize(
    ("status", "code", "problem"),
    [
        (None, grpc.StatusCode.INVALID_ARGUMENT, "the status carries no google.rpc details"),
        (
            _status(code_pb2.INVALID_ARGUMENT),
            grpc.StatusCode.INVALID_ARGUMENT,
            "the status has no google.rpc.ErrorInfo of domain referee.v1",
        ),
        (
            _status(code_pb2.FAILED_PRECONDITION, INFO),
            grpc.StatusCode.FAILED_PRECONDITION,
            "FAILED_PRECONDITION without a google.rpc.PreconditionFailure",
        ),
        (
            _status(
                code_pb2.INVALID_ARGUMENT,
                error_details_pb2.ErrorInfo(reason="BAD_REQUEST", domain="referee.v1"),
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT with neither a rule id nor a google.rpc.BadRequest",
        ),
        (_status(code_pb2.INVALID_ARGUMENT, INFO), grpc.StatusCode.INVALID_ARGUMENT, None),
    ],
)
def test_refusals_must_carry_their_details(
    status: status_pb2.Status | None, code: grpc.StatusCode, problem: str | None
) -> None:
    outcome = refusal(_Refused(status, code))
    assert outcome.code == code.name
    assert outcome.problem == problem
    if problem is None:
        assert outcome.rule == "VQ-7" and outcome.message == "no"
