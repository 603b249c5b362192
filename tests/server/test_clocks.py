"""Clocks and error accounting, end to end.

A game created with ``clock`` gives every pending decision ``decision_ms`` (then the seat's
bank); when both run out the referee plays the game's default command for the seat, records a
public ``TimedOut`` event and counts it. Every accepted command records its measured decision
time. Deadlines are recovered from the log after a restart. Per seat, the referee also counts
refused commands and streams its client hung up mid-game.

Timing: clocks here are a few hundred milliseconds and every wait is generous; nothing asserts
that something happened *quickly*, only that it happened and not *too early*.
"""

from __future__ import annotations

import time

import grpc

from referee.application import Limits
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    GAME,
    RPC_TIMEOUT,
    Game,
    assert_bad_request,
    create_game,
    create_refereed,
    fails,
    read_ok,
    read_until,
    referee_kind,
    stream_request,
    submit,
    submit_request,
    summary,
    view,
    wait_for,
)


def clock(decision_ms: int, bank_ms: int = 0, forfeit_after: int = 0) -> pb.ClockSettings:
    return pb.ClockSettings(
        decision_ms=decision_ms, bank_ms=bank_ms, forfeit_after_timeouts=forfeit_after
    )


def abort(stub: pb_grpc.RefereeServiceStub, game: Game) -> None:
    """End a clocked game so its clocks stop (the organiser's AbortGame)."""
    stub.AbortGame(
        pb.AbortGameRequest(
            game_id=game.game_id, organiser_token=game.created.organiser_token, reason="test over"
        ),
        timeout=RPC_TIMEOUT,
    )


def game_part(event: pb.Event) -> bytes:
    """An event without its sequence number and stamps: what the game said."""
    which = event.WhichOneof("game")
    assert which is not None
    return getattr(event, which).SerializeToString(deterministic=True)


def sample(server: RefereeServer, kind: str) -> float:
    value = server.metrics.registry.get_sample_value(
        "referee_seat_errors_total", {"game_type": GAME, "kind": kind}
    )
    return value or 0.0


def test_a_timeout_plays_the_default_command_and_is_counted(
    server: RefereeServer, stub: pb_grpc.RefereeServiceStub
) -> None:
    game = create_refereed(stub, players=3, seed="clock-timeout", clock=clock(200))
    assert game.created.game.clock.decision_ms == 200
    seat = game.created.game.pending_seats[0]
    seat_view = view(stub, game, seat)
    clocks = {c.seat: c for c in seat_view.clocks}
    assert sorted(clocks) == [0, 1, 2]
    assert clocks[seat].pending and clocks[seat].remaining_ms <= 200
    assert clocks[seat].deadline_unix_ms >= game.created.game.created_unix_ms + 200
    assert not any(clocks[s].pending for s in clocks if s != seat)
    decision = seat_view.decisions[0]
    default = seat_view.legal_commands[0]  # the documented default: first in canonical order

    # What that command does, played by hand in a twin game (same seed, same deal, no clock).
    twin = create_game(stub, players=3, seed="clock-timeout")
    by_hand = submit(stub, twin, seat, default)
    twin_events = read_until(stub, stream_request(twin, None), by_hand.last_sequence)
    expected = [
        game_part(m.event)
        for m in twin_events[-(by_hand.last_sequence - by_hand.first_sequence + 1) :]
    ]

    before = sample(server, "timeout")
    wait_for(lambda: summary(stub, game).seat_stats[seat].timeouts >= 1, "the first timeout")
    abort(stub, game)
    stats = summary(stub, game).seat_stats[seat]
    assert stats.timeouts >= 1 and not stats.forfeited and stats.commands == 0
    assert sample(server, "timeout") >= before + 1

    public = [m.event for m in read_ok(stub, stream_request(game, None))[1:]]
    own = [m.event for m in read_ok(stub, stream_request(game, seat))[1:]]
    at = next(i for i, e in enumerate(public) if referee_kind(e) == "timed_out")
    timed_out = public[at].referee.timed_out
    assert (timed_out.seat, timed_out.kind, timed_out.rule_id, timed_out.timeouts) == (
        seat,
        decision.kind,
        decision.rule_id,
        1,
    )
    assert not timed_out.HasField("command"), "only the seat sees the command played for it"
    assert own[at].referee.timed_out.command == default
    stamp = public[at].decided
    assert stamp.seat == seat and stamp.by == pb.DECIDED_BY_TIMEOUT
    assert stamp.decision_ms >= 200, "timed out before its time"
    assert public[at].recorded_unix_ms >= game.created.game.created_unix_ms + 200
    batch = public[at + 1 : public[at].batch_end_sequence]
    assert [game_part(e) for e in batch] == expected, "the default command's own events"


