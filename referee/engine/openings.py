"""Per-card commitments: each seat checks, during the game and without trusting anyone, that
every card it was dealt or drew was fixed before the deal (``docs/fairness.md`` section 6).

Every position ``i`` of every shuffle ``k`` gets a salted commitment (a Merkle leaf); the root
of a shuffle's leaves is published in a public :class:`DeckCommitted` before any card of it
leaves the deck, in the batch that shuffles it. After each batch in which cards become visible,
a :class:`CardsOpened` event carries the *openings* (card, salt and Merkle path) of those
positions, each addressed to the seats that may see the card (or to everyone); the event's
redaction keeps only the viewer's own openings. Salts derive from the referee's salt and the
secret seed, so replaying or verifying a log gives the same events.

Which positions become visible to whom is game knowledge: each game maps its events to
:class:`~referee.engine.game.DeckOrder`, :class:`~referee.engine.game.CardsTaken` and
:class:`~referee.engine.game.CardShown` steps (``Game.chance_steps``); the rest is here.

The hashing (salts, leaves, Merkle trees and paths) is :mod:`referee.engine.merkle`'s.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias, TypeGuard

from referee.engine.fields import declare_wire_fields, wire_repr
from referee.engine.game import CardShown, CardsTaken, DeckOrder, GameConfig, Viewer
from referee.engine.merkle import DeckTree, PackedCards, Proof, card_salt
from referee.engine.table_events import TableEvent


def card_key(config: GameConfig) -> bytes:
    """The secret every card salt derives from: SHA-256("referee-card-key" || salt || seed)."""
    return hashlib.sha256(b"referee-card-key" + config.salt + config.seed).digest()


# --- the referee's events ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeckCommitted(TableEvent):
    """Public: the Merkle root (lowercase hex) of the ``size`` position commitments of shuffle
    ``shuffle``, published before any of its cards leaves the deck."""

    shuffle: int
    size: int
    root: str


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class CardOpening:
    """Position ``position`` of shuffle ``shuffle`` holds ``card``: its ``salt`` and Merkle
    ``path`` prove it against the shuffle's root. For ``seats`` only, or everyone (``public``).

    Its stored form (``WIRE_FIELDS``, :mod:`referee.engine.fields`) is those seven fields; it
    holds ``proof`` in place of the salt and path, which the two properties read from it. An
    opening read from the store (:meth:`from_wire`) holds them as they are (:class:`Proof`);
    one the referee makes (:class:`DeckTracker`) holds its deck's :class:`DeckTree`, and the
    salt and path are made from the tree when read (the store's and each audience's
    encoding): a deal's openings, kept in its log for the game's whole life, would otherwise
    be most of a live game's memory.

    Equal by the stored form, so both kinds compare alike; the hash leaves the proof out (it
    follows from the other fields in a game), so hashing one makes no proof.

    >>> CardOpening.from_wire(0, 3, "Q", b"s", (b"p",), (1,))
    CardOpening(shuffle=0, position=3, card='Q', salt=b's', path=(b'p',), seats=(1,), public=False)
    """

    shuffle: int
    position: int
    card: str
    proof: Proof | DeckTree
    seats: tuple[int, ...] = ()
    public: bool = False

    @classmethod
    def from_wire(
        cls,
        shuffle: int,
        position: int,
        card: str,
        salt: bytes,
        path: tuple[bytes, ...],
        seats: tuple[int, ...] = (),
        public: bool = False,
    ) -> CardOpening:
        """The opening of its stored form, holding its salt and path as given."""
        return cls(shuffle, position, card, Proof(salt, path), seats, public)

    @property
    def salt(self) -> bytes:
        proof = self.proof
        if isinstance(proof, DeckTree):
            return card_salt(proof.key, self.shuffle, self.position)
        return proof.salt

    @property
    def path(self) -> tuple[bytes, ...]:
        proof = self.proof
        if isinstance(proof, DeckTree):
            return proof.path(self.position)
        return proof.path

    def for_viewer(self, viewer: Viewer) -> bool:
        return self.public or (viewer is not None and viewer in self.seats)

    def _stored(self) -> tuple[int, int, str, bytes, tuple[bytes, ...], tuple[int, ...], bool]:
        return (
            self.shuffle,
            self.position,
            self.card,
            self.salt,
            self.path,
            self.seats,
            self.public,
        )

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not CardOpening:
            return NotImplemented
        assert isinstance(other, CardOpening)
        return self._stored() == other._stored()

    def __hash__(self) -> int:
        # The stored form's hash without the salt and path; an opening's hash is also
        # computed, without making the opening, by OpeningRuns.__hash__.
        return hash((self.shuffle, self.position, self.card, self.seats, self.public))

    def __repr__(self) -> str:
        return wire_repr(self)


declare_wire_fields(CardOpening, ("shuffle", "position", "card", "salt", "path", "seats", "public"))


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class CardsOpened(TableEvent):
    """The openings of the cards this batch made visible; each viewer sees its own only.

    Its stored form (``WIRE_FIELDS``) is ``openings``, read from ``held``: the openings one
    by one (as read from the store), or the referee's own (:func:`cards_opened`) as
    :class:`OpeningRuns`, made into openings when read. A viewer's redaction keeps its runs.
    Equal and hashed by its openings, however held."""

    held: tuple[CardOpening, ...] | OpeningRuns = ()

    @classmethod
    def from_wire(cls, openings: tuple[CardOpening, ...] = ()) -> CardsOpened:
        """The event of its stored form, holding the openings one by one."""
        return cls(openings)

    @property
    def openings(self) -> tuple[CardOpening, ...]:
        held = self.held
        return held.openings() if isinstance(held, OpeningRuns) else held

    @property
    def count(self) -> int:
        """How many openings it holds, without making them (the referee's own make each
        card's salt and Merkle path when read: a deal's, 22 hashes a card)."""
        held = self.held
        return held.count() if isinstance(held, OpeningRuns) else len(held)

    def as_received(self) -> CardsOpened:
        """This event as a client receives it: its openings one by one (salts and paths),
        without the referee's runs, whose deck trees hold every card of the shuffle and the
        key of every salt. What a program of the referee's own that plays a seat (a house
        bot) may keep: the seat's knowledge, not the referee's."""
        held = self.held
        return CardsOpened(held.openings()) if isinstance(held, OpeningRuns) else self

    def redacted(self, viewer: Viewer) -> TableEvent:
        held = self.held
        if isinstance(held, OpeningRuns):
            runs = held.for_viewer(viewer)
            if runs is held:
                return self
            return CardsOpened(runs) if runs is not None else _NONE_OPENED
        kept = tuple(o for o in held if o.for_viewer(viewer))
        if len(kept) == len(held):
            return self
        # One object for every viewer that sees none: the server encodes it once for all.
        return CardsOpened(kept) if kept else _NONE_OPENED

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not CardsOpened:
            return NotImplemented
        assert isinstance(other, CardsOpened)
        mine, theirs = self.held, other.held
        if (
            isinstance(mine, OpeningRuns)
            and isinstance(theirs, OpeningRuns)
            and mine.runs == theirs.runs
        ):
            return True  # the same trees' positions to the same audiences: no opening made
        return self.openings == other.openings

    def __hash__(self) -> int:
        return hash(self.held)  # a tuple's, or the runs' (the same for the same openings)

    def __repr__(self) -> str:
        return wire_repr(self)


declare_wire_fields(CardsOpened, ("openings",))


@dataclass(frozen=True, slots=True)
class OpeningRun:
    """Positions ``start`` to ``stop`` of ``tree``'s shuffle, opened to one audience
    (``seats``, or everyone: ``public``). A slotted class, not a named tuple: 72 bytes, where
    a 5-tuple takes 80 and a named tuple's 88 (a tuple subclass's items are allocated with
    room for one more)."""

    tree: DeckTree
    start: int
    stop: int
    seats: tuple[int, ...]
    public: bool

    def for_viewer(self, viewer: Viewer) -> bool:
        return self.public or (viewer is not None and viewer in self.seats)


class OpeningRuns:
    """The openings the referee made for one batch, as :class:`OpeningRun` s: a deck's
    consecutive positions opened to one audience together (a deal: a run a seat), in the
    order of the openings. What a :class:`CardsOpened` of the referee's holds (see there):
    one object a run, not one a card, and no salt or path until read.

    Hashed as the openings it makes (without making them); compared by its
    :class:`CardsOpened`."""

    __slots__ = ("runs",)

    def __init__(self, runs: tuple[OpeningRun, ...]) -> None:
        self.runs = runs

    def __reduce__(self) -> tuple[type[OpeningRuns], tuple[tuple[OpeningRun, ...]]]:
        # Copied and pickled through the constructor: a compiled class cannot be made empty
        # and filled in, as copy and pickle do by default.
        return (OpeningRuns, (self.runs,))

    def openings(self) -> tuple[CardOpening, ...]:
        """The openings, their proofs made run by run (:meth:`DeckTree.proofs`)."""
        out: list[CardOpening] = []
        for run in self.runs:
            tree, start, stop, seats, public = run.tree, run.start, run.stop, run.seats, run.public
            shuffle, cards = tree.shuffle, tree.cards
            for p, proof in zip(range(start, stop), tree.proofs(start, stop), strict=True):
                out.append(CardOpening(shuffle, p, cards[p], proof, seats, public))
        return tuple(out)

    def count(self) -> int:
        """How many openings the runs make."""
        return sum([run.stop - run.start for run in self.runs])

    def __hash__(self) -> int:
        """The hash of the openings (a :class:`CardOpening`'s leaves its proof out), without
        making them."""
        return hash(
            tuple(
                (run.tree.shuffle, p, run.tree.cards[p], run.seats, run.public)  # as a CardOpening
                for run in self.runs
                for p in range(run.start, run.stop)
            )
        )

    def for_viewer(self, viewer: Viewer) -> OpeningRuns | None:
        """The runs ``viewer`` sees (this object when all, ``None`` when none)."""
        kept = tuple(run for run in self.runs if run.for_viewer(viewer))
        if len(kept) == len(self.runs):
            return self
        return OpeningRuns(kept) if kept else None


def held_one_by_one(event: object) -> TypeGuard[CardsOpened]:
    """True for a :class:`CardsOpened` that holds its openings one by one (as read from the
    store), not as the referee's runs."""
    return isinstance(event, CardsOpened) and not isinstance(event.held, OpeningRuns)


def cards_opened(openings: Sequence[CardOpening]) -> CardsOpened:
    """The event of a batch's (non-empty) ``openings``: the referee's own, made by a
    :class:`DeckTracker` and holding their deck's tree, as runs; others as they are."""
    trees: list[DeckTree] = []
    for o in openings:
        if not isinstance(o.proof, DeckTree):
            return CardsOpened(tuple(openings))
        trees.append(o.proof)
    return CardsOpened(OpeningRuns(_as_runs(zip(trees, openings, strict=True))))


def _as_runs(openings: Iterable[tuple[DeckTree, CardOpening]]) -> tuple[OpeningRun, ...]:
    """Openings, each with its deck's tree, as runs (consecutive positions of one tree to one
    audience)."""
    runs: list[OpeningRun] = []
    for tree, o in openings:
        last = runs[-1] if runs else None
        if (
            last is not None
            and last.tree is tree
            and (last.stop, last.seats, last.public) == (o.position, o.seats, o.public)
        ):
            runs[-1] = OpeningRun(tree, last.start, o.position + 1, o.seats, o.public)
            continue
        runs.append(OpeningRun(tree, o.position, o.position + 1, o.seats, o.public))
    return tuple(runs)


_NONE_OPENED = CardsOpened()


# --- following a game's decks -----------------------------------------------------------------


#: The seat mask of a position opened to everyone.
_EVERYONE = -1

#: A shuffle's seat masks: two bytes a position (an int16 holds seats 0 to 14 and -1; a list
#: took 8 bytes a position, 920 bytes for a deck of 108), or a list of ints once a seat past
#: 14 is shown one of its cards (:meth:`DeckTracker._open`).
Masks: TypeAlias = "array[int] | list[int]"

#: Single-seat audiences, shared by every opening addressed to one seat.
_ONE_SEAT = tuple((seat,) for seat in range(64))


@dataclass(slots=True)
class _Deck:
    tree: DeckTree
    taken: int = 0

    @property
    def cards(self) -> PackedCards:
        return self.tree.cards


@dataclass(slots=True)
class DeckTracker:
    """Every shuffle of a game so far, how many cards of each left the deck, and which
    positions were opened to whom: :data:`Masks` a shuffle, one seat mask a position (bit
    ``s``: seat ``s``; ``-1``: everyone): a set a position, keyed by a tuple, would be a
    large part of a game in play's memory, held for its whole life.

    :meth:`trial` gives a cheap copy for a batch not yet committed: it shares the trees and
    reads what this one opened, changing nothing here."""

    key: bytes
    decks: dict[int, _Deck] = field(default_factory=dict)
    pile: int | None = None
    opened: dict[int, Masks] = field(default_factory=dict)
    parent: DeckTracker | None = None
    trees: dict[tuple[int, PackedCards], DeckTree] = field(default_factory=dict)

    def as_runs(self, event: CardsOpened) -> CardsOpened:
        """``event`` held as runs when it holds, one by one (read from the store), exactly
        the openings these decks make, proofs included (checked); else ``event`` itself.
        Needs the decks followed past the event's batch."""
        held = event.held
        if not held or isinstance(held, OpeningRuns):
            return event
        trees = []
        for o in held:
            deck = self.decks.get(o.shuffle)
            if deck is None or not o.position < len(deck.cards) or deck.cards[o.position] != o.card:
                return event
            trees.append(deck.tree)
        runs = _as_runs(zip(trees, held, strict=True))
        stored = iter(held)
        for run in runs:
            for salt, path in run.tree.proofs(run.start, run.stop):
                o = next(stored)
                if o.salt != salt or o.path != path:
                    return event
        return CardsOpened(OpeningRuns(runs))

    def trial(self) -> DeckTracker:
        return DeckTracker(self.key, dict(self.decks), self.pile, {}, self, self.trees)

    def _given(self, index: int, size: int) -> Masks:
        """The masks of shuffle ``index`` (``size`` cards), this tracker's own to change."""
        given = self.opened.get(index)
        if given is None:
            inherited = self.parent.opened.get(index) if self.parent is not None else None
            given = self.opened[index] = (
                array("h", bytes(2 * size)) if inherited is None else inherited[:]
            )
        return given

    def step(
        self, step: DeckOrder | CardsTaken | CardShown, opening: bool = True
    ) -> tuple[DeckCommitted | None, list[CardOpening]]:
        """Follow one step: a new shuffle gives its commitment, cards seen give openings
        (unless ``opening`` is false: then only who was shown what is followed, as for a
        batch whose openings its trial made already)."""
        if isinstance(step, DeckOrder):
            cards = PackedCards(step.cards)
            tree = self.trees.get((step.shuffle, cards))
            if tree is None:
                tree = self.trees[step.shuffle, cards] = DeckTree(self.key, step.shuffle, cards)
            self.decks[step.shuffle] = _Deck(tree)
            if step.pile:
                self.pile = step.shuffle
            return DeckCommitted(step.shuffle, len(step.cards), tree.root.hex()), []
        index = self.pile if step.shuffle is None else step.shuffle
        deck = self.decks.get(index) if index is not None else None
        if deck is None or index is None:  # about a deck nobody shuffled: nothing to open
            return None, []
        if isinstance(step, CardsTaken):
            positions = range(deck.taken, min(deck.taken + step.count, len(deck.cards)))
            self.decks[index] = _Deck(deck.tree, positions.stop)  # copy on write
        else:
            at = deck.taken if step.position is None else step.position
            positions = range(at, at + 1) if at < len(deck.cards) else range(0)
        return None, [o for p in positions if (o := self._open(index, deck, p, step.to, opening))]

    def _open(
        self,
        index: int,
        deck: _Deck,
        position: int,
        to: tuple[int, ...] | None,
        opening: bool,
    ) -> CardOpening | None:
        """The opening of ``position`` for the seats of ``to`` (everyone: ``None``) that were
        not shown it yet, recorded as shown; none is made without ``opening`` (only the record
        is wanted)."""
        masks = self._given(index, len(deck.cards))
        given = masks[position]
        if given == _EVERYONE:
            return None
        if to is None:
            masks[position] = _EVERYONE
            seats: tuple[int, ...] = ()
        else:
            seats = tuple(s for s in to if not given >> s & 1)
            if not seats:
                return None
            if len(seats) == 1 and seats[0] < len(_ONE_SEAT):
                seats = _ONE_SEAT[seats[0]]
            for seat in seats:
                given |= 1 << seat
            try:
                masks[position] = given
            except OverflowError:  # a seat past 14: this shuffle's masks as ints from now on
                masks = self.opened[index] = list(masks)
                masks[position] = given
        if not opening:
            return None
        # The proof is the tree's, made when read (see CardOpening).
        return CardOpening(index, position, deck.cards[position], deck.tree, seats, to is None)


__all__ = [
    "CardOpening",
    "CardsOpened",
    "DeckCommitted",
    "DeckTracker",
    "OpeningRun",
    "OpeningRuns",
    "card_key",
    "cards_opened",
    "held_one_by_one",
]
