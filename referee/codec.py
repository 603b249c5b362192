"""Between the engine's value objects and the ``referee.v1`` protobuf messages.

The mapping is by name, so a new game needs no code here: the game type id ``vampire-queen``
is the ``oneof`` field ``vampire_queen`` of ``Command``/``Event``/``View``; a command or event
class ``PlaySet`` is the field ``play_set`` of the game's ``VampireQueenCommand`` (of type
``VampireQueenCommand.PlaySet``); dataclass fields are message fields of the same name. Enums
are ``IntEnum`` with the proto's numbers, ``X | None`` is a proto3 ``optional`` field. The
referee's own events (:mod:`referee.engine.table_events`) are the ``referee`` field of
``Event``'s ``game`` oneof, the same for every game.

>>> from referee.games.vampire_queen.model import PlaySet
>>> message = command_to_proto("vampire-queen", PlaySet(value=8, count=3, queens=1))
>>> command_from_proto(message)
('vampire-queen', PlaySet(value=8, count=3, queens=1))
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from functools import cache, lru_cache
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from referee import rulebook
from referee.engine import labels
from referee.engine.game import Decision, FixedDeal, GameInfo, SeatResult, Viewer
from referee.engine.openings import CardOpening, CardsOpened, DeckCommitted
from referee.engine.registry import all_games, get_game
from referee.engine.table import View
from referee.engine.table_events import (
    DefaultPlayed,
    EventLimitReached,
    GameAborted,
    SeatForfeited,
    SeedCommitted,
    SeedRevealed,
    TableEvent,
    TimedOut,
)
from referee.v1 import referee_pb2 as pb


class CodecError(ValueError):
    """A message that does not describe a valid command: ``field`` names the offending path."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.description = message


def game_field(game_type: str) -> str:
    """The ``oneof`` field name of a game type id: ``vampire-queen`` -> ``vampire_queen``."""
    return game_type.replace("-", "_")


@cache
def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@cache
def _game_types_by_field() -> dict[str, str]:
    return {game_field(g.info.type_id): g.info.type_id for g in all_games()}


@cache
def _classes_by_name(game_type: str, kind: str) -> dict[str, type]:
    game = get_game(game_type)
    classes = game.command_types if kind == "command" else game.event_types
    return {_snake(cls.__name__): cls for cls in classes}


# --- generic dataclass <-> message ---------------------------------------------------------


@cache
def _field_plan(cls: Any) -> tuple[tuple[str, str, Any], ...]:
    """How to read each field of dataclass ``cls``: (name, kind, type) with kind one of
    scalar, enum, optional, repeated, repeated_message, message."""
    hints = typing.get_type_hints(cls)
    plan = []
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin in (types.UnionType, typing.Union):
            inner = next(a for a in args if a is not type(None))
            plan.append((f.name, "optional", inner))
        elif origin is tuple:
            item = args[0]
            kind = "repeated_message" if dataclasses.is_dataclass(item) else "repeated"
            plan.append((f.name, kind, item))
        elif dataclasses.is_dataclass(hint):
            plan.append((f.name, "message", hint))
        elif isinstance(hint, type) and issubclass(hint, enum.IntEnum):
            plan.append((f.name, "enum", hint))
        else:
            plan.append((f.name, "scalar", hint))
    return tuple(plan)


def fill(message: Message, obj: Any) -> Message:
    """Copy dataclass ``obj`` into ``message`` field by field; returns ``message``."""
    plan: tuple[tuple[str, str, Any], ...] = _field_plan(type(obj))  # type: ignore[arg-type]
    for name, kind, _ in plan:
        value = getattr(obj, name)
        if value is None:
            continue
        if kind == "repeated_message":
            target = getattr(message, name)
            for item in value:
                fill(target.add(), item)
        elif kind == "repeated":
            getattr(message, name).extend(value)
        elif kind == "message":
            fill(getattr(message, name), value)
        else:
            setattr(message, name, value)
    return message


def read(cls: type, message: Message) -> Any:
    """Build dataclass ``cls`` from ``message`` (the inverse of :func:`fill`)."""
    values: dict[str, Any] = {}
    for name, kind, inner in _field_plan(cls):
        if kind == "optional":
            values[name] = getattr(message, name) if message.HasField(name) else None
        elif kind == "repeated_message":
            values[name] = tuple(read(inner, item) for item in getattr(message, name))
        elif kind == "repeated":
            values[name] = tuple(getattr(message, name))
        elif kind == "message":
            values[name] = read(inner, getattr(message, name))
        elif kind == "enum":
            number = getattr(message, name)
            try:
                values[name] = inner(number)
            except ValueError:  # proto3 enums are open: a client may send any number
                raise CodecError(name, f"{number} is not a known {inner.__name__}") from None
        else:
            values[name] = getattr(message, name)
    return cls(**values)


def _game_oneof(message: Message, what: str) -> tuple[str, Message]:
    which = message.WhichOneof("game")
    if which is None:
        raise CodecError(f"{what}.game", "no game is set (e.g. vampire_queen)")
    type_id = _game_types_by_field().get(which)
    if type_id is None:
        raise CodecError(f"{what}.{which}", "this server does not run that game")
    return type_id, getattr(message, which)


