"""The organiser role: a third kind of token, made with the game. It watches any seat's view
and stream (``as_seat``), delayed by ``organiser_delay_events`` / ``organiser_delay_ms`` so a
broadcast cannot help anyone at the table, and it can abort the game. Seat tokens never work
for any of this."""

from __future__ import annotations

import random
import threading
import time

import grpc

from referee import fairness
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    RPC_TIMEOUT,
    Failure,
    Game,
    assert_bad_request,
    create_game,
    create_refereed,
    fails,
    failure_of,
    play_random,
    play_to_end,
    read_ok,
    read_until,
    referee_kind,
    serialised,
    stream_fails,
    stream_request,
    summary,
    view,
    vq_command,
    wait_for,
)


def organiser_view(
    stub: pb_grpc.RefereeServiceStub, game: Game, seat: int | None, token: str | None = None
) -> pb.View:
    request = pb.GetViewRequest(
        game_id=game.game_id,
        organiser_token=game.created.organiser_token if token is None else token,
    )
    if seat is not None:
        request.as_seat = seat
    return stub.GetView(request, timeout=RPC_TIMEOUT).view


def organiser_stream(game: Game, seat: int | None, after: int = 0) -> pb.StreamGameRequest:
    request = pb.StreamGameRequest(
        game_id=game.game_id, organiser_token=game.created.organiser_token, after_sequence=after
    )
    if seat is not None:
        request.as_seat = seat
    return request


