"""The protobuf wire format, one field at a time: how a value is written as a field's bytes
(key, varint or length, payload) and read back from a parsed message.

:mod:`referee.codec` builds one writer and one reader per field of each (dataclass, message)
pair from these. Writers give exactly protobuf's own bytes for a field: nothing for a field
at its default (proto3), numbers in packed repeated fields, negative numbers as the 10-byte
two's complement, and TypeError or ValueError where protobuf refuses a value.

>>> from referee.v1 import referee_pb2 as pb
>>> write = repeated_writer(pb.View.DESCRIPTOR.fields_by_name["pending_seats"])
>>> write((1, 300)) == pb.View(pending_seats=[1, 300]).SerializeToString()
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from referee.engine.fields import FieldType, Kind


class CodecError(ValueError):
    """A message that does not describe a valid command: ``field`` names the offending path."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.description = message


#: Each one-byte varint (0 to 127), by its number.
SMALL = tuple(bytes((number,)) for number in range(0x80))


def varint(number: int) -> bytes:
    """A non-negative number as a protobuf varint.

    >>> varint(1), varint(300)
    (b'\\x01', b'\\xac\\x02')
    """
    if number < 0x80:
        return SMALL[number]
    out = bytearray()
    while number >= 0x80:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    """A field's key: its number and wire type (0 varint, 2 length-delimited)."""
    return varint(number << 3 | wire_type)


def delimited(key: bytes, data: bytes) -> bytes:
    """A length-delimited field: its key, its length, its bytes.

    >>> delimited(b"\\x12", b"abc")
    b'\\x12\\x03abc'
    """
    size = len(data)
    return key + (SMALL[size] if size < 0x80 else varint(size)) + data


def keyed(key: bytes) -> tuple[bytes, ...]:
    """``key`` followed by each one-byte varint, by index: a small number's whole field, or
    the start of a short length-delimited one."""
    return tuple(key + small for small in SMALL)


_FD = FieldDescriptor
_RANGES = {
    _FD.TYPE_INT32: (-(1 << 31), 1 << 31),
    _FD.TYPE_ENUM: (-(1 << 31), 1 << 31),
    _FD.TYPE_INT64: (-(1 << 63), 1 << 63),
    _FD.TYPE_UINT32: (0, 1 << 32),
    _FD.TYPE_UINT64: (0, 1 << 64),
}


def _integer(low: int, high: int) -> Callable[[Any], bytes]:
    """The varint of a number of an integer field of range [low, high)."""

    def number_bytes(value: Any) -> bytes:
        if not isinstance(value, int):
            raise TypeError(f"not an integer: {value!r}")
        if not low <= value < high:
            raise ValueError(f"{value} is out of range")
        return varint(value if value >= 0 else value + (1 << 64))

    return number_bytes


def _text(value: Any) -> bytes:
    if type(value) is not str:
        raise TypeError(f"not a string: {value!r}")
    return value.encode()


def _blob(value: Any) -> bytes:
    if type(value) is not bytes:
        raise TypeError(f"not bytes: {value!r}")
    return value


#: A field's writer: its value to the field's wire bytes (``b""`` when nothing is written).
Writer = Callable[[Any], bytes]

# The writers are the codec's inner loop (every field of every view and event), so each is
# one small function with the common case first: a number under 128, a short string, whose
# key and length come whole from a ``keyed`` table. ``0 <= value < 0x80`` raises TypeError
# for a value that is not a number, as protobuf does.


