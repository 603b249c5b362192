"""The wire mapping, the same over every wire: gRPC, Connect, gRPC-Web and gRPC-Web text.

Each test runs once per wire (``wire`` is parametrised) against a real server on loopback
that listens for gRPC and HTTP: the same calls must get the same responses, the same codes
and the same ``google.rpc`` details, and streams the same messages, limits and endings.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import random
import socket
import struct
import time
import uuid
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import any_pb2, json_format
from google.rpc import error_details_pb2

from referee.application import Limits
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from tests.server.conftest import SERVICE, wait_for
from tests.server.transports import (
    WIRES,
    GrpcTransport,
    HttpTransport,
    Transport,
    WireError,
    transport,
)

GAME = "vampire-queen"


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with running_server(store="memory:", grace_seconds=1.0, http="127.0.0.1:0") as running:
        yield running


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def client_of(server: RefereeServer, wire: str, small: bool = False) -> Transport:
    assert server.http is not None
    return transport(wire, server.address, server.http.address, small)


@pytest.fixture
def client(server: RefereeServer, wire: str) -> Iterator[Transport]:
    made = client_of(server, wire)
    yield made
    made.close()


@pytest.fixture
def grpc_client(server: RefereeServer) -> Iterator[Transport]:
    made = client_of(server, "grpc")
    yield made
    made.close()


def fails(client: Transport, method: str, request: object) -> WireError:
    with pytest.raises(WireError) as caught:
        client.call(method, request)  # type: ignore[arg-type]
    return caught.value


def create(client: Transport, players: int = 3, **options: str) -> pb.CreateGameResponse:
    options.setdefault("rounds", "1")
    request = pb.CreateGameRequest(game_type=GAME, players=players, options=options)
    created: pb.CreateGameResponse = client.call("CreateGame", request)
    return created


def tokens_of(created: pb.CreateGameResponse) -> list[str]:
    return [s.token for s in sorted(created.seats, key=lambda s: s.seat)]


def play(client: Transport, created: pb.CreateGameResponse, rng: random.Random, most: int) -> int:
    """Random legal commands until the game is over or ``most`` were sent; returns the
    game's version."""
    tokens = tokens_of(created)
    game_id = created.game_id
    for _ in range(most):
        game = client.call("GetGame", pb.GetGameRequest(game_id=game_id)).game
        if game.game_over:
            return int(game.version)
        seat = game.pending_seats[0]
        view = client.call(
            "GetView", pb.GetViewRequest(game_id=game_id, seat_token=tokens[seat])
        ).view
        client.call(
            "SubmitCommand",
            pb.SubmitCommandRequest(
                game_id=game_id,
                seat_token=tokens[seat],
                command_id=uuid.uuid4().hex,
                command=rng.choice(list(view.legal_commands)),
            ),
        )
    return int(client.call("GetGame", pb.GetGameRequest(game_id=game_id)).game.version)


def handled(server: RefereeServer, method: str, code: str, kind: str = "unary") -> float:
    value = server.metrics.registry.get_sample_value(
        "grpc_server_handled_total",
        {
            "grpc_type": kind,
            "grpc_service": "referee.v1.RefereeService",
            "grpc_method": method,
            "grpc_code": code,
        },
    )
    return value or 0.0


# --- unary calls ------------------------------------------------------------------------------


def test_a_game_made_and_read_over_a_wire_is_the_game_over_grpc(
    client: Transport, grpc_client: Transport
) -> None:
    created = create(client)
    assert len(created.seats) == 3 and created.organiser_token
    play(client, created, random.Random(1), 5)
    request = pb.GetGameRequest(game_id=created.game_id)
    assert client.call("GetGame", request) == grpc_client.call("GetGame", request)
    types = client.call("ListGameTypes", pb.ListGameTypesRequest())
    assert types == grpc_client.call("ListGameTypes", pb.ListGameTypesRequest())


