"""FillWithBots over gRPC and Connect, on the house bots' server of
``test_house_bots_wire`` (one easy account, three normal): the organiser fills a waiting
game's open seats and the person plays it out; a wrong token, too few accounts and a game
already started are refused with their codes and leave the game as it was."""

from __future__ import annotations

from google.rpc import error_details_pb2

from referee.v1 import referee_pb2 as pb
from tests.server.test_house_bots_wire import Wire, person, play, server, wire
from tests.server.transports import WireError

__all__ = ["server", "wire"]  # the fixtures, used by name


def create(wire: Wire, token: str, game_type: str, players: int) -> pb.CreateGameResponse:
    requests = [pb.SeatRequest(mode=pb.SEAT_MODE_CREATOR)] + [
        pb.SeatRequest(mode=pb.SEAT_MODE_OPEN) for _ in range(players - 1)
    ]
    request = pb.CreateGameRequest(game_type=game_type, players=players, seat_requests=requests)
    created: pb.CreateGameResponse = wire.call("CreateGame", request, token)
    return created


def refused(wire: Wire, request: pb.FillWithBotsRequest, code: str, reason: str) -> None:
    before = wire.call("GetGame", pb.GetGameRequest(game_id=request.game_id)).game
    try:
        wire.call("FillWithBots", request)
    except WireError as error:
        assert error.code == code, error
        info = error.detail(error_details_pb2.ErrorInfo)
        assert info is not None and info.reason == reason, error
    else:
        raise AssertionError("FillWithBots was not refused")
    after = wire.call("GetGame", pb.GetGameRequest(game_id=request.game_id)).game
    if before.started:  # its bot plays on: the seats are what must not change
        assert (after.seat_holders, after.started) == (before.seat_holders, before.started)
    else:
        assert after == before


def test_the_organiser_fills_the_open_seats_and_the_game_is_played(wire: Wire) -> None:
    name, token = person(wire)
    created = create(wire, token, "sleeping-queens", 4)
    request = pb.FillWithBotsRequest(
        game_id=created.game_id, organiser_token=created.organiser_token
    )
    game = wire.call("FillWithBots", request).game
    assert game.started
    assert [h.player for h in game.seat_holders] == [
        name,
        "house-easy",
        "house-normal",
        "house-normal-2",
    ]
    assert play(wire, created.game_id, 0, token, seed=31).game_over


def test_refusals_leave_the_game_as_it_was(wire: Wire) -> None:
    _, token = person(wire)
    big = create(wire, token, "vampire-queen", 6)  # five open seats, four accounts
    refused(
        wire,
        pb.FillWithBotsRequest(game_id=big.game_id, organiser_token="organiser-nope"),
        "PERMISSION_DENIED",
        "TOKEN_INVALID",
    )
    refused(
        wire,
        pb.FillWithBotsRequest(game_id=big.game_id, organiser_token=big.organiser_token),
        "FAILED_PRECONDITION",
        "NOT_ENOUGH_HOUSE_BOTS",
    )
    small = create(wire, token, "dracula-vs-van-helsing", 2)
    fill = pb.FillWithBotsRequest(
        game_id=small.game_id, organiser_token=small.organiser_token, level="normal"
    )
    assert wire.call("FillWithBots", fill).game.started
    refused(wire, fill, "FAILED_PRECONDITION", "GAME_STARTED")
