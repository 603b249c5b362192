"""referee_cli.render_dracula: Dracula vs Van Helsing views, events and commands as text, from
hand-built proto messages (through the dispatch of referee_cli.render)."""

from __future__ import annotations

import doctest

from referee_cli import render, render_dracula
from tests.clients.dracula_views import (
    DV,
    DVE,
    DVV,
    call_end,
    card,
    cards,
    discard_drawn,
    draw,
    event,
    exchange,
    make_view,
    place,
    resolved,
    reveal_opponent,
    reveal_own,
    swap,
    track,
    trump,
)


def test_doctests() -> None:
    assert doctest.testmod(render_dracula).failed == 0


def test_dispatch_by_game_type() -> None:
    assert render.game_text("dracula-vs-van-helsing") is render_dracula.TEXT
    assert render.game_text(field="dracula_vs_van_helsing") is render_dracula.TEXT
    assert render.describe_command(draw()) == "draw a card"


def test_cards_and_track() -> None:
    assert render_dracula.card(card("P8")) == "P8"
    assert render_dracula.card(card("??")) == "??"
    assert render_dracula.describe_track(track("BRYP")) == "Blue (trump) > Red > Yellow > Purple"
    assert render_dracula.new_track(track("RPYB"), DV.COLOUR_YELLOW) == track("YPRB")


def test_turn_and_place_commands_in_words() -> None:
    view = make_view(
        step=DVV.STEP_PLACE,
        drawn="B7",
        mine=("R1", "R2", "Y7", "Y3", "B8"),
        legal=[discard_drawn(), *[place(d) for d in range(1, 6)]],
    )
    menu = render.render_menu(view).splitlines()
    assert menu[0] == "1) discard the drawn card (B7: choose the new trump)"
    assert menu[1] == "2) place it in district 1 (discarding R1: reveal one of your cards)"
    assert menu[3] == "4) place it in district 3 (discarding Y7: choose the new trump)"
    assert menu[5] == "6) place it in district 5 (discarding B8: end the round)"
    assert render.describe_command(draw()) == "draw a card"
    assert render.describe_command(call_end()) == (
        "call the end of the round (the opponent takes one last turn)"
    )
    assert render.describe_command(discard_drawn()) == "discard the drawn card"
    assert render.describe_command(place(3)) == "place it in district 3"


def test_effect_commands_in_words() -> None:
    view = make_view(
        mine=("R1", "R2", "Y7", "Y3", "B8"),
        theirs=("??", "P5", "??", "??", "??"),
        theirs_known=(2,),
        track_letters="RPYB",
    )
    d = render.describe_command
    assert d(reveal_own(2), view) == "reveal your card in district 2 (R2)"
    assert d(reveal_opponent(4), view) == "reveal the opponent's card in district 4"
    assert d(swap(1, 3), view) == "swap your cards in districts 1 and 3 (R1 <-> Y7)"
    assert d(exchange(2), view) == "exchange the cards of district 2 (give R2, take P5)"
    assert d(exchange(1), view) == "exchange the cards of district 1 (give R1, take ??)"
    assert d(trump("B"), view) == "make Blue trump (Blue (trump) > Purple > Yellow > Red)"
    assert d(trump("Y")) == "make Yellow trump"


def test_events_in_one_line() -> None:
    view = make_view(seat=0, dracula=1)
    d = render.describe_event
    started = DVE.GameStarted(
        dracula=1,
        van_helsing=0,
        dracula_picked=True,
        track=track("RPYB"),
        resolution_order=[1, 2, 3, 4, 5],
    )
    assert d(event(game_started=started), view, 0) == (
        "--- Dracula: seat 1, drawn at random; Van Helsing: seat 0 (you); "
        "track Red (trump) > Purple > Yellow > Blue"
    )
    reversed_order = DVE.GameStarted(
        dracula=0, van_helsing=1, track=track("RPYB"), resolution_order=[5, 4, 3, 2, 1]
    )
    line = str(d(event(game_started=reversed_order)))
    assert line.endswith("; districts resolved 5 > 4 > 3 > 2 > 1")
    assert d(event(round_started=DVE.RoundStarted(round=2, deck_size=22)), view, 0) == (
        "--- round 2 of 5: 5 cards each, 22 in the deck"
    )
    mine = DVE.SlotsDealt(seat=0, cards=cards(["R1", "R2", "Y7", "Y3", "B8"]))
    assert d(event(slots_dealt=mine), view, 0) == "you are dealt (districts 1-5): R1 R2 Y7 Y3 B8"
    assert d(event(slots_dealt=DVE.SlotsDealt(seat=1)), view, 0) is None
    assert d(event(turn_started=DVE.TurnStarted(seat=1, kind=DV.TURN_KIND_NORMAL)), view, 0) is None
    assert d(event(turn_started=DVE.TurnStarted(seat=1, kind=DV.TURN_KIND_EXTRA)), view, 0) == (
        "Dracula (seat 1) takes another turn (a 5)"
    )
    assert d(event(turn_started=DVE.TurnStarted(seat=0, kind=DV.TURN_KIND_LAST)), view, 0) == (
        "Van Helsing (you) takes the last turn of the round"
    )
    assert d(event(end_called=DVE.EndCalled(seat=1)), view, 0) == (
        "Dracula (seat 1) calls the end of the round"
    )


