"""Pairing: players ask to be paired for a game; the referee pairs waiting players and
creates their game.

A request is a ``pairing`` document (its key is the ticket id) and, beside it, a
``pairing_player`` document per player naming its waiting ticket: written in one
compare-and-set with the ticket (expected absent), it is what keeps a player to **one waiting
ticket** across replicas (a second request: FAILED_PRECONDITION ``ALREADY_PAIRING``).

Who is paired with whom is :mod:`referee.application.lobby.pairing_rule`'s rule (same terms, nearest
rating first, the allowed gap widening with the wait). Pairing runs after each request and
on the lobby's sweep. The guarantees, and why they hold:

- **No player in two pairings at once.** A group is written as one compare-and-set of every
  member's ticket (WAITING -> PAIRED) and guard (deleted), each at the revision it was read
  at; a player has one waiting ticket, so one group at most can win it.
- **A cancelled request is never paired.** Cancelling is a compare-and-set of the same
  ticket (WAITING -> CANCELLED): whichever of the cancel and the pairing commits first, the
  other's expected revision no longer matches and it writes nothing. A group that loses
  makes no game, and its other tickets wait on.

The tickets are written PAIRED in the game's creation transaction, with the players' seats'
claims (in a random order: who moves first is not decided by who asked first), so a paired
ticket always names its game, its players hold their seats as soon as anyone can read it
paired, and a lost race leaves no game behind.
"""

from __future__ import annotations

import asyncio
import enum
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import structlog

from referee.application.lobby.host import Documents, LobbyLimits, limit_reached, now_ms
from referee.application.lobby.pairing_rule import Waiting, pair
from referee.application.lobby.seats import ClaimedSeats
from referee.application.lobby.terms import Terms, check_terms
from referee.application.players.ratings import Ratings
from referee.application.tables import errors
from referee.application.tables.errors import Kind, RefereeError
from referee.store import DocumentWrite, RevisionConflict

log = structlog.get_logger("referee")

KIND = "pairing"
GUARD = "pairing_player"
#: The periodic pass's lease (kind, key): one replica at a time runs it, so replicas do not
#: race each other to the same groups (a lost race costs a game made and dropped).
LEASE = ("lobby_lease", "pairing")
#: Paired and cancelled tickets are kept this long for their players to read, then deleted.
KEEP_CLOSED_MS = 3600 * 1000
CAS_RETRIES = 5


