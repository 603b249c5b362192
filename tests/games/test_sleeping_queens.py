"""Sleeping Queens (``docs/rules/sleeping-queens.md``): every rule id SQ-1 ... SQ-19 is named by
at least one test, in its name or docstring.

Situations are set up with a :class:`FixedDeal` (``deal()`` below: the hands, the top of the
draw pile, the queens by position, the starting seat). Where reaching a situation by play would
take dozens of turns (e.g. eleven queens awake), ``given()`` folds a few events into the table
first - the state is a fold of its events, so this is the situation, not a shortcut around the
rules - and then the test plays real commands.

Default queen layout of ``deal()`` (``QUEEN_DECK``): position 0 Rose, 1 Cake, 2 Rainbow,
3 Starfish, 4 Ladybug, 5 Moon, 6 Sunflower, 7 Peacock, 8 Cat, 9 Dog, 10 Pancake, 11 Heart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from referee import codec
from referee.engine import Decision, FixedDeal, SetupRefused, Table, get_game
from referee.games.sleeping_queens.model import (
    CAKE,
    CARD_NOTATION,
    CAT,
    DOG,
    DRAGON,
    HEART,
    JESTER,
    KING,
    KNIGHT,
    LADYBUG,
    MOON,
    NOTATION_CARD,
    PANCAKE,
    PEACOCK,
    QUEEN_POINTS,
    RAINBOW,
    ROSE,
    STARFISH,
    SUNFLOWER,
    WAND,
    Block,
    BlockDeclined,
    Blocked,
    CardsDrawn,
    DeckShuffled,
    DeclineBlock,
    Discard,
    Discarded,
    GameEnded,
    JesterPlayed,
    JesterTurned,
    KingPlayed,
    KnightBounced,
    KnightPlayed,
    KnightWasted,
    Phase,
    PlaceQueen,
    PlayJester,
    PlayKing,
    PlayKnight,
    PlayPotion,
    Position,
    PotionPlayed,
    QueenBounced,
    QueenPutToSleep,
    QueensLaid,
    QueenStolen,
    QueenWoken,
    RoseBonus,
    TurnStarted,
    WakeQueen,
)
from referee.games.sleeping_queens.rules import DECK, QUEEN_DECK, is_valid_discard
from referee.v1 import referee_pb2 as pb
from tests.games.helpers import names as kinds
from tests.games.helpers import rejected, says_why

GAME = "sleeping-queens"
SQ = get_game(GAME)

# Default positions (QUEEN_DECK order).
AT = {queen: position for position, queen in enumerate(range(1, 13))}


def deal(
    *hands: Sequence[str],
    draw: Sequence[str] = (),
    queens: Sequence[str] = QUEEN_DECK,
    first: int = 0,
    reshuffles: Sequence[Sequence[str]] = (),
) -> FixedDeal:
    """Hands by seat (5 cards each), then the top of the draw pile (top first); the rest of
    the 67 cards follow in canonical order (Kings, Jesters, Knights, Potions, Wands, Dragons,
    1s, ..., 10s)."""
    top = [card for hand in hands for card in hand] + list(draw)
    rest = Counter(DECK)
    rest.subtract(top)
    assert min(rest.values()) >= 0, f"more cards than the deck holds: {rest}"
    remaining = []
    for card in DECK:
        if rest[card] > 0:
            remaining.append(card)
            rest[card] -= 1
    return FixedDeal(
        decks=(tuple(top + remaining), tuple(queens), *(tuple(r) for r in reshuffles)),
        picks=(first,),
    )


def new(
    players: int,
    *hands: Sequence[str],
    draw: Sequence[str] = (),
    queens: Sequence[str] = QUEEN_DECK,
    first: int = 0,
    option: str | None = None,
    reshuffles: Sequence[Sequence[str]] = (),
) -> Table[Any]:
    options = {"knight_cat_dog": option} if option else {}
    fixed = deal(*hands, draw=draw, queens=queens, first=first, reshuffles=reshuffles)
    return Table.create(GAME, players, options=options, seed=b"test", deal=fixed)


def given(table: Table[Any], *events: Any, turn: int) -> None:
    """Fold ``events`` into the table, then start ``turn``'s turn."""
    table.extend([*events, TurnStarted(turn)])


def awake(seat: int, *queens: int) -> list[QueenWoken]:
    """Events waking ``queens`` (at their default positions) in front of ``seat``."""
    return [QueenWoken(seat, AT[q], q) for q in queens]


def hand(table: Table[Any], seat: int | None) -> tuple[int, ...]:
    cards: tuple[int, ...] = table.view(seat).game.hand
    return cards


def codes(*cards: str) -> tuple[int, ...]:
    """Card codes, sorted, of cards in deal notation."""
    return tuple(sorted(NOTATION_CARD[c] for c in cards))


#: Hands without power cards for seats 0-4 (together within the deck's 4 copies of a number).
FILL = (
    ("6", "6", "7", "8", "9"),
    ("7", "7", "8", "9", "10"),
    ("5", "5", "6", "8", "9"),
    ("4", "4", "6", "9", "10"),
    ("3", "3", "7", "8", "10"),
)
PLAIN, PLAIN2 = FILL[0], FILL[1]


def fillers(players: int, **special: Sequence[str]) -> list[Sequence[str]]:
    """Filler hands for ``players`` seats, with ``seat0=[...]`` etc. replacing some."""
    hands: list[Sequence[str]] = list(FILL[:players])
    for key, cards in special.items():
        hands[int(key.removeprefix("seat"))] = cards
    return hands


# --- SQ-1, SQ-2, SQ-3: components and setup ----------------------------------------------------


def test_sq1_queen_points() -> None:
    """SQ-1: twelve queens, 125 points; waking the Heart Queen scores 20."""
    assert sum(QUEEN_POINTS) == 125
    assert [QUEEN_POINTS[q] for q in (ROSE, LADYBUG, CAT, HEART)] == [5, 10, 15, 20]
    table = new(2, ["K", *PLAIN[:4]], PLAIN2)
    table.submit(0, PlayKing(AT[HEART]))
    assert table.view(1).game.awake[0].queens == (HEART,)
    assert table.view(1).game.awake[0].points == 20


def test_sq2_the_deck_holds_67_cards() -> None:
    """SQ-2: 8 Kings, 5 Jesters, 4 Knights, 4 Potions, 3 Wands, 3 Dragons, 4 each of 1-10."""
    counts = Counter(DECK)
    assert len(DECK) == 67
    assert [counts[c] for c in "KJNPWD"] == [8, 5, 4, 4, 3, 3]
    assert all(counts[str(n)] == 4 for n in range(1, 11))
    table = Table.create(GAME, 3, seed=b"sq2")
    view = table.view(None).game
    assert sum(view.hand_sizes) + view.draw_pile_size == 67


