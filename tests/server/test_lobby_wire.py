"""The lobby, challenges and pairing over the wire: each call
over gRPC (``authorization`` metadata) and Connect (``Authorization`` header) on a real
server; refusals with their status code, ErrorInfo reason and details on both wires."""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import struct
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.application.players.accounts import PlayerSettings
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from tests.application.players_support import Platform
from tests.server.transports import OUTPUT, SERVICE, HttpTransport, WireError, _connect_failure

TIMEOUT = 20.0
WIRES = ("grpc", "connect")
DV = pb.GameTerms(game_type="dracula-vs-van-helsing", players=2)
_names = itertools.count()
PLATFORM = Platform.new("EdDSA")


class Wire:
    """One wire to a server, calling as a player: the credential goes in ``authorization``."""

    def __init__(self, name: str, server: RefereeServer) -> None:
        self.name = name
        self.server = server

    def call(self, method: str, request: Message, credential: str = "") -> Any:
        authorization = f"Bearer {credential}" if credential else None
        if self.name == "grpc":
            metadata = None if authorization is None else [("authorization", authorization)]
            with grpc.insecure_channel(self.server.address) as channel:
                rpc = channel.unary_unary(
                    f"/{SERVICE}/{method}",
                    request_serializer=lambda m: m.SerializeToString(),
                    response_deserializer=OUTPUT[method].FromString,
                )
                try:
                    return rpc(request, timeout=TIMEOUT, metadata=metadata)
                except grpc.RpcError as error:
                    failed: Any = error
                    status = rpc_status.from_call(failed)
                    assert status is not None, "a refusal carries its google.rpc.Status"
                    raise WireError(failed.code().name, failed.details() or "", status) from None
        assert self.server.http is not None
        host, port = self.server.http.address.rsplit(":", 1)
        headers = {"Content-Type": "application/proto", "Connect-Protocol-Version": "1"}
        if authorization is not None:
            headers["Authorization"] = authorization
        connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
        try:
            connection.request("POST", f"/{SERVICE}/{method}", request.SerializeToString(), headers)
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        if response.status != 200:
            raise _connect_failure(json.loads(data or b"{}"), response.status)
        return OUTPUT[method].FromString(data)

    @contextlib.contextmanager
    def watch(self, request: pb.WatchLobbyRequest) -> Iterator[Iterator[pb.WatchLobbyResponse]]:
        """WatchLobby's messages as they arrive; the stream is cancelled at the end."""
        if self.name == "grpc":
            with grpc.insecure_channel(self.server.address) as channel:
                rpc = channel.unary_stream(
                    f"/{SERVICE}/WatchLobby",
                    request_serializer=lambda m: m.SerializeToString(),
                    response_deserializer=pb.WatchLobbyResponse.FromString,
                )
                call: Any = rpc(request, timeout=TIMEOUT)
                try:
                    yield call
                finally:
                    call.cancel()
            return
        assert self.server.http is not None
        connect = HttpTransport(self.server.http.address, "connect")
        body = request.SerializeToString()
        stream = connect._enveloped("WatchLobby", struct.pack(">BI", 0, len(body)) + body)
        try:
            yield stream
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with running_server(
        store="memory:",
        grace_seconds=1.0,
        http="127.0.0.1:0",
        players=PlayerSettings(open_registration=True, platform=PLATFORM.keys(audience="referee")),
    ) as running:
        yield running


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest, server: RefereeServer) -> Wire:
    return Wire(request.param, server)


def player(wire: Wire) -> tuple[str, str]:
    """A new account: its name and token."""
    name = f"p{next(_names)}-{wire.name}"
    registered = wire.call("Register", pb.RegisterRequest(name=name, kind=pb.PLAYER_KIND_BOT))
    return name, registered.token


def own_terms() -> pb.GameTerms:
    """Terms no other test asks for (its own decision time): requests of different tests on
    the shared server never pair with each other."""
    clock = pb.ClockSettings(decision_ms=60_000 + next(_names))
    return pb.GameTerms(game_type="dracula-vs-van-helsing", players=2, clock=clock)


def refusal(wire: Wire, method: str, request: Message, credential: str = "") -> WireError:
    with pytest.raises(WireError) as caught:
        wire.call(method, request, credential)
    error = caught.value
    assert error.info is not None and error.info.domain == "referee.v1"
    if credential:
        assert credential not in error.message and credential not in str(error.status)
    return error


def why(error: WireError) -> tuple[str, str]:
    """The status code and ErrorInfo reason of a refusal."""
    assert error.info is not None
    return error.code, error.info.reason


