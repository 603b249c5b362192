"""The application's values as ``referee.v1`` messages, and requests as values.

The referee application (:mod:`referee.application`) speaks engine values; a seat's view and
a stamped event also carry their ``referee.v1`` bytes, encoded once by the live game for each
batch (:mod:`referee.application.tables.live`). A stream message is put together from those bytes (a
protobuf message is the concatenation of its encoded fields), so the events of a batch that
several seats see alike are encoded once for all of them, and each view once per viewer.
"""

from __future__ import annotations

from typing import Any

from referee import codec
from referee.application.tables.clocks import (
    DEFAULT_CONNECT_GRACE_MS,
    DEFAULT_JOIN_DEADLINE_MS,
    Clock,
    GameSettings,
    SeatPlan,
)
from referee.application.tables.errors import bad_request
from referee.application.tables.values import (
    Claimed,
    Created,
    Exported,
    Page,
    SeatView,
    StampedEvent,
    Submitted,
    Summary,
    Unreadable,
    Update,
)
from referee.protowire import delimited, scalar_writer, tag
from referee.stored import holder_to_proto
from referee.v1 import referee_pb2 as pb

_STREAM = pb.StreamGameResponse.DESCRIPTOR.fields_by_name
_VIEW_KEY = tag(_STREAM["view"].number, 2)
_EVENT_KEY = tag(_STREAM["event"].number, 2)
_EVENTS_KEY = tag(_STREAM["events"].number, 2)
_SUBMITTED = pb.SubmitCommandResponse.DESCRIPTOR.fields_by_name
_FIRST = scalar_writer(_SUBMITTED["first_sequence"])
_LAST = scalar_writer(_SUBMITTED["last_sequence"])
_DUPLICATE = scalar_writer(_SUBMITTED["duplicate"])
_SUBMITTED_VIEW_KEY = tag(_SUBMITTED["view"].number, 2)


# --- requests ----------------------------------------------------------------------------------


#: ``SeatRequest.mode`` as the application names it.
SEAT_MODES = {
    pb.SEAT_MODE_UNSPECIFIED: "token",
    pb.SEAT_MODE_OPEN: "open",
    pb.SEAT_MODE_RESERVED: "reserved",
    pb.SEAT_MODE_CREATOR: "creator",
}


def seat_plans(request: pb.CreateGameRequest) -> tuple[SeatPlan, ...]:
    """``seat_requests`` as seat plans (INVALID_ARGUMENT for a mode this server does not
    know); the application checks the rest."""
    plans = []
    for index, seat in enumerate(request.seat_requests):
        mode = SEAT_MODES.get(seat.mode)
        if mode is None:
            raise bad_request(f"seat_requests[{index}].mode", "not a SeatMode")
        plans.append(SeatPlan(mode, seat.player))
    return tuple(plans)


def settings_from_request(request: pb.CreateGameRequest) -> GameSettings:
    """The table settings a CreateGame request asks for (checked by the application);
    ``join_deadline_ms`` and ``connect_grace_ms`` 0 take the defaults."""
    clock = request.clock
    return GameSettings(
        clock=Clock.of(clock.decision_ms, clock.bank_ms, clock.forfeit_after_timeouts),
        organiser_delay_events=request.organiser_delay_events,
        organiser_delay_ms=request.organiser_delay_ms,
        defer_seed_reveal=request.defer_seed_reveal,
        public_reveal=request.public_reveal_waives_secrecy,
        public_seed=request.public_reproducible_seed,
        card_commitments=True,
        max_events=request.max_events if request.HasField("max_events") else None,
        seats=seat_plans(request),
        listed=request.listed,
        join_deadline_ms=request.join_deadline_ms or DEFAULT_JOIN_DEADLINE_MS,
        connect_grace_ms=request.connect_grace_ms or DEFAULT_CONNECT_GRACE_MS,
        rated=request.rated,
        organiser_audit=request.organiser_audit,
        ranking=RANKINGS.get(request.ranking, "?"),
        no_show=NO_SHOWS.get(request.no_show, "?"),
        hide_reservations=request.hide_reservations,
    )


#: ``Ranking`` and ``NoShow`` as the application names them (``"?"``: a value this server
#: does not know, which the settings' check refuses).
RANKINGS = {
    pb.RANKING_UNSPECIFIED: "",
    pb.RANKING_RULES: "rules",
    pb.RANKING_FINISHERS_FIRST: "finishers_first",
}
NO_SHOWS = {pb.NO_SHOW_UNSPECIFIED: "", pb.NO_SHOW_LOSS: "loss", pb.NO_SHOW_VOID: "void"}
_NO_SHOW_VALUES = {True: pb.NO_SHOW_LOSS, False: pb.NO_SHOW_VOID}


def command_from_request(request: pb.SubmitCommandRequest | pb.SessionCommand) -> Any:
    """The engine command a SubmitCommand (or a player stream's command) carries, or the
    :class:`Unreadable` the application refuses (and counts against the seat) when the
    request has none or one this server cannot read."""
    if not request.HasField("command"):
        return Unreadable("command", "required")
    try:
        return codec.command_from_proto(request.command)[1]
    except codec.CodecError as error:
        return Unreadable(error.field, error.description)