def test_sq2_sq3_fixed_deal_is_validated() -> None:
    """SQ-2/SQ-3: a fixed deal must hold the 67 cards, the 12 queens and a seat index."""
    good = deal()
    with pytest.raises(ValueError, match="67 cards of SQ-2"):
        Table.create(GAME, 2, deal=FixedDeal(decks=(good.decks[0][:-1],)))
    with pytest.raises(ValueError, match="12 queens"):
        Table.create(GAME, 2, deal=FixedDeal(decks=(good.decks[0], ("rose",) * 12)))
    with pytest.raises(ValueError, match="starting seat"):
        Table.create(GAME, 2, deal=FixedDeal(decks=good.decks, picks=(2,)))
    with pytest.raises(SetupRefused, match="no card 'Q'") as refused:
        Table.create(GAME, 2, deal=FixedDeal(decks=(*good.decks, ("Q",))))
    assert refused.value.field == "deal.decks[2]"
    # SQ-14: a reshuffle deck gives top cards only, but never more copies than the game has.
    with pytest.raises(SetupRefused, match="more copies of 'K'") as refused:
        Table.create(GAME, 2, deal=FixedDeal(decks=(*good.decks, ("1",), ("K",) * 9)))
    assert refused.value.field == "deal.decks[3]"
    with pytest.raises(SetupRefused, match="starting seat") as refused:
        Table.create(GAME, 2, deal=FixedDeal(decks=good.decks, picks=(-1,)))
    assert refused.value.field == "deal.picks[0]"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_sq3_setup(players: int) -> None:
    """SQ-3: 2-5 players, 5 cards each, 12 queens face down, the fixed pick starts."""
    table = new(players, first=players - 1)
    view = table.view(0).game
    assert view.hand_sizes == (5,) * players
    assert view.draw_pile_size == 67 - 5 * players
    assert view.discard_pile == ()
    assert view.positions == tuple(Position(p, True, 0) for p in range(12))
    assert view.turn == players - 1
    assert table.decisions() == (Decision(players - 1, "turn", "SQ-4"),)
    # Seat s is dealt decks[0][5s:5s+5].
    assert hand(table, 0) == codes(*DECK[:5])


@pytest.mark.parametrize("players", [0, 1, 6])
def test_sq3_player_count(players: int) -> None:
    """SQ-3: only 2 to 5 players."""
    with pytest.raises(ValueError, match="2 to 5 players"):
        Table.create(GAME, players)


def test_sq3_option_is_listed_with_its_values() -> None:
    """SQ-3/SQ-12: the game type lists option knight_cat_dog (default illegal)."""
    (option,) = SQ.info.options
    assert (option.name, option.default, option.allowed) == (
        "knight_cat_dog",
        "illegal",
        ("illegal", "wasted", "bounce"),
    )
    assert (SQ.info.min_players, SQ.info.max_players) == (2, 5)
    table = Table.create(GAME, 2, options={"knight_cat_dog": "bounce"}, seed=b"o")
    assert table.view(None).game.knight_cat_dog == "bounce"


# --- SQ-4: a turn -------------------------------------------------------------------------------


def test_sq4_one_action_then_refill_and_the_next_player() -> None:
    """SQ-4: exactly one action, then draw up to 5; play goes clockwise."""
    table = new(3, *FILL[:3], draw=["3"])
    events = table.submit(0, Discard((9,)))
    assert events == [Discarded(0, (9,)), CardsDrawn(0, 1, (3,)), TurnStarted(1)]
    assert hand(table, 0) == (3, 6, 6, 7, 8)
    assert table.decisions() == (Decision(1, "turn", "SQ-4"),)


def test_sq4_only_the_turn_player_may_act() -> None:
    """SQ-4: a command from another seat is FAILED_PRECONDITION naming the pending rule."""
    table = new(3, *FILL[:3], first=0)
    for seat in (1, 2):
        rejection = rejected(table, seat, Discard((7,)))
        assert (rejection.kind, rejection.rule_id) == ("precondition", "SQ-4")
        assert table.legal_commands(seat) == []


def test_sq4_no_passing_a_single_discard_is_always_legal_and_the_default() -> None:
    """SQ-4: there is no pass; the default command is the single discard of the lowest card,
    unless the seat holds a King: then it wakes the first sleeping queen (SQ-5), so a game of
    timeouts moves on."""
    table = new(2, ["K", "N", "D", "W", "J"])
    legal = table.legal_commands(0)
    assert [c for c in legal if isinstance(c, Discard)] == [
        Discard((KING,)),
        Discard((JESTER,)),
        Discard((KNIGHT,)),
        Discard((WAND,)),
        Discard((DRAGON,)),
    ]
    assert SQ.default_command(table.state, 0) == PlayKing(0)
    assert SQ.default_command(table.state, 1) is None
    without_king = new(2, ["1", "N", "D", "W", "J"])
    assert SQ.default_command(without_king.state, 0) == Discard((1,))


def test_sq4_malformed_commands_are_refused() -> None:
    """SQ-4: a library caller may send anything; wrong types are INVALID_ARGUMENT under the
    rule of the pending turn, the message naming the field (the engine's shape check)."""
    table = new(2, ["K", "N", "1", "2", "3"], PLAIN2)
    given(table, *awake(1, CAT), turn=0)
    malformed: list[tuple[Any, str]] = [
        (PlayKing(True), "PlayKing.position must be an integer, got True"),
        (PlayKing("3"), "PlayKing.position must be an integer"),  # type: ignore[arg-type]
        (PlayKnight(None), "PlayKnight.queen must be an integer"),  # type: ignore[arg-type]
        (Discard([1]), "Discard.cards must be a tuple, got [1]"),  # type: ignore[arg-type]
        (Discard(("1",)), "Discard.cards[0] must be an integer"),  # type: ignore[arg-type]
        (object(), "not a Sleeping Queens command: object"),
    ]
    for command, message in malformed:
        error = rejected(table, 0, command)
        assert (error.kind, error.rule_id) == ("illegal", "SQ-4")
        assert error.message.startswith(message)
    assert table.legal_commands(0), "nothing changed: the turn is still seat 0's"


def test_sq6_a_malformed_answer_to_a_knight_cites_the_block() -> None:
    """SQ-6: the pending decision's rule is the one a malformed command cites."""
    table = new(2, ["N", "1", "2", "3", "4"], ["D", "5", "6", "7", "8"])
    given(table, *awake(1, CAT), turn=0)
    table.submit(0, PlayKnight(CAT))
    error = rejected(table, 1, PlayKing(1.0))  # type: ignore[arg-type]
    assert (error.kind, error.rule_id) == ("illegal", "SQ-6")


# --- SQ-5: King ----------------------------------------------------------------------------------


def test_sq5_king_wakes_the_queen_at_a_position() -> None:
    """SQ-5: the King is discarded and the queen at the chosen position wakes, face up."""
    table = new(2, ["K", *PLAIN[:4]], PLAIN2, draw=["10"])
    legal = table.legal_commands(0)
    assert [c for c in legal if isinstance(c, PlayKing)] == [PlayKing(p) for p in range(12)]
    events = table.submit(0, PlayKing(AT[MOON]))
    assert events == [
        KingPlayed(0, AT[MOON]),
        QueenWoken(0, AT[MOON], MOON),
        CardsDrawn(0, 1, (10,)),
        TurnStarted(1),
    ]
    view = table.view(1).game
    assert view.positions[AT[MOON]] == Position(AT[MOON], False, 0)
    assert view.awake[0].queens == (MOON,)
    assert view.discard_pile == (KING,)


def test_sq5_king_at_an_empty_position_or_without_a_king_is_refused() -> None:
    """SQ-5: a King needs a sleeping queen at the position: empty or off the table is refused."""
    table = new(2, ["K", "K", *PLAIN[:3]], ["K", *PLAIN2[:4]])
    table.submit(0, PlayKing(3))
    table.submit(1, PlayKing(4))
    for position in (3, 4, -1, 12):
        rejection = rejected(table, 0, PlayKing(position))
        assert (rejection.kind, rejection.rule_id) == ("illegal", "SQ-5")
    assert PlayKing(3) not in table.legal_commands(0)
    without = new(2, PLAIN, PLAIN2)
    assert not any(isinstance(c, PlayKing) for c in without.legal_commands(0))
    rejection = rejected(without, 0, PlayKing(0))
    assert (rejection.kind, rejection.rule_id) == ("illegal", "SQ-5")


# --- SQ-6: Knight and Dragon -----------------------------------------------------------------


def knight_table(defender: Sequence[str], players: int = 3) -> Table[Any]:
    """Seat 1 holds the Moon Queen; seat 0 (to play) holds a Knight."""
    hands = fillers(players, seat0=["N", *PLAIN[:4]], seat1=defender)
    table = new(players, *hands, draw=["10", "9", "8"])
    given(table, *awake(1, MOON), turn=0)
    return table


