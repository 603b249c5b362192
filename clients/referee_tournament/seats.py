"""Seats of a networked game that the runner does not hand out itself, and what the referee
says about each seat at the end.

* **Remote bots** (``account:`` in the config) run on their own. The runner creates the game
  with that bot's seat reserved for its account (``SEAT_MODE_RESERVED``), the other seats'
  tokens for itself (``SEAT_MODE_UNSPECIFIED``), and a join deadline
  (``limits.join_timeout``): the referee deals when every seat is held. A bot that has not
  claimed its seat by then is **absent**: with ``no_show: loss`` the referee ends the game
  there (``NO-SHOW``), the absent bot ranked last; with ``no_show: void`` it voids the game,
  which the runner replays later. A remote bot that is offline when its game is made (no
  player stream open: ``GetPresence``) holds no game up: the join deadline is 1 ms (or, with
  other remote bots in the game that are online, ``start_timeout``, for them to sit down),
  and it is reported absent.
* Every tournament game ranks finishers first (``RANKING_FINISHERS_FIRST``): each seat's
  result (rank, how it ended, the rule and the reason) is the referee's, read as it is
  (:func:`seat_records`). ``GameSummary.seat_stats`` adds what only the referee counts:
  refused commands, clock timeouts, disconnects, decision times.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
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
}
#: SeatEnd -> how results.json names it (a referee from before seat ends says nothing: the
#: seat finished).
END_WORDS = {
    referee_pb2.SEAT_END_UNSPECIFIED: "finished",
    referee_pb2.SEAT_END_FINISHED: "finished",
    referee_pb2.SEAT_END_RESIGNED: "resigned",
    referee_pb2.SEAT_END_FORFEITED: "forfeited",
    referee_pb2.SEAT_END_ABANDONED: "abandoned",
    referee_pb2.SEAT_END_ABSENT: "absent",
}
#: The join deadline of a game whose remote bot is offline: the referee ends it at once.
AT_ONCE_MS = 1


def remote_seats(config: TournamentConfig, spec: GameSpec) -> dict[int, str]:
    """The seats of ``spec`` held by remote bots: seat -> account."""
    return {
        seat: account
        for seat, name in enumerate(spec.seating)
        if (account := config.bot(name).account) is not None
    }


def reserve_seats(
    config: TournamentConfig,
    spec: GameSpec,
    request: referee_pb2.CreateGameRequest,
    offline: AbstractSet[str] = frozenset(),
    *,
    final: bool = False,
) -> dict[int, str]:
    """Fill ``request``'s seat requests for the remote bots of ``spec`` (seat -> account):
    ``offline`` accounts make the join deadline 1 ms (absent at once); ``final``: a no-show is
    scored as a loss whatever ``no_show`` says (the last replay of a void deal)."""
    remote = remote_seats(config, spec)
    if remote:
        for seat in range(spec.players):
            if seat in remote:
                request.seat_requests.add(mode=referee_pb2.SEAT_MODE_RESERVED, player=remote[seat])
            else:
                request.seat_requests.add(mode=referee_pb2.SEAT_MODE_UNSPECIFIED)
        request.join_deadline_ms = join_deadline_ms(config, list(remote.values()), offline)
        loss = final or config.no_show == "loss"
        request.no_show = referee_pb2.NO_SHOW_LOSS if loss else referee_pb2.NO_SHOW_VOID
        # No bot learns whom it meets before the game starts, so none can dodge.
        request.hide_reservations = True
        # The runner checks every deal after the end (referee verify): the remote bots see
        # this in the game's summary before they claim their seats.
        request.organiser_audit = True
    if config.rated:
        request.rated = True
    return remote


def join_deadline_ms(
    config: TournamentConfig, accounts: Sequence[str], offline: AbstractSet[str]
) -> int:
    """The join deadline of a game with remote ``accounts``: ``join_timeout``; with an
    offline one, 1 ms when every remote bot is offline (absent at once), else
    ``start_timeout``: time for the online ones to sit down, none wasted on the others."""
    away = [account for account in accounts if account in offline]
    if not away:
        return max(1, int(config.limits.join_timeout * 1000))
    if len(away) == len(accounts):
        return AT_ONCE_MS
    return max(1, int(min(config.limits.start_timeout, config.limits.join_timeout) * 1000))


def offline_accounts(stub: Any, accounts: Sequence[str]) -> set[str]:
    """The ``accounts`` with no player stream open on the referee (``GetPresence``); none
    when the referee cannot tell."""
    if not accounts:
        return set()
    request = referee_pb2.GetPresenceRequest(players=sorted(set(accounts)))
    try:
        answer = stub.GetPresence(request, timeout=10)
    except grpc.RpcError:
        return set()
    return {p.player for p in answer.players if not p.online}


def absent_seats(summary: referee_pb2.GameSummary) -> list[int]:
    """The seats still reserved (never claimed) of a game that never started."""
    if summary.started:
        return []
    return [h.seat for h in summary.seat_holders if h.state == referee_pb2.SEAT_STATE_RESERVED]


def seat_records(
    spec: GameSpec, results: Sequence[referee_pb2.SeatResult], default_moves: Mapping[int, int]
) -> list[SeatRecord]:
    """Each seat's result as the referee gave it (rank by the one rule, how it ended)."""
    by_seat = {r.seat: r for r in results}
    records = []
    for seat, name in enumerate(spec.seating):
        result = by_seat[seat]
        records.append(
            SeatRecord(
                seat=seat,
                bot=name,
                rank=result.rank,
                score=result.score,
                end=END_WORDS.get(result.end, "finished"),
                end_rule_id=result.end_rule_id,
                end_reason=result.end_reason,
                rules_rank=result.rules_rank or result.rank,
                default_moves=default_moves.get(seat, 0),
            )
        )
    return records


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
        if record is not None and "commands" in stats.DESCRIPTOR.fields_by_name:
            record.commands = int(data.get("commands", 0))
            record.decision_ms = int(data.get("decision_ms_total", 0))


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
