"""The RPCs of accounts, credentials, ratings and presence: Register, WhoAmI, RotateToken,
GetRatings, GetLeaderboard, GetPresence.

One of the parts :class:`~referee.server.service.RefereeCore` is assembled from, which finds
each RPC by its name.
The caller's credential comes from the ``authorization`` metadata or header
(:class:`~referee.server.calls.Caller`), never from a request field, so it cannot end up
in a request log.
"""

from __future__ import annotations

from referee.application.players.accounts import Player, Players, is_player_name
from referee.application.players.presence import Presence
from referee.application.players.ratings import MAX_LEADERBOARD, Rating
from referee.application.tables.errors import Kind, RefereeError, bad_request
from referee.server import pages
from referee.server.calls import Caller
from referee.v1 import referee_pb2 as pb

#: A player's kind on the wire and in the application.
KIND_TO_PROTO = {"person": pb.PLAYER_KIND_PERSON, "bot": pb.PLAYER_KIND_BOT}
KIND_FROM_PROTO = {
    pb.PLAYER_KIND_UNSPECIFIED: "person",
    pb.PLAYER_KIND_PERSON: "person",
    pb.PLAYER_KIND_BOT: "bot",
}


def player_to_proto(player: Player) -> pb.Player:
    return pb.Player(
        name=player.name,
        kind=KIND_TO_PROTO.get(player.kind, pb.PLAYER_KIND_UNSPECIFIED),
        created_unix_ms=player.created_ms,
        platform=player.platform,
    )


def rating_to_proto(rating: Rating) -> pb.Rating:
    return pb.Rating(
        player=rating.player,
        game_type=rating.game_type,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        games=rating.games,
        updated_unix_ms=rating.updated_ms,
        absences=rating.absences,
        left_early=rating.left_early,
    )


class PlayerCalls:
    """The RPCs of accounts, credentials and ratings, over ``players``, and of who is online
    (``presence``)."""

    def __init__(self, players: Players, presence: Presence) -> None:
        self.players = players
        self.presence = presence

    async def Register(self, request: pb.RegisterRequest, caller: Caller) -> pb.RegisterResponse:
        kind = KIND_FROM_PROTO.get(request.kind)
        if kind is None:
            raise bad_request("kind", "not a PlayerKind")
        player, token = await self.players.register(request.name, kind)
        return pb.RegisterResponse(player=player_to_proto(player), token=token)

    async def WhoAmI(self, request: pb.WhoAmIRequest, caller: Caller) -> pb.WhoAmIResponse:
        principal = await self.players.authenticate(caller.credential)
        response = pb.WhoAmIResponse(
            player=player_to_proto(principal.player),
            scope_game_id=principal.scope_game,
            spectator_only=principal.spectator_only,
        )
        if principal.scope_seat is not None:
            response.scope_seat = principal.scope_seat
        return response

    async def RotateToken(
        self, request: pb.RotateTokenRequest, caller: Caller
    ) -> pb.RotateTokenResponse:
        players = self.players
        principal = await players.authenticate(caller.credential)
        if not principal.credential:  # a platform's token: nothing of ours to replace
            raise RefereeError(
                Kind.NOT_NOW,
                "a platform's token is the platform's: only an account's token is replaced here",
                "NOT_AN_ACCOUNT",
            )
        player, token = await players.rotate(principal.player.name, principal.credential)
        return pb.RotateTokenResponse(player=player_to_proto(player), token=token)

    async def GetRatings(
        self, request: pb.GetRatingsRequest, caller: Caller
    ) -> pb.GetRatingsResponse:
        """Ratings are public (leaderboards show them): a name needs no credential; without
        one the caller's own are asked for."""
        players = self.players
        name = request.player
        if not name:
            name = (await players.authenticate(caller.credential)).player.name
        elif not is_player_name(name):
            raise bad_request("player", "not a player name")
        ratings = await players.ratings.of(name)
        return pb.GetRatingsResponse(ratings=[rating_to_proto(r) for r in ratings])

    async def GetLeaderboard(
        self, request: pb.GetLeaderboardRequest, caller: Caller
    ) -> pb.GetLeaderboardResponse:
        ratings = self.players.ratings
        if not (request.page_size or request.page_token):
            board = await ratings.leaderboard(request.game_type, request.limit)
            return pb.GetLeaderboardResponse(ratings=[rating_to_proto(r) for r in board])
        best = await ratings.leaderboard(request.game_type, MAX_LEADERBOARD)
        shown, next_token = pages.page(best, request.page_size, request.page_token)
        return pb.GetLeaderboardResponse(
            ratings=[rating_to_proto(r) for r in shown], next_page_token=next_token
        )

    async def GetPresence(
        self, request: pb.GetPresenceRequest, caller: Caller
    ) -> pb.GetPresenceResponse:
        """Presence is public (the lobby shows it): no credential needed."""
        names = list(request.players)
        if not names:
            raise bad_request("players", "name at least one player")
        for index, name in enumerate(names):
            if not is_player_name(name):
                raise bad_request(f"players[{index}]", "not a player name")
        online = await self.presence.online(names)
        return pb.GetPresenceResponse(
            players=[pb.PlayerPresence(player=n, online=o) for n, o in online.items()]
        )


__all__ = ["KIND_FROM_PROTO", "KIND_TO_PROTO", "PlayerCalls", "player_to_proto", "rating_to_proto"]
