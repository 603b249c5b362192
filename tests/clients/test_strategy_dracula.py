"""The Dracula vs Van Helsing heuristic (referee/games/dracula_vs_van_helsing/bot.py, played by
referee_bot on the view's engine values) on hand-built views: the choice is always legal and
sensible."""

from __future__ import annotations

import doctest
import random

import pytest

from referee.codec import view_from_proto
from referee.games.dracula_vs_van_helsing import bot as strategy_dracula
from referee.games.dracula_vs_van_helsing.bot import Table, district_weight
from referee.v1 import referee_pb2
from referee_bot.strategies import GameBot, make_strategy
from tests.clients.dracula_views import (
    COLOURS,
    DVV,
    all_swaps,
    call_end,
    discard_drawn,
    draw,
    exchange,
    make_view,
    place,
    reveal_opponent,
    reveal_own,
    trump,
)

# The opponent's cards, all known, and a rack that wins every district but the 2nd:
# R8>Y3, Y2<P5, R3 (trump)>B4, P8>Y8 (purple above yellow on the ladder), B5>Y1.
THEIRS = ("Y3", "P5", "B4", "Y8", "Y1")
MINE = ("R8", "Y2", "R3", "P8", "B5")
SIX = ("B1", "B2", "B3", "B4", "B6", "B7")  # a discard pile that allows calls and 8s


def choose(view: referee_pb2.View) -> referee_pb2.Command:
    command = make_strategy("heuristic", "dracula-vs-van-helsing").choose(view, random.Random(0))
    assert command in list(view.legal_commands)
    return command


def read_table(view: referee_pb2.View) -> Table:
    """The bot's knowledge of the table from the view the server sends."""
    return strategy_dracula.read_table(view_from_proto(view))


def known_view(**kw: object) -> referee_pb2.View:
    """Seat 0 (Van Helsing) with every opponent card known."""
    options: dict[str, object] = {
        "mine": MINE,
        "theirs": THEIRS,
        "theirs_known": (1, 2, 3, 4, 5),
        "discard": ("P1", "P2", "P3", "P4", "P6", "P7"),
    }
    options.update(kw)
    return make_view(**options)  # type: ignore[arg-type]


def test_doctests() -> None:
    assert doctest.testmod(strategy_dracula).failed == 0


def test_registered_as_the_heuristic() -> None:
    heuristic = make_strategy("heuristic", "dracula-vs-van-helsing")
    assert isinstance(heuristic, GameBot) and heuristic.bot is strategy_dracula.BOT


def test_table_knowledge_from_the_view() -> None:
    view = make_view(
        mine=("R1", "R2", "Y7", "Y3", "B8"),
        theirs=("??", "P5", "??", "??", "??"),
        theirs_known=(2,),
        discard=("B1", "B2"),
        deck_top="Y1",
        vampires=(0, 1, 2, 3, 4),
    )
    table = read_table(view)
    assert table.mine[0] == (COLOURS["R"], 1)
    assert table.theirs == (None, (COLOURS["P"], 5), None, None, None)
    assert len(table.pool) == 32 - 5 - 1 - 2 - 1
    assert (COLOURS["Y"], 1) not in table.pool
    assert table.weights == (1.0, 2.0, 3.0, 6.0, 6.0)
    assert district_weight(3) == 6.0


def test_calls_the_end_when_ahead_and_draws_when_behind() -> None:
    ahead = known_view(legal=[draw(), call_end()])  # 4 districts of 5 won
    assert choose(ahead) == call_end()
    behind = known_view(mine=("Y1", "Y2", "B3", "B4", "B1"), legal=[draw(), call_end()])
    assert choose(behind) == draw()
    assert choose(known_view(legal=[draw()])) == draw()


def test_places_the_drawn_card_where_it_turns_a_lost_district() -> None:
    # R5 (trump) beats P5 in district 2, where Y2 loses; discarding Y2 reveals the deck top
    view = known_view(
        step=DVV.STEP_PLACE, drawn="R5", legal=[discard_drawn(), *[place(d) for d in range(1, 6)]]
    )
    assert choose(view) == place(2)


def test_an_eight_is_discarded_when_ahead_and_kept_when_behind() -> None:
    legal = [discard_drawn(), *[place(d) for d in range(1, 6)]]
    # every district is won: ending the round now with the 8 locks the wins in
    ahead = known_view(
        mine=("R8", "R6", "R3", "P8", "B5"), step=DVV.STEP_PLACE, drawn="Y8", legal=legal
    )
    assert read_table(ahead).score() == 5.0
    assert choose(ahead) == discard_drawn()
    behind = known_view(
        mine=("Y1", "Y2", "B2", "B3", "B1"),
        theirs=("Y3", "P5", "P4", "Y7", "Y4"),
        step=DVV.STEP_PLACE,
        drawn="R8",
        legal=legal,
    )
    assert choose(behind) != discard_drawn()


