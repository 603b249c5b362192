"""Playing a scenario against a live referee over gRPC (``referee scenario run --server``).

The driver creates the game with ``CreateGame`` (the scenario's seed and fixed deal), keeps
the seat tokens it returns, and opens one ``StreamGame`` per seat and one as the spectator
before the first command. Each command goes out with ``SubmitCommand`` under its seat's
token. What a step checks is what the viewers were *streamed*: the events of the command's
batch (``first_sequence..last_sequence``) as each viewer's stream delivered them, and the view
that came with the last event. A refusal is read from the gRPC status: its code, the rule id
in the ``google.rpc.ErrorInfo`` metadata, the message, and the details the contract promises
(``ErrorInfo`` of domain ``referee.v1``; ``PreconditionFailure`` with FAILED_PRECONDITION;
``BadRequest`` with a malformed request), so a refusal without them fails the step.
``unchanged`` checks ask ``GetView`` for every viewer before and after a refusal.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee import codec
from referee.application.tables.errors import RULE_REASONS
from referee.engine.game import Viewer
from referee.scenario.drivers import (
    INVALID_ARGUMENT,
    OK,
    Driver,
    Outcome,
    Setup,
    SetupRefused,
    parse_command,
    refusal_message,
    rules_events,
    seat_token,
    to_json,
)
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

#: Seconds one call, or one wait for a streamed event, may take (never hang a CI run).
TIMEOUT = 20.0
DOMAIN = "referee.v1"


class ServerProblem(RuntimeError):
    """The server did not answer as the contract says (a stream ended early, a timeout)."""


def refusal(error: grpc.RpcError) -> Outcome:
    """The outcome of a refused call, read from its status and ``google.rpc`` details."""
    code = error.code().name
    status = rpc_status.from_call(error)
    if status is None:
        text = error.details() or ""
        return Outcome(code, None, text, problem="the status carries no google.rpc details")
    info = error_details_pb2.ErrorInfo()
    kinds: set[str] = set()
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            detail.Unpack(info)
            kinds.add("ErrorInfo")
        elif detail.Is(error_details_pb2.PreconditionFailure.DESCRIPTOR):
            kinds.add("PreconditionFailure")
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            kinds.add("BadRequest")
    rule = info.metadata.get("rule_id") or None
    problem = None
    if "ErrorInfo" not in kinds or info.domain != DOMAIN:
        problem = f"the status has no google.rpc.ErrorInfo of domain {DOMAIN}"
    elif code == "FAILED_PRECONDITION" and "PreconditionFailure" not in kinds:
        problem = "FAILED_PRECONDITION without a google.rpc.PreconditionFailure"
    elif code == INVALID_ARGUMENT and rule is None and "BadRequest" not in kinds:
        problem = "INVALID_ARGUMENT with neither a rule id nor a google.rpc.BadRequest"
    elif rule is not None and info.reason not in RULE_REASONS:
        problem = f"a rule id with ErrorInfo reason {info.reason!r}"
    return Outcome(code, rule, refusal_message(rule, status.message), problem=problem)


class _Stream:
    """One viewer's ``StreamGame``, read on a thread: its events by sequence and its views."""

    def __init__(self, stub: pb_grpc.RefereeServiceStub, request: pb.StreamGameRequest) -> None:
        self.events: dict[int, dict[str, Any]] = {}
        self.views: dict[int, dict[str, Any]] = {}
        self.latest = -1
        self.ended: str | None = None
        self._ready = threading.Condition()
        self._call = stub.StreamGame(request)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for message in self._call:
                view = to_json(message.view)
                if not message.HasField("event"):
                    continue  # the current view first: the events from 1 follow, each with its view
                with self._ready:
                    sequence = message.event.sequence
                    self.events[sequence] = to_json(message.event)
                    self.views[sequence] = view
                    self.latest = max(self.latest, sequence)
                    self._ready.notify_all()
            ended = "the stream ended"
        except grpc.RpcError as error:
            ended = f"the stream failed: {error.code().name}"
        with self._ready:
            self.ended = ended
            self._ready.notify_all()

    def wait(self, sequence: int, who: str) -> None:
        with self._ready:
            if not self._ready.wait_for(
                lambda: self.latest >= sequence or self.ended is not None, TIMEOUT
            ):
                raise ServerProblem(f"{who}'s stream did not deliver event {sequence}")
            if self.latest < sequence:
                raise ServerProblem(f"{who}: {self.ended} before event {sequence}")

    def close(self) -> None:
        self._call.cancel()
        self._thread.join(TIMEOUT)


