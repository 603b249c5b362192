"""referee_cli.render and referee_cli.screen: one renderer for every game, driven by the view.

Hand-built views of each game (tests/clients/*_views.py, as the server would send them) check
that the screen shows what a seat must see: the game's public state, the seat's hand, every
seat's row, whose move, and the legal moves with the labels the server sent. Real games on a
real server (tests/clients/test_games_screens.py) check the same on every screen of whole games,
and that each fits an 80x24 terminal.
"""

from __future__ import annotations

import doctest

from referee import codec
from referee.engine.labels import view_lines
from referee.v1 import referee_pb2, vampire_queen_pb2
from referee_cli import render, screen
from referee_cli.screen import GameInfo
from tests.clients import VQ, lead_hunter, make_view, pass_, play_set, trick_play
from tests.clients import dracula_views as dv
from tests.clients import mau_mau_views as mm
from tests.clients import sleeping_queens_views as sq

VQE = vampire_queen_pb2.VampireQueenEvent
VAMPIRE_QUEEN = GameInfo("Vampire Queen", frozenset({"rounds", "hunter_tie", "hunter_queen"}))


def test_doctests() -> None:
    assert doctest.testmod(render).failed == 0
    assert doctest.testmod(screen).failed == 0


def rows(text: str) -> dict[int, list[str]]:
    """The seat table's rows by seat: the words after ``seat N`` (and ``(you)``)."""
    found = {}
    for line in text.splitlines():
        words = line[2:].split()
        if line[:2] in ("  ", "> ") and words[:1] == ["seat"] and words[1].isdigit():
            found[int(words[1])] = [w for w in words[2:] if w != "(you)"]
    return found


def with_labels(view: referee_pb2.View, labels: list[str]) -> referee_pb2.View:
    assert len(labels) == len(view.legal_commands)
    view.legal_command_labels.extend(labels)
    return view


def test_vampire_queen_table_hand_and_trick() -> None:
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
        trick=[trick_play(1, VQ.PLAY_KIND_SET, 3, 2), trick_play(2, VQ.PLAY_KIND_SET, 8, 2, 1)],
        best_value=8,
        best_seat=2,
        round_=2,
    )
    view.decisions.add(seat=3, kind="follow", rule_id="VQ-8")
    text = render.render_view(view, VAMPIRE_QUEEN)
    lines = text.splitlines()
    assert lines[0] == "== Vampire Queen | game g1 | you are seat 0 =="
    assert lines[1] == "Waiting for seat 3 (follow, VQ-8)."
    assert "Your hand (8): 3 3 5 8 8 14 14 15" in lines
    table = rows(text)
    # hand sizes, barred hunters, last penalties, totals; the trick's plays by seat
    assert table[0] == ["8", "0", "5", "12"]
    assert table[1] == ["7", "set", "3", "count", "2", "20", "10", "30"]
    assert table[2] == ["10", "set", "8", "count", "2", "queens", "1", "0", "7", "7"]
    assert [line[:8] for line in lines if line[2:8] == "seat 3"] == ["> seat 3"], "whose move"
    facts = "\n".join(lines[next(i for i, line in enumerate(lines) if line.startswith("Round")) :])
    for fact in ("Round: 2", "Hunter 15 holder: 0", "Hunter 20 holder: 1", "Leader: 1"):
        assert fact in facts
    for fact in ("Turn: 3", "Trick kind: normal", "Lead count: 2", "Best value: 8", "Best seat: 2"):
        assert fact in facts
    assert "Hunter tie" not in text and "Rounds" not in text, "options are not state"
    assert all(len(line) <= 80 for line in lines)


