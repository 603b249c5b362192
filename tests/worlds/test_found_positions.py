"""Positions where a world sampler once failed to find a world, each a named
case: a random position (tests/worlds/support.py) by its seed, the seat that samples.

Each names the observation the sampler first got wrong; the true deal is always one that
fits, so a sampler must find a world at every one of them, and the property of
:mod:`tests.worlds.test_worlds` (redaction, view, a valid history, seeded) must hold.
"""

from __future__ import annotations

import pytest

from referee.engine.game import GameConfig
from referee.engine.table_events import TableEvent
from referee.games.mau_mau_vampires.worlds import sample
from referee.search.worlds import Chance, knowledge_of, sample_world
from tests.worlds.support import random_position
from tests.worlds.test_worlds import SHORT, check_position

FOUND = [
    # MM-6: specials turned at the start go back into a new order; a turned Clock's place
    # was fixed at random, then a pot the seat took showed another card there (MM-22 h)
    pytest.param("mau-mau-vampires", 3887281972, 59, 3, False, 0, id="mmv-turned-specials"),
    # MM-22 b: a card laid for a colour call's answer was one another seat played later
    pytest.param("mau-mau-vampires", 807119240, 300, 4, True, 3, id="mmv-call-then-play"),
    pytest.param("mau-mau-vampires", 1487158606, 336, 4, False, 0, id="mmv-greedy-corner"),
    pytest.param("mau-mau-vampires", 785830988, 392, 4, False, 2, id="mmv-greedy-corner-2"),
    # MM-22 h: the seat saw a pot's cards, not which was the card set aside from a hand
    pytest.param("mau-mau-vampires", 2934748484, 253, 5, False, 4, id="mmv-pot-seen"),
    # MM-22 g: the two cards of (g) drawn across a reshuffle (MM-15), in two events
    pytest.param("mau-mau-vampires", 3076763151, 272, 6, False, 0, id="mmv-share-reshuffle"),
    # MM-11/MM-16: a missed Mau's penalty reshuffles the pile (MM-15) right after a werewolf
    # replaced one: the replaced werewolf is in the new deck
    pytest.param("mau-mau-vampires", 3496329447, 188, 4, False, 2, id="mmv-werewolf-penalty"),
    # MM-15 ruling and MM-22 b: narrowed hands a late matching could not fill (was slow)
    pytest.param("mau-mau-vampires", 1740544408, 318, 6, False, 5, id="mmv-narrowed-hands"),
    # VQ-18: a scored round's hands left must sum to the penalties; swaps did not find it
    pytest.param("vampire-queen", 2908822078, 388, 11, True, 1, id="vq-scored-penalties"),
]


@pytest.mark.parametrize("game_type,seed,steps,players,refereed,seat", FOUND)
def test_a_world_is_found(
    game_type: str, seed: int, steps: int, players: int, refereed: bool, seat: int
) -> None:
    check_position(game_type, seed, steps, players, refereed, seat)


#: Positions where a world was found only after a long search: chronological
#: backtracking undid the latest choices first, and the one that went wrong was far back.
#: The start's search must now find a world within ``BUDGET`` branches (a bound on the
#: search, not on time); before its forward checks (worlds/ahead.py) it took millions.
SLOW = [
    # MM-8 ... MM-12, MM-22 b: the one first-shuffle token seat 1 had left when it played a
    # card of that shuffle 170 steps on was the one narrowed to a call's colour
    pytest.param(4190945448, 395, 6, False, 3, id="mmv-spent-token"),
    # MM-22 b: a card shown in answer to a call laid on another token than the answer's;
    # the colour's copies left then ran out under the other seats' plays 50 steps on
    pytest.param(617124, 318, 6, True, 4, id="mmv-shown-answer"),
    # MM-19, MM-22 b: seat 5 plays a card only a hidden gift from seat 4 can bring it; with
    # the two cards seat 4 plays, two tokens narrowed to a colour and one copy less, the
    # shuffle had one card too few (was 182 k branches: the gift counted as any card)
    pytest.param(2488756680, 318, 6, False, 0, id="mmv-gift-carries-the-card"),
    # MM-8 ... MM-12: plays that only one shuffle's blank tokens can serve, each seat's own
    # matching fine, the shuffle's copies too few for all of them at once (was 130 k)
    pytest.param(2569658347, 286, 6, False, 3, id="mmv-one-shuffle-for-many-plays"),
    # MM-19: a refereed six-seat hand with hidden gifts, found by the same two checks
    # (was 148 k branches)
    pytest.param(779749362, 355, 6, True, 5, id="mmv-gift-and-shuffle"),
    # MM-19: a chain of two hidden gifts (seat 4 to seat 1, then seat 1 back to seat 4) must
    # carry the card seat 4 plays next: seat 1's other items are spent on its own plays, so
    # only the first gift can have brought what the second takes (was over 120 s: the
    # gift's item was read one level deep, any card past it)
    pytest.param(2391990712, 287, 6, False, 3, id="mmv-chain-of-gifts"),
    # MM-19: hidden gifts into and out of seat 4; what one must carry follows from its
    # taker's matching (its other items all spoken for), not only from a play that no
    # other item can serve (was 16 k branches)
    pytest.param(691162646, 300, 6, False, 0, id="mmv-gift-spoken-for"),
]
BUDGET = 2_000


@pytest.mark.parametrize("seed,steps,players,refereed,seat", SLOW)
def test_a_world_is_found_in_few_branches(
    seed: int, steps: int, players: int, refereed: bool, seat: int
) -> None:
    game_type = "mau-mau-vampires"
    table = random_position(game_type, players, seed, steps, SHORT[game_type], refereed=refereed)
    known = knowledge_of(table, seat)
    rng = Chance(seed)  # as sample_world draws it, so the world is the one it samples
    config = GameConfig(game_type, players, dict(known.options), rng.seed(), None, b"")
    events = sample(known, config, rng, budget=BUDGET)
    world = sample_world(known, seed)
    assert events == [e for e in world.events if not isinstance(e, TableEvent)]
    check_position(game_type, seed, steps, players, refereed, seat)
