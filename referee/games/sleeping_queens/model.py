"""Sleeping Queens: cards, queens, commands, events and the view, as frozen value objects.

Class and field names are the wire names (``protos/referee/v1/sleeping_queens.proto``).

**Cards** (SQ-2) are integers everywhere (the proto's ``SleepingQueens.Card`` enum has the same
numbers): ``1``-``10`` the number cards, then :data:`KING` 11, :data:`JESTER` 12,
:data:`KNIGHT` 13, :data:`POTION` 14 (Sleeping Potion), :data:`WAND` 15, :data:`DRAGON` 16.

**Queens** (SQ-1) are integers 1-12 (the proto's ``SleepingQueens.Queen`` enum); 0 means
"no queen" or "unknown". **Positions** of the sleeping queens are 0-11 (4 rows of 3, row by row).

**Fixed deal notation** (``FixedDeal``, scenario files):

* ``decks[0]``: the 67 cards, top first, as ``"K"`` King, ``"J"`` Jester, ``"N"`` Knight,
  ``"P"`` Sleeping Potion, ``"W"`` Wand, ``"D"`` Dragon, ``"1"``..``"10"`` number cards. Seat
  ``s`` is dealt ``decks[0][5*s : 5*s+5]``; the rest is the draw pile, its top card first.
* ``decks[1]``: the 12 queens over positions 0..11, by name: ``"rose"``, ``"cake"``,
  ``"rainbow"``, ``"starfish"``, ``"ladybug"``, ``"moon"``, ``"sunflower"``, ``"peacock"``,
  ``"cat"``, ``"dog"``, ``"pancake"``, ``"heart"``.
* ``decks[2]``, ``decks[3]``, ...: the successive reshuffles of the discard pile (SQ-14), top
  first; each must be a permutation of the discard pile at that moment.
* ``picks[0]``: the starting seat (SQ-3).

>>> card_name(KING), card_name(7), QUEEN_NAMES[ROSE], QUEEN_POINTS[HEART]
('King', '7', 'rose', 20)
>>> sum(QUEEN_POINTS)  # SQ-1: 125 points in all
125
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from referee.engine.endings import seats_text

# --- cards (SQ-2) ----------------------------------------------------------------------------

KING = 11
JESTER = 12
KNIGHT = 13
POTION = 14
WAND = 15
DRAGON = 16
#: Highest card code; hands are count lists indexed 0..CARDS (index 0 unused).
CARDS = 16
NUMBERS = range(1, 11)
POWER_CARDS = (KING, JESTER, KNIGHT, POTION, WAND, DRAGON)
#: SQ-2: how many of each card the 67-card deck holds.
CARD_COUNTS = {KING: 8, JESTER: 5, KNIGHT: 4, POTION: 4, WAND: 3, DRAGON: 3} | {
    n: 4 for n in NUMBERS
}
#: Fixed-deal notation of each card, and back.
CARD_NOTATION = {KING: "K", JESTER: "J", KNIGHT: "N", POTION: "P", WAND: "W", DRAGON: "D"} | {
    n: str(n) for n in NUMBERS
}
NOTATION_CARD = {text: card for card, text in CARD_NOTATION.items()}
_CARD_NAMES = {
    KING: "King",
    JESTER: "Jester",
    KNIGHT: "Knight",
    POTION: "Sleeping Potion",
    WAND: "Wand",
    DRAGON: "Dragon",
}

#: SQ-4: every player refills to this many cards after their action.
HAND_SIZE = 5
#: SQ-3: 12 positions for the sleeping queens (4 rows of 3).
POSITIONS = 12


def card_name(card: int) -> str:
    """A card's name in the game's words (a number card is its number)."""
    return _CARD_NAMES.get(card, str(card))


# --- queens (SQ-1) ---------------------------------------------------------------------------

ROSE = 1
CAKE = 2
RAINBOW = 3
STARFISH = 4
LADYBUG = 5
MOON = 6
SUNFLOWER = 7
PEACOCK = 8
CAT = 9
DOG = 10
PANCAKE = 11
HEART = 12
QUEENS = range(1, 13)
#: Index = queen; index 0 is "no queen".
QUEEN_NAMES = (
    "",
    "rose",
    "cake",
    "rainbow",
    "starfish",
    "ladybug",
    "moon",
    "sunflower",
    "peacock",
    "cat",
    "dog",
    "pancake",
    "heart",
)
QUEEN_POINTS = (0, 5, 5, 5, 5, 10, 10, 10, 10, 15, 15, 15, 20)
NAME_QUEEN = {name: queen for queen, name in enumerate(QUEEN_NAMES) if queen}
#: SQ-12: the queen that cannot be held together with this one (0: none).
RIVAL = tuple(DOG if q == CAT else CAT if q == DOG else 0 for q in range(13))


def queen_name(queen: int) -> str:
    """``"Rose Queen"``, ``"Cat Queen"``, ... (``"queen"`` for 0, unknown)."""
    return f"{QUEEN_NAMES[queen].capitalize()} Queen" if 0 < queen < 13 else "queen"


# --- commands --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Discard:
    """SQ-9: discard to draw: one card, a pair of equal numbers, or an equation of 3+ numbers
    whose largest equals the sum of the others. ``cards`` in ascending order (card codes).

    >>> Discard(cards=(2, 3, 5))  # 2 + 3 = 5
    Discard(cards=(2, 3, 5))
    """

    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlayKing:
    """SQ-5: play a King and wake the sleeping queen at ``position`` (0-11), unseen."""

    position: int


@dataclass(frozen=True, slots=True)
class PlayKnight:
    """SQ-6: play a Knight to steal the awake ``queen`` of an opponent."""

    queen: int


@dataclass(frozen=True, slots=True)
class PlayPotion:
    """SQ-7: play a Sleeping Potion to put the awake ``queen`` of an opponent back to sleep."""

    queen: int


@dataclass(frozen=True, slots=True)
class PlayJester:
    """SQ-8: play a Jester and turn over the top card of the draw pile."""


@dataclass(frozen=True, slots=True)
class Block:
    """SQ-6/SQ-7: as the targeted player, block with a Dragon (Knight) or a Wand (Potion)."""


@dataclass(frozen=True, slots=True)
class DeclineBlock:
    """SQ-6/SQ-7: as the targeted player, let the Knight or Potion through."""


@dataclass(frozen=True, slots=True)
class WakeQueen:
    """SQ-8/SQ-11: wake the sleeping queen at ``position`` (the player counted by a Jester, or
    the bonus of the Rose Queen)."""

    position: int


@dataclass(frozen=True, slots=True)
class PlaceQueen:
    """SQ-7 (and SQ-12 ``bounce``): put the queen back to sleep at the empty ``position``."""

    position: int


Command = (
    Discard
    | PlayKing
    | PlayKnight
    | PlayPotion
    | PlayJester
    | Block
    | DeclineBlock
    | WakeQueen
    | PlaceQueen
)

# --- events ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeckShuffled:
    """The 67 cards (``reshuffle`` false, SQ-3) or the whole discard pile (``reshuffle`` true,
    SQ-14) became the draw pile. ``cards`` is its order, top first, for replay only: every
    viewer sees it empty (SQ-19: the draw pile order is never shown); ``count`` is public."""

    shuffle: int
    count: int
    cards: tuple[int, ...]
    reshuffle: bool


@dataclass(frozen=True, slots=True)
class QueensLaid:
    """SQ-3: the 12 queens lie face down in positions 0-11. ``queens`` (by position) is for
    replay only: every viewer sees it empty (SQ-18)."""

    queens: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardsDrawn:
    """``seat`` drew ``count`` cards from the draw pile (deal, refill, block). ``cards``
    (sorted) only for ``seat``; others see the count (SQ-17, SQ-19)."""

    seat: int
    count: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """SQ-4: it is ``seat``'s turn."""

    seat: int


