"""Sleeping Queens: what a command causes (SQ-4 ... SQ-16).

The engine (``Game.decide``) checks who may act and each command's shape; this module holds
the handlers, one per (phase, command type) in :data:`HANDLERS`. A handler walks the
consequences of a command (refills, reshuffles, win checks) with a small :class:`_Flow` that
records only what the command changes: it never copies or changes the state.
"""

from __future__ import annotations

from functools import cache, lru_cache

from referee.engine.chance import deck_for, shuffled
from referee.engine.game import GameConfig, Handler, Rejection, Seat, refuse
from referee.games.sleeping_queens.model import (
    CARD_NOTATION,
    CARDS,
    DRAGON,
    HAND_SIZE,
    JESTER,
    KING,
    KNIGHT,
    NOTATION_CARD,
    POSITIONS,
    POTION,
    QUEEN_POINTS,
    RIVAL,
    ROSE,
    WAND,
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
    PotionPlayed,
    QueenBounced,
    QueenPutToSleep,
    QueenStolen,
    QueenWoken,
    RoseBonus,
    TurnStarted,
    WakeQueen,
    card_name,
    queen_name,
)
from referee.games.sleeping_queens.state import (
    ILLEGAL,
    WASTED,
    SleepingQueensState,
    holds_rival,
)

# Events are immutable values, and the frequent ones have few distinct values: build each once
# (a frozen dataclass costs a Python-level __init__; a cache hit does not).
_turn_started = cache(TurnStarted)
_discarded = cache(Discarded)
_cards_drawn = lru_cache(maxsize=1 << 15)(CardsDrawn)
_king_played = cache(KingPlayed)
_queen_woken = cache(QueenWoken)


class _Flow:
    """The consequences of one command, walked without touching the state.

    Tracks the cards taken from the draw pile (and a reshuffled pile), the cards discarded and
    the queens that changed hands, and appends the events.
    """

    __slots__ = ("cleared", "events", "extra", "moves", "pile", "shuffles", "state", "top")

    def __init__(self, state: SleepingQueensState) -> None:
        self.state = state
        self.events: list[Event] = []
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


def _shuffle(config: GameConfig, index: int, cards: list[int]) -> list[int]:
    """The ``index``-th shuffle of ``cards`` (top first): the fixed deal's, else the seed's."""
    if config.deal is not None and index < len(config.deal.decks):
        # SQ-14: a fixed deck for a reshuffle gives its top cards (docs/scenarios.md).
        order = deck_for(config, index, [CARD_NOTATION[c] for c in cards], prefix=True)
        return [NOTATION_CARD[c] for c in order]
    return shuffled(cards, config.seed, index)


def _check_discard(hand: list[int], cards: tuple[int, ...]) -> tuple[int, ...]:
    """SQ-9: the discard ``cards`` as a tuple, or a :class:`Rejection` saying why not.

    >>> _check_discard([0, 1, 1, 0, 0, 1] + [0] * 11, (1, 2, 5))
    Traceback (most recent call last):
    ...
    referee.engine.game.Rejection: SQ-9: 1 + 2 = 3, not 5: the equation does not add up
    """
    # ``cards`` is a tuple of integers (the engine checked the command's shape).
    size = len(cards)
    if size == 1:  # the frequent shapes first: one card, a pair
        card = cards[0]
        if 0 < card <= CARDS and hand[card]:
            return cards
    elif size == 2:
        card = cards[0]
        if card == cards[1] and 0 < card <= 10 and hand[card] >= 2:
            return cards
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


# --- the handlers ---------------------------------------------------------------------------


def _discard(state: SleepingQueensState, seat: Seat, command: Discard) -> list[Event]:
    """SQ-9, SQ-13, SQ-4: discard, refill to 5, the next player's turn."""
    cards = _check_discard(state.hands[seat], command.cards)
    need = HAND_SIZE - state.sizes[seat] + len(cards)
    draw = state.draw
    if need <= len(draw):
        # The most frequent action, walked directly when the refill needs no reshuffle
        # (the same events as the general walk below).
        return [
            _discarded(seat, cards),
            _cards_drawn(seat, need, tuple(sorted(draw[len(draw) - need :]))),
            _turn_started((seat + 1) % state.players),
        ]
    flow = _Flow(state)
    flow.events.append(_discarded(seat, cards))
    flow.extra.extend(cards)
    flow.finish(seat, state.sizes[seat] - len(cards), state.sleeping)
    return flow.events


