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

from array import array
from collections.abc import Mapping
from typing import Any

from referee.engine import View
from referee.games.dracula_vs_van_helsing.model import (
    DISCARDS_TO_CALL,
    DISTRICTS,
    HUMANS,
    ROUNDS,
    START_HP,
    CallEnd,
    ChooseTrump,
    DiscardDrawn,
    DraculaVsVanHelsingView,
    Draw,
    ExchangeDistrict,
    PlaceDrawn,
    Rack,
    RevealOpponent,
    RevealOwn,
    Role,
    SwapSlots,
)
from referee.rl.core import ActionTable, Layout, Observation, finish, win_reward, zeros

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
    return ActionTable(__name__, commands)


def reward(rank: int, players: int) -> float:
    return win_reward(rank, players)


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
        # The entries that change once a round at most (round, HP, districts, track,
        # resolution order: the same for both seats), built for the last such values met and
        # reused while they stay equal: the encoder owns this one buffer. Comparing is cheap
        # when the rules hand out the same tuples step after step (tuple equality checks each
        # item's identity first) and right when they do not. (Racks are not kept: their
        # contents change too often.)
        self._static_key: tuple[Any, ...] | None = None
        self._static: tuple[array[float], list[int]] = (zeros(self.size), [])

    def _static_entries(self, game: DraculaVsVanHelsingView) -> tuple[array[float], list[int]]:
        """An observation holding only the entries that change once a round at most (round,
        HP, districts, track, resolution order; the same for both seats), and ``place``: for
        each colour 1-4 its place on the track (0 trump, 1-3 the ladder from strongest; 0 for
        colour 0, hidden)."""
        x = zeros(self.size)
        round_ = game.round
        if 1 <= round_ <= ROUNDS:
            x[self.o_round + round_ - 1] = 1.0
        x[self.o_round + ROUNDS] = min(round_ / ROUNDS, 1.0)
        x[self.o_hp] = min(game.hp / START_HP, 1.0)
        at = self.o_districts
        for district in game.districts[:DISTRICTS]:
            x[at] = min(district.humans / HUMANS, 1.0)
            x[at + 1] = min(district.vampires / HUMANS, 1.0)
            x[at + 2] = 1.0 if district.vampires == HUMANS - 1 else 0.0
            at += 3
        place = [0, 0, 0, 0, 0]
        for i, colour in enumerate(game.track[:4]):
            place[colour] = i
            x[self.o_track + 4 * (colour - 1) + i] = 1.0
        x[self.o_order] = 1.0 if game.resolution_order[:1] == (DISTRICTS,) else 0.0
        return x, place

    def encode(self, view: View) -> Observation:
        # Runs on every step (P8): the entries that change once a round at most come from the
        # cache above as a C float array (core.zeros); the rest is written into its copy.
        game: DraculaVsVanHelsingView = view.game
        me = view.viewer
        key = (game.districts, game.track, game.round, game.hp, game.resolution_order)
        if key != self._static_key:
            self._static = self._static_entries(game)
            self._static_key = key
        template, place = self._static
        x = array("f", template)
        if game.role == Role.DRACULA:
            x[self.o_role] = 1.0
        self._racks(x, game, me, place)
        self._piles(x, game, place)
        if me is not None and me in view.pending:
            x[self.o_turn] = 1.0
        x[self.o_kind + min(game.turn_kind, 3)] = 1.0
        x[self.o_step + min(game.step, 8)] = 1.0
        x[self.o_effect + min(max(game.effect, 0), 8)] = 1.0
        called = game.called_by
        x[self.o_called + (0 if called is None else 1 if called == me else 2)] = 1.0
        winner = game.winner
        x[
            self.o_winner + (0 if winner == Role.UNSPECIFIED else 1 if winner == game.role else 2)
        ] = 1.0
        return finish(x)

    def _racks(
        self, x: array[float], game: DraculaVsVanHelsingView, me: int | None, place: list[int]
    ) -> None:
        """Both racks as the viewer sees them, and which of its districts it would win."""
        mine: Rack | None = None
        theirs: Rack | None = None
        for rack in game.racks:
            if rack.seat == me:
                mine = rack
            elif me is not None:
                theirs = rack
        for seen, offset, own in ((mine, self.o_mine, True), (theirs, self.o_theirs, False)):
            if seen is None:
                continue
            for slot in seen.slots[:DISTRICTS]:
                card = slot.card
                value = card.value
                if value:
                    x[offset] = x[offset + value] = x[offset + 9 + place[card.colour]] = 1.0
                if slot.revealed:
                    x[offset + CARD_SIZE] = 1.0
                if own and slot.known_to_opponent:
                    x[offset + CARD_SIZE + 1] = 1.0
                offset += SLOT_SIZE
        if mine is not None and theirs is not None:
            self._compare(x, mine, theirs, place)

    def _compare(self, x: array[float], mine: Rack, theirs: Rack, place: list[int]) -> None:
        """DV-20: for each district whose two cards the viewer knows, whether it wins it."""
        offset = self.o_compare
        for a, b in zip(mine.slots[:DISTRICTS], theirs.slots[:DISTRICTS], strict=False):
            ours, other = a.card, b.card
            if ours.value and other.value:
                x[offset] = 1.0
                # DV-20: exactly one trump wins, else the higher value, else the colour
                # higher on the ladder (a smaller place).
                p, q = place[ours.colour], place[other.colour]
                if (p == 0) != (q == 0):
                    wins = p == 0
                elif ours.value != other.value:
                    wins = ours.value > other.value
                else:
                    wins = p < q
                if wins:
                    x[offset + 1] = 1.0
            offset += 2

    def _piles(self, x: array[float], game: DraculaVsVanHelsingView, place: list[int]) -> None:
        """The deck's top card and the card drawn, where seen, and the discard pile."""
        for card, offset in ((game.deck_top, self.o_deck + 1), (game.drawn, self.o_drawn)):
            value = card.value
            if value:
                x[offset] = x[offset + value] = x[offset + 9 + place[card.colour]] = 1.0
        if game.drawn_revealed:
            x[self.o_drawn + CARD_SIZE] = 1.0
        pile = game.discard_pile
        discards = self.o_discards - 9  # card (colour, value) at 8 * colour + value - 9
        for card in pile:
            if card.value:
                x[discards + 8 * card.colour + card.value] = 1.0
        x[self.o_deck] = min(game.deck_size / 32, 1.0)
        x[self.o_discards + 32] = min(len(pile) / DISCARDS_TO_CALL, 1.0)