def test_draws_placements_and_discards() -> None:
    view = make_view(seat=0, dracula=1)
    d = render.describe_event
    assert d(event(card_drawn=DVE.CardDrawn(seat=1, deck_size=21)), view, 0) == (
        "Dracula (seat 1) draws a card (21 left)"
    )
    assert d(event(card_drawn=DVE.CardDrawn(seat=0, card=card("Y5"), deck_size=20)), view, 0) == (
        "Van Helsing (you) draws Y5 (20 left)"
    )
    face_up = DVE.CardDrawn(seat=1, card=card("R1"), revealed=True, deck_size=18)
    assert (
        d(event(card_drawn=face_up), view, 0) == "Dracula (seat 1) draws the face-up R1 (18 left)"
    )
    discarded = DVE.DrawnCardDiscarded(seat=1, card=card("Y4"))
    assert d(event(drawn_card_discarded=discarded), view, 0) == (
        "Dracula (seat 1) discards the drawn card: Y4"
    )
    hidden = DVE.DrawnCardPlaced(seat=1, district=4, discarded=card("B3"))
    assert d(event(drawn_card_placed=hidden), view, 0) == (
        "Dracula (seat 1) places it in district 4 and discards B3"
    )
    own = DVE.DrawnCardPlaced(seat=0, district=3, card=card("Y5"), discarded=card("Y7"))
    assert d(event(drawn_card_placed=own), view, 0) == (
        "Van Helsing (you) places Y5 in district 3 and discards Y7"
    )
    # without a view the roles are unknown: seats only
    assert d(event(end_called=DVE.EndCalled(seat=1))) == "seat 1 calls the end of the round"


def test_effect_events() -> None:
    view = make_view(seat=0, dracula=1)
    d = render.describe_event
    own = DVE.CardRevealed(seat=1, owner=1, district=1, card=card("R1"))
    assert d(event(card_revealed=own), view, 0) == (
        "Dracula (seat 1) reveals own card in district 1: R1"
    )
    yours = DVE.CardRevealed(seat=1, owner=0, district=4, card=card("Y6"))
    assert d(event(card_revealed=yours), view, 0) == (
        "Dracula (seat 1) reveals your card in district 4: Y6"
    )
    theirs = DVE.CardRevealed(seat=0, owner=1, district=2, card=card("B3"))
    assert d(event(card_revealed=theirs), view, 0) == (
        "Van Helsing (you) reveals Dracula (seat 1)'s card in district 2: B3"
    )
    top = DVE.DeckTopRevealed(seat=1, card=card("R1"))
    assert d(event(deck_top_revealed=top), view, 0) == (
        "Dracula (seat 1) reveals the deck's top card: R1"
    )
    swapped = DVE.SlotsSwapped(seat=1, first=3, second=4)
    assert d(event(slots_swapped=swapped), view, 0) == (
        "Dracula (seat 1) swaps own cards of districts 3 and 4"
    )
    exchanged = DVE.DistrictExchanged(seat=0, district=5, given=card("R6"), taken=card("Y8"))
    assert d(event(district_exchanged=exchanged), view, 0) == (
        "Van Helsing (you) exchanges the cards of district 5: gives R6, takes Y8"
    )
    unseen = DVE.DistrictExchanged(seat=0, district=5)  # a spectator sees neither card
    assert d(event(district_exchanged=unseen), view, None) == (
        "Van Helsing (seat 0) exchanges the cards of district 5"
    )
    changed = DVE.TrumpChanged(seat=1, colour=DV.COLOUR_YELLOW, track=track("YPRB"))
    assert d(event(trump_changed=changed), view, 0) == (
        "Dracula (seat 1) makes Yellow trump: Yellow (trump) > Purple > Red > Blue"
    )
    skipped = DVE.EffectSkipped(seat=1, effect=2, reason="the deck is empty")
    assert d(event(effect_skipped=skipped), view, 0) == (
        "the 2's effect is skipped: the deck is empty"
    )


