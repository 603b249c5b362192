"""Vampire Queen: the worlds a seat could be in (:mod:`referee.engine.worlds`).

The only hidden things are the other seats' dealt hands and the cards set aside (VQ-4, VQ-5,
VQ-20, VQ-21): every play, pass, skip and pick-up is public, and so is who holds each Hunter.
A world deals each round anew, with every other seat's hand (its ``HandDealt``) drawn from
the cards the seat did not see dealt to itself, uniformly among the deals in which the round
went as the seat saw it. What that rules out:

* **a card played must have been held** (VQ-7, VQ-8, VQ-12): at every moment of the round a
  seat's dealt cards, plus what it took back in Hunter tricks (VQ-14, VQ-21: public), minus
  what it played, hold no negative count of any value; so a seat's deal holds at least, of
  each value, the most it had played beyond what it took back at any moment of the round;
* **a skip** (VQ-13) means the hand held Hunters only; the hand sizes are public (VQ-20), so
  that says nothing more;
* **passing is always allowed** (VQ-7) and an answer to a Hunter is any card (VQ-12): no move
  is forced by the cards held, so nothing else is ruled out;
* **a scored round** (VQ-18): the penalties are public, so each hand left at the end sums to
  its seat's penalty (less the Hunters it held). Such a round no longer bears on the state;
  its deal is one that fits (found by swaps that bring the sums to their targets), not drawn
  uniformly.

Within the current round the deal is uniform over the physical cards (cards of one value
are interchangeable, VQ-1, but eight 8s are eight cards) among those within the bounds
(:func:`referee.engine.worlds.deal_rows`).
"""

from __future__ import annotations

from typing import Any

from referee.engine.game import GameConfig
from referee.engine.worlds import Chance, Knowledge, deal_rows
from referee.games.vampire_queen.model import (
    HUNTERS,
    QUEEN,
    CardPlayed,
    HandDealt,
    RoundScored,
    RoundStarted,
    SetPlayed,
    TrickWon,
)
from referee.games.vampire_queen.state import DECK, NOTATION

_DECK_VALUES = [NOTATION[card] for card in DECK]
#: Where the set-aside cards go in a round's rows (after the seats).
_ASIDE = -1


class _Round:
    """One round as the seat saw it: its deal events and, per seat, what it played and took."""

    def __init__(self, players: int, started: RoundStarted) -> None:
        self.players = players
        self.dealt: dict[int, int] = {}  # event index of each seat's HandDealt
        self.counts: list[int] = [0] * players
        self.own: tuple[int, ...] = ()
        self.net = [[0] * 15 for _ in range(players)]  # played minus taken, by value
        self.low = [[0] * 15 for _ in range(players)]  # the most ``net`` ever was
        self.hunters = {HUNTERS[0]: started.hunter_15_holder, HUNTERS[1]: started.hunter_20_holder}
        self.penalties: tuple[int, ...] | None = None

    def out(self, seat: int, value: int, count: int) -> None:
        net = self.net[seat]
        net[value] += count
        if net[value] > self.low[seat][value]:
            self.low[seat][value] = net[value]

    def taken(self, seat: int, values: tuple[int, ...]) -> None:
        for value in values:
            if value in HUNTERS:
                self.hunters[value] = seat
            else:
                self.net[seat][value] -= 1


def _rounds(knowledge: Knowledge, events: list[Any]) -> list[_Round]:
    rounds: list[_Round] = []
    for index, event in enumerate(events):
        kind = type(event)
        if kind is RoundStarted:
            rounds.append(_Round(knowledge.players, event))
            continue
        current = rounds[-1]
        if kind is HandDealt:
            current.dealt[event.seat] = index
            current.counts[event.seat] = event.count
            if event.seat == knowledge.seat:
                current.own = event.cards
        elif kind is SetPlayed:
            current.out(event.seat, QUEEN, event.queens)
            if event.value != QUEEN:
                current.out(event.seat, event.value, event.count - event.queens)
        elif kind is CardPlayed:
            current.out(event.seat, event.value, 1)
        elif kind is TrickWon and event.hunter_trick:
            current.taken(event.winner, event.taken)
        elif kind is RoundScored:
            current.penalties = event.penalties
    return rounds


def sample(knowledge: Knowledge, config: GameConfig, rng: Chance) -> list[Any]:
    """The seat's events with every other seat's dealt hand filled in (see the module)."""
    events = list(knowledge.game_events)
    seat = knowledge.seat
    for current in _rounds(knowledge, events):
        others = [s for s in range(knowledge.players) if s != seat and s in current.dealt]
        if not others:
            continue
        pool = list(_DECK_VALUES)
        for value in current.own:
            pool.remove(value)
        sizes = [current.counts[s] for s in others]
        sizes.append(len(pool) - sum(sizes))
        low = [{v: n for v, n in enumerate(current.low[s]) if n > 0} for s in others]
        low.append({})
        rows = deal_rows(rng, pool, sizes, low=low)
        if current.penalties is not None:
            rows = _fit_penalties(rng, current, others, rows, low)
        for s, row in zip(others, rows, strict=False):
            events[current.dealt[s]] = HandDealt(s, current.counts[s], tuple(sorted(row)))
    return events


def _fit_penalties(
    rng: Chance,
    current: _Round,
    others: list[int],
    rows: list[list[int]],
    low: list[dict[int, int]],
) -> list[list[int]]:
    """Swap cards between the rows (within the lower bounds) until each seat's hand left at
    the end of the round sums to its penalty (VQ-18); a swap that moves the sums away from
    their targets is made rarely, so the search does not stall."""
    assert current.penalties is not None
    targets = []
    for s in others:
        hunters = sum(h for h, holder in current.hunters.items() if holder == s)
        # what is left = dealt - net: its sum is the penalty less the Hunters held
        targets.append(
            current.penalties[s] - hunters + sum(v * n for v, n in enumerate(current.net[s]))
        )
    sums = [sum(row) for row in rows]
    counts = [[row.count(v) for v in range(15)] for row in rows]
    seats = len(others)
    slots = [(r, i) for r, row in enumerate(rows) for i in range(len(row))]

    def miss(r: int, total: int) -> int:
        return abs(total - targets[r]) if r < seats else 0

    for _ in range(400_000):
        if all(sums[r] == targets[r] for r in range(seats)):
            return rows
        ra, ia = rng.choice(slots)
        rb, ib = rng.choice(slots)
        a, b = rows[ra][ia], rows[rb][ib]
        if ra == rb or a == b:
            continue
        if counts[ra][a] - 1 < low[ra].get(a, 0) or counts[rb][b] - 1 < low[rb].get(b, 0):
            continue
        before = miss(ra, sums[ra]) + miss(rb, sums[rb])
        after = miss(ra, sums[ra] - a + b) + miss(rb, sums[rb] - b + a)
        if after > before and rng.random() > 0.02:
            continue
        rows[ra][ia], rows[rb][ib] = b, a
        counts[ra][a] -= 1
        counts[ra][b] += 1
        counts[rb][b] -= 1
        counts[rb][a] += 1
        sums[ra] += b - a
        sums[rb] += a - b
    raise ValueError("no deal of the scored round fits its penalties")
