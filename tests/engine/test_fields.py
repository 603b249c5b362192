"""Field plans (referee/engine/fields.py): every value class of every game has one, the values
the engine makes fit their plans, and ill-formed values are named down to the field."""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar

import pytest

from referee.engine import all_games, openings, table_events
from referee.engine.fields import (
    Kind,
    MalformedValue,
    check_shape,
    field_plan,
    field_type,
    wire_maker,
    written_annotations,
)
from referee.engine.table import Table, View


class Colour(IntEnum):
    UNSPECIFIED = 0
    RED = 1


@dataclass(frozen=True)
class Card:
    colour: Colour
    symbol: int


@dataclass(frozen=True)
class Joker:
    pass


@dataclass(frozen=True)
class Move:
    count: int
    name: str
    cards: tuple[Card, ...] = ()
    target: int | None = None
    played: Card | Joker | None = None
    flag: bool = False
    salt: bytes = b""


#: The constructors, untyped: the ill-formed values below are what a library caller may write.
M: Any = Move
C: Any = Card


def engine_value_classes() -> list[type]:
    """The table's events and view, and every game's commands, events and view."""
    classes: list[type] = [View, openings.CardsOpened, openings.DeckCommitted]
    classes += [
        cls
        for cls in vars(table_events).values()
        if isinstance(cls, type) and issubclass(cls, table_events.TableEvent)
    ]
    for game in all_games():
        classes += [*game.command_types, *game.event_types, game.view_type]
    return classes


@pytest.mark.parametrize("cls", engine_value_classes(), ids=lambda cls: cls.__qualname__)
def test_every_value_class_has_a_plan_in_field_order(cls: type) -> None:
    plan = field_plan(cls)
    declared = vars(cls).get("WIRE_FIELDS")
    names = [f.name for f in dataclasses.fields(cls)] if declared is None else list(declared)
    assert [f.name for f in plan] == names
    assert field_plan(cls) is plan, "a plan is computed once per class"
    declaring: Any = cls
    assert wire_maker(cls) == (cls if declared is None else declaring.from_wire)


@pytest.mark.parametrize("cls", engine_value_classes(), ids=lambda cls: cls.__qualname__)
def test_the_annotations_as_written_are_what_a_compiled_class_is_planned_from(cls: type) -> None:
    """A class compiled by mypyc keeps no annotations as written: its plan is made from those
    in its module's source (``written_annotations``), which are the pure class's own."""
    for klass in cls.__mro__[:-1]:
        assert written_annotations(klass) == vars(klass).get("__annotations__", {})


@dataclass(frozen=True)
class Packed:
    """Written as ``low`` and ``high``, held as one integer (the hook of fields.py)."""

    WIRE_FIELDS: ClassVar[tuple[str, ...]] = ("low", "high", "name")

    both: int
    name: str = ""

    @classmethod
    def from_wire(cls, low: int, high: int, name: str = "") -> Packed:
        return cls(low | high << 8, name)

    @property
    def low(self) -> int:
        return self.both & 0xFF

    @property
    def high(self) -> int:
        return self.both >> 8


def test_a_class_that_declares_its_wire_fields_has_a_plan_of_them() -> None:
    """Its properties' return annotations type them, its dataclass fields keep theirs, and
    its from_wire makes a value from them by name; check_shape reads the same fields."""
    kinds = [(f.name, f.type.kind) for f in field_plan(Packed)]
    assert kinds == [("low", Kind.INT), ("high", Kind.INT), ("name", Kind.STR)]
    assert wire_maker(Packed)(low=2, high=1, name="x") == Packed(258, "x")
    check_shape(Packed(258))
    with pytest.raises(MalformedValue, match=r"Packed\.name must be a string, got 3"):
        check_shape(Packed(258, 3))  # type: ignore[arg-type]