def test_a_spectator_sees_no_hand_and_the_seats_to_move() -> None:
    view = make_view(
        seat=None,
        leader=1,
        turn=3,
        trick_kind=VQ.TRICK_KIND_HUNTER,
        trick=[trick_play(1, VQ.PLAY_KIND_HUNTER, 20, 1), trick_play(2, VQ.PLAY_KIND_CARD, 9, 1)],
        best_value=9,
        best_seat=2,
    )
    text = render.render_view(view)
    assert "| spectator ==" in text.splitlines()[0]
    assert "vampire-queen" in text.splitlines()[0], "without ListGameTypes: the type id"
    assert "Your hand" not in text and "(you)" not in text
    assert rows(text)[1][1:4] == ["hunter", "20", "count"]
    assert "Trick kind: hunter" in text and "Hunter tie: first" in text


def test_your_move_and_the_menu_with_the_servers_labels() -> None:
    legal = [play_set(8, 2), play_set(8, 3, 1), pass_()]
    labels = ["play two 8s", "play three 8s using one queen", "pass"]
    view = with_labels(make_view(seat=2, turn=2, leader=2, legal=legal), labels)
    view.decisions.add(seat=2, kind="lead", rule_id="VQ-6")
    assert "Deciding: you (lead, VQ-6)." in render.render_view(view)
    assert render.render_menu(view).splitlines() == [
        "1) play two 8s",
        "2) play three 8s using one queen",
        "3) pass",
    ]
    shown = render.screen(view)
    assert shown.groups is None and shown.menu == labels


def test_a_command_without_a_label_is_shown_as_its_fields() -> None:
    view = make_view(seat=0, legal=[lead_hunter(20)])
    assert render.menu_texts(view) == ["vampire_queen { lead_hunter { hunter: 20 } }"]


def test_game_over_shows_the_final_standings_best_first() -> None:
    view = make_view(
        seat=1,
        game_over=True,
        totals=[40, 12, 12, 90],
        results=[(0, 40, 3), (1, 12, 1), (2, 12, 1), (3, 90, 4)],
    )
    lines = render.render_view(view).splitlines()
    assert lines[1] == "Game over."
    assert lines[-2:] == [
        "Final standings: 1. seat 1 (you) (12)   1. seat 2 (12)   3. seat 0 (40)",
        "  4. seat 3 (90)",
    ]


def test_events_are_the_servers_lines() -> None:
    event = referee_pb2.Event(sequence=7, description="seat 1 leads two 3s")
    event.vampire_queen.set_played.CopyFrom(VQE.SetPlayed(seat=1, value=3, count=2))
    assert render.describe_event(event) == "seat 1 leads two 3s"
    bare = referee_pb2.Event(sequence=8)
    bare.vampire_queen.passed.seat = 3
    assert render.describe_event(bare) == "sequence: 8 vampire_queen { passed { seat: 3 } }"


def test_dracula_racks_districts_track_and_the_drawn_card() -> None:
    view = dv.make_view(
        seat=0,
        dracula=0,
        mine=("R7", "R4", "B6", "R2", "P2"),
        theirs=("P1", "??", "??", "??", "??"),
        theirs_revealed=(1,),
        mine_known=(2,),
        track_letters="PBYR",
        step=dv.DVV.STEP_PLACE,
        drawn="B5",
        discard=("B1", "Y4", "R3"),
        deck_size=19,
        hp=11,
        vampires=(0, 1, 0, 2, 0),
    )
    text = render.render_view(view)
    assert "Your hand" not in text, "a game without a hand field has no hand line"
    assert rows(text)[0][0] == "dracula" and rows(text)[1][:2] == ["van", "helsing"]
    assert "seat 0: 1: red 7, 2: red 4 known to opponent, 3: blue 6, 4: red 2, 5: purple 2" in (
        " ".join(text.split())
    )
    flat = " ".join(text.split())
    assert "seat 1: 1: purple 1 revealed known to opponent, 2: ?, 3: ?, 4: ?, 5: ?" in flat
    assert "Districts: 1: humans 4, 2: humans 3 vampires 1, 3: humans 4," in flat
    assert "Track: purple blue yellow red" in flat and "Hp: 11" in flat
    assert "Drawn: blue 5" in flat and "Deck size: 19" in flat
    assert "Discard pile: blue 1, yellow 4, red 3" in flat
    assert "Step: place" in flat


