"""The event limit at the application layer: a game that reaches it ends in public, with
results, and every later command cites the limit (tests/server/test_event_limit.py keeps how
it reads on the wire)."""

from __future__ import annotations

from referee.application import GameSettings, Kind, Referee
from referee.engine.table_events import EventLimitReached
from referee.games.mau_mau_vampires.model import DrawCard
from tests.application.support import play_to_end, refused, run

GAME = "mau-mau-vampires"


def test_a_game_at_its_event_limit_ends_in_public_with_results() -> None:
    async def scenario(referee: Referee) -> None:
        settings = GameSettings(card_commitments=True, max_events=60)
        created = await referee.create(GAME, 2, settings=settings)
        assert created.summary.max_events == 60
        await play_to_end(referee, created, 5)
        summary = await referee.summary(created.game_id)
        assert summary.game_over and not summary.aborted and len(summary.results) == 2
        assert summary.version > 60
        log = referee.games[created.game_id].table.log
        reached = [e for e in log if isinstance(e, EventLimitReached)]
        assert len(reached) == 1 and reached[0].limit == 60
        # The event holds the rules' standing; the summary each seat's result by the one
        # rule: nobody left, so the same ranks.
        standing = [(r.seat, r.score, r.rank) for r in reached[0].results]
        assert standing == [(r.seat, r.score, r.rank) for r in summary.results or ()]
        seat_view = await referee.view(created.game_id, seat_token=created.seat_tokens[0])
        assert seat_view.view.over and not seat_view.view.legal_commands
        error = await refused(
            referee.submit(created.game_id, created.seat_tokens[0], "late", DrawCard())
        )
        assert error.kind is Kind.NOT_NOW and error.rule_id == "EVENT-LIMIT"
        assert error.reason == "GAME_OVER"

    run(scenario)
