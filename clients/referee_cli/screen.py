"""The screen of a view, for any game, from the message alone (pure functions, no I/O).

The CLI knows no game: the server's view says everything a seat may see, and its fields and
enum values have names. The game's own view (``View.game``) is laid out by what each field is:

* ``hand``: the viewer's cards, on a line of their own;
* a list with one entry per seat (``hand_sizes``), or a list of messages with a ``seat``
  field (``awake``, ``characters``): columns of the seat table, one row per seat;
* any other value, list or message: a fact, ``name: value``, wrapped to the screen's width;
* a field named as one of the game's options (``ListGameTypes``): left out (the rules of the
  table, not its state).

Values read as words: an enum value without its type's prefix (``COLOUR_RED`` -> ``red``), a
message as its set fields (``{colour: COLOUR_PURPLE, value: 7}`` -> ``purple 7``), a message
with no field set (a card the viewer may not see) as ``?``.

>>> from referee.v1 import dracula_vs_van_helsing_pb2 as dv
>>> card = dv.DraculaVsVanHelsing.Card(colour=dv.DraculaVsVanHelsing.COLOUR_PURPLE, value=7)
>>> value_text(card), value_text(dv.DraculaVsVanHelsing.Card())
('purple 7', '?')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from referee.v1 import referee_pb2

SCREEN_WIDTH = 80
_INTEGERS = frozenset(
    {
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SINT64,
    }
)
#: Field names shown as the bare value in a message's words (``purple 7``, not ``value 7``).
BARE = frozenset({"value", "name", "kind", "colour", "color", "card", "queen", "symbol"})


@dataclass(frozen=True)
class GameInfo:
    """What the CLI knows of a game type from ``ListGameTypes``: its name and option names."""

    name: str = ""
    options: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, game_type: referee_pb2.GameType) -> GameInfo:
        return cls(game_type.name, frozenset(option.name for option in game_type.options))


def words(name: str) -> str:
    """``hand_sizes`` -> ``hand sizes``."""
    return name.replace("_", " ")


def enum_text(descriptor: EnumDescriptor, number: int) -> str:
    """An enum value in words, without the prefix its values share.

    >>> from referee.v1 import mau_mau_vampires_pb2 as mm
    >>> enum_text(mm.MauMauVampires.CardKind.DESCRIPTOR, mm.MauMauVampires.CARD_KIND_MAU_MAU)
    'mau mau'
    """
    value = descriptor.values_by_number.get(number)
    if value is None:
        return str(number)
    names = [v.name for v in descriptor.values]
    prefix = names[0]
    for name in names[1:]:
        while not name.startswith(prefix):
            prefix = prefix[:-1]
    prefix = prefix[: prefix.rfind("_") + 1]  # whole words only
    return words(value.name[len(prefix) :].lower()) or value.name.lower()


def _is_default(message: Message) -> bool:
    return not message.ListFields()


def scalar_text(descriptor: FieldDescriptor, value: object) -> str:
    if descriptor.type == FieldDescriptor.TYPE_ENUM:
        assert isinstance(value, int) and descriptor.enum_type is not None
        return enum_text(descriptor.enum_type, value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def value_text(message: Message, skip: Iterable[str] = ()) -> str:
    """A message in a few words: its set fields, named unless the name is obvious
    (:data:`BARE`), true flags by name; ``?`` when no field is set."""
    key = _key_field(message.DESCRIPTOR)
    if _is_default(message) and key is None:
        return "?"
    parts: list[str] = []
    listed = message.ListFields()
    if key is not None and key.name not in skip:
        parts.append(f"{getattr(message, key.name)}:")  # the key, even at 0 (position 0)
    for descriptor, value in listed:
        if descriptor.name in skip or descriptor is key:
            continue
        parts.append(_field_words(descriptor, value))
    if key is not None and len(parts) == 1:
        parts.append("-")
    return " ".join(part for part in parts if part) or "-"


def _key_field(message: Any) -> FieldDescriptor | None:
    """The field that numbers a message among its list (``district``, ``position``): its first
    field, when that is a plain integer other than a seat (seats have their own columns)."""
    first = message.fields[0] if message.fields else None
    if first is None or first.type not in _INTEGERS or first.is_repeated or first.has_presence:
        return None
    return None if first.name == "seat" or first.name in BARE else first


def _field_words(descriptor: FieldDescriptor, value: object) -> str:
    name = descriptor.name
    if _repeated(descriptor):
        items = list(value)  # type: ignore[call-overload]
        if descriptor.type == FieldDescriptor.TYPE_MESSAGE:
            text = ", ".join(value_text(item) for item in items)
        else:
            text = " ".join(scalar_text(descriptor, item) for item in items)
        return f"{words(name)} {text}" if name not in BARE else text
    if descriptor.type == FieldDescriptor.TYPE_MESSAGE:
        assert isinstance(value, Message)
        return value_text(value) if name in BARE else f"{words(name)} {value_text(value)}"
    if descriptor.type == FieldDescriptor.TYPE_BOOL:
        return words(name) if value else ""
    text = scalar_text(descriptor, value)
    return text if name in BARE else f"{words(name)} {text}"


def _repeated(descriptor: FieldDescriptor) -> bool:
    return bool(descriptor.is_repeated)


def _seat_keyed(descriptor: FieldDescriptor) -> bool:
    """A list of messages that each say whose they are (a ``seat`` field)."""
    if not _repeated(descriptor) or descriptor.type != FieldDescriptor.TYPE_MESSAGE:
        return False
    message: Descriptor | None = descriptor.message_type
    assert message is not None
    seat = message.fields_by_name.get("seat")
    return seat is not None and seat.type in _INTEGERS


#: A player's name is cut to this many characters on the screen (names go up to 32).
NAME_WIDTH = 16


def seat_name(seat: int, me: int | None = None, holders: Sequence[str] = ()) -> str:
    """``seat 2``, or ``seat 2 (you)`` for the viewer's own seat; when the seat's player has
    a name (``View.seat_holders``), the name with the seat's number, which the events'
    descriptions use: ``bob (seat 2)``, ``ann (you)``.

    >>> seat_name(2, 0, ["ann", "", "bob"]), seat_name(0, 0, ["ann"]), seat_name(1, 0, ["ann"])
    ('bob (seat 2)', 'ann (you)', 'seat 1')
    """
    name = holders[seat][:NAME_WIDTH] if seat < len(holders) else ""
    if name:
        return f"{name} (you)" if seat == me else f"{name} (seat {seat})"
    return f"seat {seat} (you)" if seat == me else f"seat {seat}"


def holder_names(view: referee_pb2.View) -> list[str]:
    """The player's name in each seat, ``""`` where none is known (an open seat, a seat held
    by token): from ``View.seat_holders``, never a token."""
    names = [""] * view.players
    for holder in view.seat_holders:
        if 0 <= holder.seat < view.players and holder.state == referee_pb2.SEAT_STATE_HELD:
            names[holder.seat] = holder.player
    return names


_SEAT = re.compile(r"\b([Ss])eat (\d+)\b")


def named(text: str, holders: Sequence[str]) -> str:
    """``text`` with each ``seat N`` whose player has a name (``holders``) written as the name:
    the referee's words describe a game, not who sits at it. A seat held anonymously stays
    ``seat N``.

    >>> named("seat 2 led the 15 Hunter; Seat 1 passed", ["ann", "", "bob"])
    'bob led the 15 Hunter; Seat 1 passed'
    """

    def name(found: re.Match[str]) -> str:
        seat = int(found[2])
        return holders[seat] if seat < len(holders) and holders[seat] else found[0]

    return _SEAT.sub(name, text)


def join(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def wrap(head: str, items: Sequence[str], width: int = SCREEN_WIDTH, sep: str = "  ") -> list[str]:
    """``head`` then ``items`` joined by ``sep``, wrapped at ``width`` (later lines indented).

    >>> wrap("Hand:", ["3", "4", "5"], width=10)
    ['Hand: 3  4', '  5']
    >>> wrap("Hand:", ["3", "4", "5"], width=10, sep=" ")
    ['Hand: 3 4', '  5']
    """
    lines: list[str] = []
    line = head
    pieces: list[str] = []
    for item in items:  # an item longer than a line is broken between its words
        pieces.extend(item.split(" ") if len(item) > width - 2 else [item])
    if len(pieces) > len(items):
        sep = " "
    for item in pieces:
        joiner = " " if line == head else sep
        if line.strip() and len(line) + len(joiner) + len(item) > width:
            lines.append(line)
            line = "  " + item
        else:
            line = f"{line}{joiner}{item}" if line else item
    lines.append(line)
    return lines


def _header(name: str, cells: Sequence[str]) -> tuple[str, str]:
    """A column's name on two lines when that makes the column narrower (``hand`` over
    ``sizes``)."""
    widest = max((len(cell) for cell in cells), default=0)
    if len(name) <= widest or " " not in name:
        return "", name
    middle = min(
        (i for i, c in enumerate(name) if c == " "), key=lambda i: max(i, len(name) - i - 1)
    )
    return name[:middle], name[middle + 1 :]


@dataclass
class _Table:
    """The seat table: a row per seat, a column per per-seat field."""

    players: int
    columns: list[tuple[str, list[str]]] = field(default_factory=list)

    def add(self, name: str, cells: list[str]) -> None:
        self.columns.append((name, cells + [""] * (self.players - len(cells))))

    def lines(
        self, me: int | None, pending: Sequence[int], width: int, holders: Sequence[str] = ()
    ) -> tuple[list[str], list[list[str]]]:
        """The table's lines (``>`` marks the seats the game waits for), and as facts the
        columns that would make it wider than ``width`` (widest first out)."""
        names = [
            f"{'>' if s in pending else ' '} {seat_name(s, me, holders)}"
            for s in range(self.players)
        ]
        first = max(len(n) for n in names)
        columns = list(self.columns)
        moved: list[list[str]] = []
        while True:
            heads = [_header(name, cells) for name, cells in columns]
            sizes = [
                max(len(top), len(bottom), *(len(c) for c in cells))
                for (top, bottom), (_, cells) in zip(heads, columns, strict=True)
            ]
            if first + sum(size + 2 for size in sizes) <= width or not columns:
                break
            widest = max(range(len(columns)), key=lambda c: sizes[c])
            name, cells = columns.pop(widest)
            items = [
                f"{named(f'seat {s}', holders)}: {cell}" for s, cell in enumerate(cells) if cell
            ]
            moved.append(wrap(f"{words(name).capitalize()}:", _separated(items, ";"), width, " "))
        if not columns:
            return [], moved
        rows = []
        for row in (0, 1):
            if row == 0 and not any(top for top, _ in heads):
                continue
            line = "".join(f"  {h[row]:>{size}}" for h, size in zip(heads, sizes, strict=True))
            rows.append((" " * first + line).rstrip())
        for seat, label in enumerate(names):
            line = "".join(
                f"  {c[seat]:>{size}}" for (_, c), size in zip(columns, sizes, strict=True)
            )
            rows.append(f"{label:<{first}}{line}".rstrip())
        return rows, moved


def _separated(items: list[str], mark: str) -> list[str]:
    return [item + mark for item in items[:-1]] + items[-1:]


def game_lines(
    view: referee_pb2.View, info: GameInfo, width: int = SCREEN_WIDTH
) -> tuple[list[str], list[list[str]], int]:
    """The game's own part of the screen: the lines of the hand and the seat table, and the
    facts (each its lines: one, or more when wrapped), and how many of the facts are the
    seats' (the columns too wide for the table, which come first). When the view carries the
    game's own lines (``view_lines``), only the seat table: the lines replace the rest."""
    which = view.WhichOneof("game")
    holders = holder_names(view)
    if which is None:
        return [], [], 0
    game: Message = getattr(view, which)
    me = view.seat if view.HasField("seat") else None
    table = _Table(view.players)
    facts: list[list[str]] = []
    hand: list[str] | None = None
    for descriptor, value in _state_fields(game):
        name = descriptor.name
        if name in info.options and not descriptor.is_repeated:
            continue  # a rule of the table, given at creation: not its state
        if name == "hand" and _repeated(descriptor):
            hand = [_item_text(descriptor, item) for item in value]
        elif _seat_keyed(descriptor):
            _seat_columns(table, descriptor, list(value))
        elif (
            _repeated(descriptor)
            and len(value) == view.players
            and descriptor.type != FieldDescriptor.TYPE_MESSAGE
        ):
            table.add(words(name), [_item_text(descriptor, item) for item in value])
        elif _repeated(descriptor):
            sep = ", " if descriptor.type == FieldDescriptor.TYPE_MESSAGE else " "
            items = [_item_text(descriptor, item) for item in value]
            listed = _separated(items, sep.strip())
            facts.append(wrap(f"{words(name).capitalize()}:", listed, width, " "))
        else:
            facts.append([f"{words(name).capitalize()}: {_single_text(descriptor, value)}"])
    if view.view_lines:
        # The game wrote its view in its own words (the hand by card names, the table):
        # those lines stand for the hand and the facts; only the seat table stays.
        rows = table.lines(me, list(view.pending_seats), width, holders)[0] if table.columns else []
        return rows, [], 0
    lines: list[str] = []
    if me is not None and "hand" in game.DESCRIPTOR.fields_by_name:
        cards = hand or []
        lines.extend(wrap(f"Your hand ({len(cards)}):", cards or ["(empty)"], width, " "))
    if table.columns:
        rows, moved = table.lines(me, list(view.pending_seats), width, holders)
        lines.extend(rows)
        facts[:0] = moved
        return lines, facts, len(moved)
    return lines, facts, 0


