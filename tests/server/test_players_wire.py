"""Players over the wire: Register, WhoAmI, RotateToken,
GetRatings and GetLeaderboard over gRPC (``authorization`` metadata) and Connect
(``Authorization`` header) on a real server; every refusal with its status code and ErrorInfo
reason on both wires; a player stream opened with a token that is replaced ends
UNAUTHENTICATED on both."""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.application.players.accounts import PlayerSettings
from referee.server.app import RefereeServer, running_server
from referee.store import DocumentWrite
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.application.players_support import Platform
from tests.server.transports import OUTPUT, SERVICE, HttpTransport, WireError, _connect_failure

TIMEOUT = 20.0
PLATFORM = Platform.new("EdDSA")
WIRES = ("grpc", "connect")


class Wire:
    """One wire to a server, calling as a player: the credential goes in ``authorization``."""

    def __init__(self, name: str, server: RefereeServer) -> None:
        self.name = name
        self.server = server

    def call(self, method: str, request: Message, credential: str | None = None) -> Any:
        value = None if credential is None else f"Bearer {credential}"
        if self.name == "grpc":
            return self._grpc(method, request, value)
        return self._connect(method, request, value)

    def _grpc(self, method: str, request: Message, authorization: str | None) -> Any:
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
                call: Any = error
                status = rpc_status.from_call(call)
                assert status is not None, "a refusal carries its google.rpc.Status"
                raise WireError(call.code().name, call.details() or "", status) from None

    def _connect(self, method: str, request: Message, authorization: str | None) -> Any:
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
def _serve(**settings: Any) -> Iterator[RefereeServer]:
    with running_server(
        store="memory:",
        grace_seconds=1.0,
        http="127.0.0.1:0",
        players=PlayerSettings(**settings),
    ) as running:
        yield running


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with _serve(open_registration=True, platform=PLATFORM.keys(audience="referee")) as served:
        yield served


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest, server: RefereeServer) -> Wire:
    return Wire(request.param, server)


def refusal(wire: Wire, method: str, request: Message, credential: str | None = None) -> WireError:
    with pytest.raises(WireError) as caught:
        wire.call(method, request, credential)
    error = caught.value
    assert error.info is not None and error.info.domain == "referee.v1"
    if credential:
        assert credential not in error.message
        assert credential not in str(error.status)
    return error


def _name(wire: Wire, stem: str) -> str:
    return f"{stem}-{wire.name}"


def test_register_then_who_am_i_with_the_token(wire: Wire) -> None:
    name = _name(wire, "ada")
    registered = wire.call("Register", pb.RegisterRequest(name=name, kind=pb.PLAYER_KIND_BOT))
    assert registered.player.name == name
    assert registered.player.kind == pb.PLAYER_KIND_BOT
    assert registered.player.created_unix_ms > 0 and not registered.player.platform
    assert registered.token.startswith("acct-")
    me = wire.call("WhoAmI", pb.WhoAmIRequest(), registered.token)
    assert me.player == registered.player
    assert (me.scope_game_id, me.HasField("scope_seat"), me.spectator_only) == ("", False, False)
    person = wire.call("Register", pb.RegisterRequest(name=_name(wire, "bea")))
    assert person.player.kind == pb.PLAYER_KIND_PERSON


def test_who_am_i_with_a_platform_token(wire: Wire) -> None:
    token = PLATFORM.token("cy", aud="referee", kind="person", game_id="g7", seat=1)
    me = wire.call("WhoAmI", pb.WhoAmIRequest(), token)
    assert (me.player.name, me.player.kind, me.player.platform) == (
        "platform:cy",
        pb.PLAYER_KIND_PERSON,
        True,
    )
    assert (me.scope_game_id, me.scope_seat, me.spectator_only) == ("g7", 1, False)
    watcher = wire.call(
        "WhoAmI", pb.WhoAmIRequest(), PLATFORM.token(aud="referee", role="spectator")
    )
    assert watcher.spectator_only and watcher.player.kind == pb.PLAYER_KIND_UNSPECIFIED


