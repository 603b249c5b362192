"""The referee over HTTP (Connect and gRPC-Web) on a real port on loopback.

The same server also listens for gRPC, so several tests compare the two adapters on the same
calls: same responses, same error codes and the same ``google.rpc`` details.
"""

from __future__ import annotations

import base64
import itertools
import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import failure_of
from tests.web.connect import Connect, ConnectFailure

GAME = "vampire-queen"


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with running_server(
        store="memory:", grace_seconds=1.0, http="127.0.0.1:0", cors_origins=("http://ok.test",)
    ) as running:
        yield running


@pytest.fixture
def web(server: RefereeServer) -> Connect:
    assert server.http is not None
    return Connect(server.http.address)


@pytest.fixture
def stub(server: RefereeServer) -> Iterator[pb_grpc.RefereeServiceStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield pb_grpc.RefereeServiceStub(channel)


def create(web: Connect, players: int = 3) -> pb.CreateGameResponse:
    request = pb.CreateGameRequest(game_type=GAME, players=players, options={"rounds": "1"})
    return web.call("CreateGame", request, pb.CreateGameResponse)


def tokens_of(created: pb.CreateGameResponse) -> list[str]:
    return [s.token for s in sorted(created.seats, key=lambda s: s.seat)]


def play_to_end(web: Connect, created: pb.CreateGameResponse, rng: random.Random) -> int:
    """Random legal commands over HTTP until the game is over; returns the commands sent."""
    tokens = tokens_of(created)
    sent = 0
    while True:
        spectator = web.call(
            "GetView",
            pb.GetViewRequest(game_id=created.game_id, spectator=True),
            pb.GetViewResponse,
        ).view
        if spectator.game_over:
            return sent
        seat = spectator.pending_seats[0]
        view = web.call(
            "GetView",
            pb.GetViewRequest(game_id=created.game_id, seat_token=tokens[seat]),
            pb.GetViewResponse,
        ).view
        command = rng.choice(list(view.legal_commands))
        web.call(
            "SubmitCommand",
            pb.SubmitCommandRequest(
                game_id=created.game_id,
                seat_token=tokens[seat],
                command_id=str(uuid.uuid4()),
                command=command,
            ),
            pb.SubmitCommandResponse,
        )
        sent += 1


def test_list_game_types_json_and_binary_match_grpc(
    web: Connect, stub: pb_grpc.RefereeServiceStub
) -> None:
    over_grpc = stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=20)
    assert (
        web.call("ListGameTypes", pb.ListGameTypesRequest(), pb.ListGameTypesResponse) == over_grpc
    )
    as_json = web.call(
        "ListGameTypes", pb.ListGameTypesRequest(), pb.ListGameTypesResponse, binary=False
    )
    assert as_json == over_grpc
    # The curl form of the README: an empty JSON object, plain JSON back.
    status, headers, body = web.raw("ListGameTypes", b"{}", "application/json")
    assert status == 200 and headers["content-type"] == "application/json"
    assert {t["gameType"] for t in json.loads(body)["gameTypes"]} >= {GAME, "sleeping-queens"}


def test_a_game_played_over_http_is_the_same_game_over_grpc(
    web: Connect, stub: pb_grpc.RefereeServiceStub
) -> None:
    created = create(web)
    assert len(created.seats) == 3 and created.organiser_token
    play_to_end(web, created, random.Random(7))
    over_grpc = stub.GetGame(pb.GetGameRequest(game_id=created.game_id), timeout=20).game
    over_http = web.call("GetGame", pb.GetGameRequest(game_id=created.game_id), pb.GetGameResponse)
    assert over_http.game == over_grpc and over_grpc.game_over and over_grpc.results


def _grpc_details(error: grpc.RpcError) -> list[tuple[str, bytes]]:
    call = failure_of(error)
    status = status_pb2.Status.FromString(call.raw)
    return [(d.type_url.rsplit("/", 1)[-1], d.value) for d in status.details]


def _connect_details(failure: ConnectFailure) -> list[tuple[str, bytes]]:
    return [(d["type"], base64.b64decode(d["value"] + "==")) for d in failure.details]


def test_rule_violation_has_the_grpc_code_and_details(
    web: Connect, stub: pb_grpc.RefereeServiceStub
) -> None:
    created = create(web)
    tokens = tokens_of(created)
    view = web.call(
        "GetView", pb.GetViewRequest(game_id=created.game_id, spectator=True), pb.GetViewResponse
    ).view
    waiting = next(s for s in range(3) if s not in view.pending_seats)
    leader = view.pending_seats[0]
    legal = web.call(
        "GetView",
        pb.GetViewRequest(game_id=created.game_id, seat_token=tokens[leader]),
        pb.GetViewResponse,
    ).view.legal_commands[0]
    # Out of turn: FAILED_PRECONDITION with a rule id, the same over both adapters.
    request = pb.SubmitCommandRequest(
        game_id=created.game_id, seat_token=tokens[waiting], command_id="x", command=legal
    )
    with pytest.raises(ConnectFailure) as caught:
        web.call("SubmitCommand", request, pb.SubmitCommandResponse)
    with pytest.raises(grpc.RpcError) as over_grpc:
        stub.SubmitCommand(request, timeout=20)
    failure = caught.value
    assert (failure.http_status, failure.code) == (400, "failed_precondition")
    assert failure.rule_id is not None and failure.rule_id.startswith("VQ-")
    assert failure.message == failure_of(over_grpc.value).message
    assert failure.message.startswith(failure.rule_id + ":")
    assert _connect_details(failure) == _grpc_details(over_grpc.value)
    assert failure.detail(error_details_pb2.PreconditionFailure) is not None