def test_sq6_knight_waits_for_the_targeted_player_only() -> None:
    """SQ-6: after a Knight only the queen's owner decides; the others get FAILED_PRECONDITION."""
    table = knight_table(["D", "1", "2", "4", "5"])
    assert PlayKnight(MOON) in table.legal_commands(0)
    events = table.submit(0, PlayKnight(MOON))
    assert events == [KnightPlayed(0, 1, MOON)]
    assert table.decisions() == (Decision(1, "block_knight", "SQ-6"),)
    view = table.view(2)
    assert view.pending == (1,)
    assert (view.game.phase, view.game.decider, view.game.turn) == (Phase.BLOCK, 1, 0)
    assert (view.game.attacker, view.game.target_queen) == (0, MOON)
    # Holding a Dragon does not block by itself: the defender chooses.
    assert table.legal_commands(1) == [DeclineBlock(), Block()]
    assert SQ.default_command(table.state, 1) == DeclineBlock()
    for seat, command in ((2, Block()), (0, DeclineBlock()), (2, Discard((7,)))):
        rejection = rejected(table, seat, command)
        assert (rejection.kind, rejection.rule_id) == ("precondition", "SQ-6")
        assert table.legal_commands(seat) == []


def test_sq6_dragon_blocks_the_knight() -> None:
    """SQ-6: Knight and Dragon discarded, the defender draws 1 at once, the queen stays, the
    attacker's turn is over (the attacker refills; SQ-13), play goes on left of the attacker."""
    table = knight_table(["D", "1", "2", "4", "5"])
    table.submit(0, PlayKnight(MOON))
    events = table.submit(1, Block())
    assert events == [
        Blocked(1, DRAGON),
        CardsDrawn(1, 1, (10,)),
        CardsDrawn(0, 1, (9,)),
        TurnStarted(1),
    ]
    view = table.view(None).game
    assert view.awake[1].queens == (MOON,)
    assert view.discard_pile == (KNIGHT, DRAGON)
    assert view.hand_sizes == (5, 5, 5)


def test_sq6_declined_knight_steals_the_queen() -> None:
    """SQ-6: not blocked, the attacker takes the queen."""
    table = knight_table(["D", "1", "2", "4", "5"])
    table.submit(0, PlayKnight(MOON))
    events = table.submit(1, DeclineBlock())
    assert events == [
        BlockDeclined(1),
        QueenStolen(0, 1, MOON),
        CardsDrawn(0, 1, (10,)),
        TurnStarted(1),
    ]
    view = table.view(None).game
    assert (view.awake[0].queens, view.awake[1].queens) == ((MOON,), ())
    assert (view.awake[0].points, view.awake[1].points) == (10, 0)


def test_sq6_target_without_a_dragon_is_still_asked() -> None:
    """SQ-6: the target is asked even without a Dragon (else everyone would learn it holds
    none); Block is then refused INVALID_ARGUMENT."""
    table = knight_table(["W", "1", "2", "4", "5"])
    table.submit(0, PlayKnight(MOON))
    assert table.pending() == (1,)
    assert table.legal_commands(1) == [DeclineBlock()]
    rejection = rejected(table, 1, Block())
    assert (rejection.kind, rejection.rule_id) == ("illegal", "SQ-6")


def test_sq6_knight_targets() -> None:
    """SQ-6: only an opponent's awake queen; none when no opponent has one."""
    table = new(2, ["N", "K", *PLAIN[:3]], PLAIN2)
    assert not any(isinstance(c, PlayKnight) for c in table.legal_commands(0))
    assert rejected(table, 0, PlayKnight(MOON)).rule_id == "SQ-6"
    given(table, *awake(0, CAKE), *awake(1, MOON), turn=0)
    assert [c for c in table.legal_commands(0) if isinstance(c, PlayKnight)] == [PlayKnight(MOON)]
    for queen in (CAKE, HEART, 0, 13):  # own queen, sleeping queen, no queen
        rejection = rejected(table, 0, PlayKnight(queen))
        assert (rejection.kind, rejection.rule_id) == ("illegal", "SQ-6")


# --- SQ-7: Sleeping Potion and Wand -----------------------------------------------------------


def potion_table(defender: Sequence[str]) -> Table[Any]:
    table = new(3, *fillers(3, seat0=["P", *PLAIN[:4]], seat1=defender), draw=["10", "9"])
    given(table, *awake(1, MOON, HEART), turn=0)
    return table


def test_sq7_potion_declined_the_attacker_places_the_queen() -> None:
    """SQ-7: not blocked, the queen goes face down into an empty position the attacker chooses
    (a follow-up decision, place_queen); everyone knows her there (SQ-18)."""
    table = potion_table(["W", "1", "2", "4", "5"])
    assert table.submit(0, PlayPotion(HEART)) == [PotionPlayed(0, 1, HEART)]
    assert table.decisions() == (Decision(1, "block_potion", "SQ-7"),)
    assert table.legal_commands(1) == [DeclineBlock(), Block()]
    assert table.submit(1, DeclineBlock()) == [BlockDeclined(1)]
    assert table.decisions() == (Decision(0, "place_queen", "SQ-7"),)
    assert table.legal_commands(0) == [PlaceQueen(AT[MOON]), PlaceQueen(AT[HEART])]
    for position in (0, -1, 12):
        rejection = rejected(table, 0, PlaceQueen(position))
        assert (rejection.kind, rejection.rule_id) == ("illegal", "SQ-7")
    assert rejected(table, 1, PlaceQueen(AT[MOON])).kind == "precondition"
    events = table.submit(0, PlaceQueen(AT[MOON]))
    assert events == [
        QueenPutToSleep(1, HEART, AT[MOON], 0),
        CardsDrawn(0, 1, (10,)),
        TurnStarted(1),
    ]
    view = table.view(2).game
    assert view.positions[AT[MOON]] == Position(AT[MOON], True, HEART)
    assert view.awake[1].queens == (MOON,)


def test_sq7_wand_blocks_the_potion_a_dragon_does_not() -> None:
    """SQ-7: only a Wand answers a Potion."""
    table = potion_table(["D", "1", "2", "4", "5"])
    table.submit(0, PlayPotion(MOON))
    assert table.legal_commands(1) == [DeclineBlock()]
    assert rejected(table, 1, Block()).rule_id == "SQ-7"
    table = potion_table(["W", "1", "2", "4", "5"])
    table.submit(0, PlayPotion(MOON))
    assert table.submit(1, Block()) == [
        Blocked(1, WAND),
        CardsDrawn(1, 1, (10,)),
        CardsDrawn(0, 1, (9,)),
        TurnStarted(1),
    ]
    assert table.view(0).game.awake[1].queens == (MOON, HEART)


def test_sq7_potion_targets() -> None:
    """SQ-7: an opponent's awake queen only."""
    table = potion_table(["W", "1", "2", "4", "5"])
    given(table, *awake(0, CAKE), turn=0)
    for queen in (CAKE, ROSE, 0):
        rejection = rejected(table, 0, PlayPotion(queen))
        assert (rejection.kind, rejection.rule_id) == ("illegal", "SQ-7")
    assert [c for c in table.legal_commands(0) if isinstance(c, PlayPotion)] == [
        PlayPotion(MOON),
        PlayPotion(HEART),
    ]


# --- SQ-8: Jester ---------------------------------------------------------------------------------


