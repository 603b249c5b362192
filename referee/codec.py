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


# --- commands, events, views ---------------------------------------------------------------


def command_to_proto(game_type: str, command: Any) -> pb.Command:
    message = pb.Command()
    inner = getattr(message, game_field(game_type))
    target = getattr(inner, _snake(type(command).__name__))
    target.SetInParent()  # an empty command (Pass) must still select its oneof field
    fill(target, command)
    return message


@lru_cache(maxsize=8192)
def _cached_command(game_type: str, command: Any) -> pb.Command:
    return command_to_proto(game_type, command)


def _command_message(game_type: str, command: Any) -> pb.Command:
    """``command_to_proto``, built once per distinct command: a view lists the same few legal
    commands again and again. The result is shared, so it is only ever copied (``extend``)."""
    try:
        return _cached_command(game_type, command)
    except TypeError:  # an unhashable command: build it each time
        return command_to_proto(game_type, command)


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
