"""Mau Mau Vampires: no card is ever lost or made (MM-6: one deck of the 55 cards per hand).

The state keeps every card somewhere: the deck, the discard pile (its top card and the cards
under it, MM-13), the hands, the special cards turned while starting the pile (MM-6), the pot
(MM-22 h), the two cards being shared (MM-22 g), the clocks on the Day/Night card (MM-12) and
the werewolf in play (MM-11). The property test folds random legal play (refereed: timeouts
too) and checks the multiset after every command; the MM-11/MM-16 test builds the one case
random play found: a werewolf replacing a werewolf, a missed Mau, an empty deck.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import Table, TableSettings
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CLOCK,
    FULL_DECK,
    WEREWOLF,
    Announcement,
    CardPlayed,
    CardsDrawn,
    DeckShuffled,
    DrawReason,
    PlayCard,
    ShuffleReason,
    WishOffered,
    WishReason,
    code_of,
    parse_notation,
)
from referee.games.mau_mau_vampires.state import MauMauVampiresState
from tests.games.helpers import of_type, play
from tests.games.test_mau_mau_vampires import (  # noqa: F401 (provisional_characters: autouse)
    GAME,
    WOLVES,
    new_table,
    play_card,
    provisional_characters,
)

#: MM-6: the cards of one hand, by code.
ALL_CARDS = Counter(FULL_DECK)


def cards_held(state: MauMauVampiresState) -> Counter[int]:
    """Every card the state holds, wherever it lies, by code."""
    held: Counter[int] = Counter(state.deck)
    held.update({code: n for code, n in enumerate(state.pile_under) if n})
    if state.top >= 0:
        held[state.top] += 1
    held.update(state.turned)
    for hand in state.hands:
        held.update({code: n for code, n in enumerate(hand) if n})
    held.update(code for code, _ in state.pot)
    held.update(state.pair)
    held[CLOCK] += state.clocks
    if state.werewolf >= 0:
        held[WEREWOLF] += 1
    return +held


def assert_all_cards(table: Table[Any]) -> None:
    state = table.state
    held = cards_held(state)
    assert held == ALL_CARDS, (
        f"MM-6: after event {table.version}: missing {dict(ALL_CARDS - held)}, "
        f"extra {dict(held - ALL_CARDS)}"
    )
    assert [sum(hand) for hand in state.hands] == state.sizes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    players=st.integers(min_value=2, max_value=6),
    auto=st.booleans(),
    refereed=st.booleans(),
)
def test_mm_6_mm_11_mm_16_random_play_keeps_every_card(
    seed: int, players: int, auto: bool, refereed: bool
) -> None:
    """MM-6 (with MM-11, MM-13, MM-15, MM-16): whatever legal play (or timeout) happens, the
    cards in the state are exactly the 55 of the deck, after every command of a whole game."""
    rng = random.Random(seed)
    options = {"hands": "2", "announcements": "auto" if auto else "required"}
    settings_ = TableSettings(forfeit_after_timeouts=3) if refereed else None
    table = Table.create(GAME, players, options, seed.to_bytes(8, "big"), settings=settings_)
    assert_all_cards(table)
    for _ in range(20_000):
        if table.over:
            break
        pending = table.pending()
        seat = rng.choice(pending) if pending else -1
        legal = table.legal_commands(seat) if pending else []
        if not legal:  # a forfeited seat's decision (or nobody's): the referee plays
            events = table.forfeited_play()
            if events is None:
                break
            table.extend(events)
        elif refereed and rng.random() < 0.05:
            table.extend(table.time_out(seat))
        else:
            table.submit(seat, rng.choice(legal))
        assert_all_cards(table)


def test_mm_11_mm_16_a_missed_mau_reshuffle_takes_the_replaced_werewolf() -> None:
    """MM-11, MM-13, MM-15, MM-16: seat 1 plays a werewolf onto seat 0's character while one
    is in play on its own, keeping 1 card without saying Mau, and the deck is empty. The old
    werewolf is discarded under the top card as the new one is placed (MM-11), so the penalty
    card's reshuffle (MM-15) takes it into the new deck with the rest of the pile: no card is
    lost."""
    table = new_table(WOLVES, start="P11")
    # Seat 0 puts a werewolf on seat 1's character; P5 and R5 bury P11 and P5 (MM-13).
    play(table, (0, play_card("WOLF", wolf=1)), (1, play_card("P5")), (0, play_card("R5")))
    state = table.state
    assert table.pending() == (1,) and state.werewolf >= 0
    # The deck and all of seat 1's cards but a werewolf and R9 go to seat 0: every card
    # stays in the state, the deck is empty and seat 1 holds 2 cards.
    moved = [
        *state.deck,
        *(c for c in range(len(state.hands[1])) for _ in range(state.hands[1][c])),
    ]
    moved.remove(WEREWOLF)
    moved.remove(parse_notation("R9"))
    for code in moved:
        state.hands[0][code] += 1
    state.hands[1] = [0] * len(state.hands[1])
    state.hands[1][WEREWOLF] = state.hands[1][parse_notation("R9")] = 1
    state.deck = []
    state.sizes = [sum(hand) for hand in state.hands]
    assert_all_cards(table)
    under = Counter({c: n for c, n in enumerate(state.pile_under) if n})
    assert under == Counter({parse_notation("P11"): 1, parse_notation("P5"): 1})
    # Seat 1 keeps 1 card and does not say Mau (MM-16): 1 penalty card, from a new deck.
    events = play(table, (1, PlayCard(CARDS[WEREWOLF], Announcement.UNSPECIFIED, 0)))
    assert events[0] == CardPlayed(
        1, CARDS[WEREWOLF], Announcement.UNSPECIFIED, Announcement.MAU, 0, events[0].replaced
    )
    assert events[0].replaced
    shuffled = of_type(events, DeckShuffled)
    assert [e.reason for e in shuffled] == [ShuffleReason.PILE_RESHUFFLED]
    # MM-11, MM-13, MM-15: the pile under the top card and the replaced werewolf.
    assert Counter(code_of(c) for c in shuffled[0].order) == under + Counter({WEREWOLF: 1})
    assert [(e.seat, e.count, e.reason) for e in of_type(events, CardsDrawn)] == [
        (1, 1, DrawReason.MISSED_MAU)
    ]
    assert events[-1] == WishOffered(1, WishReason.WEREWOLF_REPLACED)  # MM-14
    assert_all_cards(table)


def test_the_model_re_exports_every_card_name() -> None:
    """The model re-exports the cards by name (a compiled module binds no star-imported name):
    a name added to the cards' ``__all__`` must be added there too."""
    from referee.games.mau_mau_vampires import cards, model

    assert [
        name for name in cards.__all__ if getattr(model, name, None) is not getattr(cards, name)
    ] == []