def test_sq8_jester_turns_a_power_card_another_turn_without_drawing() -> None:
    """SQ-8: a power card goes to the hand and the same player takes another full turn at
    once, with no draw in between; the turned card is public (SQ-19)."""
    table = new(2, ["J", *PLAIN[:4]], PLAIN2, draw=["K", "5"])
    events = table.submit(0, PlayJester())
    assert events == [JesterPlayed(0), JesterTurned(0, KING, None)]
    assert table.decisions() == (Decision(0, "turn", "SQ-4"),)
    assert hand(table, 0) == (6, 6, 7, 8, KING)
    assert table.view(1).game.jester_card == KING
    assert table.view(1).game.hand_sizes == (5, 5)
    events = table.submit(0, PlayKing(AT[CAKE]))
    assert events[-2:] == [CardsDrawn(0, 1, (5,)), TurnStarted(1)]


@pytest.mark.parametrize(
    ("players", "jester_seat", "card", "counted"),
    [(4, 0, "3", 2), (4, 3, "2", 0), (2, 1, "5", 1), (3, 0, "1", 0), (5, 2, "10", 1)],
)
def test_sq8_jester_number_counts_players_clockwise(
    players: int, jester_seat: int, card: str, counted: int
) -> None:
    """SQ-8: counting from the Jester's player as 1, seat (current + n - 1) mod players wakes
    a queen; only that seat decides; the Jester's player refills, the counted hand is unchanged."""
    hands = fillers(players)
    hands[jester_seat] = ["J", *FILL[jester_seat][:4]]
    table = new(players, *hands, draw=[card, "1"], first=jester_seat)
    events = table.submit(jester_seat, PlayJester())
    assert events == [JesterPlayed(jester_seat), JesterTurned(jester_seat, int(card), counted)]
    assert table.decisions() == (Decision(counted, "jester_wake", "SQ-8"),)
    assert table.legal_commands(counted) == [WakeQueen(p) for p in range(12)]
    for seat in set(range(players)) - {counted}:
        assert rejected(table, seat, WakeQueen(1)).kind == "precondition"
    counted_hand = hand(table, counted)
    events = table.submit(counted, WakeQueen(AT[CAKE]))
    assert events == [
        QueenWoken(counted, AT[CAKE], CAKE),
        CardsDrawn(jester_seat, 1, (1,)),
        TurnStarted((jester_seat + 1) % players),
    ]
    if counted != jester_seat:
        assert hand(table, counted) == counted_hand
    assert table.view(None).game.discard_pile == (JESTER, int(card))


def test_sq8_wake_refused_off_a_sleeping_position() -> None:
    """SQ-8: the counted player must pick a sleeping queen's position."""
    table = new(2, ["J", *PLAIN[:4]], PLAIN2, draw=["2"])
    given(table, *awake(0, CAKE), turn=0)
    table.submit(0, PlayJester())
    for position in (AT[CAKE], -1, 12):
        rejection = rejected(table, 1, WakeQueen(position))
        assert (rejection.kind, rejection.rule_id) == ("illegal", "SQ-8")
    assert rejected(table, 1, PlayKing(0)).rule_id == "SQ-8"


def test_sq8_sq15_jester_count_onto_another_player_who_then_wins() -> None:
    """SQ-8 + SQ-15: the counted player's 4th queen (4 players) wins at once, on the Jester
    player's turn; no refill follows."""
    table = new(4, *fillers(4, seat0=["J", *PLAIN[:4]]), draw=["3"])
    given(table, *awake(2, CAKE, RAINBOW, STARFISH), turn=0)
    table.submit(0, PlayJester())
    assert table.pending() == (2,)
    events = table.submit(2, WakeQueen(AT[MOON]))
    assert events == [
        QueenWoken(2, AT[MOON], MOON),
        GameEnded("SQ-15", (2,), (0, 0, 25, 0), (0, 0, 4, 0)),
    ]
    assert table.pending() == ()
    results = table.results()
    assert results is not None
    assert [r.rank for r in results] == [2, 2, 1, 2]
    assert table.view(0).game.winners == (2,)


# --- SQ-9: discard to draw ------------------------------------------------------------------------


def test_sq9_legal_discards_are_the_distinct_ones() -> None:
    """SQ-9: every distinct single, pair and equation the hand allows, each once."""
    table = new(2, ["2", "2", "3", "5", "K"])
    discards = [c for c in table.legal_commands(0) if isinstance(c, Discard)]
    assert discards == [
        Discard((2,)),
        Discard((3,)),
        Discard((5,)),
        Discard((KING,)),
        Discard((2, 2)),
        Discard((2, 3, 5)),
    ]
    table = new(2, ["1", "2", "3", "4", "10"])
    equations = [c.cards for c in table.legal_commands(0) if len(c.cards) >= 3]
    assert equations == [(1, 2, 3), (1, 3, 4), (1, 2, 3, 4, 10)]


def test_sq9_equation_discard_draws_as_many_cards() -> None:
    """SQ-9: 2 + 3 = 5 is discarded (public) and 3 cards are drawn."""
    table = new(2, ["2", "3", "5", "8", "9"], PLAIN2, draw=["1", "1", "4"])
    events = table.submit(0, Discard((2, 3, 5)))
    assert events == [Discarded(0, (2, 3, 5)), CardsDrawn(0, 3, (1, 1, 4)), TurnStarted(1)]
    assert table.view(1).game.discard_pile == (2, 3, 5)


@pytest.mark.parametrize(
    "cards",
    [
        (2, 3, 6),  # does not add up
        (2, 2, 3, 8),  # 2 + 2 + 3 = 7
        (KING, KING),  # two identical power cards are not a pair
        (2, 3),  # a pair is two equal numbers
        (2, 3, KING),  # an equation is numbers only
        (5, 3, 2),  # not in ascending order
        (7,),  # not held
        (2, 2, 2, 6),  # only two 2s held
        (),
        (17,),
    ],
)
def test_sq9_bad_discards_are_refused(cards: tuple[int, ...]) -> None:
    """SQ-9: each bad discard is INVALID_ARGUMENT and changes nothing."""
    table = new(2, ["2", "2", "3", "K", "K"])
    rejection = rejected(table, 0, Discard(cards))
    assert rejection.kind == "illegal"
    assert rejection.rule_id in ("SQ-9", "SQ-2")
    assert not is_valid_discard(cards) or rejection.rule_id == "SQ-9"


# --- SQ-10: Dragons and Wands ------------------------------------------------------------------


def test_sq10_dragons_and_wands_are_never_an_action() -> None:
    """SQ-10: Dragons and Wands can only be discarded (or block)."""
    table = new(2, ["D", "W", "D", "W", "1"])
    assert table.legal_commands(0) == [Discard((1,)), Discard((WAND,)), Discard((DRAGON,))]
    rejection = rejected(table, 0, Block())
    assert (rejection.kind, rejection.rule_id) == ("illegal", "SQ-10")
    rejection = rejected(table, 0, Discard((DRAGON, DRAGON)))
    assert rejection.rule_id == "SQ-9"


# --- SQ-11: Rose Queen ------------------------------------------------------------------------


def test_sq11_sq13_rose_bonus_after_a_king() -> None:
    """SQ-11: waking the Rose Queen wakes one more queen of the same player's choice; the refill
    waits until that bonus is done (SQ-13)."""
    table = new(2, ["K", *PLAIN[:4]], PLAIN2, draw=["10"])
    events = table.submit(0, PlayKing(AT[ROSE]))
    assert events == [KingPlayed(0, AT[ROSE]), QueenWoken(0, AT[ROSE], ROSE), RoseBonus(0, False)]
    assert table.decisions() == (Decision(0, "rose_wake", "SQ-11"),)
    assert table.view(0).game.hand_sizes == (4, 5)  # SQ-13: no refill yet
    assert table.legal_commands(0) == [WakeQueen(p) for p in range(1, 12)]
    assert rejected(table, 0, WakeQueen(AT[ROSE])).rule_id == "SQ-11"
    assert rejected(table, 0, Discard((6,))).rule_id == "SQ-11"
    assert rejected(table, 1, WakeQueen(1)).kind == "precondition"
    events = table.submit(0, WakeQueen(AT[HEART]))
    assert events == [
        QueenWoken(0, AT[HEART], HEART),
        CardsDrawn(0, 1, (10,)),
        TurnStarted(1),
    ]
    assert table.view(1).game.awake[0].queens == (ROSE, HEART)


