"""Mau Mau Vampires worlds: the seat's events read into tokens, hidden choices and each hand's
steps (:class:`Walk`), and whether a hand's history holds with a deal (:func:`consistent`).

Each place of each shuffle is a *token* followed through the public moves; what the
observations rule out is said in :mod:`referee.games.mau_mau_vampires.worlds`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.games.mau_mau_vampires.model import (
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
    PotTaken,
    ShuffleReason,
    StartingCardTurned,
    TurnStarted,
    Wished,
    code_of,
    colour_of,
    symbol_of,
)
from referee.search.worlds import Chance, Knowledge

#: An item a hand gains or loses: ("t", token), ("v", hidden choice), ("c", card code) or
#: ("s", 2 share + slot), one of two cards of (g) drawn across a reshuffle (:meth:`_share`).
Item = tuple[str, int]
#: A step of a hand's history: (what, seat, item or a set of cards held or not).
Step = tuple[str, int, Any]

EVERY_CARD = frozenset(range(CODES))
#: MM-22 b: the Mau Mau cards of each colour (1-4).
COLOUR_CODES = tuple(
    frozenset(c for c in range(MAU_MAU_CARDS) if colour_of(c) == colour) for colour in range(5)
)


def _playable(top: int, wish: int) -> frozenset[int]:
    """MM-9 ... MM-14: the cards a seat could play on ``top`` under ``wish`` (0: none)."""
    if wish:
        matching = COLOUR_CODES[wish]
    else:
        matching = frozenset(
            c
            for c in range(MAU_MAU_CARDS)
            if colour_of(c) == colour_of(top) or symbol_of(c) == symbol_of(top)
        )
    return matching | {CLOCK, WEREWOLF}


@dataclass(slots=True)
class _Piles:
    """The table as :meth:`Walk._read` follows it through the events: the deck's tokens, the
    pot's items, the two drawn to share, the specials turned at the start, the discard pile
    under its top card, the clocks and the werewolf played this day, the colour last called,
    the open wish, and the token each seat drew this turn."""

    deck: list[int] = field(default_factory=list)
    pot: list[Item] = field(default_factory=list)
    pair: list[int] = field(default_factory=list)
    turned: list[int] = field(default_factory=list)
    under: list[int] = field(default_factory=list)
    top: int = -1
    clocks: int = 0
    wolf: bool = False
    colour: int = 0
    wish: int = 0
    drawn: dict[int, int] = field(default_factory=dict)  # seat -> the token drawn (MM-8)

    def new_hand(self) -> None:
        """MM-7: a new hand; the deck, the colour called and the turn's draws carry on."""
        self.pot, self.pair, self.turned, self.under = [], [], [], []
        self.top, self.clocks, self.wolf, self.wish = -1, 0, False, 0


