"""Games that never end: every game type has an event limit (ListGameTypes), a
creator may set another (CreateGameRequest.max_events, shown in GameSummary), and a game that
reaches it ends there in public, with its standing as results, as in library mode."""

from __future__ import annotations

import random

import grpc

from referee.engine import get_game
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    create_refereed,
    fails,
    play_random,
    read_ok,
    referee_kind,
    stream_request,
    submit_request,
    summary,
    view,
)

GAME = "mau-mau-vampires"


def test_every_game_type_shows_its_default_event_limit(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    listed = stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=20).game_types
    assert listed
    for entry in listed:
        assert entry.max_events == get_game(entry.game_type).info.max_events > 0
    game = create_refereed(stub, players=2, rounds=None, game_type=GAME)
    assert summary(stub, game).max_events == get_game(GAME).info.max_events


def test_a_game_at_its_event_limit_ends_in_public_with_results(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    game = create_refereed(stub, players=2, rounds=None, game_type=GAME, max_events=60)
    assert summary(stub, game).max_events == 60
    play_random(stub, game, random.Random(5))
    public = summary(stub, game)
    assert public.game_over and not public.aborted and len(public.results) == 2
    assert public.version > 60
    events = [m.event for m in read_ok(stub, stream_request(game, None)) if m.HasField("event")]
    reached = [e for e in events if referee_kind(e) == "event_limit_reached"]
    assert len(reached) == 1 and reached[0].referee.event_limit_reached.limit == 60
    # The event holds the rules' standing; the summary each seat's result by the one rule
    # (the rules' ranking here, nobody left: the same ranks).
    standing = [(r.seat, r.score, r.rank) for r in reached[0].referee.event_limit_reached.results]
    assert standing == [(r.seat, r.score, r.rank) for r in public.results]
    assert {r.end for r in public.results} == {pb.SEAT_END_FINISHED}
    # The end says why, on the event, the summary and the views.
    ended = reached[0].referee.event_limit_reached
    assert ended.end_rule_id == public.end_rule_id == "EVENT-LIMIT"
    assert "event limit of 60 events" in ended.end_reason == public.end_reason
    assert view(stub, game, 0).end_reason == public.end_reason
    assert view(stub, game, 0).game_over and not view(stub, game, 0).legal_commands
    # Later commands cite the limit that ended the game.
    command = pb.Command()
    command.mau_mau_vampires.draw_card.SetInParent()
    failure = fails(stub.SubmitCommand, submit_request(game, 0, command))
    assert failure.code is grpc.StatusCode.FAILED_PRECONDITION
    assert failure.rule_id == "EVENT-LIMIT"


def test_no_event_limit_when_asked_for_none(stub: pb_grpc.RefereeServiceStub) -> None:
    game = create_refereed(stub, players=2, rounds=None, game_type=GAME, max_events=0)
    assert summary(stub, game).max_events == 0
