"""Per-card commitments and openings (docs/fairness.md section 6) on every game, in the engine.

Properties, from hypothesis-chosen seeds and random legal play:

* every opening proves its card against the root published for its shuffle, and that root
  came before the card left the deck (in an earlier event);
* an opening addressed to a viewer opens only a card that the viewer's own redacted events of
  that batch show (it opens nothing the viewer may not see), and a viewer gets no opening
  addressed to another;
* two games whose first deals differ only in cards a viewer may not see give that viewer the
  same opening batch and view, except for the commitment digests (the Merkle root, the paths
  and the seed commitments): those are hiding commitments, salted with secrets the viewer
  never gets, so they tell it nothing about the cards under them.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import FixedDeal, Game, Table, TableSettings, all_games
from referee.engine.merkle import DeckTree, MerkleTree, Proof, card_salt, leaf, root_of
from referee.engine.openings import CardOpening, CardsOpened, DeckCommitted, OpeningRuns
from referee.engine.table_events import SeedCommitted, TableEvent
from referee.games.dracula_vs_van_helsing.model import CARDS as DV_CARDS
from referee.games.dracula_vs_van_helsing.model import notation_codes
from referee.games.mau_mau_vampires.model import CARDS as MM_CARDS
from referee.games.mau_mau_vampires.model import parse_notation
from referee.games.sleeping_queens.model import NAME_QUEEN, NOTATION_CARD

GAMES = [pytest.param(game, id=game.info.type_id) for game in all_games()]
SHORT = {"vampire-queen": {"rounds": "2"}, "mau-mau-vampires": {"hands": "1"}}
SALT = bytes(range(32))
PROPERTY = settings(
    max_examples=6, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
#: Commands of a random game inspected at most (long Mau Mau Vampires hands).
STEPS = 1500


def as_shown(game_type: str, card: str) -> Any:
    """A card of the fixed-deal notation as the game's events carry it."""
    if game_type == "vampire-queen":
        return 14 if card == "Q" else int(card)
    if game_type == "sleeping-queens":
        return NOTATION_CARD.get(card, NAME_QUEEN.get(card))
    if game_type == "dracula-vs-van-helsing":
        return DV_CARDS[notation_codes()[card]]
    return MM_CARDS[parse_notation(card)]


def values(event: Any) -> list[Any]:
    """Every value an event carries (fields, tuple items), for "does it show this card"."""
    out: list[Any] = []
    for item in dataclasses.fields(event):
        value = getattr(event, item.name)
        for part in value if isinstance(value, tuple) else (value,):
            out.append(part)
    return out


def refereed(game: Game[Any, Any, Any], seed: int, deal: FixedDeal | None = None) -> Table[Any]:
    return Table.create(
        game.info.type_id,
        game.info.min_players,
        SHORT.get(game.info.type_id, {}),
        seed=seed.to_bytes(8, "big"),
        deal=deal,
        settings=TableSettings(card_commitments=True),
        salt=SALT,
    )


def batches(table: Table[Any], rng: random.Random) -> list[list[Any]]:
    """Random legal play; the log cut into its batches (the opening first)."""
    out = [list(table.log)]
    for _ in range(STEPS):
        if table.over:
            break
        seat = rng.choice(table.pending())
        out.append(table.submit(seat, rng.choice(table.legal_commands(seat))))
    return out


@pytest.mark.parametrize("game", GAMES)
@PROPERTY
@given(seed=st.integers(0, 2**64 - 1))
def test_openings_prove_their_cards_and_show_only_the_viewers_own(
    game: Game[Any, Any, Any], seed: int
) -> None:
    table = refereed(game, seed)
    type_id, players = game.info.type_id, game.info.min_players
    roots: dict[int, tuple[int, bytes]] = {}
    opened = 0
    for batch in batches(table, random.Random(seed)):
        for event in batch:
            if isinstance(event, DeckCommitted):
                roots[event.shuffle] = (event.size, bytes.fromhex(event.root))
            if not isinstance(event, CardsOpened):
                continue
            assert event is batch[-1], "the openings close their batch"
            for viewer in [*range(players), None]:
                mine = table.redact(event, viewer)
                assert isinstance(mine, CardsOpened)
                assert all(o.public or viewer in o.seats for o in mine.openings)
                assert [o for o in event.openings if o.for_viewer(viewer)] == list(mine.openings)
                shown = [
                    v
                    for e in batch
                    if not isinstance(e, TableEvent)
                    for v in values(table.redact(e, viewer))
                ]
                for opening in mine.openings:
                    assert as_shown(type_id, opening.card) in shown, (viewer, opening)
            for opening in event.openings:
                size, root = roots[opening.shuffle]  # published in an earlier event
                digest = leaf(opening.shuffle, opening.position, opening.salt, opening.card)
                assert root_of(digest, opening.position, size, opening.path) == root
                opened += 1
    assert opened > 0


