"""Calls no player is counted for are limited per client address (claim attempts,
CreateGame, Register, public reads), on a real server on loopback: the address is the
connection's peer (127.0.0.1 and 127.0.0.2 are two clients), or what a proxy the operator
trusts forwards. Past a budget: RESOURCE_EXHAUSTED ``LIMIT`` with ``RetryInfo``, on gRPC and
Connect alike (one bucket per address, whatever the wire)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.application.players.accounts import PlayerSettings
from referee.application.tables.limits import AddressLimits
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from tests.server.transports import OUTPUT, SERVICE, WireError, _connect_failure

TIMEOUT = 20.0
DV = "dracula-vs-van-helsing"
#: Another client on the same machine: Linux routes all of 127/8 to the loopback device.
OTHER = "127.0.0.2"


class Connect:
    """Connect unary calls from one local address, on one kept-alive connection."""

    def __init__(self, server: RefereeServer, source: str = "127.0.0.1") -> None:
        assert server.http is not None
        self.connection = http.client.HTTPConnection(
            "127.0.0.1", server.http.port, timeout=TIMEOUT, source_address=(source, 0)
        )

    def call(self, method: str, request: Message, headers: dict[str, str] | None = None) -> Any:
        sent = {"content-type": "application/proto", **(headers or {})}
        self.connection.request("POST", f"/{SERVICE}/{method}", request.SerializeToString(), sent)
        response = self.connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise _connect_failure(json.loads(data or b"{}"), response.status)
        return OUTPUT[method].FromString(data)

    def refusal(self, method: str, request: Message, **headers: str) -> WireError:
        with pytest.raises(WireError) as caught:
            self.call(method, request, headers)
        return caught.value


def grpc_call(server: RefereeServer, method: str, request: Message, metadata: Any = None) -> Any:
    with grpc.insecure_channel(server.address) as channel:
        rpc = channel.unary_unary(
            f"/{SERVICE}/{method}",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=OUTPUT[method].FromString,
        )
        try:
            return rpc(request, timeout=TIMEOUT, metadata=metadata)
        except grpc.RpcError as error:
            status = rpc_status.from_call(error)  # type: ignore[arg-type]
            assert status is not None, error
            raise WireError(grpc.StatusCode(error.code()).name, status.message, status) from None  # type: ignore[attr-defined]


def limited(error: WireError, limit: str) -> bool:
    """``error`` is the per-address refusal of ``limit``, with a retry delay."""
    retry = error.detail(error_details_pb2.RetryInfo)
    return (
        error.code == "RESOURCE_EXHAUSTED"
        and error.info is not None
        and error.info.reason == "LIMIT"
        and error.metadata.get("limit") == limit
        and retry is not None
        and retry.retry_delay.ToNanoseconds() > 0
    )


@pytest.fixture
def server() -> Iterator[RefereeServer]:
    """A server with the default limits, and an HTTP port."""
    with running_server(store="memory:", grace_seconds=1.0, http="127.0.0.1:0") as running:
        yield running


def open_game(client: Connect) -> tuple[str, str]:
    """A game whose seat 1 waits for its claim code: its id and the code."""
    request = pb.CreateGameRequest(
        game_type=DV,
        players=2,
        seat_requests=[pb.SeatRequest(mode=pb.SEAT_MODE_OPEN)] * 2,
        join_deadline_ms=60_000,
    )
    created = client.call("CreateGame", request)
    return created.game_id, created.invitations[1].claim_code


def test_wrong_claim_codes_are_limited_per_address(server: RefereeServer) -> None:
    guesser, other = Connect(server), Connect(server, OTHER)
    game_id, code = open_game(other)
    wrong = pb.ClaimSeatRequest(game_id=game_id, claim_code="claim-guess")
    answers = [guesser.refusal("ClaimSeat", wrong) for _ in range(300)]
    invalid = [a for a in answers if a.info is not None and a.info.reason == "CLAIM_CODE_INVALID"]
    budget = AddressLimits().claim_attempts_per_minute
    # A minute's worth at once, then one every two seconds (the run takes a few).
    assert budget <= len(invalid) < budget + 10
    assert all(limited(a, "claim_attempts_per_minute") for a in answers[len(invalid) :])
    assert answers[-1].metadata["address"] == "127.0.0.1"
    # Another address guesses on its own budget, and its right code claims the seat.
    assert other.refusal("ClaimSeat", wrong).info.reason == "CLAIM_CODE_INVALID"  # type: ignore[union-attr]
    claimed = other.call("ClaimSeat", pb.ClaimSeatRequest(game_id=game_id, claim_code=code))
    assert claimed.seat == 1 and claimed.seat_token


def test_a_right_claim_code_costs_nothing() -> None:
    few = PlayerSettings(per_address=AddressLimits(claim_attempts_per_minute=2))
    with running_server(store="memory:", http="127.0.0.1:0", players=few) as server:
        client = Connect(server)
        for _ in range(3):
            game_id, code = open_game(client)
            check = pb.ClaimSeatRequest(game_id=game_id, claim_code=code, check_only=True)
            assert client.call("ClaimSeat", check).seat == 1
        wrong = pb.ClaimSeatRequest(game_id=game_id, claim_code="claim-guess")
        for _ in range(2):
            assert client.refusal("ClaimSeat", wrong).info.reason == "CLAIM_CODE_INVALID"  # type: ignore[union-attr]
        assert limited(client.refusal("ClaimSeat", wrong), "claim_attempts_per_minute")


def test_an_anonymous_create_game_flood_is_limited(server: RefereeServer) -> None:
    request = pb.CreateGameRequest(game_type="vampire-queen", players=12)
    made, refused = 0, []
    for _ in range(300):
        try:
            grpc_call(server, "CreateGame", request)
            made += 1
        except WireError as error:
            refused.append(error)
    budget = AddressLimits().games_created_per_minute
    assert budget <= made < budget + 10
    assert refused and all(limited(e, "games_created_per_minute") for e in refused)
    # The same address over Connect shares the bucket; a made-up credential buys no other;
    # another address has its own.
    here = Connect(server)
    assert limited(here.refusal("CreateGame", request), "games_created_per_minute")
    junk = here.refusal("CreateGame", request, authorization="Bearer acct-made-up")
    assert limited(junk, "games_created_per_minute")
    assert Connect(server, OTHER).call("CreateGame", request).game_id


def test_public_reads_and_registrations_are_limited_per_address() -> None:
    few = PlayerSettings(
        open_registration=True,
        per_address=AddressLimits(reads_per_minute=3, registrations_per_minute=1),
    )
    with running_server(store="memory:", http="127.0.0.1:0", players=few) as server:
        client = Connect(server)
        for _ in range(3):
            client.call("ListGames", pb.ListGamesRequest())
        assert limited(
            client.refusal("GetLeaderboard", pb.GetLeaderboardRequest()), "reads_per_minute"
        )
        token = client.call("Register", pb.RegisterRequest(name="ada")).token
        again = client.refusal("Register", pb.RegisterRequest(name="bea"))
        assert limited(again, "registrations_per_minute") and again.metadata["address"]
        # A player's reads are the player's: counted against the player, not the address.
        signed_in = {"authorization": f"Bearer {token}"}
        for _ in range(5):
            client.call("ListGames", pb.ListGamesRequest(), signed_in)
        # A seat's calls (a seat token in the request) are not anonymous reads.
        game_id, code = open_game(Connect(server, OTHER))
        seat = Connect(server, OTHER).call(
            "ClaimSeat", pb.ClaimSeatRequest(game_id=game_id, claim_code=code)
        )
        for _ in range(5):
            client.call("GetView", pb.GetViewRequest(game_id=game_id, seat_token=seat.seat_token))


def _limited_server(proxies: tuple[str, ...]) -> Any:
    few = PlayerSettings(per_address=AddressLimits(games_created_per_minute=2))
    return running_server(store="memory:", http="127.0.0.1:0", players=few, trusted_proxies=proxies)


def test_a_forwarded_address_is_believed_only_from_a_trusted_proxy() -> None:
    request = pb.CreateGameRequest(game_type=DV, players=2)
    with _limited_server((f"{OTHER}/32",)) as server:
        client, proxy = Connect(server), Connect(server, OTHER)
        # A client that is no proxy cannot pick its address: each header is ignored.
        for n in range(2):
            client.call("CreateGame", request, {"x-forwarded-for": f"203.0.113.{n}"})
        refused = client.refusal("CreateGame", request, **{"x-forwarded-for": "203.0.113.9"})
        assert limited(refused, "games_created_per_minute")
        assert refused.metadata["address"] == "127.0.0.1"
        # Through the trusted proxy, each forwarded client has its own budget.
        # The client is the rightmost hop the proxy did not add itself: what stands left of
        # it, the client wrote.
        for n in range(2):
            proxy.call("CreateGame", request, {"x-forwarded-for": f"10.9.9.{n}, 198.51.100.1"})
        refused = proxy.refusal("CreateGame", request, **{"x-forwarded-for": "198.51.100.1"})
        assert limited(refused, "games_created_per_minute")
        assert refused.metadata["address"] == "198.51.100.1"
        proxy.call("CreateGame", request, {"x-forwarded-for": "198.51.100.2"})
        proxy.call("CreateGame", request, {"x-real-ip": "198.51.100.3"})
    with _limited_server(("127.0.0.1",)) as server:  # gRPC: the forwarded metadata
        for _ in range(2):
            grpc_call(server, "CreateGame", request, [("x-forwarded-for", "198.51.100.1")])
        with pytest.raises(WireError) as caught:
            grpc_call(server, "CreateGame", request, [("x-forwarded-for", "198.51.100.1")])
        refused_grpc = caught.value
        assert limited(refused_grpc, "games_created_per_minute")
        assert refused_grpc.metadata["address"] == "198.51.100.1"
        grpc_call(server, "CreateGame", request, [("x-forwarded-for", "198.51.100.2")])
    with _limited_server(()) as server:  # no proxy trusted: gRPC's forwarded metadata ignored
        for n in range(2):
            grpc_call(server, "CreateGame", request, [("x-forwarded-for", f"198.51.100.{n}")])
        with pytest.raises(WireError) as caught:
            grpc_call(server, "CreateGame", request, [("x-forwarded-for", "198.51.100.7")])
        refused_grpc = caught.value
        assert refused_grpc.metadata["address"] == "127.0.0.1"
