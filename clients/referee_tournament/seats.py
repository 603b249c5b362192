"""Seats of a networked game that the runner does not hand out itself, and what the referee
says about each seat at the end.

* **Remote bots** (``account:`` in the config) run on their own. The runner creates the game
  with that seat reserved for the bot's account (``SEAT_MODE_RESERVED``), the other seats'
  tokens for itself (``SEAT_MODE_UNSPECIFIED``), and a join deadline
  (``limits.join_timeout``): the referee deals when every seat is held, and aborts the game
  at the deadline if a remote bot never claimed its seat. Such a game is **void** (its absent
  bots are charged an ``absent`` fault; nobody is rated or ranked by it).
* At the end, ``GameSummary.seat_stats`` and ``seat_holders`` say per seat what the runner
  cannot see: refused commands, clock timeouts, disconnects, a clock forfeit, a resignation.
  A seat forfeited by the clock or resigned was finished by the referee's default commands:
  it is the bot's loss (last rank), as a crash or a hang is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import grpc
from google.protobuf import message_factory

from referee.v1 import referee_pb2
from referee_tournament.config import TournamentConfig
from referee_tournament.processes import message_json
from referee_tournament.records import Fault, SeatRecord
from referee_tournament.schedule import GameSpec

#: SeatStats field -> fault kind.
REFEREE_STATS = {
    "rejected_commands": "rejected",
    "timeouts": "timeout",
    "disconnects": "disconnect",
    "forfeited": "clock_forfeit",
}


def reserve_seats(
    config: TournamentConfig, spec: GameSpec, request: referee_pb2.CreateGameRequest
) -> dict[int, str]:
    """Fill ``request``'s seat requests for the remote bots of ``spec``: seat -> account."""
    remote = {
        seat: account
        for seat, name in enumerate(spec.seating)
        if (account := config.bot(name).account) is not None
    }
    if remote:
        for seat in range(spec.players):
            if seat in remote:
                request.seat_requests.add(mode=referee_pb2.SEAT_MODE_RESERVED, player=remote[seat])
            else:
                request.seat_requests.add(mode=referee_pb2.SEAT_MODE_UNSPECIFIED)
        request.join_deadline_ms = max(1, int(config.limits.join_timeout * 1000))
        # The runner checks every deal after the end (referee verify): the remote bots see
        # this in the game's summary before they claim their seats.
        request.organiser_audit = True
    if config.rated:
        request.rated = True
    return remote


def absent_seats(summary: referee_pb2.GameSummary) -> list[int]:
    """The seats still reserved (never claimed) of a game that never started."""
    if summary.started:
        return []
    return [h.seat for h in summary.seat_holders if h.state == referee_pb2.SEAT_STATE_RESERVED]


def add_referee_stats(
    summary: referee_pb2.GameSummary,
    spec: GameSpec,
    seats: Sequence[SeatRecord],
    faults: list[Fault],
    charged: set[int],
) -> None:
    """Add ``summary``'s per-seat accounting to ``faults`` and ``seats``; ``charged``: the
    seats the runner already charged with a crash or hang or cut off itself (a disconnect is
    not counted again for them)."""
    by_seat = {s.seat: s for s in seats}
    for stats in summary.seat_stats:
        seat = stats.seat
        if not 0 <= seat < spec.players:
            continue
        data = message_json(stats)
        for name, kind in REFEREE_STATS.items():
            count = int(data.get(name, 0))
            if kind == "disconnect" and seat in charged:
                continue
            if count > 0:
                faults.append(
                    Fault(
                        bot=spec.seating[seat],
                        seat=seat,
                        kind=kind,
                        count=count,
                        detail=f"referee: seat_stats.{name}",
                    )
                )
        record = by_seat.get(seat)
        if record is None:
            continue
        if stats.forfeited:
            record.forfeited = True
        if "commands" in stats.DESCRIPTOR.fields_by_name:
            record.commands = int(data.get("commands", 0))
            record.decision_ms = int(data.get("decision_ms_total", 0))
    for holder in summary.seat_holders:
        record = by_seat.get(holder.seat)
        if holder.resigned and record is not None:
            record.forfeited = True
            faults.append(
                Fault(
                    bot=spec.seating[holder.seat],
                    seat=holder.seat,
                    kind="resigned",
                    detail="referee: the seat resigned",
                )
            )


def count_default_moves(event: referee_pb2.Event, counts: dict[int, int]) -> None:
    """Count a decision the referee made for a seat (a timeout, a forfeited or resigned
    seat's default play): ``Decided.by`` is set on the first event of its batch."""
    if event.HasField("decided") and event.decided.by != referee_pb2.DECIDED_BY_UNSPECIFIED:
        seat = event.decided.seat
        counts[seat] = counts.get(seat, 0) + 1


def player_ratings(
    stub: Any, accounts: Mapping[str, str], game_types: Sequence[str]
) -> dict[str, Any]:
    """Each remote bot's persisted ratings for the tournament's game types (GetRatings),
    after a rated tournament: bot name -> game type -> {mu, sigma, ordinal, games}."""
    ratings: dict[str, Any] = {}
    for bot, account in accounts.items():
        try:
            response = stub.GetRatings(referee_pb2.GetRatingsRequest(player=account), timeout=10)
        except grpc.RpcError:
            continue
        ratings[bot] = {
            r.game_type: message_json(r) for r in response.ratings if r.game_type in game_types
        }
    return ratings


class Method:
    """A unary method called by its descriptor (an API the stubs may not have had)."""

    def __init__(self, channel: grpc.Channel, method: Any) -> None:
        self.request_class: Any = message_factory.GetMessageClass(method.input_type)
        response_class = message_factory.GetMessageClass(method.output_type)
        self.call = channel.unary_unary(
            f"/{method.containing_service.full_name}/{method.name}",
            request_serializer=self.request_class.SerializeToString,
            response_deserializer=response_class.FromString,
        )

    def __call__(self, request: Any, timeout: float) -> Any:
        return self.call(request, timeout=timeout)
