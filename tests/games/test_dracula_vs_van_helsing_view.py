"""Dracula vs Van Helsing's view against a plain construction of DV-24 ... DV-26.

``DraculaVsVanHelsing.view`` shares the state's public part between the viewers of a state
(built once per state, dropped by ``apply``) and the immutable tuples the state keeps (districts,
track, the last round's results). :func:`reference_view` below is the view written out the
slow, obvious way, every entry built anew, one :class:`Slot` and one visibility check per card;
the two must give equal values for every viewer in every state a game goes through (on the live
table too, where the shared part must follow every event), in the hidden variants of those
states (the DV-25 leak property), and in states no game reaches.
"""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import Table
from referee.engine.game import Viewer
from referee.games.dracula_vs_van_helsing.model import (
    CARDS,
    CODES,
    DISTRICTS,
    HIDDEN,
    HUMANS,
    ROUNDS,
    Colour,
    District,
    DraculaVsVanHelsingView,
    Rack,
    Role,
    Slot,
    Step,
)
from referee.games.dracula_vs_van_helsing.rules import (
    DraculaVsVanHelsing,
    DraculaVsVanHelsingState,
)
from referee.games.dracula_vs_van_helsing.state import code_of

GAME = "dracula-vs-van-helsing"
EFFECT_STEPS = {
    Step.REVEAL_OWN,
    Step.REVEAL_OPPONENT,
    Step.SWAP_SLOTS,
    Step.EXCHANGE_DISTRICT,
    Step.CHOOSE_TRUMP,
}
PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def visible(state: DraculaVsVanHelsingState, code: int, viewer: Viewer) -> bool:
    """DV-24, DV-25: face up for everyone (DV-18), or seen by the viewer."""
    return state.revealed[code] or (viewer is not None and bool(state.seen[code] >> viewer & 1))


def reference_view(state: DraculaVsVanHelsingState, viewer: Viewer) -> DraculaVsVanHelsingView:
    """The view as DV-24 ... DV-26 describe it, entry by entry."""
    step = state.step
    dracula = state.dracula
    role = (
        Role.UNSPECIFIED
        if viewer is None
        else Role.DRACULA
        if viewer == dracula
        else Role.VAN_HELSING
    )
    racks = []
    for seat in (0, 1):
        slots = tuple(
            Slot(
                district=index + 1,
                card=CARDS[code] if visible(state, code, viewer) else HIDDEN,
                revealed=state.revealed[code],
                known_to_opponent=state.revealed[code] or bool(state.seen[code] >> (1 - seat) & 1),
            )
            for index, code in enumerate(state.slots[seat])
        )
        racks.append(Rack(seat, Role.DRACULA if seat == dracula else Role.VAN_HELSING, slots))
    deck = state.deck
    drawn = state.drawn if step is Step.PLACE else 0
    return DraculaVsVanHelsingView(
        round=state.round,
        rounds=ROUNDS,
        dracula=dracula,
        van_helsing=1 - dracula,
        role=role,
        hp=state.hp,
        districts=tuple(
            District(i + 1, HUMANS - d.vampires, d.vampires) for i, d in enumerate(state.districts)
        ),
        track=tuple(Colour(c) for c in state.track),
        trump=Colour(state.track[0]) if state.track else Colour.UNSPECIFIED,
        resolution_order=state.order,
        racks=tuple(racks),
        deck_size=len(deck),
        deck_top=CARDS[deck[0]] if deck and state.revealed[deck[0]] else HIDDEN,
        discard_pile=tuple(CARDS[c] for c in state.pile),
        turn=None if step is Step.OVER else state.active,
        turn_kind=state.turn_kind,
        step=step,
        drawn=CARDS[drawn] if drawn and visible(state, drawn, viewer) else HIDDEN,
        drawn_revealed=bool(drawn) and state.revealed[drawn],
        effect=state.pile[-1] % 10 if step in EFFECT_STEPS else 0,
        called_by=state.called_by if state.called_by >= 0 else None,
        last_round_end=state.last_round_end,
        last_resolution=tuple(state.last_resolution),
        last_discard_pile=tuple(CARDS[code_of(c)] for c in state.last_pile),
        last_deck_top=CARDS[state.last_deck_top],
        winner=state.winner,
    )


