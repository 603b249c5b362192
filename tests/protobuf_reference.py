"""The messages the codec must write, built the plain way through protobuf's own message API
(``setattr``, ``add``, ``extend``), from the dataclasses' fields and the descriptors alone:
no code shared with :mod:`referee.codec` or its field plans. Tests compare the codec's bytes
with these messages' ``SerializeToString()``, byte for byte. (Only the display text and hints
are the games', :func:`referee.codec.event_text` and the like: they are what the games say,
not how it is written.)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from referee import codec
from referee.engine import labels
from referee.engine.parts import legal_command_parts
from referee.engine.registry import get_game
from referee.engine.table import View
from referee.engine.table_events import TableEvent
from referee.v1 import referee_pb2 as pb


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def fill(message: Message, value: Any, game_type: str = "") -> Message:
    """Copy dataclass ``value`` into ``message`` field by field (a nested value that is not
    ``None`` is present, even when empty); ``game_type`` names the game of nested commands."""
    message.SetInParent()
    for name in written_fields(value):
        item = getattr(value, name)
        if item is None:
            continue
        field = message.DESCRIPTOR.fields_by_name[name]
        if field.type != FieldDescriptor.TYPE_MESSAGE:
            if field.is_repeated:
                getattr(message, name).extend(item)
            else:
                setattr(message, name, item)
        elif field.message_type is pb.Command.DESCRIPTOR:
            getattr(message, name).CopyFrom(command(game_type, item))
        elif field.is_repeated:
            target = getattr(message, name)
            for element in item:
                if dataclasses.is_dataclass(element):
                    fill(target.add(), element, game_type)
                else:  # a tuple of tuples: messages of one repeated field
                    (only,) = field.message_type.fields
                    getattr(target.add(), only.name).extend(element)
        else:
            fill(getattr(message, name), item, game_type)
    return message


def written_fields(value: Any) -> tuple[str, ...]:
    """The names of the fields ``value`` is written as: those its class declares
    (``WIRE_FIELDS``, e.g. ``CardOpening``'s salt and path in place of its proof), else its
    dataclass fields."""
    declared: tuple[str, ...] | None = vars(type(value)).get("WIRE_FIELDS")
    return declared if declared is not None else tuple(f.name for f in dataclasses.fields(value))


def command(game_type: str, value: Any) -> pb.Command:
    message = pb.Command()
    inner = getattr(message, game_type.replace("-", "_"))
    fill(getattr(inner, snake(type(value).__name__)), value, game_type)
    return message


def event(
    game_type: str,
    value: Any,
    sequence: int,
    *,
    batch_end: int = 0,
    recorded_ms: int = 0,
    decided: pb.Decided | None = None,
    describe: bool = False,
) -> pb.Event:
    message = pb.Event(
        sequence=sequence, batch_end_sequence=batch_end, recorded_unix_ms=recorded_ms
    )
    if decided is not None:
        message.decided.CopyFrom(decided)
    game = "referee" if isinstance(value, TableEvent) else game_type.replace("-", "_")
    fill(getattr(getattr(message, game), snake(type(value).__name__)), value, game_type)
    if describe:
        message.description = codec.event_text(game_type, value)  # the text, not the wire
        message.bookkeeping = labels.bookkeeping(game_type, value)  # the game's, too
    return message


def view(game_id: str, players: int, value: View, clocks: Sequence[Any] = ()) -> pb.View:
    message = pb.View(
        game_id=game_id,
        game_type=value.game_type,
        version=value.version,
        pending_seats=value.pending,
        game_over=value.over,
        players=players,
        seed_commitment=value.commitment,
        aborted=value.aborted,
    )
    if value.viewer is not None:
        message.seat = value.viewer
    for result in value.results or ():
        fill(message.results.add(), result)
    for decision in value.decisions:
        fill(message.decisions.add(), decision)
    for clock in clocks:
        fill(message.clocks.add(), clock)
    game = get_game(value.game_type)
    for legal in value.legal_commands:
        message.legal_commands.add().CopyFrom(command(value.game_type, legal))
        message.legal_command_labels.append(game.command_label(legal, value.game))
    message.view_lines.extend(labels.view_lines(value.game_type, value.game))
    for parts in legal_command_parts(value.game_type, value.game, value.legal_commands):
        fill(message.legal_command_parts.add(), parts)
    if value.ending is not None:
        message.end_rule_id = value.ending.rule_id
        message.end_reason = value.ending.reason
    message.ranking = int(value.ranking)  # type: ignore[assignment]
    for gone in value.left:
        fill(message.seats_left.add(), gone)
    message.referee_to_move = value.referee_to_move
    fill(getattr(message, value.game_type.replace("-", "_")), value.game)
    return message
