"""The information-set tree search (:mod:`referee.search.ismcts`): a legal
move always, the same move from the same seed and iteration budget, and from the seat's own
information only.

Iteration budgets keep these cheap and deterministic; the strength measurement is the
documented duplicate-deal tournament (docs/performance.md), never a timed test."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable
from typing import Any

import pytest

from referee.bots import SearchStrategy, make_strategy
from referee.engine.bot import game_bot
from referee.engine.table import Table
from referee.search import ismcts, pimc
from referee.search.worlds import Chance, knowledge_of, sample_world

GAMES = [
    ("vampire-queen", 3, {"rounds": "1"}),
    ("sleeping-queens", 2, {}),
    ("dracula-vs-van-helsing", 2, {}),
    ("mau-mau-vampires", 2, {"hands": "1"}),
]


def advance(table: Table, moves: int) -> None:
    """Heuristic moves, so the seat has a history to sample from."""
    bot = game_bot(table.config.game_type)
    for _ in range(moves):
        if table.results() is not None:
            return
        seat = table.pending()[0]
        table.submit(seat, bot.choose(table.view(seat), table.config.players))


def decision_points(game: str, players: int, options: dict[str, str], seed: bytes) -> list[Table]:
    """Copies of one heuristic game at every third decision with a choice to make."""
    table = Table.create(game, players, options, seed=seed)
    bot = game_bot(game)
    points = []
    while table.results() is None and len(points) < 6:
        seat = table.pending()[0]
        if len(table.legal_commands(seat)) > 1 and table.version % 3 == 0:
            points.append(table.copy())
        table.submit(seat, bot.choose(table.view(seat), players))
    return points


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_the_search_always_plays_a_legal_command(
    game: str, players: int, options: dict[str, str]
) -> None:
    points = decision_points(game, players, options, b"legal-ismcts")
    assert points, "no decision with a choice was found: the test is blind"
    for i, table in enumerate(points):
        seat = table.pending()[0]
        strategy = SearchStrategy(game, iterations=12)
        command = strategy.choose_known(knowledge_of(table, seat), random.Random(i))
        assert command in table.legal_commands(seat)
        assert strategy.last_iterations == 12


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_the_same_seed_and_iterations_give_the_same_command_and_tree(
    game: str, players: int, options: dict[str, str]
) -> None:
    table = Table.create(game, players, options, seed=b"again")
    advance(table, 5)
    seat = table.pending()[0]
    known = knowledge_of(table, seat)
    settings = ismcts.ismcts_settings_for(game)

    def tree(seed: bytes) -> list[tuple[object, int, float]]:
        root = ismcts.grow(known, Chance(seed), lambda done: done >= 20, settings)
        return [(c, child.visits, child.total) for c, child in root.children.items()]

    assert tree(b"one") == tree(b"one")
    decide = SearchStrategy(game, iterations=20).choose_known
    assert decide(known, random.Random(3)) == decide(known, random.Random(3))


def inferring(game: str) -> ismcts.Settings:
    """The game's settings with the worlds weighed by the others' recent moves."""
    return dataclasses.replace(ismcts.ismcts_settings_for(game), infer=4)


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_worlds_weighed_by_the_others_moves_give_the_same_tree_from_the_same_seed(
    game: str, players: int, options: dict[str, str]
) -> None:
    table = Table.create(game, players, options, seed=b"again-infer")
    advance(table, 7)
    seat = table.pending()[0]
    known = knowledge_of(table, seat)
    settings = inferring(game)

    def tree(seed: bytes) -> list[tuple[object, int, float]]:
        root = ismcts.grow(known, Chance(seed), lambda done: done >= 30, settings)
        return [(c, child.visits, child.total) for c, child in root.children.items()]

    assert tree(b"one") == tree(b"one")
    strategy = SearchStrategy(game, iterations=30, settings=settings)
    command = strategy.choose_known(known, random.Random(3))
    assert command in known.legal
    assert command == strategy.choose_known(known, random.Random(3))


def test_settings_refuse_a_tremble_outside_its_range_and_a_negative_infer() -> None:
    for bad in ({"tremble": 0.0}, {"tremble": 1.5}, {"infer": -1}):
        with pytest.raises(ValueError, match=r"^(tremble|infer) must"):
            ismcts.Settings(**bad)  # type: ignore[arg-type]


def test_settings_refuse_a_negative_cutoff_and_a_negative_or_infinite_margin() -> None:
    for bad in (
        {"cutoff": -1},
        {"margin": -0.5},
        {"margin": float("inf")},
        {"margin": float("nan")},
    ):
        with pytest.raises(ValueError, match=r"^(cutoff|margin) must"):
            ismcts.Settings(**bad)  # type: ignore[arg-type]
    assert ismcts.Settings().cutoff == 0 and ismcts.Settings().margin == 0.0  # off by default


def sleeping_queens_search_table(seed: bytes, moves: int) -> Any:
    table = Table.create("sleeping-queens", 2, seed=seed)
    advance(table, moves)
    return table.fork()


def test_a_cut_rollout_stops_after_its_decisions_and_scores_who_leads() -> None:
    """``cutoff``: the rollout plays that many decisions, then rewards the standing's leader
    (Sleeping Queens' queen points, SQ-16's ranking) 1 and the other 0, a tie 0.5 each."""
    bot = game_bot("sleeping-queens")
    checked = 0
    for salt in range(6):
        search = sleeping_queens_search_table(b"cut%d" % salt, 2 + salt)
        rewards = pimc.rollout(search, bot, Chance(b"c"), 0.0, 2, False, (), cutoff=5)
        if search.results() is not None:
            continue  # ended within five decisions: scored on its results instead
        assert search.depth == 5
        points = search.state.points
        expected = (
            [1.0, 0.0]
            if points[0] > points[1]
            else [0.0, 1.0]
            if points[1] > points[0]
            else [0.5, 0.5]
        )
        assert rewards == expected
        checked += 1
    assert checked >= 3, "every rollout ended early: the test is blind"


def test_a_margin_reward_says_by_how_much_a_seat_gained_on_the_other() -> None:
    """``margin``: half the reward is the outcome, half the gain in queen points since the
    iteration's world over the other seat's, ``margin`` points a whole win."""
    bot = game_bot("sleeping-queens")
    search = sleeping_queens_search_table(b"margin", 4)
    origin = search.game.limit_results(search.state, 2)
    before = list(search.state.points)
    outcome = pimc.rollout(search, bot, Chance(b"m"), 0.0, 2, False, ())
    rewards = ismcts.evaluate(search, origin, outcome, 100.0, 2)
    results = search.results()
    assert results is not None  # played to the end: no cut-off
    gains = [search.state.points[s] - before[s] for s in range(2)]
    for seat in range(2):
        won = 1.0 if next(r for r in results if r.seat == seat).rank == 1 else 0.0
        lead = gains[seat] - gains[1 - seat]
        part = min(max(0.5 + lead / 200.0, 0.0), 1.0)
        assert rewards[seat] == pytest.approx(0.5 * won + 0.5 * part)
    assert rewards[0] != rewards[1]
    assert min(rewards) > 0.0 and max(rewards) < 1.0  # denser than a bare win or loss


def test_the_search_with_a_margin_and_a_cutoff_is_reproducible_and_legal() -> None:
    table = Table.create("mau-mau-vampires", 2, {"hands": "1"}, seed=b"margin-mm")
    advance(table, 5)
    seat = table.pending()[0]
    known = knowledge_of(table, seat)
    settings = dataclasses.replace(
        ismcts.ismcts_settings_for("mau-mau-vampires"), margin=8.0, cutoff=30
    )

    def tree(seed: bytes) -> list[tuple[object, int, float]]:
        root = ismcts.grow(known, Chance(seed), lambda done: done >= 12, settings)
        return [(c, child.visits, child.total) for c, child in root.children.items()]

    assert tree(b"one") == tree(b"one")
    totals = [total for _, _, total in tree(b"one")]
    # A margin of a hand's points: some child's total is no longer a sum of 0, 0.5 and 1.
    assert any(abs(t * 2 - round(t * 2)) > 1e-9 for t in totals)
    assert (
        SearchStrategy("mau-mau-vampires", iterations=12, settings=settings).choose_known(
            known, random.Random(1)
        )
        in known.legal
    )


def test_a_weighed_pick_follows_the_weights() -> None:
    rng = Chance(b"weights")
    picks = [ismcts.weighed([1.0, 0.0, 3.0], rng) for _ in range(4000)]
    assert picks.count(1) == 0
    assert 0.2 < picks.count(0) / len(picks) < 0.3
    assert {ismcts.weighed([0.0, 0.0], rng) for _ in range(50)} == {0, 1}


@pytest.mark.parametrize(
    "extra",
    [{}, {"infer": 4}, {"cutoff": 6, "margin": 20.0}, {"check": 0.5, "guard": 0.0}],
    ids=["unweighed", "weighed", "cut-with-margin", "checked"],
)
@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_the_decision_does_not_depend_on_what_the_seat_cannot_see(
    game: str, players: int, options: dict[str, str], extra: dict[str, Any]
) -> None:
    """The leak property: positions that differ only in what the seat may not see (the
    game's hidden variant of the state, the same history as the seat saw it) get the same
    tree and command from the same seed and iteration budget."""
    differing = 0
    for salt in range(3):
        table = Table.create(game, players, options, seed=f"leak-ismcts{salt}".encode())
        advance(table, 3 + 2 * salt)
        seat = table.pending()[0]
        known = knowledge_of(table, seat)
        other = table.copy()
        other.state = table.game.hidden_variant(table.state, seat, 11 + salt)
        differing += other.state != table.state
        known_other = knowledge_of(other, seat)
        assert known_other.view == known.view and known_other.events == known.events
        settings = dataclasses.replace(ismcts.ismcts_settings_for(game), **extra)
        decide = SearchStrategy(game, iterations=16, settings=settings).choose_known
        assert decide(known, random.Random(salt)) == decide(known_other, random.Random(salt))
    assert differing, "hidden_variant changed nothing: the test is blind"


def test_the_root_holds_the_heuristics_command_first_and_visits_add_up() -> None:
    table = Table.create("sleeping-queens", 2, seed=b"root")
    advance(table, 4)
    seat = table.pending()[0]
    known = knowledge_of(table, seat)
    favourite = game_bot("sleeping-queens").choose(known.view, 2)
    root = ismcts.grow(known, Chance(b"r"), lambda done: done >= 30, ismcts.Settings())
    assert next(iter(root.children)) == favourite
    # Every iteration passes the root (a choice there) and backs up through one child.
    assert root.visits == 30 == sum(child.visits for child in root.children.values())
    # Widening: a child is added while fewer than 1 + 0.5 * sqrt(visits) are held, so 30
    # visits hold at most one more than that: far fewer than the legal commands.
    assert 1 < len(root.children) <= 2 + 0.5 * 30**0.5 < len(known.legal)


def test_without_iterations_the_heuristics_command_is_played() -> None:
    table = Table.create("vampire-queen", 3, {"rounds": "1"}, seed=b"none")
    seat = table.pending()[0]
    known = knowledge_of(table, seat)
    favourite = game_bot("vampire-queen").choose(known.view, 3)
    assert ismcts.search(known, Chance(b"z"), lambda done: True) == favourite


def test_the_decision_is_the_most_visited_child_then_the_heuristics() -> None:
    root = ismcts.Node()
    root.children = {
        "a": ismcts.Child(ismcts.Node(), 0, visits=5, total=4.0),
        "b": ismcts.Child(ismcts.Node(), 0, visits=9, total=1.0),
        "c": ismcts.Child(ismcts.Node(), 0, visits=9, total=1.0),
    }
    assert ismcts.decision(root, ("a", "b", "c"), "a") == "b"
    assert ismcts.decision(root, ("a", "b", "c"), "c") == "c"
    # A child no longer legal is not played.
    assert ismcts.decision(root, ("a", "c"), "a") == "c"
    assert ismcts.decision(ismcts.Node(), ("a", "b"), "b") == "b"


def test_the_search_strategies_are_the_tree_search_on_cpu_time() -> None:
    strategy = make_strategy("search", "sleeping-queens")
    assert isinstance(strategy, SearchStrategy)
    assert (strategy.algorithm, strategy.millis, strategy.iterations) == ("ismcts", 100.0, None)
    with pytest.raises(ValueError, match="unknown search algorithm"):
        SearchStrategy("sleeping-queens", algorithm="alphabeta")


def movers(node: ismcts.Node) -> set[int]:
    """Every seat that chose a command in the tree below ``node``."""
    seen: set[int] = set()
    for child in node.children.values():
        seen |= {child.mover} | movers(child.node)
    return seen


def test_the_other_seats_stay_out_of_the_tree_unless_told() -> None:
    table = Table.create("vampire-queen", 3, {"rounds": "1"}, seed=b"movers")
    advance(table, 2)
    seat = table.pending()[0]
    known = knowledge_of(table, seat)
    base = ismcts.ismcts_settings_for("vampire-queen")
    outside = dataclasses.replace(base, opponents="heuristic")
    alone = ismcts.grow(known, Chance(b"m"), lambda done: done >= 40, outside)
    assert movers(alone) == {seat}
    everyone = dataclasses.replace(base, opponents="tree")
    assert movers(ismcts.grow(known, Chance(b"m"), lambda done: done >= 40, everyone)) > {seat}


def rewarded(values: Iterable[float]) -> ismcts.Child:
    """A root child backed up with ``values``."""
    child = ismcts.Child(ismcts.Node(), 0)
    for value in values:
        child.visits += 1
        child.total += value
        child.squares += value * value
    return child


def test_the_guard_keeps_the_heuristics_command_unless_another_is_clearly_better() -> None:
    root = ismcts.Node()
    # "b" is visited most and leads by 0.1 on binary rewards: well inside the noise.
    root.children = {"a": rewarded([1, 0] * 5), "b": rewarded([1, 0] * 6 + [1, 1])}
    # 8 ones in 14: the sample variance of a Bernoulli mean 4/7.
    assert root.children["b"].variance == pytest.approx(8 * (1 - 8 / 14) / 13)
    assert ismcts.decision(root, ("a", "b"), "a") == "b"
    assert ismcts.decision(root, ("a", "b"), "a", guard=2.0) == "a"
    # A lead of many standard errors is played.
    root.children["b"] = rewarded([1.0] * 12)
    root.children["a"] = rewarded([0, 1, 0, 0, 0, 0, 1, 0, 0, 0])
    assert ismcts.decision(root, ("a", "b"), "a", guard=2.0) == "b"
    # Too few visits to judge keeps the heuristic's.
    root.children["a"] = rewarded([0.0])
    assert ismcts.decision(root, ("a", "b"), "a", guard=2.0) == "a"


def test_the_search_with_a_guard_plays_the_heuristic_where_its_evidence_is_thin() -> None:
    """Through ``search``: a guard no lead can pass (rewards are in [0, 1]) gives the
    heuristic's command even where the unguarded search deviates."""
    deviated = 0
    for salt in range(6):
        table = Table.create("sleeping-queens", 2, seed=f"guard{salt}".encode())
        advance(table, 3 + salt)
        seat = table.pending()[0]
        known = knowledge_of(table, seat)
        bot = game_bot("sleeping-queens")
        assert bot is not None
        favourite = bot.choose(known.view, 2)
        base = dataclasses.replace(
            ismcts.ismcts_settings_for("sleeping-queens"), guard=0.0, check=0.0
        )
        stop = lambda done: done >= 24  # noqa: E731
        free = ismcts.search(known, Chance(b"g"), stop, base)
        deviated += free != favourite
        guarded = dataclasses.replace(base, guard=1e9)
        assert ismcts.search(known, Chance(b"g"), stop, guarded) == favourite
        # The same with the checks deciding: no lead of theirs passes such a guard either.
        checked = dataclasses.replace(guarded, check=0.5)
        assert ismcts.search(known, Chance(b"g"), stop, checked) == favourite
    assert deviated, "the unguarded search never deviated: the test is blind"


def test_the_guard_reads_few_equal_rewards_as_no_evidence_of_a_steady_command() -> None:
    root = ismcts.Node()
    # Three equal rewards each: every child's own sample variance is 0, so without a floor
    # any lead passes any guard.
    root.children = {"a": rewarded([0.5] * 3), "b": rewarded([0.75] * 3)}
    assert root.children["b"].variance == 0.0 == root.children["a"].variance
    # The floor: the variance of the six rewards together (0.01875), a standard error of the
    # difference of about 0.112 against a lead of 0.25.
    assert ismcts.pooled_variance(root) == pytest.approx(0.01875)
    assert ismcts.decision(root, ("a", "b"), "a", guard=2.0) == "b"
    assert ismcts.decision(root, ("a", "b"), "a", guard=3.0) == "a"


def test_settings_refuse_a_check_share_outside_zero_to_one() -> None:
    for bad in (-0.1, 1.0, 2.0):
        with pytest.raises(ValueError, match="check must be in"):
            ismcts.Settings(check=bad)
    assert ismcts.Settings().check == 0.0  # off by default


def checked(differences: list[float]) -> ismcts.Check:
    check = ismcts.Check()
    for difference in differences:
        check.add(difference)
    return check


def test_with_checks_the_decision_reads_the_checks_not_the_trees_lead() -> None:
    root = ismcts.Node()
    # The tree's statistics favour "b" by far: unchecked, any guard would let it through.
    root.children = {"a": rewarded([0.0] * 10), "b": rewarded([1.0] * 20)}
    assert ismcts.decision(root, ("a", "b"), "a", guard=2.0) == "b"
    root.checks = {}
    # No check of "b" yet: the heuristic's command.
    assert ismcts.decision(root, ("a", "b"), "a", guard=2.0) == "a"
    # Checks that say "b" is no better: the heuristic's command, whatever the tree says.
    root.checks["b"] = checked([1.0, -1.0, 0.0, 0.0, -1.0, 1.0])
    assert ismcts.decision(root, ("a", "b"), "a", guard=0.0) == "a"
    # Two wins in two checks are not yet a steady lead (the pseudo-differences: mean 0.5,
    # error 0.5), twelve in twelve are.
    root.checks["b"] = checked([1.0, 1.0])
    assert ismcts.decision(root, ("a", "b"), "a", guard=1.0) == "a"
    assert ismcts.decision(root, ("a", "b"), "a", guard=0.5) == "b"
    root.checks["b"] = checked([1.0] * 12)
    assert ismcts.decision(root, ("a", "b"), "a", guard=2.0) == "b"
    # A check of another command than the most visited one is not read for it.
    root.checks = {"c": checked([1.0] * 12)}
    assert ismcts.decision(root, ("a", "b", "c"), "a", guard=1.0) == "a"


def test_a_check_plays_both_commands_in_one_world_with_the_same_luck_after() -> None:
    """Common random numbers: a command checked against itself differs by exactly 0 in every
    world, with random rollouts as with the heuristic's; two different commands do differ in
    some world (else the test is blind)."""
    table = Table.create("sleeping-queens", 2, seed=b"paired")
    advance(table, 4)
    seat = table.pending()[0]
    known = knowledge_of(table, seat)
    bot = game_bot("sleeping-queens")
    first = bot.choose(known.view, 2)
    other = next(command for command in known.legal if command != first)
    rng = Chance(b"c")
    differing = 0
    for epsilon in (0.0, 0.5):
        settings = ismcts.Settings(epsilon=epsilon)
        for _ in range(12):
            world = sample_world(known, rng.seed())
            assert ismcts.paired(world, first, first, seat, bot, rng, settings) == 0.0
            differing += ismcts.paired(world, other, first, seat, bot, rng, settings) != 0.0
    assert differing


def test_a_checked_search_checks_the_trees_choice_in_its_share_of_iterations() -> None:
    """The share of iterations given to checks, all of them of the tree's leading command
    when it was not the heuristic's; the same seed gives the same checks and command."""
    for salt in range(6):
        table = Table.create("sleeping-queens", 2, seed=f"checks{salt}".encode())
        advance(table, 3 + salt)
        seat = table.pending()[0]
        known = knowledge_of(table, seat)
        first = game_bot("sleeping-queens").choose(known.view, 2)
        settings = dataclasses.replace(
            ismcts.ismcts_settings_for("sleeping-queens"), check=0.5, guard=0.0
        )
        stop = lambda done: done >= 40  # noqa: E731
        root = ismcts.grow(known, Chance(b"k"), stop, settings, first)
        assert root.checks is not None and first not in root.checks
        made = sum(check.count for check in root.checks.values())
        assert made <= 20 and made + root.visits == 40
        again = ismcts.grow(known, Chance(b"k"), stop, settings, first)
        assert again.checks is not None
        assert {c: (k.count, k.total) for c, k in again.checks.items()} == {
            c: (k.count, k.total) for c, k in root.checks.items()
        }
        if made:
            return
    raise AssertionError("the tree's choice was the heuristic's in every position: blind")
