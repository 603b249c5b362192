"""Clocks at the application layer: timeouts, forfeits and the order of a late command.

Moved here from tests/server/test_clocks.py (which keeps what the wire carries): these drive
:class:`~referee.application.Referee` directly on a memory store.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from referee.application import (
    Clock,
    DecidedBy,
    GameSettings,
    Kind,
    Limits,
    Referee,
    Unreadable,
)
from referee.application.tables import commands, repository, timekeeper
from referee.engine.table_events import DefaultPlayed, SeatForfeited, SeedRevealed, TimedOut
from referee.games.vampire_queen.model import Pass
from referee.store import SqliteEventStore
from tests.application.support import first_legal, play_to_end, refused, run, until

GAME = "vampire-queen"


def test_a_command_after_its_deadline_finds_the_decision_timed_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """However late the timer runs, a command that arrives after its seat's deadline is not
    played: the timeout is applied first."""

    async def scenario(referee: Referee) -> None:
        # No connect grace: the seat's clock runs from the start (tests/application/
        # test_seating_clocks.py: a token seat's clock waits for its first call).
        settings = GameSettings(
            clock=Clock(decision_ms=60_000), card_commitments=True, connect_grace_ms=0
        )
        created = await referee.create(GAME, 3, {"rounds": "1"}, settings=settings)
        live = referee.games[created.game_id]
        seat = live.table.pending()[0]
        command = live.table.view(seat).legal_commands[0]
        real = timekeeper.now_ms

        def later() -> int:
            return real() + 61_000  # a minute later

        # The command's arrival, the clock's reading and the stamps of what is appended.
        for module in (commands, timekeeper, repository):
            monkeypatch.setattr(module, "now_ms", later)
        error = await refused(
            referee.submit(created.game_id, created.seat_tokens[seat], "late", command)
        )
        assert error.kind is Kind.NOT_NOW
        timed_out = [e for e in live.table.log if type(e).__name__ == "TimedOut"]
        assert [e.seat for e in timed_out] == [seat]
        assert live.summary().seat_stats[seat].timeouts == 1

    run(scenario)


def errors_counted(referee: Referee, kind: str) -> float:
    """The ``referee_seat_errors_total`` metric of ``kind`` for the game type."""
    labels = {"game_type": GAME, "kind": kind}
    return referee.metrics.registry.get_sample_value("referee_seat_errors_total", labels) or 0.0


def clocked(decision_ms: int, bank_ms: int = 0, forfeit_after: int = 0) -> GameSettings:
    """A clocked game whose seats' clocks run from the start, called or not (no connect
    grace: these tests time out seats that never call)."""
    clock = Clock(decision_ms, bank_ms, forfeit_after)
    return GameSettings(clock=clock, card_commitments=True, public_seed=True, connect_grace_ms=0)


def test_a_timeout_plays_the_default_command_stamped_and_counted() -> None:
    """The seat's clock runs out: the referee plays the first legal command for it (what the
    seat would have played by hand, in a twin game without a clock), in a batch stamped as a
    timeout no earlier than the clock allowed; only the seat sees the command played."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 3, seed="clock-timeout", settings=clocked(200))
        live = referee.games[created.game_id]
        seat = live.table.pending()[0]
        seen = await referee.view(created.game_id, seat_token=created.seat_tokens[seat])
        clocks = {c.seat: c for c in seen.clocks}
        assert sorted(clocks) == [0, 1, 2] and clocks[seat].pending
        assert clocks[seat].remaining_ms <= 200
        assert not any(clocks[s].pending for s in clocks if s != seat)
        decision = seen.view.decisions[0]
        default = first_legal(live, seat)  # the documented default: first in canonical order
        twin = await referee.create(GAME, 3, seed="clock-timeout", settings=clocked(0))
        by_hand = await referee.submit(twin.game_id, twin.seat_tokens[seat], "hand", default)
        twin_log = referee.games[twin.game_id].table.log
        expected = twin_log[by_hand.first_sequence - 1 : by_hand.last_sequence]
        before = errors_counted(referee, "timeout")
        await until(lambda: any(isinstance(e, TimedOut) for e in live.table.log))
        await referee.abort(created.game_id, created.organiser_token, "test over")
        stats = (await referee.summary(created.game_id)).seat_stats[seat]
        assert stats.timeouts >= 1 and not stats.forfeited and stats.commands == 0
        assert errors_counted(referee, "timeout") >= before + 1
        log = live.table.log
        at = next(i for i, e in enumerate(log) if isinstance(e, TimedOut))
        timed_out = log[at]
        assert isinstance(timed_out, TimedOut)
        assert (timed_out.seat, timed_out.kind, timed_out.rule_id, timed_out.timeouts) == (
            seat,
            decision.kind,
            decision.rule_id,
            1,
        )
        assert timed_out.command == default
        assert live.table.redact(timed_out, None).command is None, "the seat's own secret"
        assert live.table.redact(timed_out, seat).command == default
        stamped = live.stamped(at, None)
        assert stamped.decided is not None and stamped.decided.seat == seat
        assert stamped.decided.by is DecidedBy.TIMEOUT and stamped.decided.decision_ms >= 200
        assert stamped.recorded_ms >= created.summary.created_unix_ms + 200
        assert list(log[at + 1 : stamped.batch_end]) == list(expected), "the command's events"

    run(scenario)


