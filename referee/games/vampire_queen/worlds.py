"""Vampire Queen: the worlds a seat could be in (:mod:`referee.search.worlds`).

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
  its deal is one that fits (found by a search that cannot miss one), not drawn uniformly.

Within the current round the deal is uniform over the physical cards (cards of one value
are interchangeable, VQ-1, but eight 8s are eight cards) among those within the bounds
(:func:`referee.search.worlds.deal_rows`).
"""

from __future__ import annotations

from typing import Any

from referee.engine.game import GameConfig
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
from referee.search.worlds import Chance, Knowledge, deal_rows

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
    """A deal in which each seat's hand left at the end of the round sums to its penalty
    (VQ-18), within the lower bounds: a depth-first search, seat by seat, over the values of
    its cards beyond its bounds (in a random order, pruned by the least and most the cards
    left could sum to; a dead end is remembered), so it finds one whenever one exists (the
    true deal is one). The cards set aside take what is left."""
    assert current.penalties is not None
    seats = len(others)
    counts = [0] * 15  # the cards beyond every seat's lower bounds
    for row in rows:
        for value in row:
            counts[value] += 1
    sizes, needs = [], []
    for r, s in enumerate(others):
        hunters = sum(h for h, holder in current.hunters.items() if holder == s)
        # what is left = dealt - net: its sum is the penalty less the Hunters held
        target = current.penalties[s] - hunters + sum(v * n for v, n in enumerate(current.net[s]))
        for value, n in low[r].items():
            counts[value] -= n
        sizes.append(len(rows[r]) - sum(low[r].values()))
        needs.append(target - sum(v * n for v, n in low[r].items()))
    # the seats whose mean card must be farthest from the pool's go first (a hand left that
    # sums high takes the high cards before the others spread them)
    mean = sum(v * n for v, n in enumerate(counts)) / max(sum(counts), 1)
    order = sorted(range(seats), key=lambda r: -abs(needs[r] - mean * sizes[r]) / max(sizes[r], 1))
    sizes = [sizes[r] for r in order]
    needs = [needs[r] for r in order]
    dead: set[tuple[int, tuple[int, ...]]] = set()

    def bounds(left: list[int], k: int) -> tuple[int, int]:
        """The least and the most ``k`` of the cards ``left`` sum to."""
        least = most = 0
        need = k
        for value in range(15):
            take = min(need, left[value])
            least += take * value
            need -= take
        need = k
        for value in range(14, -1, -1):
            take = min(need, left[value])
            most += take * value
            need -= take
        return least, most

    def picks(left: list[int], values: list[int], k: int, total: int) -> Any:
        """Every way to take ``k`` cards summing to ``total`` from ``values``, as counts."""
        if k == 0:
            if total == 0:
                yield {}
            return
        if not values:
            return
        least, most = bounds([left[v] if v in values else 0 for v in range(15)], k)
        if not least <= total <= most:
            return
        value, rest = values[0], values[1:]
        for n in rng.shuffled(range(min(k, left[value]) + 1)):
            for more in picks(left, rest, k - n, total - n * value):
                yield {value: n, **more} if n else more

    def search(r: int, left: list[int]) -> list[dict[int, int]] | None:
        if r == seats:
            return []
        key = (r, tuple(left))
        if key in dead:
            return None
        least, most = bounds(left, sum(sizes[r:]))
        fits = least <= sum(needs[r:]) <= most
        for k in range(r, seats):  # each seat still to come alone, too
            if not fits:
                break
            least, most = bounds(left, sizes[k])
            fits = least <= needs[k] <= most
        if fits:
            values = rng.shuffled([v for v in range(15) if left[v]])
            for pick in picks(left, values, sizes[r], needs[r]):
                after = list(left)
                for value, n in pick.items():
                    after[value] -= n
                found = search(r + 1, after)
                if found is not None:
                    return [pick, *found]
        dead.add(key)
        return None

    searched = search(0, counts)
    if searched is None:
        raise ValueError("no deal of the scored round fits its penalties (a bug)")
    found: list[dict[int, int]] = [{} for _ in range(seats)]
    for r, pick in zip(order, searched, strict=True):
        found[r] = pick
    fitted = []
    for bound, pick in zip(low, found, strict=False):
        fitted.append([v for part in (bound, pick) for v, n in part.items() for _ in range(n)])
        for value, n in pick.items():
            counts[value] -= n
    fitted.append([v for v in range(15) for _ in range(counts[v])])  # set aside
    return fitted
