"""referee_cli.render_sleeping_queens: Sleeping Queens views, events and commands as text, from
hand-built proto messages (through the dispatch of referee_cli.render)."""

from __future__ import annotations

import doctest

from referee_cli import render, render_sleeping_queens
from tests.clients.sleeping_queens_views import (
    DRAGON,
    JESTER,
    KING,
    POTION,
    SQ,
    SQE,
    SQV,
    WAND,
    block,
    cards,
    decline,
    discard,
    event,
    jester,
    king,
    knight,
    make_view,
    place,
    potion,
    wake,
)


def test_doctests() -> None:
    assert doctest.testmod(render_sleeping_queens).failed == 0


def test_cards_and_discards() -> None:
    r = render_sleeping_queens
    assert r.format_hand([KING, 3, DRAGON, 10, 3]) == "3 3 10 King Dragon"
    assert r.format_hand([]) == "(empty)"
    assert r.describe_discard([1, 2, 3, 4, 10]) == "1 + 2 + 3 + 4 = 10"
    assert r.describe_discard([2, 2, 4]) == "2 + 2 = 4"
    assert r.describe_discard([8]) == "an 8"
    assert r.describe_discard([WAND]) == "a Wand"
    assert r.queen(SQ.QUEEN_HEART) == "the Heart Queen (20)"


def test_turn_commands_in_words() -> None:
    view = make_view(
        seat=0,
        awake={1: [SQ.QUEEN_HEART], 2: [SQ.QUEEN_CAT]},
        empty=[3, 7],
        known={5: SQ.QUEEN_MOON},
        legal=[discard(2, 3, 5), discard(7, 7), discard(KING), king(4), king(5)],
    )
    assert render.render_menu(view).splitlines() == [
        "1) discard 2 + 3 = 5",
        "2) discard a pair of 7s",
        "3) discard a King",
        "4) play a King: wake the queen at position 4",
        "5) play a King: wake the queen at position 5 (the Moon Queen (10))",
    ]
    d = render.describe_command
    assert d(knight(SQ.QUEEN_HEART), view) == "play a Knight: steal seat 1's Heart Queen (20)"
    assert d(potion(SQ.QUEEN_CAT), view) == "play a Potion: put seat 2's Cat Queen (15) to sleep"
    assert d(knight(SQ.QUEEN_DOG)) == "play a Knight: steal the Dog Queen (15)"
    assert d(jester()) == "play a Jester: turn over the top card of the draw pile"


def test_answers_in_words() -> None:
    knight_on_me = make_view(
        seat=1,
        turn=0,
        decider=1,
        phase=SQV.PHASE_BLOCK,
        decision="block_knight",
        attacker=0,
        target_queen=SQ.QUEEN_CAT,
        awake={1: [SQ.QUEEN_CAT]},
    )
    d = render.describe_command
    assert d(block(), knight_on_me) == "block with a Dragon (keep the Cat Queen, draw a card)"
    assert d(decline(), knight_on_me) == "do not block: the Cat Queen is stolen"
    potion_on_me = make_view(
        seat=1,
        turn=0,
        decider=1,
        phase=SQV.PHASE_BLOCK,
        decision="block_potion",
        attacker=0,
        target_queen=SQ.QUEEN_CAT,
    )
    assert d(block(), potion_on_me) == "block with a Wand (keep the Cat Queen, draw a card)"
    assert d(decline(), potion_on_me) == "do not block: the Cat Queen goes back to sleep"
    placing = make_view(
        seat=0, phase=SQV.PHASE_PLACE_QUEEN, decision="place_queen", target_queen=SQ.QUEEN_CAT
    )
    assert d(place(3), placing) == "put the Cat Queen to sleep at position 3"
    assert d(wake(6), make_view(known={6: SQ.QUEEN_ROSE})) == (
        "wake the queen at position 6 (the Rose Queen (5))"
    )
    assert d(block()) == "block (keep the queen, draw a card)"


