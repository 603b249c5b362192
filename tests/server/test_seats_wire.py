"""Seats over the wire: CreateGame's seat requests and
invitations, ClaimSeat, Resign, and GetView/StreamGame/SubmitCommand with a player's
credential and ``seat``, over gRPC (``authorization`` metadata) and Connect
(``Authorization`` header) on a real server; each refusal's status code and ErrorInfo
reason on both wires. The behaviour itself is tested at the application layer
(tests/application/test_seating*.py); here, the mapping."""

from __future__ import annotations

import http.client
import itertools
import json
import struct
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from grpc_status import rpc_status

from referee.application.players.accounts import PlayerSettings
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from tests.server.transports import OUTPUT, SERVICE, WireError, _connect_failure

TIMEOUT = 20.0
WIRES = ("grpc", "connect")
DV = "dracula-vs-van-helsing"


class Wire:
    """One wire to a server, calling as a player when given a credential."""

    def __init__(self, name: str, server: RefereeServer) -> None:
        self.name = name
        self.server = server

    def call(self, method: str, request: Message, credential: str = "") -> Any:
        if self.name == "grpc":
            metadata = [("authorization", f"Bearer {credential}")] if credential else None
            with grpc.insecure_channel(self.server.address) as channel:
                rpc = channel.unary_unary(
                    f"/{SERVICE}/{method}",
                    request_serializer=lambda m: m.SerializeToString(),
                    response_deserializer=OUTPUT[method].FromString,
                )
                try:
                    return rpc(request, timeout=TIMEOUT, metadata=metadata)
                except grpc.RpcError as error:
                    raise _grpc_failure(error) from None
        status, data = self._post(method, request, "application/proto", credential)
        if status != 200:
            raise _connect_failure(json.loads(data or b"{}"), status)
        return OUTPUT[method].FromString(data)

    def first_of_stream(self, request: pb.StreamGameRequest, credential: str) -> Any:
        """StreamGame's first message (the current view), then hang up."""
        if self.name == "grpc":
            metadata = [("authorization", f"Bearer {credential}")] if credential else None
            with grpc.insecure_channel(self.server.address) as channel:
                call: Any = channel.unary_stream(
                    f"/{SERVICE}/StreamGame",
                    request_serializer=pb.StreamGameRequest.SerializeToString,
                    response_deserializer=pb.StreamGameResponse.FromString,
                )(request, timeout=TIMEOUT, metadata=metadata)
                try:
                    return next(iter(call))
                except grpc.RpcError as error:
                    raise _grpc_failure(error) from None
                finally:
                    call.cancel()
        body = struct.pack(">BI", 0, request.ByteSize()) + request.SerializeToString()
        connection = self._connection()
        headers = self._headers("application/connect+proto", credential)
        try:
            connection.request("POST", f"/{SERVICE}/StreamGame", body, headers)
            response = connection.getresponse()
            flags, size = struct.unpack(">BI", response.read(5))
            data = response.read(size)
        finally:
            connection.close()
        if flags & 2:  # the end of the stream: an error
            raise _connect_failure(json.loads(data).get("error", {}), None)
        return pb.StreamGameResponse.FromString(data)

    def _connection(self) -> http.client.HTTPConnection:
        assert self.server.http is not None
        host, port = self.server.http.address.rsplit(":", 1)
        return http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)

    def _headers(self, kind: str, credential: str) -> dict[str, str]:
        headers = {"Content-Type": kind, "Connect-Protocol-Version": "1"}
        if credential:
            headers["Authorization"] = f"Bearer {credential}"
        return headers

    def _post(self, method: str, request: Message, kind: str, credential: str) -> tuple[int, bytes]:
        connection = self._connection()
        try:
            body = request.SerializeToString()
            connection.request(
                "POST", f"/{SERVICE}/{method}", body, self._headers(kind, credential)
            )
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()


def _grpc_failure(error: grpc.RpcError) -> WireError:
    call: Any = error
    status = rpc_status.from_call(call)
    assert status is not None, "a refusal carries its google.rpc.Status"
    return WireError(call.code().name, call.details() or "", status)


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with running_server(
        store="memory:",
        grace_seconds=1.0,
        http="127.0.0.1:0",
        players=PlayerSettings(open_registration=True),
    ) as running:
        yield running


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest, server: RefereeServer) -> Wire:
    return Wire(request.param, server)


_NAMES = itertools.count()


