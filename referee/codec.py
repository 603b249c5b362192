"""Between the engine's value objects and the ``referee.v1`` protobuf messages.

The mapping is by name, so a new game needs no code here: the game type id ``vampire-queen``
is the ``oneof`` field ``vampire_queen`` of ``Command``/``Event``/``View``; a command or event
class ``PlaySet`` is the field ``play_set`` of the game's ``VampireQueenCommand`` (of type
``VampireQueenCommand.PlaySet``); dataclass fields are message fields of the same name. Enums
are ``IntEnum`` with the proto's numbers, ``X | None`` is a proto3 ``optional`` field (or a
message field that may be absent). The referee's own events
(:mod:`referee.engine.table_events`) are the ``referee`` field of ``Event``'s ``game`` oneof,
the same for every game.

One codec, driven by one plan per (dataclass, message) pair, worked out once from the
engine's field plan (:mod:`referee.engine.fields`) and the message's descriptor: each field's
tag and how its value is written as wire bytes and read back from a message. Values are
written straight to wire bytes, in field-number order as protobuf writes them, so the bytes
are protobuf's own serialization (tests/test_codec.py compares them over random play of every
game); messages are parsed from those bytes (``FromString``, in C). Reading goes the other
way through the same plan. Nothing is remembered between calls: the application encodes each
event once per distinct redaction and each view once per viewer
(:mod:`referee.application.tables.live`).

>>> from referee.games.vampire_queen.model import PlaySet
>>> message = command_to_proto("vampire-queen", PlaySet(value=8, count=3, queens=1))
>>> command_from_proto(message)
('vampire-queen', PlaySet(value=8, count=3, queens=1))
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from referee import rulebook
from referee.engine import labels
from referee.engine.endings import Ending
from referee.engine.fields import FieldType, Kind, field_plan, wire_maker
from referee.engine.game import Decision, FixedDeal, GameInfo, Viewer
from referee.engine.openings import CardsOpened, DeckCommitted
from referee.engine.outcomes import Ranking, SeatLeft, SeatOutcome
from referee.engine.parts import CommandParts, legal_command_parts
from referee.engine.registry import all_games, get_game
from referee.engine.table import View
from referee.engine.table_events import TABLE_EVENT_TYPES, TableEvent
from referee.protowire import (
    CodecError,
    Reader,
    Writer,
    delimited,
    message_writer,
    messages_writer,
    repeated_reader,
    repeated_writer,
    scalar_reader,
    scalar_writer,
    tag,
)
from referee.v1 import referee_pb2 as pb


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


def _game_of_command(cls: type) -> str:
    """The game type whose command ``cls`` is (a table event's command names no game)."""
    for game in all_games():
        if cls in game.command_types:
            return game.info.type_id
    raise TypeError(f"{cls.__name__} is not a command of any game")


# --- the plan of one (dataclass, message) pair ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    number: int
    write: Writer
    read: Reader


class Plan:
    """How dataclass ``cls`` is written as, and read from, message ``descriptor``: one
    :class:`_Field` per wire field of its field plan (its dataclass fields, or those it
    declares: :mod:`referee.engine.fields`), in field-number order (protobuf's own); a value
    read back is made by :func:`~referee.engine.fields.wire_maker`."""

    def __init__(self, cls: Any, descriptor: Any) -> None:
        self.cls = cls
        self.descriptor = descriptor
        self._make = wire_maker(cls)
        fields = []
        for each in field_plan(cls):
            field = descriptor.fields_by_name.get(each.name)
            if field is None:
                raise TypeError(f"{descriptor.full_name} has no field {each.name}")
            write, read = _field(field, each.type)
            fields.append(_Field(each.name, field.number, write, read))
        fields.sort(key=lambda f: f.number)
        self.fields = tuple(fields)
        self._writers = tuple(f.write for f in self.fields)
        names = [f.name for f in self.fields]
        # Every field's value in one call, in field-number order (attrgetter of one name
        # gives the value itself, of none nothing).
        self._values: Callable[[Any], tuple[Any, ...]] = (
            operator.attrgetter(*names)
            if len(names) > 1
            else (lambda value: (getattr(value, names[0]),))
            if names
            else (lambda value: ())
        )

    def encode(self, value: Any) -> bytes:
        """``value`` (of class ``cls``) as the message's wire bytes."""
        return b"".join(map(operator.call, self._writers, self._values(value)))

    def encode_fields(self, value: Any) -> tuple[bytes, ...]:
        """Each field's wire bytes, in field-number order (joined: :meth:`encode`)."""
        return tuple(map(operator.call, self._writers, self._values(value)))

    def encode_like(self, value: Any, like: Any, fields: Sequence[bytes]) -> bytes:
        """:meth:`encode` of ``value``, taking the bytes of each field whose value is the very
        object ``like`` holds there from ``fields`` (:meth:`encode_fields` of ``like``): the
        views of one state share the objects of their common fields."""
        return b"".join(
            [
                kept if mine is theirs else write(mine)
                for write, mine, theirs, kept in zip(
                    self._writers, self._values(value), self._values(like), fields, strict=True
                )
            ]
        )

    def decode(self, message: Message) -> Any:
        """The value ``message`` holds."""
        return self._make(**{f.name: f.read(message) for f in self.fields})

    def own_fields(self, names: Sequence[str]) -> OwnFields:
        """How the fields ``names`` of a value are written apart from the others (a game
        view's fields that are the viewer's own: :attr:`referee.engine.game.Game.seat_fields`)."""
        unknown = set(names) - {f.name for f in self.fields}
        if unknown:
            raise TypeError(
                f"{self.descriptor.full_name} has no field {', '.join(sorted(unknown))}"
            )
        positions = tuple(i for i, f in enumerate(self.fields) if f.name in names)
        ordered = [self.fields[i].name for i in positions]
        values: Callable[[Any], tuple[Any, ...]] = (
            operator.attrgetter(*ordered)
            if len(ordered) > 1
            else (lambda value: (getattr(value, ordered[0]),))
        )
        return OwnFields(positions, tuple(self.fields[i].write for i in positions), values)


@dataclass(frozen=True, slots=True)
class OwnFields:
    """Some fields of a dataclass (a game view's own fields: the viewer's hand), written
    between the bytes of the others, which every viewer's view of one version shares
    (:meth:`runs`, made once per version from the first view's fields)."""

    positions: tuple[int, ...]  # in field-number order
    writers: tuple[Writer, ...]
    values: Callable[[Any], tuple[Any, ...]]

    def runs(self, fields: Sequence[bytes]) -> tuple[bytes, ...]:
        """The bytes of the other fields between the own ones (:meth:`Plan.encode_fields`
        of any value of the class): one more run than own fields."""
        out, start = [], 0
        for position in self.positions:
            out.append(b"".join(fields[start:position]))
            start = position + 1
        out.append(b"".join(fields[start:]))
        return tuple(out)

    def encode(self, value: Any, runs: Sequence[bytes]) -> bytes:
        """``value``'s wire bytes: its own fields written, the others' taken from ``runs``."""
        parts = [runs[0]]
        for write, mine, run in zip(self.writers, self.values(value), runs[1:], strict=True):
            parts += (write(mine), run)
        return b"".join(parts)


@cache
def plan(cls: Any, descriptor: Any) -> Plan:
    """The :class:`Plan` of ``cls`` as ``descriptor``, worked out once per pair.

    >>> [f.name for f in plan(SeatLeft, pb.SeatLeft.DESCRIPTOR).fields]
    ['seat', 'end', 'rule_id', 'reason', 'version']
    """
    return Plan(cls, descriptor)


def _field(field: FieldDescriptor, ftype: FieldType) -> tuple[Writer, Reader]:
    """The writer and reader of one field: by the message field, and the dataclass field's
    type for the values read back (enums, nested classes)."""
    name, key = field.name, tag(field.number, 2)
    optional = ftype.kind is Kind.OPTIONAL
    inner = ftype.item if optional else ftype
    assert inner is not None
    if field.type != FieldDescriptor.TYPE_MESSAGE:
        if field.is_repeated:
            if inner.kind is not Kind.TUPLE or inner.item is None:
                raise TypeError(f"{field.full_name} is repeated: the field must be a tuple")
            return repeated_writer(field), repeated_reader(name, inner.item)
        return scalar_writer(field), scalar_reader(name, ftype, field.has_presence)
    message_type: Any = field.message_type
    if message_type is pb.Command.DESCRIPTOR and inner.kind in (Kind.ANY, Kind.UNION):
        # A table event's command: any game's, which its class names.
        def write_command(value: Any) -> bytes:
            if value is None:
                return b""
            return delimited(key, command_bytes(_game_of_command(type(value)), value))

        def read_command(m: Message) -> Any:
            return command_from_proto(getattr(m, name), name)[1] if m.HasField(name) else None

        return write_command, read_command
    if field.is_repeated:
        item = inner.item if inner.kind is Kind.TUPLE else None
        if item is not None and item.kind is Kind.DATACLASS and item.cls is not None:
            nested = plan(item.cls, message_type)
            return (
                messages_writer(key, nested.encode),
                lambda m: tuple(map(nested.decode, getattr(m, name))),
            )
        if item is not None and item.kind is Kind.TUPLE and len(message_type.fields) == 1:
            # A tuple of tuples: each inner tuple is a message of one repeated field
            # (FixedDeal.decks: tuple[tuple[str, ...], ...] as repeated Deck{cards}).
            (only,) = message_type.fields
            write_one, read_one = _field(only, item)
            return (
                messages_writer(key, write_one),
                lambda m: tuple(read_one(each) for each in getattr(m, name)),
            )
        raise TypeError(f"{field.full_name}: no plan for a repeated message as {ftype}")
    if inner.kind is Kind.DATACLASS and inner.cls is not None:
        nested = plan(inner.cls, message_type)
        if optional:
            return (
                message_writer(key, nested.encode),
                lambda m: nested.decode(getattr(m, name)) if m.HasField(name) else None,
            )
        # A non-optional nested value is still absent when None (and read back as the
        # message's defaults, as protobuf reads an absent message).
        return message_writer(key, nested.encode), lambda m: nested.decode(getattr(m, name))
    raise TypeError(f"{field.full_name}: no plan for a message as {ftype}")


# --- commands ------------------------------------------------------------------------------------


@cache
def _case(container: Any, game: str, cls: Any) -> tuple[bytes, bytes, Plan]:
    """Where class ``cls`` sits in a Command or Event: the tag of the game's field, the tag of
    its ``kind`` case, and its plan."""
    outer = container.fields_by_name[game]
    case = outer.message_type.fields_by_name.get(_snake(cls.__name__))
    if case is None:
        raise TypeError(f"{outer.message_type.full_name} has no case for {cls.__name__}")
    return tag(outer.number, 2), tag(case.number, 2), plan(cls, case.message_type)


def _cased(container: Any, game: str, value: Any) -> bytes:
    """``value`` as the game's field of ``container`` with its case set, even when empty."""
    cls: Any = type(value)
    outer, case, value_plan = _case(container, game, cls)
    return delimited(outer, delimited(case, value_plan.encode(value)))


def command_bytes(game_type: str, command: Any) -> bytes:
    """``command`` as a serialized ``Command``."""
    return _cased(pb.Command.DESCRIPTOR, game_field(game_type), command)


def command_to_proto(game_type: str, command: Any) -> pb.Command:
    return pb.Command.FromString(command_bytes(game_type, command))


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
    cls = classes[kind]
    inner = getattr(message, kind)
    return plan(cls, inner.DESCRIPTOR).decode(inner)


def command_from_proto(message: pb.Command, path: str = "command") -> tuple[str, Any]:
    """(game type, command); :class:`CodecError` when the message names no command."""
    type_id, inner = _game_oneof(message, path)
    return type_id, _kind_of(
        inner, f"{path}.{game_field(type_id)}", _classes_by_name(type_id, "command")
    )


def command_from_json(data: Any) -> tuple[str, Any]:
    """A command in the proto's JSON form, e.g. ``{"vampireQueen": {"pass": {}}}``."""
    message = pb.Command()
    try:
        json_format.ParseDict(data, message)
    except json_format.ParseError as error:
        raise CodecError("command", str(error)) from None
    return command_from_proto(message)


# --- events --------------------------------------------------------------------------------------

_EVENT = pb.Event.DESCRIPTOR
_SEQUENCE = scalar_writer(_EVENT.fields_by_name["sequence"])
_DESCRIPTION = scalar_writer(_EVENT.fields_by_name["description"])
_BOOKKEEPING = scalar_writer(_EVENT.fields_by_name["bookkeeping"])
_REFEREE_EVENTS = {
    _snake(cls.__name__): cls for cls in (*TABLE_EVENT_TYPES, DeckCommitted, CardsOpened)
}


def event_text(game_type: str, event: Any) -> str:
    """An event's display text (what a viewer's copy of it carries as ``description``)."""
    if isinstance(event, TableEvent):
        return labels.table_event_text(event)
    return get_game(game_type).event_text(event)


def event_bytes(
    game_type: str, event: Any, sequence: int, *, stamps: bytes = b"", description: str = ""
) -> bytes:
    """``event`` as a serialized ``Event`` with its sequence number, its batch's ``stamps``
    (fields 2 to 4 already written, as :mod:`referee.stored` writes them) and, with its
    display text (``description``), whether a log may fold it (``bookkeeping``), in field
    order."""
    game = "referee" if isinstance(event, TableEvent) else game_field(game_type)
    parts = [_SEQUENCE(sequence), stamps, _cased(_EVENT, game, event)]
    if description:
        parts.append(description_bytes(game_type, event, description))
    return b"".join(parts)


def description_bytes(game_type: str, event: Any, description: str) -> bytes:
    """The last fields of an ``Event`` a viewer receives: its display text and whether a log
    may fold it (nothing without a text). They follow the stored event's bytes, so a viewer's
    copy of an event is its stored bytes and these."""
    if not description:
        return b""
    return _DESCRIPTION(description) + _BOOKKEEPING(labels.bookkeeping(game_type, event))


def event_to_proto(
    game_type: str, event: Any, sequence: int, *, describe: bool = False
) -> pb.Event:
    """``event`` as a message; with ``describe``, also its display text (``description``)
    and ``bookkeeping``, which only messages sent to a viewer carry (not the stored log)."""
    text = event_text(game_type, event) if describe else ""
    return pb.Event.FromString(event_bytes(game_type, event, sequence, description=text))


def event_from_proto(message: pb.Event) -> Any:
    if message.WhichOneof("game") == "referee":
        return _kind_of(message.referee, "event.referee", _REFEREE_EVENTS)
    type_id, inner = _game_oneof(message, "event")
    return _kind_of(inner, "event", _classes_by_name(type_id, "event"))


# --- views ---------------------------------------------------------------------------------------

_VIEW = pb.View.DESCRIPTOR


def _view_field(name: str) -> Writer:
    return scalar_writer(_VIEW.fields_by_name[name])


def _repeated_of(name: str, cls: type) -> Writer:
    field = _VIEW.fields_by_name[name]
    key, encode = tag(field.number, 2), plan(cls, field.message_type).encode
    return lambda values: b"".join([delimited(key, encode(v)) for v in values or ()])


_GAME_ID, _GAME_TYPE, _SEAT = _view_field("game_id"), _view_field("game_type"), _view_field("seat")
_VERSION, _PLAYERS = _view_field("version"), _view_field("players")
_OVER, _ABORTED = _view_field("game_over"), _view_field("aborted")
_COMMITMENT = _view_field("seed_commitment")
_END_RULE, _END_REASON = _view_field("end_rule_id"), _view_field("end_reason")
_PENDING = repeated_writer(_VIEW.fields_by_name["pending_seats"])
_LABELS = repeated_writer(_VIEW.fields_by_name["legal_command_labels"])
_LINES = repeated_writer(_VIEW.fields_by_name["view_lines"])
_PARTS = _repeated_of("legal_command_parts", CommandParts)
_LEGAL_TAG = tag(_VIEW.fields_by_name["legal_commands"].number, 2)
_RESULTS = _repeated_of("results", SeatOutcome)
_LEFT = _repeated_of("seats_left", SeatLeft)
_RANKING, _REFEREE_TO_MOVE = _view_field("ranking"), _view_field("referee_to_move")
_DECISIONS = _repeated_of("decisions", Decision)
_CLOCKS_FIELD = _VIEW.fields_by_name["clocks"]
_CLOCKS_TAG = tag(_CLOCKS_FIELD.number, 2)


@cache
def _game_view(game_type: str, cls: Any) -> tuple[bytes, Plan, OwnFields | None]:
    """The key of a ``View``'s field for the game's view (of class ``cls``), its plan and its
    fields that are each viewer's own (``None``: the game does not say which): found once per
    game, not on each of the views every batch sends."""
    outer = _VIEW.fields_by_name[game_field(game_type)]
    game_plan = plan(cls, outer.message_type)
    seat_fields = get_game(game_type).seat_fields
    own = game_plan.own_fields(seat_fields) if seat_fields else None
    return tag(outer.number, 2), game_plan, own


#: Each game's legal commands as a ``View``'s ``legal_commands`` field, by command: the few
#: commands a game offers come back in view after view. A command is a frozen value, so an
#: equal one has the same bytes. Emptied when full.
_LEGAL_FIELDS: dict[str, dict[Any, bytes]] = {}
_LEGAL_FIELDS_KEPT = 4096


def _legal_field(game_type: str, command: Any) -> bytes:
    known = _LEGAL_FIELDS.get(game_type)
    if known is None:
        known = _LEGAL_FIELDS[game_type] = {}
    try:
        return known[command]
    except KeyError:
        pass
    except TypeError:  # an unhashable value: written each time
        return delimited(_LEGAL_TAG, command_bytes(game_type, command))
    data = delimited(_LEGAL_TAG, command_bytes(game_type, command))
    if len(known) >= _LEGAL_FIELDS_KEPT:
        known.clear()
    known[command] = data
    return data


@dataclass(frozen=True, slots=True)
class ViewCommon:
    """The wire bytes of the fields of a ``View`` that every viewer of a game at one version
    shares (everything but the seat, the legal commands and their labels and parts, the game's
    view and its text lines, and the clocks), as the runs that lie between the viewer's own
    fields in field-number order. Made by :func:`view_common` from any viewer's view."""

    head: bytes  # game_id, game_type
    pending: bytes  # version, pending_seats
    results: bytes  # game_over, results, players
    decisions: bytes  # decisions, seed_commitment
    aborted: bytes
    tail: bytes  # end_rule_id, end_reason, ranking, seats_left, referee_to_move
    #: The game's view of the viewer it was made from, and each of its fields' bytes: another
    #: viewer's game view takes the bytes of the fields it shares with it (the same objects:
    #: a game builds the parts every viewer sees once per state) from these.
    game: Any = None
    game_fields: tuple[bytes, ...] = ()
    #: For a game that names its view's fields that are each viewer's own
    #: (``Game.seat_fields``): the bytes of the others, between them (:meth:`OwnFields.runs`):
    #: another viewer's game view writes its own fields only.
    game_runs: tuple[bytes, ...] = ()
    #: What every viewer's text lines have alike (:func:`referee.engine.labels.public_text`),
    #: for a game that writes them in two parts (``None``: each view's lines are written whole).
    texts: labels.PublicText | None = None


def view_common(game_id: str, players: int, view: View) -> ViewCommon:
    """What every viewer's ``View`` of the game at ``view.version`` has alike, encoded: the
    live game encodes it once per version for all its viewers' views
    (:class:`referee.application.tables.live.LatestBatch`)."""
    game = view.game
    cls: Any = type(game)
    _, game_plan, own = _game_view(view.game_type, cls)
    game_fields = game_plan.encode_fields(game)
    ending = view.ending
    tail = [_RANKING(view.ranking), _LEFT(view.left), _REFEREE_TO_MOVE(view.referee_to_move)]
    if ending is not None:
        tail[:0] = [_END_RULE(ending.rule_id), _END_REASON(ending.reason)]
    return ViewCommon(
        _GAME_ID(game_id) + _GAME_TYPE(view.game_type),
        _VERSION(view.version) + _PENDING(view.pending),
        _OVER(view.over) + _RESULTS(view.results) + _PLAYERS(players),
        _DECISIONS(view.decisions) + _COMMITMENT(view.commitment),
        _ABORTED(view.aborted),
        b"".join(tail),
        game,
        game_fields,
        own.runs(game_fields) if own is not None else (),
        labels.public_text(view.game_type, game),
    )


def view_bytes(
    game_id: str,
    players: int,
    view: View,
    clocks: Sequence[Any] = (),
    common: ViewCommon | None = None,
) -> bytes:
    """``view`` as a serialized ``View``; ``clocks`` are dataclasses with the fields of
    ``referee.v1.SeatClock`` (the application's clock readings). ``common``: the fields every
    viewer's view of this game at this version shares, encoded already (:func:`view_common`
    of a view of the same game at the same version); else they are encoded here."""
    if common is None:
        common = view_common(game_id, players, view)
    game_type = view.game_type
    legal = view.legal_commands
    game = view.game
    cls: Any = type(game)
    game_key, game_plan, own = _game_view(game_type, cls)
    like = common.game
    if game is like:
        game_data = b"".join(common.game_fields)
    elif own is not None and type(like) is type(game):
        game_data = own.encode(game, common.game_runs)
    elif type(like) is type(game):
        game_data = game_plan.encode_like(game, like, common.game_fields)
    else:
        game_data = game_plan.encode(game)
    parts = [
        common.head,
        _SEAT(view.viewer),
        common.pending,
        b"".join([_legal_field(game_type, c) for c in legal]) if legal else b"",
        common.results,
        delimited(game_key, game_data),
        common.decisions,
    ]
    if clocks:
        clock_type: Any = type(clocks[0])
        encode = plan(clock_type, _CLOCKS_FIELD.message_type).encode
        parts += [delimited(_CLOCKS_TAG, encode(clock)) for clock in clocks]
    parts.append(common.aborted)
    if legal:
        label = get_game(game_type).command_label
        parts.append(_LABELS(tuple(label(command, view.game) for command in legal)))
    parts.append(_LINES(labels.view_lines(game_type, game, common.texts)))
    if legal:
        parts.append(_PARTS(legal_command_parts(game_type, view.game, legal)))
    parts.append(common.tail)
    return b"".join(parts)


def view_to_proto(game_id: str, players: int, view: View) -> pb.View:
    return pb.View.FromString(view_bytes(game_id, players, view))


def view_from_proto(message: pb.View) -> View:
    """The engine's View from its message (used by tests and the scenario runner)."""
    type_id, inner = _game_oneof(message, "view")
    viewer: Viewer = message.seat if message.HasField("seat") else None
    results = (
        tuple(map(plan(SeatOutcome, pb.SeatResult.DESCRIPTOR).decode, message.results))
        if message.game_over and not message.aborted
        else None
    )
    decision = plan(Decision, pb.PendingDecision.DESCRIPTOR).decode
    return View(
        game_type=type_id,
        viewer=viewer,
        version=message.version,
        pending=tuple(message.pending_seats),
        decisions=tuple(map(decision, message.decisions)),
        legal_commands=tuple(command_from_proto(c)[1] for c in message.legal_commands),
        game=plan(get_game(type_id).view_type, inner.DESCRIPTOR).decode(inner),
        results=results,
        commitment=message.seed_commitment,
        aborted=message.aborted,
        ending=Ending(message.end_rule_id, message.end_reason) if message.end_rule_id else None,
        ranking=Ranking(message.ranking),
        left=tuple(map(plan(SeatLeft, pb.SeatLeft.DESCRIPTOR).decode, message.seats_left)),
        referee_to_move=message.referee_to_move,
    )


# --- the rest of referee.v1's engine values -------------------------------------------------------


def deal_to_proto(deal: FixedDeal | None) -> pb.FixedDeal:
    if deal is None:
        return pb.FixedDeal()
    return pb.FixedDeal.FromString(plan(FixedDeal, pb.FixedDeal.DESCRIPTOR).encode(deal))


def deal_from_proto(message: pb.FixedDeal) -> FixedDeal | None:
    """The deal a message asks for; ``None`` for an empty one (the deal comes from the seed)."""
    if not message.decks and not message.picks:
        return None
    deal: FixedDeal = plan(FixedDeal, pb.FixedDeal.DESCRIPTOR).decode(message)
    return deal


def results_to_proto(results: tuple[SeatOutcome, ...] | None) -> list[pb.SeatResult]:
    encode = plan(SeatOutcome, pb.SeatResult.DESCRIPTOR).encode
    return [pb.SeatResult.FromString(encode(r)) for r in results or ()]


def left_to_proto(left: tuple[SeatLeft, ...]) -> list[pb.SeatLeft]:
    encode = plan(SeatLeft, pb.SeatLeft.DESCRIPTOR).encode
    return [pb.SeatLeft.FromString(encode(gone)) for gone in left]


def decisions_to_proto(decisions: tuple[Decision, ...]) -> list[pb.PendingDecision]:
    encode = plan(Decision, pb.PendingDecision.DESCRIPTOR).encode
    return [pb.PendingDecision.FromString(encode(d)) for d in decisions]


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
        score_meaning=info.score_meaning,
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


__all__ = [
    "CodecError",
    "OwnFields",
    "Plan",
    "ViewCommon",
    "command_bytes",
    "command_from_json",
    "command_from_proto",
    "command_to_proto",
    "deal_from_proto",
    "deal_to_proto",
    "decisions_to_proto",
    "description_bytes",
    "event_bytes",
    "event_from_proto",
    "event_text",
    "event_to_proto",
    "game_field",
    "game_type_to_proto",
    "left_to_proto",
    "plan",
    "results_to_proto",
    "view_bytes",
    "view_common",
    "view_from_proto",
    "view_to_proto",
]
