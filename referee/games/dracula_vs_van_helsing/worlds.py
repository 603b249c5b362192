"""Dracula vs Van Helsing: the worlds a seat could be in (:mod:`referee.search.worlds`).

Each round shuffles all 32 cards (DV-5): five to each rack, 22 to the deck. The seat does not
see the opponent's rack (DV-24), the cards the opponent drew (DV-25) or the deck (DV-26). A
world follows every place of the round's deal as a *token* through the public moves (a draw
takes the deck's top token, a placement puts the drawn token in a named slot and discards
the one there, a 4 swaps two of the opponent's tokens, a 6 swaps tokens across a district:
DV-7, DV-13, DV-15, DV-25), learns a token's card whenever the seat sees it (its own deal and
draws, a discard, a reveal by a 1, 2 or 3, both cards of a 6, the racks at the round's end:
DV-10 ... DV-12, DV-20, DV-25), and deals the cards it never saw uniformly among the tokens it
never saw.

What the observations rule out: only the cards seen elsewhere. No move here depends on a card
the seat cannot see (DV-8's 8 is refused only as a discarded card, and a discarded card is
public; a drawn card may always go into a slot; a call needs only public counts, DV-7; an
effect is skipped only for public reasons, DV-9), so every deal that puts the unseen cards in
the unseen places, in any order, is equally likely: each such permutation is a shuffle under
which the round went exactly as the seat saw it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from referee.engine.game import GameConfig
from referee.games.dracula_vs_van_helsing.model import (
    CARDS,
    CODES,
    HIDDEN,
    Card,
    CardDrawn,
    CardRevealed,
    DeckTopRevealed,
    DistrictExchanged,
    DrawnCardDiscarded,
    DrawnCardPlaced,
    GameStarted,
    RoundEnded,
    RoundStarted,
    SlotsDealt,
    SlotsSwapped,
)
from referee.games.dracula_vs_van_helsing.state import CODE_OF_CARD, SLOTS
from referee.search.worlds import Chance, Knowledge


class _Round:
    """The tokens of one round's deal (0-4 seat 0's rack, 5-9 seat 1's, 10-31 the deck, top
    first) and where each is now, with the card of each token the seat has seen."""

    def __init__(self, start: int, deck_size: int) -> None:
        self.start = start  # index of the round's RoundStarted
        self.slots = [list(range(SLOTS)), list(range(SLOTS, 2 * SLOTS))]
        self.deck = list(range(2 * SLOTS, 2 * SLOTS + deck_size))
        self.drawn = -1
        self.card: dict[int, int] = {}  # token -> card code
        self.at: dict[int, int] = {}  # event index -> the token it holds hidden

    def learn(self, token: int, card: Card) -> None:
        if card != HIDDEN:
            self.card[token] = CODE_OF_CARD[card]


def _follow(knowledge: Knowledge, events: list[Any]) -> list[_Round]:
    """Every round's tokens, moved by the events as the seat saw them."""
    rounds: list[_Round] = []
    dracula = 0
    for index, event in enumerate(events):
        kind = type(event)
        if kind is GameStarted:
            dracula = event.dracula
            continue
        if kind is RoundStarted:
            rounds.append(_Round(index, event.deck_size))
            continue
        if not rounds:
            continue
        r = rounds[-1]
        if kind is SlotsDealt:
            for token, card in zip(r.slots[event.seat], event.cards, strict=False):
                r.learn(token, card)
        elif kind is CardDrawn:
            r.drawn = r.deck.pop(0)
            r.learn(r.drawn, event.card)
            r.at[index] = r.drawn
        elif kind is DrawnCardDiscarded:
            r.learn(r.drawn, event.card)
        elif kind is DrawnCardPlaced:
            slot = r.slots[event.seat]
            r.learn(slot[event.district - 1], event.discarded)
            r.learn(r.drawn, event.card)
            r.at[index] = r.drawn
            slot[event.district - 1] = r.drawn
        elif kind is CardRevealed:
            r.learn(r.slots[event.owner][event.district - 1], event.card)
        elif kind is DeckTopRevealed:
            r.learn(r.deck[0], event.card)
        elif kind is SlotsSwapped:
            slot = r.slots[event.seat]
            a, b = event.first - 1, event.second - 1
            slot[a], slot[b] = slot[b], slot[a]
        elif kind is DistrictExchanged:
            d = event.district - 1
            mine, theirs = r.slots[event.seat], r.slots[1 - event.seat]
            r.learn(mine[d], event.given)
            r.learn(theirs[d], event.taken)
            mine[d], theirs[d] = theirs[d], mine[d]
        elif kind is RoundEnded:
            by_seat = {dracula: event.dracula_cards, 1 - dracula: event.van_helsing_cards}
            for seat, cards in by_seat.items():
                for token, card in zip(r.slots[seat], cards, strict=True):
                    r.learn(token, card)
    return rounds


def sample(knowledge: Knowledge, config: GameConfig, rng: Chance) -> list[Any]:
    """The seat's events with the deck, the opponent's rack and its draws filled in."""
    events = list(knowledge.game_events)
    for r in _follow(knowledge, events):
        started = events[r.start]
        assert isinstance(started, RoundStarted)
        tokens = 2 * SLOTS + started.deck_size
        unseen = [code for code in CODES if code not in set(r.card.values())]
        blind = [token for token in range(tokens) if token not in r.card]
        if len(unseen) != len(blind):
            raise ValueError(f"{len(unseen)} unseen cards for {len(blind)} unseen places")
        card = dict(r.card)
        card.update(zip(blind, rng.shuffled(unseen), strict=True))
        cards = [CARDS[card[token]] for token in range(tokens)]
        events[r.start] = replace(started, deck=tuple(cards[2 * SLOTS :]))
        for offset in (1, 2):  # the two SlotsDealt that follow RoundStarted
            dealt = events[r.start + offset]
            assert isinstance(dealt, SlotsDealt)
            first = dealt.seat * SLOTS
            events[r.start + offset] = replace(dealt, cards=tuple(cards[first : first + SLOTS]))
        for index, token in r.at.items():
            drawn = events[index]
            assert isinstance(drawn, CardDrawn | DrawnCardPlaced)
            events[index] = replace(drawn, card=CARDS[card[token]])
    return events