def register(wire: Wire, stem: str) -> str:
    """A new account's credential (its name: ``stem-wire-n``)."""
    name = f"{stem}-{wire.name}-{next(_NAMES)}"
    answer = wire.call("Register", pb.RegisterRequest(name=name))
    token: str = answer.token
    return token


def refusal(wire: Wire, method: str, request: Message, credential: str = "") -> WireError:
    with pytest.raises(WireError) as caught:
        wire.call(method, request, credential)
    error = caught.value
    assert error.info is not None and error.info.domain == "referee.v1"
    return error


def coded(error: WireError) -> tuple[str, str]:
    """The status code's name and the ErrorInfo reason of a refusal."""
    assert error.info is not None
    return error.code, error.info.reason


def hosted(wire: Wire) -> tuple[str, pb.CreateGameResponse]:
    """A game with the host's creator seat (0) and an open seat (1): the host's credential
    and the creation's answer."""
    host = register(wire, "host")
    request = pb.CreateGameRequest(
        game_type=DV,
        players=2,
        seat_requests=[
            pb.SeatRequest(mode=pb.SEAT_MODE_CREATOR),
            pb.SeatRequest(mode=pb.SEAT_MODE_OPEN),
        ],
        join_deadline_ms=60_000,
    )
    return host, wire.call("CreateGame", request, host)


def test_create_with_seat_requests_then_claim_and_play_by_credential(wire: Wire) -> None:
    host, created = hosted(wire)
    game_id = created.game_id
    assert [s.seat for s in created.seats] == [0], "only the creator's own seat's token"
    [invitation] = created.invitations
    assert invitation.seat == 1 and invitation.claim_code.startswith("claim-")
    game = created.game
    assert not game.started and game.join_deadline_unix_ms >= game.created_unix_ms + 60_000
    assert [(h.state, h.player) for h in game.seat_holders] == [
        (pb.SEAT_STATE_HELD, wire.call("WhoAmI", pb.WhoAmIRequest(), host).player.name),
        (pb.SEAT_STATE_OPEN, ""),
    ]
    assert game.seat_holders[0].kind == pb.PLAYER_KIND_PERSON

    friend = register(wire, "friend")
    claimed = wire.call(
        "ClaimSeat",
        pb.ClaimSeatRequest(game_id=game_id, claim_code=invitation.claim_code),
        friend,
    )
    assert claimed.seat == 1 and claimed.seat_token.startswith("seat-")
    assert claimed.game.started and claimed.game.join_deadline_unix_ms == 0
    me = wire.call("WhoAmI", pb.WhoAmIRequest(), friend).player.name
    assert claimed.game.seat_holders[1].player == me

    view = wire.call("GetView", pb.GetViewRequest(game_id=game_id, seat=1), friend).view
    assert view.seat == 1 and [h.state for h in view.seat_holders] == [pb.SEAT_STATE_HELD] * 2
    by_token = wire.call(
        "GetView", pb.GetViewRequest(game_id=game_id, seat_token=claimed.seat_token)
    )
    assert by_token.view.seat == 1
    first = wire.first_of_stream(pb.StreamGameRequest(game_id=game_id, batched=True), host)
    assert first.view.seat == 0

    mover = view.pending_seats[0]
    player = friend if mover == 1 else host
    mine = wire.call("GetView", pb.GetViewRequest(game_id=game_id), player).view
    submitted = wire.call(
        "SubmitCommand",
        pb.SubmitCommandRequest(
            game_id=game_id, seat=mover, command_id="c1", command=mine.legal_commands[0]
        ),
        player,
    )
    assert submitted.view.seat == mover and submitted.last_sequence >= submitted.first_sequence

    resigned = wire.call("Resign", pb.ResignRequest(game_id=game_id), friend)
    assert resigned.game.seat_holders[1].resigned
    again = refusal(wire, "Resign", pb.ResignRequest(game_id=game_id), friend)
    assert coded(again) == ("FAILED_PRECONDITION", "ALREADY_RESIGNED")


