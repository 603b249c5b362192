"""The search strategy: legal moves, from the seat's own information only.

Small iteration budgets keep these cheap; the strength measurement is the documented
tournament (docs/performance.md), not a test."""

from __future__ import annotations

import random

import pytest

from referee.bots import KnowingStrategy, SearchStrategy, make_strategy
from referee.engine.bot import game_bot
from referee.engine.table import Table
from referee.search.worlds import knowledge_of

GAMES = [
    ("vampire-queen", 3, {"rounds": "1"}),
    ("sleeping-queens", 2, {}),
    ("dracula-vs-van-helsing", 2, {}),
    ("mau-mau-vampires", 2, {"hands": "1"}),
]


def advance(table: Table, moves: int) -> None:
    """A few heuristic moves, so the seat has a history to sample from."""
    bot = game_bot(table.config.game_type)
    for _ in range(moves):
        if table.results() is not None:
            return
        seat = table.pending()[0]
        table.submit(seat, bot.choose(table.view(seat), table.config.players))


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_search_plays_a_legal_move(game: str, players: int, options: dict[str, str]) -> None:
    table = Table.create(game, players, options, seed=b"legal")
    advance(table, 5)
    seat = table.pending()[0]
    strategy = SearchStrategy(game, iterations=6, algorithm="pimc")
    command = strategy.choose_known(knowledge_of(table, seat), random.Random(1))
    assert command in table.legal_commands(seat)
    # Without the knowledge it plays as the heuristic.
    assert strategy.choose(table.view(seat), players, random.Random(1)) in table.legal_commands(
        seat
    )


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_the_decision_does_not_depend_on_what_the_seat_cannot_see(
    game: str, players: int, options: dict[str, str]
) -> None:
    """The leak property: two tables whose deals differ only in what the seat may not see
    (a hidden variant of the state, the same history as the seat saw it) get the same
    decision from the same generator and iteration budget."""
    for salt in range(3):
        table = Table.create(game, players, options, seed=f"leak{salt}".encode())
        advance(table, 4 + salt)
        seat = table.pending()[0]
        known = knowledge_of(table, seat)
        other = table.copy()
        other.state = table.game.hidden_variant(table.state, seat, 7 + salt)
        known_other = knowledge_of(other, seat)
        assert known_other.view == known.view and known_other.events == known.events
        assert other.game.view(other.state, seat) == table.game.view(table.state, seat)
        decide = SearchStrategy(game, iterations=8, algorithm="pimc").choose_known
        assert decide(known, random.Random(salt)) == decide(known_other, random.Random(salt))


def test_the_search_levels_are_built_in_strategies() -> None:
    strategy = make_strategy("search", "sleeping-queens")
    assert isinstance(strategy, KnowingStrategy) and isinstance(strategy, SearchStrategy)
    assert make_strategy("search-1s", "sleeping-queens").millis == 1000.0  # type: ignore[attr-defined]


def test_a_search_game_over_the_sdk_path_plays_to_the_end() -> None:
    """The tournament runner's in-process path feeds the seat's events to the search."""
    from referee_bot.strategies import KnowingBot
    from referee_bot.strategies import make_strategy as client_strategy

    bot = client_strategy("search", "dracula-vs-van-helsing")
    assert isinstance(bot, KnowingBot)