def test_connect_json_unary_calls_are_the_binary_ones(server: RefereeServer) -> None:
    assert server.http is not None
    as_json = HttpTransport(server.http.address, "connect", json=True)
    binary = HttpTransport(server.http.address, "connect")
    created = create(as_json)
    request = pb.GetGameRequest(game_id=created.game_id)
    assert as_json.call("GetGame", request) == binary.call("GetGame", request)


def _refusals(client: Transport) -> dict[str, tuple[str, object]]:
    """Requests the referee refuses, one per kind of refusal: method and request by name."""
    created = create(client)
    other = create(client)
    tokens = tokens_of(created)
    game = client.call("GetGame", pb.GetGameRequest(game_id=created.game_id)).game
    leader = game.pending_seats[0]
    waiting = next(s for s in range(3) if s not in game.pending_seats)
    legal = client.call(
        "GetView", pb.GetViewRequest(game_id=created.game_id, seat_token=tokens[leader])
    ).view.legal_commands[0]

    def submit(seat: int, **extra: int) -> pb.SubmitCommandRequest:
        return pb.SubmitCommandRequest(
            game_id=created.game_id,
            seat_token=tokens[seat],
            command_id=uuid.uuid4().hex,
            command=legal,
            **extra,
        )

    return {
        "NOT_FOUND": ("GetGame", pb.GetGameRequest(game_id="no-such-game")),
        "INVALID_ARGUMENT": ("CreateGame", pb.CreateGameRequest(game_type="nope", players=3)),
        "UNAUTHENTICATED": ("GetView", pb.GetViewRequest(game_id=created.game_id)),
        "PERMISSION_DENIED": (
            "GetView",
            pb.GetViewRequest(game_id=created.game_id, seat_token=other.seats[0].token),
        ),
        "FAILED_PRECONDITION": ("SubmitCommand", submit(waiting)),
        "ABORTED": ("SubmitCommand", submit(leader, expected_version=game.version - 1)),
    }


#: The HTTP status of each code in a Connect unary error (the Connect protocol's table).
CONNECT_HTTP = {
    "NOT_FOUND": 404,
    "INVALID_ARGUMENT": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "FAILED_PRECONDITION": 400,
    "ABORTED": 409,
}


def test_every_kind_of_refusal_has_the_same_status_on_every_wire(
    client: Transport, grpc_client: Transport
) -> None:
    for code, (method, request) in _refusals(client).items():
        failure = fails(client, method, request)
        assert failure.code == code, (code, failure)
        assert failure.info is not None and failure.info.domain == "referee.v1", failure
        over_grpc = fails(grpc_client, method, request)
        # The same google.rpc.Status, byte for byte: code, message and every detail.
        assert failure.status.SerializeToString(deterministic=True) == (
            over_grpc.status.SerializeToString(deterministic=True)
        ), code
        if client.name == "connect":
            assert failure.http_status == CONNECT_HTTP[code], (code, failure.http_status)
        if code == "INVALID_ARGUMENT":
            assert failure.fields == ["game_type"]
        if code == "FAILED_PRECONDITION":
            assert failure.detail(error_details_pb2.PreconditionFailure) is not None
            assert failure.metadata["rule_id"].startswith("VQ-")