@dataclass(frozen=True, slots=True)
class Discarded:
    """SQ-9: ``seat`` discarded ``cards`` (public, SQ-19)."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class KingPlayed:
    """SQ-5: ``seat`` played a King on the sleeping queen at ``position``."""

    seat: int
    position: int


@dataclass(frozen=True, slots=True)
class QueenWoken:
    """``queen`` at ``position`` was turned up and is now awake in front of ``seat``."""

    seat: int
    position: int
    queen: int


@dataclass(frozen=True, slots=True)
class QueenBounced:
    """SQ-12: ``seat`` turned up ``queen`` at ``position`` while holding her rival; she goes
    back face down at the same position (now publicly known, SQ-18) and the turn ends."""

    seat: int
    position: int
    queen: int


@dataclass(frozen=True, slots=True)
class RoseBonus:
    """SQ-11: ``seat`` woke the Rose Queen and now wakes one more sleeping queen, or ``lost``
    the bonus because no sleeping queen is left."""

    seat: int
    lost: bool


@dataclass(frozen=True, slots=True)
class JesterPlayed:
    """SQ-8: ``seat`` played a Jester."""

    seat: int


@dataclass(frozen=True, slots=True)
class JesterTurned:
    """SQ-8: the top card of the draw pile was turned over (public). A power card goes to
    ``seat``'s hand and they play again (``counted`` absent); a number counts players from
    ``seat`` and the ``counted`` seat wakes a queen."""

    seat: int
    card: int
    counted: int | None


@dataclass(frozen=True, slots=True)
class KnightPlayed:
    """SQ-6: ``seat`` played a Knight on ``queen`` of ``target``; ``target`` may block."""

    seat: int
    target: int
    queen: int


@dataclass(frozen=True, slots=True)
class PotionPlayed:
    """SQ-7: ``seat`` played a Sleeping Potion on ``queen`` of ``target``; ``target`` may
    block."""

    seat: int
    target: int
    queen: int


@dataclass(frozen=True, slots=True)
class Blocked:
    """SQ-6/SQ-7: ``seat`` blocked with ``card`` (Dragon or Wand); the queen stays."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class BlockDeclined:
    """SQ-6/SQ-7: ``seat`` did not block."""

    seat: int