def test_the_organiser_watches_every_seat(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_game(stub, players=4, seed="organiser-live")
    token = game.created.organiser_token
    assert token and token not in game.tokens and token not in str(game.created.game)
    play_random(stub, game, rng, max_commands=6)
    for seat in [*range(4), None]:
        assert organiser_view(stub, game, seat) == view(stub, game, seat)
    version = summary(stub, game).version
    watched = {seat: read_until(stub, organiser_stream(game, seat), version) for seat in (0, 3)}
    # The organiser hanging up is no disconnect of the seat it watched.
    assert all(s.disconnects == 0 for s in summary(stub, game).seat_stats)
    for seat, messages in watched.items():
        own = read_until(stub, stream_request(game, seat), version)
        assert serialised(messages) == serialised(own)


def test_the_organiser_sees_the_game_some_events_late(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    delay = 5
    game = create_refereed(stub, players=3, seed="organiser-delay", organiser_delay_events=delay)
    seat = 1
    reference = {}  # version -> the seat's view after it, from its own (live) stream
    received: list[pb.StreamGameResponse] = []
    ending: list[Failure | None] = []
    call = stub.StreamGame(organiser_stream(game, seat), timeout=120)

    def consume() -> None:
        try:
            received.extend(call)
        except grpc.RpcError as error:
            ending.append(failure_of(error))
        else:
            ending.append(None)

    reader = threading.Thread(target=consume, daemon=True)
    reader.start()
    for _ in range(12):
        play_random(stub, game, rng, max_commands=1)
        live = summary(stub, game).version
        watched = organiser_view(stub, game, seat)
        assert watched.version <= live - delay, (watched.version, live)
        reference[watched.version] = watched
    own = read_until(stub, stream_request(game, seat), summary(stub, game).version)
    views = {m.event.sequence: m.view for m in own[1:]}
    for version, watched in reference.items():
        if version:
            assert views[version] == watched, "the organiser saw the seat's view of that time"
    play_to_end(stub, game, rng)
    reader.join(timeout=RPC_TIMEOUT)
    assert ending == [None], ending
    # Once the game is over the delay is lifted: every event, the same as the seat's stream.
    final = summary(stub, game).version
    assert organiser_view(stub, game, seat) == view(stub, game, seat)
    assert [m.event.sequence for m in received[1:]] == list(range(1, final + 1))
    assert serialised(received[1:]) == serialised(read_ok(stub, stream_request(game, seat))[1:])


def test_the_organiser_sees_events_only_after_the_time_delay(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    delay_ms = 1500
    began = time.monotonic()
    game = create_refereed(stub, players=3, seed="organiser-ms", organiser_delay_ms=delay_ms)
    created = game.created.game.version
    early = organiser_view(stub, game, 0)
    if time.monotonic() - began < 1.0:  # (on a very busy machine this moment has passed)
        assert early.version == 0 and not early.legal_commands
    played = play_random(stub, game, rng, max_commands=3)
    last = played.responses[-1].last_sequence
    arrivals: list[tuple[pb.Event, int]] = []
    call = stub.StreamGame(organiser_stream(game, 0), timeout=60)
    try:
        for message in call:
            if message.HasField("event"):
                arrivals.append((message.event, int(time.time() * 1000)))
                if message.event.sequence >= last:
                    break
    finally:
        call.cancel()
    assert [event.sequence for event, _ in arrivals] == list(range(1, last + 1))
    for event, arrived in arrivals:
        assert arrived >= event.recorded_unix_ms + delay_ms - 5, "shown before its time"
    assert wait_for(lambda: organiser_view(stub, game, 0).version == last, "the delay to pass")
    assert created <= last


def test_seat_tokens_do_not_work_for_the_organiser(stub: pb_grpc.RefereeServiceStub) -> None:
    game = create_game(stub, players=3)
    other = create_game(stub, players=3)
    seat_token = game.tokens[0]
    denied = grpc.StatusCode.PERMISSION_DENIED
    unauthenticated = grpc.StatusCode.UNAUTHENTICATED
    gid = game.game_id

    # GetView: a seat token as the organiser's, or as_seat with a seat token.
    as_organiser = pb.GetViewRequest(game_id=gid, organiser_token=seat_token, as_seat=1)
    assert fails(stub.GetView, as_organiser).code is denied
    as_seat = pb.GetViewRequest(game_id=gid, seat_token=seat_token, as_seat=1)
    assert fails(stub.GetView, as_seat).code is denied
    assert fails(stub.GetView, pb.GetViewRequest(game_id=gid, as_seat=1)).code is unauthenticated
    foreign = other.created.organiser_token
    assert fails(stub.GetView, pb.GetViewRequest(game_id=gid, organiser_token=foreign)).code is (
        denied
    )
    # StreamGame, the same.
    for request in (
        pb.StreamGameRequest(game_id=gid, organiser_token=seat_token, as_seat=2),
        pb.StreamGameRequest(game_id=gid, seat_token=seat_token, as_seat=2),
    ):
        assert stream_fails(stub, request).code is denied
    # AbortGame and RevealSeed.
    abort = pb.AbortGameRequest(game_id=gid, organiser_token=seat_token, reason="x")
    assert fails(stub.AbortGame, abort).code is denied
    assert fails(stub.AbortGame, pb.AbortGameRequest(game_id=gid)).code is unauthenticated
    reveal = pb.RevealSeedRequest(game_id=gid, organiser_token=seat_token)
    assert fails(stub.RevealSeed, reveal).code is denied
    # A seat that is not at the table.
    bad = pb.GetViewRequest(game_id=gid, organiser_token=game.created.organiser_token, as_seat=3)
    assert_bad_request(fails(stub.GetView, bad), "as_seat")
    assert not summary(stub, game).game_over


def test_the_organiser_aborts_a_game(stub: pb_grpc.RefereeServiceStub, rng: random.Random) -> None:
    game = create_refereed(stub, players=3, organiser_delay_events=4)
    play_random(stub, game, rng, max_commands=5)
    viewers: list[int | None] = [0, 1, 2, None]
    received: dict[int | None, list[pb.StreamGameResponse]] = {v: [] for v in viewers}
    endings: dict[int | None, Failure | None] = {}
    calls = {v: stub.StreamGame(stream_request(game, v), timeout=60) for v in viewers}
    for v, call in calls.items():
        received[v].append(next(call))

    def consume(v: int | None) -> None:
        try:
            received[v].extend(calls[v])
        except grpc.RpcError as error:
            endings[v] = failure_of(error)
        else:
            endings[v] = None

    threads = [threading.Thread(target=consume, args=(v,), daemon=True) for v in viewers]
    for thread in threads:
        thread.start()
    aborted = stub.AbortGame(
        pb.AbortGameRequest(
            game_id=game.game_id,
            organiser_token=game.created.organiser_token,
            reason="the hall closes",
        ),
        timeout=RPC_TIMEOUT,
    ).game
    for thread in threads:
        thread.join(timeout=RPC_TIMEOUT)
        assert not thread.is_alive()
    assert endings == dict.fromkeys(viewers), endings  # every stream ends with OK

    assert aborted.game_over and aborted.aborted and aborted.abort_reason == "the hall closes"
    assert (aborted.end_rule_id, aborted.end_reason) == (
        "ABORTED",
        "the organiser aborted the game: the hall closes",
    )
    assert not aborted.results and not aborted.pending_seats and aborted.seed_released
    assert not aborted.revealed_seed  # the organiser's alone (ExportGame with its token)
    assert summary(stub, game) == aborted
    for v in viewers:
        last_two = [m.event for m in received[v][-2:]]
        assert [referee_kind(e) for e in last_two] == ["game_aborted", "seed_revealed"]
        assert last_two[0].referee.game_aborted.reason == "the hall closes"
        assert received[v][-1].view.game_over and received[v][-1].view.aborted
    # The organiser's delay is lifted: the whole game, as the seats saw it.
    assert organiser_view(stub, game, 2) == view(stub, game, 2)

    later = fails(stub.SubmitCommand, _any_command(game))
    assert later.code is grpc.StatusCode.FAILED_PRECONDITION and later.rule_id == "ABORTED"
    again = pb.AbortGameRequest(game_id=game.game_id, organiser_token=game.created.organiser_token)
    assert fails(stub.AbortGame, again).code is grpc.StatusCode.FAILED_PRECONDITION
    report = fairness.verify_export(
        stub.ExportGame(
            pb.ExportGameRequest(
                game_id=game.game_id, organiser_token=game.created.organiser_token
            ),
            timeout=RPC_TIMEOUT,
        )
    )
    assert report.ok, report.text()


def _any_command(game: Game) -> pb.SubmitCommandRequest:
    return pb.SubmitCommandRequest(
        game_id=game.game_id,
        seat_token=game.tokens[0],
        command_id="after-the-abort",
        command=vq_command(pass_=True),
    )
