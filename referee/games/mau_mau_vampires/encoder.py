"""Mau Mau Vampires (2-6 players) for learning agents: actions, observation and reward.

**Actions** for ``n`` players, in this order (``actions(n, {}).commands`` lists them): DrawCard,
EndTurn, NoWish, UseAbility, DeclineAbility; Wish and CallColour of red, blue, green, purple;
PlayCard of each card code 0-44 (the 44 Mau Mau cards, then the Clock) with each announcement
(none, Mau, Mau Mau; MM-16); PlayCard of the Werewolf for each target seat 0..n-1 and
announcement (MM-11); GiveCard to each seat of each card code 0-45 with each announcement
(MM-19, MM-22 a); ShowCard of each Mau Mau card (MM-22 b); SwapCharacters with each seat
(MM-22 d); ShareDrawn for every assignment of 0-2 drawn cards to seats, with each announcement
(MM-22 g); SetAside of each card code with each announcement (MM-22 h). Card codes are the
rules' (``(colour - 1) * 11 + symbol - 1``, 44 Clock, 45 Werewolf).

**Observation**: only the seat's view (MM-26 ... MM-28). Seats are relative to the viewer.
The hand as counts per card code (Clocks /6, Werewolves /5); hand sizes; deck and pile sizes;
the top card (its code, colour and symbol), the wish, day or night and the clocks; where the
Werewolf is; every seat's character (ability, day symbols, vampire symbol and colour); the pot
(its size, this seat's own cards in it); the phase and who is on turn, wishing or answering;
the cards shown to this seat, drawn by it or waiting to be shared; the seats playing this hand,
the dealer, totals and tie-break points (squashed ``x / (x + 20)``), the hand number and the
options.

**Reward: rank**, ``+1`` for rank 1 down to ``-1`` for the last, linear between (tied seats
share). MM-24: the highest total after the agreed hands wins (tie-break hands decide ties);
totals grow with the number of hands and players, the rank means the same at every table.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from itertools import product
from typing import Any

from referee.engine import View
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CLOCK,
    CLOCKS_IN_DECK,
    CODES,
    COLOUR_OF,
    COLOURS,
    DECK_SIZE,
    MAU_MAU_CARDS,
    SYMBOL_OF,
    SYMBOLS,
    WEREWOLF,
    WEREWOLVES_IN_DECK,
    Announcement,
    CallColour,
    Card,
    DeclineAbility,
    DrawCard,
    EndTurn,
    GiveCard,
    MauMauVampiresView,
    NoWish,
    PlayCard,
    SetAside,
    ShareDrawn,
    ShowCard,
    SwapCharacters,
    UseAbility,
    Wish,
    code_of,
)
from referee.rl.core import (
    ActionTable,
    Entries,
    Layout,
    Observation,
    finish,
    put_seat,
    rank_reward,
    scaled,
    squashed,
    zeros,
)

REWARD = "rank"
ANNOUNCEMENTS = tuple(Announcement)
ABILITIES = 11
PHASES = 8
#: MM-22 g: the cards drawn to share.
SHARED = 2
CHARACTER = ABILITIES + SYMBOLS + (SYMBOLS + 1) + 5 + 1


def actions(players: int, options: Mapping[str, str]) -> ActionTable:
    seats = range(players)
    commands: list[object] = [DrawCard(), EndTurn(), NoWish(), UseAbility(), DeclineAbility()]
    commands += [Wish(c) for c in COLOURS]
    commands += [CallColour(c) for c in COLOURS]
    commands += [PlayCard(CARDS[c], a) for c in range(WEREWOLF) for a in ANNOUNCEMENTS]
    commands += [PlayCard(CARDS[WEREWOLF], a, s) for s in seats for a in ANNOUNCEMENTS]
    commands += [
        GiveCard(s, CARDS[c], a) for s in seats for c in range(CODES) for a in ANNOUNCEMENTS
    ]
    commands += [ShowCard(CARDS[c]) for c in range(MAU_MAU_CARDS)]
    commands += [SwapCharacters(s) for s in seats]
    for size in range(SHARED + 1):
        commands += [ShareDrawn(to, a) for to in product(seats, repeat=size) for a in ANNOUNCEMENTS]
    commands += [SetAside(CARDS[c], a) for c in range(CODES) for a in ANNOUNCEMENTS]
    return ActionTable(__name__, commands)


def reward(rank: int, players: int) -> float:
    return rank_reward(rank, players)


def _code(card: Card) -> int | None:
    try:
        return code_of(card)
    except KeyError:  # a card this seat may not see
        return None


class Encoder:
    def __init__(self, players: int, options: Mapping[str, str]) -> None:
        n = self.players = players
        layout = self.layout = Layout()
        self.o_hand = layout.add("hand", CODES, "counts per card code (Clocks /6, Werewolves /5)")
        self.o_sizes = layout.add("hand_sizes", n, "x / (x + 8), by relative seat")
        self.o_piles = layout.add("piles", 2, "deck size / 55, discard pile size / 55")
        self.o_top = layout.add(
            "top",
            CODES + 1 + 5 + SYMBOLS + 1,
            "top card: code (last: none), colour one-hot (5), symbol one-hot (12)",
        )
        self.o_wish = layout.add("wish", 5, "wished colour, one-hot (0: none)")
        self.o_night = layout.add("night", 2, "night side up, clocks / 6")
        self.o_werewolf = layout.add("werewolf_seat", n + 1, "relative seat (last: none)")
        self.o_characters = layout.add(
            "characters",
            n * CHARACTER,
            "per relative seat: ability (11), day symbols (11), "
            "vampire symbol (12), vampire colour (5), werewolf",
        )
        self.o_pot = layout.add("pot", 1 + CODES, "pot size x / (x + 4), this seat's cards in it")
        self.o_phase = layout.add("phase", PHASES, "phase one-hot")
        self.o_turn = layout.add("turn", n + 1, "relative seat on turn (last: none)")
        self.o_extra = layout.add("extra_turn", 1, "an extra turn")
        self.o_ability = layout.add("ability", ABILITIES, "ability being decided, one-hot")
        self.o_wisher = layout.add("wisher", n + 1, "relative seat wishing (last: none)")
        self.o_called = layout.add("called_colour", 5, "colour called, one-hot (0: none)")
        self.o_answering = layout.add("answering", n, "relative seats that must answer a call")
        self.o_shown = layout.add("shown_to_you", CODES, "cards shown to this seat")
        self.o_drawn = layout.add("drawn", CODES, "cards this seat just drew")
        self.o_share = layout.add("to_share", CODES + 1, "cards to share, then their count / 2")
        self.o_playing = layout.add("playing", n, "relative seats playing this hand")
        self.o_dealer = layout.add("dealer", n, "relative seat of the dealer")
        self.o_totals = layout.add("totals", 2 * n, "per relative seat: total, tie-break points")
        self.o_hands = layout.add("hands", 2, "hand number / hands, a tie-break hand")
        self.o_options = layout.add(
            "options", 3, "characters pass_left, announcements auto, first_game"
        )
        self.size = layout.size
        self._slow: dict[tuple[Any, ...], array[float]] = {}

    def _slow_entries(self, game: MauMauVampiresView, me: int) -> dict[int, float]:
        """The characters (their ids give the data file's abilities and symbols), the
        Werewolf, the seats playing, the dealer, totals, the hand number and the options."""
        n = self.players
        x: dict[int, float] = dict.fromkeys(self._character_entries(game, me), 1.0)
        for seat in game.playing:
            x[self.o_playing + (seat - me) % n] = 1.0
        x[self.o_dealer + (game.dealer - me) % n] = 1.0
        for seat, total in enumerate(game.totals[:n]):
            x[self.o_totals + 2 * ((seat - me) % n)] = squashed(total, 20)
        for seat, points in enumerate(game.tiebreak_points[:n]):
            x[self.o_totals + 2 * ((seat - me) % n) + 1] = squashed(points, 20)
        x[self.o_hands] = scaled(game.hand_number, max(game.hands, 1))
        x[self.o_hands + 1] = float(game.tiebreak > 0)
        x[self.o_options] = float(game.characters_option == "pass_left")
        x[self.o_options + 1] = float(game.announcements == "auto")
        x[self.o_options + 2] = float(game.first_game)
        return x

    def _character_entries(self, game: MauMauVampiresView, me: int) -> list[int]:
        n = self.players
        ones = []
        for character in game.characters:
            at = self.o_characters + CHARACTER * ((character.seat - me) % n)
            ones.append(at + min(int(character.ability), ABILITIES - 1))
            ones += [at + ABILITIES + s - 1 for s in character.day_symbols if 1 <= s <= SYMBOLS]
            at += ABILITIES + SYMBOLS
            ones.append(at + min(max(character.vampire_symbol, 0), SYMBOLS))
            ones.append(at + SYMBOLS + 1 + min(int(character.vampire_colour), 4))
            if character.werewolf:
                ones.append(at + SYMBOLS + 6)
        return ones

    def _slow_template(self, game: MauMauVampiresView, me: int) -> array[float]:
        """An observation holding only the slow entries (copied by every encoding)."""
        x = zeros(self.size)
        for index, value in self._slow_entries(game, me).items():
            x[index] = value
        return x

    def _cards(self, x: Entries, offset: int, cards: tuple[Card, ...]) -> None:
        for card in cards:
            code = _code(card)
            if code is not None:
                x[offset + code] = 1.0

    def encode(self, view: View) -> Observation:
        # Runs on every step (P8): the blocks that change once a hand at most (characters,
        # totals, options) come from a cache, by the values they are built from, as a ready C
        # float array, which is copied and then written into.
        game: MauMauVampiresView = view.game
        n = self.players
        me = view.viewer or 0
        key = (
            me,
            game.werewolf_seat,
            tuple(c.id for c in game.characters),
            game.totals,
            game.tiebreak_points,
            game.hand_number,
            game.tiebreak,
            game.dealer,
            game.playing,
        )
        slow = self._slow.get(key)
        if slow is None:
            slow = self._slow_template(game, me)
            if len(self._slow) > 4096:
                self._slow.clear()
            self._slow[key] = slow
        x = array("f", slow)
        hand = self.o_hand
        for card in game.hand:
            code = _code(card)
            if code is not None:
                x[hand + code] += 1.0  # small counts: exact in float32
        x[hand + CLOCK] /= CLOCKS_IN_DECK  # the deck's counts (MM-2): at most 1 each
        x[hand + WEREWOLF] /= WEREWOLVES_IN_DECK
        at = self.o_sizes
        for seat, size in enumerate(game.hand_sizes[:n]):
            x[at + (seat - me) % n] = size / (size + 8)
        x[self.o_piles] = min(game.deck_size / DECK_SIZE, 1.0)
        x[self.o_piles + 1] = min(game.pile_size / DECK_SIZE, 1.0)
        top = _code(game.top)
        if top is None:
            x[self.o_top + CODES] = 1.0
        else:
            x[self.o_top + top] = 1.0
            x[self.o_top + CODES + 1 + COLOUR_OF[top]] = 1.0
            x[self.o_top + CODES + 6 + SYMBOL_OF[top]] = 1.0
        x[self.o_wish + min(game.wish, 4)] = 1.0
        if game.night:
            x[self.o_night] = 1.0
        x[self.o_night + 1] = min(game.clocks / CLOCKS_IN_DECK, 1.0)
        put_seat(x, self.o_werewolf, game.werewolf_seat, me, n)
        if game.pot_size:
            x[self.o_pot] = game.pot_size / (game.pot_size + 4)
            self._cards(x, self.o_pot + 1, game.pot_yours)
        x[self.o_phase + min(game.phase, PHASES - 1)] = 1.0
        put_seat(x, self.o_turn, game.turn, me, n)
        if game.extra_turn:
            x[self.o_extra] = 1.0
        x[self.o_ability + min(game.ability, ABILITIES - 1)] = 1.0
        put_seat(x, self.o_wisher, game.wisher, me, n)
        x[self.o_called + min(game.called_colour, 4)] = 1.0
        for seat in game.answering:
            x[self.o_answering + (seat - me) % n] = 1.0
        if game.shown_to_you:
            self._cards(x, self.o_shown, tuple(shown.card for shown in game.shown_to_you))
        if game.drawn:
            self._cards(x, self.o_drawn, game.drawn)
        if game.to_share:
            self._cards(x, self.o_share, game.to_share)
        x[self.o_share + CODES] = min(game.to_share_count / SHARED, 1.0)
        return finish(x)
