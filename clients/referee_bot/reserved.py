"""Seats reserved for a player, claimed as the player stream announces them: how a bot that
runs on its own takes the seats a tournament runner (or any organiser) reserved for it.

A game created with ``SEAT_MODE_RESERVED`` for a player announces the seat on that player's
stream (``PlayerMessage.reserved``, a ``SeatReserved``: when the reservation is made, and
when the stream opens for each one still waiting, so a program that connects late misses
none). :class:`ReservedSeats` claims each announced seat once (``ClaimSeat`` with the
player's credential); the stream then follows the claimed seat from its holding, as it
follows a seat from an accepted challenge. Use it as a :class:`~referee_bot.session.
PlayerStream`'s ``on_message`` (``referee-bot player --claim-reserved``), or on its own stream
with :meth:`ReservedSeats.start` (a program that plays its seats some other way).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import grpc

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.runner import backoff, describe_rpc_error

log = logging.getLogger("referee_bot.reserved")

#: Refusals after which a seat is not tried again (taken, started, over, not ours).
FINAL = frozenset(
    {
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.INVALID_ARGUMENT,
    }
)


class ReservedSeats:
    """Claims every seat announced reserved for the credential's player."""

    def __init__(self, stub: referee_pb2_grpc.RefereeServiceStub, credential: str) -> None:
        self.stub = stub
        self.metadata = [("authorization", f"Bearer {credential}")]
        #: The seats claimed, as (game id, seat), in order.
        self.claimed: list[tuple[str, int]] = []
        self._tried: set[tuple[str, int]] = set()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._call: Any = None

    def announced(self, message: referee_pb2.PlayerMessage) -> None:
        """A player stream's message: claims the seat a ``reserved`` one announces (a
        PlayerStream's ``on_message``)."""
        if message.WhichOneof("kind") == "reserved":
            self.claim(message.reserved.game_id, message.reserved.seat)

    def claim(self, game_id: str, seat: int) -> bool:
        """Claim the seat unless it was claimed or finally refused before; True if claimed
        now. A refusal that may pass (UNAVAILABLE) is tried again at its next announcement
        (the stream announces the reservations still waiting each time it reconnects)."""
        key = (game_id, seat)
        with self._lock:
            if key in self._tried:
                return False
            self._tried.add(key)
        request = referee_pb2.ClaimSeatRequest(game_id=game_id, seat=seat)
        try:
            self.stub.ClaimSeat(request, metadata=self.metadata, timeout=30)
        except grpc.RpcError as error:
            if error.code() not in FINAL:
                with self._lock:
                    self._tried.discard(key)
            log.info("claim %s seat %d: %s", game_id, seat, describe_rpc_error(error))
            return False
        with self._lock:
            self.claimed.append(key)
        return True

    # --- on its own stream ------------------------------------------------------------

    def start(self) -> ReservedSeats:
        """Follow the player's own stream (WatchPlayer) in a background thread, claiming
        what it announces, until :meth:`stop`."""
        self._thread = threading.Thread(target=self._run, name="reserved-seats", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        call = self._call
        if call is not None:
            call.cancel()
        if self._thread is not None:
            self._thread.join(5)

    def _run(self) -> None:
        attempt = 0
        while not self._stopped.is_set():
            try:
                call: Any = self.stub.WatchPlayer(
                    referee_pb2.WatchPlayerRequest(), metadata=self.metadata
                )
                self._call = call
                if self._stopped.is_set():
                    call.cancel()
                for response in call:
                    attempt = 0
                    for message in response.messages:
                        self.announced(message)
            except grpc.RpcError as error:  # the server restarting: reconnect
                if self._stopped.is_set():
                    return
                log.info("player stream: %s", describe_rpc_error(error))
            self._stopped.wait(backoff(attempt))
            attempt += 1