def _kind_of(message: Message, path: str, classes: dict[str, type]) -> Any:
    kind = message.WhichOneof("kind")
    if kind is None:
        raise CodecError(f"{path}.kind", "empty: choose one of " + ", ".join(classes))
    return read(classes[kind], getattr(message, kind))


# --- fast encoding: wire bytes from compiled per-class encoders -----------------------------
#
# The server builds every seat's view and every redacted event after every command, so the
# messages above (``fill``) cost a Python loop, a getattr and a setattr into the C message per
# field, and a C object per nested message. The same messages are built here as their wire
# bytes by one straight-line function per (dataclass, message) pair, generated from the same
# names, then parsed once (``FromString``, in C). Parsing canonicalises: the message, and so
# its serialization, are those ``fill`` makes (tests/test_codec.py compares both over random
# play of every game). Immutable values that repeat are encoded once: small ints and strings
# by value, tuples of ints by value, tuples and frozen dataclasses (cards, trick plays,
# commands, events a redaction left alone) by identity. Anything the encoders do not cover
# (a type the protos do not use yet, a list where a tuple is declared, a value out of range)
# falls back to ``fill``, which builds it or raises the error it always did.

_MEMO_LIMIT = 4096  # entries per memo before it starts afresh (bounded memory)


class _Unsupported(Exception):
    """A dataclass or field the fast encoders do not cover (``fill`` does)."""


def _varint(number: int) -> bytes:
    out = bytearray()
    while number >= 0x80:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


class _Varints(dict[int, bytes]):
    """The varint bytes of each integer an int field of one range takes (memoised for small
    ones; negative numbers as the 10-byte two's complement proto3 uses)."""

    def __init__(self, low: int, high: int) -> None:
        super().__init__()
        self.low, self.high = low, high

    def __missing__(self, number: int) -> bytes:
        if not isinstance(number, int):
            raise TypeError(f"not an integer: {number!r}")
        if not self.low <= number < self.high:
            raise ValueError(f"{number} is out of range")
        data = _varint(number if number >= 0 else number + (1 << 64))
        if -256 <= number < 16384:
            self[int(number)] = data
        return data


_INT32 = _Varints(-(1 << 31), 1 << 31)
_INT64 = _Varints(-(1 << 63), 1 << 63)
_UINT32 = _Varints(0, 1 << 32)
_UINT64 = _Varints(0, 1 << 64)
_LEN = _UINT32

_FD = pb.View.DESCRIPTOR.fields_by_name["seat"]  # any field: the type constants
_VARINTS = {
    _FD.TYPE_INT32: _INT32,
    _FD.TYPE_ENUM: _INT32,
    _FD.TYPE_INT64: _INT64,
    _FD.TYPE_UINT32: _UINT32,
    _FD.TYPE_UINT64: _UINT64,
}


def _tag(number: int, wire_type: int) -> bytes:
    return _varint(number << 3 | wire_type)


class _Strings(dict[str, bytes]):
    """A string field's tag, length and UTF-8 bytes, by value."""

    def __init__(self, tag: bytes) -> None:
        super().__init__()
        self.tag = tag

    def __missing__(self, text: str) -> bytes:
        if not isinstance(text, str):
            raise TypeError(f"not a string: {text!r}")
        data = text.encode()
        piece = self.tag + _LEN[len(data)] + data
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        self[text] = piece
        return piece


class _Packed(dict[tuple[int, ...], bytes]):
    """A packed repeated varint field (tag, length, varints), by the tuple's value."""

    def __init__(self, tag: bytes, varints: _Varints) -> None:
        super().__init__()
        self.tag, self.varints = tag, varints

    def __missing__(self, values: tuple[int, ...]) -> bytes:
        piece = self.encode(values)
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        self[values] = piece
        return piece

    def encode(self, values: Any) -> bytes:
        varints = self.varints
        body = b"".join([varints[v] for v in values])
        return self.tag + _LEN[len(body)] + body


class _StringTuples(dict[tuple[str, ...], bytes]):
    """A repeated string field (each string's tag, length and bytes), by the tuple's value."""

    def __init__(self, strings: _Strings) -> None:
        super().__init__()
        self.strings = strings

    def __missing__(self, values: tuple[str, ...]) -> bytes:
        strings = self.strings
        piece = b"".join([strings[v] for v in values])
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        self[values] = piece
        return piece


#: Bumped whenever an encoder meets a mutable value (a list, a non-frozen dataclass): an
#: encoding that did is not kept by identity, as the value may change under the same id.
_MUTABLE = [0]


def _remember(memo: dict[int, tuple[Any, bytes]], value: Any, data: bytes) -> None:
    """Keep ``data`` as the encoding of ``value`` by identity. The entry holds ``value``, so
    its id cannot be reused by another object while the entry exists."""
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[id(value)] = (value, data)


