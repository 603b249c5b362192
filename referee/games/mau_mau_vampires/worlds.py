"""Mau Mau Vampires: the worlds a seat could be in (:mod:`referee.engine.worlds`).

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
  (drawing is offered only when a card can be drawn, or to one who cannot play);
* **nothing else is forced**: drawing is open to one who could play (MM-8: "cannot or will
  not"), abilities are optional (MM-18).

The deal starts from a greedy one (each play, gift, call met by a card its seat held, chosen
at random; choices that paint themselves into a corner are tried again), then a chain mixes
it: swap two tokens' cards within one shuffle, or draw a hidden gift's card anew, whenever
the hand's history stays consistent (symmetric moves, so the chain's law is uniform among the
consistent deals and choices; see :func:`referee.engine.worlds.deal_rows`). A world the
engine's own replay finds inconsistent with a pass is drawn again.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from referee.engine.game import GameConfig
from referee.engine.registry import get_game
from referee.engine.worlds import Chance, Knowledge
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CLOCK,
    CODES,
    FULL_DECK,
    HIDDEN,
    MAU_MAU_CARDS,
    WEREWOLF,
    CardGiven,
    CardPlayed,
    CardsDealt,
    CardsDrawn,
    CardSetAside,
    CardShown,
    ColourCalled,
    DayNightTurned,
    DeckShuffled,
    DrawnShared,
    DrawReason,
    HandStarted,
    PlayCard,
    PotTaken,
    ShuffleReason,
    StartingCardTurned,
    TurnStarted,
    code_of,
    colour_of,
)

#: An item a hand gains or loses: ("t", token), ("v", hidden choice) or ("c", card code).
Item = tuple[str, int]
#: A step of a hand's history: (what, seat, item or colour).
Step = tuple[str, int, Any]


class _Walk:
    """The seat's events read once, into tokens, hidden choices and each hand's steps."""

    def __init__(self, knowledge: Knowledge, events: list[Any], rng: Chance) -> None:
        self.me = knowledge.seat
        self.group: list[int] = []  # token -> its group (the cards of a hand's or a pile's shuffle)
        self.pin: dict[int, int] = {}  # token -> the card the seat knows is there
        self.pools: list[list[int]] = []  # group -> its cards
        self.steps: list[list[Step]] = []  # game hand (MM-7) -> its history
        self.segment: list[int] = []  # group -> the game hand it belongs to
        self.choices: list[int] = []  # hidden choice -> its game hand
        self.seen: dict[int, int] = {}  # hidden choice -> the card the seat saw it was
        self.shown_colour: dict[int, int] = {}  # hidden shown card -> the colour called
        #: (event index, its tokens top first); a token is a card's place in its first shuffle
        self.shuffles: list[tuple[int, list[int]]] = []
        self.items: dict[int, list[Item]] = {}  # event index -> the items it names
        self.passes: list[int] = []  # event indexes of another seat's pass (MM-15)
        self.rng = rng
        self._read(events)

    def _token(self) -> int:
        self.group.append(len(self.pools) - 1)
        return len(self.group) - 1

    def _step(self, what: str, seat: int, thing: Any) -> None:
        if seat != self.me:
            self.steps[-1].append((what, seat, thing))

    def _choice(self) -> Item:
        self.choices.append(len(self.steps) - 1)
        return ("v", len(self.choices) - 1)

    def _read(self, events: list[Any]) -> None:
        me = self.me
        deck: list[int] = []
        pot: list[Item] = []
        pair: list[int] = []
        turned: list[int] = []
        under: list[int] = []
        top, clocks, wolf, colour = -1, 0, False, 0
        drawn: dict[int, int] = {}  # seat -> the token it drew this turn (MM-8)
        for index, e in enumerate(events):
            kind = type(e)
            if kind is HandStarted:
                self.steps.append([])
                pot, pair, turned, under, top, clocks, wolf = [], [], [], [], -1, 0, False
            elif kind is DeckShuffled:
                if e.reason is ShuffleReason.SPECIALS_RETURNED:
                    # MM-6: the rest of the deck and the turned specials, in a new order
                    deck = self.rng.shuffled([*deck, *turned])
                    turned = []
                else:
                    reshuffle = e.reason is ShuffleReason.PILE_RESHUFFLED
                    self.pools.append(list(under) if reshuffle else list(FULL_DECK))
                    self.segment.append(len(self.steps) - 1)
                    if reshuffle:
                        under = []
                    deck = [self._token() for _ in range(e.count)]
                self.shuffles.append((index, list(deck)))
            elif kind is StartingCardTurned:
                token, deck = deck[0], deck[1:]
                self.pin[token] = code = code_of(e.card)
                if code >= MAU_MAU_CARDS:
                    turned.append(token)
                else:
                    top = code
            elif kind is CardsDealt or kind is CardsDrawn:
                taken, deck = deck[: e.count], deck[e.count :]
                if e.seat == me:
                    codes = self.rng.shuffled([code_of(c) for c in e.cards])
                    self.pin.update(zip(taken, codes, strict=True))
                self.items[index] = [("t", t) for t in taken]
                if kind is CardsDrawn and e.reason is DrawReason.DRAW_TWO_AND_SHARE:
                    pair = taken
                    continue
                for token in taken:
                    self._step("in", e.seat, ("t", token))
                if kind is CardsDrawn and e.reason is DrawReason.TURN:
                    if taken:
                        drawn[e.seat] = taken[0]
                    elif e.seat != me:
                        self.passes.append(index)
            elif kind is TurnStarted:
                drawn = {}
            elif kind is CardPlayed:
                code = code_of(e.card)
                if e.seat in drawn and e.seat != me:
                    self.pin[drawn[e.seat]] = code  # MM-8: the card drawn is the one played
                drawn = {}
                self._step("out", e.seat, ("c", code))
                if code < MAU_MAU_CARDS:
                    under += [top] if top >= 0 else []
                    top = code
                elif code == CLOCK:
                    clocks += 1
                else:
                    under += [WEREWOLF] if wolf else []
                    wolf = True
            elif kind is DayNightTurned:
                under += [CLOCK] * clocks + ([WEREWOLF] if wolf else [])
                clocks, wolf = 0, False
            elif kind is CardGiven:
                item = ("c", code_of(e.card)) if e.card != HIDDEN else self._choice()
                self._step("out", e.from_seat, item)
                self._step("in", e.to_seat, item)
                self.items[index] = [item]
            elif kind is CardSetAside:
                item = ("c", code_of(e.card)) if e.card != HIDDEN else self._choice()
                self._step("out", e.seat, item)
                taken, deck = deck[: e.deck_count], deck[e.deck_count :]
                pot += [item, *(("t", t) for t in taken)]
                self.items[index] = [item, *(("t", t) for t in taken)]
            elif kind is PotTaken:
                if e.seat == me:
                    self._see(pot, [code_of(c) for c in e.cards])
                for item in pot:
                    self._step("in", e.seat, item)
                self.items[index], pot = pot, []
            elif kind is DrawnShared:
                for token, card, to in zip(pair, e.cards, e.to_seats, strict=True):
                    if card != HIDDEN:
                        self.pin[token] = code_of(card)
                    self._step("in", to, ("t", token))
                self.items[index] = [("t", t) for t in pair]
                pair = []
            elif kind is ColourCalled:
                colour = int(e.colour)
                for seat in e.answering:
                    self._step("has", seat, int(e.colour))
                for seat in self._opponents(events, index, e.seat):
                    if seat not in e.answering:
                        self._step("none", seat, int(e.colour))
            elif kind is CardShown:
                item = ("c", code_of(e.card)) if e.card != HIDDEN else self._choice()
                if item[0] == "v":
                    self.shown_colour[item[1]] = colour
                self._step("shown", e.seat, item)
                self.items[index] = [item]

    def _see(self, pot: list[Item], codes: list[int]) -> None:
        """The seat took the pot and saw its cards (MM-22 h): the ones it did not know yet go
        on the pot's unknown items (a card another seat set aside, a deck card), at random."""
        left = list(codes)
        for kind, x in pot:
            if kind == "c":
                left.remove(x)
            elif kind == "t" and x in self.pin:
                left.remove(self.pin[x])
        rest = self.rng.shuffled(left)
        for kind, x in pot:
            if kind == "v":
                self.seen[x] = rest.pop()
            elif kind == "t" and x not in self.pin:
                self.pin[x] = rest.pop()

    def _opponents(self, events: list[Any], index: int, caller: int) -> list[int]:
        started = next(e for e in reversed(events[:index]) if type(e) is HandStarted)
        return [s for s in started.playing if s != caller]