def states_of_a_game(seed: int, options: dict[str, str]) -> list[DraculaVsVanHelsingState]:
    """Every state of one game played with random legal commands, the start included."""
    table: Table[Any] = Table.create(GAME, 2, options=options, seed=f"view-{seed}".encode())
    game = table.game
    rng = random.Random(seed)
    states = [game.copy_state(table.state)]
    while table.results() is None:
        seat = table.pending()[0]
        table.submit(seat, rng.choice(table.legal_commands(seat)))
        states.append(game.copy_state(table.state))
    return states


@PROPERTY
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    dracula=st.sampled_from(["0", "1"]),
    order=st.sampled_from(["1-5", "5-1"]),
)
def test_dv24_to_dv26_view_equals_the_plain_construction(
    seed: int, dracula: str, order: str
) -> None:
    """DV-24, DV-25, DV-26: at every step of a game, for both seats and a spectator, the view
    is the plain per-card one; so are the views of the hidden variants (DV-25), which equal
    the state's own view (nothing hidden leaks through the shared parts)."""
    game = DraculaVsVanHelsing()
    states = states_of_a_game(seed, {"dracula": dracula, "resolution_order": order})
    for number, state in enumerate(states):
        for viewer in (0, 1, None):
            view = game.view(state, viewer)
            reference = reference_view(state, viewer)
            assert view == reference
            if number % 11 == 0:  # a plain value, whatever it shares with other views
                assert hash(view) == hash(reference)
                assert pickle.loads(pickle.dumps(view)) == copy.deepcopy(view) == reference
                assert repr(view) == repr(reference)
            if number % 7 == 0:  # the variants are slow to make: a sample of the states
                variant = game.hidden_variant(state, viewer, salt=number)
                assert game.view(variant, viewer) == view == reference_view(variant, viewer)


@PROPERTY
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_dv24_live_views_follow_every_event(seed: int) -> None:
    """DV-24 ... DV-26 on the live table: the public part shared by the viewers of a state is
    dropped by every event, so each view after a command is the plain one of the new state."""
    table: Table[Any] = Table.create(GAME, 2, seed=f"live-{seed}".encode())
    rng = random.Random(seed)
    while True:
        for viewer in (1, None, 0):
            assert table.view(viewer).game == reference_view(table.state, viewer)
        if table.results() is not None:
            break
        seat = table.pending()[0]
        table.submit(seat, rng.choice(table.legal_commands(seat)))


@PROPERTY
@given(
    flags=st.lists(
        st.tuples(st.booleans(), st.integers(min_value=0, max_value=3)),
        min_size=len(CODES),
        max_size=len(CODES),
    ),
    slots=st.permutations(CODES).map(lambda codes: [list(codes[:5]), list(codes[5:10])]),
    vampires=st.lists(st.integers(min_value=0, max_value=HUMANS), min_size=5, max_size=5),
    viewer=st.sampled_from([0, 1, None, 2]),
)
def test_dv25_view_of_any_flags_equals_the_plain_construction(
    flags: list[tuple[bool, int]], slots: list[list[int]], vampires: list[int], viewer: Viewer
) -> None:
    """DV-25: every combination of the per-card flags (revealed, seen by seat 0 and/or 1) in
    every slot, also those no game reaches, and a viewer that holds no seat (2): the slot
    racks agree with the per-card check."""
    game = DraculaVsVanHelsing()
    table: Table[Any] = Table.create(GAME, 2, seed=b"flags")
    state = game.copy_state(table.state)
    state.slots = slots
    state.districts = tuple(District(i + 1, HUMANS - v, v) for i, v in enumerate(vampires))
    for code, (revealed, seen) in zip(CODES, flags, strict=True):
        state.revealed[code] = revealed
        state.seen[code] = seen
    assert len(state.slots[0]) == DISTRICTS
    assert game.view(state, viewer) == reference_view(state, viewer)