def _play_king(state: SleepingQueensState, seat: Seat, command: PlayKing) -> list[Event]:
    """SQ-5: a King wakes the sleeping queen at a position."""
    position = command.position
    if not state.hands[seat][KING]:
        raise Rejection("SQ-5", "you hold no King")
    if not 0 <= position < POSITIONS:
        raise Rejection("SQ-5", f"positions are 0..11, got {position}")
    if not state.positions[position]:
        raise Rejection("SQ-5", f"no queen sleeps at position {position}: choose a face-down queen")
    flow = _Flow(state)
    flow.events.append(_king_played(seat, position))
    flow.discard(KING)
    _wake(flow, seat, position, state.sizes[seat] - 1, bonus=True)
    return flow.events


def _play_knight(state: SleepingQueensState, seat: Seat, command: PlayKnight) -> list[Event]:
    """SQ-6: a Knight steals an opponent's awake queen (unless blocked)."""
    return _attack(state, seat, command.queen, knight=True)


def _play_potion(state: SleepingQueensState, seat: Seat, command: PlayPotion) -> list[Event]:
    """SQ-7: a Sleeping Potion puts an opponent's awake queen back to sleep (unless blocked)."""
    return _attack(state, seat, command.queen, knight=False)


def _attack(state: SleepingQueensState, seat: Seat, queen: int, *, knight: bool) -> list[Event]:
    rule = "SQ-6" if knight else "SQ-7"
    card = KNIGHT if knight else POTION
    what = "Knight" if knight else "Sleeping Potion"
    if not state.hands[seat][card]:
        raise Rejection(rule, f"you hold no {what}")
    if not 1 <= queen <= 12:
        raise Rejection(rule, f"queens are 1..12, got {queen}")
    target = state.owner[queen]
    if target < 0:
        raise Rejection(rule, f"the {queen_name(queen)} is not awake")
    if target == seat:
        raise Rejection(rule, f"the {queen_name(queen)} is yours: choose an opponent's")
    if knight and state.cat_dog == ILLEGAL and holds_rival(state, seat, queen):
        raise Rejection(
            "SQ-12",
            f"you hold the {queen_name(RIVAL[queen])}: a Knight may not take the "
            f"{queen_name(queen)} (option knight_cat_dog=illegal)",
        )
    return [(KnightPlayed if knight else PotionPlayed)(seat, target, queen)]


def _play_jester(state: SleepingQueensState, seat: Seat, command: PlayJester) -> list[Event]:
    """SQ-8: turn over the top card: a power card is kept (another turn), a number counts
    round the table to the player who wakes a queen."""
    if not state.hands[seat][JESTER]:
        raise Rejection("SQ-8", "you hold no Jester")
    flow = _Flow(state)
    flow.events.append(JesterPlayed(seat))
    flow.discard(JESTER)
    card = flow.turn_over()
    if card > 10:  # a power card: into the hand, and another full turn
        flow.events.append(JesterTurned(seat, card, None))
        return flow.events
    # Count clockwise from the Jester's player as 1. A queen always sleeps here: the game
    # ends (SQ-16) as soon as none does.
    counted = (seat + card - 1) % state.players
    flow.events.append(JesterTurned(seat, card, counted))
    return flow.events


def _wake(flow: _Flow, seat: int, position: int, hand: int, *, bonus: bool) -> None:
    """``seat`` turns up the queen at ``position`` (SQ-5, SQ-8, SQ-11); ``hand`` is the
    size of the turn player's hand once this action has resolved."""
    state = flow.state
    queen = state.positions[position]
    turn = state.turn
    if holds_rival(state, seat, queen):  # SQ-12: back to sleep; the turn ends
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


def _block(state: SleepingQueensState, seat: Seat, command: Block) -> list[Event]:
    """SQ-6/SQ-7: a Dragon blocks a Knight, a Wand a Potion; the defender draws at once."""
    knight = state.attack == KNIGHT
    card = DRAGON if knight else WAND
    if not state.hands[seat][card]:
        raise Rejection(
            "SQ-6" if knight else "SQ-7", f"you hold no {card_name(card)} to block with"
        )
    flow = _Flow(state)
    flow.events.append(Blocked(seat, card))
    flow.discard(card)
    flow.draw(seat, 1)
    attacker = state.attacker
    flow.finish(attacker, state.sizes[attacker], state.sleeping)
    return flow.events


def _decline_block(state: SleepingQueensState, seat: Seat, command: DeclineBlock) -> list[Event]:
    """SQ-6/SQ-7: the attack goes through (SQ-12 rulings for the Cat and the Dog)."""
    flow = _Flow(state)
    flow.events.append(BlockDeclined(seat))
    if state.attack != KNIGHT:
        return flow.events  # SQ-7: the attacker now chooses the empty position
    attacker, queen = state.attacker, state.target_queen
    if holds_rival(state, attacker, queen):  # SQ-12 rulings (illegal never gets here)
        if state.cat_dog == WASTED:
            flow.events.append(KnightWasted(attacker, queen))
            flow.finish(attacker, state.sizes[attacker], state.sleeping)
        else:
            flow.events.append(KnightBounced(attacker, seat, queen))
        return flow.events
    if not flow.stolen(attacker, seat, queen):
        flow.finish(attacker, state.sizes[attacker], state.sleeping)
    return flow.events