class Walk:
    """The seat's events read once, into tokens, hidden choices and each hand's steps."""

    def __init__(self, knowledge: Knowledge, events: list[Any], rng: Chance) -> None:
        self.me = knowledge.seat
        self.group: list[int] = []  # token -> its group (the cards of a hand's or a pile's shuffle)
        self.pin: dict[int, int] = {}  # token -> the card the seat knows is there
        self.pools: list[list[int]] = []  # group -> its cards
        self.steps: list[list[Step]] = []  # game hand (MM-7) -> its history
        self.segment: list[int] = []  # group -> the game hand it belongs to
        self.choices: list[int] = []  # hidden choice -> its game hand
        #: MM-22 h: a pot the seat took shows it cards but not which unknown item (a card
        #: another seat set aside, a deck card) each was: item -> its pot, and each pot's
        #: cards left for them (counts by card)
        self.potted: dict[Item, int] = {}
        self.pots: list[list[int]] = []
        self.shown_colour: dict[int, int] = {}  # hidden shown card -> the colour called
        #: (event index, its tokens top first); a token is a card's place in its first shuffle
        self.shuffles: list[tuple[int, list[int]]] = []
        self.items: dict[int, list[Item]] = {}  # event index -> the items it names
        self.passes: list[int] = []  # event indexes of another seat's pass (MM-15)
        #: MM-6: the places of a first order still in the deck when the turned specials went
        #: back (no longer tokens: the new order's places are), and the turned ones' cards
        self.retired: set[int] = set()
        self.fixed: dict[int, int] = {}
        #: group -> (the places of its new order, the specials turned back into it)
        self.fresh: dict[int, tuple[frozenset[int], dict[int, int]]] = {}
        #: (the new order's places, the turned tokens, the other retired ones) per new order
        self.renewals: list[tuple[list[int], list[int], list[int]]] = []
        self.rng = rng
        #: MM-22 g across a reshuffle: (the two places, the card each receiver got if the
        #: seat saw it, else -1) and whether the places go to the receivers crosswise
        self.shares: list[tuple[list[int], list[int]]] = []
        self.perm: list[int] = []
        self.by_seat: list[dict[int, list[Step]]] = []  # :func:`_by_seat`
        self.holders: dict[Item, set[int]] = {}
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
        piles = _Piles()
        for index, e in enumerate(events):
            kind = type(e)
            if kind is HandStarted:
                self.steps.append([])
                piles.new_hand()
            elif kind is DeckShuffled:
                self._shuffled(index, e, piles)
            elif kind is StartingCardTurned:
                token, piles.deck = piles.deck[0], piles.deck[1:]
                self.pin[token] = code = code_of(e.card)
                if code >= MAU_MAU_CARDS:
                    piles.turned.append(token)
                else:
                    piles.top = code
            elif kind is CardsDealt or kind is CardsDrawn:
                self._taken(index, e, piles)
            elif kind is TurnStarted:
                piles.drawn = {}
            elif kind is CardPlayed:
                self._played(e, piles)
            elif kind is DayNightTurned:
                piles.under += [CLOCK] * piles.clocks + ([WEREWOLF] if piles.wolf else [])
                piles.clocks, piles.wolf, piles.wish = 0, False, 0
            elif kind is Wished:
                piles.wish = int(e.colour)  # MM-14: replaces any open wish (0: none)
            elif kind is CardGiven:
                item = ("c", code_of(e.card)) if e.card != HIDDEN else self._choice()
                self._step("out", e.from_seat, item)
                self._step("in", e.to_seat, item)
                self.items[index] = [item]
            elif kind is CardSetAside:
                self._set_aside(index, e, piles)
            elif kind is PotTaken:
                if e.seat == self.me:
                    self._see(piles.pot, [code_of(c) for c in e.cards])
                for item in piles.pot:
                    self._step("in", e.seat, item)
                self.items[index], piles.pot = piles.pot, []
            elif kind is DrawnShared:
                self._share(index, e, piles.pair)
                piles.pair = []
            elif kind is ColourCalled:
                self._called(events, index, e, piles)
            elif kind is CardShown:
                item = ("c", code_of(e.card)) if e.card != HIDDEN else self._choice()
                if item[0] == "v":
                    self.shown_colour[item[1]] = piles.colour
                self._step("shown", e.seat, item)
                self.items[index] = [item]

    def _shuffled(self, index: int, e: DeckShuffled, piles: _Piles) -> None:
        if e.reason is ShuffleReason.SPECIALS_RETURNED:
            # MM-6: the rest of the deck and the turned specials, in a new order. Its places
            # are new tokens of the same group (the old places left in the deck are never
            # seen again), which must hold the turned cards.
            group = len(self.pools) - 1
            places = [self._token() for _ in range(e.count)]
            back: dict[int, int] = {}
            for token in piles.turned:
                self.fixed[token] = code = self.pin.pop(token)
                back[code] = back.get(code, 0) + 1
            self.retired.update(piles.deck, piles.turned)
            self.fresh[group] = (frozenset(places), back)
            self.renewals.append((places, piles.turned, piles.deck))
            piles.deck, piles.turned = places, []
        else:
            reshuffle = e.reason is ShuffleReason.PILE_RESHUFFLED
            self.pools.append(list(piles.under) if reshuffle else list(FULL_DECK))
            self.segment.append(len(self.steps) - 1)
            if reshuffle:
                piles.under = []
            piles.deck = [self._token() for _ in range(e.count)]
        self.shuffles.append((index, list(piles.deck)))

    def _taken(self, index: int, e: CardsDealt | CardsDrawn, piles: _Piles) -> None:
        """Cards dealt or drawn: the deck's top tokens go to the seat (the seat's own are
        pinned to the cards it saw, in an order it cannot tell)."""
        taken, piles.deck = piles.deck[: e.count], piles.deck[e.count :]
        if e.seat == self.me:
            codes = self.rng.shuffled([code_of(c) for c in e.cards])
            self.pin.update(zip(taken, codes, strict=True))
        self.items[index] = [("t", t) for t in taken]
        if isinstance(e, CardsDrawn) and e.reason is DrawReason.DRAW_TWO_AND_SHARE:
            piles.pair = piles.pair + taken  # MM-15: a reshuffle may come between the two
            return
        for token in taken:
            self._step("in", e.seat, ("t", token))
        if isinstance(e, CardsDrawn) and e.reason is DrawReason.TURN:
            if taken:
                piles.drawn[e.seat] = taken[0]
            elif e.seat != self.me:
                # MM-15 ruling: nothing to draw, so it held nothing it could play
                self.passes.append(index)
                self._step("none", e.seat, _playable(piles.top, piles.wish))

    def _played(self, e: CardPlayed, piles: _Piles) -> None:
        code = code_of(e.card)
        if e.seat in piles.drawn and e.seat != self.me:
            self.pin[piles.drawn[e.seat]] = code  # MM-8: the card drawn is the one played
        piles.drawn = {}
        self._step("out", e.seat, ("c", code))
        if code < MAU_MAU_CARDS:
            piles.under += [piles.top] if piles.top >= 0 else []
            piles.top = code
            piles.wish = 0 if piles.wish == colour_of(code) else piles.wish  # MM-14: fulfilled
        elif code == CLOCK:
            piles.clocks += 1
        else:
            if piles.wolf:
                piles.under.append(WEREWOLF)  # MM-11: before a penalty's reshuffle
                piles.wish = 0  # MM-14: special cards discarded close the wish
            piles.wolf = True

    def _set_aside(self, index: int, e: CardSetAside, piles: _Piles) -> None:
        item = ("c", code_of(e.card)) if e.card != HIDDEN else self._choice()
        self._step("out", e.seat, item)
        taken, piles.deck = piles.deck[: e.deck_count], piles.deck[e.deck_count :]
        piles.pot += [item, *(("t", t) for t in taken)]
        self.steps[-1] += [("pot", -1, ("t", t)) for t in taken]
        self.items[index] = [item, *(("t", t) for t in taken)]

    def _called(self, events: list[Any], index: int, e: ColourCalled, piles: _Piles) -> None:
        """MM-22 b: the opponents answering hold a card of the colour, the others none."""
        piles.colour = colour = int(e.colour)
        for seat in e.answering:
            self._step("has", seat, COLOUR_CODES[colour])
        for seat in self._opponents(events, index, e.seat):
            if seat not in e.answering:
                self._step("none", seat, COLOUR_CODES[colour])

    def _share(self, index: int, e: DrawnShared, pair: list[int]) -> None:
        """MM-22 g: the drawn cards go to their receivers. The event lists them by seat, so
        which drawn place went to whom is known only to the sharer; two places of one
        shuffle are alike, but two across a reshuffle are a hidden choice of the world."""
        cards = [code_of(c) if c != HIDDEN else -1 for c in e.cards]
        if e.seat == self.me:  # the seat drew them: its cards tell which went where
            rest = list(pair)
            slots: list[Item] = []
            for code in cards:
                token = next(t for t in rest if self.pin[t] == code)
                rest.remove(token)
                slots.append(("t", token))
        elif len({self.group[t] for t in pair}) == 1:
            slots = [("t", t) for t in pair]
            for token, code in zip(pair, cards, strict=True):
                if code >= 0:
                    self.pin[token] = code
        else:
            share = len(self.shares)
            self.shares.append((list(pair), cards))
            self.perm.append(0)
            slots = [("s", 2 * share + i) for i in range(len(pair))]
            self.steps[-1] += [("share", -1, slot) for slot in slots]
        for item, to in zip(slots, e.to_seats, strict=True):
            self._step("in", to, item)
        self.items[index] = slots

    def _see(self, pot: list[Item], codes: list[int]) -> None:
        """The seat took the pot and saw its cards (MM-22 h): the ones it did not know yet
        are the pot's unknown items' cards, in an order it cannot tell
        (:mod:`referee.games.mau_mau_vampires.worlds.start`)."""
        left = [0] * CODES
        for code in codes:
            left[code] += 1
        for kind, x in pot:
            if kind == "c":
                left[x] -= 1
            else:
                self.potted[(kind, x)] = len(self.pots)
        self.pots.append(left)

    def _opponents(self, events: list[Any], index: int, caller: int) -> list[int]:
        before = range(index - 1, -1, -1)  # the latest first
        started = next(events[i] for i in before if type(events[i]) is HandStarted)
        return [s for s in started.playing if s != caller]