class _Compiled:
    """The encoder of one dataclass as one message type: ``body(obj)`` is the message's
    bytes, ``encode(obj)`` the same, memoised by value for a *flat* class: every field a
    scalar, a string, a tuple of them or a flat message (cards, trick plays, most commands and
    events), whose field values (a nested message's by its bytes) make an exact, cheap key."""

    def __init__(self, cls: type, descriptor: Any) -> None:
        self.cls = cls
        self.descriptor = descriptor
        self.frozen = bool(cls.__dataclass_params__.frozen)  # type: ignore[attr-defined]
        self.plan = _field_plan(cls)
        self.names = tuple(name for name, _, _ in self.plan)
        self.pieces: dict[tuple[bytes, bool], Any] = {}
        #: The source of the memo key (``None``: not flat) and the names it uses.
        self.key: str | None = ""
        self.key_names: dict[str, Any] = {}
        items = []
        for i, (name, kind, inner) in enumerate(self.plan):
            if kind == "repeated_message":
                self.key = None
                break
            if kind == "message":
                field = descriptor.fields_by_name.get(name)
                if field is None or field.message_type is None:
                    self.key = None
                    break
                nested = _compiled(inner, field.message_type)
                if nested.key is None:
                    self.key = None
                    break
                self.key_names[f"K{i}"] = nested.piece(_tag(field.number, 2), True)
                items.append(f"(K{i}(o.{name}) if o.{name} is not None else None), ")
            else:
                items.append(f"o.{name}, ")
        if self.key is not None:
            self.key = "(" + "".join(items) + ")"
        self.flat = self.key is not None
        self.body: Any = _generate(cls, descriptor, self.frozen)
        self.encode: Any = _memoised(self)

    def present(self, obj: Any) -> bool:
        """Whether ``fill`` would mark the message present: it sets some field (an empty
        repeated message field or an absent nested message sets nothing)."""
        for name, kind, _ in self.plan:
            value = getattr(obj, name)
            if value is None:
                continue
            if kind == "repeated_message":
                if value:
                    return True
            elif kind == "message":
                cls: Any = type(value)
                nested = _compiled(cls, self.descriptor.fields_by_name[name].message_type)
                if nested.present(value):
                    return True
            else:
                return True
        return False

    def piece(self, tag: bytes, singular: bool) -> Any:
        """A function giving a value as a field with ``tag`` (tag, length and bytes): an
        element of a repeated field, or (``singular``) a field absent when ``fill`` would not
        set it. Memoised by value for a flat class, per field."""
        made = self.pieces.get((tag, singular))
        if made is None:
            made = self.pieces[(tag, singular)] = _piece(self, tag, singular)
        return made


@cache
def _compiled(cls: type, descriptor: Any) -> _Compiled:
    return _Compiled(cls, descriptor)


def _other(obj: Any, descriptor: Any) -> bytes:
    """A value of another class than the field declares (``fill`` goes by the value's)."""
    cls: Any = type(obj)
    data: bytes = _compiled(cls, descriptor).encode(obj)
    return data


def _memoised(compiled: _Compiled) -> Any:
    """``compiled.encode``: the class check, then (flat classes) the memo by field values."""
    names: dict[str, Any] = {
        "CLS": compiled.cls,
        "DESC": compiled.descriptor,
        "_other": _other,
        "body": compiled.body,
        "M": {},
        "LIMIT": _MEMO_LIMIT,
        "_MUTABLE": _MUTABLE,
    }
    lines = ["def encode(o):", "    if type(o) is not CLS: return _other(o, DESC)"]
    if not compiled.frozen:  # a mutable value: no encoding holding it is kept by identity
        lines.append("    _MUTABLE[0] += 1")
    names.update(compiled.key_names)
    if not compiled.flat:
        lines.append("    return body(o)")
    else:
        lines += [
            f"    k = {compiled.key}",
            "    r = M.get(k)",
            "    if r is None:",
            "        r = body(o)",
            "        if len(M) >= LIMIT: M.clear()",
            "        M[k] = r",
            "    return r",
        ]
    exec("\n".join(lines), names)  # the source is built from field names only
    return names["encode"]


def _piece(compiled: _Compiled, tag: bytes, singular: bool) -> Any:
    names: dict[str, Any] = {
        "CLS": compiled.cls,
        "T": tag,
        "LEN": _LEN,
        "encode": compiled.encode,
        "body": compiled.body,
        "single": lambda o: _single(o, compiled, tag),
        "M": {},
        "LIMIT": _MEMO_LIMIT,
        "_MUTABLE": _MUTABLE,
    }
    if not compiled.flat:
        source = (
            "def piece(o): return single(o)"
            if singular
            else ("def piece(o):\n    d = encode(o)\n    return T + LEN[len(d)] + d")
        )
    else:
        names.update(compiled.key_names)
        names["present"] = compiled.present
        test = "d or present(o)" if singular else "True"
        lines = [
            "def piece(o):",
            "    if type(o) is not CLS:",
            "        d = encode(o)" if not singular else "        return single(o)",
        ]
        if not singular:
            lines.append("        return T + LEN[len(d)] + d")
        if not compiled.frozen:
            lines.append("    _MUTABLE[0] += 1")
        lines += [
            f"    k = {compiled.key}",
            "    p = M.get(k)",
            "    if p is None:",
            "        d = body(o)",
            f"        p = T + LEN[len(d)] + d if {test} else b''",
            "        if len(M) >= LIMIT: M.clear()",
            "        M[k] = p",
            "    return p",
        ]
        source = "\n".join(lines)
    exec(source, names)  # the source is built from field names only
    return names["piece"]


