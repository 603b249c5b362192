"""Text of referee-cli where the field trial stumbled (issue 11): the narration of a round's
last trick, the Mau Mau ability letters, and long menus asked in two steps, in columns."""

from __future__ import annotations

from referee.v1 import referee_pb2, vampire_queen_pb2
from referee_cli import render, render_mau_mau
from tests.clients import lead_hunter, make_view, pass_, play_card, play_set
from tests.clients.mau_mau_views import make_view as mm_view

VQE = vampire_queen_pb2.VampireQueenEvent


def won(winner: int) -> referee_pb2.Event:
    trick = VQE.TrickWon(winner=winner, hunter_trick=False)
    return referee_pb2.Event(sequence=9, vampire_queen=VQE(trick_won=trick))


def test_no_lead_after_the_last_trick_of_a_round() -> None:
    """VQ-17: when someone has no cards left, the round ends; nobody leads a next trick."""
    going_on = make_view(hand_sizes=[3, 2, 5, 1])
    assert render.describe_event(won(2), going_on) == "seat 2 wins the trick and leads"
    round_over = make_view(hand_sizes=[3, 0, 5, 1])
    line = render.describe_event(won(2), round_over)
    assert line == "seat 2 wins the last trick of the round"
    assert "leads" not in (render.describe_event(won(1), round_over, me=1) or "")


def test_mau_mau_screen_explains_the_ability_letters() -> None:
    screen = render.render_view(mm_view())
    assert "(a)-(h): the human abilities, by their letter in the rules (MM-22)" in screen
    assert "gift: what every vampire does (MM-19)" in screen
    assert "referee-cli rules mau-mau-vampires" in screen
    assert all(len(line) <= 80 for line in render_mau_mau.ABILITY_LEGEND)


def test_long_vampire_queen_menus_group_by_value() -> None:
    legal = [play_set(3, 1), play_set(3, 2), play_set(3, 2, 1), play_set(5, 1), lead_hunter(20)]
    legal += [play_set(9, n) for n in (1, 2, 3)] + [play_set(14, 1, 1), play_set(14, 2, 2)]
    groups = render.menu_groups(make_view(legal=legal))
    assert groups == [
        ("play 3s (3 ways)", [0, 1, 2]),
        ("play 5s", [3]),
        ("lead the 20 Hunter", [4]),
        ("play 9s (3 ways)", [5, 6, 7]),
        ("play queens only (2 ways)", [8, 9]),
    ]
    assert render.menu_groups(make_view(legal=legal[:5])) is None, "short menus: one step"
    cards = [play_card(v) for v in range(1, 12)]  # a Hunter trick: no groups to make
    assert render.menu_groups(make_view(legal=cards)) is None
    assert render.menu_groups(make_view(legal=[pass_(), *legal])) is not None


def test_long_menus_are_laid_out_in_two_columns() -> None:
    texts = [f"play {n}s (2 ways)" for n in range(1, 14)]
    lines = render.menu_columns(texts).split("\n")
    assert len(lines) == 7
    assert lines[0].startswith("1) play 1s (2 ways)") and lines[0].endswith("8) play 8s (2 ways)")
    assert lines[6] == "7) play 7s (2 ways)"
    assert all(len(line) <= 80 for line in lines)
    assert render.menu_columns(texts[:10]).count("\n") == 9  # short: one column
    wide = ["x" * 50] * 12
    assert render.menu_columns(wide).count("\n") == 11  # too wide for two columns