def test_sq11_rose_bonus_goes_to_the_player_counted_by_a_jester() -> None:
    """SQ-11 + SQ-8: a Jester count that wakes the Rose Queen gives the counted player the
    bonus; then the Jester's player refills."""
    table = new(3, *fillers(3, seat0=["J", *PLAIN[:4]]), draw=["2", "10"])
    table.submit(0, PlayJester())
    assert table.submit(1, WakeQueen(AT[ROSE]))[-1] == RoseBonus(1, False)
    assert table.decisions() == (Decision(1, "rose_wake", "SQ-11"),)
    events = table.submit(1, WakeQueen(AT[CAT]))
    assert events == [QueenWoken(1, AT[CAT], CAT), CardsDrawn(0, 1, (10,)), TurnStarted(1)]


def test_sq11_no_bonus_for_a_stolen_rose() -> None:
    """SQ-11: no bonus when the Rose Queen is stolen by a Knight."""
    table = new(2, ["N", *PLAIN[:4]], PLAIN2, draw=["10"])
    given(table, *awake(1, ROSE), turn=0)
    table.submit(0, PlayKnight(ROSE))
    events = table.submit(1, DeclineBlock())
    assert events == [
        BlockDeclined(1),
        QueenStolen(0, 1, ROSE),
        CardsDrawn(0, 1, (10,)),
        TurnStarted(1),
    ]


def test_sq11_sq16_rose_bonus_lost_when_no_queen_sleeps() -> None:
    """SQ-11: the Rose Queen as the last sleeping queen: the bonus is lost, and then no queen
    sleeps, so the game ends (SQ-16)."""
    table = new(5, *fillers(5, seat0=["K", *PLAIN[:4]]))
    given(
        table,
        *awake(0, HEART, CAKE),  # 25 (with the Rose 30: below 4 queens / 40 points)
        *awake(1, CAT, PANCAKE, STARFISH),  # 35
        *awake(2, DOG, LADYBUG, MOON),  # 35
        *awake(3, SUNFLOWER, PEACOCK, RAINBOW),  # 25
        turn=0,
    )
    assert table.view(None).game.positions[AT[ROSE]].asleep
    assert sum(p.asleep for p in table.view(None).game.positions) == 1
    events = table.submit(0, PlayKing(AT[ROSE]))
    assert events == [
        KingPlayed(0, AT[ROSE]),
        QueenWoken(0, AT[ROSE], ROSE),
        RoseBonus(0, True),
        GameEnded("SQ-16", (1, 2), (30, 35, 35, 25, 0), (3, 3, 3, 3, 0)),
    ]


def test_sq11_sq16_rose_woken_again_gives_the_bonus_again() -> None:
    """SQ-11: put back to sleep and woken again, the Rose Queen gives the bonus again; SQ-18:
    her position was public."""
    table = new(2, ["P", *PLAIN[:4]], ["K", *PLAIN2[:4]], draw=["10", "9"])
    given(table, *awake(1, ROSE), turn=0)
    table.submit(0, PlayPotion(ROSE))
    table.submit(1, DeclineBlock())
    table.submit(0, PlaceQueen(AT[ROSE]))
    assert table.view(1).game.positions[AT[ROSE]] == Position(AT[ROSE], True, ROSE)
    events = table.submit(1, PlayKing(AT[ROSE]))
    assert events[-1] == RoseBonus(1, False)
    assert table.view(0).game.positions[AT[ROSE]] == Position(AT[ROSE], False, 0)


# --- SQ-12: Cat and Dog -------------------------------------------------------------------------


def test_sq12_waking_the_cat_while_holding_the_dog() -> None:
    """SQ-12: she goes back face down at the same position (now known, SQ-18), the turn ends;
    she never counts for SQ-15."""
    table = new(2, ["K", *PLAIN[:4]], PLAIN2, draw=["10"])
    given(table, *awake(0, DOG, HEART, PANCAKE), turn=0)  # 50 points would win with the Cat
    events = table.submit(0, PlayKing(AT[CAT]))
    assert events == [
        KingPlayed(0, AT[CAT]),
        QueenBounced(0, AT[CAT], CAT),
        CardsDrawn(0, 1, (10,)),
        TurnStarted(1),
    ]
    view = table.view(1).game
    assert view.positions[AT[CAT]] == Position(AT[CAT], True, CAT)
    assert view.awake[0].queens == (DOG, HEART, PANCAKE)


def test_sq12_counted_player_holding_the_cat_turns_up_the_dog() -> None:
    """SQ-12 + SQ-8: the Cat/Dog rule applies to the counted player."""
    table = new(2, ["J", *PLAIN[:4]], PLAIN2, draw=["2", "10"])
    given(table, *awake(1, CAT), turn=0)
    table.submit(0, PlayJester())
    events = table.submit(1, WakeQueen(AT[DOG]))
    assert events == [QueenBounced(1, AT[DOG], DOG), CardsDrawn(0, 1, (10,)), TurnStarted(1)]


def cat_dog_knight(option: str) -> Table[Any]:
    """Seat 0 holds the Dog Queen and a Knight; seat 1 holds the Cat Queen."""
    table = new(2, ["N", *PLAIN[:4]], PLAIN2, draw=["10"], option=option)
    given(table, *awake(0, DOG), *awake(1, CAT, MOON), turn=0)
    return table


def test_sq12_knight_on_the_cat_holding_the_dog_illegal() -> None:
    """SQ-12, knight_cat_dog=illegal (default): not legal, refused with SQ-12."""
    table = cat_dog_knight("illegal")
    knights = [c for c in table.legal_commands(0) if isinstance(c, PlayKnight)]
    assert knights == [PlayKnight(MOON)]
    rejection = rejected(table, 0, PlayKnight(CAT))
    assert (rejection.kind, rejection.rule_id) == ("illegal", "SQ-12")


def test_sq12_knight_on_the_cat_holding_the_dog_wasted() -> None:
    """SQ-12, knight_cat_dog=wasted: the target may still block; if not, nothing moves."""
    table = cat_dog_knight("wasted")
    assert PlayKnight(CAT) in table.legal_commands(0)
    table.submit(0, PlayKnight(CAT))
    assert table.pending() == (1,)
    events = table.submit(1, DeclineBlock())
    assert events == [
        BlockDeclined(1),
        KnightWasted(0, CAT),
        CardsDrawn(0, 1, (10,)),
        TurnStarted(1),
    ]
    assert table.view(0).game.awake[1].queens == (CAT, MOON)
    assert table.view(0).game.discard_pile == (KNIGHT,)


def test_sq12_knight_on_the_cat_holding_the_dog_bounce() -> None:
    """SQ-12, knight_cat_dog=bounce: the stolen queen goes back to sleep at an empty position
    the Knight's player chooses (a place_queen decision under SQ-12)."""
    table = cat_dog_knight("bounce")
    table.submit(0, PlayKnight(CAT))
    events = table.submit(1, DeclineBlock())
    assert events == [BlockDeclined(1), KnightBounced(0, 1, CAT)]
    assert table.decisions() == (Decision(0, "place_queen", "SQ-12"),)
    assert rejected(table, 0, PlaceQueen(AT[ROSE])).rule_id == "SQ-12"
    events = table.submit(0, PlaceQueen(AT[MOON]))
    assert events == [QueenPutToSleep(1, CAT, AT[MOON], 0), CardsDrawn(0, 1, (10,)), TurnStarted(1)]
    view = table.view(None).game
    assert view.awake[1].queens == (MOON,)
    assert view.awake[0].queens == (DOG,)
    assert view.positions[AT[MOON]] == Position(AT[MOON], True, CAT)


