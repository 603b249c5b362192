"""StreamGame: a view first, then every event (redacted for the viewer) with the view after it;
resumption with no gap and no duplicate; live delivery; OK after the final event."""

from __future__ import annotations

import random
import threading

import grpc
import pytest

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    RPC_TIMEOUT,
    Failure,
    Game,
    assert_bad_request,
    create_game,
    event_kind,
    failure_of,
    play_random,
    play_to_end,
    read_ok,
    read_until,
    serialised,
    stream_fails,
    stream_request,
    summary,
    view,
)


@pytest.fixture
def finished(stub: pb_grpc.RefereeServiceStub, rng: random.Random) -> Game:
    game = create_game(stub, players=3, seed="streams")
    play_to_end(stub, game, rng)
    return game


def check_stream_shape(
    messages: list[pb.StreamGameResponse], seat: int | None, after: int, final: int
) -> None:
    """First the current view (no event), then events after+1..final each with its view."""
    assert messages, "a stream starts with a view"
    head, rest = messages[0], messages[1:]
    assert not head.HasField("event") and head.HasField("view")
    assert head.view.version == final
    check_events(rest, seat, after, final)


def check_events(
    rest: list[pb.StreamGameResponse], seat: int | None, after: int, final: int
) -> None:
    """Events after+1..final with no gap or duplicate, each with the viewer's view after it."""
    assert [m.event.sequence for m in rest] == list(range(after + 1, final + 1))
    for message in rest:
        assert message.view.HasField("seat") == (seat is not None)
        if seat is not None:
            assert message.view.seat == seat
        assert message.view.version == message.event.sequence
        # Moves are offered only to a seat the game waits for. (Not the converse: the view
        # after an event in the middle of one command's events may name a seat that is about
        # to be skipped, VQ-13; command boundaries are checked in the cross-check test.)
        if message.view.legal_commands:
            assert seat is not None and seat in message.view.pending_seats


@pytest.mark.parametrize("seat", [0, 2, None], ids=["seat0", "seat2", "spectator"])
def test_stream_of_a_finished_game(
    stub: pb_grpc.RefereeServiceStub, finished: Game, seat: int | None
) -> None:
    final = summary(stub, finished).version
    messages = read_ok(stub, stream_request(finished, seat))  # ends with OK
    check_stream_shape(messages, seat, 0, final)
    # The seed commitment first, the seed reveal last (docs/fairness.md); the game in between.
    assert messages[1].event.referee.WhichOneof("kind") == "seed_committed"
    # Then the first shuffle's card commitments, before any is dealt (docs/fairness.md section 6).
    assert messages[2].event.referee.WhichOneof("kind") == "deck_committed"
    assert event_kind(messages[3].event) == "round_started"
    assert event_kind(messages[-2].event) == "game_ended"
    revealed = messages[-1].event.referee
    assert revealed.HasField("seed_revealed") and not revealed.seed_revealed.seed  # organiser's
    now = view(stub, finished, seat)
    assert messages[0].view == now
    assert messages[-1].view == now
    assert now.game_over


def test_resume_beyond_the_last_event_is_invalid_argument(
    stub: pb_grpc.RefereeServiceStub, finished: Game
) -> None:
    final = summary(stub, finished).version
    failure = stream_fails(stub, stream_request(finished, 0, final + 1))
    assert_bad_request(failure, "after_sequence")


def test_spectator_stream_is_public_only(stub: pb_grpc.RefereeServiceStub, finished: Game) -> None:
    messages = read_ok(stub, stream_request(finished, None))
    dealt = [
        m.event.vampire_queen.hand_dealt
        for m in messages[1:]
        if event_kind(m.event) == "hand_dealt"
    ]
    assert len(dealt) == finished.players
    for hand in dealt:
        assert hand.count == 13 and not hand.cards
    for message in messages:
        assert not message.view.vampire_queen.hand
        assert not message.view.legal_commands


def test_live_streams_receive_events_as_they_happen(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_game(stub, players=3, seed="live")
    viewers: list[int | None] = [0, 1, 2, None]
    received: dict[int | None, list[pb.StreamGameResponse]] = {v: [] for v in viewers}
    endings: dict[int | None, Failure | None] = {}
    calls = {v: stub.StreamGame(stream_request(game, v), timeout=60) for v in viewers}
    # Each stream is open (its first view arrived) before any command is sent.
    for v, call in calls.items():
        received[v].append(next(call))
        assert received[v][0].view.version == game.created.game.version

    def consume(v: int | None) -> None:
        try:
            for message in calls[v]:
                received[v].append(message)
        except grpc.RpcError as error:
            endings[v] = failure_of(error)
        else:
            endings[v] = None

    threads = [threading.Thread(target=consume, args=(v,), daemon=True) for v in viewers]
    for thread in threads:
        thread.start()
    # The first events arrive while the game is being played, not at its end.
    played = play_to_end(stub, game, rng)
    for thread in threads:
        thread.join(timeout=RPC_TIMEOUT)
        assert not thread.is_alive(), "a live stream did not end after the final event"
    assert endings == dict.fromkeys(viewers), endings  # every stream ended with OK
    final = summary(stub, game).version
    assert played.responses[-1].last_sequence + 1 == final  # and the seed reveal
    for v in viewers:
        messages = received[v]
        assert not messages[0].HasField("event")
        check_events(messages[1:], v, 0, final)
        # Live delivery equals what a stream opened after the end replays.
        replay = read_ok(stub, stream_request(game, v))
        assert serialised(messages[1:]) == serialised(replay[1:])
        assert messages[-1].view == view(stub, game, v)


def test_live_stream_gets_events_while_the_game_is_running(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    """Events submitted while a stream is open arrive before the game ends."""
    game = create_game(stub, players=3, rounds=3, seed="running")
    start = summary(stub, game).version
    call = stub.StreamGame(stream_request(game, 0, after_sequence=start), timeout=RPC_TIMEOUT)
    try:
        first = next(call)
        assert first.view.version == start and not first.HasField("event")
        played = play_random(stub, game, rng, max_commands=5)
        target = played.responses[-1].last_sequence
        got = []
        for message in call:
            got.append(message.event.sequence)
            if message.event.sequence == target:
                break
        assert got == list(range(start + 1, target + 1))
        assert not summary(stub, game).game_over
    finally:
        call.cancel()
    # read_until on a fresh stream agrees.
    again = read_until(stub, stream_request(game, 0, after_sequence=start), target)
    assert [m.event.sequence for m in again[1:]] == list(range(start + 1, target + 1))
