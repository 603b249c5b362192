"""What a host learns does not depend on an invited seat's hidden cards.

The host creates a 3-seat game keeping seats 0 and 1 (their tokens, and the organiser token)
and invites a friend to seat 2 (an open seat, claimed by its code). Two such games whose
deals differ only in seat 2's hand and the undealt cards must look byte-identical to the
host through every call it can make: its seats' views and streams, the spectator's, the
organiser's (the friend's seat refused: SEAT_CLAIMED), the game's summary; and nothing it
gets carries the friend's token.
"""

from __future__ import annotations

import random

import grpc
from google.protobuf.message import Message

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    DECK,
    RPC_TIMEOUT,
    Game,
    clear_card_digests,
    fails,
    fixed_deal,
    read_until,
    stream_request,
)

HAND = 13


def _hosted(stub: pb_grpc.RefereeServiceStub, deal: pb.FixedDeal) -> tuple[Game, str]:
    """The host's game, with the friend's claim made: the host's view of it, the friend's
    token."""
    token_seat, open_seat = pb.SeatRequest(), pb.SeatRequest(mode=pb.SEAT_MODE_OPEN)
    created = stub.CreateGame(
        pb.CreateGameRequest(
            game_type="vampire-queen",
            players=3,
            options={"rounds": "1"},
            deal=deal,
            seat_requests=[token_seat, token_seat, open_seat],
        ),
        timeout=RPC_TIMEOUT,
    )
    [invitation] = created.invitations
    claimed = stub.ClaimSeat(
        pb.ClaimSeatRequest(game_id=created.game_id, claim_code=invitation.claim_code),
        timeout=RPC_TIMEOUT,
    )
    tokens = [s.token for s in sorted(created.seats, key=lambda s: s.seat)]
    return Game(created.game_id, tokens, created), claimed.seat_token


def _everything(stub: pb_grpc.RefereeServiceStub, game: Game) -> list[bytes]:
    """All the host can read, ids, commitments and times blanked (each game commits to its
    own secret seed, and times are not cards)."""
    organiser = game.created.organiser_token
    public = stub.GetGame(pb.GetGameRequest(game_id=game.game_id), timeout=RPC_TIMEOUT).game
    messages: list[Message] = []
    for seat in (0, 1, None):
        messages.extend(read_until(stub, stream_request(game, seat), public.version))
        if seat is not None:
            view_request = pb.GetViewRequest(game_id=game.game_id, seat_token=game.tokens[seat])
        else:
            view_request = pb.GetViewRequest(game_id=game.game_id, spectator=True)
        messages.append(stub.GetView(view_request, timeout=RPC_TIMEOUT))
    for as_seat in (0, 1):
        watched = pb.GetViewRequest(
            game_id=game.game_id, organiser_token=organiser, as_seat=as_seat
        )
        messages.append(stub.GetView(watched, timeout=RPC_TIMEOUT))
    refused = fails(
        stub.GetView,
        pb.GetViewRequest(game_id=game.game_id, organiser_token=organiser, as_seat=2),
    )
    assert refused.code is grpc.StatusCode.PERMISSION_DENIED
    assert refused.info is not None and refused.info.reason == "SEAT_CLAIMED"
    exported = fails(
        stub.ExportGame, pb.ExportGameRequest(game_id=game.game_id, organiser_token=organiser)
    )
    assert exported.code is grpc.StatusCode.PERMISSION_DENIED
    summary = pb.GameSummary()
    summary.CopyFrom(public)
    summary.ClearField("created_unix_ms")
    summary.ClearField("join_deadline_unix_ms")
    messages.append(summary)
    blanks = [
        (game.game_id.encode(), b"<game>"),
        (public.seed_commitment.encode(), b"<commitment>"),
        (public.deal_commitment.encode(), b"<deal commitment>"),
    ]
    seen = []
    for message in messages:
        if isinstance(message, pb.StreamGameResponse):
            message.event.ClearField("recorded_unix_ms")
            message.event.decided.ClearField("decision_ms")
            clear_card_digests(message.event)
        data = message.SerializeToString(deterministic=True)
        for secret, blank in blanks:
            data = data.replace(secret, blank)
        seen.append(data)
    return seen


def test_the_host_learns_nothing_of_an_invited_seats_cards(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    deck = random.Random(20).sample(DECK, len(DECK))
    twin = deck[: 2 * HAND] + deck[2 * HAND :][::-1]
    assert sorted(twin[2 * HAND : 3 * HAND]) != sorted(deck[2 * HAND : 3 * HAND])
    first, first_friend = _hosted(stub, fixed_deal(deck, 2))
    second, second_friend = _hosted(stub, fixed_deal(twin, 2))
    hands = [
        stub.GetView(
            pb.GetViewRequest(game_id=g.game_id, seat_token=t), timeout=RPC_TIMEOUT
        ).view.vampire_queen.hand
        for g, t in ((first, first_friend), (second, second_friend))
    ]
    assert hands[0] != hands[1], "the friend's hands differ"
    seen_first, seen_second = _everything(stub, first), _everything(stub, second)
    assert seen_first == seen_second
    for data in seen_first:
        assert first_friend.encode() not in data
    for data in seen_second:
        assert second_friend.encode() not in data