@pytest.mark.parametrize("option", ["illegal", "wasted", "bounce"])
def test_sq12_knight_on_the_cat_without_the_dog_steals(option: str) -> None:
    """SQ-12: the option only matters when the attacker holds the rival queen."""
    table = new(2, ["N", *PLAIN[:4]], PLAIN2, draw=["10"], option=option)
    given(table, *awake(1, CAT), turn=0)
    table.submit(0, PlayKnight(CAT))
    assert table.submit(1, DeclineBlock())[1] == QueenStolen(0, 1, CAT)


def test_sq12_dragon_blocks_even_a_wasted_knight() -> None:
    """SQ-12 wasted + SQ-6: the block procedure is the same."""
    table = new(2, ["N", *PLAIN[:4]], ["D", *PLAIN2[:4]], draw=["10", "9"], option="wasted")
    given(table, *awake(0, DOG), *awake(1, CAT), turn=0)
    table.submit(0, PlayKnight(CAT))
    assert table.submit(1, Block())[0] == Blocked(1, DRAGON)


# --- SQ-13, SQ-14: drawing ------------------------------------------------------------------------


def test_sq13_refill_waits_for_the_block() -> None:
    """SQ-13: while the target decides, the attacker holds 4 cards; the refill follows."""
    table = knight_table(["1", "2", "4", "5", "10"])
    table.submit(0, PlayKnight(MOON))
    assert table.view(2).game.hand_sizes == (4, 5, 5)
    table.submit(1, DeclineBlock())
    assert table.view(2).game.hand_sizes == (5, 5, 5)


def play_until_a_refill_crosses_the_pile(table: Table[Any]) -> tuple[int, Discard]:
    """Play the longest discard each turn until one would need more cards than the pile
    holds (but the pile is not empty): returns the seat and that discard."""
    for _ in range(1000):
        seat = table.pending()[0]
        pile = table.view(None).game.draw_pile_size
        discards = [c for c in table.legal_commands(seat) if isinstance(c, Discard)]
        # The longest discard; among singles the highest card, so power cards cycle too.
        longest = max(discards, key=lambda c: (len(c.cards), c.cards))
        if 0 < pile < len(longest.cards):
            return seat, longest
        table.submit(seat, longest)
    raise AssertionError("no refill crossed the end of the draw pile")


def test_sq14_reshuffle_in_the_middle_of_a_refill() -> None:
    """SQ-14: the pile runs out during a refill: the cards left are drawn, the whole discard
    pile (this action's discard included) is shuffled into a new draw pile, the rest is drawn.
    The new order is in the log but no viewer sees it; the drawer alone sees its cards."""
    seed_table = Table.create(GAME, 2, seed=b"sq14")
    seat, discard = play_until_a_refill_crosses_the_pile(seed_table)
    pile = seed_table.view(None).game.draw_pile_size
    discard_pile = seed_table.view(None).game.discard_pile + discard.cards
    events = seed_table.submit(seat, discard)
    assert kinds(events) == [
        "Discarded",
        "CardsDrawn",
        "DeckShuffled",
        "CardsDrawn",
        "TurnStarted",
    ]
    first, shuffle, second = events[1], events[2], events[3]
    assert (first.seat, first.count, second.seat) == (seat, pile, seat)
    assert first.count + second.count == len(discard.cards)
    assert shuffle.reshuffle and shuffle.count == len(discard_pile) == len(shuffle.cards)
    assert sorted(shuffle.cards) == sorted(discard_pile)
    view = seed_table.view(None).game
    assert view.discard_pile == ()
    assert view.draw_pile_size == len(discard_pile) - second.count
    for viewer in (0, 1, None):
        assert SQ.redact(shuffle, viewer).cards == ()
        assert SQ.redact(first, viewer).cards == (first.cards if viewer == seat else ())
    assert Table.replay(seed_table.config, seed_table.log).state == seed_table.state


def test_sq14_fixed_reshuffle_order_from_the_deal() -> None:
    """SQ-14: decks[2] fixes the first reshuffle (a permutation of the discard pile then)."""
    base = deal()  # the canonical order, seat 0 starts
    probe = Table.create(GAME, 2, seed=b"sq14", deal=base)
    seat, discard = play_until_a_refill_crosses_the_pile(probe)
    pile = probe.view(None).game.discard_pile + discard.cards
    order = tuple(sorted(pile, reverse=True))  # a chosen order: the highest cards on top
    # Earlier reshuffles (at the start of a refill) are fixed as the probe's log recorded them.
    earlier = [e.cards for e in probe.log if type(e) is DeckShuffled and e.reshuffle]
    reshuffles = [tuple(CARD_NOTATION[c] for c in cards) for cards in [*earlier, order]]
    table = Table.create(GAME, 2, seed=b"sq14", deal=deal(reshuffles=reshuffles))
    assert play_until_a_refill_crosses_the_pile(table) == (seat, discard)  # the same game
    assert table.log == probe.log
    events = table.submit(seat, discard)
    assert events[2] == DeckShuffled(2 + len(earlier), len(order), order, True)
    rest = len(discard.cards) - events[1].count  # drawn from the new pile, top first
    assert events[3] == CardsDrawn(seat, rest, tuple(sorted(order[:rest])))


def test_sq14_a_reshuffle_deck_gives_its_top_cards_the_rest_from_the_seed() -> None:
    """SQ-14: what the discard pile holds is not known at creation, so a fixed deck for a
    reshuffle gives its top cards only: the listed cards that are in the pile go on top in the
    listed order (a listed card not there is skipped: referee.engine.chance.deck_for), the
    rest follow in the seed's order. Such a deck can never stop the game, nor
    fail it mid-game."""
    base = deal()
    probe = Table.create(GAME, 2, seed=b"sq14", deal=base)
    seat, discard = play_until_a_refill_crosses_the_pile(probe)
    pile = probe.view(None).game.discard_pile + discard.cards
    earlier = [e.cards for e in probe.log if type(e) is DeckShuffled and e.reshuffle]
    top = sorted(pile, reverse=True)[:2]
    given = tuple(CARD_NOTATION[c] for c in top)  # 2 of the pile's cards
    reshuffles = [*(tuple(CARD_NOTATION[c] for c in cards) for cards in earlier), given]
    table = Table.create(GAME, 2, seed=b"sq14", deal=deal(reshuffles=reshuffles))
    assert play_until_a_refill_crosses_the_pile(table) == (seat, discard)
    shuffle = table.submit(seat, discard)[2]
    assert type(shuffle) is DeckShuffled and shuffle.count == len(pile)
    assert shuffle.cards[:2] == (top[0], top[1])
    assert sorted(shuffle.cards) == sorted(pile)
    assert Table.replay(table.config, table.log).state == table.state


def test_sq8_sq14_jester_on_an_empty_draw_pile_reshuffles_first() -> None:
    """SQ-8 + SQ-14: a Jester with no draw pile: the discard pile (with the Jester) is
    reshuffled first, then its top card is turned."""
    table = new(2, ["J", *PLAIN[:4]], PLAIN2)
    for _ in range(500):
        seat = table.pending()[0]
        pile = table.view(None).game.draw_pile_size
        if seat == 0 and pile == 0:
            break
        discards = [c for c in table.legal_commands(seat) if isinstance(c, Discard)]
        keep = [c for c in discards if JESTER not in c.cards] or discards  # seat 0 keeps it
        exact = [c for c in keep if len(c.cards) == pile]
        short = [c for c in keep if len(c.cards) < pile] or keep
        # Seat 1 empties the pile exactly when it can; otherwise cycle as many cards as fit.
        most = max(short, key=lambda c: (len(c.cards), c.cards))
        choice = exact[0] if seat == 1 and exact else most
        table.submit(seat, choice)
    else:
        raise AssertionError("the draw pile never ran out before seat 0's turn")
    assert JESTER in hand(table, 0)
    discard_pile = table.view(None).game.discard_pile
    events = table.submit(0, PlayJester())
    assert kinds(events)[:3] == ["JesterPlayed", "DeckShuffled", "JesterTurned"]
    shuffle, turned = events[1], events[2]
    assert shuffle.reshuffle and sorted(shuffle.cards) == sorted((*discard_pile, JESTER))
    assert turned.card == shuffle.cards[0]
    assert SQ.redact(shuffle, 0).cards == ()