def test_events_in_one_line() -> None:
    d = render.describe_event
    assert d(event(deck_shuffled=SQE.DeckShuffled(shuffle=0, count=67))) is None
    reshuffle = SQE.DeckShuffled(shuffle=2, count=31, reshuffle=True)
    assert d(event(deck_shuffled=reshuffle)) == (
        "--- the discard pile is shuffled into a new draw pile (31 cards)"
    )
    assert d(event(queens_laid=SQE.QueensLaid())) == (
        "--- 12 queens lie asleep, face down, in positions 0-11"
    )
    mine = SQE.CardsDrawn(seat=0, count=2, cards=cards(8, KING))
    assert d(event(cards_drawn=mine), me=0) == "seat 0 (you) draws 8 King"
    assert d(event(cards_drawn=SQE.CardsDrawn(seat=1, count=1)), me=0) == "seat 1 draws 1 card"
    assert d(event(turn_started=SQE.TurnStarted(seat=1))) is None
    equation = SQE.Discarded(seat=2, cards=cards(1, 1, 7, 9))
    assert d(event(discarded=equation)) == "seat 2 discards 1 + 1 + 7 = 9"
    one = SQE.Discarded(seat=2, cards=cards(JESTER))
    assert d(event(discarded=one)) == "seat 2 discards a Jester"
    assert d(event(king_played=SQE.KingPlayed(seat=1, position=3))) == (
        "seat 1 plays a King on position 3"
    )
    woken = SQE.QueenWoken(seat=1, position=3, queen=SQ.QUEEN_CAT)
    assert d(event(queen_woken=woken)) == "seat 1 wakes the Cat Queen (15) at position 3"
    bounced = SQE.QueenBounced(seat=1, position=4, queen=SQ.QUEEN_DOG)
    assert d(event(queen_bounced=bounced), me=1) == (
        "the Dog Queen goes back to sleep at position 4: seat 1 (you) holds the Cat Queen"
    )
    assert d(event(rose_bonus=SQE.RoseBonus(seat=2))) == (
        "the Rose Queen's bonus: seat 2 wakes one more queen"
    )
    assert d(event(rose_bonus=SQE.RoseBonus(seat=2, lost=True))) == (
        "seat 2 loses the Rose Queen's bonus: no queen is left asleep"
    )


def test_jester_events() -> None:
    d = render.describe_event
    assert d(event(jester_played=SQE.JesterPlayed(seat=2))) == "seat 2 plays a Jester"
    power = SQE.JesterTurned(seat=2, card=POTION)
    assert d(event(jester_turned=power)) == (
        "the Jester turns up a Potion: it goes to seat 2, who plays again"
    )
    number = SQE.JesterTurned(seat=2, card=SQ.CARD_2, counted=0)
    assert d(event(jester_turned=number), me=0) == (
        "the Jester turns up a 2: counting from seat 2, seat 0 (you) wakes a queen"
    )


def test_knight_and_potion_events() -> None:
    d = render.describe_event
    played = SQE.KnightPlayed(seat=1, target=2, queen=SQ.QUEEN_ROSE)
    assert d(event(knight_played=played)) == "seat 1 plays a Knight on seat 2's Rose Queen (5)"
    potion_played = SQE.PotionPlayed(seat=2, target=1, queen=SQ.QUEEN_CAT)
    assert d(event(potion_played=potion_played)) == (
        "seat 2 plays a Sleeping Potion on seat 1's Cat Queen (15)"
    )
    assert d(event(blocked=SQE.Blocked(seat=1, card=DRAGON))) == (
        "seat 1 blocks with a Dragon: the queen stays"
    )
    assert d(event(block_declined=SQE.BlockDeclined(seat=2))) == "seat 2 does not block"
    stolen = SQE.QueenStolen(seat=1, from_seat=2, queen=SQ.QUEEN_ROSE)
    assert d(event(queen_stolen=stolen)) == "seat 1 steals the Rose Queen (5) from seat 2"
    wasted = SQE.KnightWasted(seat=1, queen=SQ.QUEEN_DOG)
    assert d(event(knight_wasted=wasted)) == (
        "seat 1's Knight is wasted on the Dog Queen (Cat and Dog never together)"
    )
    bounced = SQE.KnightBounced(seat=1, from_seat=0, queen=SQ.QUEEN_CAT)
    assert d(event(knight_bounced=bounced), me=0) == (
        "the Cat Queen, taken by seat 1 from seat 0 (you), goes back to sleep "
        "(Cat and Dog never together)"
    )
    asleep = SQE.QueenPutToSleep(seat=1, queen=SQ.QUEEN_CAT, position=0, by=2)
    assert d(event(queen_put_to_sleep=asleep)) == (
        "seat 1's Cat Queen goes back to sleep at position 0 (chosen by seat 2)"
    )


