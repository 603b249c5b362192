"""``referee.v1.RefereeService``, once for every transport.

:class:`RefereeCore` implements each RPC of the service once over the referee application
(:class:`~referee.application.Referee`): it checks a request's fields, turns the protobuf
request into the application's values and its answer back into a response
(:mod:`referee.server.convert`), and keeps per-RPC metrics (by the status code the client
gets) and command logs. It knows no transport: a unary call takes a request message and
returns the response message; a stream writes ready bytes (one serialized
``StreamGameResponse`` each) with the transport's ``write``, paced and bounded by the fan-out.
Every refusal is a :class:`~referee.application.tables.errors.RefereeError`, which each adapter
sends as the ``google.rpc.Status`` of :mod:`referee.server.errors`.

The adapters, both built from the service descriptor (:data:`METHODS`): gRPC
(:mod:`referee.server.wire`) and HTTP, Connect and gRPC-Web (:mod:`referee.server.connect`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import structlog
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from google.rpc import code_pb2

from referee import codec
from referee.application import PlayerSeat, Referee, RefereeError, Update
from referee.application.tables.access import SeatKey
from referee.application.tables.errors import Kind, bad_request, clip
from referee.application.tables.limits import GAMES_CREATED, READS, REGISTRATIONS, CallLimits
from referee.application.tables.pacing import Outlet
from referee.engine.registry import all_games
from referee.metrics import SERVICE, Metrics
from referee.server import convert, errors, pages
from referee.server.addresses import TrustedProxies
from referee.server.calls import ANONYMOUS, Caller, Refused, Write
from referee.server.lobby_rpc import LobbyCalls
from referee.server.players_rpc import PlayerCalls
from referee.server.seats_rpc import SeatCalls
from referee.server.session_rpc import SessionCalls
from referee.v1 import referee_pb2 as pb

log = structlog.get_logger("referee")

#: ``caught_up: true`` as a field of ``StreamGameResponse``, appended to a message's bytes (a
#: protobuf message is the concatenation of its fields).
CAUGHT_UP = bytes((pb.StreamGameResponse.DESCRIPTOR.fields_by_name["caught_up"].number << 3, 1))


@dataclass(frozen=True, slots=True)
class Method:
    """One RPC of the service, as its descriptor declares it."""

    name: str
    input: type[Message]
    output: type[Message]
    #: The server streams its answer (server-streaming and bidirectional RPCs).
    streaming: bool
    #: The client streams its requests (PlayerSession): gRPC only, HTTP/1.1 cannot.
    client_streaming: bool = False


def _methods() -> dict[str, Method]:
    service = pb.DESCRIPTOR.services_by_name["RefereeService"]
    return {
        m.name: Method(
            m.name,
            getattr(pb, m.input_type.name),
            getattr(pb, m.output_type.name),
            m.server_streaming,
            m.client_streaming,
        )
        for m in service.methods
    }


#: Every RPC of ``referee.v1.RefereeService``, by name.
METHODS = _methods()

#: The unary RPCs counted against the caller's address when no player is counted for them
#: (:class:`~referee.application.tables.limits.AddressLimits`), by the kind they count as. A
#: call carrying a seat or organiser token is that seat's or organiser's, not counted.
BY_ADDRESS = {
    "CreateGame": GAMES_CREATED,
    "Register": REGISTRATIONS,
    **dict.fromkeys(
        (
            "ListGameTypes",
            "GetGame",
            "ListGames",
            "GetView",
            "ListLobby",
            "GetRatings",
            "GetLeaderboard",
            "GetPresence",
        ),
        READS,
    ),
}


def decode(method: Method, data: bytes, json: bool = False) -> Message | Refused:
    """The request message in ``data`` (binary protobuf, or protobuf JSON)."""
    request = method.input()
    try:
        if json:
            json_format.Parse(data, request)
        else:
            request.ParseFromString(data)
    except (
        DecodeError,
        json_format.ParseError,
        UnicodeDecodeError,
        ValueError,
        RecursionError,
    ) as error:
        kind = "protobuf JSON" if json else "serialized"
        why = clip(str(error) or type(error).__name__)
        return Refused(
            bad_request("request", f"not a {kind} {method.name} request message ({why})"),
            "undecodable",
        )
    return request


class Arrivals:
    """How many calls have reached the service: a stopping server keeps serving until no
    new call has arrived for a moment, so calls received just before the stop are served
    rather than cancelled by gRPC before they start."""

    def __init__(self) -> None:
        self.count = 0


def _has_token(request: Message | Refused) -> bool:
    """The request carries a seat's or the organiser's token."""
    return bool(getattr(request, "seat_token", "") or getattr(request, "organiser_token", ""))


def _as_seat(request: pb.GetViewRequest | pb.StreamGameRequest) -> int | None:
    return request.as_seat if request.HasField("as_seat") else None


def _seat_of(
    request: pb.GetViewRequest | pb.StreamGameRequest | pb.SubmitCommandRequest,
) -> int | None:
    return request.seat if request.HasField("seat") else None


class RefereeCore:
    """Every RPC of the service, transport-free. Methods are named as in the proto: the
    games' here, the players' in the parts it is assembled from, each given the rooms it
    calls (:mod:`referee.server.players_rpc`, :mod:`~referee.server.seats_rpc`,
    :mod:`~referee.server.lobby_rpc`, :mod:`~referee.server.session_rpc`). Each takes the
    request and the :class:`Caller` (a stream also its ``write``)."""

    def __init__(
        self, referee: Referee, metrics: Metrics, proxies: TrustedProxies | None = None
    ) -> None:
        self.referee = referee
        self.metrics = metrics
        #: The proxies whose forwarded client addresses the transports believe.
        self.proxies = proxies or TrustedProxies()
        self.arrivals = Arrivals()
        #: Whether the per-command lines are written (``--log-level debug``), as logging was
        #: configured when the service was made: at info level a command builds none.
        self.log_commands = log.is_enabled_for(logging.DEBUG)
        players = referee.players
        #: Each RPC's handler, by its name in the proto.
        self.rpcs = _handlers(
            self,
            PlayerCalls(players, referee.presence),
            SeatCalls(players, referee.seating, referee.organiser),
            LobbyCalls(players, referee.lobby, metrics),
            SessionCalls(players, referee.sessions, referee.pacing, metrics),
        )

    # --- the two shapes of call ----------------------------------------------------------

    async def unary(
        self, name: str, request: Message | Refused, caller: Caller = ANONYMOUS
    ) -> Message | bytes:
        """Call the unary RPC ``name``: its response message, or its serialized bytes when
        they exist already (SubmitCommand's view); raises the :class:`RefereeError` it refuses
        with."""
        with _Measured(self, "unary", name, request), CallLimits.one_call():
            kind = BY_ADDRESS.get(name)
            if kind is not None and not _has_token(request):
                await self.referee.players.count(caller.credential, caller.address, kind)
            response: Message | bytes = await self.rpcs[name](request, caller)
        return response

    async def stream(
        self,
        name: str,
        request: Message | Refused,
        write: Write,
        caller: Caller = ANONYMOUS,
        cancel_writes: bool = True,
    ) -> None:
        """Run the streaming RPC ``name`` into ``write``; returns when it ends with OK,
        raises the :class:`RefereeError` it ends with otherwise. Every stream is held to the
        one stream policy (:mod:`referee.application.tables.pacing`): admitted, its writes
        under the stall limit, a heartbeat when idle. ``cancel_writes``: ``write`` may be
        cancelled (gRPC's may not: see :class:`Outlet`)."""
        out = self._outlet(name, write, cancel_writes)
        out.enter(_Measured(self, "server_stream", name, request))
        out.enter(self.referee.pacing.admit(caller.address))
        async with out:
            await self.rpcs[name](request, out, caller)

    async def duplex(
        self,
        name: str,
        requests: AsyncIterator[Message | Refused],
        write: Write,
        caller: Caller = ANONYMOUS,
        cancel_writes: bool = True,
    ) -> None:
        """Run the bidirectional RPC ``name``: it reads ``requests`` (each decoded, or the
        :class:`Refused` the transport made of bytes it could not read) and writes with
        ``write``; returns when it ends with OK, raises the :class:`RefereeError` it ends
        with otherwise."""
        out = self._outlet(name, write, cancel_writes)
        out.enter(_Measured(self, "bidi_stream", name, None))
        out.enter(self.referee.pacing.admit(caller.address))
        async with out:
            await self.rpcs[name](requests, out, caller)

    def _outlet(self, name: str, write: Write, cancel_writes: bool) -> Outlet:
        """``write`` under the stream policy, with the heartbeat of the RPC's response."""
        return self.referee.pacing.outlet(write, _heartbeat(name), cancel_writes)

    # --- the RPCs ------------------------------------------------------------------------

    async def ListGameTypes(
        self, request: pb.ListGameTypesRequest, caller: Caller
    ) -> pb.ListGameTypesResponse:
        response = pb.ListGameTypesResponse()
        response.game_types.extend(codec.game_type_to_proto(g.info) for g in all_games())
        house = self.referee.house_bots
        for bot in house.bots:
            response.house_bots.add(
                player=bot.player,
                level=bot.level,
                strategy=bot.strategy,
                description=bot.description,
                pair_after_ms=int(house.pair_after_seconds * 1000),
                budget_ms=house.budget_ms,
            )
        return response

    async def CreateGame(
        self, request: pb.CreateGameRequest, caller: Caller
    ) -> pb.CreateGameResponse:
        deal = codec.deal_from_proto(request.deal) if request.HasField("deal") else None
        settings = convert.settings_from_request(request)
        creator = None
        if any(plan.mode == "creator" for plan in settings.seats):
            # Only a creator seat needs to know who creates: a credential sent along with
            # any other request is not checked (nor refused).
            creator = await self.referee.players.authenticate(caller.credential)
        created = await self.referee.create(
            request.game_type,
            request.players,
            dict(request.options),
            seed=request.seed,
            deal=deal,
            settings=settings,
            creator=creator,
            request_id=request.request_id,
        )
        return convert.created_to_proto(created)

    async def _seat_key(
        self, seat_token: str, seat: int | None, caller: Caller, watching: bool = False
    ) -> SeatKey:
        """Who a seat-scoped call is for: the seat token when sent (the credential is then
        not looked at), else the player of the caller's credential with ``seat`` (or its one
        seat of the game). ``watching``: a spectator's or the organiser's call, which names
        no seat."""
        if seat_token or watching:
            return seat_token
        if not caller.credential:
            if seat is not None:
                raise RefereeError(
                    Kind.UNAUTHENTICATED,
                    "seat needs the player's credential (authorization: Bearer ...); or send "
                    "seat_token",
                    "CREDENTIAL_MISSING",
                )
            return ""
        principal = await self.referee.players.authenticate(caller.credential)
        return PlayerSeat(principal, seat)

    async def GetGame(self, request: pb.GetGameRequest, caller: Caller) -> pb.GetGameResponse:
        summary = await self.referee.summary(request.game_id)
        return pb.GetGameResponse(game=convert.summary_to_proto(summary))

    async def ListGames(self, request: pb.ListGamesRequest, caller: Caller) -> pb.ListGamesResponse:
        page = await self.referee.list_games(
            game_type=request.game_type,
            running_only=request.running_only,
            offset=pages.offset_of(request.page_token),
            size=request.page_size or pages.DEFAULT_PAGE,
        )
        return convert.page_to_proto(page)

    async def GetView(self, request: pb.GetViewRequest, caller: Caller) -> pb.GetViewResponse:
        watching = request.spectator or bool(request.organiser_token)
        seat = await self._seat_key(request.seat_token, _seat_of(request), caller, watching)
        seat_view = await self.referee.view(
            request.game_id,
            seat_token=seat,
            spectator=request.spectator,
            organiser_token=request.organiser_token,
            as_seat=_as_seat(request),
        )
        return pb.GetViewResponse(view=convert.view_to_proto(seat_view))

    async def AbortGame(self, request: pb.AbortGameRequest, caller: Caller) -> pb.AbortGameResponse:
        summary = await self.referee.abort(request.game_id, request.organiser_token, request.reason)
        return pb.AbortGameResponse(game=convert.summary_to_proto(summary))

    async def FillWithBots(
        self, request: pb.FillWithBotsRequest, caller: Caller
    ) -> pb.FillWithBotsResponse:
        summary = await self.referee.fill_with_bots(
            request.game_id, request.organiser_token, request.level
        )
        return pb.FillWithBotsResponse(game=convert.summary_to_proto(summary))

    async def RevealSeed(
        self, request: pb.RevealSeedRequest, caller: Caller
    ) -> pb.RevealSeedResponse:
        summary = await self.referee.reveal(request.game_id, request.organiser_token)
        return pb.RevealSeedResponse(game=convert.summary_to_proto(summary))

    async def ExportGame(
        self, request: pb.ExportGameRequest, caller: Caller
    ) -> pb.ExportGameResponse:
        exported = await self.referee.export(request.game_id, request.organiser_token)
        return convert.exported_to_proto(exported)

    async def SubmitCommand(self, request: pb.SubmitCommandRequest, caller: Caller) -> bytes:
        """The answer as a serialized ``SubmitCommandResponse``: the seat's view is sent as
        the bytes the live game made with the batch."""
        started = time.perf_counter()
        command = convert.command_from_request(request)
        try:
            # A seat token is the seat (what _seat_key answers for it): no coroutine to make.
            seat = request.seat_token or await self._seat_key("", _seat_of(request), caller)
            submitted = await self.referee.submit(
                request.game_id,
                seat,
                request.command_id,
                command,
                expected_version=convert.expected_version_of(request),
                client_decision_ms=request.client_decision_ms,
            )
        except RefereeError as error:
            rule = error.metadata.get("rule_id", error.reason)
            self.metrics.commands_of(_game_type_of(request), "rejected", rule).inc()
            rejected_seat = error.metadata.get("seat")
            if not self.log_commands:  # one line per command: only with --log-level debug
                raise
            log.debug(
                "command",
                game_id=clip(request.game_id),
                seat=int(rejected_seat) if rejected_seat is not None else None,
                command_type=_command_type_of(request),
                outcome="rejected",
                code=errors.code_name(errors.status_code(error)),
                rule_id=error.metadata.get("rule_id"),
                latency_ms=round((time.perf_counter() - started) * 1000, 3),
            )
            raise
        outcome = "duplicate" if submitted.duplicate else "accepted"
        self.metrics.commands_of(submitted.game_type, outcome, "ok").inc()
        if self.log_commands:
            log.debug(
                "command",
                game_id=request.game_id,
                seat=submitted.seat,
                command_type=_command_type_of(request),
                outcome=outcome,
                version=submitted.version,
                latency_ms=round((time.perf_counter() - started) * 1000, 3),
            )
        return convert.submitted_bytes(submitted)

    async def StreamGame(self, request: pb.StreamGameRequest, out: Outlet, caller: Caller) -> None:
        """The stream's messages as bytes: a batched message is shared by every stream of
        its viewer, its events by every viewer who sees them alike (encoded once)."""
        batched = request.batched
        out.resume["last_sequence"] = str(request.after_sequence)
        watching = request.spectator or bool(request.organiser_token)
        seat = await self._seat_key(request.seat_token, _seat_of(request), caller, watching)
        player = seat.principal.player.name if isinstance(seat, PlayerSeat) else ""
        sent = self.metrics.msg_sent.labels("server_stream", SERVICE, "StreamGame")
        if player:
            out.enter(self.referee.pacing.admit_player(player))
        await self.referee.serve_stream(
            request.game_id,
            _GameSender(out, batched, sent),
            seat_token=seat,
            spectator=request.spectator,
            organiser_token=request.organiser_token,
            as_seat=_as_seat(request),
            after=request.after_sequence,
            batched=batched,
            holder=out,
        )


class _GameSender:
    """StreamGame's ``send``: an update's bytes written through the stream's outlet, and the
    position a stalled client resumes after kept up to date. A slotted object, not a
    closure: an open stream holds one for its whole life."""

    __slots__ = ("batched", "out", "sent")

    def __init__(self, out: Outlet, batched: bool, sent: Any) -> None:
        self.out = out
        self.batched = batched
        self.sent = sent

    async def __call__(self, update: Update, caught_up: bool) -> None:
        data = convert.update_bytes(update, self.batched)
        await self.out.send(data + CAUGHT_UP if caught_up else data)
        self.sent.inc()
        if update.events:  # taken: a stall after it resumes after it
            self.out.resume["last_sequence"] = str(update.events[-1].sequence)


@functools.cache
def _heartbeat(name: str) -> Callable[[], bytes]:
    """The heartbeat of the streaming RPC ``name`` (one function per RPC, shared by its
    streams)."""
    response = METHODS[name].output

    def heartbeat() -> bytes:
        beat = response()
        beat.heartbeat.sent_unix_ms = int(time.time() * 1000)  # type: ignore[attr-defined]
        return beat.SerializeToString()

    return heartbeat


def _handlers(*parts: object) -> dict[str, Callable[..., Awaitable[Any]]]:
    """Every RPC of :data:`METHODS`, found by its name on exactly one of ``parts``."""
    handlers = {}
    for name in METHODS:
        found = [getattr(part, name) for part in parts if hasattr(part, name)]
        if len(found) != 1:
            raise TypeError(f"{name}: {len(found)} handlers among the service's parts")
        handlers[name] = found[0]
    return handlers


class _Measured:
    """One call, counted: started, handled by the code the client gets, and timed. A
    request the transport could not read is refused here, so it is counted like any call."""

    __slots__ = ("handled", "labels", "metrics", "request", "started")

    def __init__(self, core: RefereeCore, kind: str, name: str, request: object) -> None:
        self.metrics = core.metrics
        self.labels = (kind, SERVICE, name)
        self.request = request
        self.handled = False
        core.arrivals.count += 1

    def __enter__(self) -> None:
        self.metrics.started_of(*self.labels).inc()
        self.started = time.perf_counter()
        if isinstance(self.request, Refused):
            error = self.request.error
            log.info(
                "request_refused",
                method=self.labels[2],
                code=errors.code_name(errors.status_code(error)),
                what=self.request.what,
            )
            self._handled(errors.status_code(error))
            raise error

    def release(self, error: BaseException | None) -> None:
        """Count the call handled with ``error`` (``None``: OK), once: a stream's outlet
        releases it at the stream's end, or at its stall (the task then waits in its last
        write, and its end counts nothing more)."""
        self.__exit__(None if error is None else type(error), error, None)

    def __exit__(self, kind: type[BaseException] | None, error: object, _: object) -> None:
        if self.handled:
            return
        if kind is None:
            code = code_pb2.OK
        elif isinstance(error, RefereeError):
            code = errors.status_code(error)
        elif issubclass(kind, GeneratorExit | asyncio.CancelledError):
            code = code_pb2.CANCELLED  # the client went away
        else:
            code = code_pb2.INTERNAL
        self._handled(code)

    def _handled(self, code: int) -> None:
        self.handled = True
        self.metrics.handled_of(*self.labels, errors.code_name(code)).inc()
        self.metrics.handling_of(*self.labels).observe(time.perf_counter() - self.started)


def _game_type_of(request: pb.SubmitCommandRequest) -> str:
    which = request.command.WhichOneof("game") if request.HasField("command") else None
    return (which or "unknown").replace("_", "-")


def _command_type_of(request: pb.SubmitCommandRequest) -> str | None:
    which = request.command.WhichOneof("game") if request.HasField("command") else None
    if which is None:
        return None
    kind: str | None = getattr(request.command, which).WhichOneof("kind")
    return kind


__all__ = [
    "CAUGHT_UP",
    "METHODS",
    "Method",
    "RefereeCore",
    "decode",
]
