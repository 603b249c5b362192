"""The RPCs of seats that are claimed, not handed out: ClaimSeat, Resign (a seat's own, or the
organiser's removal of a seat, which abandons it).

One of the parts :class:`~referee.server.service.RefereeCore` is assembled from, which finds
each RPC by its name.
The player's credential comes from the ``authorization`` metadata or header; a claim with a
claim code needs none (an invited friend without an account), and the answer carries the
seat's token for the claimant only.
"""

from __future__ import annotations

from referee.application import PlayerSeat
from referee.application.players.accounts import Players
from referee.application.players.seating import Seating
from referee.application.tables.access import SeatKey
from referee.application.tables.errors import bad_request
from referee.application.tables.limits import CLAIM_ATTEMPTS
from referee.application.tables.organiser import Organiser
from referee.server import convert
from referee.server.calls import Caller
from referee.v1 import referee_pb2 as pb


class SeatCalls:
    """The RPCs of seats that are claimed, not handed out: ``seating`` for the seats,
    ``players`` for the caller's credential, ``organiser`` for its removal of a seat."""

    def __init__(self, players: Players, seating: Seating, organiser: Organiser) -> None:
        self.players = players
        self.seating = seating
        self.organiser = organiser

    async def ClaimSeat(self, request: pb.ClaimSeatRequest, caller: Caller) -> pb.ClaimSeatResponse:
        # With a claim code the credential is optional (the claim is then in its name when
        # it is sent); without one it is required, and a bad one is refused either way.
        principal = await self.players.optional(caller.credential)
        seat = request.seat if request.HasField("seat") else None
        # Claim codes are guessed by address, whoever signs in: each attempt counts, and a
        # right code gives its count back.
        limits = self.players.limits
        if request.claim_code:
            limits.address(caller.address, CLAIM_ATTEMPTS)
        claimed = await self.seating.claim(
            request.game_id, principal, seat, request.claim_code, check_only=request.check_only
        )
        if request.claim_code:
            limits.give_back(caller.address, CLAIM_ATTEMPTS)
        return convert.claimed_to_proto(claimed)

    async def Resign(self, request: pb.ResignRequest, caller: Caller) -> pb.ResignResponse:
        if request.organiser_token:
            if not request.HasField("seat"):
                raise bad_request("seat", "required with organiser_token: the seat to remove")
            summary = await self.organiser.remove_seat(
                request.game_id, request.organiser_token, request.seat, request.reason
            )
            return pb.ResignResponse(game=convert.summary_to_proto(summary))
        if request.reason:
            raise bad_request("reason", "only the organiser gives a reason (organiser_token)")
        seat: SeatKey = request.seat_token
        if not request.seat_token and caller.credential:
            principal = await self.players.authenticate(caller.credential)
            seat = PlayerSeat(principal, request.seat if request.HasField("seat") else None)
        summary = await self.seating.resign(request.game_id, seat)
        return pb.ResignResponse(game=convert.summary_to_proto(summary))


__all__ = ["SeatCalls"]