def test_game_end_events() -> None:
    d = render.describe_event
    won = SQE.GameEnded(rule="SQ-15", winners=[2], points=[10, 5, 50], queens=[1, 1, 4])
    assert d(event(game_ended=won)) == (
        "--- game over: seat 2 wins with 4 queens, 50 points (enough queens or points)"
    )
    tie = SQE.GameEnded(rule="SQ-16", winners=[0, 1], points=[30, 30], queens=[3, 3])
    assert d(event(game_ended=tie), me=1) == (
        "--- game over: seat 0 and seat 1 (you) win with 3 queens, 30 points; 3 queens, "
        "30 points (no queen left asleep: the most points win)"
    )


def test_view_of_a_turn() -> None:
    view = make_view(
        seat=0,
        players=3,
        hand=[3, 5, 5, KING, DRAGON],
        hand_sizes=[5, 4, 5],
        awake={0: [SQ.QUEEN_PEACOCK], 2: [SQ.QUEEN_SUNFLOWER, SQ.QUEEN_HEART]},
        empty=[2, 4, 8],
        known={0: SQ.QUEEN_CAT},
        draw_pile=11,
        discard_pile=[10, 8, KING],
        turn=1,
    )
    text = render.render_view(view)
    lines = text.splitlines()
    assert lines[0] == (
        "== Sleeping Queens | game g3 | you are seat 0 | 5 queens or 50 points win =="
    )
    assert "Turn: seat 1." in text
    assert "Your hand (5): 3 5 5 King Dragon" in text
    rows = {line[2:15].strip(): line for line in lines if line[2:7] == "seat "}
    assert rows["seat 0 (you)"].split()[3:] == ["5", "10", "Peacock", "Queen", "(10)"]
    assert rows["seat 1"].startswith(">")
    assert rows["seat 1"].split()[3:] == ["4", "0", "-"]
    assert rows["seat 2"].split()[4:] == ["Sunflower", "Queen", "(10),", "Heart", "Queen", "(20)"]
    assert "Positions (9 asleep; ## face down, -- empty):" in text
    grid = lines[lines.index("Positions (9 asleep; ## face down, -- empty):") + 1 :][:4]
    assert grid[0].split() == ["0", "Cat", "1", "##", "2", "--"]
    assert grid[2].split() == ["6", "##", "7", "##", "8", "--"]
    assert "Draw pile: 11 cards   Discard pile: 3 cards, top: King" in text


def test_pending_decisions_in_words() -> None:
    block_view = make_view(
        seat=1,
        turn=0,
        decider=1,
        phase=SQV.PHASE_BLOCK,
        decision="block_knight",
        attacker=0,
        target_queen=SQ.QUEEN_CAT,
    )
    assert "seat 0 plays a Knight on your Cat Queen: You may block with a Dragon." in (
        render.render_view(block_view)
    )
    spectator = make_view(
        seat=None,
        turn=0,
        decider=2,
        phase=SQV.PHASE_BLOCK,
        decision="block_potion",
        attacker=0,
        target_queen=SQ.QUEEN_MOON,
    )
    text = render.render_view(spectator)
    assert (
        "seat 0 plays a Sleeping Potion on seat 2's Moon Queen: seat 2 may block with a Wand."
        in (text)
    )
    assert "Your hand" not in text and "spectator" in text
    jester_view = make_view(
        seat=0,
        turn=1,
        decider=2,
        phase=SQV.PHASE_JESTER_WAKE,
        decision="jester_wake",
        jester_card=7,
    )
    text = render.render_view(jester_view)
    assert "The Jester (a 7) counts seat 2, who wakes a queen." in text
    rose = make_view(seat=0, turn=0, phase=SQV.PHASE_ROSE_WAKE, decision="rose_wake")
    assert "The Rose Queen's bonus: seat 0 (you) wakes one more queen." in render.render_view(rose)
    placing = make_view(
        seat=0,
        turn=0,
        phase=SQV.PHASE_PLACE_QUEEN,
        decision="place_queen",
        target_queen=SQ.QUEEN_DOG,
    )
    assert "seat 0 (you) puts the Dog Queen back to sleep at an empty position." in (
        render.render_view(placing)
    )
    assert "Your turn." in render.render_view(make_view(seat=0, turn=0))


def test_game_over_view() -> None:
    view = make_view(
        seat=0,
        players=4,
        game_over=True,
        winners=[2],
        end_rule="SQ-15",
        awake={2: [SQ.QUEEN_HEART, SQ.QUEEN_CAT, SQ.QUEEN_ROSE]},
        turn=None,
    )
    text = render.render_view(view)
    assert "4 queens or 40 points win" in text
    assert "Game over." in text
    assert text.endswith("Winner: seat 2")
    assert not any(line.startswith(">") for line in text.splitlines())
