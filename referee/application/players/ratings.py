"""Ratings that belong to players: one per player and game type, updated by rated games.

A rated game (a table setting) that ends with results updates the rating of every named
player who held a seat, with the seats' ranks by the one rule (:mod:`referee.engine.outcomes`:
a rated game ranks every seat that finished above every seat that left, so a seat that
resigned, forfeited on time, was abandoned or never showed up loses to each finisher), in the
model of :mod:`referee.ratings_model` (the tournament runner's, so both agree). Ratings are
``rating`` documents keyed ``"<game type>/<player>"``: ``{"mu", "sigma", "games",
"updated_ms", "absences", "left_early"}`` (the last two count the rated games the player never
showed up for, and those it left before the end).

A game rates once, whichever replica sees its end and however often: the update writes a
``rated_game`` document (which must not exist yet) in the same compare-and-set as the
ratings, so a second attempt finds it and does nothing, and two replicas racing on the same
game or on one player's rating re-read and retry (:data:`RETRIES`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import structlog

from referee.application.tables import errors
from referee.application.tables.live import LiveGame, now_ms
from referee.application.tables.repository import Repository
from referee.engine.outcomes import SeatEnd
from referee.engine.registry import all_games
from referee.ratings_model import ordinal, plackett_luce
from referee.store import Document, DocumentWrite, EventStore, RevisionConflict

log = structlog.get_logger("referee")

RATING, RATED_GAME = "rating", "rated_game"
#: A rating document's counts of the rated games its player never showed up for and left.
ABSENT, LEFT_EARLY = "absences", "left_early"
#: Leaderboard length when the caller does not say, and the most it may ask for.
DEFAULT_LEADERBOARD, MAX_LEADERBOARD = 50, 1000
#: Compare-and-set attempts of one game's update before it gives up (and logs it).
RETRIES = 8
#: How far back (by creation) a start looks for rated games that ended unrated.
CATCH_UP_MS = 7 * 24 * 3600 * 1000


@dataclass(frozen=True, slots=True)
class Placed:
    """One seat of a rated game as the rating reads it: its player, its rank by the one
    rule, and how its game ended."""

    player: str
    rank: int
    end: SeatEnd = SeatEnd.FINISHED


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating for one game type."""

    player: str
    game_type: str
    mu: float
    sigma: float
    #: Rated games played.
    games: int = 0
    #: When last updated (unix ms; 0 for a player not yet rated).
    updated_ms: int = 0
    #: Rated games it never showed up for, and rated games it left before the end (each
    #: also counted in ``games``, as a loss).
    absences: int = 0
    left_early: int = 0

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: what leaderboards sort by."""
        return ordinal(self.mu, self.sigma)


def _rating_of(document: Document) -> Rating:
    game_type, _, player = document.key.partition("/")
    body = document.body
    return Rating(
        player,
        game_type,
        float(body["mu"]),
        float(body["sigma"]),
        int(body.get("games", 0)),
        int(body.get("updated_ms", 0)),
        int(body.get(ABSENT, 0)),
        int(body.get(LEFT_EARLY, 0)),
    )


def seat_players(live: LiveGame) -> dict[int, str]:
    """The named player holding each seat, from the log's claims (the record every replica
    agrees on); anonymous seats left out."""
    claims = live.table.status.claims
    return {seat: claim.player for seat, claim in claims.items() if claim.player}


class Ratings:
    """The players' ratings (``Referee.players.ratings``)."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        self.model = plackett_luce()

    @property
    def _store(self) -> EventStore:
        return self.repository.store

    def unrated(self, player: str, game_type: str) -> Rating:
        """The rating of a player who has played no rated game of ``game_type``."""
        fresh = self.model.rating()
        return Rating(player, game_type, float(fresh.mu), float(fresh.sigma))

    async def record(self, live: LiveGame) -> None:
        """The hook called when a game ends (``Repository.on_finished``): rate it if it is a
        rated game that ended with results and had two named players or more."""
        await self._rate(live)

    async def _rate(self, live: LiveGame) -> bool:
        outcomes = live.table.outcomes()
        if not live.settings.rated or outcomes is None:
            return False
        players = seat_players(live)
        # A seat reserved for a player who never claimed it: named by the game's seat plan.
        for seat, gone in live.table.status.left.items():
            if gone.end is SeatEnd.ABSENT and seat not in players:
                players[seat] = live.settings.plan(seat).player
        placed = [Placed(players[o.seat], o.rank, o.end) for o in outcomes if players.get(o.seat)]
        return await self.record_result(live.game_id, live.record.game_type, placed)

    async def record_result(self, game_id: str, game_type: str, placed: Sequence[Placed]) -> bool:
        """Rate one game: ``placed`` holds each player's rank by the one rule (1 best, ties
        share) and how its game ended. False when it was rated before (here or by another
        replica) or cannot be rated."""
        names = [p.player for p in placed]
        if len(names) < 2 or len(set(names)) != len(names):
            # One player in two seats would rate itself against itself: not rated.
            log.info("game_not_rated", game_id=game_id, players=len(names))
            return False
        keys = [f"{game_type}/{name}" for name in names]
        for _ in range(RETRIES):
            done, found = await self.repository.call(self._read_game, game_id, keys)
            if done:
                return False
            model = self.model
            teams = [
                [model.rating(mu=d.body["mu"], sigma=d.body["sigma"])]
                if d is not None
                else [model.rating()]
                for d in found
            ]
            updated = model.rate(teams, ranks=[float(p.rank) for p in placed])
            now = now_ms()
            writes = [DocumentWrite(RATED_GAME, game_id, {"ms": now}, 0, now / 1000)]
            for key, before, [after], seat in zip(keys, found, updated, placed, strict=True):
                old = before.body if before is not None else {}
                body = {
                    "mu": float(after.mu),
                    "sigma": float(after.sigma),
                    "games": int(old.get("games", 0)) + 1,
                    "updated_ms": now,
                    ABSENT: int(old.get(ABSENT, 0)) + (seat.end is SeatEnd.ABSENT),
                    LEFT_EARLY: int(old.get(LEFT_EARLY, 0))
                    + (seat.end.left and seat.end is not SeatEnd.ABSENT),
                }
                revision = before.revision if before is not None else 0
                writes.append(DocumentWrite(RATING, key, body, revision, now / 1000))
            try:
                await self.repository.call(self._store.write_documents, writes)
            except RevisionConflict:
                continue  # another replica rated this game or one of these players: re-read
            log.info("game_rated", game_id=game_id, game_type=game_type, players=len(names))
            return True
        log.warning("game_rating_gave_up", game_id=game_id, attempts=RETRIES)
        return False

    async def catch_up(self, within_ms: int = CATCH_UP_MS) -> int:
        """Rate the rated games that ended unrated: a process that stopped between a
        game's last event and its rating (the end hook runs just after the commit) leaves
        the game for the next start to rate. Looks at games created within ``within_ms``
        (a bound on the start's work); returns how many it rated."""
        since = (now_ms() - within_ms) / 1000

        def unrated() -> list[str]:
            store = self._store
            return [
                record.game_id
                for record, _, finished in store.list_games()
                if finished
                and record.created_at >= since
                and record.settings.get("rated", False)
                and store.read_document(RATED_GAME, record.game_id) is None
            ]

        rated = 0
        try:
            # In the background: thousands of reads after a restart must not hold up the
            # writer thread, where every command's append waits its turn.
            for game_id in await self.repository.in_background(unrated):
                rated += await self._rate(await self.repository.get(game_id))
        except RuntimeError:
            return rated  # the referee closed before this was done: the next start goes on
        if rated:
            log.info("games_rated_late", games=rated)
        return rated

    def _read_game(self, game_id: str, keys: list[str]) -> tuple[bool, list[Document | None]]:
        store = self._store
        done = store.read_document(RATED_GAME, game_id) is not None
        return done, [store.read_document(RATING, key) for key in keys]

    async def of(self, player: str) -> list[Rating]:
        """The player's ratings, one per game type it has played rated, by game type."""

        def read() -> list[Document]:
            types = sorted(game.info.type_id for game in all_games())
            found = (self._store.read_document(RATING, f"{t}/{player}") for t in types)
            return [d for d in found if d is not None]

        return [_rating_of(d) for d in await self.repository.call(read)]

    async def get(self, player: str, game_type: str) -> Rating:
        """The player's rating for ``game_type`` (an unrated one when it has none)."""
        store = self._store
        found = await self.repository.call(store.read_document, RATING, f"{game_type}/{player}")
        return _rating_of(found) if found is not None else self.unrated(player, game_type)

    async def ordinal(self, player: str, game_type: str) -> float:
        """What pairing compares: the player's ordinal for ``game_type``."""
        return (await self.get(player, game_type)).ordinal

    async def leaderboard(self, game_type: str, limit: int = 0) -> list[Rating]:
        """The best-rated players of ``game_type``: highest ordinal first (then more games,
        then by name), at most ``limit`` (0: :data:`DEFAULT_LEADERBOARD`)."""
        if not game_type:
            raise errors.bad_request("game_type", "required")
        if not 0 <= limit <= MAX_LEADERBOARD:
            raise errors.bad_request("limit", f"must be 0..{MAX_LEADERBOARD}")
        store = self._store
        found = await self.repository.call(store.documents, RATING, f"{game_type}/")
        ratings = [_rating_of(d) for d in found]
        ratings.sort(key=lambda r: (-r.ordinal, -r.games, r.player))
        return ratings[: limit or DEFAULT_LEADERBOARD]


__all__ = [
    "CATCH_UP_MS",
    "DEFAULT_LEADERBOARD",
    "MAX_LEADERBOARD",
    "RATED_GAME",
    "RATING",
    "Placed",
    "Rating",
    "Ratings",
    "seat_players",
]
