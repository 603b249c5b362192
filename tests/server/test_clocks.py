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

import random
import threading
import time
import uuid
from pathlib import Path

import grpc
import pytest

from referee.application import Limits
from referee.server.app import RefereeServer, running_server
from referee.store import SqliteEventStore
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
    vq_command,
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


def test_the_bank_absorbs_an_overrun_then_the_decision_times_out(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    game = create_refereed(stub, players=3, seed="bank", clock=clock(100, bank_ms=300))
    seat = game.created.game.pending_seats[0]
    before = {c.seat: c for c in view(stub, game, seat).clocks}[seat]
    assert before.bank_ms <= 300 and before.remaining_ms <= 100
    wait_for(lambda: summary(stub, game).seat_stats[seat].timeouts >= 1, "the timeout")
    seen = {c.seat: c for c in view(stub, game, seat).clocks}
    assert seen[seat].bank_ms == 0, "the timeout used the whole bank"
    abort(stub, game)
    events = [m.event for m in read_ok(stub, stream_request(game, None))[1:]]
    first = next(e for e in events if referee_kind(e) == "timed_out")
    assert first.referee.timed_out.seat == seat
    assert first.decided.decision_ms >= 100 + 300, "the bank was not used before the timeout"


def test_a_seat_forfeits_after_k_timeouts_and_then_plays_at_once(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    game = create_refereed(stub, players=3, seed="forfeit", clock=clock(200, forfeit_after=1))
    final = wait_for(
        lambda: (g := summary(stub, game)).game_over and g, "every seat to forfeit", 120
    )
    assert len(final.results) == 3, "played to the end, with results"
    assert all(s.timeouts == 1 and s.forfeited for s in final.seat_stats), final.seat_stats
    events = [m.event for m in read_ok(stub, stream_request(game, None))[1:]]
    kinds = [referee_kind(e) for e in events]
    forfeits = [i for i, k in enumerate(kinds) if k == "seat_forfeited"]
    assert len(forfeits) == 3 and kinds.count("timed_out") == 3
    # Each forfeit follows its seat's timeout in the same batch...
    for i in forfeits:
        assert kinds[i - 1] == "timed_out"
        assert events[i].referee.seat_forfeited.seat == events[i - 1].referee.timed_out.seat
    # ...and after the last forfeit nobody waits: only default plays, no more timeouts.
    rest = kinds[forfeits[-1] + 1 :]
    assert "timed_out" not in rest and rest.count("default_played") > 0
    for event in events:
        if referee_kind(event) == "default_played":
            assert event.decided.by == pb.DECIDED_BY_FORFEIT and event.decided.decision_ms == 0
            assert not event.referee.default_played.HasField("command")
    assert kinds[-1] == "seed_revealed"


def test_clocks_survive_a_restart(tmp_path: Path) -> None:
    """The deadline of a decision pending when the server stopped is recovered from the log:
    the restarted server times it out on its own (nobody asks for the game) and measures the
    decision from its original start."""
    path = tmp_path / "referee.sqlite3"
    decision_ms = 3000
    with (
        running_server(store=f"sqlite:{path}", grace_seconds=1.0) as first,
        grpc.insecure_channel(first.address) as channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        game = create_refereed(stub, players=3, seed="restart", clock=clock(decision_ms))
        seat = game.created.game.pending_seats[0]
        assert summary(stub, game).seat_stats[seat].timeouts == 0
    started = game.created.game.created_unix_ms

    def timed_out() -> pb.Event | None:
        with SqliteEventStore(path) as store:
            for stored in store.read(game.game_id):
                event = pb.Event.FromString(stored.payload)
                if referee_kind(event) == "timed_out":
                    return event
        return None

    if timed_out() is not None:  # the machine was too slow to stop the first server in time
        pytest.skip("the first server timed the decision out before it stopped")
    with running_server(store=f"sqlite:{path}", grace_seconds=1.0):
        event = wait_for(timed_out, "the restarted server to time the decision out")
    assert event.referee.timed_out.seat == seat
    assert event.decided.decision_ms >= decision_ms
    assert event.recorded_unix_ms >= started + decision_ms, "the deadline was not kept"


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


def test_refusals_and_disconnects_are_counted_and_survive_a_restart(
    tmp_path: Path, rng: random.Random
) -> None:
    store = f"sqlite:{tmp_path}/referee.sqlite3"
    # A hang-up counts once the seat has not resumed within the window (here 0.2 s).
    limits = Limits(reconnect_window_seconds=0.2)
    with (
        running_server(store=store, limits=limits, grace_seconds=1.0) as first,
        grpc.insecure_channel(first.address) as channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        game = create_game(stub, players=3, seed="accounting")
        leader = game.created.game.pending_seats[0]
        other = (leader + 1) % 3
        # Refused: not its turn (twice, but a retried command id counts once), malformed.
        request = submit_request(game, other, vq_command(pass_=True))
        fails(stub.SubmitCommand, request)
        fails(stub.SubmitCommand, request)
        fails(stub.SubmitCommand, submit_request(game, other, pb.Command()))
        fails(stub.SubmitCommand, submit_request(game, leader, vq_command(pass_=True)))
        # A seat's stream cut by its client mid-game is a disconnect; a spectator's is not.
        for who in (other, None):
            call = stub.StreamGame(stream_request(game, who), timeout=RPC_TIMEOUT)
            next(call)
            call.cancel()
        wait_for(lambda: summary(stub, game).seat_stats[other].disconnects == 1, "a disconnect")
        stats = summary(stub, game).seat_stats
        assert [s.rejected_commands for s in stats] == [
            2 if s == other else 1 if s == leader else 0 for s in range(3)
        ]
        assert [s.disconnects for s in stats] == [1 if s == other else 0 for s in range(3)]
        assert sample(first, "rejected") >= 3 and sample(first, "disconnect") >= 1
        time.sleep(0.2)  # the counters reach the store on its writer thread
    with (
        running_server(store=store, grace_seconds=1.0) as second,
        grpc.insecure_channel(second.address) as channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        assert summary(stub, game).seat_stats == stats


def test_a_stream_ended_by_a_finished_game_is_no_disconnect(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_game(stub, players=3, seed="no-disconnect")
    received: list[pb.StreamGameResponse] = []
    call = stub.StreamGame(stream_request(game, 1), timeout=60)
    reader = threading.Thread(target=lambda: received.extend(call), daemon=True)
    reader.start()
    while not summary(stub, game).game_over:
        seat = summary(stub, game).pending_seats[0]
        submit(
            stub,
            game,
            seat,
            rng.choice(list(view(stub, game, seat).legal_commands)),
            uuid.uuid4().hex,
        )
    reader.join(timeout=RPC_TIMEOUT)
    assert not reader.is_alive() and received[-1].view.game_over
    assert all(s.disconnects == 0 for s in summary(stub, game).seat_stats)


def test_seat_clocks_follow_decisions_across_batches() -> None:
    """A decision keeps its start while other seats act; it restarts after the seat's own
    decision or when the game asks it something else; overruns drain the bank."""
    from referee.application.clocks import Clock, SeatClocks
    from referee.engine.game import Decision
    from referee.stored import Decided

    clocks = SeatClocks(Clock(decision_ms=1000, bank_ms=500), players=3)
    block = Decision(1, "block", "SQ-9")
    turn = Decision(0, "turn", "SQ-4")
    clocks.fold([turn], 10_000, None)
    assert clocks.deadline(0) == 10_000 + 1000 + 500
    clocks.fold([turn, block], 10_400, Decided(seat=2, decision_ms=100))
    assert clocks.starts[0][0] == 10_000 and clocks.starts[1][0] == 10_400  # 0 keeps its start
    clocks.fold([turn], 11_600, Decided(seat=1, decision_ms=1200))
    assert clocks.bank[1] == 300 and clocks.starts[0][0] == 10_000
    clocks.fold([turn], 11_700, Decided(seat=0, decision_ms=1700))
    assert clocks.starts[0][0] == 11_700, "asked again after its own decision: a new start"
    assert clocks.bank[0] == 0 and clocks.commands == [1, 1, 1]
    assert clocks.decision_ms_total == [1700, 1200, 100]
    clocks.fold([Decision(0, "place", "SQ-8")], 11_800, None)
    assert clocks.starts[0][0] == 11_800, "asked something else: a new start"
    assert clocks.next_deadline() == (11_800 + 1000, 0)
    assert clocks.next_deadline(skip=[0]) is None
    [seat0, *_] = clocks.readings(12_300)
    assert (seat0.pending, seat0.remaining_ms, seat0.bank_ms) == (True, 500, 0)
    assert seat0.deadline_unix_ms == 12_800