def test_an_incomplete_wire_declaration_is_refused_when_the_plan_is_made() -> None:
    @dataclass(frozen=True)
    class Untyped:
        WIRE_FIELDS: ClassVar[tuple[str, ...]] = ("low",)
        both: int

        @classmethod
        def from_wire(cls, low: int) -> Untyped:
            return cls(low)

        @property
        def low(self):  # type: ignore[no-untyped-def]
            return self.both

    @dataclass(frozen=True)
    class Unmade:
        WIRE_FIELDS: ClassVar[tuple[str, ...]] = ("both",)
        both: int

    @dataclass(frozen=True)
    class Missing:
        WIRE_FIELDS: ClassVar[tuple[str, ...]] = ("other",)
        both: int

        @classmethod
        def from_wire(cls, other: int) -> Missing:
            return cls(other)

    with pytest.raises(TypeError, match=r"Untyped\.low: a wire field is a dataclass field or"):
        field_plan(Untyped)
    with pytest.raises(TypeError, match="Unmade declares one of WIRE_FIELDS and from_wire"):
        wire_maker(Unmade)
    with pytest.raises(TypeError, match=r"Missing\.other: a wire field"):
        field_plan(Missing)


@pytest.mark.parametrize("game", all_games(), ids=lambda game: game.info.type_id)
def test_the_values_a_game_makes_fit_their_plans(game: Any) -> None:
    """Random play: every legal command, every event and every view is well-formed (what the
    codec relies on, and what makes the engine's shape check refuse none of them)."""
    for seed in range(2):
        table = Table.create(game.info.type_id, players=game.info.min_players, seed=bytes([seed]))
        rng = random.Random(seed)
        while table.pending():
            seat = rng.choice(table.pending())
            legal = table.legal_commands(seat)
            for command in legal:
                check_shape(command)
            check_shape(table.view(seat).game)
            check_shape(table.view(None).game)
            table.submit(seat, rng.choice(legal))
        for event in table.log:
            check_shape(event)


def test_plans_name_each_kind() -> None:
    kinds = {f.name: f.type for f in field_plan(Move)}
    assert kinds["count"].kind is Kind.INT and kinds["name"].kind is Kind.STR
    assert kinds["cards"].kind is Kind.TUPLE and kinds["cards"].item == field_type(Card)
    assert kinds["target"].kind is Kind.OPTIONAL and kinds["target"].item == field_type(int)
    played = kinds["played"]
    assert played.kind is Kind.OPTIONAL and played.item is not None
    assert played.item.kind is Kind.UNION and played.item.members == (Card, Joker)
    assert (kinds["flag"].kind, kinds["salt"].kind) == (Kind.BOOL, Kind.BYTES)
    assert field_type(Colour).kind is Kind.ENUM and field_type(Card).kind is Kind.DATACLASS


def test_well_formed_values_pass() -> None:
    check_shape(Move(1, "a"))
    check_shape(Move(1, "a", (Card(Colour.RED, 3),), 2, Joker(), True, b"x"))
    check_shape(Move(1, "a", played=C(1, 5)))  # an enum's plain integer


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (M(True, "a"), "Move.count must be an integer, got True"),
        (M(1.0, "a"), "Move.count must be an integer, got 1.0"),
        (M(Colour.RED, "a"), "Move.count must be an integer, got <Colour.RED: 1>"),
        (M(1, 2), "Move.name must be a string, got 2"),
        (M(1, "a", [C(Colour.RED, 1)]), "Move.cards must be a tuple, got [Card("),
        (M(1, "a", (C(Colour.RED, "1"),)), "Card.symbol must be an integer, got '1'"),
        (M(1, "a", (C(7, 1),)), "Card.colour must be a Colour, got 7"),
        (M(1, "a", (C(True, 1),)), "Card.colour must be a Colour, got True"),
        (M(1, "a", ("R1",)), "Move.cards[0] must be a Card, got 'R1'"),
        (M(1, "a", target="2"), "Move.target must be an integer or None, got '2'"),
        (M(1, "a", played=M(1, "a")), "Move.played must be one of Card, Joker or None"),
        (M(1, "a", flag=1), "Move.flag must be a boolean, got 1"),
        (M(1, "a", salt="x"), "Move.salt must be bytes, got 'x'"),
        (object(), "a command must be a dataclass, got <object"),
    ],
)
def test_ill_formed_values_are_named_down_to_the_field(value: Any, message: str) -> None:
    with pytest.raises(MalformedValue) as error:
        check_shape(value)
    assert str(error.value).startswith(message)


def test_an_annotation_without_a_kind_is_refused_when_the_plan_is_made() -> None:
    @dataclass(frozen=True)
    class Loose:
        cards: list[int]

    with pytest.raises(TypeError, match=r"no field plan for list\[int\]"):
        field_plan(Loose)
    with pytest.raises(TypeError, match="not a dataclass"):
        field_plan(int)