def test_round_resolution_and_game_end() -> None:
    view = make_view(seat=0, dracula=1)
    d = render.describe_event
    ended = DVE.RoundEnded(
        round=1,
        reason=DV.ROUND_END_CALL,
        dracula_cards=cards(["R4", "B2", "R7", "Y6", "R8"]),
        van_helsing_cards=cards(["R1", "R2", "P6", "Y8", "B8"]),
    )
    assert d(event(round_ended=ended), view, 0) == (
        "--- round 1 ends (the end was called): Dracula R4 B2 R7 Y6 R8 | Van Helsing R1 R2 P6 Y8 B8"
    )
    eight = DVE.RoundEnded(round=2, reason=DV.ROUND_END_EIGHT)
    assert "(an 8 was discarded)" in str(d(event(round_ended=eight)))
    empty = DVE.RoundEnded(round=2, reason=DV.ROUND_END_DECK_EMPTY)
    assert "(the deck ran out)" in str(d(event(round_ended=empty)))
    vampire = resolved(1, "R4", "R1", DV.ROLE_DRACULA, DV.COMPARISON_VALUE, 3, 1, 12)
    assert d(event(district_resolved=vampire), view, 0) == (
        "district 1: Dracula's R4 beats R1 (higher value): a human becomes a vampire "
        "(3 humans, 1 vampire)"
    )
    hp = resolved(2, "B2", "R2", DV.ROLE_VAN_HELSING, DV.COMPARISON_TRUMP, 4, 0, 11)
    assert d(event(district_resolved=hp), view, 0) == (
        "district 2: Van Helsing's R2 beats B2 (trump): Dracula loses 1 HP (11 left)"
    )
    ladder = resolved(3, "B4", "P4", DV.ROLE_VAN_HELSING, DV.COMPARISON_LADDER, 4, 0, 10)
    assert "(same value, higher colour)" in str(d(event(district_resolved=ladder)))
    won = DVE.GameEnded(
        winner=DV.ROLE_DRACULA,
        winner_seat=1,
        reason=DV.GAME_END_VAMPIRES,
        round=4,
        district=1,
        hp=3,
    )
    assert d(event(game_ended=won), view, 0) == (
        "--- game over: Dracula (seat 1) wins: all 4 humans of district 1 are vampires"
    )
    drained = DVE.GameEnded(winner=DV.ROLE_VAN_HELSING, winner_seat=0, reason=DV.GAME_END_NO_HP)
    assert d(event(game_ended=drained), view, 0) == (
        "--- game over: Van Helsing (you) wins: Dracula has no HP left"
    )
    survived = DVE.GameEnded(
        winner=DV.ROLE_DRACULA, winner_seat=1, reason=DV.GAME_END_ROUNDS, round=5, hp=2
    )
    assert d(event(game_ended=survived), view, 0) == (
        "--- game over: Dracula (seat 1) wins: Dracula survived round 5 with 2 HP"
    )


def rows(text: str) -> dict[str, list[str]]:
    """The table rows of a screen by label: the cells of districts 1-5."""
    table: dict[str, list[str]] = {}
    for line in text.splitlines():
        if len(line) > 20 and line[20:].split() and not line.startswith(("==", "Track")):
            table[line[:20].strip()] = line[20:].split()
    return table


def test_view_of_own_turn_with_a_drawn_card() -> None:
    view = make_view(
        seat=0,
        dracula=1,
        mine=("R1", "R2", "Y5", "Y3", "B8"),
        mine_revealed=(1,),
        mine_known=(4,),
        theirs=("??", "??", "R7", "??", "Y6"),
        theirs_revealed=(3,),
        theirs_known=(5,),
        step=DVV.STEP_PLACE,
        drawn="B7",
        discard=("B3", "Y7", "Y4", "Y3"),
        deck_size=18,
        deck_top="R1",
        hp=10,
        vampires=(1, 0, 1, 0, 1),
        round_=2,
        legal=[discard_drawn(), place(1)],
    )
    text = render.render_view(view)
    lines = text.splitlines()
    assert lines[0] == (
        "== Dracula vs Van Helsing | game g2 | round 2/5 | you are seat 0, Van Helsing =="
    )
    assert "Your turn: discard the drawn card or place it in a district." in text
    assert "Track: Red (trump) > Purple > Yellow > Blue   Dracula: 10 HP" in text
    table = rows(text)
    assert table[""] == ["d1", "d2", "d3", "d4", "d5"]
    assert table["Dracula (seat 1)"] == ["??", "??", "R7*", "??", "Y6+"]
    assert table["humans/vampires"] == ["3/1", "4/0", "3/1", "4/0", "3/1"]
    assert table["Van Helsing (you)"] == ["R1*", "R2", "Y5", "Y3+", "B8"]
    # the opponent on top, you at the bottom
    assert text.index("Dracula (seat 1)") < text.index("humans/vampires") < text.index("(you)  ")
    assert "Discard pile (4): B3 Y7 Y4 Y3" in text
    assert "Deck: 18 cards, top card face up: R1" in text
    assert "You drew B7." in text