@pytest.mark.parametrize(
    ("credential", "reason"),
    [
        (lambda: None, "CREDENTIAL_MISSING"),
        (lambda: "", "CREDENTIAL_MISSING"),
        (lambda: "acct-" + "q" * 43, "CREDENTIAL_INVALID"),  # no account has it
        (lambda: "hunter2", "CREDENTIAL_INVALID"),
        (
            lambda: PLATFORM.token(
                aud="referee", iat=int(time.time()) - 900, exp=int(time.time()) - 60
            ),
            "TOKEN_EXPIRED",
        ),
        (lambda: Platform.new("EdDSA").token(aud="referee"), "TOKEN_SIGNATURE"),
        (lambda: PLATFORM.token(aud="mail"), "CREDENTIAL_INVALID"),  # for another service
        (lambda: PLATFORM.token(aud="referee", lifetime=48 * 3600), "CREDENTIAL_INVALID"),
    ],
    ids=[
        "none",
        "empty",
        "wrong-account-token",
        "garbage",
        "expired",
        "wrong-key",
        "aud",
        "too-long-lived",
    ],
)
def test_a_bad_credential_is_unauthenticated(
    wire: Wire, credential: Callable[[], str | None], reason: str
) -> None:
    # Tokens are signed when the test runs, not when it is collected: in a long run a
    # short-lived token made at collection would have expired (TOKEN_EXPIRED) by then.
    error = refusal(wire, "WhoAmI", pb.WhoAmIRequest(), credential())
    assert (error.code, error.info and error.info.reason) == ("UNAUTHENTICATED", reason)


def test_a_credential_without_the_bearer_scheme_is_refused(wire: Wire) -> None:
    registered = wire.call("Register", pb.RegisterRequest(name=_name(wire, "dee")))
    if wire.name == "grpc":
        with grpc.insecure_channel(wire.server.address) as channel:
            rpc = channel.unary_unary(
                f"/{SERVICE}/WhoAmI",
                request_serializer=lambda m: m.SerializeToString(),
                response_deserializer=pb.WhoAmIResponse.FromString,
            )
            with pytest.raises(grpc.RpcError) as caught:
                rpc(
                    pb.WhoAmIRequest(),
                    timeout=TIMEOUT,
                    metadata=[("authorization", f"Basic {registered.token}")],
                )
            failure: Any = caught.value
            assert failure.code() is grpc.StatusCode.UNAUTHENTICATED
            assert registered.token not in (failure.details() or "")
    # The same token with the scheme signs in (the scheme's case does not matter).
    assert wire.call("WhoAmI", pb.WhoAmIRequest(), registered.token).player.name.startswith("dee")


def test_a_taken_name_and_a_bad_name_are_refused(wire: Wire) -> None:
    name = _name(wire, "eve")
    first = wire.call("Register", pb.RegisterRequest(name=name))
    error = refusal(wire, "Register", pb.RegisterRequest(name=name, kind=pb.PLAYER_KIND_BOT))
    assert (error.code, error.info and error.info.reason) == ("FAILED_PRECONDITION", "NAME_TAKEN")
    assert error.metadata == {"player": name}
    # Nothing changed: the first account still signs in, and is still a person.
    me = wire.call("WhoAmI", pb.WhoAmIRequest(), first.token)
    assert me.player.kind == pb.PLAYER_KIND_PERSON
    for bad in ("", "-eve", "e" * 33, "eve lyn"):
        error = refusal(wire, "Register", pb.RegisterRequest(name=bad))
        assert (error.code, error.info and error.info.reason) == ("INVALID_ARGUMENT", "BAD_REQUEST")
        assert error.fields == ["name"]


def test_registration_is_closed_by_default() -> None:
    with _serve() as served:
        for name in WIRES:
            wire = Wire(name, served)
            error = refusal(wire, "Register", pb.RegisterRequest(name="ada"))
            assert (error.code, error.info and error.info.reason) == (
                "PERMISSION_DENIED",
                "REGISTRATION_CLOSED",
            )
            assert served.referee.store.documents("account") == []


def test_calls_past_the_players_limit_are_exhausted_with_retry_info() -> None:
    with _serve(open_registration=True, calls_per_minute=2) as served:
        for name in WIRES:
            wire = Wire(name, served)
            token = wire.call("Register", pb.RegisterRequest(name=f"fay-{name}")).token
            for _ in range(2):
                wire.call("WhoAmI", pb.WhoAmIRequest(), token)
            error = refusal(wire, "WhoAmI", pb.WhoAmIRequest(), token)
            assert (error.code, error.info and error.info.reason) == ("RESOURCE_EXHAUSTED", "LIMIT")
            assert error.metadata["limit"] == "calls_per_minute"
            retry = error.detail(error_details_pb2.RetryInfo)
            assert retry is not None
            assert 0 < retry.retry_delay.ToMilliseconds() <= 30_000


