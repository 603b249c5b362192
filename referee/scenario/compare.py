"""Comparing JSON values: a subset match, the first difference of two values, and what two
runs of one scenario may differ in by design.

>>> subset_mismatch({"a": [1, 2], "b": 0}, {"a": [1, 2], "c": "x"}) is None
True
>>> subset_mismatch({"a": [1, 2]}, {"a": [1, 3]})
'at a[1]: expected 2, got 3'
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FileDescriptor

from referee.scenario import match as schema
from referee.v1 import referee_pb2 as pb


def _enum_zero_names(file: FileDescriptor) -> set[str]:
    names: set[str] = set()

    def walk_enum(enum: EnumDescriptor) -> None:
        names.update(v.name for v in enum.values if v.number == 0)

    def walk_message(message: Descriptor) -> None:
        for enum in message.enum_types:
            walk_enum(enum)
        for nested in message.nested_types:
            walk_message(nested)

    seen: set[str] = set()
    stack = [file]
    while stack:
        current = stack.pop()
        if current.name in seen:
            continue
        seen.add(current.name)
        for enum in current.enum_types_by_name.values():
            walk_enum(enum)
        for message in current.message_types_by_name.values():
            walk_message(message)
        stack.extend(current.dependencies)
    return names


@cache
def default_enum_names() -> frozenset[str]:
    """Names of the zero value of every enum in ``referee.v1`` (proto3 JSON omits them)."""
    return frozenset(_enum_zero_names(pb.DESCRIPTOR))


_MISSING = object()


def _is_default(expected: Any) -> bool:
    """Whether ``expected`` matches a field that proto3 JSON left out (its default value)."""
    if expected is None or expected is False or expected == "" or expected == []:
        return True
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        return expected == 0
    if isinstance(expected, str):
        return expected in default_enum_names()
    if isinstance(expected, dict):
        return all(_is_default(value) for value in expected.values())
    return False


def _show(value: Any) -> str:
    if value is _MISSING:
        return "(absent)"
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def subset_mismatch(expected: Any, actual: Any, path: str = "") -> str | None:
    """``None`` when ``actual`` matches ``expected``, else where and how the first mismatch is.

    * a dict matches when every key of ``expected`` matches the same key of ``actual``
      (extra keys in ``actual`` are ignored); a key absent from ``actual`` matches a default
      value (0, "", false, null, [], an enum's zero name, or a dict of defaults), because
      proto3 JSON leaves defaults out;
    * a list matches a list of the same length element by element;
    * scalars are equal (an integer also equals its decimal string: 64-bit fields).

    >>> subset_mismatch({"x": {"y": 0, "z": []}}, {})
    >>> subset_mismatch({"turn": None}, {"turn": 2})
    'at turn: expected null, got 2'
    """
    where = f"at {path or '(top)'}"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where}: expected an object {_show(expected)}, got {_show(actual)}"
        for key, value in expected.items():
            sub = f"{path}.{key}" if path else str(key)
            if key not in actual:
                if _is_default(value):
                    continue
                return f"at {sub}: expected {_show(value)}, got {_show(_MISSING)}"
            problem = subset_mismatch(value, actual[key], sub)
            if problem is not None:
                return problem
        return None
    if isinstance(expected, list):
        return schema.list_mismatch(expected, actual, path, subset_mismatch)
    if not schema.scalar_equal(expected, actual):
        return f"{where}: expected {_show(expected)}, got {_show(actual)}"
    return None


def first_difference(before: Any, after: Any, path: str = "") -> str | None:
    """Where two JSON values first differ (``None`` when they are equal)."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            sub = f"{path}.{key}" if path else str(key)
            problem = first_difference(
                before.get(key, schema.MISSING), after.get(key, schema.MISSING), sub
            )
            if problem is not None:
                return problem
        return None
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (a, b) in enumerate(zip(before, after, strict=True)):
            problem = first_difference(a, b, f"{path}[{index}]")
            if problem is not None:
                return problem
        return None
    if before == after and type(before) is type(after):
        return None
    return f"at {path or '(top)'}: {schema.show(before)} then {schema.show(after)}"


#: Keys left out when two runs are compared: they differ between any two tables by design
#: (the game id, when a batch was recorded, decision times, clocks) or commit to the deal and
#: seed while hiding them (the seed and deal commitments: SHA-256 of a secret seed), or make
#: both public once the game is over (the seed reveal).
_UNCOMPARED = {
    "seedRevealed",
    "gameId",
    "recordedUnixMs",
    "decided",
    "clocks",
    "seedCommitment",
    "dealCommitment",
    "commitment",
}


def comparable(value: Any, left_out: frozenset[str] | set[str] = _UNCOMPARED) -> Any:
    """``value`` (JSON) without the keys ``left_out``, at any depth."""
    if isinstance(value, dict):
        return {k: comparable(v, left_out) for k, v in value.items() if k not in left_out}
    if isinstance(value, list):
        return [comparable(v, left_out) for v in value]
    return value


__all__ = [
    "comparable",
    "default_enum_names",
    "first_difference",
    "subset_mismatch",
]
