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
  (drawing is offered only when a card can be drawn, or to one who cannot play): it held no
  card matching the top card or the wish, and no special card;
* **nothing else is forced**: drawing is open to one who could play (MM-8: "cannot or will
  not"), abilities are optional (MM-18).

The start is a consistent deal found by a depth-first search over each hand's history
(:func:`_solve`): a card is laid on a token only where a play, a gift or a shown card names
it, a colour call or a pass narrows the cards a held token may be, a choice (which token held
the card played, which item a hidden gift moved, which pot card was which) is a branch, and
the blank tokens left are dealt by a bipartite matching; it cannot miss a deal when one
exists, and the true one does. A chain then mixes it: swap two tokens' cards within one
shuffle, or draw a hidden gift's card anew, whenever the hand's history stays consistent
(symmetric moves, weighted where the turned specials went back, so the chain's law is uniform
among the consistent shuffles and choices; see :func:`referee.engine.worlds.deal_rows`).
Not mixed: which unknown pot item was which card the seat saw when it took the pot, and
which card of (g) drawn across a reshuffle the seat received: the start's pick stands.
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
    Wished,
    code_of,
    colour_of,
    symbol_of,
)

#: An item a hand gains or loses: ("t", token), ("v", hidden choice), ("c", card code) or
#: ("s", 2 share + slot), one of two cards of (g) drawn across a reshuffle (:meth:`_share`).
Item = tuple[str, int]
#: A step of a hand's history: (what, seat, item or a set of cards held or not).
Step = tuple[str, int, Any]

_ALL = frozenset(range(CODES))
#: MM-22 b: the Mau Mau cards of each colour (1-4).
_COLOUR_CODES = tuple(
    frozenset(c for c in range(MAU_MAU_CARDS) if colour_of(c) == colour) for colour in range(5)
)