def test_view_of_the_other_seat_deciding() -> None:
    view = make_view(seat=0, dracula=1, turn=1, step=DVV.STEP_CHOOSE_TRUMP, effect=7)
    assert "Dracula (seat 1) to play: the discarded 7's effect: choose the new trump." in (
        render.render_view(view)
    )
    view = make_view(seat=0, dracula=1, turn=1, step=DVV.STEP_REVEAL_OPPONENT, effect=3)
    assert "the discarded 3's effect: reveal one of their opponent's cards." in (
        render.render_view(view)
    )
    view = make_view(seat=1, dracula=1, turn=1, step=DVV.STEP_SWAP_SLOTS, effect=4)
    assert "Your turn: the discarded 4's effect: swap two of your cards." in render.render_view(
        view
    )
    extra = make_view(seat=0, turn=0, turn_kind=DV.TURN_KIND_EXTRA, discard=["Y1"] * 6)
    assert "Your turn (another turn: a 5): draw a card or call the end." in render.render_view(
        extra
    )
    early = make_view(seat=0, turn=0, discard=["Y1"] * 5)
    assert "Your turn: draw a card." in render.render_view(early)
    last = make_view(seat=0, turn=0, turn_kind=DV.TURN_KIND_LAST, called_by=1, discard=["Y1"] * 7)
    text = render.render_view(last)
    assert "Your turn: draw a card (last turn of the round)." in text
    assert "Dracula (seat 1) called the end of the round." in text
    # another seat's drawn card is not shown unless a 2 revealed it
    hidden = make_view(seat=0, turn=1, step=DVV.STEP_PLACE)
    assert "drew" not in render.render_view(hidden)
    face_up = make_view(seat=0, turn=1, step=DVV.STEP_PLACE, drawn="R1", drawn_revealed=True)
    assert "The drawn card is face up: R1." in render.render_view(face_up)


def test_view_for_a_spectator_and_the_last_round() -> None:
    view = make_view(
        seat=None,
        dracula=1,
        mine=("??", "??", "??", "??", "??"),
        theirs=("??", "B4", "??", "??", "??"),
        theirs_revealed=(2,),
        turn=1,
        round_=2,
        hp=11,
        last_round_end=DV.ROUND_END_EIGHT,
        last_resolution=[
            resolved(1, "R4", "R1", DV.ROLE_DRACULA, DV.COMPARISON_VALUE, 3, 1, 12),
            resolved(2, "B2", "R2", DV.ROLE_VAN_HELSING, DV.COMPARISON_TRUMP, 4, 0, 11),
        ],
        resolution_order=(5, 4, 3, 2, 1),
    )
    text = render.render_view(view)
    assert "| spectator ==" in text
    assert "districts resolved 5 > 4 > 3 > 2 > 1" in text
    table = rows(text)
    assert table["Dracula (seat 1)"] == ["??", "B4*", "??", "??", "??"]
    assert table["Van Helsing (seat 0)"] == ["??"] * 5
    assert text.index("Dracula (seat 1)  ") < text.index("Van Helsing (seat 0)  ")
    assert "Last round's resolution (an 8 was discarded):" in text
    assert "  district 2: Van Helsing's R2 beats B2 (trump): Dracula loses 1 HP (11 left)" in text
    assert "Dracula (seat 1) to play: draw a card." in text
    assert "Discard pile (0): empty" in text


def test_game_over_view() -> None:
    view = make_view(
        seat=1,
        dracula=1,
        game_over=True,
        winner=DV.ROLE_DRACULA,
        turn=None,
        round_=4,
        last_round_end=DV.ROUND_END_CALL,
        last_resolution=[resolved(1, "B8", "Y5", DV.ROLE_DRACULA, DV.COMPARISON_VALUE, 0, 4, 3)],
    )
    text = render.render_view(view)
    assert "Game over: Dracula (you) wins." in text
    assert "Round 4's resolution (the end was called):" in text
    assert "(0 humans, 4 vampires)" in text
    assert text.endswith("Winner: Dracula (you)")
    assert "to play" not in text and "Your turn" not in text


def test_spectator_redraws_at_each_new_round() -> None:
    view = make_view(seat=None)
    assert render.redraw_for_spectator(event(round_started=DVE.RoundStarted(round=2)), view)
    assert not render.redraw_for_spectator(event(round_started=DVE.RoundStarted(round=1)), view)
    assert not render.redraw_for_spectator(event(end_called=DVE.EndCalled(seat=1)), view)
