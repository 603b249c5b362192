"""How the lobby seats the players who met in it: the :class:`~referee.application.lobby_host.Host`
the facade gives the lobby.

:class:`HeldSeats` counts the games a player holds seats in from its ``holding`` documents
(the seats' room writes one per claimed seat, ``"{player}/{game_id}/{seat}"``), checking the
games themselves only when the count reaches the limit (a finished game's holding may be
left behind).

:class:`TokenSeats` makes games in today's flow (every seat's token issued at creation) and
hands each seat's token out once, to the player the lobby seats there; the tokens are kept
in this process's memory only until then. It serves until games with reserved seats can be
claimed for a player (the seats' room), and is what an embedding without them uses.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.application import creation
from referee.application.clocks import GameSettings
from referee.application.errors import RefereeError
from referee.application.lobby_host import Documents, LobbyLimits, OpenedGame, limit_reached
from referee.application.organiser import Organiser
from referee.application.repository import Repository
from referee.application.terms import Terms

HOLDING = "holding"
#: When a player at its games-at-once limit may try again (seconds): a hint, games end when
#: they end.
GAMES_RETRY_SECONDS = 30.0


class HeldSeats:
    """The games-at-once limit, from ``holding`` documents."""

    def __init__(self, repository: Repository, limits: LobbyLimits) -> None:
        self.repository = repository
        self.documents = Documents(repository)
        self.limits = limits

    async def check_room(self, player: str) -> None:
        limit = self.limits.games_at_once
        held = {
            d.key.split("/")[1]
            for d in await self.documents.all(HOLDING, f"{player}/")
            if d.key.count("/") == 2
        }
        if len(held) < limit:
            return
        running = 0
        for game_id in held:
            try:
                summary = (await self.repository.get(game_id)).summary()
            except RefereeError:
                continue
            running += not summary.game_over
        if running >= limit:
            raise limit_reached("games_at_once", limit, GAMES_RETRY_SECONDS, player=player)


class TokenSeats(HeldSeats):
    """Games in today's flow, each seat's token handed out once (see the module)."""

    def __init__(self, repository: Repository, organiser: Organiser, limits: LobbyLimits) -> None:
        super().__init__(repository, limits)
        self.organiser = organiser
        self._tokens: dict[str, list[str]] = {}

    async def open_game(self, terms: Terms, players: Sequence[str], listed: bool) -> OpenedGame:
        settings = GameSettings(clock=terms.clock, card_commitments=True)
        created = await creation.create(
            self.repository, terms.game_type, terms.players, terms.options, "", None, settings
        )
        self._tokens[created.game_id] = list(created.seat_tokens)
        return OpenedGame(created.game_id, created.organiser_token)

    async def seat(self, game_id: str, seat: int, player: str) -> str:
        tokens = self._tokens.get(game_id, [])
        token = tokens[seat] if seat < len(tokens) else ""
        if token:
            tokens[seat] = ""
        if not any(tokens):
            self._tokens.pop(game_id, None)
        return token

    async def drop(self, game: OpenedGame, reason: str) -> None:
        self._tokens.pop(game.game_id, None)
        await self.organiser.abort(game.game_id, game.organiser_token, reason)


__all__ = ["HOLDING", "HeldSeats", "TokenSeats"]