def test_a_plain_json_client_reads_every_details_fields(server: RefereeServer) -> None:
    """A Connect JSON error carries each detail's fields as JSON too (``debug``), so a client
    with no protobuf decoder reads ``reason`` and ``rule_id``: the same fields the packed
    ``value`` holds."""
    assert server.http is not None
    binary = HttpTransport(server.http.address, "connect")
    for code, (method, request) in _refusals(binary).items():
        status, _, data = binary.post(
            f"/{SERVICE}/{method}",
            json_format.MessageToJson(request).encode(),
            {"Content-Type": "application/json"},
        )
        error = json.loads(data)
        assert (status, error["code"]) == (CONNECT_HTTP[code], code.lower()), error
        for detail in error["details"]:
            packed = any_pb2.Any(
                type_url=f"type.googleapis.com/{detail['type']}",
                value=base64.b64decode(detail["value"] + "=="),
            )
            kind = getattr(error_details_pb2, detail["type"].rsplit(".", 1)[-1])
            unpacked = kind()
            assert packed.Unpack(unpacked)
            assert detail["debug"] == json_format.MessageToDict(unpacked), detail
        info = next(d["debug"] for d in error["details"] if d["type"] == "google.rpc.ErrorInfo")
        assert info["domain"] == "referee.v1"
        if code == "FAILED_PRECONDITION":
            assert info["reason"] == "NOT_YOUR_TURN"
            assert info["metadata"]["rule_id"].startswith("VQ-")


def test_a_retried_create_with_its_request_id_is_the_same_game(client: Transport) -> None:
    request = pb.CreateGameRequest(game_type=GAME, players=3, request_id=str(uuid.uuid4()))
    first = client.call("CreateGame", request)
    again = client.call("CreateGame", request)
    assert again.game_id == first.game_id
    assert [s.token for s in again.seats] == [s.token for s in first.seats]
    request.players = 4
    assert fails(client, "CreateGame", request).fields == ["request_id"]


def test_the_list_calls_page(server: RefereeServer, client: Transport) -> None:
    """ListGames's paging, as every list call has it (ListLobby, ListChallenges and
    GetLeaderboard page alike: referee/server/pages.py)."""
    for _ in range(3):
        create(client)
    first = client.call("ListGames", pb.ListGamesRequest(page_size=2))
    assert len(first.games) == 2 and first.next_page_token
    rest = client.call(
        "ListGames", pb.ListGamesRequest(page_size=1000, page_token=first.next_page_token)
    )
    assert not {g.game_id for g in rest.games} & {g.game_id for g in first.games}
    assert rest.next_page_token == ""
    bad = fails(client, "ListLobby", pb.ListLobbyRequest(page_token="not-a-token"))
    assert bad.fields == ["page_token"]
    assert client.call("ListLobby", pb.ListLobbyRequest(page_size=1)).next_page_token == ""


def test_bytes_that_are_not_a_request_are_invalid_argument_and_counted(
    server: RefereeServer, client: Transport
) -> None:
    before = handled(server, "CreateGame", "INVALID_ARGUMENT")
    with pytest.raises(WireError) as caught:
        client.call_bytes("CreateGame", b"\xff\xff\xff\xff")
    assert caught.value.code == "INVALID_ARGUMENT" and caught.value.fields == ["request"]
    assert handled(server, "CreateGame", "INVALID_ARGUMENT") == before + 1


# --- streams ----------------------------------------------------------------------------------


def _events(messages: list[pb.StreamGameResponse]) -> list[int]:
    return [e.sequence for m in messages for e in ([m.event] if m.HasField("event") else m.events)]


def _read_through(
    stream: Iterator[pb.StreamGameResponse], sequence: int
) -> list[pb.StreamGameResponse]:
    """A stream's messages up to the one with the event ``sequence``."""
    messages: list[pb.StreamGameResponse] = []
    for message in stream:
        messages.append(message)
        if _events(messages) and _events(messages)[-1] >= sequence:
            break
    return messages


@pytest.mark.parametrize("batched", [False, True], ids=["plain", "batched"])
def test_a_stream_marks_where_its_history_ends(client: Transport, batched: bool) -> None:
    """``caught_up`` on the message that reaches the version the game had
    when the stream opened; every message after it is a live update."""
    created = create(client)
    opened = play(client, created, random.Random(2), 6)
    stream = client.stream(
        pb.StreamGameRequest(game_id=created.game_id, spectator=True, batched=batched)
    )
    history = _read_through(stream, opened)
    assert [m.caught_up for m in history] == [False] * (len(history) - 1) + [True]
    assert _events(history) == list(range(1, opened + 1))
    # Live updates from here on: none of them is marked.
    final = play(client, created, random.Random(3), 10_000)
    live = list(stream)
    assert _events(live) == list(range(opened + 1, final + 1))
    assert live and not any(m.caught_up for m in live)
    # With no history to replay, the first message is the one that catches up.
    resumed = client.stream(
        pb.StreamGameRequest(game_id=created.game_id, spectator=True, after_sequence=final)
    )
    first = next(resumed)
    assert first.caught_up and not first.HasField("event")
    assert list(resumed) == []  # the game is over: the stream ends with OK


