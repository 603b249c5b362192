"""Seat tokens: every seat-scoped call checks them; spectators see public information only."""

from __future__ import annotations

import random
from collections.abc import Callable

import grpc
import pytest

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    DECK,
    Failure,
    Game,
    create_game,
    dealt_hand,
    fails,
    fixed_deal,
    snapshot,
    stream_fails,
    view,
    vq_command,
)

Call = Callable[[pb_grpc.RefereeServiceStub, Game, str], Failure]


def _get_view(stub: pb_grpc.RefereeServiceStub, game: Game, token: str) -> Failure:
    return fails(stub.GetView, pb.GetViewRequest(game_id=game.game_id, seat_token=token))


def _submit(stub: pb_grpc.RefereeServiceStub, game: Game, token: str) -> Failure:
    # The leader's Pass would be illegal (VQ-6), a non-leader's is not its turn: either way the
    # token must be refused before the command is looked at.
    request = pb.SubmitCommandRequest(
        game_id=game.game_id, seat_token=token, command_id="cmd-1", command=vq_command(pass_=True)
    )
    return fails(stub.SubmitCommand, request)


def _stream(stub: pb_grpc.RefereeServiceStub, game: Game, token: str) -> Failure:
    return stream_fails(stub, pb.StreamGameRequest(game_id=game.game_id, seat_token=token))


SEAT_CALLS = [
    pytest.param(_get_view, id="GetView"),
    pytest.param(_submit, id="SubmitCommand"),
    pytest.param(_stream, id="StreamGame"),
]


@pytest.mark.parametrize("call", SEAT_CALLS)
def test_missing_token_is_unauthenticated(stub: pb_grpc.RefereeServiceStub, call: Call) -> None:
    game = create_game(stub)
    before = snapshot(stub, game)
    failure = call(stub, game, "")
    assert failure.code is grpc.StatusCode.UNAUTHENTICATED, failure
    assert failure.info is not None
    assert snapshot(stub, game) == before


@pytest.mark.parametrize("call", SEAT_CALLS)
@pytest.mark.parametrize("which", ["other-game", "garbage", "other-game-other-seat"])
def test_wrong_token_is_permission_denied(
    stub: pb_grpc.RefereeServiceStub, call: Call, which: str
) -> None:
    game = create_game(stub)
    other = create_game(stub)
    before = snapshot(stub, game)
    token = {
        "other-game": other.tokens[0],
        "other-game-other-seat": other.tokens[2],
        "garbage": "not-a-token-\u00e9\u2603",
    }[which]
    failure = call(stub, game, token)
    assert failure.code is grpc.StatusCode.PERMISSION_DENIED, failure
    assert failure.info is not None
    assert token not in failure.message
    assert snapshot(stub, game) == before


def test_spectator_view_has_no_hand_and_no_commands(stub: pb_grpc.RefereeServiceStub) -> None:
    game = create_game(stub, players=4)
    spectator = view(stub, game, None)
    assert not spectator.HasField("seat")
    assert not spectator.legal_commands
    assert not spectator.vampire_queen.hand
    assert list(spectator.vampire_queen.hand_sizes) == [
        len(view(stub, game, s).vampire_queen.hand) for s in range(4)
    ]  # VQ-20: everyone knows how many cards each seat holds
    assert spectator.players == 4 and spectator.version == game.created.game.version


def test_spectator_flag_with_no_token_cannot_submit(stub: pb_grpc.RefereeServiceStub) -> None:
    game = create_game(stub)
    before = snapshot(stub, game)
    failure = fails(
        stub.SubmitCommand,
        pb.SubmitCommandRequest(
            game_id=game.game_id, command_id="spectating", command=vq_command(pass_=True)
        ),
    )
    assert failure.code is grpc.StatusCode.UNAUTHENTICATED
    assert snapshot(stub, game) == before


def test_a_seat_view_shows_only_its_own_hand(stub: pb_grpc.RefereeServiceStub) -> None:
    deck = random.Random(11).sample(DECK, len(DECK))
    players, pick = 4, 2
    game = create_game(stub, players=players, deal=fixed_deal(deck, pick))
    views = [view(stub, game, seat) for seat in range(players)]
    leader = (pick + 1) % players
    for seat, seat_view in enumerate(views):
        assert seat_view.seat == seat
        vampire = seat_view.vampire_queen
        assert sorted(vampire.hand) == dealt_hand(deck, seat, players, pick)
        assert list(vampire.hand_sizes) == [len(v.vampire_queen.hand) for v in views]
        # Legal commands only for the seat the game waits for.
        assert bool(seat_view.legal_commands) == (seat == leader)
    # Any seat's view, serialised, is the same whatever the other hands are (they are not in it):
    # swap two other seats' cards and compare.
    swapped = deck[:13] + deck[26:39] + deck[13:26] + deck[39:]
    assert dealt_hand(swapped, 1, players, pick) != dealt_hand(deck, 1, players, pick)
    twin = create_game(stub, players=players, deal=fixed_deal(swapped, pick))
    mine, theirs = view(stub, game, 0), view(stub, twin, 0)
    theirs.game_id = mine.game_id
    theirs.seed_commitment = mine.seed_commitment  # each game has its own secret seed
    assert mine == theirs