def _not_a_block(state: SleepingQueensState, seat: Seat, command: Command) -> list[Event]:
    knight = state.attack == KNIGHT
    what = "the Knight with a Dragon" if knight else "the Potion with a Wand"
    raise Rejection(
        "SQ-6" if knight else "SQ-7", f"answer {what} (Block) or let it through (DeclineBlock)"
    )


def _wake_queen(state: SleepingQueensState, seat: Seat, command: WakeQueen) -> list[Event]:
    """SQ-8 (a Jester's count) or SQ-11 (the Rose Queen's bonus): wake a sleeping queen."""
    rule = "SQ-8" if state.phase is Phase.JESTER_WAKE else "SQ-11"
    position = command.position
    if not 0 <= position < POSITIONS:
        raise Rejection(rule, f"positions are 0..11, got {position}")
    if not state.positions[position]:
        raise Rejection(rule, f"no queen sleeps at position {position}")
    flow = _Flow(state)
    _wake(flow, seat, position, state.sizes[state.turn], bonus=state.phase is Phase.JESTER_WAKE)
    return flow.events


def _not_a_wake(state: SleepingQueensState, seat: Seat, command: Command) -> list[Event]:
    rule = "SQ-8" if state.phase is Phase.JESTER_WAKE else "SQ-11"
    raise Rejection(rule, "wake a sleeping queen: WakeQueen with her position")


def _place_queen(state: SleepingQueensState, seat: Seat, command: PlaceQueen) -> list[Event]:
    """SQ-7 (a Potion) or SQ-12 (a bounced Knight): the queen goes to an empty position."""
    rule = "SQ-7" if state.attack == POTION else "SQ-12"
    position = command.position
    if not 0 <= position < POSITIONS:
        raise Rejection(rule, f"positions are 0..11, got {position}")
    if state.positions[position]:
        raise Rejection(rule, f"position {position} is not empty")
    queen = state.target_queen
    flow = _Flow(state)
    flow.events.append(QueenPutToSleep(state.owner[queen], queen, position, seat))
    flow.finish(seat, state.sizes[seat], state.sleeping + 1)
    return flow.events


def _not_a_place(state: SleepingQueensState, seat: Seat, command: Command) -> list[Event]:
    rule = "SQ-7" if state.attack == POTION else "SQ-12"
    raise Rejection(rule, "choose the empty position for the queen: PlaceQueen")


_TURN, _BLOCK, _PLACE = Phase.TURN, Phase.BLOCK, Phase.PLACE_QUEEN
_WAKES = (Phase.JESTER_WAKE, Phase.ROSE_WAKE)
_COMMANDS = (
    Discard, PlayKing, PlayKnight, PlayPotion, PlayJester, Block, DeclineBlock, WakeQueen,
    PlaceQueen,
)  # fmt: skip

#: The handler of each (phase, command): every pair a pending decision can meet is here,
#: the refusals with the rule that forbids the command in that phase.
HANDLERS: dict[tuple[Phase, type], Handler[SleepingQueensState, Event]] = {
    (_TURN, Discard): _discard,
    (_TURN, PlayKing): _play_king,
    (_TURN, PlayKnight): _play_knight,
    (_TURN, PlayPotion): _play_potion,
    (_TURN, PlayJester): _play_jester,
    (_TURN, Block): refuse("SQ-10", "Dragons and Wands are never played as an action"),
    (_TURN, DeclineBlock): refuse("SQ-4", "there is nothing to block: take an action"),
    (_TURN, WakeQueen): refuse("SQ-5", "wake a queen with a King (PlayKing)"),
    (_TURN, PlaceQueen): refuse("SQ-7", "no queen is waiting to be put to sleep"),
    (_BLOCK, Block): _block,
    (_BLOCK, DeclineBlock): _decline_block,
    **{(_BLOCK, cls): _not_a_block for cls in _COMMANDS if cls not in (Block, DeclineBlock)},
    **{(wake, WakeQueen): _wake_queen for wake in _WAKES},
    **{(wake, cls): _not_a_wake for wake in _WAKES for cls in _COMMANDS if cls is not WakeQueen},
    (_PLACE, PlaceQueen): _place_queen,
    **{(_PLACE, cls): _not_a_place for cls in _COMMANDS if cls is not PlaceQueen},
}
