"""Sleeping Queens rules (``docs/rules/sleeping-queens.md``); each rule id appears where enforced.

Hands are count lists by card code, the draw and discard piles are lists with the top card
last, and queens are small integers, so a step costs a few list operations. ``decide`` never
copies or changes the state: it walks the consequences of a command (refills, reshuffles, win
checks) with a small :class:`_Flow` that records only what the command changes.

Decisions (the common layer of :meth:`Game.decisions`):

=================  ==================================  ========  ===============================
kind               who                                 rule      commands
=================  ==================================  ========  ===============================
``turn``           the player whose turn it is         SQ-4      Discard, PlayKing, PlayKnight,
                                                                 PlayPotion, PlayJester
``block_knight``   the owner of the targeted queen     SQ-6      DeclineBlock, Block (Dragon)
``block_potion``   the owner of the targeted queen     SQ-7      DeclineBlock, Block (Wand)
``jester_wake``    the player counted by a Jester      SQ-8      WakeQueen
``rose_wake``      the player who woke the Rose Queen  SQ-11     WakeQueen
``place_queen``    the Potion's (or bouncing           SQ-7      PlaceQueen
                   Knight's) player                    (SQ-12)
=================  ==================================  ========  ===============================

The targeted player is always asked, also when holding no Dragon or Wand (then only
DeclineBlock is legal): skipping them would tell everyone that they hold none. The default
(first) command of a block is DeclineBlock, as at the table a player who says nothing has let the
chance pass (seed FAQ); of a turn the single discard of the lowest card.

>>> from referee.engine import Table
>>> table = Table.create("sleeping-queens", players=3, seed=b"doc")
>>> [len(h) for h in (table.view(s).game.hand for s in range(3))]  # SQ-3: 5 cards each
[5, 5, 5]
>>> table.decisions()[0].kind
'turn'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import combinations, compress
from typing import Any

from referee.engine.chance import (
    check_fixed_deck,
    check_fixed_pick,
    deck_for,
    hidden_permutation,
    pick_for,
    shuffled,
)
from referee.engine.game import (
    CardShown,
    CardsTaken,
    ChanceStep,
    Decision,
    DeckOrder,
    Game,
    GameConfig,
    GameInfo,
    OptionSpec,
    Rejection,
    Seat,
    SeatResult,
    Viewer,
    rank_by_score,
    union_members,
)
from referee.games.sleeping_queens import labels
from referee.games.sleeping_queens.model import (
    CARD_COUNTS,
    CARD_NOTATION,
    CARDS,
    DRAGON,
    HAND_SIZE,
    JESTER,
    KING,
    KNIGHT,
    NAME_QUEEN,
    NOTATION_CARD,
    POSITIONS,
    POTION,
    QUEEN_NAMES,
    QUEEN_POINTS,
    RIVAL,
    ROSE,
    WAND,
    AwakeQueens,
    Block,
    BlockDeclined,
    Blocked,
    CardsDrawn,
    Command,
    DeckShuffled,
    DeclineBlock,
    Discard,
    Discarded,
    Event,
    GameEnded,
    JesterPlayed,
    JesterTurned,
    KingPlayed,
    KnightBounced,
    KnightPlayed,
    KnightWasted,
    Phase,
    PlaceQueen,
    PlayJester,
    PlayKing,
    PlayKnight,
    PlayPotion,
    Position,
    PotionPlayed,
    QueenBounced,
    QueenPutToSleep,
    QueensLaid,
    QueenStolen,
    QueenWoken,
    RoseBonus,
    SleepingQueensView,
    TurnStarted,
    WakeQueen,
    card_name,
    queen_name,
)

#: SQ-2: the 67 cards in canonical order (fixed-deal notation).
DECK: tuple[str, ...] = tuple(
    CARD_NOTATION[card]
    for card in (KING, JESTER, KNIGHT, POTION, WAND, DRAGON, *range(1, 11))
    for _ in range(CARD_COUNTS[card])
)
#: SQ-1: the 12 queens in canonical order (fixed-deal notation).
QUEEN_DECK: tuple[str, ...] = QUEEN_NAMES[1:]

# Events are immutable values, and the frequent ones have few distinct values: build each once
# (a frozen dataclass costs a Python-level __init__; a cache hit does not).
_turn_started = cache(TurnStarted)
_discarded = cache(Discarded)
_cards_drawn = lru_cache(maxsize=1 << 15)(CardsDrawn)
_king_played = cache(KingPlayed)
_queen_woken = cache(QueenWoken)
# Redactions are values too: every viewer an event hides the same part from gets the same
# object, so the server encodes it once for all of them (the codec keeps it by identity).
_deck_hidden = cache(DeckShuffled)
_QUEENS_HIDDEN = QueensLaid(())

# Enum members read once: ``Phase.TURN`` is a lookup through the enum class on every use.
_TURN_PHASE, _OVER_PHASE = Phase.TURN, Phase.OVER

#: Option ``knight_cat_dog`` (SQ-12 ruling) values.
CAT_DOG_OPTIONS = ("illegal", "wasted", "bounce")
_ILLEGAL, _WASTED, _BOUNCE = range(3)

#: Shuffle indexes: 0 the cards, 1 the queens, 2 and on the reshuffles (SQ-14).
_CARDS_SHUFFLE, _QUEENS_SHUFFLE = 0, 1


def thresholds(players: int) -> tuple[int, int]:
    """SQ-15: (queens, points) that win at once with this many players.

    >>> thresholds(3), thresholds(4)
    ((5, 50), (4, 40))
    """
    return (5, 50) if players <= 3 else (4, 40)


def is_valid_discard(cards: tuple[int, ...]) -> bool:
    """SQ-9: one card, a pair of equal numbers, or 3+ numbers whose largest is the sum of the
    rest (cards ascending).

    >>> [is_valid_discard(c) for c in [(KING,), (4, 4), (2, 2, 4), (1, 2, 3, 4, 10), (2, 3, 6)]]
    [True, True, True, True, False]
    >>> is_valid_discard((KING, KING))  # two identical power cards are not a pair
    False
    """
    if len(cards) == 1:
        return 1 <= cards[0] <= CARDS
    if any(not 1 <= c <= 10 for c in cards):
        return False
    if len(cards) == 2:
        return cards[0] == cards[1]
    return len(cards) >= 3 and cards[-1] == sum(cards[:-1])


# Discard commands are immutable values: singles and pairs are built once.
_SINGLES = tuple(Discard((card,)) for card in range(1, CARDS + 1))
_PAIRS = tuple(Discard((n, n)) for n in range(1, 11))
_AT_LEAST_TWO = (1).__lt__


@cache
def _discards(hand: tuple[int, ...]) -> tuple[Discard, ...]:
    """SQ-9: every distinct discard ``hand`` (counts by card code) allows, in canonical order:
    single cards, pairs, then equations (shortest first). Cached by hand (at most 15,504 of
    them); a miss costs little, as the equations are cached by the number cards alone.

    >>> [d.cards for d in _discards((0, 0, 2, 1, 0, 1) + (0,) * 11)]  # 2, 2, 3, 5
    [(2,), (3,), (5,), (2, 2), (2, 3, 5)]
    """
    return (
        *compress(_SINGLES, hand[1:]),
        *compress(_PAIRS, map(_AT_LEAST_TWO, hand[1:11])),
        *_equations(hand[1:11]),
    )


@cache
def _equations(counts: tuple[int, ...]) -> tuple[Discard, ...]:
    """SQ-9: the distinct equations among number cards held ``counts[n - 1]`` times each:
    3 or more cards, the largest the sum of the others. Cached by the number cards alone."""
    numbers = [n for n in range(1, 11) for _ in range(counts[n - 1])]
    found: set[tuple[int, ...]] = set()
    for size in range(3, len(numbers) + 1):
        for chosen in combinations(numbers, size):  # numbers ascending: chosen is sorted
            if chosen[-1] == sum(chosen[:-1]):
                found.add(chosen)
    return tuple(Discard(cards) for cards in sorted(found, key=lambda cards: (len(cards), cards)))


def _all_equations() -> list[tuple[int, ...]]:
    """Every equation of 3-5 number cards the deck allows (at most 4 of a number)."""
    found: list[tuple[int, ...]] = []

    def extend(prefix: tuple[int, ...]) -> None:
        if len(prefix) >= 3 and prefix[-1] == sum(prefix[:-1]):
            found.append(prefix)
        if len(prefix) == HAND_SIZE:
            return
        for n in range(prefix[-1] if prefix else 1, 11):
            if prefix.count(n) < 4:
                extend((*prefix, n))

    extend(())
    return found


# Command objects are immutable: share one per position, queen and kind.
_KING_AT = tuple(PlayKing(p) for p in range(POSITIONS))
_WAKE_AT = tuple(WakeQueen(p) for p in range(POSITIONS))
_PLACE_AT = tuple(PlaceQueen(p) for p in range(POSITIONS))
_KNIGHT_ON = tuple(PlayKnight(q) for q in range(13))
_POTION_ON = tuple(PlayPotion(q) for q in range(13))
_JESTER = PlayJester()
_BLOCK = Block()
_DECLINE = DeclineBlock()


@cache
def _command_space() -> tuple[Any, ...]:
    """A finite superset of every legal command (for the conformance suite), with near misses.
    Built on first use: it is not needed to play."""
    return (
        *(Discard((c,)) for c in range(0, CARDS + 2)),
        *(Discard((c, c)) for c in range(1, CARDS + 1)),
        *(Discard(cards) for cards in _all_equations()),
        Discard(()),
        Discard((1, 2)),
        Discard((2, 3, 6)),
        Discard((5, 3, 2)),
        Discard((KING, JESTER, 1)),
        *(PlayKing(p) for p in range(-1, POSITIONS + 1)),
        *(PlayKnight(q) for q in range(0, 14)),
        *(PlayPotion(q) for q in range(0, 14)),
        _JESTER,
        _BLOCK,
        _DECLINE,
        *(WakeQueen(p) for p in range(-1, POSITIONS + 1)),
        *(PlaceQueen(p) for p in range(-1, POSITIONS + 1)),
    )


@dataclass(slots=True)
class SleepingQueensState:
    """The whole table, hidden parts included. Only ``apply`` changes it."""

    config: GameConfig
    players: int
    cat_dog: int  # option knight_cat_dog: _ILLEGAL, _WASTED or _BOUNCE
    queens_to_win: int
    points_to_win: int
    #: hands[seat][card] = how many of that card the seat holds (index 0 unused).
    hands: list[list[int]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    draw: list[int] = field(default_factory=list)  # top card last
    discard: list[int] = field(default_factory=list)  # top card last
    #: positions[p] = the queen asleep at position p, 0 when empty.
    positions: list[int] = field(default_factory=lambda: [0] * POSITIONS)
    #: known[p]: the queen at p was put back to sleep there, in view of all (SQ-18).
    known: list[bool] = field(default_factory=lambda: [False] * POSITIONS)
    sleeping: int = 0
    #: owner[queen] = the seat she is awake in front of, -1 while asleep.
    owner: list[int] = field(default_factory=lambda: [-1] * 13)
    awake: list[list[int]] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    turn: int = -1
    phase: Phase = Phase.UNSPECIFIED
    decider: int = -1
    attacker: int = -1
    target_queen: int = 0
    attack: int = 0  # KNIGHT or POTION while a block or a placement is pending
    jester_card: int = 0
    shuffles: int = 0
    winners: tuple[int, ...] = ()
    end_rule: str = ""
    #: The view's fields every viewer shares, built by the first view of this state and
    #: dropped by ``apply``; a copy (``copy_state``, ``replace``) starts without.
    public: tuple[Any, ...] | None = field(default=None, init=False, repr=False, compare=False)


class _Flow:
    """The consequences of one command, walked without touching the state.

    Tracks the cards taken from the draw pile (and a reshuffled pile), the cards discarded and
    the queens that changed hands, and appends the events.
    """

    __slots__ = ("cleared", "events", "extra", "moves", "pile", "shuffles", "state", "top")

    def __init__(self, state: SleepingQueensState) -> None:
        self.state = state
        self.events: list[Any] = []
        self.pile = state.draw  # read only; a reshuffle replaces it by a new list
        self.top = len(state.draw)  # pile[:top] is still in the draw pile
        self.extra: list[int] = []  # cards discarded by this command
        self.cleared = False  # the discard pile became the draw pile (SQ-14)
        self.shuffles = state.shuffles
        #: (seat, queen, +1 won / -1 lost) by this command.
        self.moves: list[tuple[int, int, int]] = []

    def discard(self, card: int) -> None:
        self.extra.append(card)

    def _reshuffle(self) -> bool:
        """SQ-14: the whole discard pile, shuffled, becomes the draw pile."""
        state = self.state
        pile = self.extra if self.cleared else [*state.discard, *self.extra]
        if not pile:
            return False
        order = _shuffle(state.config, self.shuffles, pile)
        self.events.append(DeckShuffled(self.shuffles, len(order), tuple(order), True))
        self.shuffles += 1
        self.pile = order[::-1]
        self.top = len(order)
        self.extra = []
        self.cleared = True
        return True

    def turn_over(self) -> int:
        """SQ-8: the top card of the draw pile (reshuffling first if it is empty)."""
        if self.top == 0:
            self._reshuffle()
        self.top -= 1
        return self.pile[self.top]

    def draw(self, seat: int, count: int) -> None:
        """``seat`` draws ``count`` cards; a reshuffle in the middle splits the draw in two."""
        top = self.top
        if count <= top:  # the usual case: no reshuffle
            self.top = top - count
            drawn = sorted(self.pile[top - count : top])
            self.events.append(_cards_drawn(seat, count, tuple(drawn)))
            return
        cards: list[int] = []
        while count > 0:
            if self.top == 0:
                if cards:
                    self.events.append(CardsDrawn(seat, len(cards), tuple(sorted(cards))))
                    cards = []
                if not self._reshuffle():
                    break  # cannot happen with 67 cards and at most 25 in hands
            self.top -= 1
            cards.append(self.pile[self.top])
            count -= 1
        if cards:
            self.events.append(CardsDrawn(seat, len(cards), tuple(sorted(cards))))

    def holdings(self, seat: int) -> tuple[int, int]:
        """(queens, points) of ``seat`` once this command's moves are applied."""
        state = self.state
        queens, points = len(state.awake[seat]), state.points[seat]
        for mover, queen, sign in self.moves:
            if mover == seat:
                queens += sign
                points += sign * QUEEN_POINTS[queen]
        return queens, points

    def gain(self, seat: int, queen: int) -> bool:
        """``seat`` won ``queen``; SQ-15: True (and the game ends) if that wins at once."""
        self.moves.append((seat, queen, 1))
        state = self.state
        queens, points = self.holdings(seat)
        if queens >= state.queens_to_win or points >= state.points_to_win:
            self.events.append(self.ended("SQ-15", (seat,)))
            return True
        return False

    def stolen(self, seat: int, from_seat: int, queen: int) -> bool:
        """SQ-6: ``seat`` takes ``queen`` from ``from_seat``; SQ-15 is checked."""
        self.events.append(QueenStolen(seat, from_seat, queen))
        self.moves.append((from_seat, queen, -1))
        return self.gain(seat, queen)

    def ended(self, rule: str, winners: tuple[int, ...]) -> GameEnded:
        held = [self.holdings(seat) for seat in range(self.state.players)]
        return GameEnded(
            rule, winners, tuple(points for _, points in held), tuple(q for q, _ in held)
        )

    def finish(self, turn: int, hand: int, sleeping: int) -> None:
        """The action of ``turn`` has fully resolved (``hand`` cards left, ``sleeping`` queens
        asleep): SQ-16 end, else SQ-13 refill to 5 and the next player's turn."""
        state = self.state
        if sleeping == 0:  # SQ-16: most points, then most queens; still tied share the win
            keys = [(points, queens) for queens, points in map(self.holdings, range(state.players))]
            best = max(keys)
            winners = tuple(s for s, key in enumerate(keys) if key == best)
            self.events.append(self.ended("SQ-16", winners))
            return
        if hand < HAND_SIZE:
            self.draw(turn, HAND_SIZE - hand)
        self.events.append(_turn_started((turn + 1) % state.players))


