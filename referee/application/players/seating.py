"""Seats that are claimed, not handed out: claims, the lobby's claims for players, resigning.

A game created with open or reserved seats (:class:`~referee.application.tables.clocks.SeatPlan`)
stores only its commitment (and its creator's claims) and waits. Each claim is one store
transaction (:meth:`EventStore.claim_seat`): the claim's row (of two racing claimants exactly
one wins), its public :class:`SeatClaimed` event, and the documents that follow it: the
player's ``holding`` (the seats a player holds, which the player stream follows) and the
game's ``lobby`` entry, updated, or deleted by the claim that fills the table, whose batch
also deals. The claimant alone gets the seat's token; the store keeps its hash.

A seat may resign (:meth:`Seating.resign`): the referee then plays for it as for a forfeited
seat (:mod:`referee.application.tables.timekeeper`).

No refusal names a token or a claim code; the log line of a claim names the seat and the
player only.
"""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass
from typing import Any

import structlog

from referee.application.players.sessions import SessionCommand
from referee.application.tables import access, errors
from referee.application.tables.access import Player, PlayerSeat, Principal, SeatKey, hash_token
from referee.application.tables.commands import Commands
from referee.application.tables.errors import Kind, RefereeError
from referee.application.tables.live import ANNOUNCED, CLAIM_CODES, LiveGame, now_ms
from referee.application.tables.repository import CONFLICT_RETRIES, Repository
from referee.application.tables.seats import (
    LOBBY,
    RESERVATION,
    holding_write,
    lobby_body,
    new_seat_token,
)
from referee.application.tables.timekeeper import Timekeeper
from referee.application.tables.values import Claimed, Submitted, Summary
from referee.engine.game import Rejection
from referee.engine.table_events import PlayerKind, SeatClaimed
from referee.store import (
    DocumentWrite,
    RevisionConflict,
    SeatClaim,
    SeatTaken,
    StoreError,
    VersionConflict,
)
from referee.stored import encode_batch

log = structlog.get_logger("referee")


def _refused(kind: Kind, reason: str, message: str, live: LiveGame, **more: str) -> RefereeError:
    return RefereeError(kind, message, reason, metadata={"game_id": live.game_id, **more})


def _not_now(reason: str, message: str, live: LiveGame, **more: str) -> RefereeError:
    error = _refused(Kind.NOT_NOW, reason, message, live, **more)
    error.precondition = ("SEAT", f"game/{live.game_id}", message)
    return error


@dataclass(frozen=True, slots=True)
class _Claim:
    """A claim as decided: the seat, who takes it, and whether it comes with a token."""

    seat: int
    player: str
    kind: str
    token: str