def pack(facts: list[list[str]], room: int, width: int = SCREEN_WIDTH, first: int = 0) -> list[str]:
    """The facts in at most ``room`` lines where they can be: short ones side by side
    (``Round: 1   Rounds: 5``), wrapped ones on lines of their own, cut to one line ending in
    ``...`` while they do not fit: from the last one up, the ``first`` ones last.

    >>> pack([["A: 1"], ["B: 2"], ["C: x y", "  z"]], room=3)
    ['A: 1   B: 2', 'C: x y', '  z']
    >>> pack([["A: 1"], ["B: 2"], ["C: x y", "  z"]], room=1)
    ['A: 1   B: 2   C: x y ...']
    """
    facts = [list(fact) for fact in facts]
    while True:
        lines = _pack(facts, width)
        later = [fact for fact in facts[first:] if len(fact) > 1]
        long = later or [fact for fact in facts[:first] if len(fact) > 1]
        if len(lines) <= room or not long:
            return lines
        cut = long[-1]
        cut[1:] = []
        cut[0] = cut[0][: width - 4] + " ..."


def _state_fields(game: Message) -> list[tuple[Any, Any]]:
    """The fields to show, in the proto's order: every set field, and the plain integers at
    their default too (seat 0 leads: proto3 leaves zeros out), but not unset enums, flags,
    text and lists."""
    listed = {descriptor.name for descriptor, _ in game.ListFields()}
    fields = []
    for descriptor in game.DESCRIPTOR.fields:
        plain = descriptor.type in _INTEGERS
        shown_at_default = plain and not descriptor.is_repeated and not descriptor.has_presence
        if descriptor.name in listed or shown_at_default:
            fields.append((descriptor, getattr(game, descriptor.name)))
    return fields