class PairingState(enum.Enum):
    WAITING = "waiting"
    PAIRED = "paired"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class PairingTicket:
    """A player's request to be paired (``referee.v1.PairingTicket``)."""

    ticket_id: str
    player: str
    terms: Terms
    state: PairingState
    created_ms: int
    #: The player's rating (ordinal) when it asked.
    rating: float = 0.0
    #: Paired: the game and the player's seat in it.
    game_id: str = ""
    seat: int = -1
    #: When it was paired or cancelled (0 while waiting).
    closed_ms: int = 0

    def waiting(self) -> Waiting:
        return Waiting(
            self.ticket_id,
            self.player,
            self.terms.key,
            self.terms.players,
            self.rating,
            self.created_ms,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "ticket_id": self.ticket_id,
            "player": self.player,
            "terms": self.terms.to_json(),
            "state": self.state.value,
            "created_ms": self.created_ms,
            "rating": self.rating,
            "game_id": self.game_id,
            "seat": self.seat,
            "closed_ms": self.closed_ms,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PairingTicket:
        return cls(
            ticket_id=str(data["ticket_id"]),
            player=str(data["player"]),
            terms=Terms.from_json(data["terms"]),
            state=PairingState(data["state"]),
            created_ms=int(data["created_ms"]),
            rating=float(data.get("rating", 0.0)),
            game_id=str(data.get("game_id", "")),
            seat=int(data.get("seat", -1)),
            closed_ms=int(data.get("closed_ms", 0)),
        )


class Pairing:
    """The room of pairing requests (see the module's docstring)."""

    def __init__(
        self, documents: Documents, ratings: Ratings, host: ClaimedSeats, limits: LobbyLimits
    ) -> None:
        self.documents = documents
        self.ratings = ratings
        self.host = host
        self.limits = limits
        # One pairing pass at a time in this process (replicas are kept apart by the store).
        self._running = asyncio.Lock()
        #: This process, as the holder of the periodic pass's lease.
        self.holder = secrets.token_hex(6)

    async def request(self, player: str, terms: Terms) -> PairingTicket:
        """A new waiting ticket (or PAIRED at once, when opponents were waiting)."""
        terms = check_terms(terms)
        guard = await self.documents.read(GUARD, player)
        if guard is not None:
            held = await self.documents.read(KIND, str(guard.body.get("ticket_id", "")))
            if held is not None and held.body.get("state") == PairingState.WAITING.value:
                raise already_pairing(PairingTicket.from_json(held.body))
        await self._check_rate(player)
        await self.host.check_room(player, self.limits.games_at_once)
        rating = await self.ratings.ordinal(player, terms.game_type)
        ticket = PairingTicket(
            f"pt-{secrets.token_hex(8)}", player, terms, PairingState.WAITING, now_ms(), rating
        )
        writes = [
            DocumentWrite(KIND, ticket.ticket_id, ticket.to_json(), 0),
            # A stale guard (its ticket paired or cancelled and gone) is taken over.
            DocumentWrite(
                GUARD, player, {"ticket_id": ticket.ticket_id}, guard.revision if guard else 0
            ),
        ]
        try:
            await self.documents.write(writes)
        except RevisionConflict:
            raise already_pairing(None) from None
        log.info("pairing_requested", ticket_id=ticket.ticket_id, player=player)
        await self.run()
        return (await self.get(ticket.ticket_id))[0]

    async def _check_rate(self, player: str) -> None:
        """RESOURCE_EXHAUSTED past the player's pairing requests per minute (closed tickets
        are kept an hour, so the last minute's are all there to count)."""
        limit = self.limits.pairing_requests_per_minute
        since = now_ms() - 60_000
        recent = sorted(
            ticket.created_ms
            for ticket in map(
                PairingTicket.from_json, (d.body for d in await self.documents.all(KIND))
            )
            if ticket.player == player and ticket.created_ms > since
        )
        if limit and len(recent) >= limit:
            retry = (recent[-limit] - since) / 1000
            raise limit_reached("pairing_requests_per_minute", limit, retry, player=player)

    async def get(self, ticket_id: str) -> tuple[PairingTicket, int]:
        """The ticket and the revision read; NOT_FOUND ``TICKET_NOT_FOUND``."""
        document = await self.documents.read(KIND, ticket_id) if ticket_id else None
        if document is None:
            raise RefereeError(
                Kind.NOT_FOUND,
                f"no pairing ticket {errors.clip(ticket_id)!r}",
                "TICKET_NOT_FOUND",
                metadata={"ticket_id": errors.clip(ticket_id)},
            )
        return PairingTicket.from_json(document.body), document.revision

    async def waiting_for(self, player: str) -> PairingTicket | None:
        """The player's waiting ticket, if any."""
        guard = await self.documents.read(GUARD, player)
        if guard is None:
            return None
        document = await self.documents.read(KIND, str(guard.body.get("ticket_id", "")))
        if document is None:
            return None
        ticket = PairingTicket.from_json(document.body)
        return ticket if ticket.state is PairingState.WAITING else None

    async def cancel(self, ticket_id: str, player: str) -> PairingTicket:
        """Cancel a waiting ticket: it is never paired after this returns. A ticket already
        paired (or cancelled) is returned as it is."""
        for _ in range(CAS_RETRIES):
            ticket, revision = await self.get(ticket_id)
            if ticket.player != player:
                raise RefereeError(
                    Kind.FORBIDDEN,
                    "the pairing request is another player's",
                    "NOT_YOUR_TICKET",
                    metadata={"ticket_id": ticket_id},
                )
            if ticket.state is not PairingState.WAITING:
                return ticket
            cancelled = replace(ticket, state=PairingState.CANCELLED, closed_ms=now_ms())
            if await self._close([(cancelled, revision)]):
                log.info("pairing_cancelled", ticket_id=ticket_id)
                return cancelled
        raise RefereeError(
            Kind.CONFLICT,
            "the pairing request kept changing; try again",
            "TICKET_BUSY",
            metadata={"ticket_id": ticket_id},
            retry_after=0.1,
        )

    async def lead(self, seconds: float) -> bool:
        """Whether this process runs the periodic pass now: it holds the lease, or takes it
        (free, or its holder let it lapse) for ``seconds`` more. A pass after a request runs
        wherever the request arrived, lease or not: the store still decides a race."""
        kind, key = LEASE
        now = now_ms()
        lease = await self.documents.read(kind, key)
        if lease is not None:
            mine = lease.body.get("holder") == self.holder
            if not mine and int(lease.body.get("until_ms", 0)) > now:
                return False
        body = {"holder": self.holder, "until_ms": now + round(seconds * 1000)}
        write = DocumentWrite(kind, key, body, lease.revision if lease is not None else 0)
        return await self._try([write])

    async def run(self) -> list[str]:
        """One pairing pass: expire tickets that waited too long, pair the rest by the
        rule; the games made."""
        async with self._running:
            return await self._run()

    async def _run(self) -> list[str]:
        now = now_ms()
        documents = await self.documents.all(KIND)
        tickets: dict[str, tuple[PairingTicket, int]] = {}
        for document in documents:
            ticket = PairingTicket.from_json(document.body)
            if ticket.state is not PairingState.WAITING:
                if now - ticket.closed_ms > KEEP_CLOSED_MS:
                    await self._try(
                        [DocumentWrite(KIND, ticket.ticket_id, None, document.revision)]
                    )
            elif now - ticket.created_ms >= self.limits.pairing_wait_ms:
                expired = replace(ticket, state=PairingState.CANCELLED, closed_ms=now)
                await self._close([(expired, document.revision)])
            else:
                tickets[ticket.ticket_id] = (ticket, document.revision)
        made: list[str] = []
        for group in pair([t.waiting() for t, _ in tickets.values()], now):
            game_id = await self._start([tickets[w.ticket_id] for w in group])
            if game_id:
                made.append(game_id)
        return made

    async def _start(self, group: list[tuple[PairingTicket, int]]) -> str:
        """Make the group's game, its tickets written PAIRED (and their guards deleted) in
        the game's creation transaction, each at the revision it was read at; ``""`` when a
        ticket changed meanwhile (cancelled, or paired by another replica): then no game."""
        players = [ticket.player for ticket, _ in group]
        secrets.SystemRandom().shuffle(players)
        terms = group[0][0].terms
        try:
            for player in players:
                await self.host.check_room(player, self.limits.games_at_once)
        except RefereeError:
            return ""  # someone is at its limit now: its ticket waits (and may expire)
        guards = await self._guards([ticket for ticket, _ in group])
        now = now_ms()

        def writes_for(game_id: str) -> list[DocumentWrite]:
            paired = [
                (
                    replace(
                        ticket,
                        state=PairingState.PAIRED,
                        game_id=game_id,
                        seat=players.index(ticket.player),
                        closed_ms=now,
                    ),
                    revision,
                )
                for ticket, revision in group
            ]
            return _closing(paired, guards, now)

        try:
            game = await self.host.open_game(terms, players, False, writes_for)
        except RevisionConflict:
            return ""
        except RefereeError as error:  # e.g. the server's games limit: the tickets wait on
            log.warning("pairing_game_refused", reason=error.reason)
            return ""
        log.info("pairing_paired", game_id=game.game_id, tickets=[t.ticket_id for t, _ in group])
        return game.game_id

    async def _guards(self, tickets: list[PairingTicket]) -> dict[str, int]:
        """The revision of each ticket's guard (its player's ``pairing_player`` naming it)."""
        found = {}
        for ticket in tickets:
            guard = await self.documents.read(GUARD, ticket.player)
            if guard is not None and guard.body.get("ticket_id") == ticket.ticket_id:
                found[ticket.ticket_id] = guard.revision
        return found

    async def _close(self, tickets: list[tuple[PairingTicket, int]]) -> bool:
        """Write these tickets (no longer waiting) and delete their players' guards, all or
        nothing, each at the revision it was read at."""
        guards = await self._guards([ticket for ticket, _ in tickets])
        return await self._try(_closing(tickets, guards, now_ms()))

    async def _try(self, writes: list[DocumentWrite]) -> bool:
        try:
            await self.documents.write(writes)
        except RevisionConflict:
            return False
        return True


def _closing(
    tickets: list[tuple[PairingTicket, int]], guards: dict[str, int], now: int
) -> list[DocumentWrite]:
    """The writes that close ``tickets`` (each at its revision) and delete their guards."""
    stamp = now / 1000
    writes = [DocumentWrite(KIND, t.ticket_id, t.to_json(), rev, stamp) for t, rev in tickets]
    for ticket, _ in tickets:
        if ticket.ticket_id in guards:
            writes.append(
                DocumentWrite(GUARD, ticket.player, None, guards[ticket.ticket_id], stamp)
            )
    return writes


def already_pairing(ticket: PairingTicket | None) -> RefereeError:
    message = "the player is already waiting to be paired (cancel that request first)"
    metadata = {"ticket_id": ticket.ticket_id} if ticket is not None else {}
    return RefereeError(
        Kind.NOT_NOW,
        message,
        "ALREADY_PAIRING",
        metadata=metadata,
        precondition=("PAIRING", "player", message),
    )


__all__ = ["GUARD", "KIND", "LEASE", "Pairing", "PairingState", "PairingTicket", "already_pairing"]
