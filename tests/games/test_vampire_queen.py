"""Vampire Queen against its rules (``docs/rules/vampire-queen.md``), one or more tests per
rule id VQ-1 ... VQ-22: ``grep -r "VQ-12" tests/`` finds the evidence for a rule.

Situations are dealt from fixed decks (:func:`vq_helpers.new_table`): with 3 players seat ``s``
gets cards ``13*s .. 13*s+12`` of the deck; unless a test says otherwise the 15 Hunter goes to
the last seat, so seat 0 gets the 20 Hunter and leads. Moves are ``(seat, command)`` pairs;
``S(value, count, queens)`` is a ``PlaySet``.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import fields, is_dataclass
from typing import Any

import pytest

from referee.engine import FixedDeal, Rejection, Table
from referee.engine.chance import picked
from referee.games.vampire_queen.model import (
    HUNTER_15,
    HUNTER_20,
    QUEEN,
    CardPlayed,
    GameEnded,
    HandDealt,
    HunterLed,
    LeadHunter,
    Pass,
    Passed,
    PlayCard,
    PlaySet,
    RoundScored,
    RoundStarted,
    SetPlayed,
    Skipped,
    TrickKind,
    TrickWon,
)
from referee.games.vampire_queen.rules import DECK, hand_size_for
from tests.games.helpers import (
    accepted_commands,
    names,
    of_type,
    play,
    rejected,
    same_commands,
    says_why,
)
from tests.games.vq_helpers import GAME, S, build_deck, new_table, values

# --- scenarios used by several rules -----------------------------------------------------------

#: Seat 1 sheds its 13 cards in two tricks; the round ends with no Hunter having moved.
QUICK_HANDS = ["1 2x4 3x4 4x4", "12 13x8 Qx4", "5x4 6x4 7x4 8"]
QUICK_MOVES = [
    (0, S(1)),
    (1, S(12)),
    (2, Pass()),  # seat 1 wins and leads
    (1, S(13, 12, 4)),  # eight 13s and four queens: seat 1's last 12 cards
    (2, Pass()),
    (0, Pass()),
]


def quick_round(**kwargs: Any) -> tuple[Table[Any], list[Any]]:
    table = new_table(QUICK_HANDS, **kwargs)
    return table, play(table, *QUICK_MOVES)


def hunter_round(last_card: str, **kwargs: Any) -> tuple[Table[Any], list[Any]]:
    """Seat 1 gets down to one card (``last_card``); then seat 0 leads the 20 Hunter, seat 1
    answers with its last card and seat 2 with a 9. Returns the events of the Hunter trick."""
    hands = ["1 5 4x4 6x4 7x3", f"12 13x8 Qx2 2 {last_card}", "9 8x4 10x4 11x4"]
    table = new_table(hands, **kwargs)
    play(
        table,
        (0, S(1)),
        (1, S(12)),
        (2, Pass()),  # seat 1 leads
        (1, S(13, 10, 2)),
        (2, Pass()),
        (0, Pass()),  # seat 1 leads again
        (1, S(2)),
        (2, Pass()),
        (0, S(5)),  # seat 0 wins and leads; seat 1 holds one card
    )
    assert table.view(1).game.hand == values(last_card)
    events = play(
        table,
        (0, LeadHunter(HUNTER_20)),
        (1, PlayCard(values(last_card)[0])),
        (2, PlayCard(9)),
    )
    return table, events


#: Four players; seats 1 and 2 (no Hunters) both play their last cards in the third trick.
TWO_OUT_HANDS = ["1x6 8x6 Q", "2x6 5 6x6", "3x6 4 7x6", "9x6 10x7"]
TWO_OUT_MOVES = [
    (0, S(1, 6)),
    (1, S(2, 6)),
    (2, S(3, 6)),
    (3, Pass()),  # seat 2 wins
    (2, S(4)),
    (3, Pass()),
    (0, Pass()),
    (1, S(5)),  # seat 1 wins
    (1, S(6, 6)),  # seat 1's last six cards
    (2, S(7, 6)),  # seat 2's last six cards
    (3, Pass()),
    (0, Pass()),
]
#: seat 0: 8x6 + queen + 20 Hunter; seat 3: 9x6 + 10x7 + 15 Hunter.
TWO_OUT_PENALTIES = (48 + 14 + 20, 0, 0, 54 + 70 + 15)


def two_out(**kwargs: Any) -> tuple[Table[Any], list[Any]]:
    table = new_table(TWO_OUT_HANDS, **kwargs)
    return table, play(table, *TWO_OUT_MOVES)


#: Four players; seat 3 (the 15 Hunter) sheds every number card and is left with the Hunter.
SKIP_HANDS = ["1 8x4 5x8", "7x8 3x4 10", "9x8 11x4 12", "13 2x8 4x4"]
SKIP_MOVES = [
    (0, S(1)),
    (1, Pass()),
    (2, Pass()),
    (3, S(13)),  # seat 3 wins and leads
    (3, S(2, 8)),
    (0, Pass()),
    (1, Pass()),
    (2, Pass()),  # seat 3 leads again
    (3, S(4, 4)),  # seat 3's last number cards
    (0, S(8, 4)),  # seat 0 wins and leads
    (1, Pass()),
    (2, Pass()),
]


def skip_table(**kwargs: Any) -> Table[Any]:
    table = new_table(SKIP_HANDS, **kwargs)
    play(table, *SKIP_MOVES)
    assert table.view(3).game.hand == (HUNTER_15,)
    return table


def all_fields(obj: Any) -> list[Any]:
    """Every value inside a (nested) dataclass, tuple or list."""
    found: list[Any] = []
    stack = [obj]
    while stack:
        item = stack.pop()
        found.append(item)
        if is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name) for f in fields(item))
        elif isinstance(item, tuple | list):
            stack.extend(item)
    return found


def random_game(table: Table[Any], seed: int) -> list[Any]:
    """Random legal play to the end; every event."""
    rng = random.Random(seed)
    start = table.version
    while table.results() is None:
        seat = table.pending()[0]
        table.submit(seat, rng.choice(table.legal_commands(seat)))
    return table.log[start:]


# --- components, players and dealing ---------------------------------------------------------


def test_vq_1_deck_is_8_of_each_value_4_queens_and_the_two_hunters() -> None:
    """VQ-1: 104 number cards (8 x 1-13), 4 queens, Hunters 15 and 20 = 110 cards. With 12
    players every one of the 108 shuffled cards is dealt, so the hands show the whole deck."""
    assert Counter(DECK) == Counter({**{str(v): 8 for v in range(1, 14)}, "Q": 4})
    table = Table.create(GAME, 12, seed=b"vq-1")
    cards = Counter(v for seat in range(12) for v in table.view(seat).game.hand)
    assert cards == Counter({**dict.fromkeys(range(1, 14), 8), QUEEN: 4, 15: 1, 20: 1})
    assert sum(cards.values()) == 110


@pytest.mark.parametrize(
    "bad",
    [
        ("5", *DECK[1:]),  # nine 5s, seven 1s
        DECK[:-1],  # 107 cards
        (*DECK, "1"),  # 109 cards
        ("15", *DECK[1:]),  # a Hunter is never shuffled
        ("14", *DECK[1:]),  # queens are written "Q"
    ],
)
def test_vq_1_a_fixed_deck_must_be_the_108_cards(bad: tuple[str, ...]) -> None:
    """VQ-1: a fixed deal must hold exactly the 108 cards that are shuffled."""
    with pytest.raises(ValueError):
        Table.create(GAME, 3, seed=b"x", deal=FixedDeal(decks=(bad,)))


def test_vq_1_there_are_only_the_15_and_20_hunters() -> None:
    """VQ-1: leading a "Hunter" 7 is refused under VQ-1."""
    table = new_table(QUICK_HANDS)
    assert rejected(table, 0, LeadHunter(7)).rule_id == "VQ-1"


def test_vq_2_three_to_twelve_players() -> None:
    """VQ-2: 3 to 12 players; 2 and 13 are refused."""
    for players in range(3, 13):
        assert Table.create(GAME, players, seed=b"p").config.players == players
    for players in (0, 1, 2, 13, 20):
        with pytest.raises(ValueError):
            Table.create(GAME, players, seed=b"p")


@pytest.mark.parametrize(
    ("players", "size"),
    [(3, 13), (4, 13), (5, 13), (6, 13), (7, 13), (8, 13), (9, 12), (10, 10), (11, 9), (12, 9)],
)
def test_vq_3_hand_size_by_player_count(players: int, size: int) -> None:
    """VQ-3: 3-8 players 13 cards, 9 -> 12, 10 -> 10, 11-12 -> 9 (= min(13, 108 // n))."""
    assert hand_size_for(players) == size == min(13, 108 // players)
    table = Table.create(GAME, players, seed=b"vq-3")
    dealt = of_type(table.log, HandDealt)
    assert [e.count for e in dealt] == [size] * players
    assert [len(e.cards) for e in dealt] == [size] * players
    started = of_type(table.log, RoundStarted)[0]
    view = table.view(None).game
    for seat in range(players):
        hunters = (view.hunter_15_holder == seat) + (view.hunter_20_holder == seat)
        assert started.hand_sizes[seat] == size + hunters
        assert view.hand_sizes[seat] == size + hunters
        assert len(table.view(seat).game.hand) == size + hunters


@pytest.mark.parametrize(("players", "pick"), [(3, 0), (3, 1), (3, 2), (5, 4), (12, 7)])
def test_vq_4_a_random_seat_gets_the_15_its_left_neighbour_the_20_and_leads(
    players: int, pick: int
) -> None:
    """VQ-4: the picked seat gets the 15 Hunter; the next seat clockwise (wrapping round) gets
    the 20 and is the first leader. The Hunters are extra cards on top of the hand size."""
    table = Table.create(GAME, players, seed=b"vq-4", deal=FixedDeal(picks=(pick,)))
    started = of_type(table.log, RoundStarted)[0]
    left = (pick + 1) % players
    assert (started.round, started.hunter_15_holder, started.hunter_20_holder) == (1, pick, left)
    assert started.leader == left
    assert started.hunter_pick is True
    assert table.pending() == (left,)
    size = hand_size_for(players)
    assert table.view(pick).game.hand[-1] == HUNTER_15
    assert table.view(left).game.hand[-1] == HUNTER_20
    assert len(table.view(pick).game.hand) == size + 1
    assert len(table.view(left).game.hand) == size + 1


def test_vq_4_the_15_holder_is_drawn_from_the_seed() -> None:
    """VQ-4: without a fixed pick, the 15 Hunter's seat is the seed's first pick."""
    holders = set()
    for s in range(12):
        seed = bytes([s]) * 8
        table = Table.create(GAME, 5, seed=seed)
        holder = of_type(table.log, RoundStarted)[0].hunter_15_holder
        assert holder == picked(5, seed, 0)
        holders.add(holder)
    assert len(holders) > 2


def test_vq_4_seat_s_is_dealt_its_slice_of_the_shuffled_deck() -> None:
    """VQ-4: the 108 cards are shuffled and seat s gets cards s*h .. s*h+h-1 (fixed deal)."""
    rng = random.Random(4)
    deck = list(DECK)
    rng.shuffle(deck)
    for players in (3, 7, 10):
        table = Table.create(GAME, players, seed=b"s", deal=FixedDeal(decks=(tuple(deck),)))
        size = hand_size_for(players)
        for event in of_type(table.log, HandDealt):
            slice_ = deck[event.seat * size : (event.seat + 1) * size]
            assert event.cards == values(slice_)


def test_vq_4_undealt_cards_play_no_part_in_the_round() -> None:
    """VQ-4: with 3 players only 39 cards are dealt. Put the 4 queens among the 69 undealt
    cards: nobody holds one, no legal command uses one, and none is ever played."""
    table = new_table(["1x8 2x5", "3x8 4x5", "5x8 6x5"], options={"rounds": "1"})
    for seat in range(3):
        assert QUEEN not in table.view(seat).game.hand
    rng = random.Random(0)
    while table.results() is None:
        seat = table.pending()[0]
        legal = table.legal_commands(seat)
        for command in legal:
            assert getattr(command, "queens", 0) == 0
            assert getattr(command, "value", 0) != QUEEN
        table.submit(seat, rng.choice(legal))
    for event in table.log:
        assert getattr(event, "queens", 0) == 0
        assert QUEEN not in getattr(event, "cards", ())
        assert QUEEN not in getattr(event, "taken", ())
        assert getattr(event, "value", 0) != QUEEN


def test_vq_5_later_rounds_reshuffle_and_the_20_holder_leads() -> None:
    """VQ-5: after a round the Hunters stay where they are, all other cards are reshuffled
    (the second fixed deck) and every seat gets the full hand size again; the 20 leads."""
    later = ["13x8 12x5", "1x8 2x5", "3x8 4x5"]
    table, events = quick_round(later=[later])
    started = of_type(events, RoundStarted)
    assert len(started) == 1
    second = started[0]
    assert (second.round, second.shuffle, second.hunter_pick) == (2, 1, False)
    assert (second.hunter_15_holder, second.hunter_20_holder, second.leader) == (2, 0, 0)
    assert second.hand_sizes == (14, 13, 14)
    dealt = of_type(events, HandDealt)
    assert [e.cards for e in dealt] == [values(h) for h in later]
    assert table.pending() == (0,)
    assert table.view(0).game.hand == (*values(later[0]), HUNTER_20)
    assert table.view(2).game.hand == (*values(later[2]), HUNTER_15)


def test_vq_5_hunters_stay_with_whoever_holds_them_at_the_end_of_the_round() -> None:
    """VQ-5: seat 2 took the 20 Hunter in the last trick of round 1; it keeps both Hunters on
    top of a full new hand and, holding the 20, leads round 2."""
    table, events = hunter_round("3")
    second = of_type(events, RoundStarted)[0]
    assert (second.hunter_15_holder, second.hunter_20_holder, second.leader) == (2, 2, 2)
    assert second.hand_sizes == (13, 13, 15)
    view = table.view(2).game
    assert view.hand[-2:] == (HUNTER_15, HUNTER_20)
    assert len(view.hand) == 15
    # Cards left in hand at the end of round 1 do not carry over: every hand is new.
    assert [len(table.view(s).game.hand) for s in range(3)] == [13, 13, 15]
    assert table.pending() == (2,)


# --- normal trick ------------------------------------------------------------------------------


def test_vq_6_the_leader_must_lead() -> None:
    """VQ-6: the leader cannot pass or answer with a single card; its legal commands are
    only sets and Hunters."""
    table = new_table(QUICK_HANDS)
    assert rejected(table, 0, Pass()).rule_id == "VQ-6"
    assert rejected(table, 0, PlayCard(1)).rule_id == "VQ-6"
    legal = table.legal_commands(0)
    assert legal and all(isinstance(c, PlaySet | LeadHunter) for c in legal)
    assert LeadHunter(HUNTER_20) in legal
    assert table.decisions()[0].rule_id == "VQ-6"


def test_vq_7_each_other_player_gets_exactly_one_turn() -> None:
    """VQ-7: clockwise from the leader each other player has one turn; after the last, the
    trick is over: the beaten leader gets no second turn (no second lap)."""
    table = new_table(["3 1x8 2x4", "5 2x4 4x8", "9 6x8 7x4"])
    assert table.pending() == (0,)
    assert play(table, (0, S(3))) == [SetPlayed(0, 3, 1, 0)]
    assert table.pending() == (1,)
    assert play(table, (1, S(5))) == [SetPlayed(1, 5, 1, 0)]
    assert table.pending() == (2,)
    events = play(table, (2, S(9)))
    assert events == [SetPlayed(2, 9, 1, 0), TrickWon(2, False, ())]
    view = table.view(None).game
    assert view.trick_kind is TrickKind.UNSPECIFIED and view.trick == ()
    assert table.pending() == (2,)  # the winner leads; seat 0 never answered seat 2's 9


def test_vq_7_with_five_players_every_other_seat_passes_once() -> None:
    """VQ-7: five players, seat 3 leads (after winning a trick); 4, 0, 1, 2 each get one turn."""
    table = new_table(["1 2x8 3x4", "3x4 4x8 6", "6x7 7x6", "13 5x8 8x4", "8x4 9x8 10"], h15=4)
    assert table.pending() == (0,)
    play(table, (0, S(1)), (1, Pass()), (2, Pass()), (3, S(13)), (4, Pass()))
    assert table.pending() == (3,)
    order = []
    play(table, (3, S(5, 2)))
    while table.view(None).game.trick_kind is TrickKind.NORMAL:
        seat = table.pending()[0]
        order.append(seat)
        events = play(table, (seat, Pass()))
    assert order == [4, 0, 1, 2]
    assert events[-1] == TrickWon(3, False, ())


def test_vq_7_a_play_must_beat_the_highest_set_so_far_not_only_the_lead() -> None:
    """VQ-7 (published rules): seat 2 may not answer a 3 beaten by a 9 with a 5, nor tie 9."""
    table = new_table(["3 1x8 2x4", "9 2x4 4x8", "5 9 10 6x8 7x2"])
    play(table, (0, S(3)), (1, S(9)))
    for command in (S(5), S(9)):
        error = rejected(table, 2, command)
        assert (error.rule_id, error.kind) == ("VQ-7", "illegal")
    assert table.legal_commands(2) == [Pass(), S(10)]
    assert play(table, (2, S(10)))[-1] == TrickWon(2, False, ())


def test_vq_7_a_play_has_exactly_as_many_cards_as_were_led() -> None:
    """VQ-7: two cards led, so one or three cards are refused."""
    table = new_table(["3x2 5x8 6x3", "9x3 1x8 2x2", "2x6 4x7"])
    play(table, (0, S(3, 2)))
    assert rejected(table, 1, S(9, 1)).rule_id == "VQ-7"
    assert rejected(table, 1, S(9, 3)).rule_id == "VQ-7"
    assert table.legal_commands(1) == [Pass(), S(9, 2)]
    play(table, (1, S(9, 2)))


def test_vq_7_passing_is_always_allowed() -> None:
    """VQ-7: a seat that could beat the lead may still pass; so may one that cannot."""
    table = new_table(["3 4x8 5x4", "13 6x8 7x4", "1x8 2x5"])
    play(table, (0, S(3)))
    assert Pass() in table.legal_commands(1) and S(13) in table.legal_commands(1)
    assert play(table, (1, Pass())) == [Passed(1)]
    assert table.legal_commands(2) == [Pass()]  # only 1s and a 2 (and the 15 Hunter)
    assert play(table, (2, Pass()))[-1] == TrickWon(0, False, ())


def test_vq_7_commands_out_of_turn_are_refused_as_precondition() -> None:
    """VQ-7: only the seat whose turn it is may act; others get a precondition rejection."""
    table = new_table(QUICK_HANDS)
    for seat in (1, 2):
        error = rejected(table, seat, S(12) if seat == 1 else S(5))
        assert error.kind == "precondition"
        assert table.legal_commands(seat) == []
    play(table, (0, S(1)))
    error = rejected(table, 0, Pass())
    assert error.kind == "precondition"
    assert error.rule_id == "VQ-7"


def test_vq_8_a_set_is_one_value_plus_queens() -> None:
    """VQ-8: a set is cards of one value 1-13 plus queens taking that value; a set the hand
    does not hold, a value outside 1-13 (or 14 for queens only), no cards or more queens
    than cards is refused under VQ-8."""
    table = new_table(["5x3 Q 1x8 2", "6x8 7x5", "8x8 9x5"])
    for command in (
        S(5, 4),  # four 5s: only three held
        S(5, 5, 2),  # two queens: only one held
        S(6),  # no 6 held
        S(0),
        S(15),
        S(20),
        S(-3),
        S(5, 0),
        S(5, 2, 3),
        S(5, 2, -1),
    ):
        error = rejected(table, 0, command)
        assert (error.rule_id, error.kind) == ("VQ-8", "illegal"), command
    events = play(table, (0, S(5, 4, 1)))  # three 5s and the queen: four 5s
    assert events == [SetPlayed(0, 5, 4, 1)]
    assert table.view(0).game.hand == (*(1,) * 8, 2, HUNTER_20)


def test_vq_8_hunters_are_never_part_of_a_set() -> None:
    """VQ-8: a Hunter is never in a set; a seat holding only Hunters must pass."""
    table = skip_table()
    play(table, (0, LeadHunter(HUNTER_20)), (1, PlayCard(10)), (2, PlayCard(12)))
    play(table, (2, S(9)))
    assert table.pending() == (3,)
    assert table.legal_commands(3) == [Pass()]
    assert rejected(table, 3, S(15)).rule_id == "VQ-8"
    assert rejected(table, 3, S(HUNTER_15, 1, 0)).kind == "illegal"
    assert rejected(table, 3, LeadHunter(HUNTER_15)).rule_id == "VQ-11"
    assert play(table, (3, Pass())) == [Passed(3)]


def test_vq_9_a_queens_only_set_is_14_and_cannot_be_beaten() -> None:
    """VQ-9: two queens led are worth 14: nobody can beat them, only pass."""
    table = new_table(["Qx2 1x8 4x3", "13x8 Qx2 2x3", "12x8 3x5"])
    play(table, (0, S(QUEEN, 2, 2)))
    assert table.view(None).game.best_value == QUEEN
    assert table.legal_commands(1) == [Pass()]
    assert rejected(table, 1, S(13, 2)).rule_id == "VQ-7"
    assert rejected(table, 1, S(QUEEN, 2, 2)).rule_id == "VQ-7"
    assert play(table, (1, Pass()), (2, Pass()))[-1] == TrickWon(0, False, ())


def test_vq_9_queens_only_may_not_be_declared_lower() -> None:
    """VQ-9: two queens are not "two 5s"; a value-14 set has only queens."""
    table = new_table(["Qx2 5 1x8 4x2", "2x8 6x5", "3x8 7x5"])
    for command in (S(5, 2, 2), S(1, 1, 1), S(QUEEN, 2, 1), S(QUEEN, 1, 0)):
        assert rejected(table, 0, command).rule_id == "VQ-9", command
    assert S(5, 2, 1) in table.legal_commands(0)
    assert S(5, 3, 2) in table.legal_commands(0)


def test_vq_9_queens_join_number_cards_when_leading_and_following() -> None:
    """VQ-9: two 8s + a queen lead as three 8s; a 9 + two queens follow as three 9s; three
    queens alone (14) then beat the 9s."""
    table = new_table(["8x2 Q 1x8 4x2", "9 Qx2 2x8 5x2", "Q 13 3x8 6x3"])
    # seat 2 holds only one queen, so seat 2 cannot answer three with queens only
    assert play(table, (0, S(8, 3, 1))) == [SetPlayed(0, 8, 3, 1)]
    assert play(table, (1, S(9, 3, 2))) == [SetPlayed(1, 9, 3, 2)]
    assert table.view(1).game.hand.count(QUEEN) == 0
    assert table.view(0).game.hand.count(8) == 0
    assert table.legal_commands(2) == [Pass()]
    play(table, (2, Pass()))
    assert table.pending() == (1,)


def test_vq_9_queens_alone_beat_a_13() -> None:
    """VQ-9: a single queen follows a 13 (14 > 13)."""
    table = new_table(["13 1x8 4x4", "Q 2x8 5x4", "3x8 6x5"])
    play(table, (0, S(13)))
    assert S(QUEEN, 1, 1) in table.legal_commands(1)
    play(table, (1, S(QUEEN, 1, 1)))
    assert table.legal_commands(2) == [Pass()]


def test_vq_10_the_last_player_who_played_wins_and_leads() -> None:
    """VQ-10: the highest set (the last one played) wins; the winner leads the next trick."""
    table = new_table(["3 1x8 6x4", "5 2x8 7x4", "4x8 8x5"])
    events = play(table, (0, S(3)), (1, S(5)), (2, Pass()))
    assert events[-1] == TrickWon(1, False, ())
    assert table.pending() == (1,)
    assert table.view(None).game.leader == 1


def test_vq_10_the_leader_wins_when_everybody_passes() -> None:
    """VQ-10: if all pass, the leader wins the trick and leads again."""
    table = new_table(["13 1x8 4x4", "2x8 5x5", "3x8 6x5"])
    events = play(table, (0, S(13)), (1, Pass()), (2, Pass()))
    assert events[-1] == TrickWon(0, False, ())
    assert table.pending() == (0,)


def test_vq_10_cards_of_a_normal_trick_leave_the_round() -> None:
    """VQ-10: played cards leave the round face up; nobody takes anything."""
    table = new_table(["3x2 1x8 6x3", "5x2 2x8 7x3", "4x8 8x5"])
    before = table.view(None).game.hand_sizes
    events = play(table, (0, S(3, 2)), (1, S(5, 2)), (2, Pass()))
    assert events[-1] == TrickWon(1, False, ())
    assert table.view(None).game.hand_sizes == (before[0] - 2, before[1] - 2, before[2])
    assert 5 not in table.view(1).game.hand
    assert 3 not in table.view(0).game.hand


# --- Hunter trick -------------------------------------------------------------------------------


def test_vq_11_only_the_leader_can_play_a_hunter() -> None:
    """VQ-11: a follower cannot play its Hunter in a normal trick; a leader cannot lead a
    Hunter it does not hold."""
    table = new_table(QUICK_HANDS)
    assert rejected(table, 0, LeadHunter(HUNTER_15)).rule_id == "VQ-11"
    play(table, (0, S(1)), (1, Pass()))
    assert table.view(2).game.hand[-1] == HUNTER_15
    error = rejected(table, 2, LeadHunter(HUNTER_15))
    assert (error.rule_id, error.kind) == ("VQ-11", "illegal")
    assert not any(isinstance(c, LeadHunter) for c in table.legal_commands(2))


def test_vq_11_a_hunter_is_led_alone_and_counts_zero() -> None:
    """VQ-11: the Hunter lead is one card worth 0: any answer is higher."""
    table = new_table(["1x8 4x5", "2x8 5x5", "3x8 6x5"])
    events = play(table, (0, LeadHunter(HUNTER_20)))
    assert events == [HunterLed(0, HUNTER_20)]
    view = table.view(None).game
    assert view.trick_kind is TrickKind.HUNTER
    assert (view.best_value, view.best_seat) == (0, None)
    assert view.hand_sizes == (13, 13, 14)  # the Hunter is on the table
    assert view.hunter_20_holder == 0


def test_vq_12_every_other_player_must_play_exactly_one_card() -> None:
    """VQ-12: no pass, no set, no Hunter: one number card or queen per answer, as held."""
    table = new_table(["1x8 4x5", "2x6 7 Q 3x5", "12 5x8 6x4"])
    play(table, (0, LeadHunter(HUNTER_20)))
    assert table.legal_commands(1) == [PlayCard(2), PlayCard(3), PlayCard(7), PlayCard(QUEEN)]
    for command in (Pass(), S(2), S(2, 2), LeadHunter(HUNTER_15), PlayCard(15), PlayCard(20)):
        error = rejected(table, 1, command)
        assert (error.rule_id, error.kind) == ("VQ-12", "illegal"), command
    assert rejected(table, 1, PlayCard(12)).rule_id == "VQ-12"  # not held
    assert rejected(table, 1, PlayCard(0)).rule_id == "VQ-12"
    play(table, (1, PlayCard(7)))
    # The other Hunter can never answer a Hunter: seat 2 holds the 15.
    assert table.view(2).game.hand[-1] == HUNTER_15
    assert rejected(table, 2, LeadHunter(HUNTER_15)).rule_id == "VQ-12"
    assert rejected(table, 2, PlayCard(HUNTER_15)).rule_id == "VQ-12"
    assert table.legal_commands(2) == [PlayCard(5), PlayCard(6), PlayCard(12)]
    assert table.decisions()[0].rule_id == "VQ-12"


def test_vq_12_nobody_has_to_beat_anything() -> None:
    """VQ-12: a lower card than the best so far is a valid answer."""
    table = new_table(["1x8 4x5", "12 2x8 5x4", "3x8 6x5"])
    events = play(table, (0, LeadHunter(HUNTER_20)), (1, PlayCard(12)), (2, PlayCard(3)))
    assert events[1:3] == [CardPlayed(1, 12), CardPlayed(2, 3)]
    assert events[3] == TrickWon(1, True, (3, 12, HUNTER_20))


def test_vq_12_a_queen_counts_1_in_a_hunter_trick_by_default() -> None:
    """VQ-12 ruling (option hunter_queen=1, the default): a queen answering a Hunter is 1, so
    a 2 beats it."""
    table = new_table(["1x8 5x5", "Q 3x8 6x4", "2 4x8 7x4"])
    events = play(table, (0, LeadHunter(HUNTER_20)), (1, PlayCard(QUEEN)), (2, PlayCard(2)))
    assert events[-1] == TrickWon(2, True, (2, QUEEN, HUNTER_20))
    assert table.view(None).game.hunter_queen == 1


def test_vq_12_option_hunter_queen_14_makes_the_queen_highest() -> None:
    """VQ-12 option hunter_queen=14: the queen beats a 13 in a Hunter trick."""
    table = new_table(["1x8 5x5", "Q 3x8 6x4", "13 4x8 7x4"], options={"hunter_queen": "14"})
    events = play(table, (0, LeadHunter(HUNTER_20)), (1, PlayCard(QUEEN)), (2, PlayCard(13)))
    assert events[-1] == TrickWon(1, True, (13, QUEEN, HUNTER_20))
    assert table.view(None).game.hunter_queen == 14


@pytest.mark.parametrize(("tie", "winner"), [("first", 1), ("last", 2)])
def test_vq_12_a_queen_ties_with_a_1_by_default(tie: str, winner: int) -> None:
    """VQ-12 (queen = 1) with VQ-14 tie ruling: a queen and a 1 tie for highest."""
    table = new_table(["2x8 5x5", "Q 3x8 6x4", "1 4x8 7x4"], options={"hunter_tie": tie})
    events = play(table, (0, LeadHunter(HUNTER_20)), (1, PlayCard(QUEEN)), (2, PlayCard(1)))
    assert events[-1] == TrickWon(winner, True, (1, QUEEN, HUNTER_20))


def test_vq_13_a_seat_holding_only_hunters_is_skipped() -> None:
    """VQ-13: seat 3 holds only the 15 Hunter when seat 0 leads the 20: it is skipped, plays
    nothing and cannot take the trick."""
    table = skip_table()
    assert table.pending() == (0,)
    events = play(table, (0, LeadHunter(HUNTER_20)), (1, PlayCard(10)))
    assert table.pending() == (2,)
    events = play(table, (2, PlayCard(12)))
    assert events == [CardPlayed(2, 12), Skipped(3), TrickWon(2, True, (10, 12, HUNTER_20))]
    assert table.view(3).game.hand == (HUNTER_15,)
    assert table.view(None).game.hand_sizes[3] == 1


def test_vq_13_a_skip_right_after_the_lead() -> None:
    """VQ-13: seat 2 (holding the 20 it took) leads it next-but-one; seat 3, next in line and
    holding only the 15, is skipped at once and seat 0 answers first."""
    table = skip_table()
    play(table, (0, LeadHunter(HUNTER_20)), (1, PlayCard(10)), (2, PlayCard(12)))
    play(table, (2, S(9)), (3, Pass()), (0, Pass()), (1, Pass()))
    assert table.pending() == (2,)
    events = play(table, (2, LeadHunter(HUNTER_20)))
    assert events == [HunterLed(2, HUNTER_20), Skipped(3)]
    assert table.pending() == (0,)
    events = play(table, (0, PlayCard(5)), (1, PlayCard(3)))
    assert events[-1] == TrickWon(0, True, (3, 5, HUNTER_20))


def test_vq_14_the_highest_card_takes_every_card_and_leads() -> None:
    """VQ-14: the winner takes the Hunter, every played card and its own card into hand, in
    public, and leads the next trick."""
    table = new_table(["1x8 4x5", "12 2x8 5x4", "3x8 6x5"])
    events = play(table, (0, LeadHunter(HUNTER_20)), (1, PlayCard(12)), (2, PlayCard(3)))
    assert events[-1] == TrickWon(1, True, (3, 12, HUNTER_20))
    view = table.view(1).game
    assert view.hand == (*(2,) * 8, 3, *(5,) * 4, 12, HUNTER_20)
    assert view.hand_sizes == (13, 15, 13)
    assert view.hunter_20_holder == 1
    assert table.pending() == (1,)


@pytest.mark.parametrize(("tie", "winner"), [("first", 1), ("last", 2)])
def test_vq_14_option_hunter_tie(tie: str, winner: int) -> None:
    """VQ-14 ruling: seats 1 and 2 tie with 9s (seat 3's 5 is lower): `first` gives the trick
    to the first of them clockwise from the leader, `last` to the last."""
    hands = ["1x8 6x5", "9 2x8 7x4", "9 3x8 8x4", "5 4x8 10x4"]
    table = new_table(hands, options={"hunter_tie": tie})
    assert table.view(None).game.hunter_tie == tie
    events = play(
        table,
        (0, LeadHunter(HUNTER_20)),
        (1, PlayCard(9)),
        (2, PlayCard(9)),
        (3, PlayCard(5)),
    )
    assert events[-1] == TrickWon(winner, True, (5, 9, 9, HUNTER_20))
    assert table.pending() == (winner,)


@pytest.mark.parametrize(("tie", "winner"), [("first", 3), ("last", 0)])
def test_vq_14_tie_order_is_clockwise_from_the_leader(tie: str, winner: int) -> None:
    """VQ-14 ruling: with seat 2 leading the Hunter, seat 3 answers before seat 0."""
    hands = ["9 2x8 5x4", "1x8 6x5", "13 3x8 7x4", "9 4x8 8x4"]
    table = new_table(hands, h15=1, options={"hunter_tie": tie})  # seat 2: 20, leads
    assert table.pending() == (2,)
    events = play(
        table,
        (2, LeadHunter(HUNTER_20)),
        (3, PlayCard(9)),
        (0, PlayCard(9)),
        (1, PlayCard(1)),
    )
    assert events[-1] == TrickWon(winner, True, (1, 9, 9, HUNTER_20))


def test_vq_15_the_taker_may_not_lead_that_hunter_in_its_next_lead() -> None:
    """VQ-15: seat 1 took the 20 Hunter and leads next: not the 20. After one other lead the
    restriction is over."""
    table, events = hunter_round("11")
    assert events[-1] == TrickWon(1, True, (9, 11, HUNTER_20))
    assert table.pending() == (1,)
    assert table.view(None).game.barred_hunters == (0, HUNTER_20, 0)
    error = rejected(table, 1, LeadHunter(HUNTER_20))
    assert (error.rule_id, error.kind) == ("VQ-15", "illegal")
    assert LeadHunter(HUNTER_20) not in table.legal_commands(1)
    assert table.legal_commands(1) == [S(9), S(11)]
    play(table, (1, S(9)), (2, Pass()), (0, Pass()))
    assert table.pending() == (1,)
    assert table.view(None).game.barred_hunters == (0, 0, 0)
    assert LeadHunter(HUNTER_20) in table.legal_commands(1)
    assert play(table, (1, LeadHunter(HUNTER_20)))[0] == HunterLed(1, HUNTER_20)


@pytest.mark.parametrize("taken", [HUNTER_15, HUNTER_20])
def test_vq_15_the_taker_may_lead_the_other_hunter(taken: int) -> None:
    """VQ-15: a seat that took one Hunter while holding the other may lead the other one."""
    if taken == HUNTER_20:
        # seat 1 holds the 15; seat 2 holds the 20, leads it, and seat 1 takes it.
        table = new_table(["3 1x8 5x4", "12 2x8 6x4", "4x8 7x5"], h15=1)
        play(table, (2, LeadHunter(HUNTER_20)), (0, PlayCard(3)), (1, PlayCard(12)))
        taker, other = 1, HUNTER_15
    else:
        # seat 0 holds the 20; seat 2 wins a trick, leads the 15, and seat 0 takes it.
        table = new_table(["1 13 5x8 6x3", "2x8 7x5", "12 4x8 8x4"])
        play(table, (0, S(1)), (1, Pass()), (2, S(12)))
        play(table, (2, LeadHunter(HUNTER_15)), (0, PlayCard(13)), (1, PlayCard(2)))
        taker, other = 0, HUNTER_20
    assert table.pending() == (taker,)
    assert sorted(table.view(taker).game.hand[-2:]) == [HUNTER_15, HUNTER_20]
    assert rejected(table, taker, LeadHunter(taken)).rule_id == "VQ-15"
    assert LeadHunter(other) in table.legal_commands(taker)
    assert LeadHunter(taken) not in table.legal_commands(taker)
    assert play(table, (taker, LeadHunter(other)))[0] == HunterLed(taker, other)


def test_vq_15_the_restriction_does_not_carry_over_into_a_new_round() -> None:
    """VQ-15 ruling: seat 2 took the 20 in the trick that ended round 1; leading round 2 it
    may lead the 20 at once (and the 15)."""
    table, events = hunter_round("3")
    assert of_type(events, TrickWon)[-1] == TrickWon(2, True, (3, 9, HUNTER_20))
    assert of_type(events, RoundStarted)[0].round == 2
    assert table.pending() == (2,)
    assert table.view(None).game.barred_hunters == (0, 0, 0)
    legal = table.legal_commands(2)
    assert LeadHunter(HUNTER_20) in legal and LeadHunter(HUNTER_15) in legal
    assert play(table, (2, LeadHunter(HUNTER_20)))[0] == HunterLed(2, HUNTER_20)


@pytest.mark.parametrize("tie", ["first", "last"])
@pytest.mark.parametrize("queen", ["1", "14"])
def test_vq_16_the_leader_of_a_hunter_trick_never_takes_it(tie: str, queen: str) -> None:
    """VQ-16: even when every answer is the lowest card (1s, or queens counted 1), the
    leader (0) is below them and never takes the trick."""
    hands = ["13x8 12x5", "1 2x8 5x4", "Q 3x8 6x4", "1 4x8 7x4"]
    table = new_table(hands, options={"hunter_tie": tie, "hunter_queen": queen})
    events = play(
        table,
        (0, LeadHunter(HUNTER_20)),
        (1, PlayCard(1)),
        (2, PlayCard(QUEEN)),
        (3, PlayCard(1)),
    )
    won = events[-1]
    assert isinstance(won, TrickWon) and won.winner != 0
    expected = {("first", "1"): 1, ("last", "1"): 3}.get((tie, queen), 2)
    assert won.winner == expected


# --- end of round, scoring, end of game -----------------------------------------------------------


def test_vq_17_a_trick_is_always_played_to_its_end() -> None:
    """VQ-17: seat 1 leads its last cards and seat 2 answers with its last; seats 3 and 0
    still have their turns before the round ends."""
    table = new_table(TWO_OUT_HANDS)
    play(table, *TWO_OUT_MOVES[:9])
    assert table.view(None).game.hand_sizes[1] == 0
    assert table.pending() == (2,)
    events = play(table, (2, S(7, 6)))
    assert events == [SetPlayed(2, 7, 6, 0)]
    assert table.pending() == (3,)
    events = play(table, (3, Pass()))
    assert events == [Passed(3)]
    events = play(table, (0, Pass()))
    assert names(events)[:3] == ["Passed", "TrickWon", "RoundScored"]


def test_vq_17_several_players_may_go_out_in_the_same_trick() -> None:
    """VQ-17: seats 1 and 2 both go out in one trick; the round ends once, after the trick."""
    _table, events = two_out()
    scored = of_type(events, RoundScored)
    assert len(scored) == 1
    assert scored[0].penalties[1] == scored[0].penalties[2] == 0
    assert names(events).index("TrickWon") < names(events).index("RoundScored")


def test_vq_17_playing_the_last_card_and_taking_the_hunter_trick_is_not_out() -> None:
    """VQ-17: seat 1 answers the Hunter with its last card, an 11, the highest: it takes the
    trick (20, 11, 9), so it holds cards again and the round goes on."""
    table, events = hunter_round("11")
    assert events == [
        HunterLed(0, HUNTER_20),
        CardPlayed(1, 11),
        CardPlayed(2, 9),
        TrickWon(1, True, (9, 11, HUNTER_20)),
    ]
    assert table.view(None).game.hand_sizes[1] == 3
    assert table.view(None).game.round == 1
    assert table.pending() == (1,)


def test_vq_17_playing_the_last_card_in_a_hunter_trick_and_losing_it_is_out() -> None:
    """VQ-17: seat 1 answers with its last card, a 3, and seat 2 takes the trick: seat 1 has
    no cards after the trick and the round ends."""
    _table, events = hunter_round("3")
    assert names(events)[:6] == [
        "HunterLed",
        "CardPlayed",
        "CardPlayed",
        "TrickWon",
        "RoundScored",
        "RoundStarted",
    ]
    assert of_type(events, RoundScored)[0].penalties[1] == 0


def test_vq_17_the_round_goes_on_while_everybody_holds_a_card() -> None:
    """VQ-17: in random play, a round is scored exactly when someone holds no card after a
    trick, never earlier."""
    for seed in range(4):
        table = Table.create(GAME, 4, seed=bytes([seed]))
        rng = random.Random(seed)
        while table.results() is None:
            seat = table.pending()[0]
            events = table.submit(seat, rng.choice(table.legal_commands(seat)))
            if not any(isinstance(e, TrickWon) for e in events):
                assert not any(isinstance(e, RoundScored) for e in events)
                continue
            sizes = table.view(None).game.hand_sizes
            scored = any(isinstance(e, RoundScored) for e in events)
            if not scored:
                assert min(sizes) > 0


def test_vq_18_penalties_are_face_values_queen_14_hunters_15_and_20() -> None:
    """VQ-18: seat 0 keeps six 8s, a queen and the 20 (48 + 14 + 20); seat 3 six 9s, seven 10s
    and the 15 (54 + 70 + 15); seats 1 and 2 are out (0)."""
    table, events = two_out(options={"rounds": "2"})
    scored = of_type(events, RoundScored)[0]
    assert scored == RoundScored(1, TWO_OUT_PENALTIES, TWO_OUT_PENALTIES)
    view = table.view(None).game
    assert view.last_penalties == TWO_OUT_PENALTIES
    assert view.totals == TWO_OUT_PENALTIES


def test_vq_18_quick_round_penalties() -> None:
    """VQ-18: 2x4 + 3x4 + 4x4 + 20 = 56 for seat 0; 5x4 + 6x4 + 7x4 + 8 + 15 = 95 for seat 2."""
    _table, events = quick_round()
    assert of_type(events, RoundScored) == [RoundScored(1, (56, 0, 95), (56, 0, 95))]


def test_vq_18_hunter_trick_pickup_counts_in_the_penalty() -> None:
    """VQ-18: seat 2 took 20 + 3 + 9 in the last trick: it scores its four 8s, four 10s, four
    11s, both Hunters and the taken 3 and 9."""
    _table, events = hunter_round("3")
    scored = of_type(events, RoundScored)[0]
    assert scored.penalties == (4 * 4 + 6 * 4 + 7 * 3, 0, 32 + 40 + 44 + 15 + 20 + 3 + 9)


def test_vq_19_the_game_lasts_five_rounds_by_default() -> None:
    """VQ-19: default 5 rounds, then the game ends; totals are cumulative."""
    table = Table.create(GAME, 4, seed=b"vq-19")
    events = random_game(table, 19)
    scored = of_type(events, RoundScored)
    assert [e.round for e in scored] == [1, 2, 3, 4, 5]
    running = [0] * 4
    for e in scored:
        running = [t + p for t, p in zip(running, e.penalties, strict=True)]
        assert list(e.totals) == running
    ended = of_type(events, GameEnded)
    assert len(ended) == 1 and table.log[-1] == ended[0]
    assert ended[0].totals == scored[-1].totals


@pytest.mark.parametrize("rounds", ["1", "2", "3"])
def test_vq_19_option_rounds(rounds: str) -> None:
    """VQ-19 option rounds: the game ends after that many rounds."""
    table = Table.create(GAME, 3, seed=b"r", options={"rounds": rounds})
    assert table.view(None).game.rounds == int(rounds)
    events = random_game(table, 1)
    assert len(of_type(events, RoundScored)) == int(rounds)
    assert len(of_type(table.log, RoundStarted)) == int(rounds)


def test_vq_19_lowest_total_wins_and_ties_share_the_win() -> None:
    """VQ-19: seats 1 and 2 both went out (0 points): they share rank 1; then seat 0, then 3."""
    table, events = two_out(options={"rounds": "1"})
    assert events[-1] == GameEnded(TWO_OUT_PENALTIES, (3, 1, 1, 4))
    results = table.results()
    assert results is not None
    assert [(r.seat, r.score, r.rank) for r in results] == [
        (0, TWO_OUT_PENALTIES[0], 3),
        (1, 0, 1),
        (2, 0, 1),
        (3, TWO_OUT_PENALTIES[3], 4),
    ]


def test_vq_19_the_end_says_who_won_and_why() -> None:
    """VQ-19: the end event, the views and the summaries say why: the seats with the lowest
    total after the last round, in words, with the rule."""
    table, _events = two_out(options={"rounds": "1"})
    says_why(
        table,
        "VQ-19",
        "seat 1 and seat 2 share the win with the lowest total after the last round, "
        "0 penalty points",
    )


def test_vq_19_totals_add_up_over_rounds_and_the_game_then_refuses_commands() -> None:
    """VQ-19: the same round dealt twice gives twice the penalties; after the last round every
    command is refused as a precondition (game over) and nobody is pending."""
    table = new_table(TWO_OUT_HANDS, options={"rounds": "2"}, later=[TWO_OUT_HANDS])
    play(table, *TWO_OUT_MOVES)
    assert table.results() is None and table.pending() == (0,)
    events = play(table, *TWO_OUT_MOVES)
    doubled = tuple(2 * p for p in TWO_OUT_PENALTIES)
    assert of_type(events, RoundScored) == [RoundScored(2, TWO_OUT_PENALTIES, doubled)]
    assert events[-1] == GameEnded(doubled, (3, 1, 1, 4))
    assert table.pending() == ()
    assert table.view(None).game.turn is None
    for seat in range(4):
        assert table.legal_commands(seat) == []
        error = rejected(table, seat, Pass())
        assert (error.rule_id, error.kind) == ("VQ-19", "precondition")


# --- information ---------------------------------------------------------------------------------


def test_vq_20_each_player_sees_its_own_hand_and_public_counts() -> None:
    """VQ-20: a seat's view shows its own hand; every view (spectator included) shows each
    seat's card count and who holds each Hunter; the spectator sees no hand."""
    table = new_table(QUICK_HANDS)
    for seat, spec in enumerate(QUICK_HANDS):
        hunters = {0: (HUNTER_20,), 2: (HUNTER_15,)}.get(seat, ())
        assert table.view(seat).game.hand == (*values(spec), *hunters)
    views = [table.view(v).game for v in (0, 1, 2, None)]
    assert table.view(None).game.hand == ()
    assert {v.hand_sizes for v in views} == {(14, 13, 14)}
    assert {(v.hunter_15_holder, v.hunter_20_holder) for v in views} == {(2, 0)}
    assert table.view(None).legal_commands == ()


def test_vq_20_everybody_sees_where_a_hunter_went_and_the_new_counts() -> None:
    """VQ-20: after seat 1 takes the 20 Hunter every view shows it holding the 20 and 15 cards."""
    table = new_table(["1x8 4x5", "12 2x8 5x4", "3x8 6x5"])
    play(table, (0, LeadHunter(HUNTER_20)), (1, PlayCard(12)), (2, PlayCard(3)))
    for viewer in (0, 1, 2, None):
        view = table.view(viewer).game
        assert (view.hunter_15_holder, view.hunter_20_holder) == (2, 1)
        assert view.hand_sizes == (13, 15, 13)


def test_vq_21_other_seats_dealt_hands_are_redacted() -> None:
    """VQ-21: each seat sees its own HandDealt cards; other seats and spectators see only the
    count."""
    table = new_table(QUICK_HANDS)
    dealt = of_type(table.log, HandDealt)
    for viewer in (0, 1, 2, None):
        for event in dealt:
            seen = table.game.redact(event, viewer)
            assert (seen.seat, seen.count) == (event.seat, 13)
            assert seen.cards == (event.cards if viewer == event.seat else ())


def test_vq_21_plays_passes_and_trick_results_are_public() -> None:
    """VQ-21: every play, pass, skip and trick result, including the cards taken back into a
    hand in a Hunter trick, reaches every viewer unchanged."""
    table = skip_table()
    play(table, (0, LeadHunter(HUNTER_20)), (1, PlayCard(10)), (2, PlayCard(12)))
    public = [e for e in table.log if not isinstance(e, HandDealt)]
    assert {type(e) for e in public} >= {
        RoundStarted,
        SetPlayed,
        Passed,
        HunterLed,
        CardPlayed,
        Skipped,
        TrickWon,
    }
    for viewer in (0, 1, 2, 3, None):
        assert [table.game.redact(e, viewer) for e in public] == public
    taken = of_type(table.log, TrickWon)[-1]
    assert taken == TrickWon(2, True, (10, 12, HUNTER_20))


def test_vq_21_scores_are_public() -> None:
    """VQ-21: round scores and the game end reach every viewer unchanged."""
    table, _ = two_out(options={"rounds": "1"})
    for event in of_type(table.log, RoundScored) + of_type(table.log, GameEnded):
        for viewer in (0, 1, 2, 3, None):
            assert table.game.redact(event, viewer) == event


def test_vq_21_undealt_cards_are_seen_by_no_one_not_even_at_the_end() -> None:
    """VQ-21: with 3 players the 69 undealt cards (here all four queens and all 13s) appear in
    no event and no view, for any viewer, during the game or after it ends."""
    hands = ["1x8 2x5", "3x8 4x5", "5x8 6x5"]
    table = new_table(hands, options={"rounds": "1"})
    dealt = Counter(v for e in of_type(table.log, HandDealt) for v in e.cards)
    assert sum(dealt.values()) == 39
    assert QUEEN not in dealt and 13 not in dealt
    random_game(table, 21)
    assert table.results() is not None
    # VQ-19 ended the game (its last round was played): later commands are refused by it.
    for seat in range(3):
        rejection = rejected(table, seat, Pass())
        assert rejection.kind == "precondition" and rejection.rule_id == "VQ-19"
    card_fields = ("cards", "taken", "hand")
    value_fields = ("value", "best_value")
    for viewer in (0, 1, 2, None):
        seen = [table.game.redact(e, viewer) for e in table.log] + [table.view(viewer).game]
        for item in all_fields(seen):  # events, the view and the trick plays inside it
            if not is_dataclass(item):
                continue
            for name in card_fields:
                assert not {QUEEN, 13} & set(getattr(item, name, ())), item
            for name in value_fields:
                assert getattr(item, name, 0) not in (QUEEN, 13), item
            assert getattr(item, "queens", 0) == 0, item
        # No list anywhere is longer than all the cards in play (39 dealt + 2 Hunters).
        for value in all_fields(seen):
            if isinstance(value, tuple):
                assert len(value) <= 41


def test_vq_21_22_the_seed_and_the_shuffle_order_are_never_shown() -> None:
    """VQ-21/VQ-22: neither the seed nor the deck order is in any event or view: a dealt hand
    is sorted (not in deal order) and RoundStarted names only the shuffle's index."""
    seed = b"TOP-SECRET-SEED-0123456789"
    table = Table.create(GAME, 3, seed=seed, options={"rounds": "2"})
    random_game(table, 22)
    markers = ("TOP-SECRET", seed.hex(), repr(seed))
    for viewer in (0, 1, 2, None):
        texts = [repr(table.game.redact(e, viewer)) for e in table.log]
        texts.append(repr(table.view(viewer)))
        for text in texts:
            assert not any(marker in text for marker in markers)
            assert "FixedDeal" not in text and "GameConfig" not in text
    # Nor in the unredacted log (which the server stores beside the seed, not inside events).
    assert not any("TOP-SECRET" in repr(e) for e in table.log)
    for event in of_type(table.log, RoundStarted):
        assert isinstance(event.shuffle, int)
    for event in of_type(table.log, HandDealt):
        assert list(event.cards) == sorted(event.cards)


def test_vq_22_a_dealt_hand_does_not_reveal_the_deal_order() -> None:
    """VQ-22: seat 0's slice of the fixed deck is in descending order; its HandDealt and its
    view list the cards sorted, so the order of the shuffle is not shown."""
    descending = [str(v) for v in range(13, 0, -1)]
    table = new_table([" ".join(descending), "1x7 2x6", "3x6 4x7"])
    dealt = of_type(table.log, HandDealt)[0]
    assert dealt.cards == tuple(range(1, 14))
    assert table.view(0).game.hand == (*range(1, 14), HUNTER_20)
    deal_order = tuple(range(13, 0, -1))
    for viewer in (0, 1, 2, None):
        seen = [*table.redacted_log(viewer), table.view(viewer).game]
        assert deal_order not in all_fields(seen)


# --- legal commands: compact and complete -------------------------------------------------------


def test_legal_leads_are_compact_value_count_queens() -> None:
    """VQ-6/VQ-8/VQ-9: a lead is listed once per (value, count, queens): with two 5s, one 9 and
    two queens (and the 20) the leads are exactly these."""
    table = new_table(["5x2 9 Qx2 1x8", "2x8 6x5", "3x8 7x5"])
    legal = table.legal_commands(0)
    ones = {S(1, c + q, q) for c in range(1, 9) for q in range(3)}  # 1-8 ones + 0-2 queens
    fives = {S(5, c + q, q) for c in range(1, 3) for q in range(3)}
    nines = {S(9, 1 + q, q) for q in range(3)}
    others = {S(QUEEN, 1, 1), S(QUEEN, 2, 2), LeadHunter(HUNTER_20)}
    expected = ones | fives | nines | others
    assert len(expected) == 24 + 6 + 3 + 3
    assert len(legal) == len(set(legal))
    assert set(legal) == expected
    assert same_commands(legal, accepted_commands(table, 0))


def test_legal_follows_are_compact_value_count_queens() -> None:
    """VQ-7/VQ-9: following three 5s with two 8s, one 9 and two queens: pass, 8+8+Q, 8+Q+Q,
    9+Q+Q -- and no queens-only set (only two queens)."""
    table = new_table(["5x3 1x8 4x2", "8x2 9 Qx2 2x8", "3x8 6x5"])
    play(table, (0, S(5, 3)))
    legal = table.legal_commands(1)
    assert legal == [Pass(), S(8, 3, 1), S(8, 3, 2), S(9, 3, 2)]
    assert same_commands(legal, accepted_commands(table, 1))


def test_legal_commands_equal_what_decide_accepts_through_a_game() -> None:
    """Every state of a random game (leads, follows, Hunter answers, barred Hunters): a seat's
    legal list is exactly the commands of the command space that decide accepts."""
    for seed in range(3):
        table = Table.create(GAME, 3 + seed, seed=bytes([seed]), options={"rounds": "1"})
        rng = random.Random(seed)
        step = 0
        while table.results() is None:
            if step % 9 == 0:
                for seat in range(table.config.players):
                    assert same_commands(table.legal_commands(seat), accepted_commands(table, seat))
            seat = table.pending()[0]
            table.submit(seat, rng.choice(table.legal_commands(seat)))
            step += 1


def test_legal_commands_equal_decide_in_the_scenarios() -> None:
    """The same check at the hand-built states: barred Hunter, skip, Hunter answers."""
    table, _ = hunter_round("11")  # seat 1 barred from the 20
    states = [table]
    table = skip_table()
    states.append(table)
    table = new_table(["1x8 4x5", "2x6 7 Q 3x5", "12 5x8 6x4"])
    play(table, (0, LeadHunter(HUNTER_20)))
    states.append(table)
    for table in states:
        for seat in range(table.config.players):
            assert same_commands(table.legal_commands(seat), accepted_commands(table, seat))


def test_rejections_are_rejections_and_change_nothing() -> None:
    """Malformed commands (a foreign object) are refused with a Rejection, not a crash."""
    table = new_table(QUICK_HANDS)
    assert rejected(table, 0, "play a 5").kind == "illegal"
    play(table, (0, S(1)))
    assert rejected(table, 1, object()).kind == "illegal"


def test_hand_helper_builds_the_deck_it_is_asked_for() -> None:
    """(helper) build_deck deals the hands given and keeps the 108 cards."""
    deck = build_deck(3, QUICK_HANDS)
    assert sorted(deck) == sorted(DECK)
    assert Counter(deck[13:26]) == Counter(["12", *["13"] * 8, *["Q"] * 4])
    with pytest.raises(AssertionError):
        build_deck(3, ["1x9 2x4"])  # nine 1s
    with pytest.raises(AssertionError):
        build_deck(3, ["1x12"])  # 12 cards, the hand size is 13


def test_rejection_kinds_match_the_contract() -> None:
    """A rule broken is "illegal"; a command out of turn is "precondition"."""
    table = new_table(QUICK_HANDS)
    assert isinstance(rejected(table, 0, S(6)), Rejection)
    assert rejected(table, 0, S(6)).kind == "illegal"
    assert rejected(table, 1, Pass()).kind == "precondition"


# --- malformed commands in library mode (found by these tests, fixed in rules.py) ----------


@pytest.mark.parametrize("kind", ["follow", "answer"])
def test_malformed_values_are_rejected_not_a_crash(kind: str) -> None:
    """Contract: a malformed command is a Rejection ("illegal", INVALID_ARGUMENT), in
    library mode too. Leading PlaySet("9", 1, 0) is refused under VQ-8; following with it
    (or answering a Hunter with PlayCard("5")) raises TypeError from ``value <= best``."""
    table = new_table(["3 1x8 2x4", "5 2x4 4x8", "9 6x8 7x4"])
    assert rejected(table, 0, PlaySet("9", 1, 0)).kind == "illegal"  # type: ignore[arg-type]
    if kind == "follow":
        play(table, (0, S(3)))
        command: Any = PlaySet("9", 1, 0)  # type: ignore[arg-type]
    else:
        play(table, (0, LeadHunter(HUNTER_20)))
        command = PlayCard("5")  # type: ignore[arg-type]
    assert rejected(table, 1, command).kind == "illegal"


def test_vq_11_a_float_hunter_is_not_accepted() -> None:
    """Contract: malformed commands are refused; a float Hunter must not reach the event log."""
    table = new_table(QUICK_HANDS)
    rejected(table, 0, LeadHunter(20.0))  # type: ignore[arg-type]
