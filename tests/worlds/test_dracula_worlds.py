"""Dracula vs Van Helsing's world sampler against the exact conditional law (DV-5, DV-24 ...
DV-26).

No move depends on a card the seat cannot see, so given what it saw every unseen card is
equally likely in every place it cannot see: the opponent's hidden slots, the deck's hidden
positions and a hidden drawn card. The places and the unseen cards are read from the seat's
view alone; the sampled worlds must put a card uniformly among those places (chi-square).
"""

from __future__ import annotations

from collections import Counter

import pytest

from referee.games.dracula_vs_van_helsing.model import CARDS, CODES, HIDDEN
from referee.games.dracula_vs_van_helsing.state import code_of
from referee.search.worlds import World, knowledge_of
from tests.worlds.support import assert_matches, random_position, worlds


def _place(world: World, code: int) -> tuple[str, int]:
    state = world.state
    for seat in (0, 1):
        if code in state.slots[seat]:
            return ("slot", seat * 10 + state.slots[seat].index(code))
    if code in state.deck:
        return ("deck", state.deck.index(code))
    if state.drawn == code:
        return ("drawn", 0)
    return ("pile", state.pile.index(code))


@pytest.mark.parametrize("seed,steps,seat", [(1, 0, 0), (4, 9, 1), (8, 23, 0), (13, 40, 1)])
def test_an_unseen_card_is_anywhere_unseen_alike(seed: int, steps: int, seat: int) -> None:
    """DV-24/DV-25/DV-26: uniform over the places the seat's view hides."""
    table = random_position("dracula-vs-van-helsing", 2, seed, steps)
    known = knowledge_of(table, seat)
    view = known.view.game
    seen = {code_of(s.card) for rack in view.racks for s in rack.slots if s.card != HIDDEN}
    seen |= {code_of(card) for card in view.discard_pile}
    for card in (view.deck_top, view.drawn):
        if card != HIDDEN:
            seen.add(code_of(card))
    unseen = [code for code in CODES if code not in seen]
    places: list[tuple[str, int]] = [
        ("slot", rack.seat * 10 + s.district - 1)
        for rack in view.racks
        for s in rack.slots
        if s.card == HIDDEN
    ]
    top = 1 if view.deck_top != HIDDEN else 0
    places += [("deck", i) for i in range(top, view.deck_size)]
    if view.step.name == "PLACE" and view.drawn == HIDDEN:
        places.append(("drawn", 0))
    assert len(places) == len(unseen)
    code = unseen[seed % len(unseen)]
    law = {place: 1 / len(places) for place in places}
    tally: Counter[tuple[str, int]] = Counter(_place(w, code) for w in worlds(known, 400, seed))

    # pool the deck into thirds so that each cell expects enough
    def cell(place: tuple[str, int]) -> tuple[str, int]:
        return ("deck", place[1] * 3 // max(view.deck_size, 1)) if place[0] == "deck" else place

    pooled_law: Counter[tuple[str, int]] = Counter()
    for place, p in law.items():
        pooled_law[cell(place)] += p
    pooled: Counter[tuple[str, int]] = Counter()
    for place, n in tally.items():
        pooled[cell(place)] += n
    assert_matches(pooled, pooled_law)
    assert CARDS[code] not in {s.card for rack in view.racks for s in rack.slots}
