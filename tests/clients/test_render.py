"""referee_cli.render: views, events and commands as text, from hand-built proto messages."""

from __future__ import annotations

import doctest

from referee.v1 import referee_pb2, vampire_queen_pb2
from referee_cli import render, render_vampire_queen
from tests.clients import VQ, lead_hunter, make_view, pass_, play_card, play_set, trick_play

VQE = vampire_queen_pb2.VampireQueenEvent


def event(**kind: object) -> referee_pb2.Event:
    return referee_pb2.Event(sequence=7, vampire_queen=VQE(**kind))  # type: ignore[arg-type]


def test_doctests() -> None:
    assert doctest.testmod(render).failed == 0
    assert doctest.testmod(render_vampire_queen).failed == 0


def test_hand_is_sorted_and_grouped_with_hunters_last() -> None:
    assert render.format_hand([8, 14, 3, 15, 5, 3, 8, 14]) == "3 3 5 8 8 Q Q [H15]"
    assert render.format_hand([20, 1, 15]) == "1 [H15] [H20]"
    assert render.format_hand([]) == "(empty)"


def test_sets_and_cards_in_words() -> None:
    assert render.describe_set(8, 3, 1) == "three 8s (1 queen)"
    assert render.describe_set(8, 4, 2) == "four 8s (2 queens)"
    assert render.describe_set(14, 2, 2) == "two queens"
    assert render.describe_set(1, 1, 0) == "one 1"
    assert render.describe_card(8) == "an 8"
    assert render.describe_card(7) == "a 7"
    assert render.describe_card(14) == "a queen"
    assert render.describe_card(20) == "the 20 Hunter"


def test_commands_in_words() -> None:
    assert render.describe_command(play_set(8, 2)) == "play two 8s"
    assert render.describe_command(play_set(8, 3, 1)) == "play three 8s using 1 queen"
    assert render.describe_command(play_set(14, 2, 2)) == "play two queens"
    assert render.describe_command(pass_()) == "pass"
    assert render.describe_command(lead_hunter(20)) == "lead the 20 Hunter"
    assert render.describe_command(play_card(7)) == "play a 7"
    view = make_view(hunter_queen=1)
    assert render.describe_command(play_card(14), view) == "play a queen (counts 1 here)"


def test_menu_is_numbered_from_one() -> None:
    view = make_view(legal=[play_set(8, 2), play_set(8, 3, 1), pass_()])
    assert render.render_menu(view) == ("1) play two 8s\n2) play three 8s using 1 queen\n3) pass")


def test_events_in_one_line() -> None:
    lead_view = make_view(
        trick_kind=VQ.TRICK_KIND_NORMAL, trick=[trick_play(1, VQ.PLAY_KIND_SET, 3, 2)]
    )
    follow_view = make_view(
        trick_kind=VQ.TRICK_KIND_NORMAL,
        trick=[trick_play(1, VQ.PLAY_KIND_SET, 3, 2), trick_play(2, VQ.PLAY_KIND_SET, 8, 3, 1)],
    )
    d = render.describe_event
    assert d(event(set_played=VQE.SetPlayed(seat=1, value=3, count=2)), lead_view) == (
        "seat 1 leads two 3s"
    )
    assert d(event(set_played=VQE.SetPlayed(seat=2, value=8, count=3, queens=1)), follow_view) == (
        "seat 2 plays three 8s (1 queen)"
    )
    assert d(event(passed=VQE.Passed(seat=3))) == "seat 3 passes"
    assert d(event(hunter_led=VQE.HunterLed(seat=1, hunter=20))) == "seat 1 leads the 20 Hunter"
    assert d(event(card_played=VQE.CardPlayed(seat=2, value=14))) == "seat 2 plays a queen"
    assert d(event(skipped=VQE.Skipped(seat=3))) == "seat 3 is skipped (holds only Hunters)"
    taken = VQE.TrickWon(winner=0, hunter_trick=True, taken=[3, 7, 14, 20])
    assert d(event(trick_won=taken)) == "seat 0 takes the trick: 3, 7, Q, H20"
    assert d(event(trick_won=taken), me=0) == "seat 0 (you) takes the trick: 3, 7, Q, H20"
    normal = VQE.TrickWon(winner=2, hunter_trick=False)
    assert d(event(trick_won=normal)) == "seat 2 wins the trick and leads"


def test_deal_events_show_only_your_own_cards() -> None:
    mine = event(hand_dealt=VQE.HandDealt(seat=0, count=3, cards=[2, 5, 14]))
    assert render.describe_event(mine, me=0) == "you are dealt 3 cards: 2 5 Q"
    theirs = event(hand_dealt=VQE.HandDealt(seat=1, count=13))
    assert render.describe_event(theirs, me=0) is None
    started = event(
        round_started=VQE.RoundStarted(round=2, leader=1, hunter_15_holder=3, hunter_20_holder=1)
    )
    line = render.describe_event(started, make_view(rounds=5), me=0)
    assert line == "--- round 2 of 5: seat 1 leads; H15 seat 3, H20 seat 1"


def test_scoring_events() -> None:
    scored = event(round_scored=VQE.RoundScored(round=1, penalties=[5, 0], totals=[12, 3]))
    assert render.describe_event(scored) == (
        "--- round 1 scored: penalties seat 0 5, seat 1 0; totals seat 0 12, seat 1 3"
    )
    ended = event(game_ended=VQE.GameEnded(totals=[12, 3, 3], ranks=[3, 1, 1]))
    assert render.describe_event(ended) == "--- game over: seat 1 and seat 2 win with 3"