def test_a_challenge_accepted_over_the_wire(wire: Wire) -> None:
    ann, ann_token = player(wire)
    bob, bob_token = player(wire)
    created = wire.call(
        "CreateChallenge", pb.CreateChallengeRequest(challenged=bob, terms=DV), ann_token
    ).challenge
    assert created.state == pb.CHALLENGE_STATE_OPEN
    assert (created.challenger, created.challenged) == (ann, bob)
    assert created.terms.players == 2 and created.terms.options  # normalised
    assert created.expires_unix_ms - created.created_unix_ms == 60_000
    listed = wire.call("ListChallenges", pb.ListChallengesRequest(), bob_token).challenges
    assert created.challenge_id in [c.challenge_id for c in listed]
    answered = wire.call(
        "AnswerChallenge",
        pb.AnswerChallengeRequest(challenge_id=created.challenge_id, accept=True),
        bob_token,
    )
    assert answered.challenge.state == pb.CHALLENGE_STATE_ACCEPTED
    assert answered.game_id == answered.challenge.game_id and answered.seat == 1
    assert answered.seat_token
    view = wire.call(
        "GetView", pb.GetViewRequest(game_id=answered.game_id, seat_token=answered.seat_token)
    )
    assert view.view.seat == 1
    again = pb.AnswerChallengeRequest(challenge_id=created.challenge_id, accept=True)
    error = refusal(wire, "AnswerChallenge", again, bob_token)
    assert why(error) == ("FAILED_PRECONDITION", "CHALLENGE_ANSWERED")
    assert error.detail(error_details_pb2.PreconditionFailure) is not None


def test_challenge_refusals_over_the_wire(wire: Wire) -> None:
    _, ann_token = player(wire)
    bob, bob_token = player(wire)
    cases: list[tuple[str, Message, str, str, str]] = [
        (
            "CreateChallenge",
            pb.CreateChallengeRequest(challenged=bob, terms=DV),
            "",
            "UNAUTHENTICATED",
            "CREDENTIAL_MISSING",
        ),
        (
            "CreateChallenge",
            pb.CreateChallengeRequest(challenged="nobody-here", terms=DV),
            ann_token,
            "NOT_FOUND",
            "PLAYER_UNKNOWN",
        ),
        (
            "CreateChallenge",
            pb.CreateChallengeRequest(terms=pb.GameTerms(game_type="vampire-queen", players=2)),
            ann_token,
            "INVALID_ARGUMENT",
            "BAD_REQUEST",
        ),
        (
            "AnswerChallenge",
            pb.AnswerChallengeRequest(challenge_id="ch-none", accept=True),
            bob_token,
            "NOT_FOUND",
            "CHALLENGE_NOT_FOUND",
        ),
    ]
    for method, request, credential, code, reason in cases:
        error = refusal(wire, method, request, credential)
        assert why(error) == (code, reason), method
    bad = refusal(
        wire,
        "CreateChallenge",
        pb.CreateChallengeRequest(terms=pb.GameTerms(game_type="vampire-queen", players=2)),
        ann_token,
    )
    assert bad.fields == ["terms.players"]
    assert wire.call("ListChallenges", pb.ListChallengesRequest(), ann_token).challenges == []
    created = wire.call(
        "CreateChallenge", pb.CreateChallengeRequest(challenged=bob, terms=DV), ann_token
    ).challenge
    withdraw = pb.WithdrawChallengeRequest(challenge_id=created.challenge_id)
    error = refusal(wire, "WithdrawChallenge", withdraw, bob_token)
    assert why(error) == ("PERMISSION_DENIED", "NOT_CHALLENGER")
    withdrawn = wire.call("WithdrawChallenge", withdraw, ann_token).challenge
    assert withdrawn.state == pb.CHALLENGE_STATE_WITHDRAWN
    answer = pb.AnswerChallengeRequest(challenge_id=created.challenge_id, accept=True)
    error = refusal(wire, "AnswerChallenge", answer, bob_token)
    assert why(error) == ("FAILED_PRECONDITION", "CHALLENGE_WITHDRAWN")


def test_the_open_challenges_limit_carries_retry_info(wire: Wire) -> None:
    _, token = player(wire)
    request = pb.CreateChallengeRequest(terms=DV, expires_in_ms=30_000)
    for _ in range(10):
        wire.call("CreateChallenge", request, token)
    before = len(wire.call("ListChallenges", pb.ListChallengesRequest(), token).challenges)
    error = refusal(wire, "CreateChallenge", request, token)
    assert why(error) == ("RESOURCE_EXHAUSTED", "LIMIT")
    assert error.metadata["limit"] == "open_challenges"
    retry = error.detail(error_details_pb2.RetryInfo)
    assert retry is not None and 0 < retry.retry_delay.ToMilliseconds() <= 30_000
    after = len(wire.call("ListChallenges", pb.ListChallengesRequest(), token).challenges)
    assert after == before


def test_pairing_over_the_wire(wire: Wire) -> None:
    ann, ann_token = player(wire)
    _, bob_token = player(wire)
    terms = own_terms()
    first = wire.call("RequestPairing", pb.RequestPairingRequest(terms=terms), ann_token).ticket
    assert first.state == pb.PAIRING_STATE_WAITING and first.player == ann
    error = refusal(wire, "RequestPairing", pb.RequestPairingRequest(terms=terms), ann_token)
    assert why(error) == ("FAILED_PRECONDITION", "ALREADY_PAIRING")
    assert error.metadata["ticket_id"] == first.ticket_id
    error = refusal(
        wire, "CancelPairing", pb.CancelPairingRequest(ticket_id=first.ticket_id), bob_token
    )
    assert why(error) == ("PERMISSION_DENIED", "NOT_YOUR_TICKET")
    second = wire.call("RequestPairing", pb.RequestPairingRequest(terms=terms), bob_token).ticket
    assert second.state == pb.PAIRING_STATE_PAIRED and second.game_id
    cancelled = wire.call(
        "CancelPairing", pb.CancelPairingRequest(ticket_id=first.ticket_id), ann_token
    ).ticket
    assert cancelled.state == pb.PAIRING_STATE_PAIRED and cancelled.game_id == second.game_id
    error = refusal(wire, "CancelPairing", pb.CancelPairingRequest(ticket_id="pt-x"), ann_token)
    assert why(error) == ("NOT_FOUND", "TICKET_NOT_FOUND")


