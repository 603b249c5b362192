"""The RPCs of the lobby, challenges and pairing (ListLobby, WatchLobby, the challenge and
pairing calls).

One of the parts :class:`~referee.server.service.RefereeCore` is assembled from, which finds
each RPC by its name.
Each turns the request into the values of :mod:`referee.application.lobby.room` and the answer
back; the challenge and pairing calls need the player's credential (``authorization``),
the lobby list and its watch do not (what they show is public).
"""

from __future__ import annotations

from referee.application.lobby.challenges import Challenge, ChallengeState
from referee.application.lobby.pairing import PairingState, PairingTicket
from referee.application.lobby.room import (
    ClockFilter,
    Lobby,
    LobbyChange,
    LobbyFilter,
    LobbyTable,
)
from referee.application.lobby.terms import Terms
from referee.application.players.accounts import Players
from referee.application.tables.access import Principal
from referee.application.tables.clocks import Clock
from referee.application.tables.errors import Kind, RefereeError
from referee.application.tables.pacing import Outlet
from referee.metrics import SERVICE, Metrics
from referee.server import convert, pages
from referee.server.calls import Caller
from referee.v1 import referee_pb2 as pb


class LobbyCalls:
    """The RPCs of the lobby, challenges and pairing: ``lobby`` for them, ``players`` for
    the caller's credential, ``metrics`` for the lobby watch's messages."""

    def __init__(self, players: Players, lobby: Lobby, metrics: Metrics) -> None:
        self.players = players
        self.lobby = lobby
        self.metrics = metrics

    async def _player(self, caller: Caller) -> str:
        """The calling player's name, for a call that acts for it: a platform token scoped
        to one game, or one that may only watch, is refused (PERMISSION_DENIED
        ``TOKEN_SCOPE``)."""
        principal: Principal = await self.players.authenticate(caller.credential)
        if principal.spectator_only or principal.scope_game:
            raise RefereeError(
                Kind.FORBIDDEN,
                "this platform token is scoped to one game or to watching; the lobby needs "
                "an unscoped credential",
                "TOKEN_SCOPE",
            )
        return principal.player.name

    # --- the lobby -------------------------------------------------------------------------

    async def ListLobby(self, request: pb.ListLobbyRequest, caller: Caller) -> pb.ListLobbyResponse:
        tables = await self.lobby.list(filter_from_proto(request.filter))
        shown, next_token = pages.page(tables, request.page_size, request.page_token)
        return pb.ListLobbyResponse(
            tables=[table_to_proto(t) for t in shown], next_page_token=next_token
        )

    async def WatchLobby(self, request: pb.WatchLobbyRequest, out: Outlet, caller: Caller) -> None:
        sent = self.metrics.msg_sent.labels("server_stream", SERVICE, "WatchLobby")
        changes = out.hold(self.lobby.watch(filter_from_proto(request.filter)))
        try:
            async for change in changes:
                await out.send(change_to_proto(change).SerializeToString())
                sent.inc()
        finally:
            await changes.aclose()

    # --- challenges ------------------------------------------------------------------------

    async def CreateChallenge(
        self, request: pb.CreateChallengeRequest, caller: Caller
    ) -> pb.CreateChallengeResponse:
        player = await self._player(caller)
        challenge = await self.lobby.challenges.create(
            player, request.challenged, terms_from_proto(request.terms), request.expires_in_ms
        )
        return pb.CreateChallengeResponse(challenge=challenge_to_proto(challenge))

    async def AnswerChallenge(
        self, request: pb.AnswerChallengeRequest, caller: Caller
    ) -> pb.AnswerChallengeResponse:
        player = await self._player(caller)
        answered = await self.lobby.challenges.answer(request.challenge_id, player, request.accept)
        return pb.AnswerChallengeResponse(
            challenge=challenge_to_proto(answered.challenge),
            game_id=answered.game_id,
            seat=answered.seat,
            seat_token=answered.seat_token,
        )

    async def WithdrawChallenge(
        self, request: pb.WithdrawChallengeRequest, caller: Caller
    ) -> pb.WithdrawChallengeResponse:
        player = await self._player(caller)
        challenge = await self.lobby.challenges.withdraw(request.challenge_id, player)
        return pb.WithdrawChallengeResponse(challenge=challenge_to_proto(challenge))

    async def ListChallenges(
        self, request: pb.ListChallengesRequest, caller: Caller
    ) -> pb.ListChallengesResponse:
        principal = await self.players.authenticate(caller.credential)
        listed = await self.lobby.challenges.open_for(principal.player.name)
        shown, next_token = pages.page(listed, request.page_size, request.page_token)
        return pb.ListChallengesResponse(
            challenges=[challenge_to_proto(c) for c in shown], next_page_token=next_token
        )

    # --- pairing ---------------------------------------------------------------------------

    async def RequestPairing(
        self, request: pb.RequestPairingRequest, caller: Caller
    ) -> pb.RequestPairingResponse:
        player = await self._player(caller)
        ticket = await self.lobby.pairing.request(player, terms_from_proto(request.terms))
        return pb.RequestPairingResponse(ticket=ticket_to_proto(ticket))

    async def CancelPairing(
        self, request: pb.CancelPairingRequest, caller: Caller
    ) -> pb.CancelPairingResponse:
        player = await self._player(caller)
        ticket = await self.lobby.pairing.cancel(request.ticket_id, player)
        return pb.CancelPairingResponse(ticket=ticket_to_proto(ticket))