@cache
def _decisions(phase: Phase, attack: int, seat: int) -> tuple[Decision, ...]:
    """The pending decision in ``phase`` (one seat decides at a time in Sleeping Queens)."""
    if phase is Phase.TURN:
        return (Decision(seat, "turn", "SQ-4"),)
    if phase is Phase.BLOCK:
        if attack == KNIGHT:
            return (Decision(seat, "block_knight", "SQ-6"),)
        return (Decision(seat, "block_potion", "SQ-7"),)
    if phase is Phase.JESTER_WAKE:
        return (Decision(seat, "jester_wake", "SQ-8"),)
    if phase is Phase.ROSE_WAKE:
        return (Decision(seat, "rose_wake", "SQ-11"),)
    if phase is Phase.PLACE_QUEEN:
        return (Decision(seat, "place_queen", "SQ-7" if attack == POTION else "SQ-12"),)
    return ()


def _shuffle(config: GameConfig, index: int, cards: list[int]) -> list[int]:
    """The ``index``-th shuffle of ``cards`` (top first): the fixed deal's, else the seed's."""
    if config.deal is not None and index < len(config.deal.decks):
        # SQ-14: a fixed deck for a reshuffle gives its top cards (docs/scenarios.md).
        order = deck_for(config, index, [CARD_NOTATION[c] for c in cards], prefix=True)
        return [NOTATION_CARD[c] for c in order]
    return shuffled(cards, config.seed, index)


