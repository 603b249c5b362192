"""Sleeping Queens: the worlds a seat could be in (:mod:`referee.search.worlds`).

Hidden from the seat: the order of every shuffle of the draw pile (the first one, SQ-3, and
every reshuffle of the discard pile, SQ-14, whose cards are public), so the cards the other
players drew (SQ-17, SQ-19), and the sleeping queens' positions (SQ-18). A world deals every
shuffle anew: each draw takes the next positions of the current shuffle, as in the game, and
the positions the seat did not see (another player's draws, what is still in the pile) get
the shuffle's unseen cards uniformly, among the orders under which the game went as the seat
saw it. What that rules out:

* **a card played must have been held** (SQ-5 ... SQ-10, SQ-6/SQ-7's blocks): at every
  moment, every other player's drawn cards and Jester power cards (SQ-8: turned up, public)
  less what it played hold no negative count of any card;
* **no forced move tells more**: a turn is any one action (SQ-4, and a single discard is
  always possible, SQ-9), and a targeted player is asked to block also when holding no
  Dragon or Wand (SQ-6, SQ-7; declining is always legal), so declining a block says nothing;
* **the queens**: a queen is seen when she is woken or bounced (SQ-12) or put back to sleep
  (SQ-18, public); the queens never seen lie uniformly in the first positions never seen.

A draw counts as seen when the knowledge shows its cards, and the queens as laid when it
shows them: for a seat's own knowledge that is its own draws only and never the queens, but
an experiment may hand the search more than its seat knows, to bound what knowing it would
be worth (``tournaments/duel.py --reveal``).

The deal starts from a greedy one that gives each played card to a position its player drew
before playing it, and is then mixed by swapping two positions of one shuffle whenever the
swap keeps every player's hand whole (a symmetric chain, so uniform within the bounds;
:func:`referee.search.worlds.deal_rows` explains the argument).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from referee.engine.game import GameConfig
from referee.games.sleeping_queens.model import (
    CARD_COUNTS,
    JESTER,
    KING,
    KNIGHT,
    POSITIONS,
    POTION,
    Blocked,
    CardsDrawn,
    DeckShuffled,
    Discarded,
    JesterPlayed,
    JesterTurned,
    KingPlayed,
    KnightPlayed,
    PotionPlayed,
    QueenBounced,
    QueenPutToSleep,
    QueensLaid,
    QueenWoken,
)
from referee.search.worlds import Chance, Knowledge

#: SQ-2: the 67 cards, as codes.
_DECK = [card for card, count in CARD_COUNTS.items() for _ in range(count)]
_QUEENS = range(1, POSITIONS + 1)
#: The events a player plays (discards) one card with, and the card.
_PLAYS = {KingPlayed: KING, JesterPlayed: JESTER, KnightPlayed: KNIGHT, PotionPlayed: POTION}


class _Follow:
    """The seat's events read once: every shuffle's positions and who drew them, and each
    other player's timeline of gains (positions, or a known card) and plays."""

    def __init__(self, knowledge: Knowledge, events: list[Any]) -> None:
        self.seat = knowledge.seat
        self.shuffles: list[int] = []  # event index of each DeckShuffled
        self.pools: list[list[int]] = []  # the cards of each shuffle
        self.known: list[dict[int, int]] = []  # per shuffle: position -> card the seat saw
        self.taken: list[int] = []  # per shuffle: positions taken so far
        #: slot (shuffle, position) -> the seat that drew it (another player)
        self.owner: dict[tuple[int, int], int] = {}
        #: per player: ("gain", slot) | ("card", +card) | ("play", card), in order
        self.timeline: dict[int, list[tuple[str, Any]]] = {}
        self.order: list[tuple[int, tuple[str, Any]]] = []  # (player, step), all in order
        self.drawn: dict[int, list[tuple[int, int]]] = {}  # event index -> its slots
        self.laid = -1
        self.original: dict[int, int] = {}  # position -> the queen first laid there
        discard: list[int] = []
        replaced: set[int] = set()
        for index, event in enumerate(events):
            kind = type(event)
            if kind is DeckShuffled:
                pool = list(discard) if event.reshuffle else list(_DECK)
                if len(pool) != event.count:
                    raise ValueError(
                        f"shuffle {event.shuffle}: {len(pool)} cards, not {event.count}"
                    )
                if event.reshuffle:
                    discard = []
                self.shuffles.append(index)
                self.pools.append(pool)
                self.known.append({})
                self.taken.append(0)
            elif kind is QueensLaid:
                self.laid = index
                for position, queen in enumerate(event.queens):  # none: SQ-18 hides them all
                    self.original[position] = queen
            elif kind is CardsDrawn:
                self._draw(index, event)
            elif kind is JesterTurned:
                k = len(self.shuffles) - 1
                self.known[k][self.taken[k]] = event.card
                self.taken[k] += 1
                if event.counted is None:
                    self._line(event.seat, ("card", event.card))
                else:
                    discard.append(event.card)
            elif kind is Discarded:
                discard.extend(event.cards)
                for card in event.cards:
                    self._line(event.seat, ("play", card))
            elif kind in _PLAYS or kind is Blocked:
                card = event.card if kind is Blocked else _PLAYS[kind]
                discard.append(card)
                self._line(event.seat, ("play", card))
            elif kind is QueenWoken or kind is QueenBounced:
                if event.position not in replaced:
                    self.original.setdefault(event.position, event.queen)
                if kind is QueenWoken:
                    replaced.add(event.position)  # emptied: whoever lies there later is known
            elif kind is QueenPutToSleep:
                replaced.add(event.position)

    def _line(self, seat: int, step: tuple[str, Any]) -> None:
        if seat != self.seat:
            self.timeline.setdefault(seat, []).append(step)
            self.order.append((seat, step))

    def _draw(self, index: int, event: CardsDrawn) -> None:
        k = len(self.shuffles) - 1
        slots = [(k, self.taken[k] + i) for i in range(event.count)]
        self.taken[k] += event.count
        self.drawn[index] = slots
        if event.cards:  # a draw the seat saw: only its own (SQ-17), unless told more
            for (_, position), card in zip(slots, event.cards, strict=True):
                self.known[k][position] = card  # in sorted order: placed at random below
                if event.seat != self.seat:
                    self._line(event.seat, ("card", card))
        else:
            for slot in slots:
                self.owner[slot] = event.seat
                self._line(event.seat, ("gain", slot))