def test_chooses_the_trump_that_wins_the_most_districts() -> None:
    # every district is a tie of values: the colour track decides; blue cards are ours
    view = known_view(
        mine=("B1", "B2", "B3", "B4", "B5"),
        theirs=("R1", "R2", "R3", "R4", "R5"),
        track_letters="RPYB",
        step=DVV.STEP_CHOOSE_TRUMP,
        effect=7,
        legal=[trump("P"), trump("Y"), trump("B")],
    )
    assert choose(view) == trump("B")


def test_swaps_a_strong_card_away_from_a_hopeless_district() -> None:
    # R8 (trump 8) cannot be beaten in district 1; our P7 there would win district 2
    view = known_view(
        mine=("P7", "B1", "R3", "P8", "B5"),
        theirs=("R8", "Y2", "B4", "Y8", "Y1"),
        step=DVV.STEP_SWAP_SLOTS,
        effect=4,
        legal=all_swaps(),
    )
    assert choose(view) == all_swaps()[0]  # swap 1 and 2


def test_exchanges_a_weak_card_for_the_opponents_strong_one() -> None:
    view = known_view(
        mine=("R8", "Y2", "Y1", "P8", "B5"),
        theirs=("Y3", "Y1", "R8", "Y7", "Y4"),
        theirs_known=(1, 2, 3, 4, 5),
        step=DVV.STEP_EXCHANGE_DISTRICT,
        effect=6,
        legal=[exchange(d) for d in range(1, 6)],
    )
    assert choose(view) == exchange(3)


def test_reveals_an_own_card_the_opponent_knows_else_the_weakest() -> None:
    legal = [reveal_own(d) for d in range(1, 6)]
    known = known_view(mine_known=(4,), step=DVV.STEP_REVEAL_OWN, effect=1, legal=legal)
    assert choose(known) == reveal_own(4)
    weakest = known_view(step=DVV.STEP_REVEAL_OWN, effect=1, legal=legal)
    assert choose(weakest) == reveal_own(2)  # Y2 loses to P5 anyway


def test_reveals_the_most_uncertain_unknown_opponent_card() -> None:
    view = make_view(
        mine=("R8", "Y4", "R1", "B1", "Y1"),
        theirs=("??", "P5", "??", "??", "??"),
        theirs_known=(2,),
        step=DVV.STEP_REVEAL_OPPONENT,
        effect=3,
        legal=[reveal_opponent(d) for d in range(1, 6)],
    )
    # district 1 (R8, the top trump) is a sure win and 2 is known: the choice is the unknown
    # card whose outcome is the closest to even
    table = read_table(view)
    chosen = choose(view)
    district = chosen.dracula_vs_van_helsing.reveal_opponent.district
    assert district != 2 and district != 1
    p = table.p_win(district - 1)
    assert all(abs(p - 0.5) <= abs(table.p_win(d) - 0.5) + 1e-9 for d in (0, 2, 3, 4))


def random_view(rng: random.Random) -> referee_pb2.View:
    deck = [f"{c}{v}" for c in "YBRP" for v in range(1, 9)]
    rng.shuffle(deck)
    mine, theirs, pile = deck[:5], deck[5:10], deck[10 : 10 + rng.randint(0, 10)]
    drawn = deck[20]
    known = [d for d in range(1, 6) if rng.random() < 0.3]
    shown = [t if d in known else "??" for d, t in enumerate(theirs, 1)]
    step = rng.choice(
        [
            DVV.STEP_TURN,
            DVV.STEP_PLACE,
            DVV.STEP_REVEAL_OWN,
            DVV.STEP_REVEAL_OPPONENT,
            DVV.STEP_SWAP_SLOTS,
            DVV.STEP_EXCHANGE_DISTRICT,
            DVV.STEP_CHOOSE_TRUMP,
        ]
    )
    legal: list[referee_pb2.Command] = {
        DVV.STEP_TURN: [draw(), call_end()] if len(pile) >= 6 else [draw()],
        DVV.STEP_PLACE: [discard_drawn(), *[place(d) for d in range(1, 6)]],
        DVV.STEP_REVEAL_OWN: [reveal_own(d) for d in range(1, 6) if rng.random() < 0.7],
        DVV.STEP_REVEAL_OPPONENT: [reveal_opponent(d) for d in range(1, 6) if d not in known],
        DVV.STEP_SWAP_SLOTS: all_swaps(),
        DVV.STEP_EXCHANGE_DISTRICT: [exchange(d) for d in range(1, 6)],
        DVV.STEP_CHOOSE_TRUMP: [trump("P"), trump("Y"), trump("B")],
    }[step]
    return make_view(
        mine=mine,
        theirs=shown,
        theirs_known=known,
        discard=pile,
        step=step,
        drawn=drawn if step == DVV.STEP_PLACE else "",
        vampires=[rng.randint(0, 3) for _ in range(5)],
        legal=legal or [reveal_own(1)],
    )


@pytest.mark.parametrize("seed", range(30))
def test_every_choice_is_legal_on_random_positions(seed: int) -> None:
    choose(random_view(random.Random(seed)))
