"""referee_cli.render_mau_mau: Mau Mau Vampires views, events and commands as text, from
hand-built proto messages (through the dispatch of referee_cli.render)."""

from __future__ import annotations

import doctest

import pytest

from referee.v1 import referee_pb2
from referee_cli import render, render_mau_mau
from tests.clients.mau_mau_views import (
    BLUE,
    GREEN,
    MAU,
    MAU_MAU,
    MM,
    MME,
    MMV,
    PURPLE,
    RED,
    SYMBOLS,
    call,
    card,
    cards,
    decline,
    draw,
    end_turn,
    event,
    give,
    hand_score,
    make_view,
    no_wish,
    play,
    set_aside,
    share,
    show,
    swap,
    use,
    wish,
)


def test_doctests() -> None:
    assert doctest.testmod(render_mau_mau).failed == 0


def test_registered_for_views_events_and_commands() -> None:
    assert render.GAMES["mau-mau-vampires"] is render_mau_mau.TEXT
    assert render.game_text(field="mau_mau_vampires") is render_mau_mau.TEXT
    view = make_view(legal=[draw()])
    assert render.render_view(view).startswith("== Mau Mau Vampires | game g4 | hand 1/5 |")
    assert render.render_menu(view) == "1) draw a card"


def test_cards_and_hands() -> None:
    r = render_mau_mau
    assert r.card(card("R1"), SYMBOLS) == "red skull"
    assert r.card(card("P11"), SYMBOLS) == "purple candle"
    assert r.card(card("G9")) == "green S9"  # no names without a view
    assert r.card(card("CLOCK")) == "Clock"
    assert r.card(card("WOLF")) == "Werewolf"
    assert r.card(card("?")) == "?"
    assert r.a_card(card("WOLF")) == "a Werewolf"
    assert r.a_card(card("?")) == "a card"
    assert r.short(card("B7"), SYMBOLS) == "B:bat"
    assert r.short(card("WOLF")) == "Wolf"
    hand = cards("WOLF P3 R9 CLOCK R1 B2 CLOCK")
    assert r.format_hand(hand, SYMBOLS) == (
        "red: skull, blood | blue: coffin | purple: spider | 2 Clocks, Werewolf"
    )
    assert r.format_hand([]) == "(empty)"
    assert r.list_cards(cards("R1 CLOCK"), SYMBOLS) == "red skull and a Clock"


def test_turn_commands_with_announcements() -> None:
    two = make_view(hand="R1 B5", hand_sizes=[2, 4, 2], top="B9")
    d = render.describe_command
    assert d(draw(), two) == "draw a card"
    assert d(play("B5", MAU), two) == "play blue stake and say Mau"
    assert d(play("B5"), two) == "play blue stake without saying Mau (1 penalty card)"
    one = make_view(hand="B5", hand_sizes=[1, 4, 2])
    assert d(play("B5", MAU_MAU), one) == "play blue stake and say Mau Mau"
    assert d(play("B5"), one) == "play blue stake without saying Mau Mau (2 penalty cards)"
    many = make_view(hand="R1 B5 G5", hand_sizes=[3, 4, 2])
    assert d(play("G5"), many) == "play green stake"
    auto = make_view(hand="B5 G5", hand_sizes=[2, 4, 2], announcements="auto")
    assert d(play("B5"), auto) == "play blue stake (the referee says Mau)"
    assert d(play("B5")) == "play blue S5"  # no view: no names, no announcement owed


def test_a_play_names_the_ability_it_triggers() -> None:
    # seat 0 is The Count (C1): by day skull/coffin give left; by night garlic bites, green gifts
    day = make_view(hand="R1 G8 R4", hand_sizes=[3, 4, 2], characters=("C1", "C2", "C3"))
    d = render.describe_command
    assert d(play("R1"), day) == (
        "play red skull [triggers (a) give 1 card to the left neighbour, who may wish]"
    )
    assert d(play("R4"), day) == "play red tombstone"
    night = make_view(hand="G8 R4 B1", night=True, characters=("C1", "C2", "C3"))
    assert d(play("G8"), night) == (
        "play green garlic [triggers bite: the left neighbour draws 2; "
        "gift: give 1 card to another player]"
    )
    wolf = make_view(hand="R1 R4 R5", characters=("C1", "C2", "C3"), werewolf_seat=0)
    assert d(play("R1"), wolf) == "play red skull"  # a werewolf: no abilities (MM-11)