def _playable(top: int, wish: int) -> frozenset[int]:
    """MM-9 ... MM-14: the cards a seat could play on ``top`` under ``wish`` (0: none)."""
    if wish:
        matching = _COLOUR_CODES[wish]
    else:
        matching = frozenset(
            c
            for c in range(MAU_MAU_CARDS)
            if colour_of(c) == colour_of(top) or symbol_of(c) == symbol_of(top)
        )
    return matching | {CLOCK, WEREWOLF}


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
        me = self.me
        deck: list[int] = []
        pot: list[Item] = []
        pair: list[int] = []
        turned: list[int] = []
        under: list[int] = []
        top, clocks, wolf, colour, wish = -1, 0, False, 0, 0
        drawn: dict[int, int] = {}  # seat -> the token it drew this turn (MM-8)
        buried = False  # a replaced werewolf not in the pile of the engine's draws yet
        for index, e in enumerate(events):
            kind = type(e)
            if buried and kind is not CardsDrawn and kind is not DeckShuffled:
                buried = False
            if kind is HandStarted:
                self.steps.append([])
                pot, pair, turned, under, top, clocks, wolf = [], [], [], [], -1, 0, False
                wish = 0
            elif kind is DeckShuffled:
                if e.reason is ShuffleReason.SPECIALS_RETURNED:
                    # MM-6: the rest of the deck and the turned specials, in a new order. Its
                    # places are new tokens of the same group (the old places left in the
                    # deck are never seen again), which must hold the turned cards.
                    group = len(self.pools) - 1
                    places = [self._token() for _ in range(e.count)]
                    back: dict[int, int] = {}
                    for token in turned:
                        self.fixed[token] = code = self.pin.pop(token)
                        back[code] = back.get(code, 0) + 1
                    self.retired.update(deck, turned)
                    self.fresh[group] = (frozenset(places), back)
                    self.renewals.append((places, turned, deck))
                    deck, turned = places, []
                else:
                    reshuffle = e.reason is ShuffleReason.PILE_RESHUFFLED
                    if reshuffle and buried:
                        # The engine draws a missed Mau's penalty (MM-16) before it buries
                        # the werewolf a new one replaced (MM-11), so that werewolf is not
                        # in this shuffle; its fold then empties the pile, werewolf too.
                        under.remove(WEREWOLF)
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
                    pair = pair + taken  # MM-15: a reshuffle may come between the two
                    continue
                for token in taken:
                    self._step("in", e.seat, ("t", token))
                if kind is CardsDrawn and e.reason is DrawReason.TURN:
                    if taken:
                        drawn[e.seat] = taken[0]
                    elif e.seat != me:
                        # MM-15 ruling: nothing to draw, so it held nothing it could play
                        self.passes.append(index)
                        self._step("none", e.seat, _playable(top, wish))
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
                    wish = 0 if wish == colour_of(code) else wish  # MM-14: fulfilled
                elif code == CLOCK:
                    clocks += 1
                else:
                    if wolf:
                        under.append(WEREWOLF)
                        buried = True
                        wish = 0  # MM-14: special cards discarded close the wish
                    wolf = True
            elif kind is DayNightTurned:
                under += [CLOCK] * clocks + ([WEREWOLF] if wolf else [])
                clocks, wolf, wish = 0, False, 0
            elif kind is Wished:
                wish = int(e.colour)  # MM-14: replaces any open wish (0: none)
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
                self.steps[-1] += [("pot", -1, ("t", t)) for t in taken]
                self.items[index] = [item, *(("t", t) for t in taken)]
            elif kind is PotTaken:
                if e.seat == me:
                    self._see(pot, [code_of(c) for c in e.cards])
                for item in pot:
                    self._step("in", e.seat, item)
                self.items[index], pot = pot, []
            elif kind is DrawnShared:
                self._share(index, e, pair)
                pair = []
            elif kind is ColourCalled:
                colour = int(e.colour)
                for seat in e.answering:
                    self._step("has", seat, _COLOUR_CODES[colour])
                for seat in self._opponents(events, index, e.seat):
                    if seat not in e.answering:
                        self._step("none", seat, _COLOUR_CODES[colour])
            elif kind is CardShown:
                item = ("c", code_of(e.card)) if e.card != HIDDEN else self._choice()
                if item[0] == "v":
                    self.shown_colour[item[1]] = colour
                self._step("shown", e.seat, item)
                self.items[index] = [item]

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
        are the pot's unknown items' cards, in an order it cannot tell (:func:`_solve`)."""
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
        started = next(e for e in reversed(events[:index]) if type(e) is HandStarted)
        return [s for s in started.playing if s != caller]


def _value(walk: _Walk, deal: dict[int, int], chosen: list[int], item: Item) -> int:
    kind, x = item
    if kind == "s":
        return deal[_slot_token(walk, x)]
    return deal[x] if kind == "t" else chosen[x] if kind == "v" else x


def _slot_token(walk: _Walk, slot: int, perm: int | None = None) -> int:
    """The drawn place a slot of a share (:meth:`_Walk._share`) went with."""
    share, i = divmod(slot, 2)
    places = walk.shares[share][0]
    return places[i ^ (walk.perm[share] if perm is None else perm)]


def _by_seat(walk: _Walk) -> None:
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


def _consistent(
    walk: _Walk,
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


def _holds(walk: _Walk, steps: list[Step], deal: dict[int, int], chosen: list[int]) -> bool:
    """Whether one seat's history in a hand holds with these cards."""
    hand = [0] * CODES
    for what, _, thing in steps:
        if what == "in":
            hand[_value(walk, deal, chosen, thing)] += 1
        elif what == "out":
            code = _value(walk, deal, chosen, thing)
            hand[code] -= 1
            if hand[code] < 0:
                return False
        elif what == "shown":
            code = _value(walk, deal, chosen, thing)
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


