"""Challenges: player A challenges player B (or anyone) to a game; B accepts or declines.

A challenge is a ``challenge`` document (its key is the challenge id), so every replica sees
the same challenges and changes them only by compare-and-set: of two replicas that accept
the same challenge at once, the store lets one write and the other re-reads and refuses
(``CHALLENGE_ANSWERED``). Where a challenge may go is :data:`TRANSITIONS`, a small explicit
table; every way out of it has its own refusal (:data:`REFUSED_IN`).

Accepting creates the game (the lobby's host,
:class:`~referee.application.lobby.seats.ClaimedSeats`):
the challenger's seat 0 and the accepter's seat 1 are reserved and claimed for them; seats
beyond two are open and the game is listed, so others join from the lobby. The challenge is
marked accepted *in the game's creation transaction* (at the revision the accepter read),
with the two seats' claims: an accepted challenge always names its game, its players hold
their seats in it as soon as anyone can read it accepted, and a replica that loses the race
makes none.
"""

from __future__ import annotations

import enum
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import structlog

from referee.application.lobby.host import Documents, LobbyLimits, limit_reached, now_ms
from referee.application.lobby.seats import ClaimedSeats
from referee.application.lobby.terms import Terms, check_terms
from referee.application.players.accounts import Players
from referee.application.tables import errors
from referee.application.tables.errors import Kind, RefereeError
from referee.store import DocumentWrite, RevisionConflict

log = structlog.get_logger("referee")

KIND = "challenge"
#: How long a challenge waits for its answer unless it says (milliseconds).
DEFAULT_EXPIRY_MS = 60_000
#: The longest a challenge may wait.
MAX_EXPIRY_MS = 24 * 3600 * 1000
#: Answered, withdrawn and expired challenges are kept this long for the players to read
#: (ListChallenges shows open ones only), then deleted, so the store does not grow.
KEEP_CLOSED_MS = 3600 * 1000
#: How often a compare-and-set is tried again after another writer changed the challenge.
CAS_RETRIES = 5


