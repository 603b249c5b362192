"""Fixed deals written like the rules: ``deal:`` of a scenario file into the engine's
:class:`FixedDeal`.

Each game package may offer a ``deal`` module (``referee/games/<game>/deal.py``) that says how
its cards are written and dealt; the runner imports nothing else of a game. It offers:

* ``DECK``: the cards of the first shuffle, in canonical order (deal notation);
* ``hand_size(players)``: the cards each seat is dealt from the top, seat by seat;
* ``AFTER_HANDS``: what lies under the hands, top first: ``("draw",)`` (the draw pile),
  ``("discard", "draw")`` (the card that starts the discard pile, then the draw pile) or
  ``()`` (the rest is set aside);
* ``read_card(value)``: one card as a scenario writes it, in deal notation (ValueError);
* ``shuffle_pool(index)``: the cards of the ``index``-th shuffle when they are known before
  play (every round's whole deck), else ``None`` (a discard pile reshuffled);
* ``CHOICES`` and ``picks(players, options, choices)``: named choices (a dealer, a colour
  track, characters by id) turned into the engine's ``picks``;
* optionally ``QUEENS_SHUFFLE`` (Sleeping Queens): the shuffle index that ``queens:`` gives,
  and ``read_shuffle_card(index, value)`` where a shuffle's cards are written differently.

>>> builder = deal_builder("vampire-queen", 3, b"seed")
>>> deck = builder.deck({"hands": [[1] * 8 + [2] * 5]}, 0, "deal")
>>> deck[:13], len(deck)
(('1', '1', '1', '1', '1', '1', '1', '1', '2', '2', '2', '2', '2'), 108)
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from referee.engine.chance import shuffled
from referee.engine.game import FixedDeal
from referee.engine.registry import get_game

#: The keys of a deck written by its layout (an item of ``decks``, or ``deal`` itself for the
#: first shuffle).
LAYOUT_KEYS = ("hands", "discard", "draw", "top", "rest")
#: How the cards a layout does not write are ordered: the deck's canonical order, or shuffled
#: by the scenario's seed (as the game would have shuffled them).
RESTS = ("canonical", "seed")


class DealError(ValueError):
    """A deal that cannot be dealt: ``where`` names the key (``deal.decks[1].hands[0][3]``)."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


def deal_module(game_type: str) -> ModuleType | None:
    """The ``deal`` module of the game's package, or None (unknown game, or none offered)."""
    try:
        game = get_game(game_type)
    except KeyError:
        return None
    package = type(game).__module__.rpartition(".")[0]
    try:
        return importlib.import_module(f"{package}.deal")
    except ModuleNotFoundError as error:
        if error.name == f"{package}.deal":
            return None
        raise


def permutation_problem(cards: Sequence[str], pool: Sequence[str]) -> str | None:
    """What is missing from and extra in ``cards`` as a permutation of ``pool``, or None.

    >>> permutation_problem(["1", "1", "Q"], ["1", "2", "Q"])
    'not a permutation of the 3-card deck: missing 1 x "2", extra 1 x "1"'
    """
    have, want = Counter(cards), Counter(pool)
    if have == want:
        return None
    missing = want - have
    extra = have - want
    parts = [f'missing {n} x "{c}"' for c, n in sorted(missing.items())]
    parts += [f'extra {n} x "{c}"' for c, n in sorted(extra.items())]
    return f"not a permutation of the {len(pool)}-card deck: {', '.join(parts)}"


