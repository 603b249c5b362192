"""Dracula vs Van Helsing rules (``docs/rules/dracula-vs-van-helsing.md``, DV-1 ... DV-26);
each rule id appears where it is enforced.

A turn is a chain of decisions of the active seat, each with its own legal commands:
``TURN`` (draw, or call the end) -> ``PLACE`` (discard the drawn card or put it into a slot)
-> the discarded card's own choice (``REVEAL_OWN`` 1, ``REVEAL_OPPONENT`` 3, ``SWAP_SLOTS`` 4,
``EXCHANGE_DISTRICT`` 6, ``CHOOSE_TRUMP`` 7). Effects without a choice (2, 5, 8) and effects
that cannot resolve (DV-9) follow in the same batch of events, and so do the end of the turn,
the end of the round, the district-by-district resolution and the next deal.

Knowledge (DV-24, DV-25) is one bit per seat per card, ``seen``: a seat has seen a card when it
was dealt it, drew it, or gave or took it with a 6. Every later move of a card is public (which
slot, which swap, which district), so a seat that has seen a card always knows where it is.
``revealed`` (DV-11, DV-18) is one flag per card for everyone; both follow the card because
they are indexed by card, not by slot, and both are cleared by the next deal (DV-5).

>>> from referee.engine import Table
>>> table = Table.create("dracula-vs-van-helsing", 2, options={"dracula": "1"}, seed=b"x")
>>> table.decisions()  # DV-6: Dracula takes the first turn
(Decision(seat=1, kind='turn', rule_id='DV-7'),)
>>> table.legal_commands(1)  # DV-7: no call before six discards
[Draw()]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, TypeVar, cast

from referee.engine.chance import (
    check_fixed_deck,
    check_fixed_pick,
    deck_for,
    hidden_permutation,
    pick_for,
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
from referee.games.dracula_vs_van_helsing import labels
from referee.games.dracula_vs_van_helsing.model import (
    CARDS,
    COLOURS,
    DECK,
    DISCARDS_TO_CALL,
    DISTRICTS,
    HIDDEN,
    HUMANS,
    ROUNDS,
    START_HP,
    CallEnd,
    Card,
    CardDrawn,
    CardRevealed,
    ChooseTrump,
    Colour,
    Command,
    Comparison,
    DeckTopRevealed,
    DiscardDrawn,
    District,
    DistrictExchanged,
    DistrictResolved,
    DraculaVsVanHelsingView,
    Draw,
    DrawnCardDiscarded,
    DrawnCardPlaced,
    EffectSkipped,
    EndCalled,
    Event,
    ExchangeDistrict,
    GameEnd,
    GameEnded,
    GameStarted,
    PlaceDrawn,
    Rack,
    RevealOpponent,
    RevealOwn,
    Role,
    RoundEnd,
    RoundEnded,
    RoundStarted,
    Slot,
    SlotsDealt,
    SlotsSwapped,
    Step,
    SwapSlots,
    TrumpChanged,
    TurnKind,
    TurnStarted,
    notation_codes,
)

#: Slots dealt to each seat, and cards in the draw deck after the deal (DV-5).
SLOTS = DISTRICTS
DECK_SIZE = len(DECK) - 2 * SLOTS
_DISTRICT_NUMBERS = range(1, DISTRICTS + 1)

#: The effect step a discarded value asks a choice in (DV-10, DV-12, DV-13, DV-15, DV-16).
_EFFECT_STEP = {
    1: Step.REVEAL_OWN,
    3: Step.REVEAL_OPPONENT,
    4: Step.SWAP_SLOTS,
    6: Step.EXCHANGE_DISTRICT,
    7: Step.CHOOSE_TRUMP,
}
_STEP_EFFECT = {step: value for value, step in _EFFECT_STEP.items()}
#: Decision kind and rule of each step (a turn after a call is "last_turn", DV-19).
_DECISION = {
    Step.TURN: ("turn", "DV-7"),
    Step.PLACE: ("place_or_discard", "DV-7"),
    Step.REVEAL_OWN: ("reveal_own", "DV-10"),
    Step.REVEAL_OPPONENT: ("reveal_opponent", "DV-12"),
    Step.SWAP_SLOTS: ("swap_slots", "DV-13"),
    Step.EXCHANGE_DISTRICT: ("exchange_district", "DV-15"),
    Step.CHOOSE_TRUMP: ("choose_trump", "DV-16"),
}
#: (step, active seat, end called) -> the pending decisions. Decisions are asked for twice per
#: command (pending seats, then check_pending); frozen values can be built once.
_DECISIONS: dict[tuple[Step, int, bool], tuple[Decision, ...]] = {
    (step, seat, called): (
        Decision(seat, "last_turn", "DV-19")
        if step is Step.TURN and called
        else Decision(seat, *_DECISION[step]),
    )
    for step in _DECISION
    for seat in (0, 1)
    for called in (False, True)
}
#: Active seat -> the seats pending (DV-6: one seat decides at a time).
_ACTIVE = {0: (0,), 1: (1,)}
#: Commands without fields skip the field check.
_PLAIN = frozenset({Draw, CallEnd, DiscardDrawn})

# Commands are frozen values: build each once (legal_commands runs on every step of a bot).
_DRAW = Draw()
_CALL = CallEnd()
_DISCARD = DiscardDrawn()
_PLACE = tuple(PlaceDrawn(d) for d in _DISTRICT_NUMBERS)
_REVEAL_OWN = tuple(RevealOwn(d) for d in _DISTRICT_NUMBERS)
_REVEAL_OPPONENT = tuple(RevealOpponent(d) for d in _DISTRICT_NUMBERS)
_SWAPS = tuple(SwapSlots(a, b) for a in _DISTRICT_NUMBERS for b in _DISTRICT_NUMBERS if a < b)
_EXCHANGE = tuple(ExchangeDistrict(d) for d in _DISTRICT_NUMBERS)
_TRUMPS = {int(c): ChooseTrump(int(c)) for c in COLOURS}


_T = TypeVar("_T")


def _fast_constructor(cls: type[_T]) -> Callable[..., _T]:
    """A constructor of the frozen slots dataclass ``cls``, with the parameters of its
    ``__init__``: it sets each field's slot through the slot's own descriptor, which is what
    the dataclass's ``__init__`` does through ``object.__setattr__``, without the per-field
    lookups (3x faster for the view's 26 fields, built on every step of a learning agent). It
    is generated from ``fields(cls)``, as dataclasses generates ``__init__``, so it follows the
    class; ``cls`` has no defaults and no ``__post_init__``. Tests compare its views with the
    dataclass's own."""
    found = fields(cast(Any, cls))
    names = [f.name for f in found]
    assert not hasattr(cls, "__post_init__") and all(n.isidentifier() for n in names)
    assert all(f.default is MISSING and f.default_factory is MISSING for f in found)
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls}
    scope.update({f"set_{n}": getattr(cls, n).__set__ for n in names})
    body = "".join(f"    set_{n}(made, {n})\n" for n in names)
    source = f"def make({', '.join(names)}):\n    made = new(cls)\n{body}    return made\n"
    exec(source, scope)  # the source is made from the field names only
    made: Callable[..., _T] = scope["make"]
    return made


