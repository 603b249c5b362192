"""Matching a scenario's expectations against proto JSON, guided by the proto schema.

Every ``match`` of a scenario file is checked against the schema of what it matches (a
``referee.v1.View``, a list of ``Event``, a ``GameType``...) when the file is loaded: a key that
is not a field there (``deckTopp``, ``calledByy``) fails the file with its path, so a misspelt
key can never pass silently because its expected value happens to be a default. The same
schema then tells the matcher, field by field, what a missing key means (proto3 JSON leaves
defaults out), whether a list is a list of values or a choice among values, and where an
operator such as ``{contains: [...]}`` may stand.

>>> from referee.v1 import referee_pb2 as pb
>>> view = message_type(pb.View.DESCRIPTOR)
>>> check_spec({"pendingSeats": [1], "vampireQueen": {"turn": "> 0"}}, view)
>>> try:
...     check_spec({"pendingSeat": [1]}, view)
... except SpecError as error:
...     print(error)
at pendingSeat: unknown field of referee.v1.View (did you mean pendingSeats?)
>>> mismatch({"vampireQueen": {"turn": "> 1"}}, {"vampireQueen": {"turn": 1}}, view)
'at vampireQueen.turn: expected > 1, got 1'
>>> mismatch({"pendingSeats": {"contains": [2]}}, {"pendingSeats": [0, 2]}, view) is None
True
"""

from __future__ import annotations

import difflib
import json
import operator
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from referee.engine.matching import unmatched

#: Operators on lists (repeated fields and event lists).
LIST_OPS = ("contains", "excludes", "any_order", "set", "subsequence", "length")
#: Operators allowed at any position.
ANY_OPS = ("absent", "one_of")
OPS = LIST_OPS + ANY_OPS

_COMPARISON = re.compile(r"^\s*(>=|<=|!=|==|>|<)\s*(-?\d+(?:\.\d+)?)\s*$")
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
    "!=": operator.ne,
    "==": operator.eq,
}
_NUMERIC = {
    FieldDescriptor.CPPTYPE_INT32,
    FieldDescriptor.CPPTYPE_INT64,
    FieldDescriptor.CPPTYPE_UINT32,
    FieldDescriptor.CPPTYPE_UINT64,
    FieldDescriptor.CPPTYPE_DOUBLE,
    FieldDescriptor.CPPTYPE_FLOAT,
}


