"""``referee serve`` with the players' flags, as an operator runs it: open registration and a
platform's key reach the server, and no account or platform token (nor any part of one)
reaches its log, at the debug level, or its metrics, refusals and replaced tokens included."""

from __future__ import annotations

import base64
import hashlib
import urllib.request
from pathlib import Path

import grpc
import pytest

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.application.players_support import Platform
from tests.server.test_ops import Served, log_records


def _forms(token: str) -> list[str]:
    """The ways a log line could carry a token: whole, without its prefix, each JWT part,
    base64 of it."""
    forms = [token, token.removeprefix("acct-"), base64.b64encode(token.encode()).decode()]
    forms.append(hashlib.sha256(token.encode()).hexdigest())  # what the store keeps
    forms += [part for part in token.split(".") if len(part) >= 16]
    return forms


def test_no_token_reaches_the_log_or_the_metrics(tmp_path: Path) -> None:
    platform = Platform.new("ES256")
    key = tmp_path / "platform.pem"
    key.write_bytes(platform.public_pem)
    process = Served(
        "--log-level",
        "debug",
        "--open-registration",
        "--platform-key",
        str(key),
        "--platform-audience",
        "referee",
        "--player-calls-per-minute",
        "5",
    )
    tokens: list[str] = []
    try:
        with grpc.insecure_channel(process.address) as channel:
            stub = pb_grpc.RefereeServiceStub(channel)
            registered = stub.Register(pb.RegisterRequest(name="ada", kind=pb.PLAYER_KIND_BOT))
            tokens.append(registered.token)
            signed = platform.token("bea", aud="referee")
            tokens.append(signed)
            expired = platform.token("cy", aud="referee", iat=1, exp=2)
            tokens.append(expired)
            for credential, code in [
                (registered.token, grpc.StatusCode.OK),
                (signed, grpc.StatusCode.OK),
                (expired, grpc.StatusCode.UNAUTHENTICATED),
                (registered.token[:-2] + "xx", grpc.StatusCode.UNAUTHENTICATED),
                (Platform.new("ES256").token(aud="referee"), grpc.StatusCode.UNAUTHENTICATED),
            ]:
                tokens.append(credential)
                try:
                    stub.WhoAmI(
                        pb.WhoAmIRequest(),
                        metadata=[("authorization", f"Bearer {credential}")],
                        timeout=10,
                    )
                    got = grpc.StatusCode.OK
                except grpc.RpcError as error:
                    failure: grpc.Call = error  # type: ignore[assignment]
                    got = failure.code()
                assert got is code
            for _ in range(6):  # past the calls per minute: RESOURCE_EXHAUSTED
                try:
                    stub.WhoAmI(
                        pb.WhoAmIRequest(),
                        metadata=[("authorization", f"Bearer {registered.token}")],
                        timeout=10,
                    )
                except grpc.RpcError as error:
                    exhausted: grpc.Call = error  # type: ignore[assignment]
                    assert exhausted.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
                    break
            else:
                pytest.fail("the calls per minute were not limited")
            # A replaced token, and its replacement: in no log line either.
            bo = stub.Register(pb.RegisterRequest(name="bo"))
            as_bo = [("authorization", f"Bearer {bo.token}")]
            rotated = stub.RotateToken(pb.RotateTokenRequest(), metadata=as_bo, timeout=10)
            tokens += [bo.token, rotated.token]
            with pytest.raises(grpc.RpcError) as caught:
                stub.WhoAmI(pb.WhoAmIRequest(), metadata=as_bo, timeout=10)
            assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED  # type: ignore[attr-defined]
            with pytest.raises(grpc.RpcError) as caught:
                stub.Register(pb.RegisterRequest(name="ada"))
            assert caught.value.code() is grpc.StatusCode.FAILED_PRECONDITION  # type: ignore[attr-defined]
        url = f"http://127.0.0.1:{process.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            metrics = response.read().decode()
    finally:
        code, _ = process.stop()
    assert code == 0
    records, other = log_records(process.lines)
    assert other == []
    assert any(r.get("event") == "account_created" and r.get("player") == "ada" for r in records)
    assert any(
        r.get("event") == "account_token_rotated" and r.get("player") == "bo" for r in records
    )
    text = "".join(process.lines)
    assert 'method="WhoAmI"' in metrics
    for token in tokens:
        for form in _forms(token):
            assert form not in text, "a token in the log"
            assert form not in metrics, "a token in the metrics"
