"""The forced checks' reading of what a hidden gift must carry (MM-19), on small matchings:
rows are a taker's plays and later gifts, each needing an item of its own."""

from __future__ import annotations

from referee.games.mau_mau_vampires.worlds.ahead import _carried


def test_a_gift_spoken_for_by_the_taker_s_matching_carries_that_row_s_card() -> None:
    # 2391990712/287/3, seat 1: its play at 112 can come only from item 0; its gift back
    # (needing card 12) from item 0 or 2 (the gift in); its play of card 41 from 1 or 2
    rows = [[0], [0, 2], [1, 2]]
    cards = [frozenset({16}), frozenset({12}), frozenset({41})]
    assert _carried(rows, cards, 2) == {12}


def test_an_item_the_rows_can_do_without_may_be_any_card() -> None:
    assert _carried([[0], [1, 2]], [frozenset({3}), frozenset({4})], 2) is None


def test_every_row_that_can_take_the_item_in_some_matching_counts() -> None:
    # item 1 is needed (three rows, three items) and either of rows 1 and 2 can take it
    rows = [[0], [0, 1, 2], [1, 2]]
    cards = [frozenset({5}), frozenset({6}), frozenset({7})]
    assert _carried(rows, cards, 1) == {6, 7}


def test_a_gift_row_free_to_carry_any_card_leaves_the_item_free() -> None:
    assert _carried([[0], [0, 1]], [frozenset({5}), None], 1) is None


def test_rows_that_cannot_all_be_served_leave_no_card() -> None:
    assert _carried([[0], [0]], [frozenset({5}), frozenset({6})], 0) == frozenset()