def test_special_cards_in_words() -> None:
    d = render.describe_command
    view = make_view(hand="R1 CLOCK WOLF", hand_sizes=[3, 4, 2], clocks=1, werewolf_seat=1)
    assert d(play("CLOCK"), view) == "play a Clock (clock 2 of 3)"
    assert d(play("WOLF", werewolf=2), view) == (
        "play a Werewolf on seat 2's The Baron (replaces the werewolf on seat 1's The Countess, "
        "you may wish)"
    )
    assert d(play("WOLF", werewolf=0), view).startswith("play a Werewolf on your The Count")
    turning = make_view(hand="R1 CLOCK", hand_sizes=[2, 4, 2], clocks=2, pot_size=3)
    assert d(play("CLOCK", MAU), turning) == (
        "play a Clock and say Mau (it turns night: every character turns, you may wish; "
        "you take the 3 pot cards)"
    )
    last = make_view(hand="CLOCK", hand_sizes=[1, 4, 2], night=True, clocks=2)
    assert d(play("CLOCK"), last) == (
        "play a Clock (it turns day: every character turns, you may wish; "
        "your last card: 2 penalty cards)"
    )


def test_drawn_card_and_wish_commands() -> None:
    d = render.describe_command
    drawn = make_view(hand="R1 G3", phase=MMV.PHASE_PLAY_DRAWN, decision="play_drawn", drawn="G3")
    assert d(end_turn(), drawn) == "keep green spider and end your turn"
    assert d(end_turn()) == "end your turn"
    wishing = make_view(hand="R1 R2 G3", phase=MMV.PHASE_WISH, decision="wish", wisher=0)
    assert d(wish(RED), wishing) == "wish red (you hold 2)"
    assert d(wish(PURPLE), wishing) == "wish purple (you hold 0)"
    assert d(no_wish(), wishing) == "do not wish a colour"
    countess = make_view(
        hand="R1 G3",
        phase=MMV.PHASE_ABILITY,
        decision="wish_and_play_again",
        ability=MM.ABILITY_WISH_AND_PLAY_AGAIN,
    )
    assert d(wish(GREEN), countess) == "wish green and play again (you hold 1)"
    assert d(decline(), countess) == "do not use the ability ((c) wish a colour and play again)"


def ability_view(ability: int, decision: str, **kwargs: object) -> referee_pb2.View:
    return make_view(
        phase=MMV.PHASE_ABILITY,
        decision=decision,
        ability=ability,
        characters=("C1", "C2", "C3", "C4"),
        players=4,
        **kwargs,  # type: ignore[arg-type]
    )