class SpecError(ValueError):
    """An expectation that does not fit the schema: ``path`` names where (``a.b[2].c``)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"at {path or '(top)'}: {message}")
        self.path = path
        self.message = message


@dataclass(frozen=True, slots=True)
class Type:
    """The schema at one position of a match: a message, a list, a map or a scalar field."""

    kind: Literal["message", "list", "map", "scalar"]
    message: Descriptor | None = None
    item: Type | None = None
    field: FieldDescriptor | None = None


def message_type(descriptor: Descriptor) -> Type:
    return Type("message", message=descriptor)


def list_of(descriptor: Descriptor) -> Type:
    """A list of messages (e.g. the events a step appended)."""
    return Type("list", item=message_type(descriptor))


def field_type(field: FieldDescriptor) -> Type:
    message = field.message_type
    if message is not None and message.GetOptions().map_entry:
        return Type("map", item=field_type(message.fields_by_name["value"]), field=field)
    single = (
        Type("message", message=message) if message is not None else Type("scalar", field=field)
    )
    return Type("list", item=single, field=field) if field.is_repeated else single


#: A key left out of the JSON (proto3 leaves out defaults and unset fields).
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "(absent)"})()
_MISSING = MISSING


def show(value: Any) -> str:
    if value is _MISSING:
        return "(absent)"
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _fields(descriptor: Descriptor) -> dict[str, FieldDescriptor]:
    return {field.json_name: field for field in descriptor.fields}


def _is_ops(expected: Any, kind: Type) -> bool:
    """Whether a mapping is an operator mapping here (not a sub-message's fields)."""
    if not isinstance(expected, dict) or not expected:
        return False
    if kind.kind in ("list", "scalar"):
        return True
    if kind.kind == "message" and kind.message is not None:
        names = _fields(kind.message)
        return all(key in ANY_OPS and key not in names for key in expected)
    return False


# --- checking the expectation itself (at load time) -------------------------------------------


def check_spec(expected: Any, kind: Type, path: str = "") -> None:
    """Raise :class:`SpecError` when ``expected`` names a key that is not in the schema, or
    uses an operator or value that cannot match at its position."""
    if expected is None:
        return
    if _is_ops(expected, kind):
        _check_ops(expected, kind, path)
        return
    if kind.kind == "message":
        assert kind.message is not None
        if not isinstance(expected, dict):
            raise SpecError(
                path, f"expected a mapping ({kind.message.full_name}), got {show(expected)}"
            )
        fields = _fields(kind.message)
        for key, value in expected.items():
            sub = _join(path, str(key))
            field = fields.get(str(key))
            if field is None:
                raise SpecError(
                    sub, f"unknown field of {kind.message.full_name}{_hint(str(key), fields)}"
                )
            check_spec(value, field_type(field), sub)
    elif kind.kind == "list":
        assert kind.item is not None
        if not isinstance(expected, list):
            raise SpecError(
                path,
                f"expected a list or a list operator ({', '.join(LIST_OPS)}), got {show(expected)}",
            )
        for index, item in enumerate(expected):
            check_spec(item, kind.item, f"{path}[{index}]")
    elif kind.kind == "map":
        assert kind.item is not None
        if not isinstance(expected, dict):
            raise SpecError(path, f"expected a mapping, got {show(expected)}")
        for key, value in expected.items():
            check_spec(value, kind.item, _join(path, str(key)))
    else:
        if isinstance(expected, list):  # alternatives
            if not expected:
                raise SpecError(path, "an empty list of alternatives can never match")
            for index, item in enumerate(expected):
                check_spec(item, kind, f"{path}[{index}]")
            return
        _check_scalar(expected, kind, path)


def _hint(key: str, fields: dict[str, FieldDescriptor]) -> str:
    for name, field in fields.items():
        if key == field.name and key != name:
            return f" (did you mean {name}? keys are the proto JSON names, camelCase)"
    close = difflib.get_close_matches(key, list(fields), n=1)
    if close:
        return f" (did you mean {close[0]}?)"
    return f"; fields: {', '.join(sorted(fields)) or 'none'}"


def _check_scalar(expected: Any, kind: Type, path: str) -> None:
    field = kind.field
    assert field is not None
    if isinstance(expected, dict | list):
        raise SpecError(path, f"expected a value for {field.name}, got {show(expected)}")
    if field.enum_type is not None:
        names = [value.name for value in field.enum_type.values]
        if expected not in names:
            close = difflib.get_close_matches(str(expected), names, n=1)
            hint = f" (did you mean {close[0]}?)" if close else f"; values: {', '.join(names)}"
            raise SpecError(
                path, f"{show(expected)} is not a value of {field.enum_type.full_name}{hint}"
            )
        return
    numeric = field.cpp_type in _NUMERIC and isinstance(expected, str)
    if numeric and not (_COMPARISON.match(expected) or re.fullmatch(r"-?\d+", expected)):
        raise SpecError(
            path, f"expected a number or a comparison such as '> 1', got {show(expected)}"
        )


def _check_ops(expected: dict[str, Any], kind: Type, path: str) -> None:
    allowed = OPS if kind.kind == "list" else ANY_OPS
    for key, value in expected.items():
        sub = _join(path, str(key))
        if key not in allowed:
            what = "a list" if kind.kind == "list" else "this field"
            raise SpecError(sub, f"unknown operator for {what}; operators: {', '.join(allowed)}")
        if key == "absent":
            if not isinstance(value, bool):
                raise SpecError(sub, "expected true or false")
        elif key == "one_of":
            if not isinstance(value, list) or not value:
                raise SpecError(sub, "expected a non-empty list of alternatives")
            for index, item in enumerate(value):
                check_spec(item, kind, f"{sub}[{index}]")
        elif key == "length":
            ok = isinstance(value, int) and not isinstance(value, bool)
            if not ok and not (isinstance(value, str) and _COMPARISON.match(value)):
                raise SpecError(sub, "expected a number or a comparison such as '>= 2'")
        else:
            if not isinstance(value, list):
                raise SpecError(sub, "expected a list of items")
            assert kind.item is not None
            for index, item in enumerate(value):
                check_spec(item, kind.item, f"{sub}[{index}]")


# --- matching ---------------------------------------------------------------------------------


def _default(field: FieldDescriptor) -> Any:
    """What a key left out of proto3 JSON stands for, or ``_MISSING`` for a field that has
    presence (an optional scalar, a member of a oneof: absent means not set)."""
    if field.is_repeated:
        message = field.message_type
        return {} if message is not None and message.GetOptions().map_entry else []
    if field.message_type is not None:
        oneof = field.containing_oneof
        # A oneof member left out is a different case chosen (another event, another game):
        # an expected sub-mapping, even of defaults only, must not match it.
        return _MISSING if oneof is not None else {}
    if field.has_presence:
        return _MISSING
    if field.enum_type is not None:
        return field.enum_type.values_by_number[0].name
    if field.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
        return False
    if field.cpp_type in _NUMERIC:
        return 0
    return ""


def scalar_equal(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int) and isinstance(actual, str):
        return str(expected) == actual  # proto3 JSON writes 64-bit integers as strings
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d+(\.\d+)?", value):
        return float(value)
    return None


def _compare(expected: str, actual: Any) -> bool | None:
    """The comparison ``expected`` ('> 1') applied to ``actual``; None if not a comparison."""
    found = _COMPARISON.match(expected)
    if found is None:
        return None
    number = _number(actual)
    return number is not None and _COMPARE[found.group(1)](number, float(found.group(2)))


def mismatch(expected: Any, actual: Any, kind: Type, path: str = "") -> str | None:
    """``None`` when ``actual`` (proto JSON, ``_MISSING`` for a key left out) matches
    ``expected`` at a position of schema ``kind``, else where and how it first does not."""
    return next(_problems(expected, actual, kind, path), None)


def mismatches(expected: Any, actual: Any, kind: Type, path: str = "") -> list[str]:
    """Every place where ``actual`` does not match ``expected`` (:func:`mismatch` names the
    first): each key of a mapping and each item of a list of the right length is matched on
    its own; an operator mapping (``contains``...) and a list of the wrong length count once.

    >>> from referee.v1 import referee_pb2 as pb
    >>> view = message_type(pb.View.DESCRIPTOR)
    >>> mismatches({"version": 3, "gameOver": True}, {"version": 2}, view)
    ['at version: expected 3, got 2', 'at gameOver: expected true, got false']
    """
    return list(_problems(expected, actual, kind, path))


def _problems(expected: Any, actual: Any, kind: Type, path: str) -> Iterator[str]:
    """Each mismatch of ``actual`` against ``expected``, in the order of ``expected``."""
    where = f"at {path or '(top)'}"
    if _is_ops(expected, kind):
        problem = _match_ops(expected, actual, kind, path)
        if problem is not None:
            yield problem
        return
    if expected is None:
        if actual is _MISSING or actual == [] or (actual == {} and kind.kind == "map"):
            return
        yield f"{where}: expected (absent), got {show(actual)}"
        return
    if kind.kind in ("message", "map"):
        if actual is _MISSING or not isinstance(actual, dict):
            yield f"{where}: expected {show(expected)}, got {show(actual)}"
            return
        yield from _entry_problems(expected, actual, kind, path)
        return
    if kind.kind == "list":
        item = kind.item
        assert item is not None
        yield from _list_problems(expected, actual, path, lambda w, h, p: _problems(w, h, item, p))
        return
    yield from _scalar_problems(expected, actual, kind, path)


def _entry_problems(
    expected: dict[str, Any], actual: dict[str, Any], kind: Type, path: str
) -> Iterator[str]:
    """A message's fields, or a map's entries, each against its expected value."""
    if kind.kind == "map":
        assert kind.item is not None
        for key, value in expected.items():
            yield from _problems(value, actual.get(key, _MISSING), kind.item, _join(path, key))
        return
    assert kind.message is not None
    fields = _fields(kind.message)
    for key, value in expected.items():
        field = fields[key]
        sub = actual.get(key, _MISSING)
        if sub is _MISSING and value is not None and not _is_absent_op(value):
            sub = _default(field)
        yield from _problems(value, sub, field_type(field), _join(path, key))


def _scalar_problems(expected: Any, actual: Any, kind: Type, path: str) -> Iterator[str]:
    """A scalar against one value, one of a list of them, or a comparison (``>= 3``)."""
    where = f"at {path or '(top)'}"
    if isinstance(expected, list):
        if not any(mismatch(option, actual, kind, path) is None for option in expected):
            yield f"{where}: expected one of {show(expected)}, got {show(actual)}"
        return
    if isinstance(expected, str):
        compared = _compare(expected, actual)
        if compared is not None:
            if not compared:
                yield f"{where}: expected {expected.strip()}, got {show(actual)}"
            return
    if actual is _MISSING or not scalar_equal(expected, actual):
        yield f"{where}: expected {show(expected)}, got {show(actual)}"


def list_mismatch(
    expected: list[Any], actual: Any, path: str, item: Callable[[Any, Any, str], str | None]
) -> str | None:
    """A list matches a list of the same length, item by item (``item`` matches one)."""

    def each(want: Any, have: Any, at: str) -> Iterator[str]:
        problem = item(want, have, at)
        if problem is not None:
            yield problem

    return next(_list_problems(expected, actual, path, each), None)


def _list_problems(
    expected: list[Any], actual: Any, path: str, item: Callable[[Any, Any, str], Iterator[str]]
) -> Iterator[str]:
    where = f"at {path or '(top)'}"
    if not isinstance(actual, list):
        yield f"{where}: expected a list {show(expected)}, got {show(actual)}"
        return
    if len(expected) != len(actual):
        yield (
            f"{where}: expected {len(expected)} item(s) {show(expected)}, "
            f"got {len(actual)} {show(actual)}"
        )
        return
    for index, (want, have) in enumerate(zip(expected, actual, strict=True)):
        yield from item(want, have, f"{path}[{index}]")


def _is_absent_op(value: Any) -> bool:
    return isinstance(value, dict) and "absent" in value


def _matches(expected: Any, actual: Any, kind: Type) -> bool:
    return mismatch(expected, actual, kind, "") is None


def _assign(wanted: Sequence[Any], have: Sequence[Any], kind: Type) -> list[int]:
    """Indexes of ``wanted`` items left without a distinct matching item of ``have``
    (a maximum bipartite matching, so the order of the items does not matter)."""
    edges = [[j for j, item in enumerate(have) if _matches(w, item, kind)] for w in wanted]
    return list(unmatched(edges))


def _match_ops(expected: dict[str, Any], actual: Any, kind: Type, path: str) -> str | None:
    where = f"at {path or '(top)'}"
    for name, value in expected.items():
        if name == "absent":
            problem = _absent(value, actual, where)
        elif name == "one_of":
            problem = None
            if not any(mismatch(option, actual, kind, path) is None for option in value):
                problem = f"{where}: expected one of {show(value)}, got {show(actual)}"
        else:
            items = [] if actual is _MISSING else actual
            if not isinstance(items, list):
                return f"{where}: expected a list, got {show(actual)}"
            assert kind.item is not None
            check = _LIST_CHECKS.get(name)
            problem = None if check is None else check(value, items, kind.item, where)
        if problem is not None:
            return problem
    return None


def _absent(value: Any, actual: Any, where: str) -> str | None:
    present = actual is not _MISSING
    if value and present:
        return f"{where}: expected (absent), got {show(actual)}"
    if not value and not present:
        return f"{where}: expected a value, got (absent)"
    return None


def _length(value: Any, items: list[Any], item: Type, where: str) -> str | None:
    ok = _compare(value, len(items)) if isinstance(value, str) else value == len(items)
    if not ok:
        return f"{where}: expected length {value}, got {len(items)} {show(items)}"
    return None


def _contains(value: Any, items: list[Any], item: Type, where: str) -> str | None:
    left = _assign(value, items, item)
    if left:
        missing = [value[i] for i in left]
        return f"{where}: expected to contain {show(missing)}, got {show(items)}"
    return None


def _excludes(value: Any, items: list[Any], item: Type, where: str) -> str | None:
    found = [w for w in value if any(_matches(w, have, item) for have in items)]
    if found:
        return f"{where}: expected not to contain {show(found)}, got {show(items)}"
    return None


def _any_order(value: Any, items: list[Any], item: Type, where: str) -> str | None:
    left = _assign(value, items, item)
    if left or len(value) != len(items):
        return (
            f"{where}: expected {len(value)} item(s) in any order {show(value)}, "
            f"got {len(items)} {show(items)}"
        )
    return None


def _set(value: Any, items: list[Any], item: Type, where: str) -> str | None:
    missing = [w for w in value if not any(_matches(w, have, item) for have in items)]
    extra = [have for have in items if not any(_matches(w, have, item) for w in value)]
    if missing or extra:
        return (
            f"{where}: expected exactly the set {show(value)}; "
            f"missing {show(missing)}, extra {show(extra)}"
        )
    return None


def _subsequence(value: Any, items: list[Any], item: Type, where: str) -> str | None:
    position = 0
    for index, want in enumerate(value):
        while position < len(items) and not _matches(want, items[position], item):
            position += 1
        if position == len(items):
            return (
                f"{where}: expected the subsequence {show(value)}; item {index} "
                f"{show(want)} not found in order in {show(items)}"
            )
        position += 1
    return None


#: The operations on a list: each the mismatch of the list's ``items``, or None.
_LIST_CHECKS: dict[str, Callable[[Any, list[Any], Type, str], str | None]] = {
    "length": _length,
    "contains": _contains,
    "excludes": _excludes,
    "any_order": _any_order,
    "set": _set,
    "subsequence": _subsequence,
}


__all__ = [
    "ANY_OPS",
    "LIST_OPS",
    "MISSING",
    "OPS",
    "SpecError",
    "Type",
    "check_spec",
    "field_type",
    "list_mismatch",
    "list_of",
    "message_type",
    "mismatch",
    "mismatches",
    "scalar_equal",
    "show",
]