@dataclass(frozen=True, slots=True)
class QueenStolen:
    """SQ-6: ``seat`` took ``queen`` from ``from_seat``."""

    seat: int
    from_seat: int
    queen: int


@dataclass(frozen=True, slots=True)
class KnightWasted:
    """SQ-12, option ``wasted``: the Knight on ``queen`` is spent and nothing moves."""

    seat: int
    queen: int


@dataclass(frozen=True, slots=True)
class KnightBounced:
    """SQ-12, option ``bounce``: ``queen`` of ``from_seat`` goes back to sleep; ``seat`` (the
    Knight's player) chooses the empty position."""

    seat: int
    from_seat: int
    queen: int


@dataclass(frozen=True, slots=True)
class QueenPutToSleep:
    """SQ-7/SQ-12: ``queen`` of ``seat`` lies face down at ``position``, chosen by ``by``;
    her identity there is public (SQ-18)."""

    seat: int
    queen: int
    position: int
    by: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over: ``rule`` "SQ-15" (threshold reached) or "SQ-16" (no sleeping queen
    left; most points, then most queens). ``winners`` may share the win (SQ-16);
    ``points`` and ``queens`` are by seat.

    ``end_rule_id`` (``rule``) and ``end_reason`` say why in words, written from these public
    fields when not given: so events stored before these fields say it too.

    >>> GameEnded("SQ-15", (2,), (0, 5, 40), (0, 1, 5)).end_reason
    'seat 2 woke 5 queens worth 40 points, reaching the target to win'
    """

    rule: str
    winners: tuple[int, ...]
    points: tuple[int, ...]
    queens: tuple[int, ...]
    end_rule_id: str = ""
    end_reason: str = ""

    def __post_init__(self) -> None:
        if not self.end_reason:
            object.__setattr__(self, "end_rule_id", self.rule)
            object.__setattr__(self, "end_reason", _end_reason(self))


def _end_reason(e: GameEnded) -> str:
    held = [
        (e.queens[s] if s < len(e.queens) else 0, e.points[s] if s < len(e.points) else 0)
        for s in e.winners
    ]
    if e.rule == "SQ-15" and held:
        queens, points = held[0]
        return (
            f"{seats_text(e.winners)} woke {queens} queen{'s' if queens != 1 else ''} worth "
            f"{points} points, reaching the target to win"
        )
    queens, points = held[0] if held else (0, 0)
    verb = "wins" if len(e.winners) == 1 else "share the win"
    each = " each" if len(e.winners) > 1 else ""
    return (
        f"no queen is left asleep: {seats_text(e.winners)} {verb} with the most points, "
        f"{points} ({queens} queen{'s' if queens != 1 else ''}){each}"
    )


Event = (
    DeckShuffled
    | QueensLaid
    | CardsDrawn
    | TurnStarted
    | Discarded
    | KingPlayed
    | QueenWoken
    | QueenBounced
    | RoseBonus
    | JesterPlayed
    | JesterTurned
    | KnightPlayed
    | PotionPlayed
    | Blocked
    | BlockDeclined
    | QueenStolen
    | KnightWasted
    | KnightBounced
    | QueenPutToSleep
    | GameEnded
)

# --- view ------------------------------------------------------------------------------------


class Phase(IntEnum):
    """What the game waits for. UNSPECIFIED only while an action resolves (never in a view)."""

    UNSPECIFIED = 0
    TURN = 1  # SQ-4: the player whose turn it is takes an action
    BLOCK = 2  # SQ-6/SQ-7: the targeted player blocks or not
    JESTER_WAKE = 3  # SQ-8: the counted player wakes a queen
    ROSE_WAKE = 4  # SQ-11: the Rose Queen's bonus
    PLACE_QUEEN = 5  # SQ-7/SQ-12: the attacker chooses the empty position
    OVER = 6


@dataclass(frozen=True, slots=True)
class Position:
    """One of the 12 positions: ``asleep`` when a queen lies there face down; ``queen`` is her
    identity when that is public (SQ-18: she was put back to sleep there), else 0."""

    position: int
    asleep: bool
    queen: int


@dataclass(frozen=True, slots=True)
class AwakeQueens:
    """The queens awake in front of ``seat`` (in the order won) and their ``points``."""

    seat: int
    queens: tuple[int, ...]
    points: int


@dataclass(frozen=True, slots=True)
class SleepingQueensView:
    """What one seat (or a spectator) may know now (SQ-17, SQ-18, SQ-19)."""

    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    draw_pile_size: int
    discard_pile: tuple[int, ...]
    positions: tuple[Position, ...]
    awake: tuple[AwakeQueens, ...]
    turn: int | None
    phase: Phase
    decider: int | None
    attacker: int | None
    target_queen: int
    jester_card: int
    knight_cat_dog: str
    queens_to_win: int
    points_to_win: int
    winners: tuple[int, ...]
    end_rule: str