def blank(event: Any) -> Any:
    """The event without its commitment digests (hiding commitments, see the module doc)."""
    if isinstance(event, SeedCommitted):
        return SeedCommitted("<commitment>", "<deal commitment>" if event.deal_commitment else "")
    if isinstance(event, DeckCommitted):
        return dataclasses.replace(event, root="<root>")
    if isinstance(event, CardsOpened):
        return CardsOpened(
            tuple(dataclasses.replace(o, proof=Proof(o.salt, ())) for o in event.openings)
        )
    return event


def hidden_positions(table: Table[Any], viewer: int | None) -> list[int]:
    """Positions of shuffle 0 the opening batch opened neither to ``viewer`` nor publicly."""
    shown: set[int] = set()
    for event in table.log:
        if isinstance(event, CardsOpened):
            shown.update(
                o.position for o in event.openings if o.shuffle == 0 and o.for_viewer(viewer)
            )
    size = next(e.size for e in table.log if isinstance(e, DeckCommitted) and e.shuffle == 0)
    return [p for p in range(size) if p not in shown]


def opening_as_seen(table: Table[Any], viewer: int | None) -> tuple[list[Any], Any]:
    return [blank(table.redact(e, viewer)) for e in table.log], table.view(viewer)


def opened_to(table: Table[Any], viewer: int | None) -> list[CardOpening]:
    return [
        o
        for e in table.log
        if isinstance(e, CardsOpened)
        for o in table.redact(e, viewer).openings  # type: ignore[attr-defined]
    ]


@pytest.mark.parametrize("game", GAMES)
@PROPERTY
@given(seed=st.integers(0, 2**64 - 1), shuffle_seed=st.integers(0, 2**32), data=st.data())
def test_a_viewer_learns_nothing_of_the_cards_it_may_not_see(
    game: Game[Any, Any, Any], seed: int, shuffle_seed: int, data: st.DataObject
) -> None:
    players = game.info.min_players
    viewer = data.draw(st.sampled_from([*range(players), None]))
    first = refereed(game, seed)
    order = next(e for e in first.deck_tracker().decks.items() if e[0] == 0)[1].cards
    hidden = hidden_positions(first, viewer)
    cards = list(order)
    moved = [cards[p] for p in hidden]
    random.Random(shuffle_seed).shuffle(moved)
    if len(set(moved)) > 1 and moved == [cards[p] for p in hidden]:
        moved.append(moved.pop(0))  # make sure something changed where it can
    for place, card in zip(hidden, moved, strict=True):
        cards[place] = card
    deal_a = FixedDeal(decks=(tuple(order),))
    deal_b = FixedDeal(decks=(tuple(cards),))
    a, b = refereed(game, seed, deal_a), refereed(game, seed, deal_b)
    assert opening_as_seen(a, viewer) == opening_as_seen(b, viewer)
    # Not vacuous: the other seats' openings differ where their cards do.
    if tuple(cards) != tuple(order):
        everyone = [opened_to(a, s) for s in range(players)]
        differs = [opened_to(b, s) for s in range(players)]
        assert everyone != differs or all(
            p not in {o.position for os in everyone for o in os} for p in hidden
        )


@pytest.mark.parametrize("size", [*range(1, 20), 52, 108, 109])
def test_deck_tree_keeps_the_full_trees_root_and_paths(size: int) -> None:
    """A live game's deck tree keeps only the upper levels (memory per game) and makes the
    two bottom levels of a path again: the same root and every path as the full tree."""
    key = bytes(range(32))
    cards = tuple(f"c{i % 13}" for i in range(size))
    full = MerkleTree([leaf(3, i, card_salt(key, 3, i), c) for i, c in enumerate(cards)])
    small = DeckTree(key, 3, cards)
    assert small.root == full.root
    assert [small.path(i) for i in range(size)] == [full.path(i) for i in range(size)]
    made: dict[int, bytes] = {}  # one step's second-level nodes, lent to its later positions
    assert [small.path(i, made) for i in range(size)] == [full.path(i) for i in range(size)]
    assert sum(len(level) for level in small.upper) < max(size, 2)  # no leaf, no pair kept


