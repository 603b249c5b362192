"""The stored form of a game: how its events, batches, deal and commands are kept as bytes.

An event store (:mod:`referee.store`) keeps opaque payloads; this module alone decides what
they hold, so the referee application, ``referee verify`` and the benchmark write and read
the same form:

* **an event** is a serialized ``referee.v1.Event``: its sequence number and the game's event
  (:mod:`referee.codec`), unredacted;
* **a batch** is the run of events one command (or the opening, a timeout, a default play,
  the reveal) appended together. Each of its events carries the batch's last sequence number
  (``batch_end_sequence``) and when it was recorded (``recorded_unix_ms``); the first one
  also carries the stamp of the decision that caused it (``decided``), if any. Events
  written before stamps existed have ``batch_end_sequence`` 0 and count as batches of one;
* **the fixed deal** of a game record is a serialized ``referee.v1.FixedDeal``, ``b""`` when
  the deal comes from the seed;
* **a command** (a command outcome's payload) is the command as a ``referee.v1.Command``,
  serialized deterministically so that equal commands have equal bytes;
* **a decision stamp** is a :class:`Decided` (``referee.v1.Decided`` when stored).

What the referee sends its viewers is the same form: an event as a viewer receives it is the
stored event redacted for that viewer, with the same stamps and its display text
(:func:`event_bytes` with ``described``); a view is a serialized ``referee.v1.View``
(:func:`view_bytes`).

No transport and no store here: it is the application's mapper, engine values in and bytes
out, bytes in and engine values out, so that the application (:mod:`referee.application`)
imports nothing generated.

>>> from referee.games.vampire_queen.model import Pass, Passed
>>> payloads = encode_batch("vampire-queen", [Passed(seat=1), Passed(seat=2)], 7, 1000)
>>> [(b.first, b.last, b.events, b.recorded_ms) for b in read_batches(payloads)]
[(7, 8, (Passed(seat=1), Passed(seat=2)), 1000)]
>>> read_command(encode_command("vampire-queen", Pass()))
('vampire-queen', Pass())
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from referee import codec
from referee.engine.game import FixedDeal
from referee.engine.table import View
from referee.protowire import delimited, scalar_writer, tag
from referee.v1 import referee_pb2 as pb

__all__ = [
    "Batch",
    "Decided",
    "DecidedBy",
    "StoredFormError",
    "batch_spans",
    "decided_from_proto",
    "decided_to_proto",
    "decode_command",
    "decode_deal",
    "decode_events",
    "described",
    "encode_batch",
    "encode_command",
    "encode_deal",
    "event_bytes",
    "holder_bytes",
    "holder_to_proto",
    "read_batches",
    "read_command",
    "recorded_ms",
    "view_bytes",
]


class StoredFormError(ValueError):
    """Stored events that do not form whole batches; ``sequence`` is where it shows first."""

    def __init__(self, sequence: int, message: str) -> None:
        super().__init__(message)
        self.sequence = sequence


class DecidedBy(enum.Enum):
    """Who made the decision that caused a batch (``referee.v1.DecidedBy``)."""

    #: The seat's own command.
    COMMAND = pb.DECIDED_BY_UNSPECIFIED
    #: The referee, when the seat's decision time ran out.
    TIMEOUT = pb.DECIDED_BY_TIMEOUT
    #: The referee playing the default command of a forfeited seat.
    FORFEIT = pb.DECIDED_BY_FORFEIT


@dataclass(frozen=True, slots=True)
class Decided:
    """The stamp of a batch a seat's decision caused (``Event.decided`` on its first event):
    whose decision, how long the referee measured it took, what the client said it took, and
    who made it.

    >>> decided_from_proto(decided_to_proto(Decided(2, 150, 40)))
    Decided(seat=2, decision_ms=150, client_decision_ms=40, by=<DecidedBy.COMMAND: 0>)
    """

    seat: int
    decision_ms: int = 0
    client_decision_ms: int = 0
    by: DecidedBy = DecidedBy.COMMAND


def decided_to_proto(decided: Decided) -> pb.Decided:
    return pb.Decided(
        seat=decided.seat,
        decision_ms=decided.decision_ms,
        client_decision_ms=decided.client_decision_ms,
        by=decided.by.value,
    )


def decided_from_proto(message: pb.Decided) -> Decided:
    return Decided(
        message.seat, message.decision_ms, message.client_decision_ms, DecidedBy(message.by)
    )


@dataclass(frozen=True, slots=True)
class Batch:
    """One batch read back: its events (engine values) and its stamps.

    ``recorded_ms`` is 0 for events stored before recording times were kept.
    """

    first: int
    events: tuple[Any, ...]
    recorded_ms: int = 0
    decided: Decided | None = None

    @property
    def last(self) -> int:
        """The sequence number of the batch's last event."""
        return self.first + len(self.events) - 1