# --- SQ-15, SQ-16: end of game ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "held", "wins"),
    [
        (2, (CAKE, RAINBOW, STARFISH, LADYBUG), True),  # 5th queen, 2-3 players
        (3, (CAKE, RAINBOW, STARFISH), False),  # 4 queens, 35 points: not yet
        (3, (HEART, PANCAKE, CAKE), True),  # 20 + 15 + 5 + 10 = 50 points
        (3, (HEART, PANCAKE), False),  # 45 points, 3 queens
        (4, (CAKE, RAINBOW, STARFISH), True),  # 4th queen, 4-5 players
        (5, (HEART,), False),  # 2 queens, 30 points
        (5, (HEART, CAKE), False),  # 3 queens, 35 points
        (4, (HEART, PANCAKE), True),  # 20 + 15 + 10 = 45 >= 40
    ],
)
def test_sq15_thresholds(players: int, held: tuple[int, ...], wins: bool) -> None:
    """SQ-15: 5 queens or 50 points (2-3 players), 4 queens or 40 points (4-5 players); the
    King waking the Moon Queen (10) is the change of ownership checked."""
    hands = fillers(players, seat0=["K", *PLAIN[:4]])
    table = new(players, *hands)
    given(table, *awake(0, *held), turn=0)
    events = table.submit(0, PlayKing(AT[MOON]))
    queens = len(held) + 1
    points = sum(QUEEN_POINTS[q] for q in held) + 10
    limit_q, limit_p = (5, 50) if players <= 3 else (4, 40)
    assert wins == (queens >= limit_q or points >= limit_p)
    assert (type(events[-1]) is GameEnded) == wins
    if wins:
        assert events[-1].rule == "SQ-15" and events[-1].winners == (0,)


def test_sq15_fifty_points() -> None:
    """SQ-15: 50 points win at once with 2-3 players (Heart 20 + Pancake 15 + Cat 15)."""
    table = new(3, *fillers(3, seat0=["K", *PLAIN[:4]]))
    given(table, *awake(0, HEART, PANCAKE), turn=0)
    events = table.submit(0, PlayKing(AT[CAT]))
    assert events[-1] == GameEnded("SQ-15", (0,), (50, 0, 0), (3, 0, 0))
    # Later commands are refused by the rule that ended the game.
    assert rejected(table, 1, Discard((1,))).rule_id == "SQ-15"


def test_sq15_the_end_says_who_won_and_why() -> None:
    """SQ-15: the end says why in words (the winner's queens and points), with the rule."""
    table = new(3, *fillers(3, seat0=["K", *PLAIN[:4]]))
    given(table, *awake(0, HEART, PANCAKE), turn=0)
    table.submit(0, PlayKing(AT[CAT]))
    says_why(table, "SQ-15", "seat 0 woke 3 queens worth 50 points, reaching the target to win")


def test_sq15_win_by_a_steal_decided_on_the_defenders_command() -> None:
    """SQ-15: a steal that reaches the threshold ends the game at once."""
    table = new(4, *fillers(4, seat0=["N", *PLAIN[:4]]))
    given(table, *awake(0, CAKE, RAINBOW, STARFISH), *awake(3, HEART), turn=0)
    table.submit(0, PlayKnight(HEART))
    events = table.submit(3, DeclineBlock())
    assert events == [
        BlockDeclined(3),
        QueenStolen(0, 3, HEART),
        GameEnded("SQ-15", (0,), (35, 0, 0, 0), (4, 0, 0, 0)),
    ]


def test_sq15_game_over_refuses_every_command() -> None:
    """SQ-15: once over, every seat is refused FAILED_PRECONDITION and nothing is legal."""
    table = new(2, ["K", *PLAIN[:4]], PLAIN2)
    given(table, *awake(0, CAKE, RAINBOW, STARFISH, LADYBUG), turn=0)
    table.submit(0, PlayKing(AT[MOON]))
    for seat in (0, 1):
        assert table.legal_commands(seat) == []
        rejection = rejected(table, seat, Discard((6,)))
        assert (rejection.kind, rejection.rule_id) == ("precondition", "SQ-15")
    assert table.view(0).game.turn is None
    assert table.view(0).game.phase is Phase.OVER


def last_queen_table(
    held: dict[int, tuple[int, ...]], players: int = 5, king_seat: int = 0
) -> Table[Any]:
    hands = fillers(players)
    hands[king_seat] = ["K", *FILL[king_seat][:4]]
    table = new(players, *hands)
    given(table, *(e for seat, qs in held.items() for e in awake(seat, *qs)), turn=king_seat)
    return table


def test_sq16_last_queen_most_points_win() -> None:
    """SQ-16: no sleeping queen left after the action: the most points win."""
    table = last_queen_table(
        {
            0: (CAKE, RAINBOW),
            1: (CAT, PANCAKE, STARFISH),
            2: (DOG, LADYBUG),
            3: (ROSE, MOON),
            4: (SUNFLOWER, HEART),
        }
    )
    events = table.submit(0, PlayKing(AT[PEACOCK]))
    assert events == [
        KingPlayed(0, AT[PEACOCK]),
        QueenWoken(0, AT[PEACOCK], PEACOCK),
        GameEnded("SQ-16", (1,), (20, 35, 25, 15, 30), (3, 3, 2, 2, 2)),
    ]
    results = table.results()
    assert results is not None
    assert [r.rank for r in results] == [2, 1, 2, 2, 2]


def test_sq16_the_end_says_no_queen_is_left_asleep() -> None:
    """SQ-16: the end says why in words: no queen asleep, the most points."""
    table = last_queen_table(
        {
            0: (CAKE, RAINBOW),
            1: (CAT, PANCAKE, STARFISH),
            2: (DOG, LADYBUG),
            3: (ROSE, MOON),
            4: (SUNFLOWER, HEART),
        }
    )
    table.submit(0, PlayKing(AT[PEACOCK]))
    says_why(
        table, "SQ-16", "no queen is left asleep: seat 1 wins with the most points, 35 (3 queens)"
    )


def test_sq16_ties_are_broken_by_queens_then_shared() -> None:
    """SQ-16: equal points: the most queens win; still tied, the win is shared."""
    table = last_queen_table(
        {
            0: (HEART, CAKE),
            1: (CAT, PANCAKE, STARFISH),
            2: (DOG, LADYBUG, MOON),
            3: (ROSE,),
            4: (SUNFLOWER, RAINBOW),
        }
    )
    # After the Peacock seat 0 has Heart, Cake, Peacock: 35 points and 3 queens, like 1 and 2.
    events = table.submit(0, PlayKing(AT[PEACOCK]))
    ended = events[-1]
    assert ended.points[:3] == (35, 35, 35) and ended.queens[:3] == (3, 3, 3)
    assert ended.winners == (0, 1, 2)
    results = table.results()
    assert results is not None
    assert [r.rank for r in results] == [1, 1, 1, 4, 4]