def _value(walk: _Walk, deal: dict[int, int], chosen: list[int], item: Item) -> int:
    kind, x = item
    return deal[x] if kind == "t" else chosen[x] if kind == "v" else x


def _consistent(walk: _Walk, segment: int, deal: dict[int, int], chosen: list[int]) -> bool:
    """Whether a hand's history holds with these cards: nothing given or played that was
    not held, every colour call answered truly (MM-8, MM-19, MM-22 b)."""
    held: dict[int, list[int]] = {}
    for what, seat, thing in walk.steps[segment]:
        hand = held.get(seat)
        if hand is None:
            hand = held[seat] = [0] * CODES
        if what == "in":
            hand[_value(walk, deal, chosen, thing)] += 1
        elif what == "out":
            code = _value(walk, deal, chosen, thing)
            hand[code] -= 1
            if hand[code] < 0:
                return False
        elif what == "shown":
            if hand[_value(walk, deal, chosen, thing)] <= 0:
                return False
        else:
            has = any(hand[c] for c in range(MAU_MAU_CARDS) if colour_of(c) == thing)
            if has != (what == "has"):
                return False
    return True


def _start(walk: _Walk, rng: Chance) -> tuple[dict[int, int], list[int]] | None:
    """A consistent deal, built greedily, or ``None`` when the random choices failed. A card
    passed on unseen (a hidden choice) is one of the giver's items, moved as it is: its card
    is laid later, when a play needs it or at the end."""
    left = [list(pool) for pool in walk.pools]
    deal: dict[int, int] = {}
    for token, code in walk.pin.items():
        pool = left[walk.group[token]]
        if code not in pool:
            return None
        pool.remove(code)
        deal[token] = code
    chosen = [-1] * len(walk.choices)
    for x, code in walk.seen.items():
        chosen[x] = code
    links: dict[int, int] = {}  # hidden choice -> the token it moved

    def token_of(item: Item) -> int | None:
        kind, x = item
        if kind == "t":
            return x
        return links.get(x) if kind == "v" and chosen[x] < 0 else None

    def value(item: Item) -> int:
        kind, x = item
        if kind == "c":
            return x
        if kind == "v" and chosen[x] >= 0:
            return chosen[x]
        token = token_of(item)
        return -1 if token is None else deal.get(token, -1)

    def lay(hand: list[Item], fits: Any) -> Item | None:
        """Lay a card ``fits`` allows on a blank item of ``hand``; the item, or None."""
        options = []
        for item in hand:
            token = token_of(item)
            if token is not None and token not in deal:
                codes = [c for c in left[walk.group[token]] if fits(c)]
                if codes:
                    options.append((item, token, codes))
        if not options:
            return None
        item, token, codes = rng.choice(options)
        code = rng.choice(codes)
        left[walk.group[token]].remove(code)
        deal[token] = code
        return item

    for segment, steps in enumerate(walk.steps):
        hands: dict[int, list[Item]] = {}
        for what, seat, thing in steps:
            hand = hands.setdefault(seat, [])
            if what == "in":
                hand.append(thing)
            elif what == "out" and thing[0] == "v" and chosen[thing[1]] < 0:
                if not hand:
                    return None
                item = rng.choice(hand)  # the card given or set aside, unseen: any held
                hand.remove(item)
                if value(item) >= 0:
                    chosen[thing[1]] = value(item)
                else:
                    moved = token_of(item)
                    if moved is None:
                        return None
                    links[thing[1]] = moved
            elif what == "shown" and thing[0] == "v" and chosen[thing[1]] < 0:
                colour = walk.shown_colour[thing[1]]
                held = [i for i in hand if 0 <= value(i) < MAU_MAU_CARDS]
                held = [i for i in held if colour_of(value(i)) == colour]
                if not held:
                    return None
                chosen[thing[1]] = value(rng.choice(held))
            elif what in ("out", "shown"):
                code = value(thing)
                found = [i for i in hand if value(i) == code]
                if not found:
                    laid = lay(hand, lambda c, code=code: c == code)
                    if laid is None:
                        return None
                    found = [laid]
                if what == "out":
                    hand.remove(rng.choice(found))
            elif (
                what == "has"
                and not any(_of_colour(value(i), thing) for i in hand)
                and lay(hand, lambda c, colour=thing: _of_colour(c, colour)) is None
            ):
                return None
        for token, group in enumerate(walk.group):
            if walk.segment[group] == segment and token not in deal:
                pool = left[group]
                if not pool:
                    return None
                deal[token] = pool.pop(rng.below(len(pool)))
        for x, token in links.items():
            if chosen[x] < 0 and token in deal:
                chosen[x] = deal[token]
        if not _consistent(walk, segment, deal, chosen):
            return None  # a "none" call a laid card broke: try again
    return deal, chosen