def test_an_accepted_command_records_its_decision_time() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 3, seed="decision-time", settings=clocked(0))
        live = referee.games[created.game_id]
        seat = live.table.pending()[0]
        await asyncio.sleep(0.15)
        submitted = await referee.submit(
            created.game_id,
            created.seat_tokens[seat],
            "timed",
            first_legal(live, seat),
            client_decision_ms=42,
        )
        first = live.stamped(submitted.first_sequence - 1, None)
        assert first.decided is not None and first.decided.seat == seat
        assert first.decided.by is DecidedBy.COMMAND and first.decided.decision_ms >= 150
        assert first.decided.client_decision_ms == 42
        assert first.recorded_ms >= created.summary.created_unix_ms + 150
        if submitted.last_sequence > submitted.first_sequence:
            assert live.stamped(submitted.last_sequence - 1, None).decided is None
        stats = (await referee.summary(created.game_id)).seat_stats[seat]
        assert stats.commands == 1 and stats.decision_ms_total >= 150
        assert not submitted.view.clocks, "no clock, no clocks in views"

    run(scenario)


def test_the_bank_absorbs_an_overrun_then_the_decision_times_out() -> None:
    async def scenario(referee: Referee) -> None:
        settings = clocked(100, bank_ms=300)
        created = await referee.create(GAME, 3, seed="bank", settings=settings)
        live = referee.games[created.game_id]
        seat = live.table.pending()[0]
        token = created.seat_tokens[seat]
        mine = {c.seat: c for c in (await referee.view(created.game_id, seat_token=token)).clocks}
        assert mine[seat].bank_ms <= 300 and mine[seat].remaining_ms <= 100
        await until(lambda: any(isinstance(e, TimedOut) for e in live.table.log))
        after = {c.seat: c for c in (await referee.view(created.game_id, seat_token=token)).clocks}
        assert after[seat].bank_ms == 0, "the timeout used the whole bank"
        at = next(i for i, e in enumerate(live.table.log) if isinstance(e, TimedOut))
        decided = live.stamped(at, None).decided
        assert decided is not None and decided.seat == seat
        assert decided.decision_ms >= 100 + 300, "the bank was not used before the timeout"
        await referee.abort(created.game_id, created.organiser_token, "test over")

    run(scenario)


def test_a_seat_forfeits_after_k_timeouts_and_then_plays_at_once() -> None:
    async def scenario(referee: Referee) -> None:
        settings = clocked(200, forfeit_after=1)
        created = await referee.create(GAME, 3, seed="forfeit", settings=settings)
        live = referee.games[created.game_id]
        await until(lambda: live.finished)
        final = await referee.summary(created.game_id)
        assert len(final.results) == 3, "played to the end, with results"
        assert all(s.timeouts == 1 and s.forfeited for s in final.seat_stats)
        log = live.table.log
        forfeits = [i for i, e in enumerate(log) if isinstance(e, SeatForfeited)]
        assert len(forfeits) == 3 and sum(isinstance(e, TimedOut) for e in log) == 3
        for i in forfeits:  # each forfeit follows its seat's timeout, in the same batch
            previous = log[i - 1]
            assert isinstance(previous, TimedOut) and previous.seat == log[i].seat
        rest = log[forfeits[-1] + 1 :]  # then nobody waits: default plays, no timeouts
        assert not any(isinstance(e, TimedOut) for e in rest)
        assert any(isinstance(e, DefaultPlayed) for e in rest)
        for index, event in enumerate(log):
            if isinstance(event, DefaultPlayed):
                decided = live.stamped(index, None).decided
                assert decided is not None and decided.by is DecidedBy.FORFEIT
                assert decided.decision_ms == 0
                assert live.table.redact(event, None).command is None
        assert isinstance(log[-1], SeedRevealed)

    run(scenario)