def _repeated(values: Any, memo: dict[int, tuple[Any, bytes]], piece: Any) -> bytes:
    """A repeated message field (``fill`` adds an element for every item, even an empty one),
    the whole kept by identity for a tuple (a game may hand the same one to every viewer)."""
    hit = memo.get(id(values))
    if hit is not None and hit[0] is values:
        return hit[1]
    mark = _MUTABLE[0]
    data = b"".join(map(piece, values))
    if type(values) is not tuple:
        _MUTABLE[0] += 1
    elif _MUTABLE[0] == mark:
        _remember(memo, values, data)
    return data


def _single(value: Any, nested: _Compiled, tag: bytes) -> bytes:
    """A singular message field: present when ``fill`` would set any of its fields."""
    data: bytes = nested.encode(value)
    return tag + _LEN[len(data)] + data if data or nested.present(value) else b""


def _packed_list(values: Any, packed: _Packed) -> bytes:
    _MUTABLE[0] += 1  # a list: no encoding holding it is kept by identity
    return packed.encode(values)


def _strings_list(values: Any, strings: _Strings) -> bytes:
    if type(values) is not tuple:
        _MUTABLE[0] += 1
    return b"".join([strings[v] for v in values])


def _bytes_field(tag: bytes, data: Any) -> bytes:
    if not isinstance(data, bytes):
        raise TypeError(f"not bytes: {data!r}")
    return tag + _LEN[len(data)] + data


def _bytes_list(values: Any, tag: bytes) -> bytes:
    if type(values) is not tuple:
        _MUTABLE[0] += 1
    return b"".join([_bytes_field(tag, v) for v in values])


def _generate(cls: type, descriptor: Any, frozen: bool) -> Any:
    """The source of ``cls``'s encoder as ``descriptor``, one statement or two per field, in
    the order of :func:`fill` (which the field plan gives); compiled with ``exec``."""
    fd = _FD
    names: dict[str, Any] = {
        "_MUTABLE": _MUTABLE,
        "_repeated": _repeated,
        "_single": _single,
        "_packed_list": _packed_list,
        "_strings_list": _strings_list,
        "_bytes_field": _bytes_field,
        "_bytes_list": _bytes_list,
        "_Unsupported": _Unsupported,
        "tuple": tuple,
        # The last value of each tuple field and its bytes: the server encodes every
        # viewer's view of a state in a row, and a game may share its public parts.
        "L": [(None, b"")] * len(_field_plan(cls)),
    }
    lines = ["def encode(o):", "    out = []", "    a = out.append"]
    if not frozen:
        lines.append("    _MUTABLE[0] += 1")
    for i, (name, kind, inner) in enumerate(_field_plan(cls)):
        field = descriptor.fields_by_name.get(name)
        if field is None:
            raise _Unsupported(f"{descriptor.full_name} has no field {name}")
        if not name.isidentifier():  # pragma: no cover - dataclass field names are
            raise _Unsupported(name)
        lines.append(f"    v = o.{name}")
        ftype = field.type
        repeated = field.is_repeated
        if kind in ("scalar", "enum", "optional") and not repeated:
            presence = field.has_presence
            test = "v is not None" if presence else "v"
            if ftype in _VARINTS:
                names[f"T{i}"], names[f"V{i}"] = _tag(field.number, 0), _VARINTS[ftype]
                lines.append(f"    if {test}: a(T{i} + V{i}[v])")
            elif ftype == fd.TYPE_BOOL:
                names[f"T{i}"] = _tag(field.number, 0)
                lines += [
                    "    if v is True:",
                    f"        a(T{i} + b'\\x01')",
                    "    elif v is not False and v is not None:",
                    "        raise _Unsupported('not a bool')",
                ]
                if presence:
                    lines.append(f"    elif v is False: a(T{i} + b'\\x00')")
            elif ftype == fd.TYPE_STRING:
                names[f"S{i}"] = _Strings(_tag(field.number, 2))
                lines.append(f"    if {test}: a(S{i}[v])")
            elif ftype == fd.TYPE_BYTES:
                names[f"T{i}"] = _tag(field.number, 2)
                lines.append(f"    if {test}: a(_bytes_field(T{i}, v))")
            else:
                raise _Unsupported(f"{field.full_name}: type {ftype}")
        elif kind == "repeated" and repeated and ftype != fd.TYPE_MESSAGE:
            tag2 = _tag(field.number, 2)
            if ftype in _VARINTS or ftype == fd.TYPE_BOOL:
                varints = _VARINTS.get(ftype, _INT32)
                if ftype == fd.TYPE_BOOL:
                    raise _Unsupported(f"{field.full_name}: repeated bool")
                names[f"P{i}"] = _Packed(tag2, varints)
                lines += [
                    "    if v:",
                    f"        h = L[{i}]",
                    "        if h[0] is v: a(h[1])",
                    "        elif type(v) is tuple:",
                    f"            p = P{i}[v]",
                    f"            L[{i}] = (v, p)",
                    "            a(p)",
                    f"        else: a(_packed_list(v, P{i}))",
                ]
            elif ftype == fd.TYPE_STRING:
                names[f"S{i}"] = _Strings(tag2)
                names[f"R{i}"] = _StringTuples(names[f"S{i}"])
                lines += [
                    "    if v:",
                    f"        h = L[{i}]",
                    "        if h[0] is v: a(h[1])",
                    "        elif type(v) is tuple:",
                    f"            p = R{i}[v]",
                    f"            L[{i}] = (v, p)",
                    "            a(p)",
                    f"        else: a(_strings_list(v, S{i}))",
                ]
            elif ftype == fd.TYPE_BYTES:
                names[f"T{i}"] = tag2
                lines.append(f"    if v: a(_bytes_list(v, T{i}))")
            else:
                raise _Unsupported(f"{field.full_name}: type {ftype}")
        elif kind == "repeated_message" and repeated and ftype == fd.TYPE_MESSAGE:
            names[f"C{i}"] = {}
            names[f"E{i}"] = _compiled(inner, field.message_type).piece(
                _tag(field.number, 2), False
            )
            lines += [
                "    if v:",
                f"        h = L[{i}]",
                "        if h[0] is v: a(h[1])",
                "        else:",
                "            m = _MUTABLE[0]",
                f"            p = _repeated(v, C{i}, E{i})",
                f"            if type(v) is tuple and m == _MUTABLE[0]: L[{i}] = (v, p)",
                "            a(p)",
            ]
        elif kind == "message" and not repeated and ftype == fd.TYPE_MESSAGE:
            names[f"E{i}"] = _compiled(inner, field.message_type).piece(_tag(field.number, 2), True)
            lines.append(f"    if v is not None: a(E{i}(v))")
        else:
            raise _Unsupported(f"{field.full_name}: {kind} as {ftype}")
    lines.append("    return b''.join(out)")
    exec("\n".join(lines), names)  # the source is built above from field names only
    return names["encode"]


