"""How the lobby seats the players who met in it: the lobby's host, which the facade gives
it.

:class:`ClaimedSeats` (the facade's): a game whose first seats are reserved for the players
and claimed for them in the game's creation transaction, the others open.

:class:`HeldSeats` counts the games a player holds seats in from its ``holding`` documents
(the seats' room writes one per claimed seat, ``"{player}/{game_id}/{seat}"``), checking the
games themselves only when the count reaches the limit (a finished game's holding may be
left behind).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from referee.application.lobby.host import (
    Documents,
    OpenedGame,
    WritesFor,
    limit_reached,
)
from referee.application.lobby.terms import Terms
from referee.application.players.accounts import Players
from referee.application.tables import creation
from referee.application.tables.clocks import GameSettings, SeatPlan
from referee.application.tables.errors import RefereeError
from referee.application.tables.repository import Repository
from referee.application.tables.seats import HOLDING

#: When a player at its games-at-once limit may try again (seconds): a hint, games end when
#: they end.
GAMES_RETRY_SECONDS = 30.0


class HeldSeats:
    """The games-at-once limit, from ``holding`` documents."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        self.documents = Documents(repository)

    async def check_room(self, player: str, limit: int) -> None:
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


class ClaimedSeats(HeldSeats):
    """Games whose first seats are reserved for the players who met in the lobby and claimed
    for them in the game's creation transaction (a
    :class:`~referee.application.tables.creation.Meeting`), with the lobby's own documents
    (the challenge accepted, the tickets paired): the game never exists with their seats
    unheld, so a player told of it asks for its view at once, on any replica. The others are
    open (and the game listed, when asked); the game deals when its last seat
    is held (in the opening, when the players fill it)."""

    def __init__(
        self,
        repository: Repository,
        players: Players,
    ) -> None:
        super().__init__(repository)
        self.players = players

    async def open_game(
        self, terms: Terms, players: Sequence[str], listed: bool, writes_for: WritesFor
    ) -> OpenedGame:
        plans = tuple(SeatPlan("reserved", p) for p in players)
        # The account says what each player is (person or bot), for the seat's public claim.
        kinds = {seat: await self._kind(player) for seat, player in enumerate(players)}
        plans += (SeatPlan("open"),) * (terms.players - len(players))
        settings = GameSettings(
            clock=terms.clock, card_commitments=True, seats=plans, listed=listed, rated=terms.rated
        )
        # No lookup of the reserved names: the lobby's players are signed in already (a
        # platform's player has no account to look up).
        # The seats are claimed in the creation: nothing is left to announce.
        setup = creation.Setup(terms.game_type, terms.players, terms.options, settings=settings)
        meeting = creation.Meeting(kinds, writes_for)
        created = await creation.create(self.repository, setup, meeting=meeting)
        tokens = created.seat_tokens[: len(players)]
        return OpenedGame(created.game_id, created.organiser_token, tokens)

    async def _kind(self, player: str) -> str:
        """The player's kind from its account; ``""`` (not said) for a name without one."""
        with contextlib.suppress(RefereeError):
            return (await self.players.get(player)).kind
        return ""


__all__ = ["HOLDING", "ClaimedSeats", "HeldSeats"]