# --- events and batches ----------------------------------------------------------------------


_EVENT = pb.Event.DESCRIPTOR.fields_by_name
_BATCH_END = scalar_writer(_EVENT["batch_end_sequence"])
_RECORDED = scalar_writer(_EVENT["recorded_unix_ms"])
_DECIDED = tag(_EVENT["decided"].number, 2)


def event_bytes(
    game_type: str,
    event: Any,
    sequence: int,
    batch_end: int = 0,
    recorded_ms: int = 0,
    decided: Decided | None = None,
    *,
    described: bool = False,
) -> bytes:
    """One event as a serialized ``Event`` with its batch's stamps (``decided`` only on the
    batch's first event): as stored, or (``described``) as a viewer receives it, with its
    display text. Streams send events with the same stamps as the stored ones."""
    stamps = _BATCH_END(batch_end) + _RECORDED(recorded_ms)
    if decided is not None:
        stamps += delimited(_DECIDED, decided_to_proto(decided).SerializeToString())
    text = codec.event_text(game_type, event) if described else ""
    return codec.event_bytes(game_type, event, sequence, stamps=stamps, description=text)


def described(game_type: str, event: Any, stored: bytes) -> bytes:
    """``event`` as a viewer receives it, from its stored bytes (:func:`event_bytes` of the
    same event and stamps): the same bytes as ``event_bytes(..., described=True)``, the
    event and its stamps not written again."""
    return stored + codec.description_bytes(game_type, event, codec.event_text(game_type, event))


def view_bytes(
    game_id: str,
    players: int,
    view: View,
    clocks: Sequence[Any] = (),
    holders: Sequence[Any] = (),
    common: codec.ViewCommon | None = None,
) -> bytes:
    """A viewer's view as a serialized ``View``, with every seat's clock (``clocks``: values
    with the fields of ``referee.v1.SeatClock``) and who holds each seat (``holders``: values
    with the fields of ``referee.v1.SeatHolder``, its state and kind as words); ``common``
    as :func:`referee.codec.view_bytes` takes it."""
    data = codec.view_bytes(game_id, players, view, clocks, common)
    if holders:
        data += b"".join(delimited(_HOLDER, holder_bytes(h)) for h in holders)
    return data


_HOLDER = tag(pb.View.DESCRIPTOR.fields_by_name["seat_holders"].number, 2)
_SEAT_STATES = {
    "open": pb.SEAT_STATE_OPEN,
    "reserved": pb.SEAT_STATE_RESERVED,
    "held": pb.SEAT_STATE_HELD,
}
_PLAYER_KINDS = {"person": pb.PLAYER_KIND_PERSON, "bot": pb.PLAYER_KIND_BOT}


def holder_to_proto(holder: Any) -> pb.SeatHolder:
    """A seat holder (the application's value) as a ``SeatHolder`` message."""
    return pb.SeatHolder(
        seat=holder.seat,
        state=_SEAT_STATES.get(holder.state, pb.SEAT_STATE_UNSPECIFIED),
        player=holder.player,
        kind=_PLAYER_KINDS.get(holder.kind, pb.PLAYER_KIND_UNSPECIFIED),
        resigned=holder.resigned,
        left=holder.left,
        hidden=holder.hidden,
        online=holder.online,
    )


def holder_bytes(holder: Any) -> bytes:
    return holder_to_proto(holder).SerializeToString()