# --- the mapping ----------------------------------------------------------------------------

_CLOCK_FILTERS = {
    pb.CLOCK_FILTER_UNSPECIFIED: ClockFilter.ANY,
    pb.CLOCK_FILTER_CLOCKED: ClockFilter.CLOCKED,
    pb.CLOCK_FILTER_UNCLOCKED: ClockFilter.UNCLOCKED,
}
_CHALLENGE_STATES = {
    ChallengeState.OPEN: pb.CHALLENGE_STATE_OPEN,
    ChallengeState.ACCEPTED: pb.CHALLENGE_STATE_ACCEPTED,
    ChallengeState.DECLINED: pb.CHALLENGE_STATE_DECLINED,
    ChallengeState.WITHDRAWN: pb.CHALLENGE_STATE_WITHDRAWN,
    ChallengeState.EXPIRED: pb.CHALLENGE_STATE_EXPIRED,
}
_PAIRING_STATES = {
    PairingState.WAITING: pb.PAIRING_STATE_WAITING,
    PairingState.PAIRED: pb.PAIRING_STATE_PAIRED,
    PairingState.CANCELLED: pb.PAIRING_STATE_CANCELLED,
}


def filter_from_proto(message: pb.LobbyFilter) -> LobbyFilter:
    return LobbyFilter(
        game_type=message.game_type,
        players=message.players,
        clock=_CLOCK_FILTERS.get(message.clock, ClockFilter.ANY),
        min_decision_ms=message.min_decision_ms,
        max_decision_ms=message.max_decision_ms,
        rated=message.rated if message.HasField("rated") else None,
    )


def terms_from_proto(message: pb.GameTerms) -> Terms:
    clock = message.clock
    return Terms(
        game_type=message.game_type,
        players=message.players,
        options=dict(message.options),
        clock=Clock(clock.decision_ms, clock.bank_ms, clock.forfeit_after_timeouts),
        rated=message.rated,
    )


def terms_to_proto(terms: Terms) -> pb.GameTerms:
    message = pb.GameTerms(
        game_type=terms.game_type,
        players=terms.players,
        options=dict(terms.options),
        rated=terms.rated,
    )
    if terms.clock.enabled:
        message.clock.CopyFrom(convert.clock_to_proto(terms.clock))
    return message


def table_to_proto(table: LobbyTable) -> pb.LobbyTable:
    return pb.LobbyTable(game=convert.summary_to_proto(table.game), open_seats=table.open_seats)


def change_to_proto(change: LobbyChange) -> pb.WatchLobbyResponse:
    message = pb.WatchLobbyResponse(
        removed_game_id=change.removed_game_id, caught_up=change.caught_up
    )
    if change.table is not None:
        message.table.CopyFrom(table_to_proto(change.table))
    return message


def challenge_to_proto(challenge: Challenge) -> pb.Challenge:
    return pb.Challenge(
        challenge_id=challenge.challenge_id,
        challenger=challenge.challenger,
        challenged=challenge.challenged,
        terms=terms_to_proto(challenge.terms),
        state=_CHALLENGE_STATES[challenge.state],
        created_unix_ms=challenge.created_ms,
        expires_unix_ms=challenge.expires_ms,
        game_id=challenge.game_id,
        accepted_by=challenge.accepted_by,
    )


def ticket_to_proto(ticket: PairingTicket) -> pb.PairingTicket:
    return pb.PairingTicket(
        ticket_id=ticket.ticket_id,
        player=ticket.player,
        terms=terms_to_proto(ticket.terms),
        state=_PAIRING_STATES[ticket.state],
        created_unix_ms=ticket.created_ms,
        game_id=ticket.game_id,
        rating=ticket.rating,
    )


__all__ = [
    "LobbyCalls",
    "challenge_to_proto",
    "change_to_proto",
    "filter_from_proto",
    "table_to_proto",
    "terms_from_proto",
    "terms_to_proto",
    "ticket_to_proto",
]
