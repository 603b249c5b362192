"""The ``hard`` house bot (the search strategy, ISMCTS, as a server bot): a game
against it plays to the end on a small iteration budget, deciding in the level's worker
process from the seat's knowledge, which is exactly the seat's redacted events and view as
its session delivered them (never the table); and the replacement rule holds for it (a
failure in the worker, an overrun of the budget, missing knowledge)."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from typing import Any

import pytest

from referee.application import Referee
from referee.application.house import levels
from referee.application.house.levels import LEVELS, Level
from referee.engine import Table, all_games
from referee.engine.openings import CardsOpened, held_one_by_one
from referee.search.worlds import Knowledge
from tests.application.seating_support import account, seats
from tests.application.support import run, until
from tests.application.test_house_bots import play_as

#: The hard level on a few iterations per move: quick, and reproducible.
QUICK = dataclasses.replace(LEVELS["hard"], accounts=2, iterations=4)
#: Short games: the person plays at random.
SHORT = {"mau-mau-vampires": {"hands": "1"}, "vampire-queen": {"rounds": "1"}}
#: Each game type, at its fewest seats (two or three: one person, the rest hard bots).
GAMES = sorted((g.info.type_id, int(g.info.min_players)) for g in all_games())


def fallbacks(referee: Referee, level: str, game_type: str, reason: str) -> float:
    labels = {"level": level, "game_type": game_type, "reason": reason}
    value = referee.metrics.registry.get_sample_value("referee_house_bot_fallbacks_total", labels)
    return value or 0.0


def test_hard_is_a_level_that_searches_in_a_worker_process_from_knowledge() -> None:
    hard = levels.parse_levels("hard:2")[0]
    assert (hard.name, hard.strategy, hard.accounts) == ("hard", "search", 2)
    assert hard.process and hard.knows and hard.iterations is None
    assert list(LEVELS) == ["easy", "normal", "hard"]  # weakest first


@pytest.mark.parametrize(("game_type", "players"), GAMES)
def test_a_game_against_hard_house_bots_plays_to_the_end_on_the_seats_knowledge(
    game_type: str, players: int, monkeypatch: Any
) -> None:
    """Every decision is handed the seat's knowledge: the events the table's log holds for
    that seat, redacted for it, up to the view decided on, and the game's options."""
    real = levels.decide
    seen: list[Knowledge] = []

    async def recording(level: Level, view: Any, *args: Any, **kwargs: Any) -> Any:
        known = args[4] if len(args) > 4 else kwargs.get("knowledge")
        assert known is not None, "the hard bot decided without the seat's knowledge"
        seen.append(known)
        return await real(level, view, *args, **kwargs)

    monkeypatch.setattr(levels, "decide", recording)

    async def scenario(referee: Referee) -> None:
        bots = await referee.house_bots.start((QUICK,), seed=3)
        assert {(b.level, b.strategy) for b in bots} == {("hard", "search")}
        ann, _ = await account(referee, "ann", "person")
        options = SHORT.get(game_type, {})
        modes = ["creator", *[f"reserved:{b.player}" for b in bots][: players - 1]]
        created = await referee.create(
            game_type, players, options, settings=seats(*modes), creator=ann
        )
        await until(lambda: referee.games[created.game_id].table.started)
        await play_as(referee, created.game_id, ann, 0, seed=4)
        summary = await referee.summary(created.game_id)
        assert summary.game_over and not summary.aborted
        table: Table[Any] = referee.games[created.game_id].table
        assert seen, "the hard bot never moved"
        for known in seen:
            assert known.seat in range(1, players) and known.players == players
            assert known.game_type == game_type and known.view.viewer == known.seat
            assert dict(known.options) == dict(table.config.options)
            assert known.view.version == len(known.events)
            assert list(known.events) == table.redacted_log(known.seat)[: len(known.events)]
            # The openings as the seat receives them: no deck tree of the referee's (each
            # holds every card of its shuffle and the key of every salt).
            opened = [e for e in known.events if isinstance(e, CardsOpened)]
            assert all(held_one_by_one(e) for e in opened)
        moves = referee.metrics.registry.get_sample_value(
            "referee_house_bot_moves_total", {"level": "hard", "game_type": game_type}
        )
        assert moves == len(seen)
        # Not "budget": whether a search overran its wall clock depends on the machine's load
        # (the next test covers that fallback).
        for reason in ("error", "illegal"):
            assert fallbacks(referee, "hard", game_type, reason) == 0, reason

    run(scenario)


def test_a_hard_bot_failing_or_overrunning_in_its_worker_is_replaced_and_counted(
    monkeypatch: Any,
) -> None:
    """A knowing level whose strategy cannot search raises in the worker process (``error``);
    a search given more CPU time than the budget's wall clock overruns it (``budget``: CPU
    time never exceeds the wall clock, so the overrun is certain). Each move is then the
    random strategy's, and the game still ends."""
    # The search's share of the budget, passed to the worker: four budgets of CPU time.
    monkeypatch.setattr(levels, "SEARCH_SHARE", 4.0)

    async def scenario(referee: Referee) -> None:
        broken = Level("broken", "heuristic", process=True, knows=True)
        slow = dataclasses.replace(LEVELS["hard"], accounts=1)
        await referee.house_bots.start((broken, slow), budget_ms=40, seed=5)
        ann, _ = await account(referee, "ann", "person")
        modes = ("creator", "reserved:house-broken", "reserved:house-hard")
        created = await referee.create(
            "vampire-queen", 3, {"rounds": "1"}, settings=seats(*modes), creator=ann
        )
        await until(lambda: referee.games[created.game_id].table.started)
        await play_as(referee, created.game_id, ann, 0, seed=6)
        assert (await referee.summary(created.game_id)).game_over
        assert fallbacks(referee, "broken", "vampire-queen", "error") > 0
        assert fallbacks(referee, "hard", "vampire-queen", "budget") > 0
        assert fallbacks(referee, "hard", "vampire-queen", "error") == 0

    run(scenario)


def test_a_knowing_level_without_the_seats_knowledge_is_replaced() -> None:
    """Knowledge missing (the bot missed some of the seat's events) or of another moment:
    the move is the random strategy's, reason ``error``, never a search on a wrong past."""
    table = Table.create("vampire-queen", 3, seed=b"hard-missing")
    seat = table.pending()[0]
    view = table.view(seat)
    config = table.config
    stale = Knowledge(
        config.game_type, 3, dict(config.options), seat, tuple(table.redacted_log(seat))[:-1], view
    )
    stale = dataclasses.replace(stale, view=dataclasses.replace(view, version=view.version - 1))
    for known in (None, stale):
        made = asyncio.run(levels.decide(QUICK, view, 3, random.Random(1), 10**6, None, known))
        assert made.fallback == "error" and made.command in view.legal_commands
    known = dataclasses.replace(stale, events=tuple(table.redacted_log(seat)), view=view)
    made = asyncio.run(levels.decide(QUICK, view, 3, random.Random(1), 10**6, None, known))
    assert not made.fallback and made.command in view.legal_commands
