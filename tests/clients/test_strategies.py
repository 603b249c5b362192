"""referee_bot.strategies on hand-built views: the choice is always legal and sensible (the
Vampire Queen heuristic is the game package's bot, referee/games/vampire_queen/bot.py, run on
the view's engine values)."""

from __future__ import annotations

import doctest
import random

import pytest

from referee.games.vampire_queen import bot
from referee.v1 import referee_pb2
from referee_bot import strategies
from referee_bot.strategies import STRATEGIES, GameBot, RandomStrategy, make_strategy
from tests.clients import VQ, lead_hunter, make_view, pass_, play_card, play_set, trick_play


def choose(view: referee_pb2.View) -> referee_pb2.Command:
    command = make_strategy("heuristic", "vampire-queen").choose(view, random.Random(0))
    assert command in list(view.legal_commands)
    return command


def lead_moves(hand: list[int]) -> list[referee_pb2.Command]:
    """Every lead of ``hand`` in the server's canonical order (as a test fixture)."""
    queens = hand.count(14)
    moves = [
        play_set(v, k + q, q)
        for v in range(1, 14)
        for k in range(1, hand.count(v) + 1)
        for q in range(queens + 1)
    ]
    moves += [play_set(14, q, q) for q in range(1, queens + 1)]
    return moves


def test_doctests() -> None:
    assert doctest.testmod(strategies).failed == 0
    assert doctest.testmod(bot).failed == 0


def test_random_picks_uniformly_among_legal_commands() -> None:
    legal = [pass_(), play_set(9, 1), play_set(12, 1)]
    view = make_view(legal=legal)
    rng = random.Random(5)
    picks = [RandomStrategy().choose(view, rng) for _ in range(300)]
    assert all(p in legal for p in picks)
    assert all(80 < sum(p == c for p in picks) < 120 for c in legal)


def test_registry_falls_back_to_random_for_unknown_games() -> None:
    heuristic = make_strategy("heuristic", "vampire-queen")
    assert isinstance(heuristic, GameBot) and heuristic.bot is bot.BOT
    assert isinstance(make_strategy("heuristic", "other-game"), RandomStrategy)
    assert isinstance(make_strategy("random", "vampire-queen"), RandomStrategy)
    with pytest.raises(ValueError, match="unknown strategy"):
        make_strategy("genius", "vampire-queen")


def test_registry_is_open_to_other_games(monkeypatch: pytest.MonkeyPatch) -> None:
    class First:
        def choose(self, view: referee_pb2.View, rng: random.Random) -> referee_pb2.Command:
            return view.legal_commands[0]

    monkeypatch.setitem(STRATEGIES, "heuristic", {**STRATEGIES["heuristic"], "other": First})
    assert isinstance(make_strategy("heuristic", "other"), First)


def test_leads_a_hunter_first_the_20() -> None:
    hand = [2, 2, 9, 15, 20]
    view = make_view(hand=hand, legal=[*lead_moves(hand), lead_hunter(15), lead_hunter(20)])
    assert choose(view) == lead_hunter(20)
    # a barred Hunter is not in the legal commands: the other one is led
    view = make_view(hand=hand, legal=[*lead_moves(hand), lead_hunter(15)], barred=[20, 0, 0, 0])
    assert choose(view) == lead_hunter(15)


def test_leads_the_largest_set_without_queens_lowest_value_first() -> None:
    hand = [2, 4, 4, 4, 7, 7, 7, 12, 14]
    assert choose(make_view(hand=hand, legal=lead_moves(hand))) == play_set(4, 3)


def test_leads_a_set_that_empties_the_hand() -> None:
    hand = [9, 9, 14]
    assert choose(make_view(hand=hand, legal=lead_moves(hand))) == play_set(9, 3, 1)


def test_leads_queens_when_nothing_else_is_left() -> None:
    hand = [14, 14, 20]
    legal = [play_set(14, 1, 1), play_set(14, 2, 2)]  # the 20 is barred
    assert choose(make_view(hand=hand, legal=legal)) == play_set(14, 2, 2)


def normal_trick(
    hand: list[int], legal: list[referee_pb2.Command], **kw: object
) -> referee_pb2.View:
    return make_view(
        hand=hand,
        legal=legal,
        leader=1,
        turn=0,
        trick_kind=VQ.TRICK_KIND_NORMAL,
        trick=[trick_play(1, VQ.PLAY_KIND_SET, 5, 2)],
        lead_count=2,
        best_value=5,
        best_seat=1,
        **kw,  # type: ignore[arg-type]
    )


