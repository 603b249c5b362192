"""Results, the organiser's removal of a seat and presence over the wire, gRPC and Connect on a
real server: each seat's end, rule and reason in SeatResult, the ranking and the seats that
left in views and summaries, Resign with the organiser token (and its refusals), GetPresence,
a rated game that asks for the rules' ranking refused. The behaviour itself is tested at the
application layer (tests/application/test_results.py, test_presence.py); here, the mapping."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import grpc
import pytest

from referee.application.players.accounts import PlayerSettings
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.test_seats_wire import DV, WIRES, Wire, coded, refusal, register
from tests.server.transports import WireError


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    players = PlayerSettings(open_registration=True)
    with running_server(store="memory:", http="127.0.0.1:0", players=players) as running:
        yield running


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest, server: RefereeServer) -> Wire:
    return Wire(request.param, server)


def _drain(call: grpc.Future) -> None:
    """Read a stream until it is cancelled."""
    with contextlib.suppress(grpc.RpcError):
        for _ in call:
            pass


def test_the_organiser_removes_a_seat_and_the_result_says_how_each_seat_ended(
    wire: Wire,
) -> None:
    request = pb.CreateGameRequest(
        game_type=DV, players=2, ranking=pb.RANKING_FINISHERS_FIRST, seed="x" * 30
    )
    request.public_reproducible_seed = True
    created = wire.call("CreateGame", request)
    game_id, organiser = created.game_id, created.organiser_token
    tokens = {s.seat: s.token for s in created.seats}
    assert created.game.ranking == pb.RANKING_FINISHERS_FIRST

    no_seat = refusal(wire, "Resign", pb.ResignRequest(game_id=game_id, organiser_token=organiser))
    assert coded(no_seat)[0] == "INVALID_ARGUMENT"
    wrong = refusal(
        wire, "Resign", pb.ResignRequest(game_id=game_id, seat=0, organiser_token="org-wrong")
    )
    assert coded(wrong)[0] == "PERMISSION_DENIED"
    unasked = refusal(
        wire, "Resign", pb.ResignRequest(game_id=game_id, seat_token=tokens[0], reason="why")
    )
    assert coded(unasked)[0] == "INVALID_ARGUMENT"

    removed = wire.call(
        "Resign",
        pb.ResignRequest(game_id=game_id, seat=0, organiser_token=organiser, reason="crash: 3"),
    ).game
    [gone] = removed.seats_left
    assert (gone.seat, gone.end, gone.rule_id) == (0, pb.SEAT_END_ABANDONED, "ABANDONED")
    assert gone.reason == "seat 0 abandoned the game: the organiser removed it: crash: 3"
    again = refusal(
        wire, "Resign", pb.ResignRequest(game_id=game_id, seat=0, organiser_token=organiser)
    )
    assert coded(again) == ("FAILED_PRECONDITION", "ALREADY_LEFT")

    # Seat 1 plays on; seat 0 is never pending; the referee finishes it.
    for number in range(2000):
        view = wire.call("GetView", pb.GetViewRequest(game_id=game_id, seat_token=tokens[1])).view
        assert 0 not in view.pending_seats and [g.seat for g in view.seats_left] == [0]
        if view.game_over:
            break
        if 1 in view.pending_seats and view.legal_commands:
            submit = pb.SubmitCommandRequest(
                game_id=game_id,
                seat_token=tokens[1],
                command_id=f"m{number}",
                command=view.legal_commands[0],
                expected_version=view.version,
            )
            with contextlib.suppress(WireError):  # the referee moved first: a stale view
                wire.call("SubmitCommand", submit)
    assert view.game_over and view.ranking == pb.RANKING_FINISHERS_FIRST
    left, stayed = sorted(view.results, key=lambda r: r.seat)
    assert (left.rank, left.end, left.end_rule_id, left.left_at_version > 0) == (
        2,
        pb.SEAT_END_ABANDONED,
        "ABANDONED",
        True,
    )
    assert left.end_reason == gone.reason and left.rules_rank in (1, 2)
    assert (stayed.rank, stayed.end, stayed.end_rule_id) == (1, pb.SEAT_END_FINISHED, "")
    summary = wire.call("GetGame", pb.GetGameRequest(game_id=game_id)).game
    assert list(summary.results) == list(view.results)
    refused = refusal(
        wire,
        "SubmitCommand",
        pb.SubmitCommandRequest(game_id=game_id, seat_token=tokens[0], command_id="late"),
    )
    assert coded(refused)[0] in ("FAILED_PRECONDITION", "INVALID_ARGUMENT")


def test_a_rated_game_cannot_keep_the_rules_ranking(wire: Wire) -> None:
    host = register(wire, "rated-host")
    request = pb.CreateGameRequest(
        game_type=DV,
        players=2,
        rated=True,
        ranking=pb.RANKING_RULES,
        seat_requests=[
            pb.SeatRequest(mode=pb.SEAT_MODE_CREATOR),
            pb.SeatRequest(mode=pb.SEAT_MODE_OPEN),
        ],
    )
    error = refusal(wire, "CreateGame", request, host)
    assert coded(error)[0] == "INVALID_ARGUMENT" and "ranking" in error.message


def test_get_presence_says_who_has_a_player_stream_open(wire: Wire) -> None:
    credential = register(wire, "present")
    name = wire.call("WhoAmI", pb.WhoAmIRequest(), credential).player.name
    asked = pb.GetPresenceRequest(players=[name, "nobody-here"])
    assert [(p.player, p.online) for p in wire.call("GetPresence", asked).players] == [
        (name, False),
        ("nobody-here", False),
    ]
    with grpc.insecure_channel(wire.server.address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        call = stub.WatchPlayer(
            pb.WatchPlayerRequest(), metadata=[("authorization", f"Bearer {credential}")]
        )
        reader = threading.Thread(target=_drain, args=(call,), daemon=True)
        reader.start()
        try:
            for _ in range(500):
                if wire.call("GetPresence", asked).players[0].online:
                    break
                threading.Event().wait(0.02)
            assert [p.online for p in wire.call("GetPresence", asked).players] == [True, False]
        finally:
            call.cancel()
    empty = refusal(wire, "GetPresence", pb.GetPresenceRequest())
    assert coded(empty)[0] == "INVALID_ARGUMENT"
    bad = refusal(wire, "GetPresence", pb.GetPresenceRequest(players=["no spaces"]))
    assert coded(bad)[0] == "INVALID_ARGUMENT"
