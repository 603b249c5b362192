"""The application's values as ``referee.v1`` messages, and requests as values.

The referee application (:mod:`referee.application`) speaks engine values; this module is the
only place that knows how they look on the wire. Values shared by many streams (a viewer's
view, a stamped event, a batch's update) are converted and serialized once: the result is
kept in the value's ``memo``. A batched stream message is put together from those bytes
(a protobuf message is the concatenation of its encoded fields), so the events of a batch
that several seats see alike are encoded once for all of them, and each view once per viewer.
"""

from __future__ import annotations

from referee import codec
from referee.application.clocks import Clock, GameSettings, SeatClock
from referee.application.values import (
    Exported,
    Page,
    SeatView,
    StampedEvent,
    Submitted,
    Summary,
    Update,
)
from referee.stored import stamp
from referee.v1 import referee_pb2 as pb

#: Field numbers of ``StreamGameResponse`` that batched messages are put together from.
VIEW_FIELD = pb.StreamGameResponse.DESCRIPTOR.fields_by_name["view"].number
EVENTS_FIELD = pb.StreamGameResponse.DESCRIPTOR.fields_by_name["events"].number
_LENGTH_DELIMITED = 2


def _varint(value: int) -> bytes:
    if value < 0x80:  # most keys, and lengths under 128
        return _SMALL[value]
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL = [bytes((value,)) for value in range(0x80)]


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited field: its key, its length, its bytes.

    >>> _field(2, b"abc")
    b'\\x12\\x03abc'
    """
    return _varint(number << 3 | _LENGTH_DELIMITED) + _varint(len(payload)) + payload


_VIEW_KEY = _varint(VIEW_FIELD << 3 | _LENGTH_DELIMITED)
_EVENTS_KEY = _varint(EVENTS_FIELD << 3 | _LENGTH_DELIMITED)


# --- requests ----------------------------------------------------------------------------------


def settings_from_request(request: pb.CreateGameRequest) -> GameSettings:
    """The table settings a CreateGame request asks for (checked by the application)."""
    clock = request.clock
    return GameSettings(
        clock=Clock(clock.decision_ms, clock.bank_ms, clock.forfeit_after_timeouts),
        organiser_delay_events=request.organiser_delay_events,
        organiser_delay_ms=request.organiser_delay_ms,
        defer_seed_reveal=request.defer_seed_reveal,
        public_reveal=request.public_reveal_waives_secrecy,
        public_seed=request.public_reproducible_seed,
        card_commitments=True,
        max_events=request.max_events if request.HasField("max_events") else None,
    )


# --- values ------------------------------------------------------------------------------------


def clock_to_proto(clock: Clock) -> pb.ClockSettings:
    return pb.ClockSettings(
        decision_ms=clock.decision_ms,
        bank_ms=clock.bank_ms,
        forfeit_after_timeouts=clock.forfeit_after_timeouts,
    )


def seat_clock_to_proto(clock: SeatClock) -> pb.SeatClock:
    message = pb.SeatClock(seat=clock.seat, bank_ms=clock.bank_ms)
    if clock.pending:
        message.pending = True
        message.remaining_ms = clock.remaining_ms
        if clock.deadline_unix_ms:
            message.deadline_unix_ms = clock.deadline_unix_ms
    return message


def summary_to_proto(summary: Summary) -> pb.GameSummary:
    message = pb.GameSummary(
        game_id=summary.game_id,
        game_type=summary.game_type,
        players=summary.players,
        options=dict(summary.options),
        version=summary.version,
        pending_seats=summary.pending_seats,
        decisions=codec.decisions_to_proto(summary.decisions),
        game_over=summary.game_over,
        results=codec.results_to_proto(summary.results),
        created_unix_ms=summary.created_unix_ms,
        seed_commitment=summary.seed_commitment,
        deal_commitment=summary.deal_commitment,
        seat_stats=[
            pb.SeatStats(
                seat=s.seat,
                rejected_commands=s.rejected_commands,
                timeouts=s.timeouts,
                disconnects=s.disconnects,
                forfeited=s.forfeited,
                commands=s.commands,
                decision_ms_total=s.decision_ms_total,
            )
            for s in summary.seat_stats
        ],
        aborted=summary.aborted,
        abort_reason=summary.abort_reason,
        defer_seed_reveal=summary.defer_seed_reveal,
        public_reveal_waives_secrecy=summary.public_reveal_waives_secrecy,
        public_reproducible_seed=summary.public_reproducible_seed,
        seed_released=summary.seed_released,
        card_commitments=summary.card_commitments,
        max_events=summary.max_events,
    )
    if summary.revealed_seed is not None:
        message.revealed_seed = summary.revealed_seed
    if summary.clock is not None:
        message.clock.CopyFrom(clock_to_proto(summary.clock))
    return message


def view_to_proto(seat_view: SeatView) -> pb.View:
    """The view as a message (built once per value; callers copy it, never change it)."""
    message: pb.View | None = seat_view.memo.get(pb.View)
    if message is None:
        message = codec.view_to_proto(seat_view.game_id, seat_view.players, seat_view.view)
        message.clocks.extend(seat_clock_to_proto(c) for c in seat_view.clocks)
        seat_view.memo[pb.View] = message
    return message


def _view_bytes(seat_view: SeatView) -> bytes:
    data: bytes | None = seat_view.memo.get(bytes)
    if data is None:
        data = view_to_proto(seat_view).SerializeToString()
        seat_view.memo[bytes] = data
    return data


def event_to_proto(stamped: StampedEvent, game_type: str) -> pb.Event:
    """The event as a message, described, with its stamps (built once per value)."""
    message: pb.Event | None = stamped.memo.get(pb.Event)
    if message is None:
        message = codec.event_to_proto(game_type, stamped.event, stamped.sequence, describe=True)
        stamp(message, stamped.batch_end, stamped.recorded_ms, stamped.decided)
        stamped.memo[pb.Event] = message
    return message


def _event_bytes(stamped: StampedEvent, game_type: str) -> bytes:
    data: bytes | None = stamped.memo.get(bytes)
    if data is None:
        data = event_to_proto(stamped, game_type).SerializeToString()
        stamped.memo[bytes] = data
    return data


def update_to_proto(update: Update, batched: bool) -> pb.StreamGameResponse:
    """A stream message: the plain form (one ``event``) or the batched one (``events``)."""
    key = (pb.StreamGameResponse, batched)
    message: pb.StreamGameResponse | None = update.memo.get(key)
    if message is None:
        game_type = update.view.view.game_type
        message = pb.StreamGameResponse(view=view_to_proto(update.view))
        if batched:
            message.events.extend(event_to_proto(e, game_type) for e in update.events)
        elif update.events:
            (only,) = update.events
            message.event.CopyFrom(event_to_proto(only, game_type))
        update.memo[key] = message
    return message


def update_bytes(update: Update) -> bytes:
    """A batched stream message, serialized: the same bytes as
    ``update_to_proto(update, True).SerializeToString()``, put together from the encodings of
    its view and events, which other messages with the same view or events share."""
    data: bytes | None = update.memo.get(bytes)
    if data is None:
        game_type = update.view.view.game_type
        view = _view_bytes(update.view)
        parts = [_VIEW_KEY, _varint(len(view)), view]
        for stamped in update.events:
            event = _event_bytes(stamped, game_type)
            parts += (_EVENTS_KEY, _varint(len(event)), event)
        data = b"".join(parts)
        update.memo[bytes] = data
    return data


def submitted_to_proto(submitted: Submitted) -> pb.SubmitCommandResponse:
    return pb.SubmitCommandResponse(
        first_sequence=submitted.first_sequence,
        last_sequence=submitted.last_sequence,
        duplicate=submitted.duplicate,
        view=view_to_proto(submitted.view),
    )


def page_to_proto(page: Page) -> pb.ListGamesResponse:
    response = pb.ListGamesResponse(games=[summary_to_proto(s) for s in page.games])
    if page.next_offset is not None:
        response.next_page_token = str(page.next_offset)
    return response


def exported_to_proto(exported: Exported) -> pb.ExportGameResponse:
    game_type = exported.summary.game_type
    response = pb.ExportGameResponse(game=summary_to_proto(exported.summary))
    response.events.extend(event_to_proto(e, game_type) for e in exported.events)
    for recorded in exported.commands:
        entry = response.commands.add(
            seat=recorded.seat,
            first_sequence=recorded.first_sequence,
            last_sequence=recorded.last_sequence,
            decision_ms=recorded.decision_ms,
        )
        entry.command.CopyFrom(codec.command_to_proto(game_type, recorded.command))
    return response


__all__ = [
    "event_to_proto",
    "exported_to_proto",
    "page_to_proto",
    "settings_from_request",
    "submitted_to_proto",
    "summary_to_proto",
    "update_bytes",
    "update_to_proto",
    "view_to_proto",
]
