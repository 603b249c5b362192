"""A heuristic Dracula vs Van Helsing player, from the view and its legal commands only.

The bot scores a table as the sum, over the five districts, of ``weight x P(my card wins)``:

* P(win) compares the two cards as DV-20 does (exactly one trump wins, else the higher value,
  else the colour higher on the ladder). A card of the opponent that the bot does not know is
  any card it has not seen (not in its rack, not on the discard pile, not the face-up deck
  top, not the drawn card, not an opponent card it knows): P(win) is the share of those it
  beats. The comparison is the same for both roles.
* The weight of a district is ``1 + vampires`` there, and 6 when it holds 3 vampires (the
  next Dracula win there ends the game): Dracula presses where he is close, Van Helsing
  defends there.

Decisions:

* **draw or call**: call the end when it is allowed and the table scores at least
  ``call_threshold`` (60 %) of the total weight; otherwise draw.
* **discard or place**: try every legal option (discard the drawn card; or put it into a
  district, discarding the card there) and keep the best score of the resulting rack plus
  the value of the discarded card's effect: the best follow-up for a 4 (swap), 6 (exchange)
  or 7 (trump); a bonus for a 5 (another turn), a 3 and a 2 (information); a small cost for a
  1 (it reveals one of our cards); for an 8 (the round ends now) half the lead over an even
  split, so an 8 is discarded when ahead and kept (or placed over) when behind.
* **effect choices**: swap, exchange and trump choices maximise the score; reveal our own
  card that the opponent already knows, else our weakest; reveal the opponent card whose
  outcome is the most uncertain, weighted by the district.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import product

from referee.v1 import dracula_vs_van_helsing_pb2, referee_pb2

DV = dracula_vs_van_helsing_pb2.DraculaVsVanHelsing
DVView = dracula_vs_van_helsing_pb2.DraculaVsVanHelsingView

#: (colour, value); None for a card the bot does not know.
CardT = tuple[int, int]
DISTRICTS = 5
ALL_CARDS: tuple[CardT, ...] = tuple(product((1, 2, 3, 4), range(1, 9)))
DISCARDS_TO_CALL = 6


def beats(a: CardT, b: CardT, track: Sequence[int]) -> bool:
    """Whether card ``a`` beats card ``b`` in a district (DV-20).

    >>> track = [3, 4, 1, 2]  # red trump, then purple, yellow, blue
    >>> beats((3, 1), (4, 8), track), beats((1, 5), (2, 7), track), beats((4, 6), (1, 6), track)
    (True, False, True)
    """
    trump = track[0]
    if (a[0] == trump) != (b[0] == trump):
        return a[0] == trump
    if a[1] != b[1]:
        return a[1] > b[1]
    return track.index(a[0]) < track.index(b[0])


def _card(c: DV.Card) -> CardT | None:
    return (int(c.colour), c.value) if c.value else None


@dataclass(frozen=True)
class Table:
    """What the bot knows, as plain tuples: districts are indexes 0-4."""

    track: tuple[int, ...]
    mine: tuple[CardT | None, ...]
    theirs: tuple[CardT | None, ...]
    #: Cards the bot has not seen: what an unknown card may be.
    pool: tuple[CardT, ...]
    weights: tuple[float, ...]

    def p_win(self, district: int) -> float:
        mine, theirs = self.mine[district], self.theirs[district]
        if mine is not None and theirs is not None:
            return 1.0 if beats(mine, theirs, self.track) else 0.0
        if not self.pool or (mine is None and theirs is None):
            return 0.5
        if mine is not None:
            return sum(beats(mine, x, self.track) for x in self.pool) / len(self.pool)
        assert theirs is not None
        return sum(beats(x, theirs, self.track) for x in self.pool) / len(self.pool)

    def score(self) -> float:
        return sum(w * self.p_win(d) for d, w in enumerate(self.weights))

    def total(self) -> float:
        return sum(self.weights)

    def with_mine(self, district: int, card: CardT | None) -> Table:
        mine = list(self.mine)
        mine[district] = card
        return replace(self, mine=tuple(mine))

    def swapped(self, a: int, b: int) -> Table:
        mine = list(self.mine)
        mine[a], mine[b] = mine[b], mine[a]
        return replace(self, mine=tuple(mine))

    def exchanged(self, district: int) -> Table:
        mine, theirs = list(self.mine), list(self.theirs)
        mine[district], theirs[district] = theirs[district], mine[district]
        return replace(self, mine=tuple(mine), theirs=tuple(theirs))

    def with_trump(self, colour: int) -> Table:
        track = list(self.track)
        index = track.index(colour)
        track[0], track[index] = track[index], track[0]
        return replace(self, track=tuple(track))

    # --- the best follow-up of an effect that asks for a choice --------------------------

    def best_swap(self) -> float:
        return max(
            self.swapped(a, b).score() for a in range(DISTRICTS) for b in range(a + 1, DISTRICTS)
        )

    def best_exchange(self) -> float:
        return max(self.exchanged(d).score() for d in range(DISTRICTS))

    def best_trump(self) -> float:
        return max(self.with_trump(c).score() for c in self.track[1:])


def district_weight(vampires: int) -> float:
    """1 + vampires; 6 when one more Dracula win ends the game there."""
    return 6.0 if vampires >= 3 else 1.0 + vampires


def read_table(view: referee_pb2.View) -> Table:
    """The bot's knowledge of the table from its view."""
    game = view.dracula_vs_van_helsing
    me = view.seat
    mine: list[CardT | None] = [None] * DISTRICTS
    theirs: list[CardT | None] = [None] * DISTRICTS
    for rack in game.racks:
        row = mine if rack.seat == me else theirs
        for slot in rack.slots:
            if 1 <= slot.district <= DISTRICTS:
                row[slot.district - 1] = _card(slot.card)
    seen = {c for c in (*mine, *theirs) if c is not None}
    seen.update(c for c in (_card(x) for x in game.discard_pile) if c is not None)
    for extra in (game.deck_top, game.drawn):
        known = _card(extra)
        if known is not None:
            seen.add(known)
    vampires = {d.district: d.vampires for d in game.districts}
    track = tuple(int(c) for c in game.track) or (1, 2, 3, 4)
    return Table(
        track=track,
        mine=tuple(mine),
        theirs=tuple(theirs),
        pool=tuple(c for c in ALL_CARDS if c not in seen),
        weights=tuple(district_weight(vampires.get(d, 0)) for d in range(1, DISTRICTS + 1)),
    )