# --- the messages, from those encoders ---------------------------------------------------------


@dataclasses.dataclass(slots=True)
class _Entry:
    """How one class sits in a Command, Event or View: the tag of the game's field, then
    (commands and events) the tag of its ``kind`` case, and the class's encoder."""

    outer: bytes
    case: bytes
    encoder: _Compiled
    memo: dict[int, tuple[Any, bytes]] = dataclasses.field(default_factory=dict)

    def build(self, value: Any) -> bytes:
        """``value`` as the game's field, its case set even when empty (``SetInParent``)."""
        body: bytes = self.encoder.encode(value)
        inner = self.case + _LEN[len(body)] + body
        return self.outer + _LEN[len(inner)] + inner

    def piece(self, value: Any) -> bytes:
        """:meth:`build`, kept by identity (legal commands are mostly the same objects)."""
        hit = self.memo.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        mark = _MUTABLE[0]
        data = self.build(value)
        if self.encoder.frozen and _MUTABLE[0] == mark:
            _remember(self.memo, value, data)
        return data


class _Entries(dict[type, _Entry]):
    """The entries of one game (``field``) in one container message, by class."""

    def __init__(self, container: Any, field: str, cased: bool) -> None:
        super().__init__()
        self.container, self.field, self.cased = container, field, cased

    def __missing__(self, cls: type) -> _Entry:
        outer = self.container.fields_by_name[self.field]
        if self.cased:
            case = outer.message_type.fields_by_name[_snake(cls.__name__)]
            entry = _Entry(
                _tag(outer.number, 2), _tag(case.number, 2), _compiled(cls, case.message_type)
            )
        else:
            entry = _Entry(_tag(outer.number, 2), b"", _compiled(cls, outer.message_type))
        self[cls] = entry
        return entry


class _GameEntries(dict[str, tuple[_Entries, _Entries, _Entries]]):
    """Each game type's entries in Command, Event and View (a plain lookup: every view and
    event asks)."""

    def __missing__(self, game_type: str) -> tuple[_Entries, _Entries, _Entries]:
        field = game_field(game_type)
        entries = (
            _Entries(pb.Command.DESCRIPTOR, field, True),
            _Entries(pb.Event.DESCRIPTOR, field, True),
            _Entries(pb.View.DESCRIPTOR, field, False),
        )
        self[game_type] = entries
        return entries


_GAMES = _GameEntries()
_REFEREE_EVENTS = _Entries(pb.Event.DESCRIPTOR, "referee", True)


_parse_event = pb.Event.FromString
_parse_view = pb.View.FromString
_parse_command = pb.Command.FromString
_EVENT = pb.Event.DESCRIPTOR
_VIEW = pb.View.DESCRIPTOR


def _command_bytes(game_type: str, command: Any) -> bytes:
    return _GAMES[game_type][0][type(command)].piece(command)


#: Referee events whose dataclass maps onto its ``RefereeEvent`` case by name (the others,
#: with a nested deal or command, are built by ``table_event_to_proto``).
_BY_NAME = (
    SeedCommitted,
    DeckCommitted,
    CardsOpened,
    SeatForfeited,
    GameAborted,
    EventLimitReached,
)


def _event_bytes(game_type: str, event: Any) -> bytes:
    """The ``game`` oneof of an Event message (its tag, length and bytes)."""
    cls = type(event)
    if isinstance(event, TableEvent):
        if cls in _BY_NAME:
            return _REFEREE_EVENTS[cls].build(event)
        inner = table_event_to_proto(game_type, event, 0).referee.SerializeToString()
        return _REFEREE_TAG + _LEN[len(inner)] + inner
    return _GAMES[game_type][1][cls].build(event)


_REFEREE_TAG = _tag(_EVENT.fields_by_name["referee"].number, 2)
_SEQUENCE_TAG = _tag(_EVENT.fields_by_name["sequence"].number, 0)
_DESCRIPTION_TAG = _tag(_EVENT.fields_by_name["description"].number, 2)


