"""Field plans: what each field of a command, event or view dataclass holds, worked out once
per class from its annotations (sans-I/O).

The engine's values are frozen dataclasses whose annotations say exactly what a field may hold
(``int``, ``bool``, ``str``, ``bytes``, an ``IntEnum``, ``tuple[X, ...]``, ``X | None``, a
nested dataclass or a union of dataclasses). :func:`field_plan` turns them into a tuple of
:class:`Field`, computed once per class (kept in one dict keyed by the class) and shared by
every reader: :func:`check_shape`, which ``Game.decide`` runs on every command so that no game
checks well-formedness itself, and the protobuf codec, which walks the same plan.

A plan is of a class's *wire fields*: its dataclass fields, unless the class holds its values
in another form than the one they are written in (the referee's card openings hold their
deck's tree, not each card's salt and path, which would be most of a live game's memory).
Such a class declares the one hook this module knows, two class attributes:

* ``WIRE_FIELDS: ClassVar[tuple[str, ...]]``, the names of its wire fields in order, each one
  of its dataclass fields or a property whose getter's return annotation is the field's type;
* a classmethod ``from_wire``, which makes a value from the wire fields given by name (what
  :func:`wire_maker` gives the codec to read a value back).

Both are declared on the class itself (a subclass declares its own); a class with one and not
the other, or a wire field that is neither kind, is refused when its plan is made. A class of a
module the compiled build compiles sets ``WIRE_FIELDS`` after its body, with
:func:`declare_wire_fields`: mypyc hands ``dataclasses`` every attribute assigned in the body
of a dataclass as a field, a ``ClassVar`` too.

>>> from dataclasses import dataclass, field
>>> @dataclass(frozen=True)
... class Play:
...     value: int
...     cards: tuple[int, ...]
...     target: int | None = None
>>> [(f.name, str(f.type)) for f in field_plan(Play)]
[('value', 'int'), ('cards', 'tuple[int, ...]'), ('target', 'int | None')]
>>> check_shape(Play(8, (1, 2)))  # well-formed: nothing happens
>>> check_shape(Play(True, ()))
Traceback (most recent call last):
...
referee.engine.fields.MalformedValue: Play.value must be an integer, got True
>>> check_shape(Play(8, (1, "2")))
Traceback (most recent call last):
...
referee.engine.fields.MalformedValue: Play.cards[1] must be an integer, got '2'
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import importlib.machinery
import operator
import pathlib
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class Kind(enum.Enum):
    """What a field holds. ``TUPLE`` and ``OPTIONAL`` wrap :attr:`FieldType.item`."""

    INT = "int"
    BOOL = "bool"
    STR = "str"
    BYTES = "bytes"
    ENUM = "enum"
    TUPLE = "tuple"
    OPTIONAL = "optional"
    DATACLASS = "dataclass"
    UNION = "union"  # one of several dataclasses (a proto ``oneof``)
    ANY = "any"  # anything (a table event's command: the game's, checked by the game)


#: The plain kinds: a value is well-formed exactly when its type is the class itself (so a
#: bool is not an int, nor an IntEnum member an int: strict types, as on the wire).
_PLAIN = {int: Kind.INT, bool: Kind.BOOL, str: Kind.STR, bytes: Kind.BYTES}
_EXPECTED = {
    Kind.INT: "an integer",
    Kind.BOOL: "a boolean",
    Kind.STR: "a string",
    Kind.BYTES: "bytes",
    Kind.TUPLE: "a tuple",
}


@dataclass(frozen=True, slots=True)
class FieldType:
    """The type of a field (or of a tuple's items, or of an optional's value).

    ``cls`` is the Python class for the plain kinds, the enum for ``ENUM`` and the dataclass
    for ``DATACLASS``; ``item`` the wrapped type of ``TUPLE`` and ``OPTIONAL``; ``members``
    the dataclasses of ``UNION``. ``exact`` is the class whose instances need no further
    check (the plain kinds' and enums'; ``None`` for the rest): the fast path of
    :func:`check_shape`.

    >>> field_type(tuple[int, ...] | None)
    FieldType(kind=<Kind.OPTIONAL: 'optional'>, cls=None, item=FieldType(kind=<Kind.TUPLE: \
'tuple'>, cls=None, item=FieldType(kind=<Kind.INT: 'int'>, cls=<class 'int'>, item=None, \
members=()), members=()), members=())
    """

    kind: Kind
    cls: type | None = None
    item: FieldType | None = None
    members: tuple[type, ...] = ()
    exact: type | None = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        if self.kind is Kind.TUPLE:
            return f"tuple[{self.item}, ...]"
        if self.kind is Kind.OPTIONAL:
            return f"{self.item} | None"
        if self.kind is Kind.UNION:
            return " | ".join(member.__name__ for member in self.members)
        return "Any" if self.cls is None else self.cls.__name__

    @property
    def expected(self) -> str:
        """What a well-formed value is, for a message ("an integer", "a Colour")."""
        if self.kind is Kind.OPTIONAL:
            assert self.item is not None
            return f"{self.item.expected} or None"
        if self.kind is Kind.UNION:
            return "one of " + ", ".join(member.__name__ for member in self.members)
        if self.kind in _EXPECTED:
            return _EXPECTED[self.kind]
        name = str(self)
        return f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a dataclass, in declaration order."""

    name: str
    type: FieldType