def test_ability_commands_in_words() -> None:
    d = render.describe_command
    bite = ability_view(MM.ABILITY_VAMPIRE_BITE, "vampire_bite", night=True, seat=3, turn=3)
    assert d(use(), bite) == "use The Duchess's bite: seat 0 (your left neighbour) draws 2"
    everyone = ability_view(MM.ABILITY_OPPONENTS_DRAW_ONE, "opponents_draw_one")
    assert d(use(), everyone) == "use The Count's ability: every opponent draws 1"
    fewest = ability_view(MM.ABILITY_FEWEST_DRAW_TWO, "fewest_draw_two", hand_sizes=[5, 3, 2, 6])
    assert d(use(), fewest) == "use The Count's ability: seat 2 (2 cards) draws 2"
    tied = ability_view(MM.ABILITY_FEWEST_DRAW_TWO, "fewest_draw_two", hand_sizes=[5, 2, 2, 6])
    assert d(use(), tied) == "use The Count's ability: seat 1 and seat 2 draw 1 each"
    professor = ability_view(MM.ABILITY_DRAW_TWO_AND_SHARE, "draw_two_and_share")
    assert d(use(), professor) == (
        "use The Count's ability: draw 2 cards, then give them away or keep them"
    )
    gift = ability_view(
        MM.ABILITY_VAMPIRE_GIFT, "vampire_gift", hand="B7 R2", hand_sizes=[2, 5, 5, 5]
    )
    assert d(give(2, "B7", MAU), gift) == "give blue bat to seat 2 and say Mau"
    assert d(give(2, "B7"), gift) == "give blue bat to seat 2 without saying Mau (1 penalty card)"
    count = ability_view(MM.ABILITY_GIVE_LEFT, "give_left", hand="B7 R2 G1")
    assert d(give(1, "G1"), count) == "give green skull to seat 1 (they may then wish a colour)"
    prince = ability_view(MM.ABILITY_CALL_COLOUR, "call_colour")
    assert d(call(PURPLE), prince) == (
        "call purple: every opponent shows you a purple card or draws 2"
    )
    bride = ability_view(MM.ABILITY_SWAP_AND_PLAY_AGAIN, "swap_and_play_again")
    assert d(swap(3), bride) == (
        "swap characters with seat 3 (your The Count for The Duchess) and play again"
    )
    twins = ability_view(MM.ABILITY_SET_ASIDE_POT, "set_aside_pot", hand="WOLF", hand_sizes=[1] * 4)
    assert d(set_aside("WOLF", MAU_MAU), twins) == (
        "set a Werewolf aside into the pot (with 1 card from the deck) and say Mau Mau"
    )


def test_showing_and_sharing_in_words() -> None:
    d = render.describe_command
    answer = make_view(
        seat=1,
        turn=0,
        hand="G4 G9",
        phase=MMV.PHASE_ANSWER_CALL,
        decision="show_colour",
        deciders=[1, 2],
        called_colour=GREEN,
        answering=[1, 2],
    )
    assert d(show("G4"), answer) == "show green tombstone to seat 0"
    sharing = make_view(
        hand="R1", hand_sizes=[1, 4, 3], phase=MMV.PHASE_SHARE_DRAWN, to_share="B2 CLOCK"
    )
    assert d(share([2, 0]), sharing) == "give blue coffin to seat 2, keep a Clock"
    assert d(share([1, 2], MAU), sharing) == (
        "give blue coffin to seat 1, give a Clock to seat 2 and say Mau"
    )
    assert d(share([0, 0]), sharing) == "keep blue coffin, keep a Clock"


