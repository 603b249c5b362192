"""The seats a player's documents name, as its player stream follows them: the seats it holds
(``holding`` documents, one per claim) and those reserved for it and not claimed yet
(``reservation`` documents), both keyed ``player/game_id/seat``.

A game created with a seat reserved for a named player (``SeatPlan("reserved", player)``:
CreateGame's ``SEAT_MODE_RESERVED``, a tournament runner's games) writes that seat's
``reservation`` document in its creation transaction (:mod:`~referee.application.players.seating`
deletes it with the seat's claim, or when the game ends unfilled). A player's sessions
announce each one (:class:`Reserved`), those of unfinished games when the session opens and
then each new one as it is written, so a program claims its seat at once rather than looking
for it in the game list.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.application.tables.repository import Repository
from referee.application.tables.seats import HOLDING, RESERVATION


@dataclass(frozen=True, slots=True)
class Reserved:
    """A seat reserved for the player that it has not claimed (``PlayerMessage.reserved``):
    claim it (``Seating.claim``, the RPC ClaimSeat). Only the game, the seat and the game
    type: never a token or a claim code (a reserved seat has neither until it is claimed)."""

    game_id: str
    seat: int
    game_type: str


def parse_key(key: str) -> tuple[str, str, int] | None:
    """``player/game_id/seat`` as its parts (player names and game ids hold no ``/``)."""
    player, _, rest = key.partition("/")
    game_id, _, seat = rest.rpartition("/")
    if not player or not game_id or not seat.isdigit():
        return None
    return player, game_id, int(seat)


async def _seats(repository: Repository, kind: str, player: str) -> list[tuple[str, int]]:
    found = await repository.call(repository.store.documents, kind, f"{player}/")
    return [p[1:] for d in found if (p := parse_key(d.key)) is not None and p[0] == player]


async def held(repository: Repository, player: str) -> list[tuple[str, int]]:
    """The seats ``player`` holds, as (game id, seat) (games over too: a player's holdings
    outlive its games)."""
    return await _seats(repository, HOLDING, player)


async def finished(repository: Repository) -> set[str]:
    """The ids of the games that are over, from one listing."""
    listed = await repository.call(repository.store.list_games)
    return {record.game_id for record, _, over in listed if over}


async def waiting(repository: Repository, player: str) -> list[tuple[str, int]]:
    """The seats reserved for ``player`` in unfinished games, as (game id, seat) (a
    reservation outlives its game only when the game's end could not delete it)."""
    seats = await _seats(repository, RESERVATION, player)
    over = await finished(repository) if seats else set()
    return [(game_id, seat) for game_id, seat in seats if game_id not in over]


async def read(repository: Repository, player: str, game_id: str, seat: int) -> Reserved | None:
    """The seat's reservation for ``player`` if it is still there (not claimed meanwhile)."""
    key = f"{player}/{game_id}/{seat}"
    document = await repository.call(repository.store.read_document, RESERVATION, key)
    if document is None:
        return None
    return Reserved(game_id, seat, str((document.body or {}).get("game_type", "")))


__all__ = ["Reserved", "finished", "held", "parse_key", "read", "waiting"]