def test_tokens_are_checked_over_http(web: Connect) -> None:
    created = create(web)
    other = create(web)
    cases = {
        "unauthenticated": pb.GetViewRequest(game_id=created.game_id),
        "permission_denied": pb.GetViewRequest(
            game_id=created.game_id, seat_token=other.seats[0].token
        ),
        "not_found": pb.GetViewRequest(game_id="no-such-game", spectator=True),
    }
    for code, request in cases.items():
        with pytest.raises(ConnectFailure) as caught:
            web.call("GetView", request, pb.GetViewResponse)
        assert caught.value.code == code, caught.value
        assert caught.value.info is not None and caught.value.info.domain == "referee.v1"
    # The organiser token aborts; a seat token may not.
    with pytest.raises(ConnectFailure) as caught:
        web.call(
            "AbortGame",
            pb.AbortGameRequest(game_id=created.game_id, organiser_token=created.seats[0].token),
            pb.AbortGameResponse,
        )
    assert caught.value.code == "permission_denied"
    aborted = web.call(
        "AbortGame",
        pb.AbortGameRequest(
            game_id=created.game_id, organiser_token=created.organiser_token, reason="test"
        ),
        pb.AbortGameResponse,
    )
    assert aborted.game.aborted


def test_bad_request_names_the_field(web: Connect) -> None:
    with pytest.raises(ConnectFailure) as caught:
        web.call(
            "CreateGame", pb.CreateGameRequest(game_type="nope", players=3), pb.CreateGameResponse
        )
    failure = caught.value
    assert (failure.http_status, failure.code) == (400, "invalid_argument")
    bad = failure.detail(error_details_pb2.BadRequest)
    assert bad is not None and bad.field_violations[0].field == "game_type"
    # Malformed bodies are the library's INVALID_ARGUMENT too, never internal.
    status, _, body = web.raw("CreateGame", b"{not json", "application/json")
    assert status == 400 and json.loads(body)["code"] == "invalid_argument"


