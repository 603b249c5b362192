"""The property that defines a world sampler, for every game (referee.search.worlds).

From random positions of random games (hypothesis-chosen seeds), the world sampled from one
seat's knowledge only redacts, for that seat, to exactly the events it received, and shows it
exactly its view and legal commands; its history is a valid one (each game's own invariants,
``VALID``); and the same seed gives the same world.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from referee.engine import all_games, get_game
from referee.engine.registry import game_module
from referee.games.dracula_vs_van_helsing.model import CODES
from referee.search.worlds import (
    MODULE,
    World,
    WorldMismatch,
    check_world,
    knowledge_of,
    sample_world,
)
from tests.worlds.support import random_position

PROPERTY = settings(
    max_examples=12, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
#: Options that keep a random game short enough to reach its later phases.
SHORT = {
    "vampire-queen": {"rounds": "2"},
    "mau-mau-vampires": {"hands": "2"},
}


def _vq_valid(world: World) -> None:
    """VQ-7/VQ-8/VQ-12: a card played was held (no count below zero at any moment)."""
    game = get_game(world.config.game_type)
    state = game.new_state(world.config)
    for event in world.events:
        if not type(event).__module__.startswith("referee.engine"):
            state = game.apply(state, event)
            assert all(min(hand) >= 0 for hand in state.hands), event


def _dv_valid(world: World) -> None:
    """DV-2/DV-5: every card is in exactly one place at every moment of a round."""
    game = get_game(world.config.game_type)
    state = game.new_state(world.config)
    for event in world.events:
        if not type(event).__module__.startswith("referee.engine"):
            state = game.apply(state, event)
            if type(event).__name__ == "TurnStarted":  # between two turns
                places = [*state.slots[0], *state.slots[1], *state.deck, *state.pile]
                places += [state.drawn] if state.drawn else []
                assert sorted(places) == sorted(CODES), event


def _sq_valid(world: World) -> None:
    """SQ-5 ... SQ-10: a card played was held (no count below zero at any moment)."""
    game = get_game(world.config.game_type)
    state = game.new_state(world.config)
    for event in world.events:
        if not type(event).__module__.startswith("referee.engine"):
            state = game.apply(state, event)
            assert all(min(hand[1:]) >= 0 for hand in state.hands), event


def _mmv_valid(world: World) -> None:
    """MM-8 ... MM-22: a card played, given or set aside was held (no count below zero)."""
    game = get_game(world.config.game_type)
    state = game.new_state(world.config)
    for event in world.events:
        if not type(event).__module__.startswith("referee.engine"):
            state = game.apply(state, event)
            assert all(min(hand) >= 0 for hand in state.hands), event


VALID: dict[str, Callable[[World], None]] = {
    "mau-mau-vampires": _mmv_valid,
    "sleeping-queens": _sq_valid,
    "vampire-queen": _vq_valid,
    "dracula-vs-van-helsing": _dv_valid,
}

SAMPLED = [
    pytest.param(game.info.type_id, id=game.info.type_id)
    for game in all_games()
    if game_module(game.info.type_id, MODULE) is not None
]


def check_position(
    game_type: str, seed: int, steps: int, players: int, refereed: bool, seat: int
) -> None:
    """The property at one random position (``players`` seats, ``seat`` sampling)."""
    table = random_position(
        game_type, players, seed, steps, SHORT.get(game_type), refereed=refereed
    )
    known = knowledge_of(table, seat)
    world = sample_world(known, seed)  # checks the redaction and the view
    check_world(world, known)
    VALID.get(game_type, lambda world: None)(world)
    assert sample_world(known, seed).events == world.events  # seeded
    # the world plays on: the seat's legal commands are legal there
    played = world.table()
    for command in known.legal[:3]:
        played.decide(seat, command)


#: Positions where a sampler once failed (tests/worlds/test_found_positions.py names them),
#: as the property's own arguments: players and seat are taken modulo each game's range.
FOUND = [
    (3887281972, 59, 1, False, 0),  # MM-6: a turned special reshuffled, then in a pot seen
    (807119240, 300, 2, True, 3),  # MM-22 b: a call's answer laid a card another played
    (2934748484, 253, 3, False, 4),  # MM-22 h: a pot's cards seen, not which was which
    (3076763151, 272, 4, False, 0),  # MM-22 g: the two cards drawn across a reshuffle
    (3496329447, 188, 2, False, 2),  # MM-11/MM-16: a replaced werewolf after a penalty
    (2908822078, 388, 8, True, 1),  # VQ-18: a scored round's penalties with 11 seats
]


def _found(test: Any) -> Any:
    for seed, steps, players, refereed, seat in FOUND:
        test = example(seed=seed, steps=steps, players=players, refereed=refereed, seat=seat)(test)
    return test


@pytest.mark.parametrize("game_type", SAMPLED)
@PROPERTY
@given(
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 400),
    players=st.integers(0, 10),
    refereed=st.booleans(),
    seat=st.integers(0, 11),
)
@_found
def test_a_world_redacts_to_what_the_seat_saw(
    game_type: str, seed: int, steps: int, players: int, refereed: bool, seat: int
) -> None:
    info = get_game(game_type).info
    players = info.min_players + players % (info.max_players - info.min_players + 1)
    check_position(game_type, seed, steps, players, refereed, seat % players)


@pytest.mark.parametrize("game_type", SAMPLED)
def test_a_world_that_differs_is_caught(game_type: str) -> None:
    table = random_position(game_type, get_game(game_type).info.min_players, 7, 30)
    known = knowledge_of(table, 0)
    world = sample_world(known, 1)
    shorter = World(world.config, world.events[:-1], world.state)
    with pytest.raises(WorldMismatch):
        check_world(shorter, known)


def test_every_game_has_a_sampler() -> None:
    """Every game of the repository samples the worlds a seat could be in."""
    assert [g.info.type_id for g in all_games()] == [p.values[0] for p in SAMPLED]


def test_the_samplers_chance_reads_the_same_stream_as_the_engines_chance() -> None:
    """``worlds.Chance`` reads ``chance._stream(seed, b"worlds")`` four words a digest: every
    draw (below, random, seed, shuffled) is the word the stream gives next, rejections included
    (a bound near 2**64 rejects often)."""
    from referee.engine import chance
    from referee.search.worlds import Chance

    rng = Chance(b"same-stream")
    stream = chance._stream(b"same-stream", b"worlds")
    for n in (7, 2**64, 3, 52, 2**63 + 1, 1, 5, 9) * 5:
        assert rng.below(n) == chance._below(stream, n)
    assert rng.random() == next(stream) / 2**64
    assert rng.seed() == b"".join(next(stream).to_bytes(8, "big") for _ in range(4))
    deck = list(range(30))
    expected = list(deck)
    for i in range(len(expected) - 1, 0, -1):
        j = chance._below(stream, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert rng.shuffled(deck) == expected
    with pytest.raises(ValueError, match="cannot draw below 0"):
        rng.below(0)
