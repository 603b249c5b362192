"""Deals written like the rules (``referee.scenario.deals`` and each game's ``deal`` module):
hands for every game, the top of the draw pile and the first discard, later shuffles by their
top cards, choices by name, and clear errors - at setup - for a deal that cannot be dealt."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.scenario import ScenarioError, deals, load_scenario, run_scenario
from tests.scenario.helpers import fails, passes, write

SHIPPED = Path(__file__).resolve().parents[2] / "scenarios"
EMPTY = "steps: []\n"


def _load_error(tmp_path: Path, header: str) -> str:
    with pytest.raises(ScenarioError) as error:
        load_scenario(write(tmp_path, EMPTY, header))
    return error.value.detail


@pytest.mark.parametrize(
    "name",
    [
        "sleeping_queens/sq03_deal_written_like_the_rules.yaml",
        "mau_mau_vampires/mm06_deal_written_like_the_rules.yaml",
        "dracula_vs_van_helsing/dv04_deal_written_like_the_rules.yaml",
        "vampire_queen/vq05_later_round_by_its_top_cards.yaml",
    ],
)
def test_shipped_deal_scenarios(name: str) -> None:
    result = run_scenario(SHIPPED / name)
    assert result.ok, result.line()


SQ = "game: sleeping-queens\nplayers: 2\ndeal:\n"
MM = "game: mau-mau-vampires\nplayers: 2\ndeal:\n"
DV = "game: dracula-vs-van-helsing\nplayers: 2\ndeal:\n"
VQ = "game: vampire-queen\nplayers: 3\ndeal:\n"
MM_HANDS = "  hands: [[R3, B4, B5, G6, G7, P8, P9, P10], [R9, R10, B9, B10, G9, G10, P5, P6]]\n"


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (SQ + "  hands: [[K, K, K]]\n", "deal.hands[0]: 3 cards; each seat is dealt 5"),
        (
            SQ + "  hands: [[K, K, K, K, K], [K, K, K, K, 1]]\n",
            'the cards given use more than the deck holds: 9 x "K" (deck has 8)',
        ),
        (SQ + "  hands: [[K, K, K, K, queen]]\n", "deal.hands[0][4]: a card is K, J, N, P, W, D"),
        (
            SQ + "  queens: [rose, cake]\n",
            'deal.queens: not a permutation of the 12-card deck: missing 1 x "cat"',
        ),
        (SQ + "  queens: [rose, kake]\n", "deal.queens[1]: a queen is one of rose, cake"),
        (SQ + "  first: 2\n", "first: expected a seat 0..1, got 2"),
        (SQ + "  first: 0\n  picks: [0]\n", "give either picks or first, not both"),
        (VQ + "  draw: [1]\n", "deal.draw: vampire-queen has no draw pile to give"),
        (VQ + "  hunter: 3\n", "hunter: expected a seat 0..2, got 3"),
        (VQ + "  decks: [{top: [1], hands: []}]\n", "give either top (the top cards) or hands"),
        (VQ + "  decks: [{top: [1], rest: shuffled}]\n", "deal.decks[0].rest: expected one of"),
        (
            VQ + "  decks: [[13, 13]]\n",
            'deal.decks[0]: not a permutation of the 108-card deck: missing 8 x "1"',
        ),
        (DV + "  track: [red, red, blue]\n", "track[1]: expected one of yellow, blue, purple"),
        (DV + "  track: [red, blue, yellow, red]\n", "the last colour is what is left, purple"),
        (
            "game: dracula-vs-van-helsing\nplayers: 2\noptions: {dracula: '0'}\ndeal:\n"
            "  dracula: 1\n",
            "option dracula already names Dracula's seat",
        ),
        (MM + "  characters: [C1, C1]\n", "characters[1]: 'C1' is given out already"),
        (MM + "  characters: [C1, C9]\n", "characters[1]: 'C9' is not available"),
        (MM + "  characters: [C1]\n", "characters: expected 2 character ids"),
        (
            MM + MM_HANDS + "  discard: R3\n",
            'the cards given use more than the deck holds: 2 x "R3" (deck has 1)',
        ),
        (MM + "  decks: [[R1], {top: [R1]}]\n", "deal.decks[0]: not a permutation of the 55-card"),
        (
            "game: mau-mau-vampires\nplayers: 2\ndeal:\n  decks:\n    - {rest: seed}\n"
            "    - {hands: []}\n",
            "which cards shuffle 1 of mau-mau-vampires holds depends on",
        ),
        (
            "game: mau-mau-vampires\nplayers: 2\ndeal:\n  decks:\n    - {rest: seed}\n"
            "    - {top: [R1, WOLF], rest: canonical}\n",
            "the rest of such a shuffle comes from the seed",
        ),
        (
            "game: mau-mau-vampires\nplayers: 2\ndeal:\n  decks:\n    - {rest: seed}\n"
            "    - {top: [R1, R1]}\n",
            'deal.decks[1]: more cards than the game has: extra 1 x "R1"',
        ),
        (
            "game: mau-mau-vampires\nplayers: 2\ndeal:\n  decks:\n    - {rest: seed}\n"
            "    - [R1, R1]\n",
            'deal.decks[1]: more cards than the game has: extra 1 x "R1"',
        ),
        (MM + "  dealer: 1\n  colour: red\n", "deal: unknown key(s) colour; allowed:"),
    ],
)
def test_a_deal_that_cannot_be_dealt_fails_the_file(
    tmp_path: Path, header: str, message: str
) -> None:
    assert message in _load_error(tmp_path, header)


def test_a_later_deck_gives_its_top_cards(tmp_path: Path) -> None:
    """The werewolf after the hands makes the game shuffle again at once (MM-6). What that
    shuffle holds is known only then, so a later deck gives its top cards only:
    ``[R1, R2]`` is taken, not refused (the game's own check of such decks at creation:
    tests/games/test_mau_mau_vampires.py)."""
    hands = MM_HANDS.split(": ", 1)[1].strip()
    header = MM + f"  decks:\n    - {{hands: {hands}, discard: WOLF, rest: seed}}\n"
    steps = EMPTY.replace("[]", "[{expect_view: {seat: 0, match: {}}}]")
    assert run_scenario(write(tmp_path, steps, header + "    - [R1, R2]\n")).ok


def test_a_reshuffle_by_its_top_cards(tmp_path: Path) -> None:
    """A later Mau Mau shuffle by its top cards: the werewolf after the hands is turned, then
    the next card (the green 1 of the seeded rest) starts the pile, and the werewolf is shuffled
    back into the deck (MM-6, shuffle 1). ``top: [R11]`` puts the red 11 on top of that
    shuffle, so seat 0 draws it. A wrong expectation of the drawn card fails."""
    hands = MM_HANDS.split(": ", 1)[1].strip()
    header = (
        MM.replace("deal:\n", "deal:\n  dealer: 1\n")
        + f"  decks:\n    - {{hands: {hands}, discard: WOLF, rest: seed}}\n"
        + "    - {top: [R11]}\n"
    )
    body = """\
        steps:
          - expect_view:
              seat: spectator
              match: {mauMauVampires: {top: {colour: COLOUR_GREEN, symbol: 1}, deckSize: 38}}
          - seat: 0
            command: {mauMauVampires: {drawCard: {}}}
            events: [{mauMauVampires: {cardsDrawn: {cards: [{colour: COLOUR_RED, symbol: %d}]}}}]
        """
    passes(tmp_path, body % 11, header)
    assert "cardsDrawn.cards[0].symbol: expected 10, got 11" in fails(tmp_path, body % 10, header)


def test_rest_from_the_seed_or_in_canonical_order(tmp_path: Path) -> None:
    def deck(rest: str, seed: str) -> tuple[str, ...]:
        hand = "[1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]"
        header = f"game: vampire-queen\nplayers: 3\nseed: {seed}\n"
        header += f"deal:\n  hands: [{hand}]\n  rest: {rest}\n"
        scenario = load_scenario(write(tmp_path, EMPTY, header))
        assert scenario.deal is not None
        return scenario.deal.decks[0]

    canonical, seeded = deck("canonical", "a"), deck("seed", "a")
    assert canonical[:13] == seeded[:13] == ("1",) * 8 + ("2",) * 5
    assert canonical[13:26] == ("2",) * 3 + ("3",) * 8 + ("4",) * 2  # seat 1: the next cards
    assert sorted(canonical) == sorted(seeded) and canonical != seeded
    assert deck("seed", "a") == seeded != deck("seed", "b")


def test_choices_by_name_are_the_picks(tmp_path: Path) -> None:
    by_name = load_scenario(write(tmp_path, EMPTY, MM + "  dealer: 1\n  characters: [C2, C1]\n"))
    assert by_name.deal is not None and by_name.deal.picks == (1, 1, 0)
    dv = load_scenario(write(tmp_path, EMPTY, DV + "  dracula: 1\n  track: [purple, red, blue]\n"))
    assert dv.deal is not None and dv.deal.picks == (1, 3, 2, 1)


def test_a_wrong_deal_expectation_fails(tmp_path: Path) -> None:
    """The hands are really dealt as written: a wrong expectation of a hand fails."""
    header = SQ + "  hands: [[K, K, 3, 5, 7]]\n  first: 0\n"
    body = "steps:\n  - expect_view: {seat: 0, match: {sleepingQueens: {hand: {any_order: %s}}}}\n"
    passes(tmp_path, body % "[CARD_3, CARD_5, CARD_7, CARD_KING, CARD_KING]", header)
    line = fails(tmp_path, body % "[CARD_3, CARD_5, CARD_7, CARD_KING, CARD_JESTER]", header)
    assert "at sleepingQueens.hand: expected 5 item(s) in any order" in line


def test_permutation_problem_lists_missing_and_extra() -> None:
    problem = deals.permutation_problem(["a", "a", "c"], ["a", "b", "c", "d"])
    assert (
        problem
        == 'not a permutation of the 4-card deck: missing 1 x "b", missing 1 x "d", extra 1 x "a"'
    )