def expected_version_of(request: pb.SubmitCommandRequest | pb.SessionCommand) -> int | None:
    """The version the sender expects the game at (``None``: any)."""
    return request.expected_version if request.HasField("expected_version") else None


# --- values ------------------------------------------------------------------------------------


def clock_to_proto(clock: Clock) -> pb.ClockSettings:
    return pb.ClockSettings(
        decision_ms=clock.decision_ms,
        bank_ms=clock.bank_ms,
        forfeit_after_timeouts=clock.forfeit_after_timeouts,
    )


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
        seat_holders=[holder_to_proto(h) for h in summary.seat_holders],
        started=summary.started,
        join_deadline_unix_ms=summary.join_deadline_unix_ms,
        listed=summary.listed,
        rated=summary.rated,
        organiser_audit=summary.organiser_audit,
        end_rule_id=summary.end_rule_id,
        end_reason=summary.end_reason,
        ranking=pb.Ranking.ValueType(summary.ranking),
        seats_left=codec.left_to_proto(summary.seats_left),
        referee_to_move=summary.referee_to_move,
        no_show=_NO_SHOW_VALUES[summary.no_show_loses],
        hide_reservations=summary.hide_reservations,
    )
    if summary.revealed_seed is not None:
        message.revealed_seed = summary.revealed_seed
    if summary.clock is not None:
        message.clock.CopyFrom(clock_to_proto(summary.clock))
    return message


def created_to_proto(created: Created) -> pb.CreateGameResponse:
    """The creator's answer: the tokens of the seats that went to the creator (never an
    open or reserved seat's: only its claimant gets that) and one claim code per open seat."""
    return pb.CreateGameResponse(
        game_id=created.game_id,
        seats=[pb.SeatToken(seat=s, token=t) for s, t in enumerate(created.seat_tokens) if t],
        game=summary_to_proto(created.summary),
        organiser_token=created.organiser_token,
        invitations=[pb.SeatInvitation(seat=s, claim_code=c) for s, c in created.invitations],
    )


def claimed_to_proto(claimed: Claimed) -> pb.ClaimSeatResponse:
    return pb.ClaimSeatResponse(
        game_id=claimed.summary.game_id,
        seat=claimed.seat,
        seat_token=claimed.token,
        game=summary_to_proto(claimed.summary),
    )


def view_to_proto(seat_view: SeatView) -> pb.View:
    """The view as a message (parsed from the bytes the value carries)."""
    return pb.View.FromString(seat_view.data)


def event_to_proto(stamped: StampedEvent) -> pb.Event:
    """The event as a message, described, with its stamps."""
    return pb.Event.FromString(stamped.data)


def update_bytes(update: Update, batched: bool = True) -> bytes:
    """A stream message, serialized: the batched form (``events``) or the plain one (at
    most one ``event``), put together from the bytes its view and events carry, its fields
    in protobuf's order (``event`` 1, ``view`` 2, ``events`` 150)."""
    view = delimited(_VIEW_KEY, update.view.data)
    if batched:
        return b"".join([view, *(delimited(_EVENTS_KEY, e.data) for e in update.events)])
    if len(update.events) > 1:
        raise ValueError("a plain stream message holds one event at most")
    return b"".join([*(delimited(_EVENT_KEY, e.data) for e in update.events), view])


def update_to_proto(update: Update, batched: bool) -> pb.StreamGameResponse:
    """A stream message as a message (see :func:`update_bytes`)."""
    return pb.StreamGameResponse.FromString(update_bytes(update, batched))


def submitted_bytes(submitted: Submitted) -> bytes:
    """A SubmitCommand answer, serialized: its fields in protobuf's order, the view as the
    bytes the value carries (made once with the batch, not parsed and written again)."""
    return b"".join(
        [
            _FIRST(submitted.first_sequence),
            _LAST(submitted.last_sequence),
            _DUPLICATE(submitted.duplicate),
            delimited(_SUBMITTED_VIEW_KEY, submitted.view.data),
        ]
    )


def submitted_to_proto(submitted: Submitted) -> pb.SubmitCommandResponse:
    """A SubmitCommand answer as a message (see :func:`submitted_bytes`)."""
    return pb.SubmitCommandResponse.FromString(submitted_bytes(submitted))


def page_to_proto(page: Page) -> pb.ListGamesResponse:
    response = pb.ListGamesResponse(games=[summary_to_proto(s) for s in page.games])
    if page.next_offset is not None:
        response.next_page_token = str(page.next_offset)
    return response


def exported_to_proto(exported: Exported) -> pb.ExportGameResponse:
    game_type = exported.summary.game_type
    response = pb.ExportGameResponse(game=summary_to_proto(exported.summary))
    response.events.extend(event_to_proto(e) for e in exported.events)
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
    "SEAT_MODES",
    "claimed_to_proto",
    "command_from_request",
    "created_to_proto",
    "event_to_proto",
    "expected_version_of",
    "exported_to_proto",
    "page_to_proto",
    "seat_plans",
    "settings_from_request",
    "submitted_bytes",
    "submitted_to_proto",
    "summary_to_proto",
    "update_bytes",
    "update_to_proto",
    "view_to_proto",
]