EVENTS: list[tuple[dict[str, object], str | None]] = [
    (
        {
            "hand_started": MME.HandStarted(
                hand_number=2, dealer=2, playing=[0, 1, 2], characters=["C1", "C2", "C3"]
            )
        },
        "--- hand 2 of 5: seat 2 deals 0 cards each, day side up; characters: seat 0 (you) "
        "The Count, seat 1 The Countess, seat 2 The Baron",
    ),
    (
        {
            "hand_started": MME.HandStarted(
                hand_number=6,
                tiebreak=1,
                playing=[0, 2],
                characters=["C1", "C2", "C3"],
                hand_size=8,
            )
        },
        "--- tie-break hand 1 (hand 6): seat 0 (you) deals 8 cards each, day side up; "
        "characters: seat 0 (you) The Count, seat 2 The Baron",
    ),
    ({"deck_shuffled": MME.DeckShuffled(count=55)}, None),
    (
        {
            "deck_shuffled": MME.DeckShuffled(
                shuffle=1, reason=MME.SHUFFLE_REASON_SPECIALS_RETURNED, count=31
            )
        },
        "the turned special cards are shuffled back into the deck (31 cards)",
    ),
    (
        {
            "deck_shuffled": MME.DeckShuffled(
                shuffle=2, reason=MME.SHUFFLE_REASON_PILE_RESHUFFLED, count=30
            )
        },
        "the deck ran out: the discard pile is shuffled into a new deck (30 cards)",
    ),
    (
        {"cards_dealt": MME.CardsDealt(seat=0, count=3, cards=cards("R1 B2 CLOCK"))},
        "you are dealt: red: skull | blue: coffin | Clock",
    ),
    ({"cards_dealt": MME.CardsDealt(seat=1, count=8)}, None),
    (
        {"starting_card_turned": MME.StartingCardTurned(card=card("WOLF"))},
        "a Werewolf is turned and set aside (it goes back into the deck)",
    ),
    (
        {"starting_card_turned": MME.StartingCardTurned(card=card("G9"))},
        "the discard pile starts with green blood",
    ),
    ({"turn_started": MME.TurnStarted(seat=1)}, None),
    ({"turn_started": MME.TurnStarted(seat=1, extra=True)}, "seat 1 takes another turn"),
    (
        {
            "cards_drawn": MME.CardsDrawn(
                seat=0, count=1, cards=cards("P11"), reason=MME.DRAW_REASON_TURN
            )
        },
        "seat 0 (you) draws purple candle",
    ),
    (
        {"cards_drawn": MME.CardsDrawn(seat=1, count=2, reason=MME.DRAW_REASON_VAMPIRE_BITE)},
        "seat 1 draws 2 cards (vampire bite)",
    ),
    (
        {"cards_drawn": MME.CardsDrawn(seat=1, count=1, reason=MME.DRAW_REASON_MISSED_MAU)},
        "seat 1 draws 1 card (penalty: Mau not said)",
    ),
    (
        {"cards_drawn": MME.CardsDrawn(seat=2, count=0, reason=MME.DRAW_REASON_TURN)},
        "seat 2 has nothing to draw (deck and pile are empty)",
    ),
    (
        {"card_played": MME.CardPlayed(seat=1, card=card("R7"), announced=MAU, owed=MAU)},
        "seat 1 plays red bat and says Mau",
    ),
    (
        {"card_played": MME.CardPlayed(seat=1, card=card("R7"), owed=MAU_MAU)},
        "seat 1 plays red bat but does not say Mau Mau",
    ),
    ({"card_played": MME.CardPlayed(seat=2, card=card("CLOCK"))}, "seat 2 plays a Clock (3 of 3)"),
    (
        {"card_played": MME.CardPlayed(seat=2, card=card("WOLF"), werewolf_seat=0, replaced="C2")},
        "seat 2 plays a Werewolf on your The Count (replacing the werewolf on The Countess)",
    ),
    (
        {"day_night_turned": MME.DayNightTurned(night=True, clocks=3, werewolf_character="C2")},
        "--- night falls: the characters turn vampire; 3 clocks and the werewolf on The "
        "Countess discarded",
    ),
    (
        {"day_night_turned": MME.DayNightTurned(clocks=3)},
        "--- day breaks: the characters turn human; 3 clocks discarded",
    ),
    (
        {"wish_offered": MME.WishOffered(seat=2, reason=MME.WISH_REASON_CARD_RECEIVED)},
        "seat 2 may wish a colour (a card was received)",
    ),
    ({"wished": MME.Wished(seat=2, colour=PURPLE)}, "seat 2 wishes purple"),
    ({"wished": MME.Wished(seat=2)}, "seat 2 wishes no colour"),
    (
        {
            "ability_triggered": MME.AbilityTriggered(
                seat=0, ability=MM.ABILITY_GIVE_LEFT, character="C1"
            )
        },
        "seat 0 (you) may use The Count's ability: (a) give 1 card to the left neighbour, "
        "who may wish",
    ),
    (
        {"ability_declined": MME.AbilityDeclined(seat=0, ability=MM.ABILITY_GIVE_LEFT)},
        "seat 0 (you) does not use (a) give left",
    ),
    (
        {"ability_used": MME.AbilityUsed(seat=1, ability=MM.ABILITY_VAMPIRE_BITE)},
        "seat 1 uses the vampire bite",
    ),
    (
        {
            "card_given": MME.CardGiven(
                from_seat=0,
                to_seat=1,
                card=card("B7"),
                ability=MM.ABILITY_GIVE_LEFT,
                announced=MAU,
                owed=MAU,
            )
        },
        "seat 0 (you) gives blue bat to seat 1 and says Mau",
    ),
    (
        {"card_given": MME.CardGiven(from_seat=1, to_seat=2, ability=MM.ABILITY_VAMPIRE_GIFT)},
        "seat 1 gives a card to seat 2 (vampire gift)",
    ),
    (
        {"colour_called": MME.ColourCalled(seat=0, colour=GREEN, answering=[1])},
        "seat 0 (you) calls green: seat 1 must show a green card",
    ),
    (
        {"colour_called": MME.ColourCalled(seat=0, colour=GREEN)},
        "seat 0 (you) calls green: nobody holds green",
    ),
    (
        {"card_shown": MME.CardShown(seat=1, to_seat=0, card=card("G4"))},
        "seat 1 shows seat 0 (you) green tombstone",
    ),
    ({"card_shown": MME.CardShown(seat=1, to_seat=2)}, "seat 1 shows seat 2 a card"),
    (
        {
            "characters_swapped": MME.CharactersSwapped(
                seat=0, other=2, seat_character="C3", other_character="C1"
            )
        },
        "seat 0 (you) swaps characters with seat 2: seat 0 (you) is now The Baron, seat 2 "
        "The Count",
    ),
    (
        {"drawn_shared": MME.DrawnShared(seat=0, to_seats=[2, 0], cards=cards("R2 CLOCK"))},
        "seat 0 (you) gives red coffin to seat 2, keeps a Clock",
    ),
    (
        {"drawn_shared": MME.DrawnShared(seat=1, to_seats=[1, 1], cards=cards("? ?"))},
        "seat 1 keeps both cards",
    ),
    (
        {
            "drawn_shared": MME.DrawnShared(
                seat=1, to_seats=[0, 2], cards=cards("R2 ?"), owed=MAU_MAU
            )
        },
        "seat 1 gives red coffin to seat 0 (you), gives a card to seat 2 but does not say Mau Mau",
    ),
    (
        {
            "card_set_aside": MME.CardSetAside(
                seat=0, card=card("R3"), deck_count=1, announced=MAU, owed=MAU, pot_size=4
            )
        },
        "seat 0 (you) sets red spider and 1 card from the deck aside into the pot (4 cards) "
        "and says Mau",
    ),
    (
        {"card_set_aside": MME.CardSetAside(seat=1, pot_size=1)},
        "seat 1 sets a card aside into the pot (1 card)",
    ),
    (
        {"pot_taken": MME.PotTaken(seat=0, count=2, cards=cards("R3 G8"))},
        "seat 0 (you) takes the pot into hand (2 cards): red spider and green garlic",
    ),
    ({"pot_taken": MME.PotTaken(seat=1, count=4)}, "seat 1 takes the pot into hand (4 cards)"),
    (
        {
            "hand_ended": MME.HandEnded(
                hand_number=2, ender=1, scores=[3, 9, 4], cards_left=[4, 0, 3], totals=[10, 20, 5]
            )
        },
        "--- hand 2 ends: seat 1 is out of cards (+2); points: seat 0 (you) 3, seat 1 9, "
        "seat 2 4; totals by seat: 10, 20, 5",
    ),
    (
        {
            "hand_ended": MME.HandEnded(
                hand_number=7, tiebreak=1, blocked=True, scores=[3, 0, 4], tiebreak_points=[3, 0, 4]
            )
        },
        "--- tie-break hand 1 ends: blocked: nothing to draw and nobody played; points: seat 0 "
        "(you) 3, seat 1 0, seat 2 4; tie-break points by seat: 3, 0, 4",
    ),
    (
        {"game_ended": MME.GameEnded(scores=[10, 20, 5], ranks=[2, 1, 3])},
        "--- game over: seat 1 wins with 20 points (seat 0 (you) 10, seat 1 20, seat 2 5)",
    ),
    (
        {"game_ended": MME.GameEnded(scores=[20, 20, 5], ranks=[1, 1, 3])},
        "--- game over: seat 0 (you) and seat 1 share the win with 20 points (seat 0 (you) 20, "
        "seat 1 20, seat 2 5)",
    ),
]