def test_a_stream_refused_before_its_first_message(client: Transport) -> None:
    messages, failure = client.read_stream(
        pb.StreamGameRequest(game_id="no-such-game", spectator=True)
    )
    assert messages == [] and failure is not None
    assert failure.code == "NOT_FOUND" and failure.info is not None
    assert failure.info.reason == "GAME_NOT_FOUND"


@contextlib.contextmanager
def limited(limits: Limits) -> Iterator[tuple[RefereeServer, Transport]]:
    """A server of its own with ``limits``, and a gRPC client of it."""
    with running_server(
        store="memory:", limits=limits, grace_seconds=1.0, http="127.0.0.1:0"
    ) as server:
        client = client_of(server, "grpc")
        yield server, client
        client.close()


def _stalled_stream(
    server: RefereeServer, wire: str, created: pb.CreateGameResponse
) -> tuple[Transport, Iterator[pb.StreamGameResponse]]:
    """A spectator's stream that has taken its first message and then reads no more, on a
    connection that holds little, so the server's writes to it block soon."""
    assert server.http is not None
    # Sockets the HTTP port accepts inherit the listening socket's send buffer.
    server.http.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    stalled = client_of(server, wire, small=True)
    stream = stalled.stream(pb.StreamGameRequest(game_id=created.game_id, spectator=True))
    assert not next(stream).HasField("event")
    return stalled, stream


def test_a_stalled_stream_ends_with_resource_exhausted_and_frees_its_slot(wire: str) -> None:
    """The same stall limit and error on every wire, counted by the code the client gets."""
    limits = Limits(max_streams=1, stream_stall_seconds=1.0)
    with limited(limits) as (server, client):
        created = create(client, players=12, rounds="3")
        stalled, stream = _stalled_stream(server, wire, created)
        assert server.referee.streams == 1
        rng = random.Random(3)
        while (
            server.referee.streams
            and play(client, created, rng, 40)
            and not (
                client.call("GetGame", pb.GetGameRequest(game_id=created.game_id)).game.game_over
            )
        ):
            pass
        wait_for(lambda: server.referee.streams == 0, "the stalled stream to be ended", 30)
        # The stalled client learns why when it reads again, and can resume from there: at
        # once here, since over HTTP/1.1 the connection of a reader who stays away longer
        # than the stall limit is closed.
        received = 0
        with pytest.raises(WireError) as caught:
            for message in stream:
                received = max([received, *_events([message])])
        failure = caught.value
        assert failure.code == "RESOURCE_EXHAUSTED", failure
        assert failure.metadata["limit"] == "stream stall seconds"
        assert 0 < int(failure.metadata["last_sequence"]) <= received
        stalled.close()
        assert handled(server, "StreamGame", "RESOURCE_EXHAUSTED", "server_stream") == 1
        assert handled(server, "StreamGame", "CANCELLED", "server_stream") == 0
        # The slot is free for someone else.
        other = create(client)
        other_stream = client.stream(pb.StreamGameRequest(game_id=other.game_id, spectator=True))
        assert next(other_stream)
        other_stream.close()


