"""A seat's view in the game's words (``View.view_lines``): each game names the cards of a
hand-chosen view as its command labels do, the lines fit a terminal, and they are written from
the redacted view only (what the wire carries), so a spectator's lines hold no hand."""

from __future__ import annotations

import dataclasses
import random
import textwrap
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee import codec
from referee.engine import labels
from referee.engine.registry import all_games
from referee.engine.table import Table
from referee.v1 import referee_pb2 as pb

GAMES = sorted(game.info.type_id for game in all_games())


def _view(game_type: str, players: int, seat: int | None = 0, steps: int = 0) -> Any:
    table = Table.create(game_type, players=players, seed=b"view text")
    rng = random.Random(7)
    for _ in range(steps):
        if table.over:
            break
        mover = table.pending()[0]
        table.submit(mover, rng.choice(table.legal_commands(mover)))
    return table.view(seat).game


def _lines(game_type: str, view: Any) -> str:
    return "\n".join(labels.view_lines(game_type, view))


def test_vq_1_a_hand_names_queens_and_hunters() -> None:
    view = dataclasses.replace(_view("vampire-queen", 3), hand=(3, 8, 14, 14, 15, 20))
    text = _lines("vampire-queen", view)
    # VQ-1: 14 is a Vampire Queen, 15 and 20 the Hunters: Q, H15, H20 as in the command labels.
    assert "your hand: 3 8 Q Q H15 H20" in text
    assert "14" not in text.split("your hand:")[1].splitlines()[0]


def test_mm_4_cards_are_named_by_colour_and_symbol_with_the_wish() -> None:
    from referee.games.mau_mau_vampires.model import Card, CardKind, Colour

    view = dataclasses.replace(
        _view("mau-mau-vampires", 3),
        hand=(Card(CardKind.MAU_MAU, Colour.RED, 1), Card(CardKind.CLOCK)),
        top=Card(CardKind.MAU_MAU, Colour.BLUE, 8),
        wish=Colour.PURPLE,
    )
    text = _lines("mau-mau-vampires", view)
    # MM-4: symbol 1 is the skull, 8 the garlic (the shipped names the menu uses too).
    assert "top card: blue garlic; wished colour: purple" in text
    assert "your hand: red skull; a Clock" in text  # by colour, a colour named once


def test_sq_1_sq_2_hand_and_awake_queens_by_name() -> None:
    from referee.games.sleeping_queens.model import CAT, DRAGON, KING, AwakeQueens

    view = dataclasses.replace(
        _view("sleeping-queens", 2),
        hand=(KING, DRAGON, 7),
        awake=(AwakeQueens(seat=1, queens=(CAT,), points=15),),
    )
    text = _lines("sleeping-queens", view)
    assert "your hand: King Dragon 7" in text  # SQ-2
    assert "seat 1 Cat Queen (15 points)" in text  # SQ-1


def test_dv_24_own_cards_named_the_opponents_hidden() -> None:
    view = _view("dracula-vs-van-helsing", 2)
    text = _lines("dracula-vs-van-helsing", view)
    own = next(r for r in view.racks if r.role == view.role)
    other = next(r for r in view.racks if r.role != view.role)
    # DV-2, DV-24: the seat's own five cards by colour letter and value, the opponent's as ??.
    from referee.games.dracula_vs_van_helsing.labels import card_text

    for slot in own.slots:
        assert f"{slot.district}:{card_text(slot.card)}" in text
    assert all(not slot.card.value for slot in other.slots)
    assert "1:?? 2:?? 3:?? 4:?? 5:??" in text
    assert "districts (humans, vampires): 1: 4H 0V" in text  # DV-3


@pytest.mark.parametrize("game_type", GAMES)
def test_lines_fit_a_terminal_and_come_from_the_wire_view_only(game_type: str) -> None:
    info = next(g.info for g in all_games() if g.info.type_id == game_type)
    for players in (info.min_players, info.max_players):
        for steps in (0, 30, 200):
            for seat in [None, *range(players)]:
                table = Table.create(game_type, players=players, seed=b"fit %d" % steps)
                rng = random.Random(steps)
                for _ in range(steps):
                    if table.over:
                        break
                    mover = table.pending()[0]
                    table.submit(mover, rng.choice(table.legal_commands(mover)))
                message = codec.view_to_proto("g", players, table.view(seat))
                wire = pb.View.FromString(message.SerializeToString())
                lines = list(wire.view_lines)
                assert lines and len(lines) <= labels.MOST_LINES
                assert all(len(line) <= labels.LINE_WIDTH for line in lines), lines
                # The lines are a function of the redacted view the seat receives anyway.
                decoded = codec.view_from_proto(wire).game
                assert lines == list(labels.view_lines(game_type, decoded))
                if seat is None:
                    assert not any("your hand" in line for line in lines), lines


WORDS = st.sampled_from(["a", "Q", "H15", "blue", "mau-mau", ":", "", "\t", "x" * 40, "y" * 77])


@given(st.lists(WORDS, max_size=40).map(" ".join))
def test_a_line_is_laid_out_as_the_wrapper_lays_it_out(text: str) -> None:
    """The greedy fill of the view's lines gives exactly textwrap's layout (broken at spaces
    only), for the texts the games write and for the odd ones it hands to textwrap."""
    assert labels._wrapped(text) == textwrap.wrap(
        text, labels.LINE_WIDTH, subsequent_indent="  ", break_on_hyphens=False
    )