def test_follows_with_the_cheapest_set_that_beats_keeping_queens() -> None:
    hand = [3, 6, 6, 9, 9, 11, 14, 14]
    legal = [
        pass_(),
        play_set(6, 2),
        play_set(6, 2, 1),
        play_set(9, 2),
        play_set(9, 2, 1),
        play_set(11, 2, 1),
        play_set(14, 2, 2),
    ]
    assert choose(normal_trick(hand, legal, hand_sizes=[8, 10, 10, 10])) == play_set(6, 2)


def test_passes_when_only_queen_plays_remain_early_in_the_round() -> None:
    hand = [2, 2, 3, 7, 9, 11, 12, 14]
    legal = [pass_(), play_set(7, 2, 1), play_set(9, 2, 1), play_set(11, 2, 1), play_set(12, 2, 1)]
    assert choose(normal_trick(hand, legal, hand_sizes=[8, 11, 12, 10])) == pass_()


def test_uses_queens_near_the_end_of_the_round() -> None:
    hand = [2, 2, 3, 7, 9, 11, 12, 14]
    legal = [pass_(), play_set(7, 2, 1), play_set(9, 2, 1), play_set(14, 2, 2)]
    view = normal_trick(hand, legal, hand_sizes=[8, 3, 12, 10])
    assert choose(view) == play_set(7, 2, 1)


def test_follows_with_a_set_that_empties_the_hand() -> None:
    hand = [12, 14]
    legal = [pass_(), play_set(12, 2, 1), play_set(14, 2, 2)]
    assert choose(normal_trick(hand, legal, hand_sizes=[2, 9, 9, 9])) in (
        play_set(12, 2, 1),
        play_set(14, 2, 2),
    )


def hunter_trick(hand: list[int], plays: list[tuple[int, int]], **kw: object) -> referee_pb2.View:
    """A Hunter trick led by seat 1 with the 20; ``plays`` are (seat, card) answers so far."""
    trick = [trick_play(1, VQ.PLAY_KIND_HUNTER, 20, 1)]
    trick += [trick_play(s, VQ.PLAY_KIND_CARD, v, 1) for s, v in plays]
    queen = int(kw.get("hunter_queen", 1))  # type: ignore[call-overload]
    ranks = [(queen if v == 14 else v, s) for s, v in plays]
    best: dict[str, object] = {}
    if ranks:
        top = max(r for r, _ in ranks)
        best = {"best_value": top, "best_seat": next(s for r, s in ranks if r == top)}
    legal = [play_card(v) for v in sorted(set(hand))]
    return make_view(
        seat=0,
        hand=hand,
        legal=legal,
        leader=1,
        turn=0,
        trick_kind=VQ.TRICK_KIND_HUNTER,
        trick=trick,
        **best,  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


def test_hunter_trick_discards_the_dearest_card_that_cannot_take_it() -> None:
    # best so far is 10: the 9 cannot take the trick and is the dearest such card
    view = hunter_trick([2, 5, 9, 12, 13], [(2, 10), (3, 4)])
    assert choose(view) == play_card(9)
    # a queen counts 1 here and costs 14: the ideal discard
    view = hunter_trick([2, 5, 9, 14], [(2, 10), (3, 4)])
    assert choose(view) == play_card(14)


def test_hunter_trick_ties_depend_on_the_tie_rule() -> None:
    assert choose(hunter_trick([3, 10, 12], [(2, 10)], hunter_tie="first")) == play_card(10)
    assert choose(hunter_trick([3, 10, 12], [(2, 10)], hunter_tie="last")) == play_card(3)


def test_hunter_trick_with_no_safe_card_plays_the_lowest() -> None:
    assert choose(hunter_trick([7, 12, 13], [(2, 4)])) == play_card(7)
    # first to answer: everything would lead; the lowest rank (a queen counts 1)
    assert choose(hunter_trick([7, 12, 14], [], hunter_queen=1)) == play_card(14)
    assert choose(hunter_trick([7, 12, 14], [], hunter_queen=14)) == play_card(7)


@pytest.mark.parametrize("seed", range(20))
def test_every_choice_is_legal_on_random_positions(seed: int) -> None:
    rng = random.Random(seed)
    hand = sorted(rng.choices([*range(1, 15)], k=rng.randint(1, 13)))
    for view in (
        make_view(hand=hand, legal=lead_moves(hand)),
        normal_trick(
            hand, [pass_(), *[m for m in lead_moves(hand) if m.vampire_queen.play_set.count == 2]]
        ),
        hunter_trick(hand, [(2, rng.randint(1, 13))]),
    ):
        if view.legal_commands:
            choose(view)
            assert RandomStrategy().choose(view, rng) in list(view.legal_commands)
