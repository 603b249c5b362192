"""Clocks at the application layer: timeouts, forfeits and the order of a late command.

Moved here from tests/server/test_clocks.py (which keeps what the wire carries): these drive
:class:`~referee.application.Referee` directly on a memory store.
"""

from __future__ import annotations

import pytest

from referee.application import Clock, GameSettings, Kind, Referee, commands, hand, repository
from tests.application.support import refused, run

GAME = "vampire-queen"


def test_a_command_after_its_deadline_finds_the_decision_timed_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """However late the timer runs, a command that arrives after its seat's deadline is not
    played: the timeout is applied first."""

    async def scenario(referee: Referee) -> None:
        settings = GameSettings(clock=Clock(decision_ms=60_000), card_commitments=True)
        created = await referee.create(GAME, 3, {"rounds": "1"}, settings=settings)
        live = referee.games[created.game_id]
        seat = live.table.pending()[0]
        command = live.table.view(seat).legal_commands[0]
        real = hand.now_ms

        def later() -> int:
            return real() + 61_000  # a minute later

        # The command's arrival, the clock's reading and the stamps of what is appended.
        for module in (commands, hand, repository):
            monkeypatch.setattr(module, "now_ms", later)
        error = await refused(
            referee.submit(created.game_id, created.seat_tokens[seat], "late", command)
        )
        assert error.kind is Kind.NOT_NOW
        timed_out = [e for e in live.table.log if type(e).__name__ == "TimedOut"]
        assert [e.seat for e in timed_out] == [seat]
        assert live.summary().seat_stats[seat].timeouts == 1

    run(scenario)