def _holds_rival(state: SleepingQueensState, seat: int, queen: int) -> bool:
    """SQ-12: ``seat`` holds the queen that ``queen`` cannot be held with."""
    rival = RIVAL[queen]
    return rival != 0 and state.owner[rival] == seat


class SleepingQueens(Game[SleepingQueensState]):
    info = GameInfo(
        type_id="sleeping-queens",
        name="Sleeping Queens",
        min_players=2,  # SQ-3
        players_rule="SQ-3",
        max_events=10_000,  # a game takes a few hundred events; one nobody ends never stops
        max_players=5,
        options=(
            OptionSpec(
                "knight_cat_dog",
                "illegal",
                "SQ-12: a Knight on the Cat (Dog) Queen by the holder of the Dog (Cat) Queen is "
                "illegal, wasted (spent, nothing moves) or bounce (she goes back to sleep)",
                allowed=CAT_DOG_OPTIONS,
            ),
        ),
        rules="sleeping-queens.md",
        summary="Wake the queens with Kings, steal them with Knights, put them back to sleep "
        "with Potions; blocks out of turn, blind picks by position.",
    )
    command_types = union_members(Command)
    event_types = union_members(Event)
    view_type = SleepingQueensView

    # Display text for people, never for parsing (labels.py, View/Event in the protos).
    def command_label(self, command: Any, view: Any) -> str:
        return labels.command_label(command, view)

    def event_text(self, event: Any) -> str:
        return labels.event_text(event)

    # --- setup -------------------------------------------------------------------------------

    def new_state(self, config: GameConfig) -> SleepingQueensState:
        deal = config.deal
        if deal is not None:
            # Every part of a fixed deal is checked here, so no shuffle can fail mid-game.
            check_fixed_deck(config, 0, DECK, note="the 67 cards of SQ-2, top first")
            check_fixed_deck(config, 1, QUEEN_DECK, note="the 12 queens by position, SQ-3")
            for index in range(2, len(deal.decks)):
                # SQ-14: what the discard pile holds is known only then: the top cards only.
                check_fixed_deck(config, index, DECK, prefix=True, note="a reshuffle, SQ-14")
            check_fixed_pick(config, 0, config.players, "the starting seat, SQ-3")
        n = config.players
        queens, points = thresholds(n)
        return SleepingQueensState(
            config=config,
            players=n,
            cat_dog=CAT_DOG_OPTIONS.index(config.options["knight_cat_dog"]),
            queens_to_win=queens,
            points_to_win=points,
            hands=[[0] * (CARDS + 1) for _ in range(n)],
            sizes=[0] * n,
            awake=[[] for _ in range(n)],
            points=[0] * n,
        )

    def start(self, state: SleepingQueensState) -> list[Any]:
        """SQ-3: shuffle the cards and the queens, deal 5 each, a random player starts."""
        config = state.config
        cards = [NOTATION_CARD[c] for c in deck_for(config, _CARDS_SHUFFLE, DECK)]
        queens = [NAME_QUEEN[q] for q in deck_for(config, _QUEENS_SHUFFLE, QUEEN_DECK)]
        first = pick_for(config, 0, state.players)
        events: list[Any] = [
            DeckShuffled(_CARDS_SHUFFLE, len(cards), tuple(cards), False),
            QueensLaid(tuple(queens)),
        ]
        for seat in range(state.players):
            hand = cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
            events.append(CardsDrawn(seat, HAND_SIZE, tuple(sorted(hand))))
        events.append(TurnStarted(first))
        return events

    # --- deciding ----------------------------------------------------------------------------

    def decisions(self, state: SleepingQueensState) -> tuple[Decision, ...]:
        return _decisions(state.phase, state.attack, state.decider)

    def pending(self, state: SleepingQueensState) -> tuple[Seat, ...]:
        # One seat decides at a time (a block or a Jester count moves the decision only).
        return () if state.phase is _OVER_PHASE else (state.decider,)

    def decide(self, state: SleepingQueensState, seat: Seat, command: Any) -> list[Any]:
        phase = state.phase
        if seat != state.decider or phase is _OVER_PHASE:
            self.check_pending(state, seat, end_rule=state.end_rule or "SQ-15")
        if phase is _TURN_PHASE and type(command) is Discard:
            # The most frequent action, walked directly when the refill needs no reshuffle
            # (the same events as the general walk below: SQ-9, SQ-13, SQ-4).
            cards = _check_discard(state.hands[seat], command.cards)
            need = HAND_SIZE - state.sizes[seat] + len(cards)
            draw = state.draw
            if need <= len(draw):
                return [
                    _discarded(seat, cards),
                    _cards_drawn(seat, need, tuple(sorted(draw[len(draw) - need :]))),
                    _turn_started((seat + 1) % state.players),
                ]
        flow = _Flow(state)
        if phase is Phase.TURN:
            self._decide_turn(flow, seat, command)
        elif phase is Phase.BLOCK:
            self._decide_block(flow, seat, command)
        elif phase is Phase.JESTER_WAKE or phase is Phase.ROSE_WAKE:
            self._decide_wake(flow, seat, command)
        else:
            self._decide_place(flow, seat, command)
        return flow.events

    def _decide_turn(self, flow: _Flow, seat: int, command: Any) -> None:
        state = flow.state
        hand = state.hands[seat]
        kind = type(command)
        if kind is Discard:
            cards = _check_discard(hand, command.cards)
            flow.events.append(_discarded(seat, cards))
            flow.extra.extend(cards)
            flow.finish(seat, state.sizes[seat] - len(cards), state.sleeping)
        elif kind is PlayKing:
            position = command.position
            if not hand[KING]:
                raise Rejection("SQ-5", "you hold no King")
            if not (type(position) is int and 0 <= position < POSITIONS):
                raise Rejection("SQ-5", f"positions are 0..11, got {position}")
            if not state.positions[position]:
                raise Rejection(
                    "SQ-5", f"no queen sleeps at position {position}: choose a face-down queen"
                )
            flow.events.append(_king_played(seat, position))
            flow.discard(KING)
            self._wake(flow, seat, position, state.sizes[seat] - 1, bonus=True)
        elif kind is PlayKnight or kind is PlayPotion:
            knight = kind is PlayKnight
            rule = "SQ-6" if knight else "SQ-7"
            card = KNIGHT if knight else POTION
            what = "Knight" if knight else "Sleeping Potion"
            queen = command.queen
            if not hand[card]:
                raise Rejection(rule, f"you hold no {what}")
            if not (type(queen) is int and 1 <= queen <= 12):
                raise Rejection(rule, f"queens are 1..12, got {queen}")
            target = state.owner[queen]
            if target < 0:
                raise Rejection(rule, f"the {queen_name(queen)} is not awake")
            if target == seat:
                raise Rejection(rule, f"the {queen_name(queen)} is yours: choose an opponent's")
            if knight and state.cat_dog == _ILLEGAL and _holds_rival(state, seat, queen):
                raise Rejection(
                    "SQ-12",
                    f"you hold the {queen_name(RIVAL[queen])}: a Knight may not take the "
                    f"{queen_name(queen)} (option knight_cat_dog=illegal)",
                )
            event = KnightPlayed if knight else PotionPlayed
            flow.events.append(event(seat, target, queen))
        elif kind is PlayJester:
            if not hand[JESTER]:
                raise Rejection("SQ-8", "you hold no Jester")
            flow.events.append(JesterPlayed(seat))
            flow.discard(JESTER)
            card = flow.turn_over()
            if card > 10:  # a power card: into the hand, and another full turn
                flow.events.append(JesterTurned(seat, card, None))
                return
            # Count clockwise from the Jester's player as 1. A queen always sleeps here: the
            # game ends (SQ-16) as soon as none does.
            counted = (seat + card - 1) % state.players
            flow.events.append(JesterTurned(seat, card, counted))
        elif kind is Block:
            raise Rejection("SQ-10", "Dragons and Wands are never played as an action")
        elif kind is DeclineBlock:
            raise Rejection("SQ-4", "there is nothing to block: take an action")
        elif kind is WakeQueen:
            raise Rejection("SQ-5", "wake a queen with a King (PlayKing)")
        elif kind is PlaceQueen:
            raise Rejection("SQ-7", "no queen is waiting to be put to sleep")
        else:
            raise _unknown(command)

    def _wake(self, flow: _Flow, seat: int, position: int, hand: int, *, bonus: bool) -> None:
        """``seat`` turns up the queen at ``position`` (SQ-5, SQ-8, SQ-11); ``hand`` is the
        size of the turn player's hand once this action has resolved."""
        state = flow.state
        queen = state.positions[position]
        turn = state.turn
        if _holds_rival(state, seat, queen):  # SQ-12: back to sleep; the turn ends
            flow.events.append(QueenBounced(seat, position, queen))
            flow.finish(turn, hand, state.sleeping)
            return
        flow.events.append(_queen_woken(seat, position, queen))
        if flow.gain(seat, queen):  # SQ-15, also for a player counted by a Jester
            return
        sleeping = state.sleeping - 1
        if queen == ROSE and bonus:  # SQ-11
            if sleeping:
                flow.events.append(RoseBonus(seat, False))
                return
            flow.events.append(RoseBonus(seat, True))
        flow.finish(turn, hand, sleeping)

    def _decide_block(self, flow: _Flow, seat: int, command: Any) -> None:
        state = flow.state
        knight = state.attack == KNIGHT
        rule = "SQ-6" if knight else "SQ-7"
        attacker = state.attacker
        kind = type(command)
        if kind is Block:
            card = DRAGON if knight else WAND
            if not state.hands[seat][card]:
                raise Rejection(rule, f"you hold no {card_name(card)} to block with")
            flow.events.append(Blocked(seat, card))
            flow.discard(card)
            flow.draw(seat, 1)  # the defender draws at once
            flow.finish(attacker, state.sizes[attacker], state.sleeping)
        elif kind is DeclineBlock:
            flow.events.append(BlockDeclined(seat))
            if not knight:
                return  # SQ-7: the attacker now chooses the empty position
            queen = state.target_queen
            if _holds_rival(state, attacker, queen):  # SQ-12 rulings (illegal never gets here)
                if state.cat_dog == _WASTED:
                    flow.events.append(KnightWasted(attacker, queen))
                    flow.finish(attacker, state.sizes[attacker], state.sleeping)
                else:
                    flow.events.append(KnightBounced(attacker, seat, queen))
                return
            if not flow.stolen(attacker, seat, queen):
                flow.finish(attacker, state.sizes[attacker], state.sleeping)
        else:
            what = "the Knight with a Dragon" if knight else "the Potion with a Wand"
            raise Rejection(rule, f"answer {what} (Block) or let it through (DeclineBlock)")

    def _decide_wake(self, flow: _Flow, seat: int, command: Any) -> None:
        state = flow.state
        rule = "SQ-8" if state.phase is Phase.JESTER_WAKE else "SQ-11"
        if type(command) is not WakeQueen:
            raise Rejection(rule, "wake a sleeping queen: WakeQueen with her position")
        position = command.position
        if not (type(position) is int and 0 <= position < POSITIONS):
            raise Rejection(rule, f"positions are 0..11, got {position}")
        if not state.positions[position]:
            raise Rejection(rule, f"no queen sleeps at position {position}")
        turn = state.turn
        bonus = state.phase is Phase.JESTER_WAKE
        self._wake(flow, seat, position, state.sizes[turn], bonus=bonus)

    def _decide_place(self, flow: _Flow, seat: int, command: Any) -> None:
        state = flow.state
        rule = "SQ-7" if state.attack == POTION else "SQ-12"
        if type(command) is not PlaceQueen:
            raise Rejection(rule, "choose the empty position for the queen: PlaceQueen")
        position = command.position
        if not (type(position) is int and 0 <= position < POSITIONS):
            raise Rejection(rule, f"positions are 0..11, got {position}")
        if state.positions[position]:
            raise Rejection(rule, f"position {position} is not empty")
        queen = state.target_queen
        flow.events.append(QueenPutToSleep(state.owner[queen], queen, position, seat))
        flow.finish(seat, state.sizes[seat], state.sleeping + 1)

    # --- applying ----------------------------------------------------------------------------

    def apply(self, state: SleepingQueensState, event: Any) -> SleepingQueensState:
        state.public = None
        _APPLY[type(event)](state, event)
        return state

    # --- what a seat may see and do ----------------------------------------------------------

    def legal_commands(self, state: SleepingQueensState, seat: Seat) -> list[Any]:
        if seat != state.decider:
            return []
        phase = state.phase
        if phase is _TURN_PHASE:
            hand = state.hands[seat]
            moves: list[Any] = list(_discards(tuple(hand)))
            if hand[KING]:
                moves.extend(compress(_KING_AT, state.positions))
            if hand[KNIGHT] or hand[POTION]:
                owner = state.owner
                targets = [q for q in range(1, 13) if owner[q] >= 0 and owner[q] != seat]
                if hand[KNIGHT]:
                    illegal = state.cat_dog == _ILLEGAL
                    moves.extend(
                        _KNIGHT_ON[q]
                        for q in targets
                        if not (illegal and _holds_rival(state, seat, q))
                    )
                if hand[POTION]:
                    moves.extend(_POTION_ON[q] for q in targets)
            if hand[JESTER]:
                moves.append(_JESTER)
            return moves
        if phase is Phase.BLOCK:
            card = DRAGON if state.attack == KNIGHT else WAND
            return [_DECLINE, _BLOCK] if state.hands[seat][card] else [_DECLINE]
        if phase is Phase.JESTER_WAKE or phase is Phase.ROSE_WAKE:
            return list(compress(_WAKE_AT, state.positions))
        if phase is Phase.PLACE_QUEEN:
            positions = state.positions
            return [_PLACE_AT[p] for p in range(POSITIONS) if not positions[p]]
        return []

    def command_space(self, state: SleepingQueensState, seat: Seat) -> list[Any]:
        return list(_command_space())

    def view(self, state: SleepingQueensState, viewer: Viewer) -> SleepingQueensView:
        public = state.public
        if public is None:
            public = state.public = _public(state)
        if viewer is None:
            hand: tuple[int, ...] = ()
        else:
            counts = state.hands[viewer]
            cards: list[int] = []
            for card in compress(_CARD_IDS, counts[1:]):  # only the cards held
                cards += [card] * counts[card]
            hand = tuple(cards)
        return SleepingQueensView(hand, *public)

    def chance_steps(self, config: GameConfig, event: Any) -> Sequence[ChanceStep]:
        """SQ-3/SQ-14: the draw pile is the latest card shuffle, drawn from the top (a Jester
        turns its top card face up, SQ-8); the queens' shuffle lies on positions 0-11, and a
        queen woken or bounced is seen by everyone (SQ-5, SQ-18)."""
        kind = type(event)
        if kind is DeckShuffled:
            cards = tuple(CARD_NOTATION[c] for c in event.cards)
            return (DeckOrder(event.shuffle, cards),)
        if kind is QueensLaid:
            queens = tuple(QUEEN_NAMES[q] for q in event.queens)
            return (DeckOrder(_QUEENS_SHUFFLE, queens, pile=False),)
        if kind is CardsDrawn:
            return (CardsTaken(event.count, (event.seat,)),)
        if kind is JesterTurned:
            return (CardsTaken(1, None),)
        if kind is QueenWoken or kind is QueenBounced:
            return (CardShown(None, event.position, _QUEENS_SHUFFLE),)
        return ()

    def redact(self, event: Any, viewer: Viewer) -> Any:
        kind = type(event)
        if kind is CardsDrawn:
            # SQ-19: cards drawn are seen only by the drawer.
            return event if event.seat == viewer else _cards_drawn(event.seat, event.count, ())
        if kind is DeckShuffled:
            # SQ-19: the draw pile order is never shown, to anyone.
            return _deck_hidden(event.shuffle, event.count, (), event.reshuffle)
        if kind is QueensLaid:
            return _QUEENS_HIDDEN  # SQ-18: nobody sees which queen lies where
        return event

    def results(self, state: SleepingQueensState) -> tuple[SeatResult, ...] | None:
        """Score 1 for each winner (SQ-15, SQ-16; tied winners share), 0 for the others.

        Points are not the score: by SQ-15 a player with 5 queens beats one with more points.
        Points and queens by seat are in :class:`GameEnded` and the view.
        """
        if state.phase is not Phase.OVER:
            return None
        winners = state.winners
        return rank_by_score(
            [1 if s in winners else 0 for s in range(state.players)], lower_wins=False
        )

    def limit_results(self, state: SleepingQueensState, players: int) -> tuple[SeatResult, ...]:
        """At the event limit: the points of the queens each seat holds, most first (as SQ-16
        ranks a game with no queen left asleep; tied seats share)."""
        return rank_by_score(state.points, lower_wins=False)

    def default_command(self, state: SleepingQueensState, seat: Seat) -> Any:
        """A timeout wakes a queen when the seat holds a King (SQ-5: the game moves on),
        else plays the first legal command (the gentlest)."""
        legal = self.legal_commands(state, seat)
        return next((c for c in legal if isinstance(c, PlayKing)), legal[0] if legal else None)

    def hidden_variant(
        self, state: SleepingQueensState, viewer: Viewer, salt: int
    ) -> SleepingQueensState:
        """Re-deal what ``viewer`` cannot see: the draw pile and the other hands (sizes kept)
        among themselves, and the face-down queens whose identity is unknown among their
        positions (SQ-17, SQ-18, SQ-19)."""
        other = self.copy_state(state)
        hidden = [s for s in range(state.players) if s != viewer]
        pool = list(state.draw)
        for s in hidden:
            counts = state.hands[s]
            pool.extend(c for c in range(1, CARDS + 1) for _ in range(counts[c]))
        groups: list[object] = ["draw"] * len(state.draw)
        groups.extend([None] * (len(pool) - len(state.draw)))  # hands are unordered
        pool = hidden_permutation(pool, groups, salt)
        other.draw = pool[: len(state.draw)]
        rest = pool[len(state.draw) :]
        for s in hidden:
            counts = [0] * (CARDS + 1)
            for card in rest[: state.sizes[s]]:
                counts[card] += 1
            rest = rest[state.sizes[s] :]
            other.hands[s] = counts
        unknown = [p for p in range(POSITIONS) if state.positions[p] and not state.known[p]]
        queens = hidden_permutation(
            [state.positions[p] for p in unknown], ["queens"] * len(unknown), salt // 3
        )
        for p, queen in zip(unknown, queens, strict=True):
            other.positions[p] = queen
        return other

    def copy_state(self, state: SleepingQueensState) -> SleepingQueensState:
        from dataclasses import replace

        return replace(
            state,
            hands=[list(h) for h in state.hands],
            sizes=list(state.sizes),
            draw=list(state.draw),
            discard=list(state.discard),
            positions=list(state.positions),
            known=list(state.known),
            owner=list(state.owner),
            awake=[list(a) for a in state.awake],
            points=list(state.points),
        )