@pytest.mark.parametrize(("kind", "expected"), EVENTS)
def test_events_in_one_line(kind: dict[str, object], expected: str | None) -> None:
    # the view right after the event: the third clock is on the Day/Night card
    view = make_view(characters=("C1", "C2", "C3"), clocks=3)
    assert render.describe_event(event(**kind), view, 0) == expected


def test_every_event_kind_is_narrated() -> None:
    narrated = {next(iter(kind)) for kind, line in EVENTS if line is not None}
    kinds = {f.name for f in MME.DESCRIPTOR.oneofs_by_name["kind"].fields}
    assert narrated == kinds


def test_events_without_a_view_use_symbol_numbers_and_ids() -> None:
    played = event(card_played=MME.CardPlayed(seat=1, card=card("R7")))
    assert render.describe_event(played) == "seat 1 plays red S7"
    triggered = event(
        ability_triggered=MME.AbilityTriggered(
            seat=1, ability=MM.ABILITY_VAMPIRE_GIFT, character="C5"
        )
    )
    assert render.describe_event(triggered) == (
        "seat 1 may use C5's ability: gift: give 1 card to another player"
    )


def test_view_of_a_turn() -> None:
    view = make_view(
        hand="R1 R3 B5 G7 CLOCK WOLF",
        hand_sizes=[6, 4, 2],
        top="B9",
        wish=BLUE,
        clocks=2,
        werewolf_seat=1,
        characters=("C1", "C2", "C3"),
        pot_size=2,
        pot_yours="G2",
        totals=[12, 3, 7],
        hand_scores=[hand_score(1, [12, 3, 7], ender=0)],
        hand_number=2,
        legal=[draw(), play("B5")],
    )
    lines = render.render_view(view).splitlines()
    assert lines[0] == "== Mau Mau Vampires | game g4 | hand 2/5 | you are seat 0 =="
    assert lines[1] == "Your turn: play a card or draw one."
    assert lines[2] == (
        "Day (humans) | clocks 2/3 | werewolf on seat 1's The Countess | pot 2 cards "
        "(yours: green coffin)"
    )
    assert lines[3] == "Top card: blue blood   Wish: blue   Deck: 20 cards   Pile: 6 cards"
    rows = {line[2:17].strip(): line for line in lines if line[2:7] == "seat "}
    assert rows["seat 0 (you)"].startswith(">")
    assert rows["seat 0 (you)"].split()[4:] == ["6", "12", "The", "Count", "(human)"]
    assert rows["seat 1"].split()[2:] == [
        "4",
        "3",
        "The",
        "Countess",
        "(human)",
        "[WEREWOLF:",
        "no",
        "abilities]",
    ]
    count = lines.index(rows["seat 0 (you)"])
    assert lines[count + 1] == (
        "      day (now): skull or coffin -> (a) give 1 card to the left neighbour, who may wish"
    )
    assert lines[count + 2] == (
        "      night: garlic -> bite (left neighbour draws 2); green -> gift (give a card away)"
    )
    assert "Your hand (6): red: skull, spider | blue: stake | green: bat | Clock, Werewolf" in lines
    scores = lines.index(next(line for line in lines if line.startswith("Scores:")))
    assert lines[scores].split() == ["Scores:", "seat", "0", "(you)", "seat", "1", "seat", "2"]
    assert lines[scores + 1].split() == [
        "hand",
        "1",
        "12",
        "3",
        "7",
        "seat",
        "0",
        "(you)",
        "went",
        "out",
    ]
    assert lines[scores + 2].split() == ["total", "12", "3", "7"]
    assert lines[-1] == "Options: announcements required, characters keep"


