"""The Sleeping Queens heuristic (referee/games/sleeping_queens/bot.py, played by referee_bot on
the view's engine values) on hand-built views: the choice is always legal and
sensible."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from referee.games.sleeping_queens import bot
from referee.v1 import referee_pb2
from referee_bot.strategies import GameBot, make_strategy
from tests.clients.sleeping_queens_views import (
    DRAGON,
    JESTER,
    KING,
    KNIGHT,
    POTION,
    SQ,
    SQV,
    WAND,
    block,
    decline,
    discard,
    jester,
    king,
    knight,
    make_view,
    place,
    potion,
    wake,
)


def choose(view: referee_pb2.View) -> referee_pb2.Command:
    command = make_strategy("heuristic", "sleeping-queens").choose(view, random.Random(0))
    assert command in list(view.legal_commands)
    return command


def singles(hand: Sequence[int]) -> list[referee_pb2.Command]:
    return [discard(c) for c in sorted(set(hand))]


def test_registered_as_the_heuristic() -> None:
    heuristic = make_strategy("heuristic", "sleeping-queens")
    assert isinstance(heuristic, GameBot) and heuristic.bot is bot.BOT


def test_wakes_with_a_king_the_best_known_queen() -> None:
    hand = [2, 3, 5, KING, DRAGON]
    view = make_view(
        hand=hand,
        known={4: SQ.QUEEN_HEART, 7: SQ.QUEEN_ROSE},
        legal=[discard(2, 3, 5), *singles(hand), *[king(p) for p in range(12)]],
    )
    assert choose(view) == king(4)
    unknown = make_view(hand=hand, legal=[discard(2, 3, 5), *singles(hand), king(0), king(1)])
    assert choose(unknown) == king(0)


def test_a_king_avoids_the_rival_of_a_held_cat_or_dog() -> None:
    view = make_view(
        hand=[KING, 4],
        awake={0: [SQ.QUEEN_CAT]},
        known={1: SQ.QUEEN_DOG},
        legal=[discard(4), discard(KING), king(1), king(2)],
    )
    assert choose(view) == king(2)


def test_steals_the_most_valuable_queen_with_a_knight() -> None:
    hand = [1, 9, KNIGHT, WAND, DRAGON]
    view = make_view(
        hand=hand,
        awake={1: [SQ.QUEEN_ROSE, SQ.QUEEN_MOON], 2: [SQ.QUEEN_PANCAKE]},
        legal=[
            *singles(hand),
            knight(SQ.QUEEN_ROSE),
            knight(SQ.QUEEN_MOON),
            knight(SQ.QUEEN_PANCAKE),
        ],
    )
    assert choose(view) == knight(SQ.QUEEN_PANCAKE)


def test_a_knight_never_aims_at_the_rival_queen() -> None:
    hand = [1, KNIGHT]
    view = make_view(
        hand=hand,
        awake={0: [SQ.QUEEN_DOG], 1: [SQ.QUEEN_CAT, SQ.QUEEN_ROSE]},
        knight_cat_dog="wasted",
        legal=[*singles(hand), knight(SQ.QUEEN_CAT), knight(SQ.QUEEN_ROSE)],
    )
    assert choose(view) == knight(SQ.QUEEN_ROSE)


def test_a_winning_steal_comes_before_a_king() -> None:
    # 3 queens and 40 points: the Moon Queen makes 50 (SQ-15, 3 players); a King is not sure
    hand = [KING, KNIGHT, 2]
    view = make_view(
        hand=hand,
        awake={0: [SQ.QUEEN_HEART, SQ.QUEEN_CAT, SQ.QUEEN_ROSE], 1: [SQ.QUEEN_MOON]},
        legal=[*singles(hand), king(0), king(1), knight(SQ.QUEEN_MOON)],
    )
    assert choose(view) == knight(SQ.QUEEN_MOON)


def test_puts_the_most_valuable_opponent_queen_to_sleep() -> None:
    hand = [3, 8, POTION]
    view = make_view(
        hand=hand,
        awake={1: [SQ.QUEEN_CAKE], 2: [SQ.QUEEN_HEART, SQ.QUEEN_LADYBUG]},
        legal=[
            *singles(hand),
            potion(SQ.QUEEN_CAKE),
            potion(SQ.QUEEN_HEART),
            potion(SQ.QUEEN_LADYBUG),
        ],
    )
    assert choose(view) == potion(SQ.QUEEN_HEART)


def test_blocks_whenever_it_can() -> None:
    knight_on_me = make_view(
        seat=1,
        turn=0,
        decider=1,
        phase=SQV.PHASE_BLOCK,
        decision="block_knight",
        attacker=0,
        target_queen=SQ.QUEEN_ROSE,
        hand=[DRAGON, 4],
        legal=[decline(), block()],
    )
    assert choose(knight_on_me) == block()
    without = make_view(
        seat=1, turn=0, decider=1, phase=SQV.PHASE_BLOCK, hand=[4], legal=[decline()]
    )
    assert choose(without) == decline()


def test_discards_the_longest_equation_or_pair_else_the_lowest_number() -> None:
    hand = [1, 2, 3, 3, 6]
    legal = [
        *singles(hand),
        discard(3, 3),
        discard(1, 2, 3),
        discard(3, 3, 6),
        discard(1, 2, 3, 6),
    ]
    assert choose(make_view(hand=hand, legal=legal)) == discard(1, 2, 3, 6)
    pairs = [2, 2, 9, 10, WAND]
    assert choose(make_view(hand=pairs, legal=[*singles(pairs), discard(2, 2)])) == discard(2, 2)
    lone = [4, 7, 9, DRAGON, WAND]
    assert choose(make_view(hand=lone, legal=singles(lone))) == discard(4)


def test_keeps_one_dragon_and_one_wand_when_only_power_cards_are_left() -> None:
    hand = [DRAGON, DRAGON, WAND, KNIGHT]
    view = make_view(hand=hand, legal=singles(hand))  # no opponent queen: the Knight is idle
    assert choose(view) == discard(KNIGHT)
    hand = [DRAGON, DRAGON, WAND, WAND, POTION]
    view = make_view(hand=hand, awake={1: [SQ.QUEEN_ROSE]}, legal=singles(hand))
    assert choose(view) in (discard(DRAGON), discard(WAND))


def test_plays_a_jester_rather_than_discarding() -> None:
    hand = [2, 3, 5, JESTER, 8]
    view = make_view(hand=hand, legal=[*singles(hand), discard(2, 3, 5), jester()])
    assert choose(view) == jester()


def test_wakes_the_best_known_queen_for_a_jester_or_the_rose() -> None:
    view = make_view(
        turn=1,
        decider=0,
        phase=SQV.PHASE_JESTER_WAKE,
        known={3: SQ.QUEEN_STARFISH, 5: SQ.QUEEN_PANCAKE},
        legal=[wake(p) for p in range(12)],
    )
    assert choose(view) == wake(5)
    rose = make_view(
        phase=SQV.PHASE_ROSE_WAKE,
        awake={0: [SQ.QUEEN_ROSE, SQ.QUEEN_DOG]},
        known={3: SQ.QUEEN_CAT},
        empty=[0, 1],
        legal=[wake(p) for p in range(2, 12)],
    )
    assert choose(rose) == wake(2)  # an unknown queen rather than the Cat


def test_places_a_queen_back_at_an_empty_position() -> None:
    view = make_view(
        phase=SQV.PHASE_PLACE_QUEEN,
        target_queen=SQ.QUEEN_HEART,
        empty=[2, 6],
        legal=[place(2), place(6)],
    )
    assert choose(view) == place(2)


@pytest.mark.parametrize("seed", range(30))
def test_every_choice_is_legal_on_random_positions(seed: int) -> None:
    rng = random.Random(seed)
    hand = sorted(rng.choices([*range(1, 11), *range(11, 17)], k=5))
    queens = list(range(1, 13))
    rng.shuffle(queens)
    awake = {s: queens[s * 2 : s * 2 + rng.randint(0, 2)] for s in range(3)}
    legal = singles(hand)
    if KING in hand:
        legal += [king(p) for p in range(6, 12)]
    targets = [q for s in (1, 2) for q in awake[s]]
    if KNIGHT in hand:
        legal += [knight(q) for q in targets]
    if POTION in hand:
        legal += [potion(q) for q in targets]
    if JESTER in hand:
        legal.append(jester())
    view = make_view(hand=hand, awake=awake, empty=range(6), legal=legal)
    choose(view)