def item_code(walk: Walk, deal: dict[int, int], chosen: list[int], item: Item) -> int:
    kind, x = item
    if kind == "s":
        return deal[slot_token(walk, x)]
    return deal[x] if kind == "t" else chosen[x] if kind == "v" else x


def slot_token(walk: Walk, slot: int, perm: int | None = None) -> int:
    """The drawn place a slot of a share (:meth:`Walk._share`) went with."""
    share, i = divmod(slot, 2)
    places = walk.shares[share][0]
    return places[i ^ (walk.perm[share] if perm is None else perm)]


def _by_seat(walk: Walk) -> None:
    """Each hand's steps by seat, and the seats each item passes through: a seat's history
    holds or not on its own, so a change to two items need only check their seats'."""
    walk.by_seat = []
    walk.holders = {}
    for steps in walk.steps:
        seats: dict[int, list[Step]] = {}
        for step in steps:
            what, seat, thing = step
            if what in ("pot", "share"):
                continue
            seats.setdefault(seat, []).append(step)
            if what in ("in", "out", "shown"):
                walk.holders.setdefault(thing, set()).add(seat)
                if thing[0] == "s":  # either place of the share
                    for token in walk.shares[thing[1] // 2][0]:
                        walk.holders.setdefault(("t", token), set()).add(seat)
        walk.by_seat.append(seats)


def consistent(
    walk: Walk,
    segment: int,
    deal: dict[int, int],
    chosen: list[int],
    items: tuple[Item, ...] | None = None,
) -> bool:
    """Whether a hand's history holds with these cards (only for the seats that held one of
    ``items``, if given): nothing given, played or shown that was not held (a hidden shown
    card of the called colour), every colour call answered truly and every pass forced
    (MM-8, MM-15, MM-19, MM-22 b)."""
    if not walk.by_seat:
        _by_seat(walk)
    seats = walk.by_seat[segment]
    if items is None:
        return all(_holds(walk, steps, deal, chosen) for steps in seats.values())
    nobody: set[int] = set()
    wanted = set().union(*(walk.holders.get(item, nobody) for item in items))
    return all(_holds(walk, seats[seat], deal, chosen) for seat in wanted)


def _holds(walk: Walk, steps: list[Step], deal: dict[int, int], chosen: list[int]) -> bool:
    """Whether one seat's history in a hand holds with these cards."""
    hand = [0] * CODES
    for what, _, thing in steps:
        if what == "in":
            hand[item_code(walk, deal, chosen, thing)] += 1
        elif what == "out":
            code = item_code(walk, deal, chosen, thing)
            hand[code] -= 1
            if hand[code] < 0:
                return False
        elif what == "shown":
            code = item_code(walk, deal, chosen, thing)
            if hand[code] <= 0:
                return False
            if thing[0] == "v" and not _of_colour(code, walk.shown_colour[thing[1]]):
                return False
        elif any(hand[c] for c in thing) != (what == "has"):
            return False
    return True


def _of_colour(code: int, colour: int) -> bool:
    """Whether ``code`` is a Mau Mau card of ``colour`` (MM-22 b)."""
    return 0 <= code < MAU_MAU_CARDS and colour_of(code) == colour