def test_sleeping_queens_positions_awake_queens_and_hand() -> None:
    view = sq.make_view(
        seat=1,
        players=3,
        hand=[sq.KING, 3, sq.DRAGON, 10, 3],
        awake={0: [sq.SQ.QUEEN_ROSE], 2: [sq.SQ.QUEEN_CAT, sq.SQ.QUEEN_HEART]},
        empty=[3, 7, 8],
        known={5: sq.SQ.QUEEN_MOON},
        discard_pile=[4, sq.POTION],
        draw_pile=31,
        turn=1,
    )
    text = render.render_view(view, GameInfo("Sleeping Queens", frozenset({"knight_cat_dog"})))
    assert "Your hand (5): 3 3 10 king dragon" in text
    table = rows(text)
    assert table[0][1:] == ["rose", "5"] and table[2][1:] == ["cat", "heart", "35"]
    assert table[1] == ["5"], "seat 1 has no queen awake"
    flat = " ".join(text.split())
    assert "Positions: 0: asleep, 1: asleep, 2: asleep, 3: -, 4: asleep, 5: asleep moon," in flat
    assert "7: -, 8: -, 9: asleep" in flat
    assert "Draw pile size: 31" in flat and "Discard pile: 4 potion" in flat
    assert "Knight cat dog" not in flat, "an option"


def test_mau_mau_hand_top_card_characters_and_scores() -> None:
    view = mm.make_view(
        seat=0,
        players=3,
        hand="R1 R3 B11 CLOCK",
        hand_sizes=[4, 6, 2],
        top="G5",
        night=True,
        clocks=1,
        totals=[10, 3, 8],
    )
    text = render.render_view(view)
    assert "Your hand (4): mau mau red 1 mau mau red 3 mau mau blue 11 clock" in text
    table = rows(text)
    assert [row[1] for row in table.values()] == ["4", "6", "2"]  # after "playing"
    flat = " ".join(text.split())
    assert "Top: mau mau green 5" in flat and "Night: yes" in flat and "Clocks: 1" in flat
    names = [c.name for c in view.mau_mau_vampires.characters]
    assert all(name in flat for name in names), "every seat's character"
    assert [row[2] for row in table.values()] == ["10", "3", "8"]  # totals


def test_long_menus_go_in_columns_then_in_two_steps() -> None:
    texts = [f"play {n}" for n in range(1, 12)]
    assert render.menu_height(texts) == 4  # three columns
    wide = [f"put the Heart Queen (20) to sleep at position {n}" for n in range(12)]
    assert render.menu_height(wide) == 12, "too wide for two columns"
    legal = [play_set(v, c) for v in (3, 8, 9) for c in (1, 2, 3, 4)] + [lead_hunter(20)]
    labels = [f"play {c} {v}s" for v in (3, 8, 9) for c in (1, 2, 3, 4)] + ["lead the 20 Hunter"]
    view = with_labels(make_view(seat=0, legal=legal), labels)
    groups = render.menu_groups(view, room=4)
    assert groups == [
        ("play 1 3s ... (4 ways)", [0, 1, 2, 3]),
        ("play 1 8s ... (4 ways)", [4, 5, 6, 7]),
        ("play 1 9s ... (4 ways)", [8, 9, 10, 11]),
        ("lead the 20 Hunter", [12]),
    ]
    assert render.menu_groups(view, room=13) is None, "it fits: one step"
    coarse = render.menu_groups(view, room=2)
    assert coarse == [("play 1 3s ... (12 ways)", list(range(12))), ("lead the 20 Hunter", [12])]


def test_a_spectator_redraws_after_a_batch_of_several_events() -> None:
    end = referee_pb2.Event(sequence=30, batch_end_sequence=30)
    assert render.redraw_for_spectator(end, render.REDRAW_BATCH)
    assert not render.redraw_for_spectator(end, 1), "a single move"
    assert not render.redraw_for_spectator(referee_pb2.Event(sequence=29, batch_end_sequence=30), 5)