class ChallengeState(enum.Enum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"
    EXPIRED = "expired"


class Move(enum.Enum):
    """What may happen to a challenge."""

    ACCEPT = "accept"
    DECLINE = "decline"
    WITHDRAW = "withdraw"
    EXPIRE = "expire"


#: The challenge's state machine: (state, move) -> next state. Nothing else is allowed.
TRANSITIONS: Mapping[tuple[ChallengeState, Move], ChallengeState] = {
    (ChallengeState.OPEN, Move.ACCEPT): ChallengeState.ACCEPTED,
    (ChallengeState.OPEN, Move.DECLINE): ChallengeState.DECLINED,
    (ChallengeState.OPEN, Move.WITHDRAW): ChallengeState.WITHDRAWN,
    (ChallengeState.OPEN, Move.EXPIRE): ChallengeState.EXPIRED,
}

#: The refusal (FAILED_PRECONDITION) of any move out of a closed challenge, by its state.
REFUSED_IN: Mapping[ChallengeState, str] = {
    ChallengeState.ACCEPTED: "CHALLENGE_ANSWERED",
    ChallengeState.DECLINED: "CHALLENGE_ANSWERED",
    ChallengeState.WITHDRAWN: "CHALLENGE_WITHDRAWN",
    ChallengeState.EXPIRED: "CHALLENGE_EXPIRED",
}


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge (``referee.v1.Challenge``); ``challenged == ""``: to anyone."""

    challenge_id: str
    challenger: str
    challenged: str
    terms: Terms
    state: ChallengeState
    created_ms: int
    expires_ms: int
    game_id: str = ""
    accepted_by: str = ""

    def as_of(self, now: int) -> Challenge:
        """The challenge as it is at ``now``: an open one past its expiry is expired (before
        the sweep has written it so)."""
        if self.state is ChallengeState.OPEN and now >= self.expires_ms:
            return replace(self, state=ChallengeState.EXPIRED)
        return self

    def concerns(self, player: str) -> bool:
        """Whether ``player`` is in it (challenger, challenged or accepter)."""
        return player in (self.challenger, self.challenged, self.accepted_by)

    def to_json(self) -> dict[str, Any]:
        return {
            "challenge_id": self.challenge_id,
            "challenger": self.challenger,
            "challenged": self.challenged,
            "terms": self.terms.to_json(),
            "state": self.state.value,
            "created_ms": self.created_ms,
            "expires_ms": self.expires_ms,
            "game_id": self.game_id,
            "accepted_by": self.accepted_by,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Challenge:
        return cls(
            challenge_id=str(data["challenge_id"]),
            challenger=str(data["challenger"]),
            challenged=str(data.get("challenged", "")),
            terms=Terms.from_json(data["terms"]),
            state=ChallengeState(data["state"]),
            created_ms=int(data["created_ms"]),
            expires_ms=int(data["expires_ms"]),
            game_id=str(data.get("game_id", "")),
            accepted_by=str(data.get("accepted_by", "")),
        )


def next_state(challenge: Challenge, move: Move) -> ChallengeState:
    """Where ``move`` takes ``challenge`` (as of now: see :meth:`Challenge.as_of`), or the
    FAILED_PRECONDITION refusal of its state."""
    after = TRANSITIONS.get((challenge.state, move))
    if after is None:
        reason = REFUSED_IN[challenge.state]
        message = f"challenge {challenge.challenge_id} is {challenge.state.value}"
        raise RefereeError(
            Kind.NOT_NOW,
            message,
            reason,
            metadata={"challenge_id": challenge.challenge_id, "state": challenge.state.value},
            precondition=("CHALLENGE_STATE", f"challenge/{challenge.challenge_id}", message),
        )
    return after


def check_mover(challenge: Challenge, move: Move, player: str) -> None:
    """PERMISSION_DENIED unless ``player`` may make ``move``: the challenged player answers
    (anyone but the challenger, for a challenge to anyone, and only by accepting: a stranger's
    "no" would close it for everyone); only the challenger withdraws."""
    ident = {"challenge_id": challenge.challenge_id}
    if move is Move.WITHDRAW:
        if player != challenge.challenger:
            raise RefereeError(
                Kind.FORBIDDEN, "only the challenger withdraws a challenge", "NOT_CHALLENGER", ident
            )
        return
    if player == challenge.challenger:
        raise RefereeError(
            Kind.FORBIDDEN, "the challenger cannot answer its own challenge", "OWN_CHALLENGE", ident
        )
    if challenge.challenged and player != challenge.challenged:
        raise RefereeError(
            Kind.FORBIDDEN, "the challenge is to another player", "NOT_CHALLENGED", ident
        )
    if move is Move.DECLINE and not challenge.challenged:
        raise RefereeError(
            Kind.FORBIDDEN,
            "a challenge to anyone is accepted or left to others, not declined",
            "NOT_CHALLENGED",
            ident,
        )


@dataclass(frozen=True, slots=True)
class Answered:
    """The outcome of an answer: the challenge after it and, accepted, the caller's seat."""

    challenge: Challenge
    game_id: str = ""
    seat: int = 0
    seat_token: str = ""


class Challenges:
    """The room of challenges (see the module's docstring)."""

    def __init__(
        self, documents: Documents, players: Players, host: ClaimedSeats, limits: LobbyLimits
    ) -> None:
        self.documents = documents
        self.players = players
        self.host = host
        self.limits = limits

    async def create(
        self, challenger: str, challenged: str, terms: Terms, expires_in_ms: int = 0
    ) -> Challenge:
        """A new open challenge by ``challenger`` to ``challenged`` (``""``: anyone)."""
        terms = check_terms(terms)
        if not 0 <= expires_in_ms <= MAX_EXPIRY_MS:
            raise errors.bad_request(
                "expires_in_ms", f"must be 0 (60 s) or at most {MAX_EXPIRY_MS}"
            )
        if challenged == challenger:
            raise errors.bad_request("challenged", "a player cannot challenge itself")
        if challenged:
            await self.players.get(challenged)  # NOT_FOUND PLAYER_UNKNOWN
        now = now_ms()
        mine = [c for c in await self.all(now) if c.challenger == challenger]
        open_now = [c for c in mine if c.state is ChallengeState.OPEN]
        if len(open_now) >= self.limits.open_challenges:
            first = min(c.expires_ms for c in open_now)
            raise limit_reached(
                "open_challenges",
                self.limits.open_challenges,
                (first - now) / 1000,
                player=challenger,
            )
        await self.host.check_room(challenger, self.limits.games_at_once)
        challenge = Challenge(
            challenge_id=f"ch-{secrets.token_hex(8)}",
            challenger=challenger,
            challenged=challenged,
            terms=terms,
            state=ChallengeState.OPEN,
            created_ms=now,
            expires_ms=now + (expires_in_ms or DEFAULT_EXPIRY_MS),
        )
        await self.documents.write(
            [DocumentWrite(KIND, challenge.challenge_id, challenge.to_json(), 0)]
        )
        log.info("challenge_created", challenge_id=challenge.challenge_id, challenger=challenger)
        return challenge

    async def get(self, challenge_id: str) -> tuple[Challenge, int]:
        """The challenge as of now and the revision it was read at; NOT_FOUND
        ``CHALLENGE_NOT_FOUND``."""
        document = await self.documents.read(KIND, challenge_id) if challenge_id else None
        if document is None:
            raise RefereeError(
                Kind.NOT_FOUND,
                f"no challenge {errors.clip(challenge_id)!r}",
                "CHALLENGE_NOT_FOUND",
                metadata={"challenge_id": errors.clip(challenge_id)},
            )
        return Challenge.from_json(document.body).as_of(now_ms()), document.revision

    async def all(self, now: int) -> list[Challenge]:
        """Every challenge kept, as of ``now``, oldest first."""
        listed = [Challenge.from_json(d.body).as_of(now) for d in await self.documents.all(KIND)]
        return sorted(listed, key=lambda c: (c.created_ms, c.challenge_id))

    async def open_for(self, player: str) -> list[Challenge]:
        """Open challenges by or to ``player``, and open ones to anyone, oldest first."""
        return [
            c
            for c in await self.all(now_ms())
            if c.state is ChallengeState.OPEN and (c.concerns(player) or not c.challenged)
        ]

    async def withdraw(self, challenge_id: str, player: str) -> Challenge:
        """The challenger takes its open challenge back."""
        for _ in range(CAS_RETRIES):
            challenge, revision = await self.get(challenge_id)
            check_mover(challenge, Move.WITHDRAW, player)
            after = replace(challenge, state=next_state(challenge, Move.WITHDRAW))
            if await self._swap(after, revision):
                return after
        raise _busy(challenge_id)

    async def answer(self, challenge_id: str, player: str, accept: bool) -> Answered:
        """Accept (the game is created and both reserved seats claimed) or decline."""
        move = Move.ACCEPT if accept else Move.DECLINE
        for _ in range(CAS_RETRIES):
            challenge, revision = await self.get(challenge_id)
            check_mover(challenge, move, player)
            after = replace(challenge, state=next_state(challenge, move))
            if not accept:
                if await self._swap(after, revision):
                    return Answered(after)
                continue
            answered = await self._accept(after, revision, player)
            if answered is not None:
                return answered
        raise _busy(challenge_id)

    async def _accept(self, after: Challenge, revision: int, player: str) -> Answered | None:
        for who in (player, after.challenger):
            await self.host.check_room(who, self.limits.games_at_once)
        players = (after.challenger, player)

        def accepted(game_id: str) -> Challenge:
            return replace(after, game_id=game_id, accepted_by=player)

        def writes_for(game_id: str) -> list[DocumentWrite]:
            body = accepted(game_id).to_json()
            return [DocumentWrite(KIND, after.challenge_id, body, revision, time.time())]

        try:
            game = await self.host.open_game(
                after.terms, players, after.terms.players > 2, writes_for
            )
        except RevisionConflict:  # answered (or withdrawn) elsewhere first: no game made
            return None
        log.info("challenge_accepted", challenge_id=after.challenge_id, game_id=game.game_id)
        return Answered(accepted(game.game_id), game.game_id, 1, game.seat_tokens[1])

    async def expire(self) -> int:
        """Write every open challenge past its expiry as expired and delete long-closed ones;
        how many changed (the lobby's sweep)."""
        now = now_ms()
        changed = 0
        for document in await self.documents.all(KIND):
            challenge = Challenge.from_json(document.body)
            if challenge.state is not ChallengeState.OPEN:
                if now - challenge.expires_ms > KEEP_CLOSED_MS:
                    write = DocumentWrite(KIND, challenge.challenge_id, None, document.revision)
                    changed += await self._try([write])
                continue
            if now >= challenge.expires_ms:
                expired = replace(challenge, state=next_state(challenge, Move.EXPIRE))
                changed += await self._swap(expired, document.revision)
        return changed

    async def _swap(self, challenge: Challenge, revision: int) -> bool:
        write = DocumentWrite(KIND, challenge.challenge_id, challenge.to_json(), revision)
        return await self._try([write])

    async def _try(self, writes: list[DocumentWrite]) -> bool:
        try:
            await self.documents.write(writes)
        except RevisionConflict:
            return False
        return True


def _busy(challenge_id: str) -> RefereeError:
    return RefereeError(
        Kind.CONFLICT,
        "the challenge kept changing while it was answered; try again",
        "CHALLENGE_BUSY",
        metadata={"challenge_id": challenge_id},
        retry_after=0.1,
    )


__all__ = [
    "REFUSED_IN",
    "TRANSITIONS",
    "Answered",
    "Challenge",
    "ChallengeState",
    "Challenges",
    "Move",
    "check_mover",
    "next_state",
]