def _of_colour(code: int, colour: int) -> bool:
    """Whether ``code`` is a Mau Mau card of ``colour`` (MM-22 b)."""
    return 0 <= code < MAU_MAU_CARDS and colour_of(code) == colour


def _mix(walk: _Walk, rng: Chance, deal: dict[int, int], chosen: list[int]) -> None:
    """The chain: swap two tokens' cards within a group, or draw a hidden choice anew."""
    free = [t for t in deal if t not in walk.pin]
    by_group: dict[int, list[int]] = {}
    for token in free:
        by_group.setdefault(walk.group[token], []).append(token)
    open_choices = [i for i in range(len(chosen)) if i not in walk.seen]
    n = len(free) + len(open_choices)
    steps = int(4 * n * math.log(max(n, 2))) + 10 if n else 0
    for _ in range(steps):
        pick = rng.below(n)
        if pick < len(free):
            a = free[pick]
            group = walk.group[a]
            b = rng.choice(by_group[group])
            if deal[a] == deal[b]:
                continue
            deal[a], deal[b] = deal[b], deal[a]
            if not _consistent(walk, walk.segment[group], deal, chosen):
                deal[a], deal[b] = deal[b], deal[a]
        else:
            index = open_choices[pick - len(free)]
            old, chosen[index] = chosen[index], rng.below(CODES)
            if not _consistent(walk, walk.choices[index], deal, chosen):
                chosen[index] = old


def _write(
    walk: _Walk, rng: Chance, deal: dict[int, int], chosen: list[int], events: list[Any]
) -> list[Any]:
    """The events with the deal and the hidden choices written in."""
    events = list(events)
    for index, tokens in walk.shuffles:
        events[index] = replace(events[index], order=tuple(CARDS[deal[t]] for t in tokens))
    for index, items in walk.items.items():
        event = events[index]
        codes = [_value(walk, deal, chosen, item) for item in items]
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


def sample(knowledge: Knowledge, config: GameConfig, rng: Chance) -> list[Any]:
    """The seat's events with every shuffle, the other hands and the hidden gifts filled in."""
    events = list(knowledge.game_events)
    for _ in range(200):
        walk = _Walk(knowledge, events, rng)
        start = _start(walk, rng)
        if start is None:
            continue
        deal, chosen = start
        _mix(walk, rng, deal, chosen)
        world = _write(walk, rng, deal, chosen, events)
        if not walk.passes or _passes_hold(knowledge, config, world, walk.passes):
            return world
    raise ValueError("no consistent deal found")
