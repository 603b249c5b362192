"""Dracula vs Van Helsing (2 players) for learning agents: actions, observation and reward.

**Actions** (37, the same for both roles): ``0`` Draw, ``1`` CallEnd, ``2`` DiscardDrawn,
``3-7`` PlaceDrawn(district 1-5), ``8-12`` RevealOwn(1-5), ``13-17`` RevealOpponent(1-5),
``18-27`` SwapSlots(first < second, in order (1,2), (1,3), ... (4,5)), ``28-32``
ExchangeDistrict(1-5), ``33-36`` ChooseTrump(yellow, blue, red, purple).

**Observation**: only the seat's view (DV-24 ... DV-26). A card is described by *what the
seat knows of it*: known or not, its value (one-hot 1-8) and its colour as a place on the
track (one-hot: trump, then the ladder from strongest to weakest), so the vector says how
strong a card is now, after trump changes too. The seat's own rack comes first, then the
opponent's (hidden cards are "not known"); then for every district whether both cards are
known and whether ours wins the DV-20 comparison; the discard pile as a 32-card multi-hot (card
counting), the deck size and a known deck top, the drawn card, and the turn: step, turn kind,
pending effect, who called the end. ``layout().describe()`` lists every block.

**Reward: win/loss**, ``+1`` for the winner and ``-1`` for the loser at the end (0 on every
other step). DV-22/DV-23 name one winner and nothing else (the results score 1 or 0), so
there is no margin to reward.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from referee.engine import View
from referee.games.dracula_vs_van_helsing.model import (
    DISCARDS_TO_CALL,
    DISTRICTS,
    HUMANS,
    ROUNDS,
    START_HP,
    CallEnd,
    Card,
    ChooseTrump,
    DiscardDrawn,
    DraculaVsVanHelsingView,
    Draw,
    ExchangeDistrict,
    PlaceDrawn,
    RevealOpponent,
    RevealOwn,
    Role,
    Step,
    SwapSlots,
    TurnKind,
)
from referee.rl.core import ActionTable, Layout, Observation, scaled, win_reward

GAME = "dracula-vs-van-helsing"
REWARD = "win"
#: Entries of one card: known, value one-hot (8), colour's place on the track (4).
CARD_SIZE = 13
SLOT_SIZE = CARD_SIZE + 2


def actions(players: int, options: Mapping[str, str]) -> ActionTable:
    districts = range(1, DISTRICTS + 1)
    commands: list[object] = [Draw(), CallEnd(), DiscardDrawn()]
    commands += [PlaceDrawn(d) for d in districts]
    commands += [RevealOwn(d) for d in districts]
    commands += [RevealOpponent(d) for d in districts]
    commands += [SwapSlots(a, b) for a in districts for b in districts if a < b]
    commands += [ExchangeDistrict(d) for d in districts]
    commands += [ChooseTrump(c) for c in range(1, 5)]
    return ActionTable("dracula_vs_van_helsing", commands)


def reward(rank: int, players: int) -> float:
    return win_reward(rank, players)


def _beats(mine: Card, theirs: Card, place: dict[int, int]) -> bool:
    """DV-20: exactly one trump wins, else the higher value, else the colour higher on the
    ladder (``place`` 0 is trump, smaller is stronger)."""
    a, b = place[mine.colour], place[theirs.colour]
    if (a == 0) != (b == 0):
        return a == 0
    if mine.value != theirs.value:
        return mine.value > theirs.value
    return a < b


class Encoder:
    def __init__(self, players: int, options: Mapping[str, str]) -> None:
        layout = self.layout = Layout()
        self.o_role = layout.add("role", 1, "1 if this seat is Dracula")
        self.o_round = layout.add("round", ROUNDS + 1, "round one-hot (1-5), then round/5")
        self.o_hp = layout.add("hp", 1, "Dracula's HP / 12")
        self.o_districts = layout.add(
            "districts", 3 * DISTRICTS, "per district: humans/4, vampires/4, 3 vampires"
        )
        self.o_track = layout.add(
            "track", 16, "per colour (Y, B, R, P): its place on the track, one-hot (0 = trump)"
        )
        self.o_order = layout.add("resolution_order", 1, "1 if districts resolve 5 to 1")
        self.o_mine = layout.add(
            "my_rack", DISTRICTS * SLOT_SIZE, "per district: card, revealed, known to opponent"
        )
        self.o_theirs = layout.add(
            "their_rack", DISTRICTS * SLOT_SIZE, "per district: card (if known), revealed, -"
        )
        self.o_compare = layout.add(
            "compare", 2 * DISTRICTS, "per district: both cards known, ours wins (DV-20)"
        )
        self.o_deck = layout.add("deck", 1 + CARD_SIZE, "deck size / 32, the deck top if known")
        self.o_drawn = layout.add("drawn", CARD_SIZE + 1, "the drawn card if known, revealed")
        self.o_discards = layout.add(
            "discard_pile", 33, "multi-hot of the 32 cards (Y1..P8), then count / 6 (DV-7)"
        )
        self.o_turn = layout.add("my_turn", 1, "1 if this seat is to decide")
        self.o_kind = layout.add("turn_kind", 4, "turn kind one-hot")
        self.o_step = layout.add("step", 9, "step one-hot")
        self.o_effect = layout.add("effect", 9, "effect being resolved, one-hot 0-8")
        self.o_called = layout.add("called_by", 3, "nobody / this seat / the opponent called")
        self.o_winner = layout.add("winner", 3, "no winner yet / this seat won / lost")
        self.size = layout.size

    def _card(self, x: Observation, at: int, card: Card, place: dict[int, int]) -> None:
        if card.value:
            x[at] = 1.0
            x[at + card.value] = 1.0
            x[at + 9 + place.get(card.colour, 0)] = 1.0

    def encode(self, view: View) -> Observation:
        game: DraculaVsVanHelsingView = view.game
        me = view.viewer
        x = np.zeros(self.size, dtype=np.float32)
        x[self.o_role] = float(game.role is Role.DRACULA)
        if 1 <= game.round <= ROUNDS:
            x[self.o_round + game.round - 1] = 1.0
        x[self.o_round + ROUNDS] = scaled(game.round, ROUNDS)
        x[self.o_hp] = scaled(game.hp, START_HP)
        for i, district in enumerate(game.districts[:DISTRICTS]):
            at = self.o_districts + 3 * i
            x[at] = scaled(district.humans, HUMANS)
            x[at + 1] = scaled(district.vampires, HUMANS)
            x[at + 2] = float(district.vampires == HUMANS - 1)
        place = {int(colour): i for i, colour in enumerate(game.track)}
        for colour, i in place.items():
            if 1 <= colour <= 4 and i < 4:
                x[self.o_track + 4 * (colour - 1) + i] = 1.0
        x[self.o_order] = float(tuple(game.resolution_order[:1]) == (DISTRICTS,))
        racks = {rack.seat: rack for rack in game.racks}
        mine = racks.get(me) if me is not None else None
        theirs = racks.get(1 - me) if me is not None else None
        for rack, offset in ((mine, self.o_mine), (theirs, self.o_theirs)):
            if rack is None:
                continue
            for i, slot in enumerate(rack.slots[:DISTRICTS]):
                at = offset + SLOT_SIZE * i
                self._card(x, at, slot.card, place)
                x[at + CARD_SIZE] = float(slot.revealed)
                if rack is mine:
                    x[at + CARD_SIZE + 1] = float(slot.known_to_opponent)
        if mine is not None and theirs is not None:
            for i, (a, b) in enumerate(zip(mine.slots, theirs.slots, strict=False)):
                if a.card.value and b.card.value and i < DISTRICTS:
                    x[self.o_compare + 2 * i] = 1.0
                    x[self.o_compare + 2 * i + 1] = float(_beats(a.card, b.card, place))
        x[self.o_deck] = scaled(game.deck_size, 32)
        self._card(x, self.o_deck + 1, game.deck_top, place)
        self._card(x, self.o_drawn, game.drawn, place)
        x[self.o_drawn + CARD_SIZE] = float(game.drawn_revealed)
        for card in game.discard_pile:
            if card.value and 1 <= card.colour <= 4:
                x[self.o_discards + 8 * (card.colour - 1) + card.value - 1] = 1.0
        x[self.o_discards + 32] = scaled(len(game.discard_pile), DISCARDS_TO_CALL)
        x[self.o_turn] = float(me is not None and me in view.pending)
        x[self.o_kind + min(int(game.turn_kind), TurnKind.LAST)] = 1.0
        x[self.o_step + min(int(game.step), Step.OVER)] = 1.0
        x[self.o_effect + min(max(game.effect, 0), 8)] = 1.0
        called = 0 if game.called_by is None else 1 if game.called_by == me else 2
        x[self.o_called + called] = 1.0
        winner = 0 if game.winner is Role.UNSPECIFIED else 1 if game.winner is game.role else 2
        x[self.o_winner + winner] = 1.0
        return x