def test_an_accepted_command_records_its_decision_time(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    game = create_game(stub, players=3, seed="decision-time")
    seat = game.created.game.pending_seats[0]
    command = view(stub, game, seat).legal_commands[0]
    time.sleep(0.15)
    request = submit_request(game, seat, command)
    request.client_decision_ms = 42
    response = stub.SubmitCommand(request, timeout=RPC_TIMEOUT)
    messages = read_until(stub, stream_request(game, None), response.last_sequence)
    first = next(m.event for m in messages if m.event.sequence == response.first_sequence)
    assert first.decided.seat == seat and first.decided.by == pb.DECIDED_BY_UNSPECIFIED
    assert first.decided.decision_ms >= 150
    assert first.decided.client_decision_ms == 42
    assert first.recorded_unix_ms >= game.created.game.created_unix_ms + 150
    later = next(m.event for m in messages if m.event.sequence == response.last_sequence)
    assert response.last_sequence == response.first_sequence or not later.HasField("decided")
    stats = summary(stub, game).seat_stats[seat]
    assert stats.commands == 1 and stats.decision_ms_total >= 150
    assert not view(stub, game, seat).clocks, "no clock, no clocks in views"


def test_clock_settings_are_checked(stub: pb_grpc.RefereeServiceStub) -> None:
    cases = [
        (clock(5), "clock.decision_ms"),
        (clock(0, bank_ms=1000), "clock.decision_ms"),
        (clock(0, forfeit_after=2), "clock.decision_ms"),
        (clock(1000, forfeit_after=100_000), "clock.forfeit_after_timeouts"),
        (clock(1000, bank_ms=10**9), "clock.bank_ms"),
    ]
    for settings, field_name in cases:
        request = pb.CreateGameRequest(game_type=GAME, players=3, clock=settings)
        assert_bad_request(fails(stub.CreateGame, request), field_name)


def test_refusals_and_a_cancelled_seat_stream_are_counted() -> None:
    """On the wire: a refused command counts against its seat, and a seat's stream the gRPC
    client cancels mid-game, not resumed within the reconnect window (here 0.2 s), is a
    disconnect (a spectator's is not), in the summary's seat_stats and the metric. (Counting,
    and its survival of a restart: tests/application/test_clocks.py.)"""
    limits = Limits(reconnect_window_seconds=0.2)
    with (
        running_server(limits=limits, grace_seconds=1.0) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        game = create_game(stub, players=3, seed="accounting")
        leader = game.created.game.pending_seats[0]
        other = (leader + 1) % 3
        fails(stub.SubmitCommand, submit_request(game, other, pb.Command()))
        for who in (other, None):
            call = stub.StreamGame(stream_request(game, who), timeout=RPC_TIMEOUT)
            next(call)
            call.cancel()
        wait_for(lambda: summary(stub, game).seat_stats[other].disconnects == 1, "a disconnect")
        stats = summary(stub, game).seat_stats
        assert [s.rejected_commands for s in stats] == [1 if s == other else 0 for s in range(3)]
        assert [s.disconnects for s in stats] == [1 if s == other else 0 for s in range(3)]
        assert sample(server, "rejected") == 1 and sample(server, "disconnect") == 1