def test_night_and_the_pending_decisions_in_words() -> None:
    def pending(**kwargs: object) -> str:
        return render.render_view(make_view(**kwargs)).splitlines()[1]  # type: ignore[arg-type]

    assert pending(turn=2) == "Turn: seat 2 plays a card or draws one."
    assert pending(extra_turn=True) == "Your turn (another turn): play a card or draw one."
    assert pending(phase=MMV.PHASE_PLAY_DRAWN, drawn="WOLF") == (
        "You drew a Werewolf: play it or keep it."
    )
    assert pending(phase=MMV.PHASE_PLAY_DRAWN, turn=1) == "seat 1 drew a card: play it or keep it."
    assert pending(phase=MMV.PHASE_ABILITY, ability=MM.ABILITY_VAMPIRE_BITE, turn=1) == (
        "seat 1 may use The Countess's ability: bite: the left neighbour draws 2."
    )
    assert pending(phase=MMV.PHASE_WISH, wisher=0, turn=2) == "You may wish a colour."
    assert pending(phase=MMV.PHASE_WISH, wisher=1, turn=2) == "seat 1 may wish a colour."
    assert (
        pending(phase=MMV.PHASE_ANSWER_CALL, called_colour=RED, answering=[0, 2], turn=1)
        == "seat 1 called red: you and seat 2 must show a red card."
    )
    assert pending(phase=MMV.PHASE_SHARE_DRAWN, to_share="R1 CLOCK") == (
        "You drew red skull and a Clock: give them away or keep."
    )
    assert pending(phase=MMV.PHASE_SHARE_DRAWN, to_share_count=2, turn=1) == (
        "seat 1 hands out 2 drawn cards (ability g)."
    )
    night = render.render_view(make_view(night=True, clocks=1, players=4))
    assert "Night (vampires) | clocks 1/4 | no werewolf | pot 0 cards" in night
    assert "      night (now): garlic -> bite" in night and "      day: skull or coffin" in night