def encode_batch(
    game_type: str,
    events: Sequence[Any],
    first: int,
    recorded_ms: int = 0,
    decided: Decided | None = None,
) -> list[bytes]:
    """The payloads of one batch whose first event gets sequence number ``first``."""
    last = first + len(events) - 1
    return [
        event_bytes(
            game_type, event, first + offset, last, recorded_ms, decided if offset == 0 else None
        )
        for offset, event in enumerate(events)
    ]


def decode_events(payloads: Iterable[bytes]) -> list[pb.Event]:
    """Stored payloads as ``Event`` messages (unredacted, with their stamps)."""
    return [pb.Event.FromString(payload) for payload in payloads]


def batch_spans(messages: Sequence[pb.Event]) -> Iterator[tuple[int, int]]:
    """``(start, end)`` index ranges of the batches in ``messages``, a run of whole batches of
    one log in order (from any batch start). :class:`StoredFormError` where a batch's events
    are not consecutive, disagree on its end, or run past ``messages``.

    >>> log = [pb.Event(sequence=s, batch_end_sequence=e) for s, e in [(3, 3), (4, 5), (5, 5)]]
    >>> list(batch_spans(log))
    [(0, 1), (1, 3)]
    """
    start = 0
    while start < len(messages):
        head = messages[start]
        first = head.sequence
        last = head.batch_end_sequence or first  # unstamped: a batch of one
        end = start + last - first + 1
        if last < first or end > len(messages):
            raise StoredFormError(first, f"sequence {first}: batch end {last} is outside the log")
        for offset in range(start, end):
            message = messages[offset]
            if message.sequence != first + offset - start:
                raise StoredFormError(
                    first + offset - start,
                    f"sequence {first + offset - start}: found sequence {message.sequence}",
                )
            if message.batch_end_sequence not in (last, 0):
                raise StoredFormError(last, f"sequences {first}..{last}: inconsistent batch ends")
        yield start, end
        start = end


def read_batches(payloads: Iterable[bytes]) -> Iterator[Batch]:
    """The batches of stored payloads, a run of whole batches of one log in order (see
    :func:`batch_spans`), decoded to engine values."""
    messages = decode_events(payloads)
    for start, end in batch_spans(messages):
        head = messages[start]
        decided = decided_from_proto(head.decided) if head.HasField("decided") else None
        yield Batch(
            first=head.sequence,
            events=tuple(codec.event_from_proto(m) for m in messages[start:end]),
            recorded_ms=head.recorded_unix_ms,
            decided=decided,
        )


def recorded_ms(payload: bytes) -> int:
    """When the batch of one stored event was recorded (unix ms; 0 before stamps)."""
    return pb.Event.FromString(payload).recorded_unix_ms


# --- the game record's deal, and commands -------------------------------------------------------


def encode_deal(deal: FixedDeal | None) -> bytes:
    """A game record's ``deal``: ``b""`` when the deal comes from the seed."""
    return codec.deal_to_proto(deal).SerializeToString() if deal is not None else b""


def decode_deal(data: bytes) -> FixedDeal | None:
    """The inverse of :func:`encode_deal`."""
    return codec.deal_from_proto(pb.FixedDeal.FromString(data)) if data else None


def encode_command(game_type: str, command: Any) -> bytes:
    """A command outcome's payload, from the engine's command value, written once
    (:func:`referee.codec.command_bytes`): canonical, so equal commands (a retry) have equal
    bytes however the client encoded them. They are the bytes protobuf's deterministic
    serialization of the message writes (fields in number order, defaults left out; a test
    holds it for every game's commands), so payloads stored before are read and compared as
    they were."""
    return codec.command_bytes(game_type, command)


def decode_command(payload: bytes) -> pb.Command:
    """The inverse of :func:`encode_command`, as the message (``referee verify`` reads it)."""
    return pb.Command.FromString(payload)


def read_command(payload: bytes) -> tuple[str, Any]:
    """The inverse of :func:`encode_command`: (game type, command)."""
    return codec.command_from_proto(decode_command(payload))