# --- the view's prebuilt values (a view is built on every step of a learning agent) ----------

#: Codes index the per-card flags (``revealed``, ``seen``): 0 and the unused codes included.
_CODES = 50


def _slot_table(viewer: Viewer, seat: int) -> tuple[Slot, ...]:
    """Every :class:`Slot` of ``seat``'s rack as ``viewer`` sees it, indexed by
    ``(district_index * 50 + code) * 8 + 2 * seen[code] + revealed[code]``.

    A slot depends on nothing else: its card is shown when revealed or when the viewer has
    seen it (DV-24, DV-25), and it is known to the rack owner's opponent when revealed or seen
    by that opponent (DV-25). Equal slots share one object (values are frozen)."""
    made: dict[Slot, Slot] = {}
    table = []
    for index in range(SLOTS):
        for code in range(_CODES):
            for seen in range(4):  # the two seats' bits
                for revealed in (False, True):
                    visible = revealed or (viewer is not None and bool(seen >> viewer & 1))
                    slot = Slot(
                        district=index + 1,
                        card=CARDS[code] if visible else HIDDEN,
                        revealed=revealed,
                        known_to_opponent=revealed or bool(seen >> (1 - seat) & 1),
                    )
                    table.append(made.setdefault(slot, slot))
    return tuple(table)


#: The slot tables of the two players and of a spectator (None), for racks 0 and 1.
_SLOT_TABLES = {viewer: (_slot_table(viewer, 0), _slot_table(viewer, 1)) for viewer in (None, 0, 1)}
#: Dracula's seat -> the roles of seats 0 and 1 (DV-1).
_ROLES = {
    0: (Role.DRACULA, Role.VAN_HELSING),
    1: (Role.VAN_HELSING, Role.DRACULA),
}


def _rack(
    seat: int,
    role: Role,
    table: tuple[Slot, ...],
    codes: Sequence[int],
    revealed: Sequence[bool],
    seen: Sequence[int],
) -> Rack:
    """A rack's five slots (DV-5) from its slot table; unrolled, it runs on every view. (Racks
    are not cached: keeping thousands of them alive costs the garbage collector more than
    building one costs, measured in the P8 loop.)"""
    a, b, c, d, e = codes
    return _new_rack(
        seat,
        role,
        (
            table[a * 8 + 2 * seen[a] + revealed[a]],
            table[400 + b * 8 + 2 * seen[b] + revealed[b]],
            table[800 + c * 8 + 2 * seen[c] + revealed[c]],
            table[1200 + d * 8 + 2 * seen[d] + revealed[d]],
            table[1600 + e * 8 + 2 * seen[e] + revealed[e]],
        ),
    )


_new_view = _fast_constructor(DraculaVsVanHelsingView)
_new_rack = _fast_constructor(Rack)
_DISTRICT_VIEWS: dict[tuple[int, ...], tuple[District, ...]] = {}
_TRACK_VIEWS: dict[tuple[int, ...], tuple[tuple[Colour, ...], Colour]] = {}


def _districts(vampires: Sequence[int]) -> tuple[District, ...]:
    """The districts' tokens (DV-3, DV-21), one tuple per distribution of the vampires (at
    most 5^5 of them)."""
    key = tuple(vampires)
    found = _DISTRICT_VIEWS.get(key)
    if found is None:
        if len(_DISTRICT_VIEWS) >= 4096:  # only states made by hand go beyond 5^5
            _DISTRICT_VIEWS.clear()
        found = _DISTRICT_VIEWS[key] = tuple(
            District(index + 1, HUMANS - v, v) for index, v in enumerate(key)
        )
    return found


def _track(track: Sequence[int]) -> tuple[tuple[Colour, ...], Colour]:
    """The colour track and the trump (DV-4, DV-16); 24 orders, empty before the start."""
    key = tuple(track)
    found = _TRACK_VIEWS.get(key)
    if found is None:
        if len(_TRACK_VIEWS) >= 4096:
            _TRACK_VIEWS.clear()
        colours = tuple(Colour(c) for c in key)
        found = _TRACK_VIEWS[key] = (colours, colours[0] if colours else Colour.UNSPECIFIED)
    return found


def code_of(card: Card) -> int:
    """The card code (``colour * 10 + value``) of a wire card."""
    return int(card.colour) * 10 + card.value


#: The rules' own card instances (CARDS, alive for good) by identity -> their codes.
_CODE_BY_ID = {id(card): code_of(card) for card in CARDS}