def test_ratings_and_the_leaderboard(wire: Wire, server: RefereeServer) -> None:
    game = "sleeping-queens"
    player = _name(wire, "gus")
    registered = wire.call("Register", pb.RegisterRequest(name=player))
    rows = [(player, 30.0, 2.0, 4), (_name(wire, "hal"), 27.0, 2.0, 9)]
    server.referee.store.write_documents(
        [
            DocumentWrite(
                "rating",
                f"{game}/{name}",
                {"mu": mu, "sigma": sigma, "games": games, "updated_ms": 1_000},
                0,
            )
            for name, mu, sigma, games in rows
        ]
    )
    mine = wire.call("GetRatings", pb.GetRatingsRequest(), registered.token)
    assert [(r.player, r.game_type, r.mu, r.sigma, r.games) for r in mine.ratings] == [
        (player, game, 30.0, 2.0, 4)
    ]
    assert mine.ratings[0].ordinal == pytest.approx(24.0)
    assert mine.ratings[0].updated_unix_ms == 1_000
    public = wire.call("GetRatings", pb.GetRatingsRequest(player=player))
    assert public == mine
    board = wire.call("GetLeaderboard", pb.GetLeaderboardRequest(game_type=game))
    names = [r.player for r in board.ratings]
    assert names.index(player) < names.index(_name(wire, "hal"))
    error = refusal(wire, "GetRatings", pb.GetRatingsRequest())
    assert (error.code, error.info and error.info.reason) == (
        "UNAUTHENTICATED",
        "CREDENTIAL_MISSING",
    )
    error = refusal(wire, "GetLeaderboard", pb.GetLeaderboardRequest(game_type=game, limit=5000))
    assert (error.code, error.fields) == ("INVALID_ARGUMENT", ["limit"])
    error = refusal(wire, "GetRatings", pb.GetRatingsRequest(player="not a name"))
    assert (error.code, error.fields) == ("INVALID_ARGUMENT", ["player"])


def test_registrations_past_the_servers_limit_are_exhausted_with_retry_info() -> None:
    with _serve(open_registration=True, registrations_per_minute=2) as served:
        Wire("grpc", served).call("Register", pb.RegisterRequest(name="ivy"))
        Wire("connect", served).call("Register", pb.RegisterRequest(name="jo"))
        for name in WIRES:  # one bucket for every caller, whatever the wire
            error = refusal(Wire(name, served), "Register", pb.RegisterRequest(name=f"kim-{name}"))
            assert (error.code, error.info and error.info.reason) == ("RESOURCE_EXHAUSTED", "LIMIT")
            assert error.metadata == {"limit": "registrations_per_minute", "value": "2"}
            assert error.detail(error_details_pb2.RetryInfo) is not None
        assert [d.key for d in served.referee.store.documents("account")] == ["ivy", "jo"]


# --- revoking and replacing a token -----------------------------------------------------------


def _opened(server: RefereeServer, count: int) -> None:
    """Wait until ``count`` streams opened with an account token are open on the server."""
    for _ in range(int(TIMEOUT / 0.01)):
        if server.referee.players.credentials.streams == count:
            return
        time.sleep(0.01)
    raise AssertionError(f"not {count} streams open")


def _seated(wire: Wire, token: str) -> str:
    """A started game whose seat 0 the player of ``token`` holds (its creator seat)."""
    request = pb.CreateGameRequest(
        game_type="dracula-vs-van-helsing",
        players=2,
        seat_requests=[
            pb.SeatRequest(mode=pb.SEAT_MODE_CREATOR),
            pb.SeatRequest(mode=pb.SEAT_MODE_OPEN),
        ],
    )
    created = wire.call("CreateGame", request, token)
    code = created.invitations[0].claim_code
    wire.call("ClaimSeat", pb.ClaimSeatRequest(game_id=created.game_id, claim_code=code))
    return str(created.game_id)


def _streams_until_end(
    wire: Wire, token: str, game_id: str, ended: list[WireError]
) -> Callable[[], None]:
    """Streams opened with ``token`` on ``wire``: WatchPlayer and StreamGame of the seat the
    player holds in ``game_id`` (on gRPC also PlayerSession), each read to its end in a
    thread: the refusals they end with go in ``ended``."""
    authorization = f"Bearer {token}"
    game = pb.StreamGameRequest(game_id=game_id, seat=0, batched=True)

    def grpc_stream(open_call: Callable[[pb_grpc.RefereeServiceStub, Any], Any]) -> None:
        with grpc.insecure_channel(wire.server.address) as channel:
            stub = pb_grpc.RefereeServiceStub(channel)
            _read_grpc(open_call(stub, [("authorization", authorization)]), ended)

    def connect_stream(method: str, request: Message) -> None:
        assert wire.server.http is not None
        http = HttpTransport(wire.server.http.address, "connect")
        body = http._frame(request.SerializeToString())
        try:
            for _ in http._enveloped(method, body, {"Authorization": authorization}):
                pass
        except WireError as error:
            ended.append(error)

    readers: list[threading.Thread]
    if wire.name == "grpc":
        opens: list[Callable[[pb_grpc.RefereeServiceStub, Any], Any]] = [
            lambda stub, m: stub.WatchPlayer(pb.WatchPlayerRequest(), timeout=TIMEOUT, metadata=m),
            lambda stub, m: stub.PlayerSession(iter(()), timeout=TIMEOUT, metadata=m),
            lambda stub, m: stub.StreamGame(game, timeout=TIMEOUT, metadata=m),
        ]
        readers = [threading.Thread(target=grpc_stream, args=(o,)) for o in opens]
    else:
        calls: list[tuple[str, Message]] = [
            ("WatchPlayer", pb.WatchPlayerRequest()),
            ("StreamGame", game),
        ]
        readers = [threading.Thread(target=connect_stream, args=c) for c in calls]
    for reader in readers:
        reader.start()

    def join() -> None:
        for reader in readers:
            reader.join(TIMEOUT)

    return join