@dataclass(frozen=True)
class DealBuilder:
    """Builds the decks and picks of one game's fixed deal for ``players`` seats."""

    game_type: str
    module: ModuleType
    players: int
    seed: bytes

    def card(self, value: object, where: str, index: int = 0) -> str:
        """One card of the ``index``-th shuffle (a game may write some shuffles' cards
        differently: ``read_shuffle_card(index, value)``)."""
        special = getattr(self.module, "read_shuffle_card", None)
        try:
            if special is not None:
                return str(special(index, value))
            return str(self.module.read_card(value))
        except ValueError as error:
            raise DealError(where, str(error)) from None

    def cards(self, values: Any, where: str, index: int = 0) -> list[str]:
        if not isinstance(values, list):
            raise DealError(where, "expected a list of cards")
        return [self.card(value, f"{where}[{i}]", index) for i, value in enumerate(values)]

    def pool(self, index: int) -> tuple[str, ...] | None:
        pool = self.module.shuffle_pool(index)
        return None if pool is None else tuple(pool)

    def deck(self, value: Any, index: int, where: str) -> tuple[str, ...]:
        """The ``index``-th shuffle's order from a list (the whole order) or a layout."""
        pool = self.pool(index)
        if isinstance(value, list):
            cards = self.cards(value, where, index)
            if pool is not None:
                problem = permutation_problem(cards, pool)
                if problem is not None:
                    raise DealError(where, problem)
            else:  # known only when it is shuffled: the engine takes it as the top cards
                self._within_the_game(cards, where)
            return tuple(cards)
        if not isinstance(value, dict):
            raise DealError(where, "expected a list of cards (top first) or {hands, draw, ...}")
        unknown = sorted(str(k) for k in value if k not in LAYOUT_KEYS)
        if unknown:
            raise DealError(
                where, f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(LAYOUT_KEYS)}"
            )
        if pool is None:
            return self._top_only(value, index, where)
        return self._layout(value, pool, index, where)

    def _top_only(self, value: dict[str, Any], index: int, where: str) -> tuple[str, ...]:
        """A shuffle whose cards are known only when it happens (a reshuffled pile): the
        engine takes a fixed deck for it as its top cards, the rest in the seed's order."""
        others = sorted(str(k) for k in value if k not in ("top", "rest"))
        if others or "top" not in value:
            raise DealError(
                where,
                f"which cards shuffle {index} of {self.game_type} holds depends on the play: "
                "give its top cards (top: [...]) or its whole order",
            )
        if value.get("rest", "seed") != "seed":
            raise DealError(f"{where}.rest", "the rest of such a shuffle comes from the seed")
        top = self.cards(value["top"], f"{where}.top", index)
        self._within_the_game(top, where)
        return tuple(top)

    def _within_the_game(self, cards: list[str], where: str) -> None:
        over = Counter(cards) - Counter(self.module.DECK)
        if over:
            listed = ", ".join(f'{n} x "{c}"' for c, n in sorted(over.items()))
            raise DealError(where, f"more cards than the game has: extra {listed}")

    def _layout(
        self, value: dict[str, Any], pool: tuple[str, ...], index: int, where: str
    ) -> tuple[str, ...]:
        after = tuple(self.module.AFTER_HANDS)
        for key in ("discard", "draw"):
            if key in value and key not in after:
                raise DealError(f"{where}.{key}", f"{self.game_type} has no {key} pile to give")
        if "top" in value and any(k in value for k in ("hands", "discard", "draw")):
            raise DealError(where, "give either top (the top cards) or hands, discard and draw")
        rest_kind = value.get("rest", "canonical")
        if rest_kind not in RESTS:
            raise DealError(f"{where}.rest", f"expected one of {', '.join(RESTS)}")
        hands_raw = value.get("hands", [])
        if not isinstance(hands_raw, list):
            raise DealError(f"{where}.hands", "expected a list of hands, seat 0 first")
        if len(hands_raw) > self.players:
            raise DealError(
                f"{where}.hands", f"{len(hands_raw)} hands given for {self.players} players"
            )
        size = int(self.module.hand_size(self.players))
        hands: list[list[str]] = []
        for seat, hand in enumerate(hands_raw):
            at = f"{where}.hands[{seat}]"
            cards = self.cards(hand, at, index)
            if len(cards) != size:
                raise DealError(
                    at,
                    f"{len(cards)} cards; each seat is dealt {size} with {self.players} players",
                )
            hands.append(cards)
        discard = (
            [self.card(value["discard"], f"{where}.discard", index)] if "discard" in value else []
        )
        draw = self.cards(value["draw"], f"{where}.draw", index) if "draw" in value else []
        top = self.cards(value["top"], f"{where}.top", index) if "top" in value else []
        written = [card for hand in hands for card in hand] + discard + draw + top
        left = Counter(pool)
        left.subtract(written)
        over = sorted(card for card, n in left.items() if n < 0)
        if over:
            have = Counter(pool)
            raise DealError(
                where,
                "the cards given use more than the deck holds: "
                + ", ".join(f'{have[c] - left[c]} x "{c}" (deck has {have[c]})' for c in over),
            )
        rest: list[str] = []
        for card in pool:  # what is not written, in canonical order
            if left[card] > 0:
                rest.append(card)
                left[card] -= 1
        if rest_kind == "seed":
            rest = shuffled(rest, self.seed, index)
        if top:
            return tuple(top + rest)
        order: list[str] = []
        for seat in range(self.players):
            if seat < len(hands):
                order.extend(hands[seat])
            else:  # a seat without a hand given: the next cards of the rest
                order.extend(rest[:size])
                rest = rest[size:]
        if (discard or draw) and len(order) < size * self.players:
            raise DealError(where, "the deck runs out before the discard and the draw")
        return tuple(order + discard + draw + rest)

    def picks(self, choices: Mapping[str, Any], options: Mapping[str, str]) -> tuple[int, ...]:
        try:
            return tuple(self.module.picks(self.players, options, choices))
        except ValueError as error:
            raise DealError("deal", str(error)) from None


def deal_builder(game_type: str, players: int, seed: bytes) -> DealBuilder | None:
    module = deal_module(game_type)
    return None if module is None else DealBuilder(game_type, module, players, seed)