#: An event's bytes (all but the sequence number) without and with its description, by
#: identity: the server encodes each event for every viewer, and a redaction that hides
#: nothing (or hides the same from several viewers) hands them the same object. Entries are
#: ``[event, game type, bytes, bytes with the description or None]``.
_EVENTS: dict[int, list[Any]] = {}


def _event_memo(game_type: str, event: Any) -> list[Any]:
    memo = _EVENTS.get(id(event))
    if memo is not None and memo[0] is event and memo[1] == game_type:
        return memo
    mark = _MUTABLE[0]
    memo = [event, game_type, _event_bytes(game_type, event), None]
    params = getattr(type(event), "__dataclass_params__", None)
    if _MUTABLE[0] == mark and params is not None and params.frozen:  # immutable: keep it
        if len(_EVENTS) >= _MEMO_LIMIT:
            _EVENTS.clear()
        _EVENTS[id(event)] = memo
    return memo


def _described(memo: list[Any]) -> bytes:
    """The memo's bytes with the event's display text (built once)."""
    described: bytes | None = memo[3]
    if described is None:
        event = memo[0]
        if isinstance(event, TableEvent):
            text = labels.table_event_text(event)
        else:  # the text depends on the (redacted) event alone
            text = get_game(memo[1]).event_text(event)
        data = text.encode()
        described = memo[2] + (_DESCRIPTION_TAG + _LEN[len(data)] + data if data else b"")
        memo[3] = described
    return described


def _v(name: str, wire_type: int) -> bytes:
    return _tag(_VIEW.fields_by_name[name].number, wire_type)


_GAME_IDS = _Strings(_v("game_id", 2))
_GAME_TYPES = _Strings(_v("game_type", 2))
_SEAT_TAG = _v("seat", 0)
_VERSION_TAG = _v("version", 0)
_PENDING = _Packed(_v("pending_seats", 2), _INT32)
_LEGAL_TAG = _v("legal_commands", 2)
_OVER = _v("game_over", 0) + b"\x01"
_RESULTS: tuple[Any, dict[int, tuple[Any, bytes]]] = (
    _compiled(SeatResult, pb.SeatResult.DESCRIPTOR).piece(_v("results", 2), False),
    {},
)
_PLAYERS_TAG = _v("players", 0)
_DECISIONS: tuple[Any, dict[int, tuple[Any, bytes]]] = (
    _compiled(Decision, pb.PendingDecision.DESCRIPTOR).piece(_v("decisions", 2), False),
    {},
)
_COMMITMENTS = _Strings(_v("seed_commitment", 2))
_ABORTED = _v("aborted", 0) + b"\x01"
_LABELS = _Strings(_v("legal_command_labels", 2))


def _view_bytes(game_id: str, players: int, view: View) -> bytes:
    """The View message :func:`reference_view_to_proto` builds, as wire bytes."""
    game_type = view.game_type
    parts: list[bytes] = []
    a = parts.append
    if game_id:
        a(_GAME_IDS[game_id])
    if game_type:
        a(_GAME_TYPES[game_type])
    if view.viewer is not None:
        a(_SEAT_TAG + _INT32[view.viewer])
    if view.version:
        a(_VERSION_TAG + _UINT64[view.version])
    pending = view.pending
    if pending:
        a(_PENDING[pending] if type(pending) is tuple else _PENDING.encode(pending))
    legal = view.legal_commands
    if legal:
        commands = _GAMES[game_type][0]
        for command in legal:
            data = commands[type(command)].piece(command)
            a(_LEGAL_TAG + _LEN[len(data)] + data)
    if view.over:
        a(_OVER)
    if view.results:
        a(_repeated(view.results, _RESULTS[1], _RESULTS[0]))
    if players:
        a(_PLAYERS_TAG + _INT32[players])
    if view.decisions:
        a(_repeated(view.decisions, _DECISIONS[1], _DECISIONS[0]))
    if view.commitment:
        a(_COMMITMENTS[view.commitment])
    if view.aborted:
        a(_ABORTED)
    if legal:
        label, game = get_game(game_type).command_label, view.game
        labels_ = _LABELS
        for command in legal:
            a(labels_[label(command, game)])
    entry = _GAMES[game_type][2][type(view.game)]
    body = entry.encoder.encode(view.game)
    if body or entry.encoder.present(view.game):
        a(entry.outer + _LEN[len(body)] + body)
    return b"".join(parts)


# --- commands, events, views ---------------------------------------------------------------


def command_to_proto(game_type: str, command: Any) -> pb.Command:
    try:
        return _parse_command(_command_bytes(game_type, command))
    except Exception:  # not covered by the fast encoders: fill builds it, or raises
        return reference_command_to_proto(game_type, command)


def reference_command_to_proto(game_type: str, command: Any) -> pb.Command:
    """:func:`command_to_proto` the straightforward way (:func:`fill`)."""
    message = pb.Command()
    inner = getattr(message, game_field(game_type))
    target = getattr(inner, _snake(type(command).__name__))
    target.SetInParent()  # an empty command (Pass) must still select its oneof field
    fill(target, command)
    return message


@lru_cache(maxsize=8192)
def _cached_command(game_type: str, command: Any) -> pb.Command:
    return reference_command_to_proto(game_type, command)