def test_clocks_survive_a_restart(tmp_path: Path) -> None:
    """The deadline of a decision pending when the referee stopped is recovered from the log:
    the next referee on the store times it out on its own (nobody asks for the game) and
    measures the decision from its original start."""
    path = tmp_path / "referee.sqlite3"
    decision_ms = 1500
    found: dict[str, Any] = {}

    async def first(referee: Referee) -> None:
        created = await referee.create(GAME, 3, seed="restart", settings=clocked(decision_ms))
        live = referee.games[created.game_id]
        found.update(game_id=created.game_id, seat=live.table.pending()[0])
        found.update(started=created.summary.created_unix_ms, version=live.table.version)

    run(first, store=SqliteEventStore(path))

    async def second(referee: Referee) -> None:
        game_id = found["game_id"]
        await until(lambda: game_id in referee.games)  # preloaded: its clock runs
        live = referee.games[game_id]
        await until(lambda: any(isinstance(e, TimedOut) for e in live.table.log))
        at = next(i for i, e in enumerate(live.table.log) if isinstance(e, TimedOut))
        if at < found["version"]:  # a machine too slow to stop the first referee in time
            pytest.skip("the first referee timed the decision out before it stopped")
        timed_out = live.table.log[at]
        assert isinstance(timed_out, TimedOut) and timed_out.seat == found["seat"]
        stamped = live.stamped(at, None)
        assert stamped.decided is not None and stamped.decided.decision_ms >= decision_ms
        assert stamped.recorded_ms >= found["started"] + decision_ms, "the deadline was kept"

    run(second, store=SqliteEventStore(path))


def test_refusals_and_disconnects_are_counted_and_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "referee.sqlite3"
    found: dict[str, Any] = {}

    async def first(referee: Referee) -> None:
        created = await referee.create(GAME, 3, seed="accounting", settings=clocked(0))
        game_id, tokens = created.game_id, created.seat_tokens
        live = referee.games[game_id]
        leader = live.table.pending()[0]
        other = (leader + 1) % 3
        # Refused: not its turn (twice, but a retried command id counts once), unreadable.
        for _ in range(2):
            await refused(referee.submit(game_id, tokens[other], "not-now", Pass()))
        await refused(referee.submit(game_id, tokens[other], "bad", Unreadable("command", "?")))
        await refused(referee.submit(game_id, tokens[leader], "lead-pass", Pass()))
        # A seat's stream closed by its client mid-game, not resumed within the reconnect
        # window, is a disconnect; a spectator's is not.
        for stream in (
            referee.stream(game_id, seat_token=tokens[other]),
            referee.stream(game_id, spectator=True),
        ):
            await anext(stream)
            await stream.aclose()
        await until(lambda: live.summary().seat_stats[other].disconnects == 1)
        stats = (await referee.summary(game_id)).seat_stats
        assert [s.rejected_commands for s in stats] == [
            2 if s == other else 1 if s == leader else 0 for s in range(3)
        ]
        assert [s.disconnects for s in stats] == [1 if s == other else 0 for s in range(3)]
        assert errors_counted(referee, "rejected") == 3
        assert errors_counted(referee, "disconnect") == 1
        found.update(game_id=game_id, stats=stats)

    window = Limits(reconnect_window_seconds=0.2)
    run(first, window, SqliteEventStore(path))  # close() waits for the store's writer thread

    async def second(referee: Referee) -> None:
        assert (await referee.summary(found["game_id"])).seat_stats == found["stats"]

    run(second, store=SqliteEventStore(path))


def test_a_stream_ended_by_a_finished_game_is_no_disconnect() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 3, seed="no-disconnect", settings=clocked(0))
        stream = referee.stream(created.game_id, seat_token=created.seat_tokens[1])
        await anext(stream)
        await play_to_end(referee, created, 3)
        updates = [update async for update in stream]  # ends by itself with the game
        assert updates and updates[-1].view.view.over
        summary = await referee.summary(created.game_id)
        assert all(s.disconnects == 0 for s in summary.seat_stats)

    run(scenario)


def test_seat_clocks_follow_decisions_across_batches() -> None:
    """A decision keeps its start while other seats act; it restarts after the seat's own
    decision or when the game asks it something else; overruns drain the bank."""
    from referee.application.tables.clocks import Clock, SeatClocks
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