def test_a_deck_tree_holds_its_cards_packed_and_an_eighth_of_its_nodes() -> None:
    """A live game keeps every deck tree for its whole life (memory per game): the cards
    as one byte a position and each distinct card once (a tuple of 108 took 904 bytes), the
    levels from the fourth up in one bytes object. The cards read back as they were dealt."""
    import sys

    key = bytes(range(32))
    cards = tuple(random.Random(7).sample([str(v) for v in range(1, 14)] * 8 + ["Q"] * 4, 108))
    tree = DeckTree(key, 0, cards)
    assert tuple(tree.cards) == cards and len(tree.cards) == 108
    assert [tree.cards[p] for p in range(108)] == list(cards)
    held = sys.getsizeof(tree.cards.order) + sys.getsizeof(tree.cards.kinds)
    assert held < 400 < sys.getsizeof(cards)
    # Levels of 108 leaves: 108, 54, 27, 14, 7, 4, 2, 1; kept from the fourth (14) up.
    assert [len(level) for level in tree.upper] == [14, 7, 4, 2, 1]
    assert len(tree.packed) == 32 * 28


def test_a_deck_trackers_seat_masks_take_two_bytes_a_card_and_any_seat() -> None:
    """Who saw which position is one seat mask a position, two bytes each (a list of ints
    took eight: a game in play or read from the store holds one a shuffle); a
    seat past the 15 bits an int16 holds turns that shuffle's masks into ints, and every
    seat is still opened each card once."""
    from array import array

    from referee.engine.game import CardShown, CardsTaken, DeckOrder
    from referee.engine.openings import DeckTracker

    tracker = DeckTracker(bytes(32))
    tracker.step(DeckOrder(0, tuple(f"c{i}" for i in range(10))))
    _, dealt = tracker.step(CardsTaken(3, (2,)))
    assert [o.position for o in dealt] == [0, 1, 2] and isinstance(tracker.opened[0], array)
    assert tracker.opened[0].itemsize == 2
    _, shown = tracker.step(CardShown((2, 20, 40), position=1))
    assert [o.seats for o in shown] == [(20, 40)]  # seat 2 saw it already
    assert isinstance(tracker.opened[0], list)
    assert tracker.step(CardShown((20, 40), position=1))[1] == []  # each seat once
    _, again = tracker.step(CardShown((2, 40, 41), position=0))
    assert [o.seats for o in again] == [(40, 41)]


def test_a_refereed_table_holds_its_decks_and_hands_small() -> None:
    """A refereed Vampire Queen table of 4 just dealt (its state, log and deck trees), under
    tracemalloc: 8.2 KiB with the cards as tuples, the tree's levels from the third up a
    bytes object each and the hands as lists of 15 ints; about 6 KiB with the cards packed,
    the levels from the fourth up in one bytes object and the hands as bytearrays."""
    import gc
    import tracemalloc

    def table(seed: int) -> Table[Any]:
        settings = TableSettings(card_commitments=True)
        return Table.create("vampire-queen", 4, seed=seed.to_bytes(8, "big"), settings=settings)

    table(0)  # imports and first-use tables outside the count
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tables = [table(seed) for seed in range(1, 41)]
        gc.collect()
        each = (tracemalloc.get_traced_memory()[0] - before) / len(tables)
    finally:
        tracemalloc.stop()
    assert each < 7 * 1024, f"{each / 1024:.1f} KiB per refereed table"


