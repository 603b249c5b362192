"""Mau Mau Vampires: the worlds a seat could be in (:mod:`referee.search.worlds`).

Hidden from the seat (MM-26 ... MM-28): every shuffle's order (the 55 cards of each hand,
MM-6; the special cards turned at the start and shuffled back, MM-6; the discard pile under
its top card, MM-15, whose cards are public), hence the other hands, the cards another seat
drew, the pot (MM-22 h), and what passed between two other seats (a card given, MM-19 and
MM-22 a; shown, MM-22 b; shared, MM-22 g). A world follows each place of each shuffle as a
*token* through the public moves (a draw takes the deck's top tokens, a deal the next blocks,
a set-aside and the pot move tokens), fixes a token's card wherever the seat saw it, and
deals each shuffle's other cards to its other tokens; a card that passed between two other
seats is a hidden choice of the world, any card its giver held.

What the observations rule out:

* **a card played must have been held** (MM-8 ... MM-12), and so must a card given, set aside
  or shown; a card a seat drew on its turn and then played (MM-8: the only card it may then
  play) is that card;
* **a colour call** (MM-22 b ruling): the opponents named in ``answering`` hold a card of
  the colour, the caller's other opponents hold none;
* **a pass** (MM-15 ruling): a seat that drew nothing on its turn could play no card
  (drawing is offered only when a card can be drawn, or to one who cannot play): it held no
  card matching the top card or the wish, and no special card;
* **nothing else is forced**: drawing is open to one who could play (MM-8: "cannot or will
  not"), abilities are optional (MM-18).

Where the code is: the event walk into tokens, hidden choices and each hand's steps, and the
check that a hand's history holds (:mod:`referee.games.mau_mau_vampires.worlds.walk`); the
start, a consistent deal found by a search that cannot miss one
(:mod:`referee.games.mau_mau_vampires.worlds.start`) and its forward checks
(:mod:`referee.games.mau_mau_vampires.worlds.ahead`), both over the partial deal
(:mod:`referee.games.mau_mau_vampires.worlds.partial`); the chain that mixes it, so the law is
uniform among the consistent shuffles and choices
(:mod:`referee.games.mau_mau_vampires.worlds.chain`); here, the world written into the events.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from referee.engine.game import GameConfig
from referee.engine.registry import get_game
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CODES,
    CardGiven,
    CardsDealt,
    CardsDrawn,
    CardSetAside,
    CardShown,
    DrawnShared,
    PlayCard,
    PotTaken,
)
from referee.games.mau_mau_vampires.worlds.chain import mix
from referee.games.mau_mau_vampires.worlds.start import start
from referee.games.mau_mau_vampires.worlds.walk import Walk, item_code
from referee.search.worlds import Chance, Knowledge


def _write(
    walk: Walk, rng: Chance, deal: dict[int, int], chosen: list[int], events: list[Any]
) -> list[Any]:
    """The events with the deal and the hidden choices written in."""
    events = list(events)
    deal = dict(deal)
    for places, turned, rest in walk.renewals:
        # MM-6: the first order's places left in the deck hold the new order's cards but
        # the turned specials, in any order (each one as likely)
        cards = [0] * CODES
        for token in places:
            cards[deal[token]] += 1
        for token in turned:
            deal[token] = walk.fixed[token]
            cards[deal[token]] -= 1
        spread = rng.shuffled([c for c, n in enumerate(cards) for _ in range(n)])
        deal.update(zip(rest, spread, strict=True))
    for index, tokens in walk.shuffles:
        events[index] = replace(events[index], order=tuple(CARDS[deal[t]] for t in tokens))
    for index, items in walk.items.items():
        event = events[index]
        codes = [item_code(walk, deal, chosen, item) for item in items]
        kind = type(event)
        if kind is CardsDealt or kind is CardsDrawn or kind is PotTaken:
            events[index] = replace(event, cards=tuple(CARDS[c] for c in sorted(codes)))
        elif kind is CardGiven or kind is CardShown:
            events[index] = replace(event, card=CARDS[codes[0]])
        elif kind is CardSetAside:
            events[index] = replace(
                event, card=CARDS[codes[0]], deck_cards=tuple(CARDS[c] for c in codes[1:])
            )
        elif kind is DrawnShared:
            by_seat = sorted(zip(event.to_seats, codes, strict=True))
            events[index] = replace(event, cards=tuple(CARDS[c] for _, c in by_seat))
    return events


def _passes_hold(
    knowledge: Knowledge, config: GameConfig, events: list[Any], at: list[int]
) -> bool:
    """MM-15 ruling, by the engine's own rules: before each pass, the seat could play nothing."""
    game = get_game(knowledge.game_type)
    state = game.new_state(config)
    wanted = set(at)
    for index, event in enumerate(events):
        if index in wanted:
            seat = event.seat
            if any(type(c) is PlayCard for c in game.legal_commands(state, seat)):
                return False
        state = game.apply(state, event)
    return True


def sample(
    knowledge: Knowledge, config: GameConfig, rng: Chance, *, budget: int | None = None
) -> list[Any]:
    """The seat's events with every shuffle, the other hands and the hidden gifts filled in
    (``budget``: at most that many branches of the start's search, else :class:`ValueError`;
    a test's bound on the search, not a time)."""
    events = list(knowledge.game_events)
    walk = Walk(knowledge, events, rng)
    deal, chosen = start(walk, rng, budget)
    mix(walk, rng, deal, chosen)
    world = _write(walk, rng, deal, chosen, events)
    if walk.passes and not _passes_hold(knowledge, config, world, walk.passes):
        raise ValueError("a pass the engine does not force in the world found (a bug)")
    return world