def with_lines(view: referee_pb2.View) -> referee_pb2.View:
    """The view with the lines the server adds (``View.view_lines``): the game's own words for
    the view, written from the view the seat receives."""
    lines = view_lines(view.game_type, codec.view_from_proto(view).game)
    assert lines, "the game writes lines of its view"
    view.view_lines.extend(lines)
    return view


def test_the_games_lines_stand_for_the_hand_and_facts_seats_stay() -> None:
    view = with_lines(
        make_view(seat=0, hand=[3, 8, 14, 14, 15], hand_sizes=[5, 7, 10, 9], totals=[12, 30, 7, 0])
    )
    text = render.render_view(view, VAMPIRE_QUEEN)
    lines = text.splitlines()
    # VQ-1: 14 is a Vampire Queen (Q), 15 the 15 Hunter (H15), as in the menu's labels.
    assert "your hand: 3 8 Q Q H15" in lines
    assert "Your hand (5)" not in text and "Round: " not in text, "no raw field dump"
    assert sorted(rows(text)) == list(range(view.players)), "the seat table stays"
    assert [row[0] for row in rows(text).values()][:3] == ["5", "7", "10"]  # hand sizes
    assert all(line in lines for line in view.view_lines)


def test_mm_4_the_top_card_and_hand_by_colour_and_symbol_name() -> None:
    view = with_lines(mm.make_view(seat=0, players=3, hand="R1 B8 CLOCK", top="B8"))
    flat = " ".join(render.render_view(view).split())
    # MM-4: symbol 1 is the skull, 8 the garlic (the names the command labels use).
    assert "top card: blue garlic" in flat and "your hand: red skull; blue garlic; a Clock" in flat
    assert "mau mau blue 8" not in flat


def test_the_games_lines_are_cut_to_the_room_left_said_so() -> None:
    view = make_view(seat=0, hand=[3], hand_sizes=[1, 1, 1])
    view.view_lines.extend(f"line {n}" for n in range(8))
    lines = render.render_view(view, VAMPIRE_QUEEN, room=10).splitlines()
    assert len(lines) == 10 and lines[-1] == "..."
    shown = [line for line in lines if line.startswith("line ")]
    assert shown and shown == [f"line {n}" for n in range(len(shown))], "from the top"
    assert lines.index(shown[-1]) == len(lines) - 2, "the rest cut, said so"


def test_a_seat_that_left_is_shown_so_and_the_referee_is_to_move() -> None:
    """A seat that resigned (or forfeited, was abandoned) is named so while the game runs and
    in the final standings, which are the referee's ranks."""
    view = make_view(seat=1, totals=[40, 12, 12, 90])
    view.ClearField("pending_seats")
    del view.decisions[:]
    view.referee_to_move = True
    view.seats_left.add(seat=3, end=referee_pb2.SEAT_END_RESIGNED, rule_id="RESIGNED")
    text = render.render_view(view)
    assert "the referee, for a seat that left the game" in text
    assert "Left the game: seat 3 resigned" in text
    over = make_view(
        seat=1,
        game_over=True,
        totals=[40, 12, 12, 90],
        results=[(0, 40, 2), (1, 12, 1), (2, 12, 3), (3, 90, 4)],
    )
    over.results[3].end = referee_pb2.SEAT_END_ABANDONED
    assert "4. seat 3 (90, abandoned)" in render.render_view(over)


def test_the_lobbys_seats_say_who_is_online_and_hide_a_rated_games_players() -> None:
    from referee_cli.player import holders_text

    game = referee_pb2.GameSummary(players=3)
    game.seat_holders.add(seat=0, state=referee_pb2.SEAT_STATE_HELD, player="ann", online=True)
    game.seat_holders.add(seat=1, state=referee_pb2.SEAT_STATE_RESERVED, hidden=True)
    game.seat_holders.add(seat=2, state=referee_pb2.SEAT_STATE_OPEN)
    assert holders_text(game) == "ann (online), (hidden), (open)"