def test_cancel_then_never_paired_over_the_wire(wire: Wire) -> None:
    _, ann_token = player(wire)
    _, bob_token = player(wire)
    terms = own_terms()
    first = wire.call("RequestPairing", pb.RequestPairingRequest(terms=terms), ann_token).ticket
    cancelled = wire.call(
        "CancelPairing", pb.CancelPairingRequest(ticket_id=first.ticket_id), ann_token
    ).ticket
    assert cancelled.state == pb.PAIRING_STATE_CANCELLED
    second = wire.call("RequestPairing", pb.RequestPairingRequest(terms=terms), bob_token).ticket
    assert second.state == pb.PAIRING_STATE_WAITING
    wire.call("CancelPairing", pb.CancelPairingRequest(ticket_id=second.ticket_id), bob_token)


created_secrets: list[str] = []


def _listed(wire: Wire, game_type: str) -> str:
    """A listed game of three open seats (its claim codes and organiser token kept in
    ``created_secrets``)."""
    open_seat = pb.SeatRequest(mode=pb.SEAT_MODE_OPEN)
    request = pb.CreateGameRequest(
        game_type=game_type, players=3, seat_requests=[open_seat] * 3, listed=True
    )
    response = wire.call("CreateGame", request)
    created_secrets.append(response.organiser_token)
    created_secrets.extend(i.claim_code for i in response.invitations)
    return str(response.game_id)


def test_list_and_watch_the_lobby_over_the_wire(wire: Wire) -> None:
    game_type = "vampire-queen" if wire.name == "grpc" else "mau-mau-vampires"
    which = pb.LobbyFilter(game_type=game_type)
    first = _listed(wire, game_type)
    tables = wire.call("ListLobby", pb.ListLobbyRequest(filter=which)).tables
    assert [t.game.game_id for t in tables] == [first]
    assert list(tables[0].open_seats) == [0, 1, 2]
    with wire.watch(pb.WatchLobbyRequest(filter=which)) as stream:
        opened = next(stream)
        assert opened.table.game.game_id == first
        assert next(stream).caught_up
        second = _listed(wire, game_type)
        change = next(stream)
        assert change.table.game.game_id == second and not change.caught_up
        # Signed-in players take the open seats from the lobby: each claim is a change, the
        # claim that fills the table removes it (the game starts).
        secrets = list(created_secrets)
        seen = [opened, change]
        for left in ([1, 2], [2]):
            _, token = player(wire)
            claimed = wire.call("ClaimSeat", pb.ClaimSeatRequest(game_id=second), token)
            secrets += [token, claimed.seat_token]
            change = next(stream)
            seen.append(change)
            assert change.table.game.game_id == second
            assert list(change.table.open_seats) == left
        _, token = player(wire)
        wire.call("ClaimSeat", pb.ClaimSeatRequest(game_id=second), token)
        assert next(stream).removed_game_id == second
    tables = wire.call("ListLobby", pb.ListLobbyRequest(filter=which)).tables
    assert [t.game.game_id for t in tables] == [first]
    # Nothing listed or streamed carries a token or a claim code.
    sent = b"".join(m.SerializeToString() for m in [*seen, *tables])
    assert sum(secret.startswith("claim-") for secret in secrets) >= 3
    for secret in filter(None, secrets):
        assert secret.encode() not in sent


def test_a_scoped_platform_token_cannot_act_in_the_lobby(wire: Wire) -> None:
    """A platform token scoped to one game, or to watching, is refused PERMISSION_DENIED
    TOKEN_SCOPE; an unscoped one plays in the lobby as its player."""
    scoped = PLATFORM.token(f"pl{next(_names)}", aud="referee", game_id="g7")
    watcher = PLATFORM.token(f"pl{next(_names)}", aud="referee", role="spectator")
    for credential in (scoped, watcher):
        for method, request in [
            ("CreateChallenge", pb.CreateChallengeRequest(terms=DV)),
            ("RequestPairing", pb.RequestPairingRequest(terms=own_terms())),
        ]:
            error = refusal(wire, method, request, credential)
            assert why(error) == ("PERMISSION_DENIED", "TOKEN_SCOPE")
    name = f"pl{next(_names)}"
    unscoped = PLATFORM.token(name, aud="referee")
    made = wire.call("CreateChallenge", pb.CreateChallengeRequest(terms=DV), unscoped)
    assert made.challenge.challenger == f"platform:{name}"