# The view's parts are values: the few distinct ones are built once (SQ-17, SQ-18).
_CARD_IDS = range(1, CARDS + 1)
_position = cache(Position)
_awake_queens = lru_cache(maxsize=1 << 12)(AwakeQueens)


def _public(state: SleepingQueensState) -> tuple[Any, ...]:
    """The fields of the view after ``hand``, in field order: all public (SQ-17, SQ-18), the
    same objects for every viewer of this state."""
    known = state.known
    over = state.phase is Phase.OVER
    return (
        tuple(state.sizes),
        len(state.draw),
        tuple(state.discard),
        tuple(_position(p, bool(q), q if known[p] else 0) for p, q in enumerate(state.positions)),
        tuple(
            _awake_queens(s, tuple(state.awake[s]), state.points[s]) for s in range(state.players)
        ),
        None if over or state.turn < 0 else state.turn,
        state.phase,
        None if over or state.decider < 0 else state.decider,
        state.attacker if state.attacker >= 0 else None,
        state.target_queen,
        state.jester_card,
        CAT_DOG_OPTIONS[state.cat_dog],
        state.queens_to_win,
        state.points_to_win,
        state.winners,
        state.end_rule,
    )


def _check_discard(hand: list[int], cards: Any) -> tuple[int, ...]:
    """SQ-9: the discard ``cards`` as a tuple, or a :class:`Rejection` saying why not.

    >>> _check_discard([0, 1, 1, 0, 0, 1] + [0] * 11, (1, 2, 5))
    Traceback (most recent call last):
    ...
    referee.engine.game.Rejection: SQ-9: 1 + 2 = 3, not 5: the equation does not add up
    """
    if type(cards) is tuple:  # the frequent shapes first: one card, a pair
        size = len(cards)
        if size == 1:
            card = cards[0]
            if type(card) is int and 0 < card <= CARDS and hand[card]:
                return cards
        elif size == 2:
            card = cards[0]
            if card == cards[1] and type(card) is int and 0 < card <= 10 and hand[card] >= 2:
                return cards
    if not isinstance(cards, tuple) or not all(type(c) is int for c in cards):
        raise Rejection("SQ-9", "cards must be a list of card codes")
    if not cards:
        raise Rejection("SQ-9", "discard at least one card")
    if any(not 1 <= c <= CARDS for c in cards):
        raise Rejection("SQ-2", "cards are 1-10 and 11-16 (King, Jester, Knight, Potion, ...)")
    if list(cards) != sorted(cards):
        raise Rejection("SQ-9", "list the discarded cards in ascending order")
    for card in set(cards):
        if hand[card] < cards.count(card):
            raise Rejection("SQ-9", f"you do not hold {cards.count(card)} x {card_name(card)}")
    if len(cards) == 2:
        if cards[0] > 10 or cards[1] > 10:
            raise Rejection("SQ-9", "a pair is two number cards; two power cards are not a pair")
        if cards[0] != cards[1]:
            raise Rejection("SQ-9", "a pair is two number cards of the same value")
    elif len(cards) > 2:
        if cards[-1] > 10:
            raise Rejection("SQ-9", "an equation is made of number cards only")
        if cards[-1] != sum(cards[:-1]):
            shown = " + ".join(map(str, cards[:-1]))
            raise Rejection(
                "SQ-9",
                f"{shown} = {sum(cards[:-1])}, not {cards[-1]}: the equation does not add up",
            )
    return cards


