"""How well a world explains the other seats' moves (:mod:`referee.search.beliefs`): the true
history of heuristic play holds no surprise, each move off the heuristic is one, and
sampled worlds are told apart by it."""

from __future__ import annotations

import pytest

from referee.engine.bot import game_bot
from referee.engine.table import Table
from referee.search.beliefs import surprises
from referee.search.worlds import World, knowledge_of, sample_world

GAMES = [
    ("vampire-queen", 3, {"rounds": "1"}),
    ("sleeping-queens", 2, {}),
    ("dracula-vs-van-helsing", 2, {}),
    ("mau-mau-vampires", 2, {"hands": "1"}),
]


def truth(table: Table) -> World:
    """The table's own history as a world (what no seat holds; the tests' yardstick)."""
    return World(table.config, tuple(table.log), table.state)


def play(
    game: str, players: int, options: dict[str, str], seed: bytes, off: bool
) -> tuple[Table, list[bool]]:
    """A new table after up to 40 moves of the heuristic (or 12 decisions of the seats other
    than 0); with ``off`` every other decision of those seats is another command than the
    heuristic's (one whose events differ). With the table, for those seats' decisions in
    order, whether each was off the heuristic."""
    table = Table.create(game, players, options, seed=seed)
    bot = game_bot(game)
    assert bot is not None
    flags: list[bool] = []
    for _ in range(40):
        pending = table.pending()
        if table.results() is not None or not pending or len(flags) >= 12:
            break
        mover = pending[0]
        legal = table.legal_commands(mover)
        choice = bot.choose(table.view(mover), players)
        if mover != 0 and len(legal) > 1:
            deviate = off and len(flags) % 2 == 0
            if deviate:
                usual = table.decide(mover, choice)
                others = [c for c in legal if table.decide(mover, c) != usual]
                deviate = bool(others)
                choice = others[0] if others else choice
            flags.append(deviate)
        table.submit(mover, choice)
    return table, flags


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_the_true_history_of_heuristic_play_holds_no_surprise(
    game: str, players: int, options: dict[str, str]
) -> None:
    table, flags = play(game, players, options, b"beliefs-truth", off=False)
    assert len(flags) >= 3, "too few decisions of the others: the test is blind"
    bot = game_bot(game)
    assert bot is not None
    assert surprises(truth(table), 0, bot, 50) == 0


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_each_move_off_the_heuristic_among_the_recent_is_one_surprise(
    game: str, players: int, options: dict[str, str]
) -> None:
    table, flags = play(game, players, options, b"beliefs-off", off=True)
    assert sum(flags) >= 2, "too few moves off the heuristic: the test is blind"
    bot = game_bot(game)
    assert bot is not None
    world = truth(table)
    for recent in range(len(flags) + 2):
        expected = sum(flags[max(0, len(flags) - recent) :]) if recent else 0
        assert surprises(world, 0, bot, recent) == expected, recent


def test_sampled_worlds_are_told_apart_and_each_count_is_its_worlds_own() -> None:
    table, flags = play("sleeping-queens", 2, {}, b"beliefs-sampled", off=False)
    assert flags
    known = knowledge_of(table, 0)
    bot = game_bot("sleeping-queens")
    assert bot is not None
    counts = [surprises(sample_world(known, seed), 0, bot, 4) for seed in range(16)]
    assert counts == [surprises(sample_world(known, seed), 0, bot, 4) for seed in range(16)]
    # The sampler treats the other seat as able to play anything legal: many worlds make
    # its heuristic moves unlikely, some do not.
    assert len(set(counts)) > 1