def test_claim_refusals_on_the_wire(wire: Wire) -> None:
    _, created = hosted(wire)
    game_id = created.game_id
    code = created.invitations[0].claim_code
    bad = refusal(wire, "ClaimSeat", pb.ClaimSeatRequest(game_id=game_id, claim_code="claim-x"))
    assert coded(bad) == ("PERMISSION_DENIED", "CLAIM_CODE_INVALID")
    assert "claim-x" not in bad.message
    nobody = refusal(wire, "ClaimSeat", pb.ClaimSeatRequest(game_id=game_id))
    assert coded(nobody) == ("UNAUTHENTICATED", "CREDENTIAL_MISSING")
    # Checked only (a join page before its button): the same answers, nothing taken.
    check = pb.ClaimSeatRequest(game_id=game_id, claim_code="claim-x", check_only=True)
    assert coded(refusal(wire, "ClaimSeat", check)) == ("PERMISSION_DENIED", "CLAIM_CODE_INVALID")
    checked = wire.call(
        "ClaimSeat", pb.ClaimSeatRequest(game_id=game_id, claim_code=code, check_only=True)
    )
    assert checked.seat == 1 and not checked.seat_token
    assert checked.game.seat_holders[1].state == pb.SEAT_STATE_OPEN
    wire.call("ClaimSeat", pb.ClaimSeatRequest(game_id=game_id, claim_code=code))
    used = refusal(wire, "ClaimSeat", pb.ClaimSeatRequest(game_id=game_id, claim_code=code))
    assert coded(used) == ("FAILED_PRECONDITION", "GAME_STARTED")
    assert code not in used.message
    unsigned = refusal(wire, "GetView", pb.GetViewRequest(game_id=game_id, seat=1))
    assert coded(unsigned) == ("UNAUTHENTICATED", "CREDENTIAL_MISSING")
    stranger = register(wire, "stranger")
    seated = refusal(wire, "GetView", pb.GetViewRequest(game_id=game_id), stranger)
    assert coded(seated) == ("PERMISSION_DENIED", "NOT_SEATED")
    creator_seat = pb.CreateGameRequest(
        game_type=DV, players=2, seat_requests=[pb.SeatRequest(mode=pb.SEAT_MODE_CREATOR)] * 2
    )
    anonymous = refusal(wire, "CreateGame", creator_seat)
    assert anonymous.code == "UNAUTHENTICATED"
    odd = pb.CreateGameRequest(
        game_type=DV, players=2, seat_requests=[pb.SeatRequest(mode=pb.SEAT_MODE_OPEN)]
    )
    wrong = refusal(wire, "CreateGame", odd)
    assert coded(wrong) == ("INVALID_ARGUMENT", "BAD_REQUEST")


def test_todays_flow_on_the_wire_is_unchanged(wire: Wire) -> None:
    created = wire.call("CreateGame", pb.CreateGameRequest(game_type=DV, players=2))
    assert [s.seat for s in created.seats] == [0, 1] and not created.invitations
    assert created.game.started and created.game.join_deadline_unix_ms == 0
    view = wire.call(
        "GetView", pb.GetViewRequest(game_id=created.game_id, seat_token=created.seats[0].token)
    ).view
    assert not view.seat_holders
    # A bad credential does not fail a seat-token call that does not use it.
    with_token = wire.call(
        "GetView",
        pb.GetViewRequest(game_id=created.game_id, seat_token=created.seats[1].token),
        "acct-not-a-credential",
    )
    assert with_token.view.seat == 1


def test_the_host_gets_no_invited_seats_token_on_the_wire(wire: Wire) -> None:
    host, created = hosted(wire)
    game_id = created.game_id
    code = created.invitations[0].claim_code
    claimed = wire.call("ClaimSeat", pb.ClaimSeatRequest(game_id=game_id, claim_code=code))
    secret = claimed.seat_token.encode()
    organiser = created.organiser_token
    answers: list[Message] = [
        wire.call("GetGame", pb.GetGameRequest(game_id=game_id), host),
        wire.call("ListGames", pb.ListGamesRequest(), host),
        wire.call("GetView", pb.GetViewRequest(game_id=game_id), host),
        wire.call("GetView", pb.GetViewRequest(game_id=game_id, spectator=True), host),
        wire.call("GetView", pb.GetViewRequest(game_id=game_id, organiser_token=organiser)),
        wire.first_of_stream(pb.StreamGameRequest(game_id=game_id), host),
    ]
    watch = refusal(
        wire, "GetView", pb.GetViewRequest(game_id=game_id, organiser_token=organiser, as_seat=1)
    )
    assert coded(watch) == ("PERMISSION_DENIED", "SEAT_CLAIMED")
    for answer in answers:
        assert secret not in answer.SerializeToString()
    views = [a.view for a in answers if hasattr(a, "view")]
    assert all(v.seat == 0 or not v.HasField("seat") for v in views)