def _who(viewer: Viewer) -> str:
    return "the spectator" if viewer is None else f"seat {viewer}"


class ServerDriver(Driver):
    """A game on the referee at ``target`` (``HOST:PORT``), played through its public API."""

    def __init__(self, target: str) -> None:
        self.channel = grpc.insecure_channel(target)
        self.stub = pb_grpc.RefereeServiceStub(self.channel)
        self.game_id = ""
        self.tokens: list[str] = []
        self.streams: dict[Viewer, _Stream] = {}
        self._version = 0

    def game_type(self, game_type: str) -> dict[str, Any] | None:
        listed = self.stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=TIMEOUT)
        for entry in listed.game_types:
            if entry.game_type == game_type:
                return to_json(entry)
        return None

    def create(self, setup: Setup) -> None:
        request = pb.CreateGameRequest(
            game_type=setup.game_type,
            players=setup.players,
            options=setup.options,
            seed=setup.seed,
            # A scenario's seed is in its file: the deal is public and reproducible on purpose.
            public_reproducible_seed=bool(setup.seed),
        )
        if setup.deal is not None:
            request.deal.CopyFrom(codec.deal_to_proto(setup.deal))
        try:
            created = self.stub.CreateGame(request, timeout=TIMEOUT)
        except grpc.RpcError as error:
            raise SetupRefused(refusal(error)) from None
        players = self.players = setup.players
        self.game_id = created.game_id
        self.tokens = [token.token for token in sorted(created.seats, key=lambda t: t.seat)]
        self._version = created.game.version
        for viewer in (*range(players), None):
            self.streams[viewer] = _Stream(self.stub, self._stream_request(viewer))

    def _stream_request(self, viewer: Viewer) -> pb.StreamGameRequest:
        if viewer is None:
            return pb.StreamGameRequest(game_id=self.game_id, spectator=True)
        return pb.StreamGameRequest(game_id=self.game_id, seat_token=self.tokens[viewer])

    def submit(self, seat: int, command: Any) -> Outcome:
        message = parse_command(command)
        if isinstance(message, Outcome):  # cannot even be sent
            return message
        request = pb.SubmitCommandRequest(
            game_id=self.game_id,
            seat_token=seat_token(self.tokens, seat),
            command_id=uuid.uuid4().hex,
            command=message,
        )
        try:
            response = self.stub.SubmitCommand(request, timeout=TIMEOUT)
        except grpc.RpcError as error:
            return refusal(error)
        self._version = self._summary().version  # the referee's own batch (a reveal) too
        return Outcome(OK, first=response.first_sequence, last=response.last_sequence)

    def _summary(self) -> pb.GameSummary:
        request = pb.GetGameRequest(game_id=self.game_id)
        game: pb.GameSummary = self.stub.GetGame(request, timeout=TIMEOUT).game
        return game

    def version(self) -> int:
        return int(self._summary().version)

    def view(self, viewer: Viewer) -> dict[str, Any]:
        stream = self.streams[viewer]
        stream.wait(self._version, _who(viewer))
        return stream.views[stream.latest]

    def current_view(self, viewer: Viewer) -> dict[str, Any]:
        if viewer is None:
            request = pb.GetViewRequest(game_id=self.game_id, spectator=True)
        else:
            request = pb.GetViewRequest(game_id=self.game_id, seat_token=self.tokens[viewer])
        view = to_json(self.stub.GetView(request, timeout=TIMEOUT).view)
        view.pop("clocks", None)
        return view

    def events(self, first: int, last: int, viewer: Viewer) -> list[dict[str, Any]]:
        stream = self.streams[viewer]
        stream.wait(last, _who(viewer))
        return rules_events([stream.events[sequence] for sequence in range(first, last + 1)])

    def summary(self) -> dict[str, Any]:
        return to_json(self._summary())

    def close(self) -> None:
        for stream in self.streams.values():
            stream.close()
        self.channel.close()


__all__ = ["TIMEOUT", "ServerDriver", "ServerProblem", "refusal"]