def _whole(timeline: list[tuple[str, Any]], value: dict[tuple[int, int], int], card: int) -> bool:
    """Whether a player's hand never holds fewer than no ``card`` (SQ-5 ... SQ-10)."""
    held = 0
    for what, x in timeline:
        if what == "gain":
            held += value[x] == card
        elif x == card:
            held += 1 if what == "card" else -1
            if held < 0:
                return False
    return True


def _greedy(rng: Chance, f: _Follow) -> dict[tuple[int, int], int]:
    """A deal in which every card a player played was among what it held before: each play
    not covered yet takes a position its player drew, in the order of the game (random
    choices that paint themselves into a corner are tried again)."""
    for _ in range(200):
        value = _try_greedy(rng, f)
        if value is not None:
            return value
    raise ValueError("no deal found in which every card played was held")


def _try_greedy(rng: Chance, f: _Follow) -> dict[tuple[int, int], int] | None:
    left = [list(pool) for pool in f.pools]
    for k, known in enumerate(f.known):
        for card in known.values():
            left[k].remove(card)
    value: dict[tuple[int, int], int] = {}
    placeholders: dict[int, list[tuple[int, int]]] = {s: [] for s in f.timeline}
    held: dict[int, dict[int, int]] = {s: {} for s in f.timeline}
    for seat, (what, x) in f.order:
        mine = held[seat]
        if what == "gain":
            placeholders[seat].append(x)
        elif what == "card":
            mine[x] = mine.get(x, 0) + 1
        elif mine.get(x, 0) > 0:
            mine[x] -= 1
        else:
            fits = [slot for slot in placeholders[seat] if x in left[slot[0]]]
            if not fits:
                return None
            slot = rng.choice(fits)
            placeholders[seat].remove(slot)
            left[slot[0]].remove(x)
            value[slot] = x
    for k, pool in enumerate(left):
        rest = rng.shuffled(pool)
        for position in range(len(f.pools[k])):
            if position not in f.known[k] and (k, position) not in value:
                value[(k, position)] = rest.pop()
    return value


def sample(knowledge: Knowledge, config: GameConfig, rng: Chance) -> list[Any]:
    """The seat's events with every shuffle, the others' draws and the queens filled in."""
    events = list(knowledge.game_events)
    f = _Follow(knowledge, events)
    value = _greedy(rng, f)
    blind = list(value)  # the positions the seat did not see
    by_shuffle: dict[int, list[tuple[int, int]]] = {}
    for slot in blind:
        by_shuffle.setdefault(slot[0], []).append(slot)
    n = len(blind)
    steps = int(4 * n * math.log(max(n, 2))) + 10 if n else 0
    for _ in range(steps):
        a = blind[rng.below(n)]
        group = by_shuffle[a[0]]
        b = group[rng.below(len(group))]
        x, y = value[a], value[b]
        if x == y:
            continue
        value[a], value[b] = y, x
        owners = {f.owner.get(a), f.owner.get(b)} - {None}
        if not all(
            _whole(f.timeline[s], value, x) and _whole(f.timeline[s], value, y)
            for s in owners
            if s is not None
        ):
            value[a], value[b] = x, y
    return fill(f, value, rng, events)


def fill(
    f: _Follow, value: dict[tuple[int, int], int], rng: Chance, events: list[Any]
) -> list[Any]:
    """``events`` with the deal ``value`` (the positions the seat did not see) written in,
    the seat's own draws in a random order within each draw and the queens laid."""
    value = dict(value)
    events = list(events)
    for k, seen in enumerate(f.known):
        known = dict(seen)
        own: dict[int, list[int]] = {}
        for index, slots in f.drawn.items():
            if slots and slots[0][0] == k and slots[0] not in value:
                own[index] = rng.shuffled([known[p] for _, p in slots])  # the seat's own draw
        for index, cards in own.items():
            for (_, p), card in zip(f.drawn[index], cards, strict=True):
                known[p] = card
        for position, card in known.items():
            value[(k, position)] = card
    for k, index in enumerate(f.shuffles):
        order = tuple(value[(k, p)] for p in range(len(f.pools[k])))
        events[index] = replace(events[index], cards=order)
    for index, slots in f.drawn.items():
        events[index] = replace(events[index], cards=tuple(sorted(value[s] for s in slots)))
    if f.laid >= 0:
        unseen = rng.shuffled([q for q in _QUEENS if q not in f.original.values()])
        queens = tuple(f.original[p] if p in f.original else unseen.pop() for p in range(POSITIONS))
        events[f.laid] = QueensLaid(queens)
    return events