def test_a_reader_that_falls_behind_is_cut_off_and_resumes_exactly(wire: str) -> None:
    """A stream more than ``stream_buffer`` events behind the live game ends with
    RESOURCE_EXHAUSTED and the sequence to resume after, as soon as it is (here while it
    still replays the history, not only once the whole history is sent), and the rest comes
    on resuming."""
    limits = Limits(stream_buffer=8, stream_stall_seconds=0)
    with limited(limits) as (server, client):
        created = create(client, players=12, rounds="20")
        # A history long enough to fill what the connection holds (on HTTP, tens of kB).
        opened = play(client, created, random.Random(4), 200)
        stalled, stream = _stalled_stream(server, wire, created)
        version = play(client, created, random.Random(5), 40)  # the game runs on, live
        assert version - opened > limits.stream_buffer
        assert not client.call("GetGame", pb.GetGameRequest(game_id=created.game_id)).game.game_over
        delivered: list[pb.StreamGameResponse] = []
        with pytest.raises(WireError) as caught:
            delivered.extend(stream)
        failure = caught.value
        assert failure.code == "RESOURCE_EXHAUSTED", failure
        assert failure.metadata["limit"] == "stream buffer"
        last = int(failure.metadata["last_sequence"])
        assert _events(delivered) == list(range(1, last + 1)), "no gap before the end"
        assert last < opened, "the stream was cut off only after replaying all its history"
        rest = client.stream(
            pb.StreamGameRequest(game_id=created.game_id, spectator=True, after_sequence=last)
        )
        resumed = _read_through(rest, version)
        assert _events(resumed) == list(range(last + 1, version + 1)), "nothing lost or twice"
        wait_for(lambda: server.referee.streams <= 1, "the cut-off stream to be freed", 30)
        stalled.close()


# --- what only the HTTP port can be sent ----------------------------------------------------


def _post(
    server: RefereeServer, path: str, body: bytes, **headers: str
) -> tuple[int, dict[str, str], bytes]:
    assert server.http is not None
    http = HttpTransport(server.http.address, "connect")
    return http.post(path, body, {k.replace("_", "-"): v for k, v in headers.items()})


def refused(server: RefereeServer, what: str) -> float:
    value = server.metrics.registry.get_sample_value(
        "referee_http_refused_total",
        {
            "grpc_code": {"unknown_method": "UNIMPLEMENTED"}.get(what, "INVALID_ARGUMENT"),
            "what": what,
        },
    )
    return value or 0.0


def test_a_body_that_is_not_gzip_is_invalid_argument(server: RefereeServer) -> None:
    """A body sent as gzip that is not gzip is the client's mistake: INVALID_ARGUMENT, counted
    as refused (``bad_gzip``), never HTTP 500 ``unknown``."""
    before = refused(server, "bad_gzip"), handled(server, "CreateGame", "INVALID_ARGUMENT")
    request = pb.CreateGameRequest(game_type=GAME, players=3).SerializeToString()
    status, _, body = _post(
        server,
        "/referee.v1.RefereeService/CreateGame",
        request,
        Content_Type="application/proto",
        Content_Encoding="gzip",
    )
    assert status == 400 and b'"invalid_argument"' in body
    after = refused(server, "bad_gzip"), handled(server, "CreateGame", "INVALID_ARGUMENT")
    assert after == (before[0] + 1, before[1] + 1)
    # A real gzip body is read.
    status, _, _ = _post(
        server,
        "/referee.v1.RefereeService/ListGameTypes",
        gzip.compress(b""),
        Content_Type="application/proto",
        Content_Encoding="gzip",
    )
    assert status == 200


@pytest.mark.parametrize("wire", ["connect", "grpc-web"])
def test_a_bad_envelope_on_a_stream_gets_the_code_a_client_expects(
    server: RefereeServer, wire: str
) -> None:
    """A truncated envelope is invalid_argument, one longer than the message limit
    resource_exhausted: neither is ``unimplemented``, which would say the method is missing."""
    assert server.http is not None
    client = HttpTransport(server.http.address, wire)
    request = pb.StreamGameRequest(game_id="x", spectator=True).SerializeToString()
    whole = struct.pack(">BI", 0, len(request)) + request
    for body, code in (
        (whole[:3], "INVALID_ARGUMENT"),
        (whole[:-2], "INVALID_ARGUMENT"),
        (struct.pack(">BI", 0, 64 * 1024 * 1024) + request, "RESOURCE_EXHAUSTED"),
    ):
        failures = list(_enveloped_failures(client, body))
        assert [f.code for f in failures] == [code], (body[:8], failures)


