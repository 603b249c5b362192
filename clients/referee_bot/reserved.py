"""Seats reserved for a player, found and claimed: how a bot that runs on its own takes the
seats a tournament runner (or any organiser) reserved for it.

A game created with ``SEAT_MODE_RESERVED`` for a player names that player in its public
``GameSummary.seat_holders`` (state ``SEAT_STATE_RESERVED``) until the player claims the
seat with its credential. :class:`ReservedSeats` looks for such seats in ``ListGames`` (the
running games, newest first) about every ``interval`` seconds and claims each one once; the
player stream (:class:`referee_bot.session.PlayerStream`) then follows the claimed seat from
its holding, as it follows a seat from an accepted challenge. Polling is what the API offers
today: the player stream does not announce reservations.
"""

from __future__ import annotations

import logging
import threading

import grpc

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.runner import describe_rpc_error

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
    """Claims every seat reserved for the credential's player, in a background thread."""

    def __init__(
        self,
        stub: referee_pb2_grpc.RefereeServiceStub,
        credential: str,
        *,
        interval: float = 0.5,
    ) -> None:
        self.stub = stub
        self.metadata = [("authorization", f"Bearer {credential}")]
        self.interval = interval
        self.claimed: list[tuple[str, int]] = []
        self._tried: set[tuple[str, int]] = set()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._name = ""

    def start(self) -> ReservedSeats:
        who = self.stub.WhoAmI(referee_pb2.WhoAmIRequest(), metadata=self.metadata, timeout=30)
        self._name = who.player.name
        self._thread = threading.Thread(target=self._run, name="reserved-seats", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(5)

    def poll(self) -> list[tuple[str, int]]:
        """One look: claims the seats reserved for the player; returns those it claimed."""
        games = self.stub.ListGames(
            referee_pb2.ListGamesRequest(running_only=True, page_size=1000), timeout=30
        ).games
        claimed = []
        for game in games:
            if game.started or game.game_over:
                continue
            for holder in game.seat_holders:
                key = (game.game_id, holder.seat)
                if (
                    holder.state != referee_pb2.SEAT_STATE_RESERVED
                    or holder.player != self._name
                    or key in self._tried
                ):
                    continue
                request = referee_pb2.ClaimSeatRequest(game_id=game.game_id, seat=holder.seat)
                try:
                    self.stub.ClaimSeat(request, metadata=self.metadata, timeout=30)
                except grpc.RpcError as error:
                    if error.code() in FINAL:
                        self._tried.add(key)
                    log.info("claim %s seat %d: %s", *key, describe_rpc_error(error))
                    continue
                self._tried.add(key)
                claimed.append(key)
        self.claimed += claimed
        return claimed

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                self.poll()
            except grpc.RpcError as error:  # the server restarting: look again later
                log.info("looking for reserved seats: %s", describe_rpc_error(error))
            self._stopped.wait(self.interval)