def test_view_of_a_normal_trick() -> None:
    view = make_view(
        seat=0,
        hand=[3, 3, 5, 8, 8, 14, 14, 15],
        hand_sizes=[8, 7, 10, 9],
        hunter_15_holder=0,
        hunter_20_holder=1,
        barred=[0, 20, 0, 0],
        totals=[12, 30, 7, 0],
        last_penalties=[5, 10, 7, 0],
        leader=1,
        turn=3,
        trick_kind=VQ.TRICK_KIND_NORMAL,
        lead_count=2,
        trick=[
            trick_play(1, VQ.PLAY_KIND_SET, 3, 2),
            trick_play(2, VQ.PLAY_KIND_SET, 8, 2, 1),
        ],
        best_value=8,
        best_seat=2,
        round_=2,
    )
    text = render.render_view(view)
    assert "round 2/5" in text
    assert "Turn: seat 3." in text
    assert "Your hand (8): 3 3 5 8 8 Q Q [H15]" in text
    assert "seat 1 leads two 3s" in text
    assert "seat 2 plays two 8s (1 queen)" in text
    assert "Best so far: two 8s by seat 2" in text
    assert "seat 1 may not lead H20 next" in text
    rows = {line[2:].split()[1]: line for line in text.splitlines() if line[2:7] == "seat "}
    assert rows["1"][2:].split()[2:] == ["7", "H20*", "30", "10"]
    assert rows["0"][2:].split()[3:] == ["8", "H15", "12", "5"]
    assert rows["3"].startswith(">")  # whose turn


def test_view_of_a_hunter_trick_for_a_spectator() -> None:
    view = make_view(
        seat=None,
        leader=1,
        turn=3,
        trick_kind=VQ.TRICK_KIND_HUNTER,
        trick=[trick_play(1, VQ.PLAY_KIND_HUNTER, 20, 1), trick_play(2, VQ.PLAY_KIND_CARD, 9, 1)],
        best_value=9,
        best_seat=2,
        hunter_tie="last",
    )
    text = render.render_view(view)
    assert "spectator" in text
    assert "Your hand" not in text
    assert "Hunter trick led by seat 1" in text
    assert "ties: last wins" in text
    assert "seat 1 leads the 20 Hunter" in text
    assert "seat 2 plays a 9" in text
    assert "Highest so far: 9 by seat 2" in text
    queen = make_view(
        trick_kind=VQ.TRICK_KIND_HUNTER,
        trick=[trick_play(1, VQ.PLAY_KIND_HUNTER, 15, 1), trick_play(2, VQ.PLAY_KIND_CARD, 14, 1)],
        best_value=1,
        best_seat=2,
    )
    assert "Highest so far: Q (counts 1) by seat 2" in render.render_view(queen)


def test_your_turn_and_leading() -> None:
    text = render.render_view(make_view(seat=2, turn=2, leader=2))
    assert "Your turn." in text
    assert "seat 2 (you) to lead" in text


def test_game_over_shows_final_standings() -> None:
    view = make_view(
        seat=1,
        game_over=True,
        totals=[40, 12, 12, 90],
        results=[(0, 40, 3), (1, 12, 1), (2, 12, 1), (3, 90, 4)],
    )
    text = render.render_view(view)
    assert "Game over." in text
    lines = text.splitlines()
    start = lines.index("Final standings:")
    standings = [line.split() for line in lines[start + 1 :]]
    assert standings == [
        ["1.", "seat", "1", "(you)", "12", "points"],
        ["1.", "seat", "2", "12", "points"],
        ["3.", "seat", "0", "40", "points"],
        ["4.", "seat", "3", "90", "points"],
    ]
    assert render.render_results(view).startswith("Final standings:")


def test_referee_events_are_narrated_for_every_game() -> None:
    from referee.v1 import referee_pb2 as pb
    from referee_cli.render import describe_event

    committed = pb.Event(sequence=1)
    committed.referee.seed_committed.commitment = "ab" * 32
    assert "commits to the deal" in (describe_event(committed) or "")
    revealed = pb.Event(sequence=9)
    revealed.referee.seed_revealed.seed = b"\x01\x02"
    assert "0102" in (describe_event(revealed) or "")
    released = pb.Event(sequence=9)
    released.referee.seed_revealed.SetInParent()  # as everyone but the organiser sees it
    assert "to the organiser" in (describe_event(released) or "")
    deck = pb.Event(sequence=2)
    deck.referee.deck_committed.shuffle, deck.referee.deck_committed.root = 3, "ef" * 32
    assert "shuffle 3" in (describe_event(deck) or "")
    opened = pb.Event(sequence=7)
    opened.referee.cards_opened.openings.add(card="Q")
    assert "proves 1 card" in (describe_event(opened) or "")
    timed = pb.Event(sequence=5)
    timed.referee.timed_out.seat = 2
    timed.referee.timed_out.kind = "lead"
    assert "seat 2 ran out of time (lead)" in (describe_event(timed) or "")
    aborted = pb.Event(sequence=6)
    aborted.referee.game_aborted.reason = "organiser"
    assert "aborted: organiser" in (describe_event(aborted) or "")