class DraculaHeuristic:
    """Plays Dracula vs Van Helsing for either role (see the module's docstring)."""

    call_threshold = 0.6
    extra_turn_bonus = 0.4
    reveal_opponent_bonus = 0.15
    reveal_deck_bonus = 0.05
    reveal_own_cost = 0.05

    def choose(self, view: referee_pb2.View, rng: random.Random) -> referee_pb2.Command:
        legal = list(view.legal_commands)
        game = view.dracula_vs_van_helsing
        table = read_table(view)
        step = game.step
        try:
            if step == DVView.STEP_TURN:
                return self._turn(table, legal)
            if step == DVView.STEP_PLACE:
                return self._place(view, table, legal)
            if step == DVView.STEP_REVEAL_OWN:
                return self._reveal_own(view, table, legal)
            if step == DVView.STEP_REVEAL_OPPONENT:
                return self._reveal_opponent(view, table, legal)
        except (ValueError, IndexError):  # an unexpected view: any legal command will do
            return legal[0]
        return self._best(table, legal)

    # --- draw or call ------------------------------------------------------------------

    def _turn(self, table: Table, legal: list[referee_pb2.Command]) -> referee_pb2.Command:
        calls = [c for c in legal if c.dracula_vs_van_helsing.HasField("call_end")]
        if calls and table.score() >= self.call_threshold * table.total():
            return calls[0]
        draws = [c for c in legal if c.dracula_vs_van_helsing.HasField("draw")]
        return draws[0] if draws else legal[0]

    # --- discard or place --------------------------------------------------------------

    def effect_value(self, table: Table, value: int) -> float:
        """The score after the effect of a discarded card of ``value`` on ``table``."""
        score = table.score()
        if value == 1:
            return score - self.reveal_own_cost
        if value == 2:
            return score + self.reveal_deck_bonus
        if value == 3:
            return score + self.reveal_opponent_bonus
        if value == 4:
            return table.best_swap()
        if value == 5:
            return score + self.extra_turn_bonus
        if value == 6:
            return table.best_exchange()
        if value == 7:
            return table.best_trump()
        if value == 8:
            return score + 0.5 * (score - table.total() / 2)
        return score

    def _place(
        self, view: referee_pb2.View, table: Table, legal: list[referee_pb2.Command]
    ) -> referee_pb2.Command:
        drawn = _card(view.dracula_vs_van_helsing.drawn)
        if drawn is None:
            return legal[0]

        def value(command: referee_pb2.Command) -> float:
            c = command.dracula_vs_van_helsing
            if c.HasField("place_drawn"):
                district = c.place_drawn.district - 1
                old = table.mine[district]
                after = table.with_mine(district, drawn)
                return self.effect_value(after, old[1] if old else 0)
            if c.HasField("discard_drawn"):
                return self.effect_value(table, drawn[1])
            return float("-inf")

        return _argmax(legal, value)

    # --- effect choices ----------------------------------------------------------------

    def _best(self, table: Table, legal: list[referee_pb2.Command]) -> referee_pb2.Command:
        """Swap, exchange or trump: the choice with the best score."""

        def value(command: referee_pb2.Command) -> float:
            c = command.dracula_vs_van_helsing
            kind = c.WhichOneof("kind")
            if kind == "swap_slots":
                return table.swapped(c.swap_slots.first - 1, c.swap_slots.second - 1).score()
            if kind == "exchange_district":
                return table.exchanged(c.exchange_district.district - 1).score()
            if kind == "choose_trump" and c.choose_trump.colour in table.track:
                return table.with_trump(c.choose_trump.colour).score()
            return float("-inf")

        return _argmax(legal, value)

    def _reveal_own(
        self, view: referee_pb2.View, table: Table, legal: list[referee_pb2.Command]
    ) -> referee_pb2.Command:
        known = _known_slots(view, view.seat)

        def value(command: referee_pb2.Command) -> float:
            district = command.dracula_vs_van_helsing.reveal_own.district
            if district in known:
                return 2.0  # the opponent knows it already: nothing is given away
            return 1.0 - table.p_win(district - 1)  # else the weakest card

        return _argmax(legal, value)

    def _reveal_opponent(
        self, view: referee_pb2.View, table: Table, legal: list[referee_pb2.Command]
    ) -> referee_pb2.Command:
        def value(command: referee_pb2.Command) -> float:
            district = command.dracula_vs_van_helsing.reveal_opponent.district - 1
            if table.theirs[district] is not None:
                return -1.0  # known to us already
            p = table.p_win(district)
            return table.weights[district] * p * (1 - p)

        return _argmax(legal, value)


def _known_slots(view: referee_pb2.View, seat: int) -> set[int]:
    """Districts of ``seat``'s cards that its opponent knows."""
    game = view.dracula_vs_van_helsing
    rack = next((r for r in game.racks if r.seat == seat), None)
    return set() if rack is None else {s.district for s in rack.slots if s.known_to_opponent}


def _argmax(
    commands: list[referee_pb2.Command], value: Callable[[referee_pb2.Command], float]
) -> referee_pb2.Command:
    """The first command of the highest value (ties: the canonical order)."""
    best, best_value = commands[0], float("-inf")
    for command in commands:
        v = value(command)
        if v > best_value + 1e-9:
            best, best_value = command, v
    return best