def _enveloped_failures(client: HttpTransport, body: bytes) -> Iterator[WireError]:
    try:
        list(client._enveloped("StreamGame", body))
    except WireError as failure:
        yield failure


def test_an_unknown_service_is_unimplemented_like_an_unknown_method(
    server: RefereeServer, wire: str
) -> None:
    """An unknown service gets what an unknown method gets (HTTP 404 ``unimplemented``), not
    a 405."""
    paths = ("/referee.v1.RefereeService/NoSuchMethod", "/no.such.Service/GetGame")
    if wire == "grpc":
        client = client_of(server, "grpc")
        assert isinstance(client, GrpcTransport)
        for path in paths:
            with pytest.raises(grpc.RpcError) as caught:
                client.channel.unary_unary(path)(b"", timeout=20)
            assert caught.value.code() is grpc.StatusCode.UNIMPLEMENTED  # type: ignore[attr-defined]
        client.close()
        return
    before = refused(server, "unknown_method")
    for path in paths:
        status, headers, body = _post(server, path, b"{}", Content_Type="application/json")
        assert status == 404 and b'"unimplemented"' in body, (path, status, body)
        assert headers["content-type"] == "application/json"
    assert refused(server, "unknown_method") == before + 2


def test_shutdown_ends_every_stream_at_once_with_unavailable(wire: str) -> None:
    """Streams open at a stop, and streams opened while it drains, end at
    once with UNAVAILABLE (reason SHUTDOWN), and the server stops when they have, not after
    its grace period."""
    from tests.server.test_ops import Served

    process = Served("--http", "127.0.0.1:0", "--grace-seconds", "30", "--drain-seconds", "3")
    try:
        record = next(r for r in map(_json, process.lines) if r.get("event") == "serving")
        http_address = record["http"].removeprefix("http://").rstrip("/")
        client = transport(wire, process.address, http_address)
        created = create(client)
        open_stream = client.stream(pb.StreamGameRequest(game_id=created.game_id, spectator=True))
        assert next(open_stream).view.version == created.game.version
        started = time.monotonic()
        process.process.send_signal(15)
        ended = []
        with pytest.raises(WireError) as caught:
            list(open_stream)
        ended.append(caught.value)
        # Streams opened while the server drains: refused at once, told to resume.
        while time.monotonic() - started < 1.5:
            try:
                messages, failure = client.read_stream(
                    pb.StreamGameRequest(game_id=created.game_id, spectator=True)
                )
            except (OSError, ConnectionError):
                break  # the port has closed
            if failure is not None and failure.info is None:
                break  # refused by gRPC itself, past the drain: the port is closing
            assert failure is not None, f"a stream opened while draining sent {messages}"
            ended.append(failure)
            time.sleep(0.1)
        code = process.process.wait(20)
        seconds = time.monotonic() - started
    finally:
        if process.process.poll() is None:
            process.process.kill()
    assert len(ended) > 1, "no stream was opened while the server drained"
    for failure in ended:
        assert failure.code == "UNAVAILABLE", failure
        assert failure.info is not None and failure.info.reason == "SHUTDOWN", failure
    assert code == 0
    assert seconds < 15, f"took {seconds:.1f} s to stop (drain 3 s, grace 30 s)"


def _json(line: str) -> dict[str, object]:
    import json

    try:
        record = json.loads(line)
    except ValueError:
        return {}
    return record if isinstance(record, dict) else {}
