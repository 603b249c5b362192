"""No clock runs before a game starts, in both flows.

Today's flow (every seat's token to the creator): a seat's clock starts at its first call or
``connect_grace_ms`` after the start, whichever is first; presence is kept in the store, so
a restart keeps the deadline. The lobby flow (open seats): nothing is asked before the table
is full, so nothing can time out; claimed seats are present from their claim.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from referee.application import Clock, GameSettings, Referee
from referee.application.tables.live import PRESENT
from referee.engine.table_events import TimedOut
from referee.store import SqliteEventStore
from tests.application.seating_support import DV, OPEN, seats
from tests.application.support import run, until


def clocked(decision_ms: int, grace_ms: int = 30_000, forfeit_after: int = 0) -> GameSettings:
    return GameSettings(
        clock=Clock(decision_ms, 0, forfeit_after),
        card_commitments=True,
        connect_grace_ms=grace_ms,
    )


def timeouts(referee: Referee, game_id: str) -> list[TimedOut]:
    return [e for e in referee.games[game_id].table.log if isinstance(e, TimedOut)]


def test_a_seat_that_never_called_is_not_timed_out_within_its_grace() -> None:
    """A 200 ms clock, forfeit after 2, nobody connects: nothing times out within the grace
    period (a clock running before the start would time seat 0 out within the second)."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create(DV, 2, settings=clocked(200, forfeit_after=2))
        live = referee.games[created.game_id]
        await asyncio.sleep(1.0)
        assert timeouts(referee, created.game_id) == []
        assert not live.over
        seat = live.table.pending()[0]
        [reading] = [c for c in live.view(None).clocks if c.seat == seat]
        assert reading.remaining_ms == 200, "its decision has not started"

    run(scenario)


def test_the_first_call_starts_the_seats_clock() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(DV, 2, settings=clocked(200))
        live = referee.games[created.game_id]
        await asyncio.sleep(0.5)  # long past 200 ms: no clock ran
        seat = live.table.pending()[0]
        seen = await referee.view(created.game_id, seat_token=created.seat_tokens[seat])
        called = seen.view.version
        stats = referee.store.stats
        await until(lambda: PRESENT in stats(created.game_id).get(seat, {}))
        assert stats(created.game_id)[seat][PRESENT] >= 500, "kept for restarts and replicas"
        await until(lambda: bool(timeouts(referee, created.game_id)))
        [first] = timeouts(referee, created.game_id)
        assert first.seat == seat
        at = live.table.log.index(first)
        stamped = live.stamped(at, None)
        assert stamped.decided is not None
        assert 200 <= stamped.decided.decision_ms < 500, "measured from the call, not the deal"
        assert called < at + 1

    run(scenario)


def test_the_grace_period_starts_a_silent_seats_clock() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(DV, 2, settings=clocked(100, grace_ms=400))
        await until(lambda: bool(timeouts(referee, created.game_id)))
        live = referee.games[created.game_id]
        first = timeouts(referee, created.game_id)[0]
        stamped = live.stamped(live.table.log.index(first), None)
        assert stamped.recorded_ms >= created.summary.created_unix_ms + 400 + 100

    run(scenario)


def test_presence_survives_a_restart(tmp_path: Path) -> None:
    """A seat that called before the restart keeps the deadline its call started (the
    store's ``present_ms``), not a new grace period."""
    path = tmp_path / "referee.sqlite3"
    found: dict[str, Any] = {}

    async def first(referee: Referee) -> None:
        created = await referee.create(DV, 2, settings=clocked(1500, grace_ms=3_600_000))
        live = referee.games[created.game_id]
        seat = live.table.pending()[0]
        await referee.view(created.game_id, seat_token=created.seat_tokens[seat])
        found.update(game_id=created.game_id, seat=seat, called=live.seat_clocks.present_from(seat))
        await asyncio.sleep(0.05)  # the writer thread records the presence

    run(first, store=SqliteEventStore(path))

    async def second(referee: Referee) -> None:
        game_id = found["game_id"]
        await until(lambda: game_id in referee.games)  # preloaded: its clock runs
        live = referee.games[game_id]
        assert live.seat_clocks.present_from(found["seat"]) == found["called"]
        await until(lambda: bool(timeouts(referee, game_id)))  # within the hour's grace
        first_out = timeouts(referee, game_id)[0]
        assert first_out.seat == found["seat"]

    run(second, store=SqliteEventStore(path))


def test_nothing_times_out_before_a_lobby_game_is_full_then_clocks_run() -> None:
    async def scenario(referee: Referee) -> None:
        clock = Clock(decision_ms=100, forfeit_after_timeouts=1)
        created = await referee.create(DV, 2, settings=seats(OPEN, OPEN, clock=clock))
        game_id = created.game_id
        live = referee.games[game_id]
        codes = dict(created.invitations)
        await referee.seating.claim(game_id, None, None, codes[0])
        await asyncio.sleep(0.6)
        assert timeouts(referee, game_id) == [] and not live.over
        assert live.table.version == 2, "the log is the commitment and one claim"
        assert live.view(None).clocks == () or not any(c.pending for c in live.view(None).clocks)
        await referee.seating.claim(game_id, None, None, codes[1])
        started = live.seat_clocks.started_ms
        assert started is not None
        await until(lambda: bool(timeouts(referee, game_id)))
        first = timeouts(referee, game_id)[0]
        stamped = live.stamped(live.table.log.index(first), None)
        # Claimed seats are present from their claim: no grace period.
        assert started + 100 <= stamped.recorded_ms < started + 1000

    run(scenario)