def _item_text(descriptor: FieldDescriptor, item: object) -> str:
    if isinstance(item, Message):
        return value_text(item)
    return scalar_text(descriptor, item)


def _single_text(descriptor: FieldDescriptor, value: object) -> str:
    if isinstance(value, Message):
        return value_text(value)
    return scalar_text(descriptor, value)


def _seat_columns(table: _Table, descriptor: FieldDescriptor, entries: list[Message]) -> None:
    """A column per field of a seat-keyed list's messages (their ``seat`` says the row)."""
    by_seat = {int(entry.seat): entry for entry in entries}  # type: ignore[attr-defined]
    message: Descriptor | None = descriptor.message_type
    assert message is not None
    if len(message.fields) > 3:  # many fields: one column of their words, named by the list
        cells = [
            value_text(by_seat[s], skip={"seat"}) if s in by_seat else ""
            for s in range(table.players)
        ]
        table.add(words(descriptor.name), cells)
        return
    for sub in message.fields:
        if sub.name == "seat":
            continue
        cells = []
        for seat in range(table.players):
            entry = by_seat.get(seat)
            present = entry is not None and any(f.name == sub.name for f, _ in entry.ListFields())
            cells.append(_field_cell(sub, getattr(entry, sub.name)) if present else "")
        if any(cells):
            table.add(words(sub.name) if len(message.fields) > 2 else words(descriptor.name), cells)
    return


def _field_cell(descriptor: FieldDescriptor, value: object) -> str:
    if _repeated(descriptor):
        sep = ", " if descriptor.type == FieldDescriptor.TYPE_MESSAGE else " "
        return sep.join(_item_text(descriptor, item) for item in value)  # type: ignore[attr-defined]
    return _single_text(descriptor, value)


def _pack(facts: list[list[str]], width: int) -> list[str]:
    """Short facts side by side (``Round: 1   Rounds: 5``), wrapped ones on lines of their own."""
    lines: list[str] = []
    joinable = False  # whether the last line is a one-line fact
    for fact in facts:
        if len(fact) == 1 and joinable and len(lines[-1]) + 3 + len(fact[0]) <= width:
            lines[-1] = f"{lines[-1]}   {fact[0]}"
        else:
            lines.extend(fact)
            joinable = len(fact) == 1
    return lines