def _command_message(game_type: str, command: Any) -> pb.Command:
    """``command_to_proto``, built once per distinct command: a view lists the same few legal
    commands again and again. The result is shared, so it is only ever copied (``extend``)."""
    try:
        return _cached_command(game_type, command)
    except TypeError:  # an unhashable command: build it each time
        return reference_command_to_proto(game_type, command)


def command_from_proto(message: pb.Command, path: str = "command") -> tuple[str, Any]:
    """(game type, command); :class:`CodecError` when the message names no command."""
    type_id, inner = _game_oneof(message, path)
    return type_id, _kind_of(
        inner, f"{path}.{game_field(type_id)}", _classes_by_name(type_id, "command")
    )


def event_to_proto(
    game_type: str, event: Any, sequence: int, *, describe: bool = False
) -> pb.Event:
    """``event`` as a message; with ``describe``, also its display text (``description``),
    which only messages sent to a viewer carry (not the stored log)."""
    try:
        memo = _event_memo(game_type, event)
        data = _described(memo) if describe else memo[2]
        if sequence:
            data = _SEQUENCE_TAG + _UINT64[sequence] + data
        return _parse_event(data)
    except Exception:  # not covered by the fast encoders: fill builds it, or raises
        return reference_event_to_proto(game_type, event, sequence, describe=describe)


def reference_event_to_proto(
    game_type: str, event: Any, sequence: int, *, describe: bool = False
) -> pb.Event:
    """:func:`event_to_proto` the straightforward way (:func:`fill`)."""
    if isinstance(event, TableEvent):
        message = table_event_to_proto(game_type, event, sequence)
        if describe:
            message.description = labels.table_event_text(event)
        return message
    message = pb.Event(sequence=sequence)
    inner = getattr(message, game_field(game_type))
    target = getattr(inner, _snake(type(event).__name__))
    target.SetInParent()
    fill(target, event)
    if describe:
        message.description = get_game(game_type).event_text(event)
    return message


def event_from_proto(message: pb.Event) -> Any:
    if message.WhichOneof("game") == "referee":
        return table_event_from_proto(message.referee)
    type_id, inner = _game_oneof(message, "event")
    return _kind_of(inner, "event", _classes_by_name(type_id, "event"))


def table_event_to_proto(game_type: str, event: TableEvent, sequence: int) -> pb.Event:
    """A referee event (commitment, reveal, timeout, forfeit, abort) as ``Event.referee``."""
    message = pb.Event(sequence=sequence)
    inner = message.referee
    if isinstance(event, SeedCommitted):
        inner.seed_committed.commitment = event.commitment
        inner.seed_committed.deal_commitment = event.deal_commitment
    elif isinstance(event, SeedRevealed):
        revealed = inner.seed_revealed
        revealed.SetInParent()
        revealed.seed, revealed.salt, revealed.public = event.seed, event.salt, event.public
        if event.deal is not None:
            revealed.deal.CopyFrom(deal_to_proto(event.deal))
    elif isinstance(event, TimedOut):
        timed_out = inner.timed_out
        timed_out.seat, timed_out.kind, timed_out.rule_id = event.seat, event.kind, event.rule_id
        timed_out.timeouts = event.timeouts
        if event.command is not None:
            timed_out.command.CopyFrom(command_to_proto(game_type, event.command))
    elif isinstance(event, SeatForfeited):
        inner.seat_forfeited.seat = event.seat
        inner.seat_forfeited.timeouts = event.timeouts
    elif isinstance(event, DefaultPlayed):
        played = inner.default_played
        played.seat, played.kind, played.rule_id = event.seat, event.kind, event.rule_id
        if event.command is not None:
            played.command.CopyFrom(command_to_proto(game_type, event.command))
    elif isinstance(event, GameAborted):
        inner.game_aborted.reason = event.reason
    elif isinstance(event, DeckCommitted):
        deck = inner.deck_committed
        deck.shuffle, deck.size, deck.root = event.shuffle, event.size, event.root
    elif isinstance(event, CardsOpened):
        opened = inner.cards_opened
        opened.SetInParent()
        for o in event.openings:
            opened.openings.add(
                shuffle=o.shuffle,
                position=o.position,
                card=o.card,
                salt=o.salt,
                path=o.path,
                seats=o.seats,
                public=o.public,
            )
    elif isinstance(event, EventLimitReached):
        inner.event_limit_reached.limit = event.limit
        inner.event_limit_reached.results.extend(results_to_proto(event.results))
    else:  # pragma: no cover - every TableEvent subclass is listed above
        raise TypeError(f"not a referee event: {event!r}")
    return message