class _Partial:
    """A hand's deal while :func:`_solve` builds it: the cards laid on tokens so far, the
    cards each blank token may still get, the cards of each shuffle not laid yet, what each
    other seat holds and which item each hidden gift moved."""

    __slots__ = (
        "allow",
        "code",
        "hands",
        "left",
        "links",
        "perm",
        "picked",
        "pots",
        "shows",
        "spare",
    )

    def __init__(self) -> None:
        self.code: dict[int, int] = {}  # token -> its card
        self.allow: dict[int, frozenset[int]] = {}  # blank token -> the cards it may get
        self.left: dict[int, list[int]] = {}  # group -> copies of each card not laid
        #: group -> copies of each turned special not laid on a place of its new order yet
        self.spare: dict[int, list[int]] = {}
        self.hands: dict[int, list[Item]] = {}  # seat -> its items ("t" or "c")
        self.links: dict[int, Item] = {}  # hidden choice -> the item it moved
        self.shows: list[tuple[int, frozenset[int], tuple[Item, ...]]] = []
        self.pots: list[list[int]] = []  # each pot the seat took: its cards not placed yet
        self.picked: dict[int, int] = {}  # hidden choice put in such a pot -> its card
        self.perm: dict[int, int] = {}  # share -> crosswise or not (:meth:`_Walk._share`)

    def copy(self) -> _Partial:
        other = _Partial()
        other.code = dict(self.code)
        other.allow = dict(self.allow)
        other.left = {g: list(c) for g, c in self.left.items()}
        other.spare = {g: list(c) for g, c in self.spare.items()}
        other.hands = {s: list(h) for s, h in self.hands.items()}
        other.links = dict(self.links)
        other.shows = list(self.shows)
        other.pots = [list(p) for p in self.pots]
        other.picked = dict(self.picked)
        other.perm = dict(self.perm)
        return other