def field_type(hint: Any) -> FieldType:
    """The :class:`FieldType` of a (resolved) annotation; :class:`TypeError` for anything the
    engine's values do not use (a list, a dict, a float), so a new kind is a decision.

    >>> str(field_type(tuple[str, ...])), field_type(bool).kind
    ('tuple[str, ...]', <Kind.BOOL: 'bool'>)
    >>> field_type(list[int])
    Traceback (most recent call last):
    ...
    TypeError: no field plan for list[int]
    """
    if hint is Any or hint is object:  # a value of some game, which the game checks
        return FieldType(Kind.ANY)
    if hint in _PLAIN:
        return FieldType(_PLAIN[hint], hint, exact=hint)
    if isinstance(hint, type) and issubclass(hint, enum.IntEnum):
        return FieldType(Kind.ENUM, hint, exact=hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return FieldType(Kind.DATACLASS, hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return FieldType(Kind.TUPLE, item=field_type(args[0]))
    if origin is types.UnionType or origin is typing.Union:
        present = tuple(arg for arg in args if arg is not type(None))
        if len(present) < len(args):
            inner = present[0] if len(present) == 1 else typing.Union[present]  # noqa: UP007
            return FieldType(Kind.OPTIONAL, item=field_type(inner))
        if all(isinstance(a, type) and dataclasses.is_dataclass(a) for a in args):
            return FieldType(Kind.UNION, members=args)
    raise TypeError(f"no field plan for {hint}")


#: A class's checker: returns ``None`` for a well-formed value, raises :class:`MalformedValue`.
_Checker = Callable[[Any], None]
#: A field's test, chosen once per field kind: whether a value is well-formed (a nested
#: dataclass's own checker raises for its fields). ``False`` sends the field to :func:`_check`,
#: which words the refusal.
_Test = Callable[[Any], bool]

#: The one cache of field plans, class -> (plan, its checker), for the life of the process
#: (classes are few and never change); :func:`field_plan` fills it, the first time it is
#: asked for a class (a nested dataclass's entry first, so its checker is bound directly).
_PLANS: dict[type, tuple[tuple[Field, ...], _Checker]] = {}
#: Classes whose plan is being built (a class that holds itself gets a checker that looks
#: its own up when it runs, as it is not in :data:`_PLANS` yet).
_BUILDING: set[type] = set()


def field_plan(cls: type) -> tuple[Field, ...]:
    """The fields of dataclass ``cls`` in order, with their types (computed once per class).

    >>> from referee.engine.game import Decision
    >>> [str(f.type) for f in field_plan(Decision)]
    ['int', 'str', 'str']
    """
    return _known(cls)[0]


def _known(cls: type) -> tuple[tuple[Field, ...], _Checker]:
    known = _PLANS.get(cls)
    if known is None:
        _BUILDING.add(cls)
        try:
            known = _PLANS[cls] = _plan(cls)
        finally:
            _BUILDING.discard(cls)
    return known


def wire_maker(cls: type) -> Callable[..., Any]:
    """What makes a value of dataclass ``cls`` from its plan's fields, given by name: its
    ``from_wire`` when it declares its wire fields (see the module's doc), else the class.

    >>> from referee.engine.game import Decision
    >>> wire_maker(Decision)(seat=1, kind="lead", rule_id="VQ-6")
    Decision(seat=1, kind='lead', rule_id='VQ-6')
    """
    _known(cls)  # refuses a class whose hook is incomplete
    if not _declares_wire(cls):
        return cls
    declaring: Any = cls
    maker: Callable[..., Any] = declaring.from_wire
    return maker


def wire_repr(value: object) -> str:
    """``Class(name=value, ...)`` of ``value``'s wire fields: the ``__repr__`` of a class that
    declares them (what the dataclass's own would print for a class held as it is written)."""
    cls = type(value)
    inner = ", ".join(f"{f.name}={getattr(value, f.name)!r}" for f in field_plan(cls))
    return f"{cls.__qualname__}({inner})"


def declare_wire_fields(cls: type, names: tuple[str, ...]) -> None:
    """Give class ``cls`` its ``WIRE_FIELDS``, ``names``, after its body (see the module's
    docstring: in the body of a compiled dataclass it would become a field)."""
    setattr(cls, "WIRE_FIELDS", names)  # noqa: B010 (an attribute mypy need not know)


def _declares_wire(cls: type) -> bool:
    own = vars(cls)
    declared = "WIRE_FIELDS" in own
    if declared != ("from_wire" in own):
        raise TypeError(f"{cls.__name__} declares one of WIRE_FIELDS and from_wire, not both")
    return declared


def _plan(cls: type) -> tuple[tuple[Field, ...], _Checker]:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} is not a dataclass")
    hints = field_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    if _declares_wire(cls):
        own = {name: hints[name] for name in names}
        names = list(vars(cls)["WIRE_FIELDS"])
        hints = {name: own[name] if name in own else _property_type(cls, name) for name in names}
    plan = tuple(Field(name, field_type(hints[name])) for name in names)
    return plan, _checker(cls, plan)


def field_hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of class ``cls`` (its bases' included), as
    :func:`typing.get_type_hints` gives them, whether or not its module is compiled.

    A class compiled by mypyc (``make compiled``) no longer holds its annotations as written:
    mypyc replaces each with the bare runtime class (``tuple`` for ``tuple[int, ...]``,
    ``type`` for a union), which is all a compiled dataclass needs. The annotations as
    written are in its module's source, which the compiled build ships beside the extension:
    for a class of a compiled module they are read from there (:func:`written_annotations`)
    and resolved in the module's names, as they are for a pure class.

    >>> from referee.engine.game import Decision
    >>> field_hints(Decision) == typing.get_type_hints(Decision)
    True
    """
    mro = [klass for klass in reversed(cls.__mro__) if klass is not object]
    if not any(_compiled(klass) for klass in mro):
        return typing.get_type_hints(cls)
    hints: dict[str, Any] = {}
    for klass in mro:
        written = (
            written_annotations(klass)
            if _compiled(klass)
            else dict(vars(klass).get("__annotations__", {}))
        )
        namespace = {"__annotations__": written, "__module__": klass.__module__}
        hints.update(typing.get_type_hints(type(klass.__name__, (), namespace)))
    return hints


def _compiled(cls: type) -> bool:
    """Whether ``cls`` is defined in an extension module (one mypyc compiled)."""
    module = sys.modules.get(cls.__module__)
    path = getattr(module, "__file__", None) or ""
    return path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def written_annotations(cls: type) -> dict[str, str]:
    """The annotations of class ``cls``'s own body as written in its module's source (what
    ``from __future__ import annotations`` keeps in a pure class's ``__annotations__``).

    >>> from referee.engine.game import Decision
    >>> written_annotations(Decision)
    {'seat': 'int', 'kind': 'str', 'rule_id': 'str'}
    """
    return {
        node.target.id: ast.unparse(node.annotation)
        for node in _written_body(cls)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }


def written_return(cls: type, name: str) -> str | None:
    """The return annotation of method ``name`` of class ``cls``'s own body as written in its
    module's source (a compiled property keeps no annotations either), or None.

    >>> from referee.engine.openings import CardOpening
    >>> written_return(CardOpening, "salt")
    'bytes'
    """
    for node in _written_body(cls):
        if isinstance(node, ast.FunctionDef) and node.name == name and node.returns:
            return ast.unparse(node.returns)
    return None


def _written_body(cls: type) -> list[ast.stmt]:
    """The statements of class ``cls``'s body in its module's source."""
    module = sys.modules[cls.__module__]
    spec = module.__spec__
    origin = (spec.origin if spec is not None else None) or module.__file__ or ""
    source = pathlib.Path(origin)
    if source.suffix != ".py":
        source = source.with_name(cls.__module__.rpartition(".")[2] + ".py")
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"))
    except OSError as error:
        raise TypeError(
            f"{cls.__qualname__}: no field plan without its module's source {source}"
            " (a compiled build ships each module's .py beside its extension)"
        ) from error
    body: list[ast.stmt] = tree.body
    for name in cls.__qualname__.split("."):
        found = [node for node in body if isinstance(node, ast.ClassDef) and node.name == name]
        if not found:
            raise TypeError(f"{cls.__qualname__} is not in {source}")
        body = found[-1].body
    return body


def _property_type(cls: type, name: str) -> Any:
    """The type of wire field ``name`` of ``cls`` that is not a dataclass field: the return
    annotation of its property's getter."""
    read = vars(cls).get(name)
    getter = read.fget if isinstance(read, property) else None
    hint = typing.get_type_hints(getter).get("return") if getter is not None else None
    written = written_return(cls, name) if hint is None and _compiled(cls) else None
    if written is not None:  # a compiled class's property: its annotation as written
        namespace = {"__annotations__": {name: written}, "__module__": cls.__module__}
        hint = typing.get_type_hints(type(cls.__name__, (), namespace))[name]
    if hint is None:
        raise TypeError(
            f"{cls.__name__}.{name}: a wire field is a dataclass field or a property whose"
            " getter has a return annotation"
        )
    return hint


def _checker(cls: type, plan: tuple[Field, ...]) -> _Checker:
    """The checker of ``cls``: the fields of a plain type (int, str, an enum ...) all at once
    (one ``attrgetter`` call, their types compared as a tuple), then each other field with
    its test; anything amiss walks the fields in order (:func:`_walk`) for the first bad one."""
    exact = [f for f in plan if f.type.exact is not None]
    if len(exact) < 2:  # attrgetter of one name gives the value, not a tuple: test it alone
        exact = []
    others = tuple((f.name, _test(f.type)) for f in plan if f not in exact and _needs_test(f))
    types_ = tuple(f.type.exact for f in exact)
    getter = operator.attrgetter(*(f.name for f in exact)) if exact else None

    def check(value: Any) -> None:
        if getter is not None and tuple(map(type, getter(value))) != types_:
            _walk(value, cls, plan)
            return
        for name, test in others:
            if not test(getattr(value, name)):
                _walk(value, cls, plan)
                return

    return check


def _needs_test(each: Field) -> bool:
    return each.type.kind is not Kind.ANY


def _test(ftype: FieldType) -> _Test:
    """The test of a field of type ``ftype``, chosen by its kind when the plan is built."""
    kind = ftype.kind
    if kind is Kind.ENUM:
        enum_cls: Any = ftype.cls
        members = enum_cls._value2member_map_  # an IntEnum field also takes a member's int
        return lambda value: type(value) is enum_cls or (type(value) is int and value in members)
    if ftype.exact is not None:
        exact = ftype.exact
        return lambda value: type(value) is exact
    if kind is Kind.TUPLE:
        assert ftype.item is not None
        item_exact = ftype.item.exact
        if item_exact is not None and ftype.item.kind is not Kind.ENUM:
            return lambda value: (
                type(value) is tuple and all(type(element) is item_exact for element in value)
            )
        item_test = _test(ftype.item)
        return lambda value: type(value) is tuple and all(map(item_test, value))
    if kind is Kind.OPTIONAL:
        assert ftype.item is not None
        inner = _test(ftype.item)
        return lambda value: value is None or inner(value)
    if kind is Kind.DATACLASS:
        assert ftype.cls is not None
        return _member_test((ftype.cls,))
    if kind is Kind.UNION:
        return _member_test(ftype.members)
    return lambda value: True  # Kind.ANY


def _member_test(members: tuple[type, ...]) -> _Test:
    """A nested dataclass (one of ``members``): its own checker, bound now (looked up when
    it runs only for a class whose plan is still being built: one that holds itself)."""
    checkers = {
        member: (lambda value: _known(type(value))[1](value))
        if member in _BUILDING
        else _known(member)[1]
        for member in members
    }

    def test(value: Any) -> bool:
        nested = checkers.get(type(value))
        if nested is None:
            return False
        nested(value)
        return True

    return test


def _walk(value: object, cls: type, plan: tuple[Field, ...]) -> None:
    """The slow path, for a value a test refused (or an enum field given a plain integer):
    every field in order through :func:`_check`, which raises for the first bad one."""
    for each in plan:
        item = getattr(value, each.name)
        if type(item) is not each.type.exact:
            _check(item, each.type, cls, each.name)


class MalformedValue(ValueError):
    """A value that does not match its class's annotations. ``path`` names the offending
    field (``PlaySet.value``, ``Discard.cards[1]``), ``expected`` what it must be.
    ``Game.decide`` turns it into a :class:`~referee.engine.game.Rejection` of the game."""

    def __init__(self, path: str, expected: str, got: Any) -> None:
        super().__init__(f"{path} must be {expected}, got {got!r}")
        self.path = path
        self.expected = expected


def check_shape(value: object) -> None:
    """Raise :class:`MalformedValue` naming the first field of dataclass ``value`` (nested
    values included) whose value its annotation does not allow; return ``None`` otherwise.

    Types are strict: a bool is not an integer, a list not a tuple. An ``IntEnum`` field takes
    its members or the plain integer of one (what a library caller may write).

    >>> from referee.engine.game import Decision
    >>> check_shape(Decision(seat=1, kind="lead", rule_id="VQ-6"))
    >>> check_shape("lead")
    Traceback (most recent call last):
    ...
    referee.engine.fields.MalformedValue: a command must be a dataclass, got 'lead'
    """
    known = _PLANS.get(type(value))
    if known is None:
        if not hasattr(type(value), "__dataclass_fields__"):
            raise MalformedValue("a command", "a dataclass", value)
        known = _known(type(value))
    known[1](value)


def _where(cls: type, name: str, indexes: tuple[int, ...]) -> str:
    """A field's path for a message (built only then): ``Discard.cards[1]``."""
    return f"{cls.__name__}.{name}" + "".join(f"[{index}]" for index in indexes)


def _check(
    value: Any, ftype: FieldType, cls: type, name: str, indexes: tuple[int, ...] = ()
) -> None:
    """Check ``value`` (field ``name`` of a ``cls``, at ``indexes`` within it) against a type
    it is not exactly (the caller compared ``type(value)`` with ``ftype.exact``)."""
    kind = ftype.kind
    if kind is Kind.TUPLE:  # the most frequent kind that needs a look inside
        item = ftype.item
        assert item is not None
        if type(value) is tuple:
            exact = item.exact
            for index, element in enumerate(value):
                if type(element) is not exact:
                    _check(element, item, cls, name, (*indexes, index))
            return
    elif kind is Kind.OPTIONAL:
        item = ftype.item
        assert item is not None
        if value is None or type(value) is item.exact:
            return
        try:
            _check(value, item, cls, name, indexes)
        except MalformedValue as error:
            if error.path != _where(cls, name, indexes):
                raise  # a field inside the value: that field is the one to name
            raise MalformedValue(error.path, ftype.expected, value) from None
        return
    elif kind is Kind.ANY:
        return
    elif kind is Kind.ENUM:
        values: Any = ftype.cls  # an IntEnum class: its values are its members' integers
        if type(value) is int and value in values._value2member_map_:
            return
    elif (kind is Kind.DATACLASS and type(value) is ftype.cls) or (
        kind is Kind.UNION and type(value) in ftype.members
    ):
        check_shape(value)  # its own fields, named from its class
        return
    # Anything else is a value of another type than the field's.
    raise MalformedValue(_where(cls, name, indexes), ftype.expected, value)
