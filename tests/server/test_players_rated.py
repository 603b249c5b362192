"""A rated game over the wire, from accounts to the leaderboard: two
players register, a game reserves a seat for each, each claims its seat with its credential,
they play to the end with their seat tokens, and GetRatings/GetLeaderboard then show the
model's update, over gRPC and Connect."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest

from referee.ratings_model import plackett_luce
from referee.server.app import RefereeServer
from referee.v1 import referee_pb2 as pb
from tests.server.test_players_wire import WIRES, Wire, _serve

DV = "dracula-vs-van-helsing"


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with _serve(open_registration=True) as served:
        yield served


@pytest.mark.parametrize("wire_name", WIRES)
def test_a_rated_game_shows_in_the_ratings_and_the_leaderboard(
    server: RefereeServer, wire_name: str
) -> None:
    wire = Wire(wire_name, server)
    names = [f"ann-{wire_name}", f"bob-{wire_name}"]
    credentials = [wire.call("Register", pb.RegisterRequest(name=n)).token for n in names]
    created = wire.call(
        "CreateGame",
        pb.CreateGameRequest(
            game_type=DV,
            players=2,
            rated=True,
            seat_requests=[
                pb.SeatRequest(mode=pb.SEAT_MODE_RESERVED, player=name) for name in names
            ],
        ),
    )
    game_id = created.game_id
    tokens = [
        wire.call(
            "ClaimSeat", pb.ClaimSeatRequest(game_id=game_id, seat=seat), credential
        ).seat_token
        for seat, credential in enumerate(credentials)
    ]
    rng = random.Random(11)
    for number in range(10_000):
        game = wire.call("GetGame", pb.GetGameRequest(game_id=game_id)).game
        if game.game_over:
            break
        seat = game.pending_seats[0]
        view = wire.call("GetView", pb.GetViewRequest(game_id=game_id, seat_token=tokens[seat]))
        command = rng.choice(list(view.view.legal_commands))
        wire.call(
            "SubmitCommand",
            pb.SubmitCommandRequest(
                game_id=game_id, seat_token=tokens[seat], command_id=f"c{number}", command=command
            ),
        )
    ranks = {r.seat: r.rank for r in game.results}
    assert game.rated and len(ranks) == 2
    model = plackett_luce()
    expected = model.rate([[model.rating()], [model.rating()]], ranks=[ranks[0], ranks[1]])
    deadline = time.monotonic() + 20
    while True:  # the rating is written just after the end (the game's end hook)
        mine = wire.call("GetRatings", pb.GetRatingsRequest(), credentials[0]).ratings
        if mine or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert [(r.game_type, r.games) for r in mine] == [(DV, 1)]
    assert mine[0].mu == pytest.approx(expected[0][0].mu)
    theirs = wire.call("GetRatings", pb.GetRatingsRequest(player=names[1])).ratings
    assert theirs[0].mu == pytest.approx(expected[1][0].mu)
    board = wire.call("GetLeaderboard", pb.GetLeaderboardRequest(game_type=DV, limit=1000))
    placed = [r.player for r in board.ratings if r.player in names]
    best_first = sorted(names, key=lambda n: -(mine[0] if n == names[0] else theirs[0]).ordinal)
    assert placed == best_first