def _unknown(command: Any) -> Rejection:
    return Rejection("SQ-4", f"not a Sleeping Queens command: {type(command).__name__}")


# --- event handlers (the only code that changes a state) ------------------------------------


def _apply_deck_shuffled(state: SleepingQueensState, e: DeckShuffled) -> None:
    state.draw = list(reversed(e.cards))
    if e.reshuffle:
        state.discard = []  # SQ-14: the whole discard pile
    state.shuffles = e.shuffle + 1


def _apply_queens_laid(state: SleepingQueensState, e: QueensLaid) -> None:
    state.positions = list(e.queens)
    state.known = [False] * POSITIONS
    state.sleeping = len(e.queens)
    state.shuffles = _QUEENS_SHUFFLE + 1


def _apply_cards_drawn(state: SleepingQueensState, e: CardsDrawn) -> None:
    del state.draw[len(state.draw) - e.count :]
    hand = state.hands[e.seat]
    for card in e.cards:
        hand[card] += 1
    state.sizes[e.seat] += e.count


def _apply_turn_started(state: SleepingQueensState, e: TurnStarted) -> None:
    state.turn = state.decider = e.seat
    state.phase = _TURN_PHASE
    state.attacker = -1
    state.target_queen = state.attack = state.jester_card = 0


def _play(state: SleepingQueensState, seat: int, card: int) -> None:
    state.hands[seat][card] -= 1
    state.sizes[seat] -= 1
    state.discard.append(card)