def scalar_writer(field: FieldDescriptor) -> Writer:
    """A singular scalar field: absent when it has its default, or (proto3 ``optional``)
    when it is ``None``."""
    kind, presence, key = field.type, field.has_presence, tag(field.number, 0)
    if kind in _RANGES:
        large, small = _integer(*_RANGES[kind]), keyed(key)

        def number(value: Any) -> bytes:
            if not value and (value is None or not presence):
                return b""
            if 0 <= value < 0x80:
                data: bytes = small[value]
                return data
            return key + large(value)

        return number
    if kind == _FD.TYPE_BOOL:
        true, false = key + b"\x01", key + b"\x00"
        if presence:
            return lambda value: b"" if value is None else true if value else false
        return lambda value: true if value else b""
    key = tag(field.number, 2)
    short = keyed(key)

    def string(value: Any) -> bytes:
        if not value and (value is None or not presence):
            return b""
        data = value.encode() if type(value) is str else _text(value)
        size = len(data)
        return short[size] + data if size < 0x80 else key + varint(size) + data

    def blob(value: Any) -> bytes:
        if not value and (value is None or not presence):
            return b""
        data = value if type(value) is bytes else _blob(value)
        size = len(data)
        return short[size] + data if size < 0x80 else key + varint(size) + data

    if kind == _FD.TYPE_STRING:
        return string
    if kind == _FD.TYPE_BYTES:
        return blob
    raise TypeError(f"{field.full_name}: no writer for field type {kind}")


def repeated_writer(field: FieldDescriptor) -> Writer:
    """A repeated scalar field: numbers packed (proto3), strings and bytes one by one."""
    key = tag(field.number, 2)
    if field.type in _RANGES:
        large = _integer(*_RANGES[field.type])

        def packed(values: Any) -> bytes:
            if not values:
                return b""
            return delimited(
                key, b"".join([SMALL[v] if 0 <= v < 0x80 else large(v) for v in values])
            )

        return packed
    if field.type == _FD.TYPE_STRING:
        short = keyed(key)

        def strings(values: Any) -> bytes:
            out = []
            for value in values:  # each string, even an empty one
                data = value.encode() if type(value) is str else _text(value)
                out.append(short[len(data)] + data if len(data) < 0x80 else delimited(key, data))
            return b"".join(out)

        return strings
    if field.type == _FD.TYPE_BYTES:
        return lambda values: b"".join([delimited(key, _blob(v)) for v in values])
    raise TypeError(f"{field.full_name}: no writer for repeated field type {field.type}")


def messages_writer(key: bytes, encode: Callable[[Any], bytes]) -> Writer:
    """A repeated message field whose items ``encode`` writes: every item, even an empty
    one."""
    short = keyed(key)

    def repeated(values: Any) -> bytes:
        return b"".join(
            [
                short[len(data)] + data if len(data) < 0x80 else delimited(key, data)
                for data in map(encode, values)
            ]
        )

    return repeated


def message_writer(key: bytes, encode: Callable[[Any], bytes]) -> Writer:
    """A singular message field: present (even empty) unless the value is ``None``."""
    short = keyed(key)

    def single(value: Any) -> bytes:
        if value is None:
            return b""
        data = encode(value)
        return short[len(data)] + data if len(data) < 0x80 else delimited(key, data)

    return single


#: A field's reader: the field's value from a parsed message.
Reader = Callable[[Message], Any]


def _enum_reader(name: str, cls: Any) -> Callable[[int], Any]:
    def member(number: int) -> Any:
        try:
            return cls(number)
        except ValueError:  # proto3 enums are open: a client may send any number
            raise CodecError(name, f"{number} is not a known {cls.__name__}") from None

    return member


def scalar_reader(name: str, ftype: FieldType, presence: bool) -> Reader:
    """A singular scalar field (``None`` when a field with presence is absent); an enum's
    member for an ``IntEnum`` field, :class:`CodecError` for a number it does not know."""
    inner = ftype.item if ftype.kind is Kind.OPTIONAL else ftype
    assert inner is not None
    convert = _enum_reader(name, inner.cls) if inner.kind is Kind.ENUM else None
    if presence:
        if convert is not None:
            return lambda m: convert(getattr(m, name)) if m.HasField(name) else None
        return lambda m: getattr(m, name) if m.HasField(name) else None
    if convert is not None:
        return lambda m: convert(getattr(m, name))
    return lambda m: getattr(m, name)


def repeated_reader(name: str, item: FieldType) -> Reader:
    """A repeated scalar field, as a tuple (of enum members for ``IntEnum`` items)."""
    if item.kind is Kind.ENUM:
        convert = _enum_reader(name, item.cls)
        return lambda m: tuple(map(convert, getattr(m, name)))
    return lambda m: tuple(getattr(m, name))