#: The keys ``deal:`` itself accepts besides a game's named choices and the layout keys.
GENERAL_KEYS = ("decks", "picks")


def build_deal(
    value: Mapping[str, Any],
    game_type: str,
    players: int,
    seed: bytes,
    options: Mapping[str, str],
) -> FixedDeal:
    """``deal:`` (a mapping) as a :class:`FixedDeal`; :class:`DealError` says what is wrong."""
    builder = deal_builder(game_type, players, seed)
    choices_allowed: tuple[str, ...] = tuple(builder.module.CHOICES) if builder else ()
    named: dict[str, int] = {}
    if builder is not None and hasattr(builder.module, "QUEENS_SHUFFLE"):
        named["queens"] = int(builder.module.QUEENS_SHUFFLE)
    layout = _first_layout(value, game_type, builder, (*choices_allowed, *named))
    decks = _decks(value, layout, builder)
    for key, index in named.items():
        if key in value:
            assert builder is not None
            _named_deck(value, key, index, builder, decks, seed)
    picks = _picks(value, choices_allowed, builder, options)
    return FixedDeal(decks=tuple(decks), picks=picks)


def _first_layout(
    value: Mapping[str, Any],
    game_type: str,
    builder: DealBuilder | None,
    game_keys: tuple[str, ...],
) -> dict[str, Any]:
    """The first deal's layout given by its keys (empty when none is), once the keys are
    checked: no unknown key, a layout only where the game has a deal module, not with
    ``decks``."""
    allowed = (*GENERAL_KEYS, *LAYOUT_KEYS, *game_keys)
    unknown = sorted(str(key) for key in value if key not in allowed)
    if unknown:
        raise DealError(
            "deal", f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}"
        )
    layout = {key: value[key] for key in LAYOUT_KEYS if key in value}
    if builder is None and layout:  # without a deal module a game names no keys either
        raise DealError(
            "deal",
            f"{', '.join(layout)} need a deal module for {game_type} "
            "(referee/games/<game>/deal.py); give decks and picks",
        )
    if layout and "decks" in value:
        raise DealError(
            "deal", f"give either {', '.join(layout)} (the first deal) or decks, not both"
        )
    return layout


def _decks(
    value: Mapping[str, Any], layout: dict[str, Any], builder: DealBuilder | None
) -> list[tuple[str, ...]]:
    """The decks given, top first: the layout's one, or ``decks``."""
    decks_raw = value.get("decks") or []
    if not isinstance(decks_raw, list):
        raise DealError("deal.decks", "expected a list of decks")
    if layout:
        decks_raw = [layout]
    decks: list[tuple[str, ...]] = []
    for index, deck in enumerate(decks_raw):
        where = "deal" if layout else f"deal.decks[{index}]"
        if builder is None:
            if not isinstance(deck, list):
                raise DealError(where, "expected a list of cards (top first)")
            decks.append(tuple(str(card) for card in deck))
        else:
            decks.append(builder.deck(deck, index, where))
    return decks


def _named_deck(
    value: Mapping[str, Any],
    key: str,
    index: int,
    builder: DealBuilder,
    decks: list[tuple[str, ...]],
    seed: bytes,
) -> None:
    """A shuffle the game names (Sleeping Queens' ``queens``) as deck ``index``, after the
    earlier ones the seed gives where they are not given."""
    pool = builder.pool(index)
    while len(decks) < index:  # earlier shuffles not given: what the seed gives
        earlier = builder.pool(len(decks))
        if earlier is None:
            raise DealError(f"deal.{key}", "give the decks before it")
        decks.append(tuple(shuffled(earlier, seed, len(decks))))
    if len(decks) > index:
        raise DealError(f"deal.{key}", f"decks[{index}] is given already")
    assert pool is not None
    decks.append(builder.deck(value[key], index, f"deal.{key}"))


def _picks(
    value: Mapping[str, Any],
    choices_allowed: tuple[str, ...],
    builder: DealBuilder | None,
    options: Mapping[str, str],
) -> tuple[int, ...]:
    """The picks: from the game's named choices, or ``picks`` as given."""
    choices = {key: value[key] for key in choices_allowed if key in value}
    if choices and "picks" in value:
        raise DealError("deal", f"give either picks or {', '.join(choices)}, not both")
    if choices:
        assert builder is not None
        return builder.picks(choices, options)
    raw = value.get("picks") or []
    if not isinstance(raw, list):
        raise DealError("deal.picks", "expected a list of integers")
    for index, pick in enumerate(raw):
        if isinstance(pick, bool) or not isinstance(pick, int) or pick < 0:
            raise DealError(f"deal.picks[{index}]", f"expected an integer >= 0, got {pick!r}")
    return tuple(raw)


__all__ = [
    "LAYOUT_KEYS",
    "RESTS",
    "DealBuilder",
    "DealError",
    "build_deal",
    "deal_builder",
    "deal_module",
    "permutation_problem",
]