def _apply_discarded(state: SleepingQueensState, e: Discarded) -> None:
    hand = state.hands[e.seat]
    for card in e.cards:
        hand[card] -= 1
    state.sizes[e.seat] -= len(e.cards)
    state.discard += e.cards


def _apply_king_played(state: SleepingQueensState, e: KingPlayed) -> None:
    _play(state, e.seat, KING)
    state.phase = Phase.UNSPECIFIED


def _apply_queen_woken(state: SleepingQueensState, e: QueenWoken) -> None:
    state.positions[e.position] = 0
    state.known[e.position] = False
    state.sleeping -= 1
    state.owner[e.queen] = e.seat
    state.awake[e.seat].append(e.queen)
    state.points[e.seat] += QUEEN_POINTS[e.queen]
    state.phase = Phase.UNSPECIFIED


def _apply_queen_bounced(state: SleepingQueensState, e: QueenBounced) -> None:
    state.known[e.position] = True  # SQ-18: everyone saw her
    state.phase = Phase.UNSPECIFIED


def _apply_rose_bonus(state: SleepingQueensState, e: RoseBonus) -> None:
    if not e.lost:
        state.phase = Phase.ROSE_WAKE
        state.decider = e.seat


def _apply_jester_played(state: SleepingQueensState, e: JesterPlayed) -> None:
    _play(state, e.seat, JESTER)