def test_the_caller_sees_the_shown_cards() -> None:
    view = make_view(
        turn=0,
        phase=MMV.PHASE_ANSWER_CALL,
        called_colour=GREEN,
        answering=[2],
        shown=[(1, "G4")],
        deciders=[2],
    )
    text = render.render_view(view)
    assert "Called colour: green (to show: seat 2)" in text
    assert "  seat 1 showed you green tombstone" in text


def test_spectator_and_game_over_views() -> None:
    spectator = render.render_view(make_view(seat=None, turn=1, hand="R1"))
    assert "| spectator ==" in spectator and "Your hand" not in spectator
    assert "(you)" not in spectator
    over = make_view(
        game_over=True,
        turn=None,
        totals=[20, 31, 9],
        hand_scores=[hand_score(1, [12, 3, 7], ender=0), hand_score(2, [8, 28, 2], ender=1)],
        ranks=[2, 1, 3],
        hand_number=2,
    )
    text = render.render_view(over)
    assert text.splitlines()[1] == "Game over."
    assert not any(line.startswith(">") for line in text.splitlines())
    assert text.endswith("Winner: seat 1")
    blocked = make_view(hand_scores=[hand_score(1, [3, 3, 3])], hand_number=2, last_hand="P4 WOLF")
    text = render.render_view(blocked)
    assert "blocked" in text
    assert "Your cards at the end of the last hand: purple: tombstone | Werewolf" in text
    tiebreak = make_view(
        tiebreak=1,
        hand_number=6,
        playing=[0, 2],
        tiebreak_points=[4, 0, 1],
        hand_scores=[hand_score(5, [4, 4, 4], ender=1), hand_score(6, [4, 0, 1], 0, tiebreak=1)],
    )
    text = render.render_view(tiebreak)
    assert "| tie-break hand 1 (hand 6) |" in text
    assert "(not in this hand)" in text and "tie-break points" in text


def test_a_spectator_redraws_at_each_new_hand() -> None:
    view = make_view(seat=None)
    first = event(hand_started=MME.HandStarted(hand_number=1))
    second = event(hand_started=MME.HandStarted(hand_number=2))
    assert not render.redraw_for_spectator(first, view)
    assert render.redraw_for_spectator(second, view)