def _solve(walk: _Walk, segment: int, rng: Chance) -> tuple[dict[int, int], dict[int, int]]:
    """A consistent deal of one hand (its tokens' cards, its hidden choices' cards), found by
    a depth-first search over the history that never fails when one exists (the true deal
    is one). Blank tokens keep the set of cards they may still be (a colour call answered
    narrows one, a "none" call or a pass narrows all those held); a card is laid on a token
    only where a play, a gift or a shown card names it, and the last blank tokens are dealt
    by a bipartite matching of tokens to the cards left. A choice (which blank token held
    the card played, which item a hidden gift moved, which token answers a call) is a branch,
    tried in a random order; equivalent options (same shuffle, same set of cards allowed)
    are one branch. The start need not be uniform: :func:`_mix` mixes it."""
    tokens = [
        t for t, g in enumerate(walk.group) if walk.segment[g] == segment and t not in walk.retired
    ]
    root = _Partial()
    root.pots = [list(p) for p in walk.pots]
    for g, pool in enumerate(walk.pools):
        if walk.segment[g] == segment:
            counts = [0] * CODES
            for code in pool:
                counts[code] += 1
            root.left[g] = counts
    for g, (_, turned) in walk.fresh.items():
        if walk.segment[g] == segment:
            root.spare[g] = [turned.get(c, 0) for c in range(CODES)]

    renewed = frozenset().union(*(places for places, _ in walk.fresh.values()))

    def fresh(token: int) -> bool:
        return token in renewed

    def room(state: _Partial, token: int, code: int) -> bool:
        g = walk.group[token]
        spare = state.spare.get(g)
        reserved = 0 if spare is None or fresh(token) else spare[code]
        return state.left[g][code] - reserved > 0

    def lay(state: _Partial, token: int, code: int) -> None:
        g = walk.group[token]
        state.code[token] = code
        state.allow.pop(token, None)
        state.left[g][code] -= 1
        spare = state.spare.get(g)
        if spare is not None and fresh(token) and spare[code] > 0:
            spare[code] -= 1  # a place of the new order takes a turned card first: no loss

    def possible(state: _Partial, token: int, within: frozenset[int] | None = None) -> bool:
        allowed = state.allow.get(token, _ALL)
        if within is not None:
            allowed = allowed & within
        return any(room(state, token, c) for c in allowed)

    def value(state: _Partial, item: Item) -> int:
        return state.code.get(item[1], -1) if item[0] == "t" else item[1]

    def blanks(state: _Partial, hand: list[Item], fits: Any) -> list[list[int]]:
        """The blank tokens of ``hand`` that ``fits``, by kind (shuffle, new order or not,
        cards allowed): tokens of a kind are alike for what follows."""
        kinds: dict[Any, list[int]] = {}
        for kind, x in hand:
            if kind == "t" and x not in state.code and fits(x):
                kinds.setdefault((walk.group[x], fresh(x), state.allow.get(x)), []).append(x)
        return list(kinds.values())

    for token in tokens:
        if token in walk.pin:
            if not room(root, token, walk.pin[token]):
                raise ValueError("the seat's own cards do not fit the shuffles (a bug)")
            lay(root, token, walk.pin[token])
    steps = walk.steps[segment]
    # a branch: (step index, the state before it, the option taken there)
    stack: list[tuple[int, _Partial, Any]] = []
    state, at, option = root, 0, None
    while True:
        failed = False
        if option is not None:  # a branch taken up again
            at += _take(state, state.hands.setdefault(steps[at][1], []), option, steps[at][2], lay)
            if option[0] in ("lay", "narrow"):
                failed = not _feasible(walk, state, {walk.group[option[1]]}, rng, fresh)
            option = None
        while at < len(steps) and not failed:
            what, seat, thing = steps[at]
            hand = state.hands.setdefault(seat, [])
            options: list[Any] | None = None
            if what == "in":
                if thing[0] == "s":
                    thing = ("t", _slot_token(walk, thing[1], state.perm[thing[1] // 2]))
                hand.append(state.links[thing[1]] if thing[0] == "v" else thing)
            elif what == "share":  # MM-22 g: which place went to whom
                share = thing[1] // 2
                if share not in state.perm:
                    options = [(1, ("perm", share, 0)), (1, ("perm", share, 1))]
                else:
                    code = walk.shares[share][1][thing[1] % 2]
                    token = _slot_token(walk, thing[1], state.perm[share])
                    if code >= 0 and token not in state.code:  # the seat got it and saw it
                        if code in state.allow.get(token, _ALL) and room(state, token, code):
                            lay(state, token, code)
                            failed = not _feasible(walk, state, {walk.group[token]}, rng, fresh)
                        else:
                            failed = True
                    elif code >= 0:
                        failed = state.code[token] != code
            elif what == "pot":  # MM-22 h: a deck card set aside into a pot the seat took
                pot = walk.potted.get(thing)
                if pot is not None:
                    cards = state.pots[pot]
                    token = thing[1]
                    if token in state.code:
                        cards[state.code[token]] -= 1
                        failed = cards[state.code[token]] < 0
                    else:
                        options = [
                            (n, ("lay", token, c))
                            for c, n in enumerate(cards)
                            if n > 0 and c in state.allow.get(token, _ALL) and room(state, token, c)
                        ]
            elif what == "out" and thing[0] == "v" and thing[1] not in state.picked:
                pot = walk.potted.get(thing)
                if pot is None:  # MM-19, MM-22 a/h: the card given or set aside unseen
                    options = _kinds(state, hand, value, blanks(state, hand, lambda t: True), rng)
                else:  # set aside into a pot the seat took: one of its cards
                    options = [
                        (n, ("pick", thing[1], c, pot)) for c, n in enumerate(state.pots[pot]) if n
                    ]
            elif what == "out" or (what == "shown" and thing[0] != "v"):
                code = state.picked[thing[1]] if thing[0] == "v" else thing[1]
                found = [i for i in hand if value(state, i) == code]
                if not found:  # MM-8 ... MM-12: held, so on a blank token that may be it
                    fits = blanks(
                        state,
                        hand,
                        lambda t, c=code, s=state: c in s.allow.get(t, _ALL) and room(s, t, c),
                    )
                    options = [(len(k), ("lay", rng.choice(k), code)) for k in fits]
                elif what == "out":
                    hand.remove(found[0])
                    if thing[0] == "v":
                        state.links[thing[1]] = found[0]
            elif what in ("has", "shown"):
                within = _COLOUR_CODES[walk.shown_colour[thing[1]]] if what == "shown" else thing
                if any(
                    value(state, i) in within
                    or (
                        i[0] == "t"
                        and i[1] not in state.code
                        and state.allow.get(i[1], _ALL) <= within
                    )
                    for i in hand
                ):
                    if what == "shown":
                        state.shows.append((thing[1], within, tuple(hand)))
                else:  # MM-22 b: a blank token held answers the call
                    fits = blanks(state, hand, lambda t, w=within, s=state: possible(s, t, w))
                    options = [(len(k), ("narrow", rng.choice(k), within)) for k in fits]
            else:  # "none": MM-22 b, MM-15 ruling
                narrowed = set()
                for kind, x in hand:
                    if kind == "c" or x in state.code:
                        failed = value(state, (kind, x)) in thing
                    elif thing & state.allow.get(x, _ALL):
                        state.allow[x] = state.allow.get(x, _ALL) - thing
                        narrowed.add(walk.group[x])
                    if failed:
                        break
                failed = failed or not _feasible(walk, state, narrowed, rng, fresh)
            if failed:
                break
            if options is None:
                at += 1
                continue
            if not options:
                failed = True
                break
            options = _ordered(options, rng)
            for other in options[1:]:
                stack.append((at, state.copy(), other))
            at += _take(state, hand, options[0], thing, lay)
            if options[0][0] in ("lay", "narrow"):
                group = walk.group[options[0][1]]
                if not _feasible(walk, state, {group}, rng, fresh):
                    failed = True
                    break
        if not failed:
            dealt = _fill(walk, state, tokens, rng, fresh)
            if dealt is not None:
                for share, perm in state.perm.items():
                    walk.perm[share] = perm
                return dealt
        if not stack:
            raise ValueError("no deal of the hand fits what the seat saw (a bug)")
        at, state, option = stack.pop()


def _kinds(
    state: _Partial, hand: list[Item], value: Any, blanks: list[list[int]], rng: Chance
) -> list[tuple[int, Any]]:
    """A hidden gift's options: the items of ``hand`` up to equivalence (one per card held,
    one per kind of blank token), each weighed by the items it stands for."""
    known: dict[int, list[Item]] = {}
    for item in hand:
        code = value(state, item)
        if code >= 0:
            known.setdefault(code, []).append(item)
    return [
        *((len(items), ("item", items[0])) for items in known.values()),
        *((len(kind), ("item", ("t", rng.choice(kind)))) for kind in blanks),
    ]


def _ordered(options: list[tuple[int, Any]], rng: Chance) -> list[Any]:
    """The options in a random order, each next one drawn in proportion to its weight (so
    the first is as likely as the items it stands for: a start close to the law)."""
    left = list(options)
    order = []
    while left:
        pick = rng.below(sum(w for w, _ in left))
        for i, (w, option) in enumerate(left):
            if pick < w:
                order.append(option)
                del left[i]
                break
            pick -= w
    return order


def _take(state: _Partial, hand: list[Item], option: Any, thing: Any, lay: Any) -> int:
    """Do a branch's option at its step; 1 if the step is done, 0 if it is to be read again
    (a card laid or a token narrowed, the step now holds as it is)."""
    if option[0] == "item":  # a hidden gift moved this item
        hand.remove(option[1])
        state.links[thing[1]] = option[1]
        return 1
    if option[0] == "perm":  # a share's places go to its receivers crosswise or not
        state.perm[option[1]] = option[2]
    elif option[0] == "pick":  # the card of a hidden one put in a pot the seat took
        _, x, code, pot = option
        state.picked[x] = code
        state.pots[pot][code] -= 1
    elif option[0] == "lay":
        lay(state, option[1], option[2])
    else:  # "narrow": this blank token answers the call
        state.allow[option[1]] = state.allow.get(option[1], _ALL) & option[2]
    return 0


def _match(
    walk: _Walk, state: _Partial, group: int, blank: list[int], rng: Chance | None, fresh: Any
) -> dict[int, int] | None:
    """Cards left in ``group`` for the ``blank`` tokens, each within the cards it may get
    and a turned special's copy on a place of its new order, by augmenting paths (Kuhn;
    in a random order, or none for a mere check); ``None`` when there is no such deal."""
    left = state.left[group]
    spare = state.spare.get(group, [0] * CODES)
    caps: dict[tuple[int, bool], int] = {}
    for c in range(CODES):
        if spare[c]:
            caps[(c, True)] = spare[c]
        if left[c] - spare[c]:
            caps[(c, False)] = left[c] - spare[c]
    taken: dict[tuple[int, bool], list[int]] = {kind: [] for kind in caps}

    def place(token: int, tried: set[tuple[int, bool]]) -> bool:
        allowed = state.allow.get(token, _ALL)
        kinds = [k for k in caps if k[0] in allowed and (fresh(token) or not k[1])]
        for kind in kinds if rng is None else rng.shuffled(kinds):
            if kind in tried:
                continue
            tried.add(kind)
            if len(taken[kind]) < caps[kind]:
                taken[kind].append(token)
                return True
            for other in list(taken[kind]):
                if place(other, tried):
                    taken[kind].remove(other)
                    taken[kind].append(token)
                    return True
        return False

    for token in blank if rng is None else rng.shuffled(blank):
        if not place(token, set()):
            return None
    return {token: c for (c, _), placed in taken.items() for token in placed}


def _feasible(walk: _Walk, state: _Partial, groups: set[int], rng: Chance, fresh: Any) -> bool:
    """Whether the blank tokens narrowed so far in ``groups`` can still all get a card (a
    check after each card laid or token narrowed, so a search fails where it went wrong,
    not many choices later)."""
    narrowed: dict[int, list[int]] = {g: [] for g in groups}
    for token in state.allow:
        if walk.group[token] in narrowed:
            narrowed[walk.group[token]].append(token)
    return all(
        _match(walk, state, g, tokens, None, fresh) is not None for g, tokens in narrowed.items()
    )


def _fill(
    walk: _Walk, state: _Partial, tokens: list[int], rng: Chance, fresh: Any
) -> tuple[dict[int, int], dict[int, int]] | None:
    """The hand's blank tokens dealt the cards left (:func:`_match`); then the hidden choices
    read off the items they moved. ``None`` when no such deal exists."""
    code = dict(state.code)
    by_group: dict[int, list[int]] = {}
    for token in tokens:
        if token not in code:
            by_group.setdefault(walk.group[token], []).append(token)
    for g, blank in by_group.items():
        if sum(state.left[g]) != len(blank):
            raise ValueError("a shuffle's tokens and cards differ (a bug)")
        found = _match(walk, state, g, blank, rng, fresh)
        if found is None:
            return None
        code.update(found)
    chosen = dict(state.picked)
    for x, (kind, y) in state.links.items():
        chosen[x] = code[y] if kind == "t" else y
    for x, within, hand in state.shows:
        codes = [c for c in (code[y] if k == "t" else y for k, y in hand) if c in within]
        if not codes:
            return None
        chosen[x] = rng.choice(codes)
    return {t: code[t] for t in tokens}, chosen


def _start(walk: _Walk, rng: Chance) -> tuple[dict[int, int], list[int]]:
    """A consistent deal and hidden choices, hand by hand (:func:`_solve`)."""
    deal: dict[int, int] = {}
    chosen = [-1] * len(walk.choices)
    for segment in range(len(walk.steps)):
        cards, picks = _solve(walk, segment, rng)
        deal.update(cards)
        for x, code in picks.items():
            chosen[x] = code
        if not _consistent(walk, segment, deal, chosen):
            raise ValueError(f"hand {segment + 1}: the deal found breaks its history (a bug)")
    if min(chosen, default=0) < 0:
        raise ValueError("a hidden card was never given a value (a bug)")
    return deal, chosen


def _mix(walk: _Walk, rng: Chance, deal: dict[int, int], chosen: list[int]) -> None:
    """The chain: swap two tokens' cards within a group, or draw a hidden choice anew.

    The swaps are symmetric; where the specials turned at the start went back into a new
    order (MM-6), a deal's weight is the number of ways the turned cards could sit in that
    order (for each special, m (m-1) ... (m-t+1), m its copies there, t turned), so a swap in
    or out of the new order is taken with the ratio of the weights (Metropolis): the law
    stays uniform over the shuffles themselves. A share across a reshuffle (MM-22 g) may be
    turned crosswise. What a pot the seat took or a share it got across a reshuffle showed it
    stays as the start placed it (which of its cards each unknown item was)."""
    held = {t for places, cards in walk.shares if max(cards) >= 0 for t in places}
    free = [t for t in deal if t not in walk.pin and ("t", t) not in walk.potted and t not in held]
    flips = [i for i, (places, cards) in enumerate(walk.shares) if max(cards) < 0]
    by_group: dict[int, list[int]] = {}
    for token in free:
        by_group.setdefault(walk.group[token], []).append(token)
    inside: dict[int, list[int]] = {}  # renewed group -> copies of each card in its new order
    for group, (places, _) in walk.fresh.items():
        inside[group] = [0] * CODES
        for token in places:
            inside[group][deal[token]] += 1
    open_choices = [i for i in range(len(chosen)) if ("v", i) not in walk.potted]
    n = len(free) + len(open_choices) + len(flips)
    steps = int(4 * n * math.log(max(n, 2))) + 10 if n else 0
    for _ in range(steps):
        pick = rng.below(n)
        if pick < len(free):
            a = free[pick]
            group = walk.group[a]
            b = rng.choice(by_group[group])
            if deal[a] == deal[b]:
                continue
            counts = inside.get(group)
            across = False  # one of the two in a new order (MM-6), the other not
            if counts is not None:
                places, turned = walk.fresh[group]
                across = (a in places) != (b in places)
                if across:
                    inner, outer = (a, b) if a in places else (b, a)
                    gone, come = deal[inner], deal[outer]  # inner's card leaves the order
                    m, t = counts[gone], turned.get(gone, 0)
                    k, u = counts[come], turned.get(come, 0)
                    ratio = (m - t) / m * (k + 1) / (k + 1 - u)
                    if ratio < 1 and rng.random() >= ratio:
                        continue
            deal[a], deal[b] = deal[b], deal[a]
            if not _consistent(walk, walk.segment[group], deal, chosen, (("t", a), ("t", b))):
                deal[a], deal[b] = deal[b], deal[a]
            elif counts is not None and across:
                counts[gone] -= 1
                counts[come] += 1
        elif pick >= len(free) + len(open_choices):
            share = flips[pick - len(free) - len(open_choices)]
            pair = walk.shares[share][0]
            walk.perm[share] ^= 1
            items = tuple(("t", t) for t in pair)
            if not _consistent(walk, walk.segment[walk.group[pair[0]]], deal, chosen, items):
                walk.perm[share] ^= 1
        else:
            index = open_choices[pick - len(free)]
            old, chosen[index] = chosen[index], rng.below(CODES)
            if not _consistent(walk, walk.choices[index], deal, chosen, (("v", index),)):
                chosen[index] = old


def _write(
    walk: _Walk, rng: Chance, deal: dict[int, int], chosen: list[int], events: list[Any]
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
    walk = _Walk(knowledge, events, rng)
    deal, chosen = _start(walk, rng)
    _mix(walk, rng, deal, chosen)
    world = _write(walk, rng, deal, chosen, events)
    if walk.passes and not _passes_hold(knowledge, config, world, walk.passes):
        raise ValueError("a pass the engine does not force in the world found (a bug)")
    return world
