"""Reservation announcements over the wire: ``PlayerMessage.reserved`` (a ``SeatReserved``) on
the player's WatchPlayer (gRPC, Connect) and PlayerSession, for that player's seats only, with
no token or claim code in it; claimed with ClaimSeat, the seat is granted on the same stream."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from referee.application.players.accounts import PlayerSettings
from referee.application.players.seat_documents import Reserved
from referee.server.app import RefereeServer, running_server
from referee.server.session_rpc import message_bytes, player_message
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import RPC_TIMEOUT
from tests.server.transports import HttpTransport

GAME = "sleeping-queens"


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with running_server(
        store="memory:",
        grace_seconds=1.0,
        http="127.0.0.1:0",
        players=PlayerSettings(open_registration=True),
    ) as running:
        yield running


@pytest.fixture
def stub(server: RefereeServer) -> Iterator[pb_grpc.RefereeServiceStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield pb_grpc.RefereeServiceStub(channel)


def register(stub: pb_grpc.RefereeServiceStub, prefix: str) -> tuple[str, str]:
    name = f"{prefix}-{uuid.uuid4().hex[:6]}"
    request = pb.RegisterRequest(name=name, kind=pb.PLAYER_KIND_BOT)
    return name, stub.Register(request, timeout=RPC_TIMEOUT).token


def create(stub: pb_grpc.RefereeServiceStub, *modes: str) -> pb.CreateGameResponse:
    """A game with a seat request per mode: ``""`` the creator's token, ``"open"`` a claim
    code, else reserved for that player."""
    requests = [
        pb.SeatRequest(mode=pb.SEAT_MODE_UNSPECIFIED)
        if not mode
        else pb.SeatRequest(mode=pb.SEAT_MODE_OPEN)
        if mode == "open"
        else pb.SeatRequest(mode=pb.SEAT_MODE_RESERVED, player=mode)
        for mode in modes
    ]
    request = pb.CreateGameRequest(game_type=GAME, players=len(modes), seat_requests=requests)
    return stub.CreateGame(request, timeout=RPC_TIMEOUT)


def secrets_of(*created: pb.CreateGameResponse) -> list[bytes]:
    found = [c.organiser_token for c in created]
    found += [s.token for c in created for s in c.seats if s.token]
    found += [i.claim_code for c in created for i in c.invitations]
    assert len(found) >= 2 * len(created)  # an organiser token and a seat token at least
    return [secret.encode() for secret in found if secret]


def next_reserved(messages: Iterator[pb.PlayerMessage], seen: list[bytes]) -> pb.SeatReserved:
    """The next ``reserved`` message; every message read on the way is kept, serialized."""
    for message in messages:
        seen.append(message.SerializeToString())
        if message.WhichOneof("kind") == "reserved":
            return message.reserved
    raise AssertionError("the stream ended")


def flat(responses: Any) -> Iterator[pb.PlayerMessage]:
    for response in responses:
        yield from response.messages


def test_the_adapter_writes_a_reservation_as_seat_reserved() -> None:
    reserved = Reserved("0123abcd", 2, GAME)
    message = player_message(reserved)
    assert message.WhichOneof("kind") == "reserved"
    assert message.reserved == pb.SeatReserved(game_id="0123abcd", seat=2, game_type=GAME)
    # The stream's bytes are that message's, as a PlayerSessionResponse (and WatchPlayer's).
    for response in (pb.PlayerSessionResponse, pb.WatchPlayerResponse):
        assert list(response.FromString(message_bytes(reserved)).messages) == [message]


@pytest.mark.parametrize("wire", ["grpc", "connect"])
def test_watch_player_announces_the_players_own_reservations(
    server: RefereeServer, stub: pb_grpc.RefereeServiceStub, wire: str
) -> None:
    alice, alice_token = register(stub, "alice")
    bob, bob_token = register(stub, "bob")
    request = pb.WatchPlayerRequest()
    if wire == "grpc":
        alices: Any = stub.WatchPlayer(
            request,
            metadata=[("authorization", f"Bearer {alice_token}")],
            timeout=RPC_TIMEOUT * 3,
        )
    else:
        assert server.http is not None
        http = HttpTransport(server.http.address, "connect")
        body = http._frame(request.SerializeToString())
        alices = http._enveloped("WatchPlayer", body, {"Authorization": f"Bearer {alice_token}"})
    bobs: Any = stub.WatchPlayer(
        request, metadata=[("authorization", f"Bearer {bob_token}")], timeout=RPC_TIMEOUT * 3
    )
    try:
        # Bob's game first: alice's stream must pass it by, and bob's see only his seat.
        bobs_game = create(stub, "", bob)
        both = create(stub, "", alice, bob, "open")
        alice_saw: list[bytes] = []
        bob_saw: list[bytes] = []
        alice_messages, bob_messages = flat(alices), flat(bobs)
        assert next_reserved(alice_messages, alice_saw) == pb.SeatReserved(
            game_id=both.game_id, seat=1, game_type=GAME
        )
        assert next_reserved(bob_messages, bob_saw) == pb.SeatReserved(
            game_id=bobs_game.game_id, seat=1, game_type=GAME
        )
        assert next_reserved(bob_messages, bob_saw) == pb.SeatReserved(
            game_id=both.game_id, seat=2, game_type=GAME
        )
        # Claimed as announced: the same stream grants the seat next.
        claim = pb.ClaimSeatRequest(game_id=both.game_id, seat=1)
        stub.ClaimSeat(claim, metadata=[("authorization", f"Bearer {alice_token}")], timeout=30)
        for message in alice_messages:
            alice_saw.append(message.SerializeToString())
            if message.WhichOneof("kind") == "seat":
                assert (message.seat.game_id, message.seat.seat) == (both.game_id, 1)
                break
        assert all(bobs_game.game_id.encode() not in data for data in alice_saw)
        for secret in secrets_of(bobs_game, both):
            assert all(secret not in data for data in alice_saw + bob_saw), "a secret leaked"
    finally:
        bobs.cancel()
        if wire == "grpc":
            alices.cancel()
        else:
            alices.close()


def test_player_session_announces_a_reservation_made_before_it_opened(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    alice, alice_token = register(stub, "alice")
    earlier = create(stub, "", alice)
    requests: list[pb.PlayerSessionRequest] = []
    call: Any = stub.PlayerSession(
        iter(requests),
        metadata=[("authorization", f"Bearer {alice_token}")],
        timeout=RPC_TIMEOUT * 3,
    )
    try:
        seen: list[bytes] = []
        assert next_reserved(flat(call), seen) == pb.SeatReserved(
            game_id=earlier.game_id, seat=1, game_type=GAME
        )
        for secret in secrets_of(earlier):
            assert all(secret not in data for data in seen)
    finally:
        call.cancel()
