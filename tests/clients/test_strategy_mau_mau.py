"""The Mau Mau Vampires heuristic (referee/games/mau_mau_vampires/bot.py, played by referee_bot
on the view's engine values) on hand-built views (the choice is always legal and follows
its preferences) and on every view of real games played over gRPC."""

from __future__ import annotations

import random
import threading

import pytest

from referee.games.mau_mau_vampires import bot
from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.runner import play_seat
from referee_bot.strategies import GameBot, RandomStrategy, make_strategy
from tests.clients.mau_mau_views import (
    BLUE,
    GREEN,
    MAU,
    MAU_MAU,
    MM,
    MMV,
    PURPLE,
    RED,
    call,
    decline,
    draw,
    end_turn,
    give,
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

GAME = "mau-mau-vampires"


def choose(view: referee_pb2.View) -> referee_pb2.Command:
    command = make_strategy("heuristic", GAME).choose(view, random.Random(0))
    assert command in list(view.legal_commands)
    return command


def plays(hand: str, *playable: str, owed: int = 0) -> list[referee_pb2.Command]:
    """The turn's legal commands as the server lists them: draw, then each play with the right
    announcement first and silence second."""
    legal = [draw()]
    for text in playable:
        if owed:
            legal += [play(text, owed), play(text)]
        else:
            legal.append(play(text))
    return legal


def test_registered_as_the_heuristic() -> None:
    heuristic = make_strategy("heuristic", GAME)
    assert isinstance(heuristic, GameBot) and heuristic.bot is bot.BOT


# --- announcements -------------------------------------------------------------------------


def test_says_mau_and_mau_mau() -> None:
    two = make_view(hand="B5 R1", hand_sizes=[2, 5, 5], legal=plays("B5 R1", "B5", owed=MAU))
    assert choose(two) == play("B5", MAU)
    # the server might list silence first: the bot still says what is owed
    silent_first = make_view(
        hand="B5 R1", hand_sizes=[2, 5, 5], legal=[draw(), play("B5"), play("B5", MAU)]
    )
    assert choose(silent_first) == play("B5", MAU)
    last = make_view(hand="B5", hand_sizes=[1, 5, 5], legal=plays("B5", "B5", owed=MAU_MAU))
    assert choose(last) == play("B5", MAU_MAU)


def test_says_mau_when_giving_or_setting_aside_leaves_one_card() -> None:
    gift = make_view(
        hand="B5 R1",
        hand_sizes=[2, 5, 5],
        phase=MMV.PHASE_ABILITY,
        decision="vampire_gift",
        ability=MM.ABILITY_VAMPIRE_GIFT,
        night=True,
        legal=[
            decline(),
            *(give(to, t, a) for to in (1, 2) for t in ("R1", "B5") for a in (MAU, 0)),
        ],
    )
    chosen = choose(gift).mau_mau_vampires.give_card
    assert chosen.announce == MAU
    pot = make_view(
        hand="WOLF",
        hand_sizes=[1, 5, 5],
        phase=MMV.PHASE_ABILITY,
        decision="set_aside_pot",
        ability=MM.ABILITY_SET_ASIDE_POT,
        legal=[decline(), set_aside("WOLF", MAU_MAU), set_aside("WOLF")],
    )
    assert choose(pot) == set_aside("WOLF", MAU_MAU)


def test_with_automatic_announcements_says_nothing() -> None:
    view = make_view(
        hand="B5 R1", hand_sizes=[2, 5, 5], announcements="auto", legal=[draw(), play("B5")]
    )
    assert choose(view) == play("B5")


# --- turns ---------------------------------------------------------------------------------


def test_plays_a_matching_card_rather_than_draw() -> None:
    view = make_view(hand="B5 R1 G2 CLOCK", top="B9", legal=plays("", "B5", "CLOCK"))
    assert choose(view) == play("B5")


def test_plays_the_loner_first_and_keeps_its_long_colour() -> None:
    # red is its long colour; the blue stake (on the red stake by symbol) is a loner
    view = make_view(hand="R1 R4 R9 B5 G2", top="R5", legal=plays("", "R4", "R9", "B5"))
    assert choose(view) == play("B5")


def test_prefers_a_card_that_triggers_its_ability() -> None:
    # seat 0 is The Count: the skull triggers (a), give a card to the left neighbour
    view = make_view(hand="R1 R4 G7", top="R9", legal=plays("", "R4", "R1"))
    assert choose(view) == play("R1")
    # under a werewolf it has no ability (MM-11): the first of equals
    werewolf = make_view(hand="R1 R4 G7", top="R9", werewolf_seat=0, legal=plays("", "R4", "R1"))
    assert choose(werewolf) == play("R4")


def test_keeps_special_cards_for_when_stuck() -> None:
    hand = "R1 G2 CLOCK"
    stuck = make_view(hand=hand, top="B9", hand_sizes=[3, 5, 5], legal=plays(hand, "CLOCK"))
    assert choose(stuck) == play("CLOCK")
    wolf = make_view(
        hand="R1 G2 WOLF",
        top="B9",
        hand_sizes=[3, 5, 5],
        legal=[draw(), *(play("WOLF", werewolf=s) for s in range(3))],
    )
    assert choose(wolf).mau_mau_vampires.play_card.werewolf_seat != 0  # never on itself


def test_never_plays_a_special_card_as_the_last_card() -> None:
    view = make_view(hand="CLOCK", hand_sizes=[1, 5, 5], legal=plays("CLOCK", "CLOCK"))
    assert choose(view) == draw()
    drawn = make_view(
        hand="WOLF",
        hand_sizes=[1, 5, 5],
        phase=MMV.PHASE_PLAY_DRAWN,
        decision="play_drawn",
        drawn="WOLF",
        legal=[end_turn(), play("WOLF", werewolf=1), play("WOLF", werewolf=2)],
    )
    assert choose(drawn) == end_turn()


def test_plays_a_special_before_it_is_stranded() -> None:
    # with one Mau Mau card left, the Clock goes first: a special cannot end the hand (MM-17)
    view = make_view(
        hand="B5 CLOCK", hand_sizes=[2, 5, 5], top="B9", legal=plays("", "B5", "CLOCK", owed=MAU)
    )
    assert choose(view) == play("CLOCK", MAU)


def test_draws_rather_than_take_a_big_pot() -> None:
    hand = "R1 G2 CLOCK"
    view = make_view(hand=hand, top="B9", pot_size=4, legal=plays(hand, "CLOCK"))
    assert choose(view) == draw()


def test_plays_the_drawn_card_when_it_fits() -> None:
    view = make_view(
        hand="R1 B7",
        hand_sizes=[2, 5, 5],
        phase=MMV.PHASE_PLAY_DRAWN,
        decision="play_drawn",
        drawn="B7",
        legal=[end_turn(), play("B7", MAU), play("B7")],
    )
    assert choose(view) == play("B7", MAU)
    unplayable = make_view(
        hand="R1 G7",
        phase=MMV.PHASE_PLAY_DRAWN,
        decision="play_drawn",
        drawn="G7",
        legal=[end_turn()],
    )
    assert choose(unplayable) == end_turn()


def test_werewolf_goes_to_the_opponent_closest_to_winning() -> None:
    legal = [draw(), *(play("WOLF", werewolf=s) for s in range(4))]
    view = make_view(players=4, hand="R1 G2 WOLF", hand_sizes=[3, 6, 2, 7], top="B9", legal=legal)
    assert choose(view) == play("WOLF", werewolf=2)


def test_werewolf_goes_to_the_strongest_character_among_equals() -> None:
    # seat 1 The Countess (c: wish and play again) beats seat 2 The Twins (h: set aside)
    legal = [draw(), *(play("WOLF", werewolf=s) for s in range(3))]
    view = make_view(
        hand="R1 G2 WOLF",
        hand_sizes=[3, 5, 5],
        top="B9",
        characters=("C1", "C8", "C2"),
        legal=legal,
    )
    assert choose(view) == play("WOLF", werewolf=2)


def test_prefers_a_clock_to_a_werewolf_on_itself() -> None:
    legal = [draw(), play("CLOCK"), play("WOLF", werewolf=0)]
    view = make_view(
        players=2,
        hand="R1 CLOCK WOLF",
        top="B9",
        clocks=1,
        werewolf_seat=1,
        characters=("C1", "C2"),
        legal=legal,
    )
    assert choose(view) == play("CLOCK")  # seat 1 carries the werewolf: only seat 0 is left


def test_a_clock_that_frees_its_own_character_is_preferred() -> None:
    legal = [draw(), play("CLOCK"), play("WOLF", werewolf=1)]
    view = make_view(
        players=2,
        hand="R1 CLOCK WOLF",
        top="B9",
        clocks=1,
        werewolf_seat=0,
        characters=("C1", "C2"),
        legal=legal,
    )
    assert choose(view) == play("CLOCK")  # it turns Day/Night: the werewolf on seat 0 goes


# --- wishes and abilities ------------------------------------------------------------------


def wishes() -> list[referee_pb2.Command]:
    return [no_wish(), *(wish(c) for c in (RED, BLUE, GREEN, PURPLE))]


def test_wishes_the_colour_it_holds_most() -> None:
    view = make_view(
        hand="R1 G2 G5 G9 P3", phase=MMV.PHASE_WISH, decision="wish", wisher=0, legal=wishes()
    )
    assert choose(view) == wish(GREEN)
    nothing = make_view(
        hand="CLOCK", phase=MMV.PHASE_WISH, decision="wish", wisher=0, legal=wishes()
    )
    assert choose(nothing) == no_wish()
    countess = make_view(
        hand="B1 B2 R3",
        phase=MMV.PHASE_ABILITY,
        decision="wish_and_play_again",
        ability=MM.ABILITY_WISH_AND_PLAY_AGAIN,
        legal=[decline(), *wishes()[1:]],
    )
    assert choose(countess) == wish(BLUE)


@pytest.mark.parametrize(
    ("ability", "decision"),
    [
        (MM.ABILITY_VAMPIRE_BITE, "vampire_bite"),
        (MM.ABILITY_OPPONENTS_DRAW_ONE, "opponents_draw_one"),
        (MM.ABILITY_FEWEST_DRAW_TWO, "fewest_draw_two"),
        (MM.ABILITY_DRAW_TWO_AND_SHARE, "draw_two_and_share"),
    ],
)
def test_uses_abilities_that_hurt_opponents(ability: int, decision: str) -> None:
    view = make_view(
        hand="R1 B2",
        phase=MMV.PHASE_ABILITY,
        decision=decision,
        ability=ability,
        legal=[decline(), use()],
    )
    assert choose(view) == use()


def test_gives_its_worst_card_to_the_leader() -> None:
    # red is its long colour, the green stake a loner; seat 2 is close to winning
    hand = ["R1", "R4", "R9", "G5"]
    view = make_view(
        hand=" ".join(hand),
        hand_sizes=[4, 6, 2],
        night=True,
        phase=MMV.PHASE_ABILITY,
        decision="vampire_gift",
        ability=MM.ABILITY_VAMPIRE_GIFT,
        legal=[decline(), *(give(to, t) for to in (1, 2) for t in hand)],
    )
    assert choose(view) == give(2, "G5")
    left = make_view(
        hand="R1 R4 CLOCK B8",
        phase=MMV.PHASE_ABILITY,
        decision="give_left",
        ability=MM.ABILITY_GIVE_LEFT,
        legal=[decline(), *(give(1, t) for t in ("R1", "R4", "B8", "CLOCK"))],
    )
    assert choose(left) == give(1, "B8")  # the Clock is kept for when stuck


def test_sets_aside_its_worst_card() -> None:
    view = make_view(
        hand="P1 P2 G7 WOLF",
        phase=MMV.PHASE_ABILITY,
        decision="set_aside_pot",
        ability=MM.ABILITY_SET_ASIDE_POT,
        legal=[decline(), *(set_aside(t) for t in ("P1", "P2", "G7", "WOLF"))],
    )
    assert choose(view) == set_aside("G7")


def test_calls_the_colour_it_holds_most() -> None:
    view = make_view(
        hand="P1 P2 G7",
        phase=MMV.PHASE_ABILITY,
        decision="call_colour",
        ability=MM.ABILITY_CALL_COLOUR,
        legal=[decline(), *(call(c) for c in (RED, BLUE, GREEN, PURPLE))],
    )
    assert choose(view) == call(PURPLE)


def test_swaps_for_the_character_that_fits_its_hand() -> None:
    view = make_view(
        players=4,
        hand="R1 G5 B2",
        hand_sizes=[3, 5, 5, 5],
        phase=MMV.PHASE_ABILITY,
        decision="swap_and_play_again",
        ability=MM.ABILITY_SWAP_AND_PLAY_AGAIN,
        characters=("C6", "C3", "C2", "C4"),
        werewolf_seat=2,
        legal=[decline(), swap(1), swap(2), swap(3)],
    )
    # The Baron (stake, cross) fits the green stake; The Countess carries a werewolf
    assert choose(view) == swap(1)


def test_hands_both_drawn_cards_to_the_leader() -> None:
    seats = (0, 1, 2)
    view = make_view(
        hand="R1 R2 R3",
        hand_sizes=[3, 5, 1],
        phase=MMV.PHASE_SHARE_DRAWN,
        decision="share_drawn",
        to_share="G1 CLOCK",
        legal=[share([a, b]) for a in seats for b in seats],
    )
    assert choose(view) == share([2, 2])
    emptied = make_view(
        hand="",
        hand_sizes=[0, 6, 2],
        phase=MMV.PHASE_SHARE_DRAWN,
        decision="share_drawn",
        to_share="G1 G2",
        legal=[
            share([0, 0]),
            *(
                share([a, b], owed)
                for a in seats
                for b in seats
                if (a, b) != (0, 0)
                for owed in ((MAU if 0 in (a, b) else MAU_MAU), 0)
            ),
        ],
    )
    assert choose(emptied) == share([2, 2], MAU_MAU)


def test_shows_a_card_of_the_called_colour() -> None:
    view = make_view(
        seat=1,
        turn=0,
        hand="G4 G9 R1",
        phase=MMV.PHASE_ANSWER_CALL,
        decision="show_colour",
        deciders=[1],
        called_colour=GREEN,
        answering=[1],
        legal=[show("G4"), show("G9")],
    )
    assert choose(view) in (show("G4"), show("G9"))


# --- always legal --------------------------------------------------------------------------

_DECK = [f"{c}{s}" for c in "RBGP" for s in range(1, 12)] + ["CLOCK"] * 6 + ["WOLF"] * 5


def _random_view(rng: random.Random) -> referee_pb2.View:
    players = rng.randint(2, 6)
    hand = rng.sample(_DECK, rng.randint(0, 9))
    sizes = [len(hand)] + [rng.randint(0, 12) for _ in range(players - 1)]
    phase = rng.choice(
        [
            MMV.PHASE_TURN,
            MMV.PHASE_PLAY_DRAWN,
            MMV.PHASE_ABILITY,
            MMV.PHASE_WISH,
            MMV.PHASE_ANSWER_CALL,
            MMV.PHASE_SHARE_DRAWN,
        ]
    )
    others = list(range(1, players))
    announce = [0, MAU, MAU_MAU]
    legal: list[referee_pb2.Command] = []
    ability = 0
    if phase == MMV.PHASE_TURN:
        legal = [draw()] + [
            play(t, rng.choice(announce), werewolf=rng.randrange(players) if t == "WOLF" else None)
            for t in hand
            if rng.random() < 0.5
        ]
    elif phase == MMV.PHASE_PLAY_DRAWN:
        legal = [end_turn()]
        if hand and rng.random() < 0.7:
            legal.append(
                play(hand[0], rng.choice(announce), werewolf=1 if hand[0] == "WOLF" else None)
            )
    elif phase == MMV.PHASE_ABILITY:
        ability = rng.randint(1, 10)
        legal = [decline()]
        if ability in (5, 6, 7, 9):
            legal.append(use())
        elif ability == 2:
            legal += [call(c) for c in (RED, BLUE, GREEN, PURPLE)]
        elif ability == 3:
            legal += [wish(c) for c in (RED, BLUE, GREEN, PURPLE)]
        elif ability == 4:
            legal += [swap(s) for s in others]
        elif ability == 8:
            legal += [set_aside(t, rng.choice(announce)) for t in hand]
        else:
            legal += [give(rng.choice(others), t, rng.choice(announce)) for t in hand]
    elif phase == MMV.PHASE_WISH:
        legal = wishes()
    elif phase == MMV.PHASE_ANSWER_CALL:
        legal = [show(t) for t in hand if t[0] == "G"] or [show("G1")]
    else:
        seats = list(range(players))
        legal = [
            share([a, b], rng.choice(announce)) for a in seats for b in seats if rng.random() < 0.5
        ] or [share([0, 0])]
    rng.shuffle(legal)
    return make_view(
        players=players,
        hand=" ".join(hand),
        hand_sizes=sizes,
        top=rng.choice(_DECK[:44]),
        wish=rng.choice([0, RED, BLUE, GREEN, PURPLE]),
        night=rng.random() < 0.5,
        clocks=rng.randint(0, players - 1),
        werewolf_seat=rng.choice([None, *range(players)]),
        characters=rng.sample([f"C{i}" for i in range(1, 9)], players),
        phase=phase,
        ability=ability,
        drawn=hand[0] if hand and phase == MMV.PHASE_PLAY_DRAWN else "",
        to_share="G1 CLOCK" if phase == MMV.PHASE_SHARE_DRAWN else "",
        pot_size=rng.choice([0, 0, 2, 4]),
        totals=[rng.randint(0, 40) for _ in range(players)],
        announcements=rng.choice(["required", "auto"]),
        legal=legal,
    )


@pytest.mark.parametrize("seed", range(200))
def test_every_choice_is_legal_on_random_views(seed: int) -> None:
    choose(_random_view(random.Random(seed)))


def _recorded_views(
    stub: referee_pb2_grpc.RefereeServiceStub, players: int, seed: str, options: dict[str, str]
) -> list[referee_pb2.View]:
    """Every settled view of a real game (all seats played at random) asking its seat to
    decide."""
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(
            game_type=GAME,
            players=players,
            options=options,
            seed=seed,
            public_reproducible_seed=True,
        )
    )
    views: list[referee_pb2.View] = []

    def record(message: referee_pb2.StreamGameResponse) -> None:
        view = message.view
        settled = not message.HasField("event") or (
            message.event.sequence >= message.event.batch_end_sequence
        )
        if settled and view.seat in view.pending_seats and view.legal_commands:
            views.append(view)

    def run(token: str, seat: int) -> None:
        play_seat(
            stub, created.game_id, token, RandomStrategy(), random.Random(seat), on_message=record
        )

    threads = [
        threading.Thread(target=run, args=(s.token, s.seat), daemon=True) for s in created.seats
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert stub.GetGame(referee_pb2.GetGameRequest(game_id=created.game_id)).game.game_over
    return views


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, {"hands": "1"}),
        (3, {"hands": "1", "announcements": "auto"}),
        (4, {"hands": "1", "characters": "pass_left"}),
        (5, {"hands": "1"}),
    ],
)
def test_every_choice_is_legal_on_recorded_views(
    stub: referee_pb2_grpc.RefereeServiceStub, players: int, options: dict[str, str]
) -> None:
    views = _recorded_views(stub, players, f"rec{players}", options)
    assert len(views) > 20
    kinds: set[str] = set()
    for view in views:
        kinds.update(d.kind for d in view.decisions if d.seat == view.seat)
        choose(view)
    assert {"turn", "play_drawn", "wish"} <= kinds