def _codes(cards: Sequence[Card]) -> list[int]:
    """The codes of the cards of an event: by identity for the rules' own instances (the
    events this process makes), by value for others (replayed or decoded ones)."""
    found = list(map(_CODE_BY_ID.get, map(id, cards)))
    if None in found:
        return [code_of(c) for c in cards]
    return cast(list[int], found)


def beats(dracula: int, van_helsing: int, track: Sequence[int]) -> tuple[bool, Comparison]:
    """DV-20: whether Dracula's card beats Van Helsing's, and what decided it.

    ``track`` is the colour order, trump first. Trump beats any other colour; otherwise the
    higher value wins; equal values go to the colour higher on the ladder.

    >>> track = [Colour.RED, Colour.YELLOW, Colour.BLUE, Colour.PURPLE]  # red is trump
    >>> beats(31, 18, track)  # red 1 (trump) against yellow 8
    (True, <Comparison.TRUMP: 1>)
    >>> beats(25, 17, track)  # blue 5 against yellow 7: the higher value
    (False, <Comparison.VALUE: 2>)
    >>> beats(26, 46, track)  # blue 6 against purple 6: blue is higher on the ladder
    (True, <Comparison.LADDER: 3>)
    """
    trump = track[0]
    a_trump = dracula // 10 == trump
    if a_trump != (van_helsing // 10 == trump):
        return a_trump, Comparison.TRUMP
    a, b = dracula % 10, van_helsing % 10
    if a != b:
        return a > b, Comparison.VALUE
    ladder = list(track)
    return ladder.index(dracula // 10) < ladder.index(van_helsing // 10), Comparison.LADDER


@dataclass(slots=True)
class DraculaVsVanHelsingState:
    """The whole table, hidden parts included. Only ``apply`` changes it."""

    config: GameConfig
    #: DV-20: districts in the order they resolve.
    order: tuple[int, ...]
    dracula: int = 0
    round: int = 0
    hp: int = START_HP
    #: vampires[d - 1]: vampire tokens in district d (the rest of its 4 tokens are humans).
    vampires: list[int] = field(default_factory=lambda: [0] * DISTRICTS)
    #: DV-4: colour numbers, trump first, then the ladder strongest to weakest.
    track: list[int] = field(default_factory=list)
    #: slots[seat][d - 1]: the card code facing district d.
    slots: list[list[int]] = field(default_factory=lambda: [[0] * SLOTS, [0] * SLOTS])
    #: The draw deck, top first (DV-26: never shown).
    deck: list[int] = field(default_factory=list)
    pile: list[int] = field(default_factory=list)
    #: revealed[code]: face up for everyone this round (DV-11, DV-18).
    revealed: list[bool] = field(default_factory=lambda: [False] * 50)
    #: seen[code]: bit s set when seat s has seen the card this round (DV-24, DV-25).
    seen: list[int] = field(default_factory=lambda: [0] * 50)
    drawn: int = 0
    active: int = 0
    step: Step = Step.UNSPECIFIED
    turn_kind: TurnKind = TurnKind.UNSPECIFIED
    called_by: int = -1
    #: What the previous round ended with (public), kept for the views of the next round.
    last_round_end: RoundEnd = RoundEnd.UNSPECIFIED
    last_resolution: list[DistrictResolved] = field(default_factory=list)
    last_pile: list[int] = field(default_factory=list)
    last_deck_top: int = 0
    winner: Role = Role.UNSPECIFIED
    #: How the game ended (DV-22 or DV-23), for the rule later commands are refused by.
    end: GameEnd = GameEnd.UNSPECIFIED

    @property
    def van_helsing(self) -> int:
        return 1 - self.dracula

    def visible(self, code: int, viewer: Viewer) -> bool:
        """Whether ``viewer`` may see the card now (DV-24, DV-25)."""
        return self.revealed[code] or (viewer is not None and bool(self.seen[code] >> viewer & 1))


class DraculaVsVanHelsing(Game[DraculaVsVanHelsingState]):
    info = GameInfo(
        type_id="dracula-vs-van-helsing",
        name="Dracula vs Van Helsing",
        min_players=2,  # DV-1
        players_rule="DV-1",
        max_events=5_000,  # five rounds take about 300 events
        max_players=2,
        options=(
            OptionSpec(
                "dracula",
                "random",
                "DV-1: the seat that plays Dracula (the other plays Van Helsing)",
                allowed=("random", "0", "1"),
            ),
            OptionSpec(
                "resolution_order",
                "1-5",
                "DV-20: the order districts are resolved in (where the weather vane points)",
                allowed=("1-5", "5-1"),
            ),
        ),
        rules="dracula-vs-van-helsing.md",
        summary=(
            "Two-player duel over 5 districts: draw, swap and discard cards for their effects; "
            "Dracula turns humans into vampires, Van Helsing drains his HP."
        ),
    )
    command_types = union_members(Command)
    event_types = union_members(Event)
    view_type = DraculaVsVanHelsingView

    # Display text for people, never for parsing (labels.py, View/Event in the protos).
    def command_label(self, command: Any, view: Any) -> str:
        return labels.command_label(command, view)

    def event_text(self, event: Any) -> str:
        return labels.event_text(event)

    # --- setup -------------------------------------------------------------------------------

    def new_state(self, config: GameConfig) -> DraculaVsVanHelsingState:
        if config.deal is not None:
            # Checked here, not at the deal of a later round: a bad deck must fail the setup.
            for index in range(len(config.deal.decks)):
                check_fixed_deck(config, index, DECK, note=f"round {index + 1}, DV-2")
            for index, (n, note) in enumerate(
                ((2, "Dracula's seat, DV-1"), (4, "trump, DV-4"), (3, "DV-4"), (2, "DV-4"))
            ):
                check_fixed_pick(config, index, n, note)
        order = tuple(_DISTRICT_NUMBERS)
        if config.options["resolution_order"] == "5-1":
            order = order[::-1]
        return DraculaVsVanHelsingState(config=config, order=order)

    def start(self, state: DraculaVsVanHelsingState) -> list[Any]:
        config = state.config
        # DV-1: the option names Dracula's seat, or pick 0 draws it.
        option = config.options["dracula"]
        picked = option == "random"
        dracula = pick_for(config, 0, 2) if picked else int(option)
        # DV-4: picks 1-3 draw the track one colour at a time, trump first.
        left = list(COLOURS)
        track = [left.pop(pick_for(config, index, len(left))) for index in (1, 2, 3)]
        track.append(left[0])
        events: list[Any] = [
            GameStarted(dracula, 1 - dracula, picked, tuple(track), state.order),
            *_deal(config, 1),
            TurnStarted(dracula, TurnKind.NORMAL),  # DV-6
        ]
        return events

    # --- deciding ----------------------------------------------------------------------------

    def decisions(self, state: DraculaVsVanHelsingState) -> tuple[Decision, ...]:
        step = state.step
        if step is Step.OVER or step is Step.UNSPECIFIED:
            return ()
        return _DECISIONS[step, state.active, state.called_by >= 0]

    def pending(self, state: DraculaVsVanHelsingState) -> tuple[Seat, ...]:
        # The seats of decisions(): only the active seat is ever asked (runs on every step).
        step = state.step
        if step is Step.OVER or step is Step.UNSPECIFIED:
            return ()
        return _ACTIVE[state.active]

    def decide(self, state: DraculaVsVanHelsingState, seat: Seat, command: Any) -> list[Any]:
        step = state.step
        if seat == state.active and step is not Step.OVER and step is not Step.UNSPECIFIED:
            # The active seat's own decision (what check_pending finds, without the search).
            rule = _DECISIONS[step, seat, state.called_by >= 0][0].rule_id
        else:
            # Once over, a command is refused by the rule that ended the game.
            end_rule = "DV-23" if state.end is GameEnd.ROUNDS else "DV-22"
            rule = self.check_pending(state, seat, end_rule=end_rule).rule_id
        if type(command) not in _PLAIN:
            _check_fields(command, rule)
        if step is Step.TURN:
            return _decide_turn(state, seat, command, rule)
        if step is Step.PLACE:
            return _decide_place(state, seat, command)
        if type(command) not in _EFFECT_COMMANDS[step]:
            raise Rejection(rule, f"now resolve the discarded card's effect: {_ASK[step]}")
        return _EFFECT_DECIDERS[step](state, seat, command)

    # --- applying ----------------------------------------------------------------------------

    def apply(self, state: DraculaVsVanHelsingState, event: Any) -> DraculaVsVanHelsingState:
        _APPLY[type(event)](state, event)
        return state

    # --- what a seat may see and do ----------------------------------------------------------

    def legal_commands(self, state: DraculaVsVanHelsingState, seat: Seat) -> list[Any]:
        step = state.step
        if seat != state.active or step is Step.OVER or step is Step.UNSPECIFIED:
            return []
        if step is Step.TURN:
            if state.called_by < 0 and len(state.pile) >= DISCARDS_TO_CALL:  # DV-7, DV-19
                return [_DRAW, _CALL]
            return [_DRAW]
        if step is Step.PLACE:
            if len(state.pile) >= DISCARDS_TO_CALL:  # DV-8: an 8 may go now
                return [_DISCARD, *_PLACE]
            moves: list[Any] = [] if state.drawn % 10 == 8 else [_DISCARD]
            slots = state.slots[seat]
            moves += [p for p, c in zip(_PLACE, slots, strict=True) if c % 10 != 8]
            return moves
        if step is Step.REVEAL_OWN:
            revealed = state.revealed
            own = state.slots[seat]
            return [r for r, c in zip(_REVEAL_OWN, own, strict=True) if not revealed[c]]
        if step is Step.REVEAL_OPPONENT:
            revealed = state.revealed
            return [
                r
                for r, c in zip(_REVEAL_OPPONENT, state.slots[1 - seat], strict=True)
                if not revealed[c]
            ]
        if step is Step.SWAP_SLOTS:
            return list(_SWAPS)
        if step is Step.EXCHANGE_DISTRICT:
            return list(_EXCHANGE)
        trump = state.track[0]
        return [command for colour, command in _TRUMPS.items() if colour != trump]

    def command_space(self, state: DraculaVsVanHelsingState, seat: Seat) -> list[Any]:
        near = range(0, DISTRICTS + 2)  # 0 and 6 are out of range on purpose
        space: list[Any] = [_DRAW, _CALL, _DISCARD]
        for district in near:
            space += [
                PlaceDrawn(district),
                RevealOwn(district),
                RevealOpponent(district),
                ExchangeDistrict(district),
            ]
        space += [SwapSlots(a, b) for a in near for b in near]
        space += [ChooseTrump(c) for c in range(0, 6)]
        return space

    def view(self, state: DraculaVsVanHelsingState, viewer: Viewer) -> DraculaVsVanHelsingView:
        # Runs on every step of a learning agent (P8), so it reads prebuilt values instead of
        # making a Slot, a District and a Colour per entry: see _slot_table, _districts and
        # _track. What it returns is exactly the value DV-24 ... DV-26 define (tests compare
        # it with a plain per-card construction).
        step = state.step
        dracula = state.dracula
        if viewer is None:
            role = Role.UNSPECIFIED
        else:
            role = Role.DRACULA if viewer == dracula else Role.VAN_HELSING
        revealed, seen = state.revealed, state.seen
        tables = _SLOT_TABLES.get(viewer) or (_slot_table(viewer, 0), _slot_table(viewer, 1))
        roles = _ROLES[dracula]
        racks = (
            _rack(0, roles[0], tables[0], state.slots[0], revealed, seen),
            _rack(1, roles[1], tables[1], state.slots[1], revealed, seen),
        )
        track, trump = _track(state.track)
        deck = state.deck
        drawn = state.drawn if step is Step.PLACE else 0
        # DV-25: the drawn card, for its drawer (seen bit) or everyone once a 2 revealed it.
        drawn_visible = drawn and (
            revealed[drawn] or (viewer is not None and seen[drawn] >> viewer & 1)
        )
        return _new_view(
            round=state.round,
            rounds=ROUNDS,
            dracula=dracula,
            van_helsing=1 - dracula,
            role=role,
            hp=state.hp,
            districts=_districts(state.vampires),
            track=track,
            trump=trump,
            resolution_order=state.order,
            racks=racks,
            deck_size=len(deck),
            deck_top=CARDS[deck[0]] if deck and revealed[deck[0]] else HIDDEN,  # DV-11
            discard_pile=tuple(map(CARDS.__getitem__, state.pile)),  # DV-26
            turn=None if step is Step.OVER else state.active,
            turn_kind=state.turn_kind,
            step=step,
            drawn=CARDS[drawn] if drawn_visible else HIDDEN,
            drawn_revealed=bool(drawn) and revealed[drawn],
            effect=state.pile[-1] % 10 if step in _STEP_EFFECT else 0,
            called_by=state.called_by if state.called_by >= 0 else None,
            last_round_end=state.last_round_end,
            last_resolution=tuple(state.last_resolution),
            last_discard_pile=tuple(map(CARDS.__getitem__, state.last_pile)),
            last_deck_top=CARDS[state.last_deck_top],
            winner=state.winner,
        )

    def chance_steps(self, config: GameConfig, event: Any) -> Sequence[ChanceStep]:
        """DV-5: positions 0-4 are seat 0's slots, 5-9 seat 1's, the rest the deck, drawn
        from the top (the drawer sees the card; everyone when a 2 revealed it, DV-11)."""
        kind = type(event)
        if kind is RoundStarted:
            return (DeckOrder(event.shuffle, tuple(deck_for(config, event.shuffle, DECK))),)
        if kind is SlotsDealt:
            return (CardsTaken(len(event.cards), (event.seat,)),)
        if kind is CardDrawn:
            return (CardsTaken(1, None if event.revealed else (event.seat,)),)
        if kind is DeckTopRevealed:
            return (CardShown(None),)
        return ()

    def redact(self, event: Any, viewer: Viewer) -> Any:
        kind = type(event)
        if kind is RoundStarted:  # DV-26: the deck order is never shown
            return replace(event, deck=()) if event.deck else event
        if kind is SlotsDealt:  # DV-24
            return event if event.seat == viewer else replace(event, cards=())
        if kind is CardDrawn or kind is DrawnCardPlaced:  # DV-25: the drawer only, unless a 2
            if event.revealed or event.seat == viewer:
                return event
            return replace(event, card=HIDDEN)
        if kind is DistrictExchanged and viewer is None:  # DV-25: both players, no one else
            return replace(
                event,
                given=event.given if event.given_revealed else HIDDEN,
                taken=event.taken if event.taken_revealed else HIDDEN,
            )
        return event

    def results(self, state: DraculaVsVanHelsingState) -> tuple[SeatResult, ...] | None:
        """The winner scores 1 and ranks 1, the loser scores 0 and ranks 2 (DV-22, DV-23)."""
        if state.step is not Step.OVER:
            return None
        winner = state.dracula if state.winner is Role.DRACULA else 1 - state.dracula
        return rank_by_score([int(seat == winner) for seat in (0, 1)], lower_wins=False)

    def hidden_variant(
        self, state: DraculaVsVanHelsingState, viewer: Viewer, salt: int
    ) -> DraculaVsVanHelsingState:
        """Deal anew every card ``viewer`` cannot see among the places it may be: the deck
        (its revealed top stays), the slots the viewer has not seen and the drawn card. The
        ``seen`` bits stay with the place, so each seat still knows its own cards."""
        other = self.copy_state(state)
        places: list[tuple[int, int]] = []  # (-1, index) deck, (seat, index) slot, (2, 0) drawn
        codes: list[int] = []
        for index, code in enumerate(state.deck):
            if not state.revealed[code]:
                places.append((-1, index))
                codes.append(code)
        for seat in (0, 1):
            for index, code in enumerate(state.slots[seat]):
                if code and not state.visible(code, viewer):
                    places.append((seat, index))
                    codes.append(code)
        if state.drawn and not state.visible(state.drawn, viewer):
            places.append((2, 0))
            codes.append(state.drawn)
        flags = [state.seen[code] for code in codes]
        groups = [None if where == 2 else where for where, _ in places]  # deck, each row
        for (where, index), code, seen in zip(
            places, hidden_permutation(codes, groups, salt), flags, strict=True
        ):
            if where == -1:
                other.deck[index] = code
            elif where == 2:
                other.drawn = code
            else:
                other.slots[where][index] = code
            other.seen[code] = seen
        return other

    def copy_state(self, state: DraculaVsVanHelsingState) -> DraculaVsVanHelsingState:
        return replace(
            state,
            vampires=list(state.vampires),
            track=list(state.track),
            slots=[list(s) for s in state.slots],
            deck=list(state.deck),
            pile=list(state.pile),
            revealed=list(state.revealed),
            seen=list(state.seen),
            last_resolution=list(state.last_resolution),
            last_pile=list(state.last_pile),
        )


# --- deciding, step by step (reads the state, never changes it) ---------------------------------


def _check_fields(command: Any, rule: str) -> None:
    """Library callers can send anything: every command field is an integer (an IntEnum such
    as a Colour is one too, a bool is not)."""
    for name in getattr(command, "__dataclass_fields__", ()):
        value = getattr(command, name)
        if type(value) is not int and (not isinstance(value, int) or isinstance(value, bool)):
            raise Rejection(
                rule, f"{type(command).__name__}.{name} must be an integer, got {value!r}"
            )


def _district(value: int, rule: str) -> int:
    if not 1 <= value <= DISTRICTS:
        raise Rejection(rule, f"districts are numbered 1-{DISTRICTS}, got {value}")
    return value


def _decide_turn(state: DraculaVsVanHelsingState, seat: int, command: Any, rule: str) -> list[Any]:
    kind = type(command)
    if kind is Draw:
        # The deck is never empty at the start of a turn: a turn that empties it ends the round.
        top = state.deck[0]
        revealed = state.revealed[top]
        return [CardDrawn(seat, CARDS[top], revealed, len(state.deck) - 1)]
    if kind is CallEnd:
        if state.called_by >= 0:
            raise Rejection("DV-19", "the end was already called: this last turn must be a draw")
        if len(state.pile) < DISCARDS_TO_CALL:
            raise Rejection(
                "DV-7",
                f"the end can be called only with at least {DISCARDS_TO_CALL} cards on the "
                f"discard pile; it holds {len(state.pile)}",
            )
        return [EndCalled(seat), TurnStarted(1 - seat, TurnKind.LAST)]
    raise Rejection(rule, "start your turn with Draw (or CallEnd when allowed)")


def _decide_place(state: DraculaVsVanHelsingState, seat: int, command: Any) -> list[Any]:
    kind = type(command)
    drawn = state.drawn
    early = len(state.pile) < DISCARDS_TO_CALL
    own = state.slots[seat]
    if kind is DiscardDrawn:
        if early and drawn % 10 == 8:
            raise _eight_too_early(len(state.pile), "put the drawn 8 into a slot instead")
        events: list[Any] = [DrawnCardDiscarded(seat, CARDS[drawn])]
        return _after_discard(state, seat, drawn, own, events)
    if kind is PlaceDrawn:
        district = _district(command.district, "DV-7")
        old = own[district - 1]
        if early and old % 10 == 8:
            raise _eight_too_early(len(state.pile), "choose another slot")
        events = [DrawnCardPlaced(seat, district, CARDS[drawn], state.revealed[drawn], CARDS[old])]
        after = list(own)
        after[district - 1] = drawn
        return _after_discard(state, seat, old, after, events)
    raise Rejection("DV-7", "you drew a card: DiscardDrawn, or PlaceDrawn into a district")


def _eight_too_early(pile: int, advice: str) -> Rejection:
    return Rejection(
        "DV-8",
        f"an 8 can be discarded only when the discard pile already holds {DISCARDS_TO_CALL} "
        f"cards; it holds {pile}: {advice}",
    )


def _after_discard(
    state: DraculaVsVanHelsingState,
    seat: int,
    discarded: int,
    own: Sequence[int],
    events: list[Any],
) -> list[Any]:
    """DV-9: the discarded card's effect. Effects with a choice wait for it (the events end
    here); the others resolve now, or are skipped when they cannot."""
    value = discarded % 10
    revealed = state.revealed
    if value == 1:  # DV-10
        if any(not revealed[c] for c in own):
            return events
        events.append(EffectSkipped(seat, 1, "all your cards are already revealed (DV-9)"))
    elif value == 3:  # DV-12
        if any(not revealed[c] for c in state.slots[1 - seat]):
            return events
        events.append(EffectSkipped(seat, 3, "all the opponent's cards are revealed (DV-9)"))
    elif value == 2:  # DV-11
        if state.deck:
            events.append(DeckTopRevealed(seat, CARDS[state.deck[0]]))
        else:
            events.append(EffectSkipped(seat, 2, "the deck is empty (DV-9)"))
    elif value in _EFFECT_STEP:  # 4, 6, 7 can always resolve
        return events
    slots = [own, state.slots[1 - seat]] if seat == 0 else [state.slots[0], own]
    events.extend(_finish_turn(state, seat, value, slots, state.track))
    return events


def _decide_reveal_own(state: DraculaVsVanHelsingState, seat: int, command: Any) -> list[Any]:
    district = _district(command.district, "DV-10")
    code = state.slots[seat][district - 1]
    if state.revealed[code]:
        raise Rejection("DV-10", f"your card in district {district} is already revealed")
    events: list[Any] = [CardRevealed(seat, seat, district, CARDS[code])]
    return events + _finish_turn(state, seat, 1, state.slots, state.track)


def _decide_reveal_opponent(state: DraculaVsVanHelsingState, seat: int, command: Any) -> list[Any]:
    district = _district(command.district, "DV-12")
    opponent = 1 - seat
    code = state.slots[opponent][district - 1]
    if state.revealed[code]:
        raise Rejection("DV-12", f"the opponent's card in district {district} is already revealed")
    events: list[Any] = [CardRevealed(seat, opponent, district, CARDS[code])]
    return events + _finish_turn(state, seat, 3, state.slots, state.track)


def _decide_swap(state: DraculaVsVanHelsingState, seat: int, command: Any) -> list[Any]:
    first = _district(command.first, "DV-13")
    second = _district(command.second, "DV-13")
    if first >= second:
        raise Rejection(
            "DV-13", f"name two different districts, the lower first (got {first}, {second})"
        )
    own = list(state.slots[seat])
    own[first - 1], own[second - 1] = own[second - 1], own[first - 1]
    slots = [own, state.slots[1]] if seat == 0 else [state.slots[0], own]
    events: list[Any] = [SlotsSwapped(seat, first, second)]
    return events + _finish_turn(state, seat, 4, slots, state.track)


def _decide_exchange(state: DraculaVsVanHelsingState, seat: int, command: Any) -> list[Any]:
    district = _district(command.district, "DV-15")
    index = district - 1
    given, taken = state.slots[seat][index], state.slots[1 - seat][index]
    revealed = state.revealed
    slots = [list(state.slots[0]), list(state.slots[1])]
    slots[seat][index], slots[1 - seat][index] = taken, given
    events: list[Any] = [
        DistrictExchanged(
            seat, district, CARDS[given], revealed[given], CARDS[taken], revealed[taken]
        )
    ]
    return events + _finish_turn(state, seat, 6, slots, state.track)


def _decide_trump(state: DraculaVsVanHelsingState, seat: int, command: Any) -> list[Any]:
    colour = command.colour
    if colour not in _TRUMPS:
        raise Rejection("DV-16", f"colours are 1 yellow, 2 blue, 3 red, 4 purple; got {colour}")
    track = list(state.track)
    if colour == track[0]:
        raise Rejection("DV-16", f"{Colour(colour).name.lower()} is already trump: name another")
    # DV-16: the chosen colour and the trump token swap places; the other two stay.
    position = track.index(colour)
    track[0], track[position] = colour, track[0]
    events: list[Any] = [TrumpChanged(seat, Colour(colour), tuple(Colour(c) for c in track))]
    return events + _finish_turn(state, seat, 7, state.slots, track)


_EFFECT_DECIDERS = {
    Step.REVEAL_OWN: _decide_reveal_own,
    Step.REVEAL_OPPONENT: _decide_reveal_opponent,
    Step.SWAP_SLOTS: _decide_swap,
    Step.EXCHANGE_DISTRICT: _decide_exchange,
    Step.CHOOSE_TRUMP: _decide_trump,
}
_EFFECT_COMMANDS: dict[Step, tuple[type, ...]] = {
    Step.REVEAL_OWN: (RevealOwn,),
    Step.REVEAL_OPPONENT: (RevealOpponent,),
    Step.SWAP_SLOTS: (SwapSlots,),
    Step.EXCHANGE_DISTRICT: (ExchangeDistrict,),
    Step.CHOOSE_TRUMP: (ChooseTrump,),
}
_ASK = {
    Step.REVEAL_OWN: "the 1 reveals one of your unrevealed cards (RevealOwn)",
    Step.REVEAL_OPPONENT: "the 3 reveals one of the opponent's unrevealed cards (RevealOpponent)",
    Step.SWAP_SLOTS: "the 4 swaps two of your cards (SwapSlots)",
    Step.EXCHANGE_DISTRICT: "the 6 exchanges the cards of one district (ExchangeDistrict)",
    Step.CHOOSE_TRUMP: "the 7 makes another colour trump (ChooseTrump)",
}


def _finish_turn(
    state: DraculaVsVanHelsingState,
    seat: int,
    effect: int,
    slots: Sequence[Sequence[int]],
    track: Sequence[int],
) -> list[Any]:
    """The end of a turn whose effect has resolved: what comes next (DV-6, DV-14, DV-17,
    DV-19). ``slots`` and ``track`` are as the turn left them (the state does not have the
    turn's events applied yet)."""
    if effect == 8:  # DV-17: at once, no further turn for anyone
        return _end_round(state, RoundEnd.EIGHT, slots, track)
    if not state.deck:  # DV-19 (c): the deck ran out; a 5 grants nothing
        events: list[Any] = []
        if effect == 5:
            events.append(
                EffectSkipped(seat, 5, "the deck is empty: the round ends, no extra turn (DV-19)")
            )
        return events + _end_round(state, RoundEnd.DECK_EMPTY, slots, track)
    if effect == 5:  # DV-14, also during the last turn after a call (DV-19 ruling)
        return [TurnStarted(seat, TurnKind.EXTRA)]
    if state.called_by >= 0:  # DV-19 (a): that was the last turn after the call
        return _end_round(state, RoundEnd.CALL, slots, track)
    return [TurnStarted(1 - seat, TurnKind.NORMAL)]  # DV-6


def _end_round(
    state: DraculaVsVanHelsingState,
    reason: RoundEnd,
    slots: Sequence[Sequence[int]],
    track: Sequence[int],
) -> list[Any]:
    """DV-20 ... DV-23: reveal everything, resolve district by district (stopping as soon as
    the game is decided), then deal the next round or end the game."""
    dracula, van_helsing = state.dracula, 1 - state.dracula
    ours, theirs = slots[dracula], slots[van_helsing]
    events: list[Any] = [
        RoundEnded(
            state.round,
            reason,
            tuple(CARDS[c] for c in ours),
            tuple(CARDS[c] for c in theirs),
        )
    ]
    hp = state.hp
    vampires = list(state.vampires)
    for district in state.order:
        index = district - 1
        dracula_wins, comparison = beats(ours[index], theirs[index], track)
        if dracula_wins:  # DV-21: a human there becomes a vampire
            vampires[index] += 1
        else:  # DV-21: Dracula loses 1 HP
            hp -= 1
        events.append(
            DistrictResolved(
                district,
                CARDS[ours[index]],
                CARDS[theirs[index]],
                Role.DRACULA if dracula_wins else Role.VAN_HELSING,
                comparison,
                HUMANS - vampires[index],
                vampires[index],
                hp,
            )
        )
        # DV-22: checked after each district; later districts are not resolved.
        if vampires[index] == HUMANS:
            events.append(
                GameEnded(Role.DRACULA, dracula, GameEnd.VAMPIRES, state.round, district, hp)
            )
            return events
        if hp == 0:
            events.append(
                GameEnded(Role.VAN_HELSING, van_helsing, GameEnd.NO_HP, state.round, 0, hp)
            )
            return events
    if state.round >= ROUNDS:  # DV-23: Dracula survived the last round
        events.append(GameEnded(Role.DRACULA, dracula, GameEnd.ROUNDS, state.round, 0, hp))
        return events
    events.extend(_deal(state.config, state.round + 1))
    events.append(TurnStarted(dracula, TurnKind.NORMAL))  # DV-6: Dracula opens every round
    return events


def _deal(config: GameConfig, round_no: int) -> list[Any]:
    """DV-5: shuffle the 32 cards; 5 to each seat by district, the remaining 22 are the deck.
    Shuffle ``round - 1`` (the fixed deal's ``decks[round - 1]``)."""
    codes = notation_codes()
    order = [codes[text] for text in deck_for(config, round_no - 1, DECK)]
    cards = [CARDS[c] for c in order]
    return [
        RoundStarted(round_no, round_no - 1, DECK_SIZE, tuple(cards[2 * SLOTS :])),
        SlotsDealt(0, tuple(cards[:SLOTS])),
        SlotsDealt(1, tuple(cards[SLOTS : 2 * SLOTS])),
    ]


# --- event handlers (the only code that changes a state) ----------------------------------------


def _apply_game_started(state: DraculaVsVanHelsingState, e: GameStarted) -> None:
    state.dracula = e.dracula
    state.track = [int(c) for c in e.track]


def _apply_round_started(state: DraculaVsVanHelsingState, e: RoundStarted) -> None:
    state.round = e.round
    state.deck = _codes(e.deck)
    state.pile = []
    state.revealed = [False] * 50  # DV-5: reveals do not carry over
    state.seen = [0] * 50
    state.drawn = 0
    state.called_by = -1


def _apply_slots_dealt(state: DraculaVsVanHelsingState, e: SlotsDealt) -> None:
    codes = _codes(e.cards)
    state.slots[e.seat] = codes
    bit = 1 << e.seat
    for code in codes:
        state.seen[code] |= bit


def _apply_turn_started(state: DraculaVsVanHelsingState, e: TurnStarted) -> None:
    state.active = e.seat
    state.step = Step.TURN
    state.turn_kind = e.kind


def _apply_end_called(state: DraculaVsVanHelsingState, e: EndCalled) -> None:
    state.called_by = e.seat
    state.step = Step.UNSPECIFIED


def _apply_card_drawn(state: DraculaVsVanHelsingState, e: CardDrawn) -> None:
    code = state.deck.pop(0)
    state.drawn = code
    state.seen[code] |= 1 << e.seat
    state.step = Step.PLACE


def _apply_drawn_card_discarded(state: DraculaVsVanHelsingState, e: DrawnCardDiscarded) -> None:
    code = state.drawn
    state.pile.append(code)
    state.drawn = 0
    state.step = _EFFECT_STEP.get(code % 10, Step.UNSPECIFIED)


def _apply_drawn_card_placed(state: DraculaVsVanHelsingState, e: DrawnCardPlaced) -> None:
    own = state.slots[e.seat]
    old = own[e.district - 1]
    own[e.district - 1] = state.drawn
    state.pile.append(old)
    state.drawn = 0
    state.step = _EFFECT_STEP.get(old % 10, Step.UNSPECIFIED)


def _apply_card_revealed(state: DraculaVsVanHelsingState, e: CardRevealed) -> None:
    state.revealed[state.slots[e.owner][e.district - 1]] = True
    state.step = Step.UNSPECIFIED


def _apply_deck_top_revealed(state: DraculaVsVanHelsingState, e: DeckTopRevealed) -> None:
    state.revealed[state.deck[0]] = True


def _apply_slots_swapped(state: DraculaVsVanHelsingState, e: SlotsSwapped) -> None:
    own = state.slots[e.seat]
    a, b = e.first - 1, e.second - 1
    own[a], own[b] = own[b], own[a]
    state.step = Step.UNSPECIFIED


def _apply_district_exchanged(state: DraculaVsVanHelsingState, e: DistrictExchanged) -> None:
    index = e.district - 1
    mine, theirs = state.slots[e.seat], state.slots[1 - e.seat]
    mine[index], theirs[index] = theirs[index], mine[index]
    # DV-25: both cards are now known to their old and their new owner, i.e. to both seats.
    state.seen[mine[index]] = state.seen[theirs[index]] = 0b11
    state.step = Step.UNSPECIFIED


def _apply_trump_changed(state: DraculaVsVanHelsingState, e: TrumpChanged) -> None:
    state.track = [int(c) for c in e.track]
    state.step = Step.UNSPECIFIED


def _apply_effect_skipped(state: DraculaVsVanHelsingState, e: EffectSkipped) -> None:
    state.step = Step.UNSPECIFIED


def _apply_round_ended(state: DraculaVsVanHelsingState, e: RoundEnded) -> None:
    deck = state.deck
    state.last_deck_top = deck[0] if deck and state.revealed[deck[0]] else 0
    for own in state.slots:  # DV-20: all cards are revealed
        for code in own:
            state.revealed[code] = True
    state.last_round_end = e.reason
    state.last_resolution = []
    state.last_pile = list(state.pile)
    state.step = Step.UNSPECIFIED


def _apply_district_resolved(state: DraculaVsVanHelsingState, e: DistrictResolved) -> None:
    state.vampires[e.district - 1] = e.vampires
    state.hp = e.hp
    state.last_resolution.append(e)


def _apply_game_ended(state: DraculaVsVanHelsingState, e: GameEnded) -> None:
    state.winner = e.winner
    state.end = e.reason
    state.step = Step.OVER


_APPLY: dict[type, Any] = {
    GameStarted: _apply_game_started,
    RoundStarted: _apply_round_started,
    SlotsDealt: _apply_slots_dealt,
    TurnStarted: _apply_turn_started,
    EndCalled: _apply_end_called,
    CardDrawn: _apply_card_drawn,
    DrawnCardDiscarded: _apply_drawn_card_discarded,
    DrawnCardPlaced: _apply_drawn_card_placed,
    CardRevealed: _apply_card_revealed,
    DeckTopRevealed: _apply_deck_top_revealed,
    SlotsSwapped: _apply_slots_swapped,
    DistrictExchanged: _apply_district_exchanged,
    TrumpChanged: _apply_trump_changed,
    EffectSkipped: _apply_effect_skipped,
    RoundEnded: _apply_round_ended,
    DistrictResolved: _apply_district_resolved,
    GameEnded: _apply_game_ended,
}