@pytest.mark.parametrize("binary", [True, False], ids=["proto", "json"])
def test_stream_game_from_start_to_end_and_resume(web: Connect, binary: bool) -> None:
    created = create(web)
    play_to_end(web, created, random.Random(3))
    request = pb.StreamGameRequest(game_id=created.game_id, spectator=True)
    messages = list(web.stream(request, binary=binary))
    first, events = messages[0], messages[1:]
    assert not first.HasField("event") and first.HasField("view")
    sequences = [m.event.sequence for m in events]
    assert sequences == list(range(1, len(sequences) + 1))
    assert events[-1].view.game_over
    # Resume from the middle: exactly the rest, no gap, no duplicate.
    middle = sequences[len(sequences) // 2]
    request.after_sequence = middle
    resumed = [m.event.sequence for m in web.stream(request, binary=binary)][1:]
    assert resumed == sequences[middle:]


def test_a_live_stream_sees_commands_sent_over_http(web: Connect) -> None:
    created = create(web)
    tokens = tokens_of(created)
    before = created.game.version
    stream = web.stream(
        pb.StreamGameRequest(game_id=created.game_id, seat_token=tokens[0], after_sequence=before)
    )
    assert next(stream).view.version == before
    play_to_end(web, created, random.Random(5))
    rest = list(stream)
    assert [m.event.sequence for m in rest] == list(range(before + 1, before + 1 + len(rest)))
    assert rest[-1].view.game_over and rest[-1].view.seat == 0


def test_stream_errors_end_the_stream_with_details(web: Connect) -> None:
    with pytest.raises(ConnectFailure) as caught:
        list(web.stream(pb.StreamGameRequest(game_id="missing", spectator=True)))
    assert caught.value.code == "not_found" and caught.value.info is not None
    assert caught.value.info.reason == "GAME_NOT_FOUND"
    created = create(web)
    with pytest.raises(ConnectFailure) as caught:
        list(web.stream(pb.StreamGameRequest(game_id=created.game_id, after_sequence=10**6)))
    assert caught.value.code == "unauthenticated"


def test_grpc_web_unary_and_stream(web: Connect) -> None:
    messages, trailers = web.grpc_web(
        "ListGameTypes", pb.ListGameTypesRequest(), pb.ListGameTypesResponse
    )
    assert trailers["grpc-status"] == "0" and len(messages) == 1
    assert any(t.game_type == GAME for t in messages[0].game_types)
    created = create(web)
    streamed, trailers = web.grpc_web(
        "StreamGame",
        pb.StreamGameRequest(game_id="missing", spectator=True),
        pb.StreamGameResponse,
    )
    assert streamed == [] and trailers["grpc-status"] == str(grpc.StatusCode.NOT_FOUND.value[0])
    status = status_pb2.Status.FromString(
        base64.b64decode(trailers["grpc-status-details-bin"] + "==")
    )
    assert status.details and created.game_id


def test_metrics_count_http_calls_like_grpc_calls(server: RefereeServer, web: Connect) -> None:
    def handled(code: str) -> float:
        value = server.metrics.registry.get_sample_value(
            "grpc_server_handled_total",
            {
                "grpc_type": "unary",
                "grpc_service": "referee.v1.RefereeService",
                "grpc_method": "GetGame",
                "grpc_code": code,
            },
        )
        return value or 0.0

    before = handled("NOT_FOUND")
    with pytest.raises(ConnectFailure):
        web.call("GetGame", pb.GetGameRequest(game_id="missing"), pb.GetGameResponse)
    assert handled("NOT_FOUND") == before + 1


def test_cors_only_for_listed_origins(server: RefereeServer) -> None:
    assert server.http is not None
    allowed = Connect(server.http.address, origin="http://ok.test")
    status, headers, _ = allowed.raw("ListGameTypes", b"{}", "application/json")
    assert status == 200 and headers["access-control-allow-origin"] == "http://ok.test"
    status, headers, _ = allowed.raw("ListGameTypes", b"", "application/json", "OPTIONS")
    assert status == 204 and "connect-protocol-version" in headers["access-control-allow-headers"]
    other = Connect(server.http.address, origin="http://evil.test")
    status, headers, _ = other.raw("ListGameTypes", b"{}", "application/json")
    assert "access-control-allow-origin" not in headers  # the browser withholds the answer
    status, _, _ = other.raw("ListGameTypes", b"", "application/json", "OPTIONS")
    assert status == 403


def test_root_serves_the_web_client_or_says_how_to_build_it(tmp_path: Path) -> None:
    import http.client

    def get(address: str, path: str) -> tuple[int, bytes]:
        host, port = address.rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=20)
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()

    (tmp_path / "index.html").write_text("<title>built page</title>")
    for root, expect in ((tmp_path / "absent", b"make web"), (tmp_path, b"built page")):
        with running_server(store="memory:", http="127.0.0.1:0", web_root=str(root)) as running:
            assert running.http is not None
            status, body = get(running.http.address, "/")
            assert status == 200 and expect in body
            assert get(running.http.address, "/../pyproject.toml")[0] == 404
            assert get(running.http.address, "/healthz") == (200, b"ok\n")


def test_views_and_events_carry_display_text_over_both_adapters(
    web: Connect, stub: pb_grpc.RefereeServiceStub
) -> None:
    created = create(web)
    leader = stub.GetGame(pb.GetGameRequest(game_id=created.game_id), timeout=20).game
    seat = leader.pending_seats[0]
    request = pb.GetViewRequest(game_id=created.game_id, seat_token=tokens_of(created)[seat])
    view = web.call("GetView", request, pb.GetViewResponse).view
    assert len(view.legal_command_labels) == len(view.legal_commands) > 0
    assert "pass" not in view.legal_command_labels[:1]  # a leader may not pass (VQ-7)
    assert all(label.startswith(("play", "lead")) for label in view.legal_command_labels)
    assert stub.GetView(request, timeout=20).view == view
    stream = web.stream(pb.StreamGameRequest(game_id=created.game_id, spectator=True))
    streamed = list(itertools.islice(stream, 1 + created.game.version))  # the game runs on
    stream.close()
    described = [m.event.description for m in streamed[1:]]
    assert described and all(described)
    # A spectator's line of a deal says how many cards, never which (VQ-20).
    deals = [
        m.event.description for m in streamed[1:] if m.event.vampire_queen.HasField("hand_dealt")
    ]
    assert deals and all(d.endswith("is dealt 13 cards") or d.endswith("cards") for d in deals)


def test_the_http_socket_is_tcp_so_responses_are_not_delayed(server: RefereeServer) -> None:
    """asyncio disables Nagle only on sockets whose proto is TCP; a socket made without it
    held every two-part response ~40 ms for the client's delayed ACK."""
    import socket

    assert server.http is not None
    assert server.http.socket.proto == socket.IPPROTO_TCP


def test_bench_p9_measures_both_adapters_and_the_page(tmp_path: Path) -> None:
    """``referee bench --only P9``: the same pattern over gRPC and over Connect, in one run."""
    from referee.bench import http as bench_http

    found = bench_http.run(quick=True)
    for adapter in ("grpc", "connect"):
        assert found[adapter]["commands"] > 0 and found[adapter]["errors"] == 0
        assert found[adapter]["samples"] > 0
    assert found["commands_ratio"] > 0 and found["p99_ratio"] > 0
    if found["page"]["built"]:
        assert found["page"]["gzip_bytes"] > 0 and "/" in found["page"]["files"]
