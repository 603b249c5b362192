"""A legal command passed back, and a playout played in place.

A command that is one of the objects ``legal_commands`` gave (a table's or a search table's)
is decided without the checks its listing settled (``Game.decide_legal``); these properties
hold it to the full check: it is applied exactly as the same command made outside, and any
command that is not one of those objects, a forged copy of a legal one above all, is checked
in full and refused as before, with its rule id, changing nothing. ``SearchTable.play``, in
place, plays as ``step`` does. Speed is measured by ``referee bench --only P1,P11``, never here.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from referee.engine.fields import Kind, field_plan
from referee.engine.game import Rejection
from referee.engine.registry import all_games
from referee.engine.search_table import SearchTable
from referee.engine.table import Table

CASES = [
    pytest.param(game.info.type_id, players, id=f"{game.info.type_id}-{players}p")
    for game in all_games()
    for players in sorted({game.info.min_players, min(4, game.info.max_players)})
]


def outside(command: Any) -> Any:
    """An equal command made outside the table (a new object, as the wire makes them)."""
    return dataclasses.replace(command)


def forged(command: Any) -> list[Any]:
    """Copies of ``command`` with one integer field changed: to a boolean, equal to the
    integer when it is 0 or 1 (so the copy is *equal* to the legal command, a type only the
    shape check refuses), and to a number no rule allows."""
    copies = []
    for each in field_plan(type(command)):
        value = getattr(command, each.name)
        if each.type.kind is Kind.INT and type(value) is int:
            copies.append(dataclasses.replace(command, **{each.name: bool(value)}))
            copies.append(dataclasses.replace(command, **{each.name: value + 1000}))
    return copies


def pick(table: Table[Any] | SearchTable[Any], rng: random.Random) -> tuple[int, list[Any]]:
    pending = table.pending()
    seat = pending[0] if len(pending) == 1 else rng.choice(pending)
    return seat, table.legal_commands(seat)


@pytest.mark.parametrize(("game_type", "players"), CASES)
def test_a_legal_command_passed_back_is_applied_as_the_same_command_from_outside(
    game_type: str, players: int
) -> None:
    rng = random.Random(7)
    table = Table.create(game_type, players, seed=b"passed back")
    for _ in range(150):
        if not table.pending():
            break
        seat, legal = pick(table, rng)
        command = rng.choice(legal)
        game = table.game
        # The game's own path for a listed command gives what its full decide gives.
        assert game.decide_legal(table.state, seat, command) == game.decide(
            table.state, seat, command
        )
        twin = table.copy()
        twin.legal_commands(seat)  # offered there too: the equal copy is still not one of them
        made = outside(command)
        assert made == command and made is not command
        assert table.submit(seat, command) == twin.submit(seat, made)
        assert table.state == twin.state and table.log == twin.log


@pytest.mark.parametrize(("game_type", "players"), CASES)
def test_a_forged_command_is_checked_and_refused_with_its_rule_id(
    game_type: str, players: int
) -> None:
    rng = random.Random(11)
    table = Table.create(game_type, players, seed=b"forged")
    refused = 0
    for _ in range(150):
        if not table.pending():
            break
        seat, legal = pick(table, rng)
        game = table.game
        for command in legal:
            for fake in forged(command):
                try:
                    expected = game.decide(table.state, seat, fake)
                except Rejection as rejection:
                    state, log = game.copy_state(table.state), list(table.log)
                    search = table.fork()
                    search.legal_commands(seat)
                    for where in (table, search):
                        with pytest.raises(Rejection) as raised:
                            where.decide(seat, fake)
                        assert raised.value.rule_id == rejection.rule_id
                        assert str(raised.value) == str(rejection)
                    with pytest.raises(Rejection):
                        table.submit(seat, fake)
                    assert table.state == state and table.log == log
                    refused += 1
                else:  # a changed number some rule allows: decided as any other command
                    assert table.decide(seat, fake) == expected
            table.legal_commands(seat)  # offered again after the decide above
        table.submit(seat, rng.choice(legal))
    assert refused, "no forged command was refused: the test is blind"


@pytest.mark.parametrize(("game_type", "players"), CASES)
def test_a_playout_played_in_place_is_the_playout_of_steps(game_type: str, players: int) -> None:
    """``play`` (in place) and ``step`` (a copy per move) from the same fork: the same events
    and the same states; the table forked from and the other forks never change, and ``undo``
    after plays goes back to the state before the last step."""
    start = Table.create(game_type, players, seed=b"playout")
    root = start.fork()
    first = root.fork()
    stepped, played = root.fork(), root.fork()
    rng = random.Random(3)
    seat, legal = pick(stepped, rng)
    command = rng.choice(legal)
    stepped.step(seat, command)
    played.step(seat, command)
    before = start.game.copy_state(start.state)
    moves = 0
    while stepped.pending() and moves < 400:
        seat, legal = pick(stepped, rng)
        command = rng.choice(legal)
        assert played.legal_commands(seat) == legal
        assert stepped.step(seat, command) == played.play(seat, command)
        assert stepped.state == played.state
        moves += 1
    assert moves
    assert played.depth == stepped.depth == moves + 1
    assert start.state == before and first.state == start.state and root.state == start.state
    played.undo()
    assert played.state == root.state and played.depth == 0
