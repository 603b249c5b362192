"""Clients that ride out store faults as docs/clients.md says, for the fault tests.

:class:`Player` plays random legal commands and retries every call that fails UNAVAILABLE
(after its ``RetryInfo`` delay) or whose transport was cut, a command with the same id. It
records every failure (code, retry delay, how long the call took) and the outcome each
command id ended with, so a test can check that faults were UNAVAILABLE with a retry hint,
answered soon, and that every command applied once.
"""

from __future__ import annotations

import random
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

#: A client's deadline for one call (as docs/clients.md suggests for unary calls).
DEADLINE = 20.0
#: Give up on one call after this many UNAVAILABLE answers (a hang guard).
MAX_RETRIES = 200
#: How gRPC reports a call whose transport was cut (a proxy's RST_STREAM when the server
#: behind it died, a reset connection): the outcome is unknown, so it is retried too.
CUT = re.compile(r"RST_STREAM|Stream removed|Socket closed|Connection reset|GOAWAY")


def retryable(fault: Fault) -> bool:
    """UNAVAILABLE, or a transport cut (docs/clients.md: retry a command by its id)."""
    if fault.code is grpc.StatusCode.UNAVAILABLE:
        return True
    cut = fault.code in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
    return cut and bool(CUT.search(fault.message))


@dataclass(frozen=True)
class Fault:
    """One failed call as the client saw it."""

    method: str
    code: grpc.StatusCode
    message: str
    #: RetryInfo.retry_delay in seconds, ``None`` when the status had none.
    retry_delay: float | None
    #: Seconds from sending the call to its failure.
    seconds: float


def fault_of(method: str, error: grpc.RpcError, seconds: float) -> Fault:
    call: Any = error
    delay = None
    status = rpc_status.from_call(call)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            delay = info.retry_delay.ToMilliseconds() / 1000
    return Fault(method, call.code(), call.details() or "", delay, seconds)


@dataclass
class Player:
    """Plays one game to its end through ``stub``, retrying UNAVAILABLE calls."""

    stub: pb_grpc.RefereeServiceStub
    game_id: str
    tokens: list[str]
    rng: random.Random
    faults: list[Fault] = field(default_factory=list)
    #: command id -> (first_sequence, last_sequence) of the answer that ended its retries.
    outcomes: dict[str, tuple[int, int]] = field(default_factory=dict)
    error: BaseException | None = None

    def call(self, method: str, request: Any) -> Any:
        rpc: Callable[..., Any] = getattr(self.stub, method)
        for _ in range(MAX_RETRIES):
            started = time.monotonic()
            try:
                return rpc(request, timeout=DEADLINE)
            except grpc.RpcError as error:
                fault = fault_of(method, error, time.monotonic() - started)
                self.faults.append(fault)
                if not retryable(fault):
                    raise
                time.sleep(min(fault.retry_delay or 0.2, 2.0))
        raise AssertionError(f"{method} still UNAVAILABLE after {MAX_RETRIES} tries")

    def play(self, max_commands: int = 10_000) -> None:
        try:
            for _ in range(max_commands):
                game = self.call("GetGame", pb.GetGameRequest(game_id=self.game_id)).game
                if game.game_over:
                    return
                seat = self.rng.choice(list(game.pending_seats))
                view = self.call(
                    "GetView",
                    pb.GetViewRequest(game_id=self.game_id, seat_token=self.tokens[seat]),
                ).view
                if not view.legal_commands or view.version != game.version:
                    continue  # moved on meanwhile (a timeout, another seat)
                command_id = uuid.uuid4().hex
                request = pb.SubmitCommandRequest(
                    game_id=self.game_id,
                    seat_token=self.tokens[seat],
                    command_id=command_id,
                    command=self.rng.choice(list(view.legal_commands)),
                )
                try:
                    answer = self.call("SubmitCommand", request)
                except grpc.RpcError as error:
                    code = error.code()  # type: ignore[attr-defined]
                    if code is grpc.StatusCode.FAILED_PRECONDITION:
                        continue  # a clock moved the game on before the command: fine
                    raise
                self.outcomes[command_id] = (answer.first_sequence, answer.last_sequence)
        except BaseException as error:  # reported by the test
            self.error = error


def create(
    stub: pb_grpc.RefereeServiceStub, request: pb.CreateGameRequest
) -> tuple[str, list[str]]:
    """Create a game (retrying UNAVAILABLE: a retried create may leave an unused game)."""
    helper = Player(stub, "", [], random.Random(0))
    created = helper.call("CreateGame", request)
    return created.game_id, [s.token for s in sorted(created.seats, key=lambda s: s.seat)]


def play_all(players: list[Player]) -> list[threading.Thread]:
    threads = [threading.Thread(target=p.play, daemon=True) for p in players]
    for thread in threads:
        thread.start()
    return threads