def table_event_from_proto(message: pb.RefereeEvent) -> TableEvent:
    """The inverse of :func:`table_event_to_proto`; :class:`CodecError` for an empty one."""
    kind = message.WhichOneof("kind")
    if kind == "seed_committed":
        committed = message.seed_committed
        return SeedCommitted(committed.commitment, committed.deal_commitment)
    if kind == "seed_revealed":
        revealed = message.seed_revealed
        deal = deal_from_proto(revealed.deal) if revealed.HasField("deal") else None
        return SeedRevealed(bytes(revealed.seed), deal, bytes(revealed.salt), revealed.public)
    if kind == "timed_out":
        t = message.timed_out
        command = command_from_proto(t.command)[1] if t.HasField("command") else None
        return TimedOut(t.seat, t.kind, t.rule_id, command, t.timeouts)
    if kind == "seat_forfeited":
        return SeatForfeited(message.seat_forfeited.seat, message.seat_forfeited.timeouts)
    if kind == "default_played":
        d = message.default_played
        command = command_from_proto(d.command)[1] if d.HasField("command") else None
        return DefaultPlayed(d.seat, d.kind, d.rule_id, command)
    if kind == "game_aborted":
        return GameAborted(message.game_aborted.reason)
    if kind == "deck_committed":
        deck = message.deck_committed
        return DeckCommitted(deck.shuffle, deck.size, deck.root)
    if kind == "cards_opened":
        return CardsOpened(
            tuple(
                CardOpening(
                    o.shuffle,
                    o.position,
                    o.card,
                    bytes(o.salt),
                    tuple(bytes(p) for p in o.path),
                    tuple(o.seats),
                    o.public,
                )
                for o in message.cards_opened.openings
            )
        )
    if kind == "event_limit_reached":
        reached = message.event_limit_reached
        results = tuple(SeatResult(r.seat, r.score, r.rank) for r in reached.results)
        return EventLimitReached(reached.limit, results)
    raise CodecError("event.referee.kind", "empty")


def game_type_to_proto(info: GameInfo) -> pb.GameType:
    """A game type's public description, as ``ListGameTypes`` lists it."""
    entry = pb.GameType(
        game_type=info.type_id,
        name=info.name,
        min_players=info.min_players,
        max_players=info.max_players,
        rules=info.rules,
        summary=info.summary,
        rules_path=rulebook.rules_path(info.rules),
        rules_text=rulebook.rules_text(info.rules),
        max_events=info.max_events,
    )
    for option in info.options:
        entry.options.add(
            name=option.name,
            default_value=option.default,
            description=option.description,
            allowed_values=option.allowed,
            minimum=option.minimum,
            maximum=option.maximum,
        )
    return entry


def results_to_proto(results: tuple[SeatResult, ...] | None) -> list[pb.SeatResult]:
    return [pb.SeatResult(seat=r.seat, score=r.score, rank=r.rank) for r in results or ()]


def decisions_to_proto(decisions: tuple[Decision, ...]) -> list[pb.PendingDecision]:
    return [pb.PendingDecision(seat=d.seat, kind=d.kind, rule_id=d.rule_id) for d in decisions]


def view_to_proto(game_id: str, players: int, view: View) -> pb.View:
    try:
        return _parse_view(_view_bytes(game_id, players, view))
    except Exception:  # not covered by the fast encoders: fill builds it, or raises
        return reference_view_to_proto(game_id, players, view)


def reference_view_to_proto(game_id: str, players: int, view: View) -> pb.View:
    """:func:`view_to_proto` the straightforward way (:func:`fill`)."""
    message = pb.View(
        game_id=game_id,
        game_type=view.game_type,
        version=view.version,
        pending_seats=view.pending,
        decisions=decisions_to_proto(view.decisions),
        game_over=view.over,
        results=results_to_proto(view.results),
        players=players,
        seed_commitment=view.commitment,
        aborted=view.aborted,
    )
    if view.viewer is not None:
        message.seat = view.viewer
    message.legal_commands.extend(_command_message(view.game_type, c) for c in view.legal_commands)
    if view.legal_commands:
        game = get_game(view.game_type)
        message.legal_command_labels.extend(
            game.command_label(c, view.game) for c in view.legal_commands
        )
    fill(getattr(message, game_field(view.game_type)), view.game)
    return message


def view_from_proto(message: pb.View) -> View:
    """The engine's View from its message (used by tests and the scenario runner)."""
    type_id, inner = _game_oneof(message, "view")
    viewer: Viewer = message.seat if message.HasField("seat") else None
    results = (
        tuple(SeatResult(r.seat, r.score, r.rank) for r in message.results)
        if message.game_over and not message.aborted
        else None
    )
    return View(
        game_type=type_id,
        viewer=viewer,
        version=message.version,
        pending=tuple(message.pending_seats),
        decisions=tuple(Decision(d.seat, d.kind, d.rule_id) for d in message.decisions),
        legal_commands=tuple(command_from_proto(c)[1] for c in message.legal_commands),
        game=read(get_game(type_id).view_type, inner),
        results=results,
        commitment=message.seed_commitment,
        aborted=message.aborted,
    )


def deal_from_proto(message: pb.FixedDeal) -> FixedDeal | None:
    if not message.decks and not message.picks:
        return None
    return FixedDeal(
        decks=tuple(tuple(deck.cards) for deck in message.decks), picks=tuple(message.picks)
    )


def deal_to_proto(deal: FixedDeal | None) -> pb.FixedDeal:
    message = pb.FixedDeal()
    if deal is not None:
        for deck in deal.decks:
            message.decks.add().cards.extend(deck)
        message.picks.extend(deal.picks)
    return message


def command_from_json(data: Any) -> tuple[str, Any]:
    """A command in the proto's JSON form, e.g. ``{"vampireQueen": {"pass": {}}}``."""
    message = pb.Command()
    try:
        json_format.ParseDict(data, message)
    except json_format.ParseError as error:
        raise CodecError("command", str(error)) from None
    return command_from_proto(message)
