"""Vampire Queen: commands, events and the view, as frozen value objects.

Card values: 1-13 number cards, ``14`` a Vampire Queen, ``15`` and ``20`` the Vampire Hunters
(VQ-1). Class and field names are the wire names (``protos/referee/v1/vampire_queen.proto``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from referee.engine.endings import winners_of, winners_text

QUEEN = 14
HUNTER_15 = 15
HUNTER_20 = 20
HUNTERS = (HUNTER_15, HUNTER_20)

# --- commands ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlaySet:
    """Play (lead or follow with) ``count`` cards of ``value``, ``queens`` of them queens (VQ-8).

    ``value`` 14 is a queens-only set (``queens == count``, VQ-9).

    >>> PlaySet(value=8, count=3, queens=1)  # two 8s and a queen: three 8s
    PlaySet(value=8, count=3, queens=1)
    """

    value: int
    count: int
    queens: int


@dataclass(frozen=True, slots=True)
class LeadHunter:
    """Lead a Vampire Hunter (15 or 20) alone: a Hunter trick (VQ-11)."""

    hunter: int


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass in a normal trick (VQ-7)."""


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Answer a Hunter lead with one card: a number 1-13 or a queen (14) (VQ-12)."""

    value: int


Command = PlaySet | LeadHunter | Pass | PlayCard

# --- events --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A round began: who holds each Hunter, every hand size and the first leader (VQ-4, VQ-5).

    ``shuffle`` is the index of the shuffle used for this deal (public; the order is not).
    ``hunter_pick`` is true when the 15 Hunter's first holder was drawn at random (round 1).
    """

    round: int
    leader: int
    hunter_15_holder: int
    hunter_20_holder: int
    hand_sizes: tuple[int, ...]
    shuffle: int
    hunter_pick: bool


@dataclass(frozen=True, slots=True)
class HandDealt:
    """``seat`` was dealt ``cards`` (number cards and queens, sorted). Only ``seat`` sees them."""

    seat: int
    count: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SetPlayed:
    """``seat`` led or followed with ``count`` cards of ``value``, ``queens`` of them queens."""

    seat: int
    value: int
    count: int
    queens: int


@dataclass(frozen=True, slots=True)
class Passed:
    """``seat`` passed (VQ-7)."""

    seat: int


@dataclass(frozen=True, slots=True)
class HunterLed:
    """``seat`` led a Hunter: every other player must answer with one card (VQ-11, VQ-12)."""

    seat: int
    hunter: int


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """``seat`` answered a Hunter lead with one card (``value`` 14 is a queen)."""

    seat: int
    value: int


@dataclass(frozen=True, slots=True)
class Skipped:
    """``seat`` holds only Hunters and is skipped in this Hunter trick (VQ-13)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TrickWon:
    """``winner`` won the trick and leads next (VQ-10, VQ-14).

    In a Hunter trick ``taken`` lists every card the winner took into hand (VQ-21: public).
    """

    winner: int
    hunter_trick: bool
    taken: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundScored:
    """The round ended (VQ-17): each seat's penalty for the cards left in hand and new totals."""

    round: int
    penalties: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The last round was scored (VQ-19): final totals and ranks (1 = winner; ties share).

    ``end_rule_id`` and ``end_reason`` say why in words, written from the totals and ranks
    (public) when not given: so events stored before these fields say it too.

    >>> GameEnded((12, 7, 7), (3, 1, 1)).end_reason
    'seat 1 and seat 2 share the win with the lowest total after the last round, 7 penalty points'
    """

    totals: tuple[int, ...]
    ranks: tuple[int, ...]
    end_rule_id: str = ""
    end_reason: str = ""

    def __post_init__(self) -> None:
        if not self.end_reason:
            object.__setattr__(self, "end_rule_id", "VQ-19")
            object.__setattr__(self, "end_reason", _end_reason(self.totals, self.ranks))


def _end_reason(totals: tuple[int, ...], ranks: tuple[int, ...]) -> str:
    winners = winners_of(ranks)
    best = totals[winners[0]] if winners and winners[0] < len(totals) else 0
    return (
        f"{winners_text(ranks, 'wins', 'share the win')} with the lowest total after the "
        f"last round, {best} penalty points"
    )


Event = (
    RoundStarted
    | HandDealt
    | SetPlayed
    | Passed
    | HunterLed
    | CardPlayed
    | Skipped
    | TrickWon
    | RoundScored
    | GameEnded
)

# --- view ----------------------------------------------------------------------------------


class TrickKind(IntEnum):
    """What the current trick is. UNSPECIFIED: nothing led yet."""

    UNSPECIFIED = 0
    NORMAL = 1
    HUNTER = 2


class PlayKind(IntEnum):
    UNSPECIFIED = 0
    SET = 1
    PASS = 2
    HUNTER = 3
    CARD = 4
    SKIP = 5


@dataclass(frozen=True, slots=True)
class TrickPlay:
    """One turn of the current trick, in play order."""

    seat: int
    kind: PlayKind
    value: int
    count: int
    queens: int


@dataclass(frozen=True, slots=True)
class VampireQueenView:
    """What one seat (or a spectator) may know now (VQ-20, VQ-21)."""

    round: int
    rounds: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    hunter_15_holder: int
    hunter_20_holder: int
    leader: int
    turn: int | None
    trick_kind: TrickKind
    trick: tuple[TrickPlay, ...]
    lead_count: int
    best_value: int
    best_seat: int | None
    barred_hunters: tuple[int, ...]
    last_penalties: tuple[int, ...]
    totals: tuple[int, ...]
    hunter_tie: str
    hunter_queen: int
