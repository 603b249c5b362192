"""What the lobby's application tests share: a lobby on a referee's memory store, with
players, ratings and a host the tests control."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.application import GameSettings, Referee
from referee.application.lobby.host import LobbyLimits, OpenedGame, WritesFor, limit_reached
from referee.application.lobby.room import Lobby
from referee.application.lobby.terms import Terms
from referee.application.tables import creation
from referee.application.tables.errors import Kind, RefereeError
from referee.store import EventStore, MemoryEventStore

NAMES = ("ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal")


class Book:
    """Known players (the players' room's ``get``)."""

    def __init__(self, names: Sequence[str] = NAMES) -> None:
        self.names = set(names)

    async def get(self, name: str) -> str:
        if name not in self.names:
            raise RefereeError(Kind.NOT_FOUND, f"no player {name!r}", "PLAYER_UNKNOWN")
        return name


class Ratings:
    """Ratings the test sets (0 for anyone else)."""

    def __init__(self) -> None:
        self.ordinals: dict[str, float] = {}

    async def ordinal(self, player: str, game_type: str) -> float:
        return self.ordinals.get(player, 0.0)


@dataclass
class Made:
    game: OpenedGame
    players: tuple[str, ...]
    tokens: tuple[str, ...]
    seated: dict[int, str] = field(default_factory=dict)


class TokenHost:
    """A host that makes games in today's flow (every token to the host, handed to the
    players as their seats'), so the lobby's rooms are tested on their own; it records the
    games it made, each seated at once."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.made: dict[str, Made] = {}

    async def open_game(
        self, terms: Terms, players: Sequence[str], listed: bool, writes_for: WritesFor
    ) -> OpenedGame:
        settings = GameSettings(clock=terms.clock, card_commitments=True)
        setup = creation.Setup(terms.game_type, terms.players, terms.options, settings=settings)
        meeting = creation.Meeting({}, writes_for)
        created = await creation.create(self.referee.repository, setup, meeting=meeting)
        tokens = created.seat_tokens
        game = OpenedGame(created.game_id, created.organiser_token, tokens[: len(players)])
        seated = dict(enumerate(players))
        self.made[game.game_id] = Made(game, tuple(players), tokens, seated)
        return game

    async def check_room(self, player: str, limit: int) -> None:
        held = [m for m in self.made.values() if player in m.seated.values()]
        if len(held) >= limit:
            raise limit_reached("games_at_once", limit, 30.0, player=player)

    def live(self) -> list[Made]:
        return list(self.made.values())


@dataclass
class World:
    referee: Referee
    lobby: Lobby
    host: TokenHost
    ratings: Ratings
    book: Book


def lobby_on(referee: Referee, limits: LobbyLimits | None = None) -> World:
    """A lobby (one replica) on ``referee``'s repository."""
    limits = limits or LobbyLimits(sweep_seconds=3600)  # tests sweep by hand
    host = TokenHost(referee)
    ratings = Ratings()
    book = Book()
    return World(
        referee, Lobby(referee.repository, book, ratings, host, limits), host, ratings, book
    )


def run_lobby(
    scenario: Callable[[World], Awaitable[None]],
    limits: LobbyLimits | None = None,
    store: EventStore | None = None,
) -> None:
    async def main() -> None:
        referee = Referee(store or MemoryEventStore())
        await referee.recover()
        world = lobby_on(referee, limits)
        try:
            await scenario(world)
        finally:
            world.lobby.close()
            referee.close()

    asyncio.run(main())


def snapshot(store: EventStore, *kinds: str) -> dict[tuple[str, str], tuple[int, Any]]:
    """Every document of ``kinds`` with its revision: what a refusal must leave as it was."""
    return {(d.kind, d.key): (d.revision, d.body) for kind in kinds for d in store.documents(kind)}


__all__ = [
    "NAMES",
    "Book",
    "Made",
    "Ratings",
    "TokenHost",
    "World",
    "lobby_on",
    "run_lobby",
    "snapshot",
]