def _read_grpc(call: Any, ended: list[WireError]) -> None:
    try:
        for _ in call:
            pass
    except grpc.RpcError as error:
        failure: Any = error
        status = rpc_status.from_call(failure)
        assert status is not None
        ended.append(WireError(failure.code().name, failure.details() or "", status))


def test_rotate_token_replaces_the_token_and_ends_the_streams_opened_with_it(
    wire: Wire, server: RefereeServer
) -> None:
    registered = wire.call("Register", pb.RegisterRequest(name=_name(wire, "rotor")))
    old = registered.token
    game_id = _seated(wire, old)
    ended: list[WireError] = []
    join = _streams_until_end(wire, old, game_id, ended)
    streams = 3 if wire.name == "grpc" else 2
    _opened(server, streams)
    rotated = wire.call("RotateToken", pb.RotateTokenRequest(), old)
    assert rotated.player == registered.player
    assert rotated.token.startswith("acct-") and rotated.token != old
    join()
    assert len(ended) == streams, ended
    for error in ended:
        assert error.code == "UNAUTHENTICATED" and error.info is not None
        assert error.info.reason == "CREDENTIAL_REVOKED"
        assert old not in error.message and rotated.token not in error.message
    error = refusal(wire, "WhoAmI", pb.WhoAmIRequest(), old)
    assert (error.code, error.info and error.info.reason) == (
        "UNAUTHENTICATED",
        "CREDENTIAL_REVOKED",
    )
    assert wire.call("WhoAmI", pb.WhoAmIRequest(), rotated.token).player == registered.player
    # The old token cannot rotate again (nor take the new one's place).
    error = refusal(wire, "RotateToken", pb.RotateTokenRequest(), old)
    assert error.code == "UNAUTHENTICATED"
    _opened(server, 0)


def test_rotate_token_is_for_an_account_token(wire: Wire) -> None:
    error = refusal(wire, "RotateToken", pb.RotateTokenRequest())
    assert (error.code, error.info and error.info.reason) == (
        "UNAUTHENTICATED",
        "CREDENTIAL_MISSING",
    )
    platform = PLATFORM.token("pat", aud="referee")
    error = refusal(wire, "RotateToken", pb.RotateTokenRequest(), platform)
    assert (error.code, error.info and error.info.reason) == (
        "FAILED_PRECONDITION",
        "NOT_AN_ACCOUNT",
    )


def test_a_spectator_token_of_a_seated_player_sees_the_public_view_only(wire: Wire) -> None:
    """The platform's spectator token of a player holding seat 0 is refused that seat's view
    and stream (TOKEN_SCOPE) and gets the spectator's view without one: a token scoped to
    watching cannot be used to see a hand."""
    name = _name(wire, "seer")
    game_id = _seated(wire, PLATFORM.token(name, aud="referee"))
    watching = PLATFORM.token(name, aud="referee", role="spectator")
    for request in (
        pb.GetViewRequest(game_id=game_id, seat=0),
        pb.GetViewRequest(game_id=game_id, seat=1),
    ):
        error = refusal(wire, "GetView", request, watching)
        assert (error.code, error.info and error.info.reason) == (
            "PERMISSION_DENIED",
            "TOKEN_SCOPE",
        )
    view = wire.call("GetView", pb.GetViewRequest(game_id=game_id), watching).view
    assert not view.HasField("seat") and not view.legal_commands
    public = wire.call("GetView", pb.GetViewRequest(game_id=game_id, spectator=True)).view
    assert view == public
    with grpc.insecure_channel(wire.server.address) as channel:
        stream = pb_grpc.RefereeServiceStub(channel).StreamGame(
            pb.StreamGameRequest(game_id=game_id, seat=0),
            metadata=[("authorization", f"Bearer {watching}")],
            timeout=TIMEOUT,
        )
        with pytest.raises(grpc.RpcError) as caught:
            next(stream)
        assert caught.value.code() is grpc.StatusCode.PERMISSION_DENIED  # type: ignore[attr-defined]