def _apply_jester_turned(state: SleepingQueensState, e: JesterTurned) -> None:
    state.draw.pop()
    state.jester_card = e.card
    if e.counted is None:  # a power card: into the hand, the same player plays again
        state.hands[e.seat][e.card] += 1
        state.sizes[e.seat] += 1
        state.phase = Phase.TURN
        state.decider = e.seat
    else:
        state.discard.append(e.card)
        state.phase = Phase.JESTER_WAKE
        state.decider = e.counted


def _attack(state: SleepingQueensState, e: KnightPlayed | PotionPlayed, card: int) -> None:
    _play(state, e.seat, card)
    state.phase = Phase.BLOCK
    state.decider = e.target
    state.attacker = e.seat
    state.target_queen = e.queen
    state.attack = card


def _apply_knight_played(state: SleepingQueensState, e: KnightPlayed) -> None:
    _attack(state, e, KNIGHT)


def _apply_potion_played(state: SleepingQueensState, e: PotionPlayed) -> None:
    _attack(state, e, POTION)


def _apply_blocked(state: SleepingQueensState, e: Blocked) -> None:
    _play(state, e.seat, e.card)
    state.phase = Phase.UNSPECIFIED


def _place(state: SleepingQueensState) -> None:
    state.phase = Phase.PLACE_QUEEN
    state.decider = state.attacker