def test_the_referees_openings_hold_no_proof_and_equal_the_stored_ones() -> None:
    """A live game keeps its deal's openings in its log for its whole life; the referee's
    hold their deck's tree, not their salts and paths, and a batch's are held as runs (a
    seat's hand: one), not one object each (memory per game): a refereed Vampire Queen
    table of 4 held about 28 KiB traced with the proofs made at the deal, 8.6 KiB as runs.
    Read back from the store (concrete proofs), the events are equal, hash alike and encode
    to the same bytes, and so does every viewer's redaction of them."""
    import gc
    import tracemalloc

    from referee import codec
    from referee.v1 import referee_pb2 as pb

    def table(seed: int) -> Table[Any]:
        settings = TableSettings(card_commitments=True)
        return Table.create("vampire-queen", 4, seed=seed.to_bytes(8, "big"), settings=settings)

    table(0)  # imports and first-use tables outside the count
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tables = [table(seed) for seed in range(1, 41)]
        gc.collect()
        each = (tracemalloc.get_traced_memory()[0] - before) / len(tables)
    finally:
        tracemalloc.stop()
    assert each < 10 * 1024, f"{each / 1024:.1f} KiB per refereed table"

    for event in tables[0].log:
        wire = codec.event_bytes("vampire-queen", event, 1)
        stored = codec.event_from_proto(pb.Event.FromString(wire))
        assert stored == event and hash(stored) == hash(event)
        assert codec.event_bytes("vampire-queen", stored, 1) == wire
        for viewer in (None, 0, 1, 2, 3):
            mine, theirs = tables[0].redact(event, viewer), tables[0].redact(stored, viewer)
            assert mine == theirs and hash(mine) == hash(theirs)
            assert codec.event_bytes("vampire-queen", mine, 1) == codec.event_bytes(
                "vampire-queen", theirs, 1
            )
    opened = next(e for e in tables[0].log if isinstance(e, CardsOpened))
    assert len(opened.openings) == 52
    assert all(isinstance(o.salt, bytes) and len(o.salt) == 32 for o in opened.openings)
    assert isinstance(opened.held, OpeningRuns) and len(opened.held.runs) == 4  # a run a seat
    stored = codec.event_from_proto(
        pb.Event.FromString(codec.event_bytes("vampire-queen", opened, 1))
    )
    assert isinstance(stored, CardsOpened) and isinstance(stored.held, tuple)
    assert all(type(o.proof) is Proof for o in stored.openings)


def test_the_text_of_the_referees_openings_makes_no_proof() -> None:
    """Every viewer's copy of a deal's openings carries a line of text ("the referee proved
    13 cards ..."): it counts the runs' positions rather than making each card's salt and
    Merkle path (22 hashes a card) only to count them. The tree here cannot make a proof (its
    cards were taken away after it was built): the text is still written, the same as the
    one of the same openings held one by one."""
    from referee.engine import labels
    from referee.engine.merkle import PackedCards
    from referee.engine.openings import OpeningRun

    tree = DeckTree(SALT, 0, [str(card) for card in range(20)])
    runs = OpeningRuns((OpeningRun(tree, 0, 13, (1,), False), OpeningRun(tree, 13, 16, (), True)))
    one_by_one = CardsOpened(runs.openings())
    event = CardsOpened(runs)
    assert event.count == one_by_one.count == 16
    text = labels.table_event_text(one_by_one)
    assert text == "the referee proved 16 cards against the committed decks"
    tree.cards = PackedCards([])  # from here on a proof fails
    with pytest.raises(IndexError):
        runs.openings()
    assert labels.table_event_text(event) == text


def test_a_table_replayed_from_the_store_holds_its_openings_as_runs() -> None:
    """A game read from the store (after eviction, a restart, on a replica) holds its
    openings as the referee made them, not with the store's salts and paths:
    a refereed Vampire Queen table of 4 read from its stored events (decoded and replayed)
    took 40.8 KiB traced on main, 9.4 KiB as runs. Its log is equal to the stored events; a
    stored opening that differs from what the decks make stays as stored."""
    import gc
    import tracemalloc

    from referee import codec
    from referee.v1 import referee_pb2 as pb

    settings = TableSettings(card_commitments=True)

    def stored(table: Table[Any]) -> list[bytes]:
        return [codec.event_bytes("vampire-queen", e, i + 1) for i, e in enumerate(table.log)]

    def read(config: Any, wires: list[bytes]) -> Table[Any]:
        events = [codec.event_from_proto(pb.Event.FromString(w)) for w in wires]
        return Table.replay(config, events, settings)

    made = [Table.create("vampire-queen", 4, seed=bytes([s]), settings=settings) for s in range(41)]
    configs, wires = [t.config for t in made], [stored(t) for t in made]
    read(configs[0], wires[0])
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tables = [read(c, w) for c, w in zip(configs[1:], wires[1:], strict=True)]
        gc.collect()
        each = (tracemalloc.get_traced_memory()[0] - before) / len(tables)
    finally:
        tracemalloc.stop()
    assert each < 12 * 1024, f"{each / 1024:.1f} KiB per table read from the store"
    assert all(t.log == m.log for t, m in zip(tables, made[1:], strict=True))

    log = list(made[0].log)
    at = next(i for i, e in enumerate(log) if isinstance(e, CardsOpened))
    first = log[at].openings[0]
    forged = dataclasses.replace(first, proof=Proof(bytes(32), first.path))
    log[at] = CardsOpened((forged, *log[at].openings[1:]))
    assert Table.replay(configs[0], log, settings).log[at] is log[at]