def test_sq16_tie_on_points_broken_by_queens() -> None:
    """SQ-16: 35 points with 4 queens beat 35 points with 3."""
    table = last_queen_table(
        {
            0: (CAKE, RAINBOW),
            1: (CAT, PANCAKE, STARFISH),
            2: (DOG, HEART),
            3: (ROSE, LADYBUG),
            4: (SUNFLOWER, MOON),
        }
    )
    events = table.submit(0, PlayKing(AT[PEACOCK]))
    # Seat 0: 5 + 5 + 10 = 20; seat 1: 35 (3 queens); seat 2: 35 (2 queens).
    assert events[-1] == GameEnded("SQ-16", (1,), (20, 35, 35, 15, 20), (3, 3, 2, 2, 2))
    # Later commands are refused by the rule that ended the game (SQ-16, not SQ-15).
    for seat in range(5):
        rejection = rejected(table, seat, Discard((1,)))
        assert rejection.kind == "precondition" and rejection.rule_id == "SQ-16"


def test_sq16_sq15_is_checked_first() -> None:
    """SQ-16: when the last queen also meets SQ-15's threshold, that player wins by SQ-15."""
    table = last_queen_table(
        {
            0: (CAKE, RAINBOW, STARFISH),
            1: (CAT, PANCAKE),
            2: (DOG, LADYBUG, MOON),
            3: (ROSE, HEART),
            4: (SUNFLOWER,),
        }
    )
    events = table.submit(0, PlayKing(AT[PEACOCK]))
    assert events[-1] == GameEnded("SQ-15", (0,), (25, 30, 35, 25, 10), (4, 2, 3, 2, 1))


def test_sq16_a_bounced_last_queen_does_not_end_the_game() -> None:
    """SQ-16 + SQ-12: the last queen bounced back to sleep: one sleeps, play goes on."""
    table = last_queen_table(
        {
            0: (DOG, CAKE),
            1: (HEART, STARFISH, RAINBOW),
            2: (PEACOCK, LADYBUG, MOON),
            3: (ROSE, PANCAKE),
            4: (SUNFLOWER,),
        }
    )
    events = table.submit(0, PlayKing(AT[CAT]))
    assert kinds(events) == ["KingPlayed", "QueenBounced", "CardsDrawn", "TurnStarted"]
    assert table.results() is None


# --- SQ-17, SQ-18, SQ-19: information -----------------------------------------------------------


def test_sq17_each_seat_sees_its_own_hand_and_every_hand_size() -> None:
    """SQ-17: own hand only; the sizes of all hands; a spectator sees no hand."""
    table = new(3, *fillers(3, seat0=["K", "1", "2", "3", "4"]))
    assert hand(table, 0) == (1, 2, 3, 4, KING)
    assert hand(table, 1) == (7, 7, 8, 9, 10)
    assert hand(table, None) == ()
    assert table.view(2).game.hand_sizes == (5, 5, 5)
    dealt = [e for e in table.log if type(e) is CardsDrawn]
    assert [SQ.redact(e, 2).cards for e in dealt] == [(), (), (5, 5, 6, 8, 9)]


def test_sq18_face_down_queens_are_hidden() -> None:
    """SQ-18: no view or event tells which queen lies where; a hidden variant with the queens
    moved looks the same to everyone."""
    table = new(2, ["K", *PLAIN[:4]], PLAIN2)
    laid = next(e for e in table.log if type(e) is QueensLaid)
    assert len(laid.queens) == 12
    for viewer in (0, 1, None):
        assert SQ.redact(laid, viewer) == QueensLaid(())
        variant = SQ.hidden_variant(table.state, viewer, 7)
        assert variant.positions != table.state.positions
        assert SQ.view(variant, viewer) == SQ.view(table.state, viewer)
    assert all(p.queen == 0 for p in table.view(0).game.positions)


def test_sq18_a_queen_put_back_is_known_and_stays_put_in_hidden_variants() -> None:
    """SQ-18: after a Potion the queen's position is public: hidden variants keep her there."""
    table = potion_table(["1", "2", "4", "5", "10"])
    table.submit(0, PlayPotion(HEART))
    table.submit(1, DeclineBlock())
    table.submit(0, PlaceQueen(AT[HEART]))
    for salt in range(5):
        variant = SQ.hidden_variant(table.state, 2, salt)
        assert variant.positions[AT[HEART]] == HEART


def test_sq19_drawn_cards_are_seen_only_by_the_drawer() -> None:
    """SQ-19: a refill shows the count to others; the draw pile order is never shown."""
    table = new(2, PLAIN, PLAIN2, draw=["4"])
    shuffled = table.log[0]
    assert type(shuffled) is DeckShuffled and len(shuffled.cards) == 67
    assert {SQ.redact(shuffled, v).cards for v in (0, 1, None)} == {()}
    drawn = table.submit(0, Discard((9,)))[1]
    assert SQ.redact(drawn, 0) == CardsDrawn(0, 1, (4,))
    assert SQ.redact(drawn, 1) == SQ.redact(drawn, None) == CardsDrawn(0, 1, ())


def test_sq19_played_cards_blocks_and_the_jester_card_are_public() -> None:
    """SQ-19: the discard pile, every played card, block and turned Jester card are public:
    nothing else is redacted."""
    table = new(3, *fillers(3, seat0=["J", *PLAIN[:4]]), draw=["N", "3"])
    events = table.submit(0, PlayJester())
    for viewer in (1, 2, None):
        assert [SQ.redact(e, viewer) for e in events] == events
    assert table.view(2).game.jester_card == KNIGHT


# --- engine integration -------------------------------------------------------------------------


def test_every_decision_kind_round_trips_through_the_codec() -> None:
    """Commands and events of every kind map onto the proto and back."""
    commands = [
        Discard((2, 3, 5)),
        PlayKing(3),
        PlayKnight(CAT),
        PlayPotion(HEART),
        PlayJester(),
        Block(),
        DeclineBlock(),
        WakeQueen(0),
        PlaceQueen(11),
    ]
    for command in commands:
        message = codec.command_to_proto(GAME, command)
        wire = pb.Command.FromString(message.SerializeToString())
        assert codec.command_from_proto(wire) == (GAME, command)
    assert codec.command_from_json({"sleepingQueens": {"playKnight": {"queen": "QUEEN_CAT"}}}) == (
        GAME,
        PlayKnight(CAT),
    )
    events = [
        JesterTurned(0, KING, None),
        JesterTurned(0, 3, 2),
        GameEnded("SQ-16", (1, 2), (35, 35), (3, 3)),
        QueenPutToSleep(1, CAT, 4, 0),
    ]
    for event in events:
        assert codec.event_from_proto(codec.event_to_proto(GAME, event, 1)) == event


def test_hidden_variant_redeals_hands_and_the_draw_pile() -> None:
    """The leak test's variants re-deal other hands and the draw pile, sizes kept."""
    table = new(3, *fillers(3, seat0=["K", *PLAIN[:4]]))
    variant = SQ.hidden_variant(table.state, 0, 3)
    assert variant.hands[0] == table.state.hands[0]
    assert variant.sizes == table.state.sizes
    assert (variant.hands[1:], variant.draw) != (table.state.hands[1:], table.state.draw)
    assert sorted(variant.draw + [c for h in variant.hands[1:] for c in _cards(h)]) == sorted(
        table.state.draw + [c for h in table.state.hands[1:] for c in _cards(h)]
    )
    assert SQ.view(variant, 0) == SQ.view(table.state, 0)


def _cards(counts: list[int]) -> list[int]:
    return [c for c, n in enumerate(counts) for _ in range(n)]


def test_legal_commands_are_inside_the_command_space() -> None:
    table = new(2, ["K", "N", "P", "J", "1"], PLAIN2)
    given(table, *awake(1, CAT), turn=0)
    space = SQ.command_space(table.state, 0)
    assert all(c in space for c in table.legal_commands(0))