class Seating:
    """Claims and resignations on the games of ``repository``; ``timekeeper`` acts after them,
    ``commands`` takes a held seat's commands."""

    def __init__(self, repository: Repository, timekeeper: Timekeeper, commands: Commands) -> None:
        self.repository = repository
        self.timekeeper = timekeeper
        self.commands = commands

    async def submit_held(self, player: str, command: SessionCommand) -> Submitted:
        """A command for a seat ``player`` holds, with no token (the player stream's path,
        ``Sessions.submit_held``)."""
        seat = PlayerSeat(Principal(Player(player, "")), command.seat)
        return await self.commands.submit(
            command.game_id,
            seat,
            command.command_id,
            command.command,
            expected_version=command.expected_version,
            client_decision_ms=command.client_decision_ms,
        )

    # --- claims -----------------------------------------------------------------------------

    async def claim(
        self,
        game_id: str,
        principal: Principal | None,
        seat: int | None = None,
        claim_code: str = "",
        *,
        check_only: bool = False,
    ) -> Claimed:
        """Take a seat: an open seat with its claim code (anyone, signed in or not), an open
        seat of a listed game (signed in), or the seat reserved for the signed-in player.
        Returns the seat's token, for the caller only. With ``check_only``, the answer the
        claim would get (the seat, or the same refusal), with nothing taken and no token.

        Refusals: FAILED_PRECONDITION ``SEAT_TAKEN``, ``CLAIM_CODE_USED``, ``GAME_STARTED``,
        ``GAME_OVER``, ``ALREADY_SEATED``; PERMISSION_DENIED ``CLAIM_CODE_INVALID``,
        ``SEAT_RESERVED``, ``TOKEN_SCOPE``; UNAUTHENTICATED ``CREDENTIAL_MISSING`` (no code
        and no credential, or a rated game's seat without one); NOT_FOUND for the game."""
        live = await self.repository.get_current(game_id)
        if principal is not None:
            access.check_scope(principal, game_id, seat, play=True)
        if check_only:
            async with live.lock:
                chosen = self._decide(live, principal, seat, claim_code)
            return Claimed(live.summary(), chosen.seat, "")
        return await self.repository.unit(self._claim_unit(live, principal, seat, claim_code))

    async def claim_for(
        self, game_id: str, seat: int, player: Player | str, kind: str = ""
    ) -> Claimed:
        """The lobby's claim (an accepted challenge, a pairing): take the seat reserved for
        ``player`` on its behalf; the seat's token is for that player only."""
        name = player if isinstance(player, str) else player.name
        kind = kind if isinstance(player, str) else player.kind
        principal = Principal(Player(name, kind))
        live = await self.repository.get_current(game_id)
        return await self.repository.unit(self._claim_unit(live, principal, seat, ""))

    async def fill_seat(self, game_id: str, seat: int, player: Player) -> Claimed:
        """The organiser's claim (``HouseBots.fill``): ``player`` takes ``seat``, any seat the
        game still waits for, open or reserved; the caller has checked the organiser token."""
        live = await self.repository.get_current(game_id)
        principal = Principal(player)
        return await self.repository.unit(self._claim_unit(live, principal, seat, "", True))

    async def _claim_unit(
        self,
        live: LiveGame,
        principal: Principal | None,
        seat: int | None,
        code: str,
        organiser: bool = False,
    ) -> Claimed:
        repository = self.repository
        async with live.lock:
            for _attempt in range(CONFLICT_RETRIES):
                chosen = self._decide(live, principal, seat, code, organiser)
                try:
                    await self._write(live, chosen)
                except SeatTaken:
                    await self._refresh(live)
                    raise _not_now(
                        "SEAT_TAKEN",
                        f"seat {chosen.seat} is held already",
                        live,
                        seat=str(chosen.seat),
                    ) from None
                except (VersionConflict, RevisionConflict):
                    await self._refresh(live)
                    continue
                break
            else:
                raise errors.not_now("the game is busy; try again", "BUSY")
            log.info(
                "seat_claimed",
                game_id=live.game_id,
                seat=chosen.seat,
                player=chosen.player,
                started=live.table.started,
            )
            await self.timekeeper.act(live)
        repository.fanout.publish(live)
        return Claimed(live.summary(), chosen.seat, chosen.token)

    def _decide(
        self,
        live: LiveGame,
        principal: Principal | None,
        seat: int | None,
        code: str,
        organiser: bool = False,
    ) -> _Claim:
        """Which seat the caller takes (raises the refusal when none)."""
        table, settings = live.table, live.settings
        players = live.record.players
        if table.over:
            raise _not_now("GAME_OVER", "the game is over", live)
        if table.started:
            raise _not_now("GAME_STARTED", "the game has started: every seat is held", live)
        if seat is not None and not 0 <= seat < players:
            raise errors.bad_request("seat", f"must be a seat, 0..{players - 1}")
        claims = table.status.claims
        name = principal.player.name if principal is not None else ""
        if name and any(c.player == name for c in claims.values()):
            raise _not_now("ALREADY_SEATED", "the player holds a seat of this game", live)
        if organiser and principal is not None and seat is not None:
            # The organiser fills a seat itself: no code, listing or reservation applies.
            if seat in claims or not settings.plan(seat).waits:
                raise _not_now("SEAT_TAKEN", f"seat {seat} is held already", live, seat=str(seat))
            return _Claim(seat, name, principal.player.kind, new_seat_token())
        if code:
            coded = self._coded_seat(live, code)
            if coded is None or (seat is not None and seat != coded):
                raise _refused(
                    Kind.FORBIDDEN,
                    "CLAIM_CODE_INVALID",
                    "this claim code is not one of this game's (or not this seat's)",
                    live,
                )
            if coded in claims:
                raise _not_now(
                    "CLAIM_CODE_USED", "this claim code was used already", live, seat=str(coded)
                )
            seat = coded
        elif principal is None:
            raise errors.RefereeError(
                Kind.UNAUTHENTICATED,
                "sign in (authorization: Bearer <account token>), or send the seat's claim code",
                "CREDENTIAL_MISSING",
            )
        else:
            seat = self._seat_for(live, name, seat)
        if principal is None and settings.rated:
            raise errors.RefereeError(
                Kind.UNAUTHENTICATED,
                "a rated game's seats are for signed-in players",
                "CREDENTIAL_MISSING",
            )
        kind = principal.player.kind if principal is not None else ""
        return _Claim(seat, name, kind, new_seat_token())

    def _coded_seat(self, live: LiveGame, code: str) -> int | None:
        """The seat whose claim code ``code`` is (constant-time, every code compared)."""
        digest = hash_token(code)
        found = None
        for key, expected in (live.record.settings.get(CLAIM_CODES) or {}).items():
            if hmac.compare_digest(digest, str(expected)):
                found = int(key)
        return found

    def _seat_for(self, live: LiveGame, name: str, seat: int | None) -> int:
        """The seat a signed-in player takes without a code: the one reserved for it, or an
        open seat of a listed game (``seat``, or the first one)."""
        settings, claims = live.settings, live.table.status.claims
        candidates = [seat] if seat is not None else range(live.record.players)
        for candidate in candidates:
            plan = settings.plan(candidate)
            taken = candidate in claims or plan.mode in ("token", "creator")
            if plan.mode == "reserved" and plan.player == name and candidate not in claims:
                return candidate
            if seat is None:
                continue
            if taken:
                raise _not_now("SEAT_TAKEN", f"seat {seat} is held already", live, seat=str(seat))
            if plan.mode == "reserved":
                raise _refused(
                    Kind.FORBIDDEN,
                    "SEAT_RESERVED",
                    f"seat {seat} is reserved for another player",
                    live,
                    seat=str(seat),
                )
            if not settings.listed:
                raise _refused(
                    Kind.FORBIDDEN,
                    "CLAIM_CODE_INVALID",
                    f"seat {seat} of this unlisted game is claimed with its claim code",
                    live,
                    seat=str(seat),
                )
            return candidate
        if settings.listed:
            open_seats = live.open_seats()
            if open_seats:
                return open_seats[0]
        raise _not_now("SEAT_TAKEN", "no seat of this game is open to this player", live)

    async def _write(self, live: LiveGame, chosen: _Claim) -> None:
        """One transaction: the claim, its event (and the deal when it fills the table), the
        player's holding and the lobby entry. Then the live game folds it in."""
        repository, table = self.repository, live.table
        game_id, seat = live.game_id, chosen.seat
        hidden = live.settings.hides_reservations and not table.started
        claimed = SeatClaimed(seat, chosen.player, PlayerKind.named(chosen.kind), hidden)
        waiting = [
            s for s in range(live.record.players) if live.settings.plan(s).waits and s != seat
        ]
        fills = all(s in table.status.claims for s in waiting)
        try:
            events: list[Any] = [claimed, *(table.start() if fills else [])]
        except Rejection as rejection:
            raise errors.not_now(rejection.message, rejection.reason) from None
        documents: list[DocumentWrite] = []
        if chosen.player:
            documents.append(holding_write(chosen.player, game_id, seat, live.record.game_type))
        if live.settings.listed:
            documents.extend(await self._lobby_write(live, seat, fills))
        documents.extend(await self._reservation_gone(live, [seat]))
        claim = SeatClaim(
            seat,
            chosen.player,
            chosen.kind,
            hash_token(chosen.token) if chosen.token else "",
            time.time(),
        )
        version = table.version
        recorded = now_ms()
        payloads = encode_batch(live.record.game_type, events, version + 1, recorded)
        store = repository.store
        live.writing = version + len(events)
        try:
            claiming = (game_id, version, payloads, claim, documents)
            await repository.write(live, store.claim_seat, *claiming)
        finally:
            live.writing = 0
        live.claims = {**live.claims, seat: claim}
        live.absorb(events, recorded, None, payloads)
        repository.activity[game_id] = recorded

    async def _lobby_write(self, live: LiveGame, seat: int, fills: bool) -> list[DocumentWrite]:
        """The lobby entry after this claim: fewer open seats, or gone once the table fills."""
        store = self.repository.store
        found = await self.repository.call(store.read_document, LOBBY, live.game_id)
        if found is None:
            return []
        remaining = [s for s in live.open_seats() if s != seat]
        body = None if fills or not remaining else lobby_body(live, remaining)
        return [DocumentWrite(LOBBY, live.game_id, body, found.revision, time.time())]

    async def _reservation_gone(self, live: LiveGame, seats: list[int]) -> list[DocumentWrite]:
        """The deletes of the ``reservation`` documents of ``seats`` (those reserved and
        still announced): the seat is claimed, by its player or an organiser's fill, or the
        game ended."""
        repository, settings = self.repository, live.settings
        gone: list[DocumentWrite] = []
        if not live.record.settings.get(ANNOUNCED):
            return gone
        for seat in seats:
            plan = settings.plan(seat)
            if plan.mode != "reserved":
                continue
            key = f"{plan.player}/{live.game_id}/{seat}"
            found = await repository.call(repository.store.read_document, RESERVATION, key)
            if found is not None:
                gone.append(DocumentWrite(RESERVATION, key, None, found.revision, time.time()))
        return gone

    async def unreserve(self, live: LiveGame) -> None:
        """A game that ended with seats still reserved (aborted at its join deadline, or by
        its organiser) announces them no more (``Repository.on_finished``)."""
        claims = live.table.status.claims
        seats = [s for s in range(live.record.players) if s not in claims]
        try:
            gone = await self._reservation_gone(live, seats)
            if gone:
                await self.repository.call(self.repository.store.write_documents, gone)
        except (StoreError, RefereeError, RuntimeError) as error:  # RuntimeError: closing
            # A stale reservation is harmless: a session announces only unfinished games'.
            log.info("reservation_not_removed", game_id=live.game_id, error=str(error))

    async def _refresh(self, live: LiveGame) -> None:
        """After a lost race: what the store holds now (the log and the claims)."""
        repository = self.repository
        await repository.follow_store(live)
        live.claims = await repository.call(repository.store.seat_claims, live.game_id)

    # --- resigning --------------------------------------------------------------------------

    async def resign(self, game_id: str, seat: SeatKey) -> Summary:
        """The seat (its token, or a :class:`PlayerSeat`) gives up; the referee plays for it
        to the end. FAILED_PRECONDITION ``GAME_OVER``, ``ALREADY_RESIGNED``,
        ``GAME_NOT_STARTED``."""
        live = await self.repository.get_current(game_id)
        await access.read_claims_for(self.repository, live, seat)
        resigning = access.seat_of(live, seat, spectator=False)
        assert resigning is not None
        await self.repository.unit(self._resign_unit(live, resigning))
        log.info("seat_resigned", game_id=game_id, seat=resigning)
        return live.summary()

    async def _resign_unit(self, live: LiveGame, seat: int) -> None:
        repository = self.repository
        async with live.lock:
            for _attempt in range(CONFLICT_RETRIES):
                try:
                    events = live.table.resign(seat)
                except Rejection as rejection:
                    reason, message = rejection.reason, rejection.message
                    raise _not_now(reason, message, live, seat=str(seat)) from None
                try:
                    await repository.commit(live, events, None)
                    break
                except VersionConflict:
                    await repository.follow_store(live)
            else:
                raise errors.not_now("the game is busy; try again", "BUSY")
            await self.timekeeper.act(live)
        repository.fanout.publish(live)


__all__ = ["PlayerSeat", "Seating"]