def _apply_block_declined(state: SleepingQueensState, e: BlockDeclined) -> None:
    if state.attack == POTION:
        _place(state)
    else:
        state.phase = Phase.UNSPECIFIED


def _lose(state: SleepingQueensState, seat: int, queen: int) -> None:
    state.awake[seat].remove(queen)
    state.points[seat] -= QUEEN_POINTS[queen]
    state.owner[queen] = -1


def _apply_queen_stolen(state: SleepingQueensState, e: QueenStolen) -> None:
    _lose(state, e.from_seat, e.queen)
    state.owner[e.queen] = e.seat
    state.awake[e.seat].append(e.queen)
    state.points[e.seat] += QUEEN_POINTS[e.queen]


def _apply_knight_wasted(state: SleepingQueensState, e: KnightWasted) -> None:
    pass  # SQ-12 ruling: nothing moves


def _apply_knight_bounced(state: SleepingQueensState, e: KnightBounced) -> None:
    _place(state)


def _apply_queen_put_to_sleep(state: SleepingQueensState, e: QueenPutToSleep) -> None:
    _lose(state, e.seat, e.queen)
    state.positions[e.position] = e.queen
    state.known[e.position] = True  # SQ-18
    state.sleeping += 1
    state.phase = Phase.UNSPECIFIED


def _apply_game_ended(state: SleepingQueensState, e: GameEnded) -> None:
    state.phase = Phase.OVER
    state.decider = -1
    state.winners = e.winners
    state.end_rule = e.rule


_APPLY: dict[type, Any] = {
    DeckShuffled: _apply_deck_shuffled,
    QueensLaid: _apply_queens_laid,
    CardsDrawn: _apply_cards_drawn,
    TurnStarted: _apply_turn_started,
    Discarded: _apply_discarded,
    KingPlayed: _apply_king_played,
    QueenWoken: _apply_queen_woken,
    QueenBounced: _apply_queen_bounced,
    RoseBonus: _apply_rose_bonus,
    JesterPlayed: _apply_jester_played,
    JesterTurned: _apply_jester_turned,
    KnightPlayed: _apply_knight_played,
    PotionPlayed: _apply_potion_played,
    Blocked: _apply_blocked,
    BlockDeclined: _apply_block_declined,
    QueenStolen: _apply_queen_stolen,
    KnightWasted: _apply_knight_wasted,
    KnightBounced: _apply_knight_bounced,
    QueenPutToSleep: _apply_queen_put_to_sleep,
    GameEnded: _apply_game_ended,
}
