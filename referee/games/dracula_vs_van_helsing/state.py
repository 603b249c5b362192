"""Dracula vs Van Helsing: the state of a table, hidden parts included (only :mod:`.apply`
changes it).

Knowledge (DV-24, DV-25) is one bit per seat per card, ``seen``: a seat has seen a card when it
was dealt it, drew it, or gave or took it with a 6. Every later move of a card is public (which
slot, which swap, which district), so a seat that has seen a card always knows where it is.
``revealed`` (DV-11, DV-18) is one flag per card for everyone; both follow the card because
they are indexed by card code, not by slot, and both are cleared by the next deal (DV-5).

The parts every viewer sees alike and that change seldom (the districts, the colour track, the
last round's resolution and discard pile) are kept as the view's own immutable values, so a
view shares them instead of building them again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.engine.game import GameConfig, Viewer
from referee.games.dracula_vs_van_helsing.model import (
    CARDS,
    DECK,
    DISTRICTS,
    HUMANS,
    START_HP,
    Card,
    Colour,
    District,
    DistrictResolved,
    GameEnd,
    GameEnded,
    Rack,
    Role,
    RoundEnd,
    Step,
    TurnKind,
)

#: Slots dealt to each seat, and cards in the draw deck after the deal (DV-5).
SLOTS = DISTRICTS
DECK_SIZE = len(DECK) - 2 * SLOTS
DISTRICT_NUMBERS = range(1, DISTRICTS + 1)
#: Card codes index the per-card flags (``revealed``, ``seen``): 0 and the unused codes too.
CODE_RANGE = 50

#: The effect step a discarded value asks a choice in (DV-10, DV-12, DV-13, DV-15, DV-16).
EFFECT_STEP = {
    1: Step.REVEAL_OWN,
    3: Step.REVEAL_OPPONENT,
    4: Step.SWAP_SLOTS,
    6: Step.EXCHANGE_DISTRICT,
    7: Step.CHOOSE_TRUMP,
}
#: DV-3: every district starts with 4 humans and no vampire.
START_DISTRICTS = tuple(District(d, HUMANS, 0) for d in DISTRICT_NUMBERS)
#: Wire card -> card code (``colour * 10 + value``), for the cards of events.
CODE_OF_CARD: dict[Card, int] = {card: code for code, card in enumerate(CARDS) if card.value}


def code_of(card: Card) -> int:
    """The card code (``colour * 10 + value``) of a wire card."""
    return int(card.colour) * 10 + card.value


@dataclass
class DraculaVsVanHelsingState:
    """The whole table, hidden parts included. Only ``apply`` changes it."""

    config: GameConfig
    #: DV-20: districts in the order they resolve.
    order: tuple[int, ...]
    dracula: int = 0
    round: int = 0
    hp: int = START_HP
    #: DV-3, DV-21: each district's humans and vampires, by district 1-5 (as the view shows).
    districts: tuple[District, ...] = START_DISTRICTS
    #: DV-4: trump first, then the ladder strongest to weakest (as the view shows).
    track: tuple[Colour, ...] = ()
    #: slots[seat][d - 1]: the card code facing district d.
    slots: list[list[int]] = field(default_factory=lambda: [[0] * SLOTS, [0] * SLOTS])
    #: The draw deck, top first (DV-26: never shown).
    deck: list[int] = field(default_factory=list)
    #: The discard pile, oldest first: a tuple, which a copy shares (a search table copies the
    #: state at every step).
    pile: tuple[int, ...] = ()
    #: revealed[code]: face up for everyone this round (DV-11, DV-18).
    revealed: list[bool] = field(default_factory=lambda: [False] * CODE_RANGE)
    #: seen[code]: bit s set when seat s has seen the card this round (DV-24, DV-25).
    seen: list[int] = field(default_factory=lambda: [0] * CODE_RANGE)
    drawn: int = 0
    active: int = 0
    step: Step = Step.UNSPECIFIED
    turn_kind: TurnKind = TurnKind.UNSPECIFIED
    called_by: int = -1
    #: What the previous round ended with (public), kept for the views of the next round.
    last_round_end: RoundEnd = RoundEnd.UNSPECIFIED
    last_resolution: tuple[DistrictResolved, ...] = ()
    last_pile: tuple[Card, ...] = ()
    last_deck_top: int = 0
    winner: Role = Role.UNSPECIFIED
    #: How the game ended (DV-22 or DV-23), for the rule later commands are refused by.
    end: GameEnd = GameEnd.UNSPECIFIED
    #: The event that ended the game (its rule and reason in words, for ``Game.ending``).
    ended: GameEnded | None = None
    #: The view's parts every viewer of this state shares (:func:`.view.public`): built by
    #: the first view of the state, dropped by ``apply``; a copy starts without.
    #: (A factory, not a default: a compiled class has no class attribute to read it from.)
    public: Any = field(default_factory=lambda: None, init=False, repr=False, compare=False)
    #: racks[seat][viewer]: seat's rack as the viewer saw it (:func:`.view.rack`), kept from
    #: state to state until an event that can change that rack (a turn changes one rack at
    #: most), which ``apply`` drops it for; a copy starts without.
    racks: tuple[dict[Viewer, Rack], dict[Viewer, Rack]] = field(
        default_factory=lambda: ({}, {}), init=False, repr=False, compare=False
    )

    @property
    def van_helsing(self) -> int:
        return 1 - self.dracula

    def visible(self, code: int, viewer: Viewer) -> bool:
        """Whether ``viewer`` may see the card now (DV-24, DV-25)."""
        return self.revealed[code] or (viewer is not None and bool(self.seen[code] >> viewer & 1))


def copy_state(state: DraculaVsVanHelsingState) -> DraculaVsVanHelsingState:
    """A deep, independent copy: the immutable values (the tuples among them) shared, every
    mutable container copied; the view's parts kept by the state start anew. Field by field on
    a new object, not through ``__init__``: a search table copies the state at every step, and
    the compiled build reads and sets each field in a C struct (``tests/engine/test_search.py``
    checks every field is copied)."""
    new = DraculaVsVanHelsingState.__new__(DraculaVsVanHelsingState)
    new.config = state.config
    new.order = state.order
    new.dracula = state.dracula
    new.round = state.round
    new.hp = state.hp
    new.districts = state.districts
    new.track = state.track
    new.slots = list(map(list.copy, state.slots))
    new.deck = state.deck.copy()
    new.pile = state.pile
    new.revealed = state.revealed.copy()
    new.seen = state.seen.copy()
    new.drawn = state.drawn
    new.active = state.active
    new.step = state.step
    new.turn_kind = state.turn_kind
    new.called_by = state.called_by
    new.last_round_end = state.last_round_end
    new.last_resolution = state.last_resolution
    new.last_pile = state.last_pile
    new.last_deck_top = state.last_deck_top
    new.winner = state.winner
    new.end = state.end
    new.ended = state.ended
    new.public = None
    new.racks = ({}, {})
    return new
