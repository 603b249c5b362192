"""Who is asking: a seat (its token, or a player holding it), a spectator, or the organiser.

Tokens are kept only as SHA-256 hashes (:func:`hash_token`) and compared in constant time. A
seat's token hash is in the game's record (seats whose token went to the creator) or in the
store's claim of the seat (:attr:`LiveGame.claims`), which :func:`read_claims_for` reads
before a token is checked when the claim was made on another replica. A player signed in with a
credential
holds the seats the log's claims name it for (:class:`PlayerSeat`); a platform token scoped
to a game or a seat, or to watching only, covers nothing else.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field

from referee.application.tables import errors
from referee.application.tables.errors import Kind, RefereeError
from referee.application.tables.live import LiveGame
from referee.application.tables.repository import Repository
from referee.application.tables.values import Watcher
from referee.engine.game import Viewer


def token_digest(token: str) -> bytes:
    """The SHA-256 digest of ``token``, as a live game holds its record's token hashes."""
    return hashlib.sha256(token.encode()).digest()


def hash_token(token: str) -> str:
    """The hash of ``token`` as stored: :func:`token_digest` in hex."""
    return token_digest(token).hex()


@dataclass(frozen=True, slots=True)
class Player:
    """A player as the referee knows it: an account, or a platform token's subject."""

    name: str
    kind: str  # "person" | "bot" | "" (a platform token that does not say)
    created_ms: int = 0
    platform: bool = False


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a credential says is calling, and what it allows."""

    player: Player
    #: A platform token scoped to one game: its id ("" when not scoped).
    scope_game: str = ""
    #: ... and to one seat of it.
    scope_seat: int | None = None
    #: A platform token with the spectator role: it may watch, never play.
    spectator_only: bool = False
    #: The SHA-256 of the account token the call was made with ("" for a platform token or
    #: an in-process player): what a stream opened with it is ended by, if it is revoked.
    credential: str = field(default="", compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class PlayerSeat:
    """A seat asked for with a player's credential instead of its token: ``seat`` of the
    game, or (``None``) the one seat the player holds there."""

    principal: Principal
    seat: int | None = None


#: What names a seat: its token, or a signed-in player (and which of its seats).
SeatKey = str | PlayerSeat


def seat_of(live: LiveGame, token: SeatKey, spectator: bool, play: bool = True) -> Viewer:
    """The seat a token (or a player) holds; ``None`` for a spectator (``play``: the seat
    is to act, which a spectator's credential may not)."""
    if isinstance(token, PlayerSeat):
        principal = token.principal
        if principal.spectator_only and not play:
            # A watching credential sees what a spectator sees, whatever seats its player
            # holds: asking for one of them is refused, not answered with the public view.
            check_scope(principal, live.game_id, None, play=False)
            if token.seat is not None:
                raise RefereeError(
                    Kind.FORBIDDEN,
                    "this credential may only watch (spectator): it sees the public view, "
                    "never a seat's",
                    "TOKEN_SCOPE",
                    metadata={"game_id": live.game_id, "seat": str(token.seat)},
                )
            return None
        return held_seat(live, principal, token.seat, play)
    if not token:
        if spectator:
            return None
        raise errors.token_missing(
            "seat_token is required (or set spectator for public information)"
        )
    seat = token_seat(live, token)
    if seat is None:
        raise errors.forbidden(
            "this token is not a seat token of this game", "TOKEN_INVALID", live.game_id
        )
    return seat


def token_seat(live: LiveGame, token: str) -> int | None:
    """The seat whose token ``token`` is, or None (the record's hashes, then the claims')."""
    digest = token_digest(token)
    found = None
    for seat in range(live.record.players):
        expected = live.seat_digest(seat)
        if expected is not None and hmac.compare_digest(digest, expected):
            found = seat
    hashed = digest.hex()
    for seat, claim in live.claims.items():
        if claim.token_hash and hmac.compare_digest(hashed, claim.token_hash):
            found = seat
    return found


def unknown_claims(live: LiveGame) -> bool:
    """True when the log names a claim whose store record this process has not read (made
    on another replica): its token is then checked after reading the store's claims."""
    return any(
        seat not in live.claims and live.seat_digest(seat) is None
        for seat in live.table.status.claims
    )


async def read_claims_for(repository: Repository, live: LiveGame, key: SeatKey) -> None:
    """Before ``key`` is checked: when it is a seat token and the log names a claim whose
    store record this process has not read (made on another replica), read the store's
    claims of the game (the claim's token hash is there, not in the log)."""
    if isinstance(key, str) and key and unknown_claims(live):
        live.claims = await repository.call(repository.store.seat_claims, live.game_id)


def check_scope(principal: Principal, game_id: str, seat: int | None, play: bool) -> None:
    """PERMISSION_DENIED ``TOKEN_SCOPE`` for a call a platform token does not cover: another
    game, another seat, or playing with a spectator token (accounts cover everything)."""
    why = ""
    if play and principal.spectator_only:
        why = "this credential may only watch (spectator)"
    elif principal.scope_game and principal.scope_game != game_id:
        why = "this credential is scoped to another game"
    elif seat is not None and principal.scope_seat is not None and principal.scope_seat != seat:
        why = "this credential is scoped to another seat"
    if why:
        raise RefereeError(Kind.FORBIDDEN, why, "TOKEN_SCOPE", metadata={"game_id": game_id})


def held_seat(live: LiveGame, principal: Principal, seat: int | None, play: bool = True) -> int:
    """The seat of ``live`` that the player of ``principal`` holds (``seat``, or its only
    one): PERMISSION_DENIED ``NOT_SEATED`` when it holds none (or not that one),
    INVALID_ARGUMENT ``seat`` when it holds several and did not say which."""
    game_id = live.game_id
    check_scope(principal, game_id, seat, play)
    name = principal.player.name
    held = sorted(s for s, c in live.table.status.claims.items() if name and c.player == name)
    if principal.scope_seat is not None and seat is None:
        seat = principal.scope_seat
    if seat is None:
        if len(held) > 1:
            listed = ", ".join(map(str, held))
            raise errors.bad_request("seat", f"the player holds seats {listed}; say which")
        if held:
            return held[0]
    elif seat in held:
        return seat
    raise RefereeError(
        Kind.FORBIDDEN,
        "the signed-in player holds no such seat of this game",
        "NOT_SEATED",
        metadata={"game_id": game_id, "player": name},
    )


def check_organiser(live: LiveGame, token: str) -> None:
    """Raise unless ``token`` is the game's organiser token (seat tokens are refused)."""
    if not token:
        raise errors.token_missing("organiser_token is required (from CreateGameResponse)")
    expected = live.organiser_digest()
    if expected is None or not hmac.compare_digest(token_digest(token), expected):
        raise errors.forbidden(
            "this token is not the organiser token of this game", "TOKEN_INVALID", live.game_id
        )


def check_claimed_secrecy(live: LiveGame, seat: int | None) -> None:
    """PERMISSION_DENIED ``SEAT_CLAIMED`` when the organiser asks for what only a claimed
    seat's holder may see: that seat's view (``seat``), or (``None``) the full log of a game
    with claimed seats. The organiser token goes to the creator, who may be a player at the
    table: a seat taken by a claim is its claimant's alone (the creator never held its
    token), unless the game waived end-of-game secrecy and is over. A game created with
    ``organiser_audit`` (shown to every claimant before claiming) lets the organiser export
    its full log, which needs the seed released, so only after the end."""
    claims = [s for s in live.table.status.claims if live.seat_digest(s) is None]
    if seat is None:
        settings = live.settings
        if claims and not (settings.public_reveal or settings.organiser_audit):
            raise RefereeError(
                Kind.FORBIDDEN,
                "this game has claimed seats: its full log shows their hidden cards, which "
                "the organiser may not see (unless the game waives secrecy or was created "
                "with organiser_audit)",
                "SEAT_CLAIMED",
                metadata={"game_id": live.game_id},
            )
        return
    # A creator's own seat has its token in the record: not claimed from the creator.
    if seat in claims and not (live.settings.public_reveal and live.over):
        raise RefereeError(
            Kind.FORBIDDEN,
            f"seat {seat} was claimed: only its holder sees its view",
            "SEAT_CLAIMED",
            metadata={"game_id": live.game_id, "seat": str(seat)},
        )


def watcher(
    live: LiveGame, seat_token: SeatKey, spectator: bool, organiser_token: str, as_seat: int | None
) -> Watcher:
    """Who a view or stream is for: a seat, a spectator or the organiser (any seat it did
    not see claimed by someone else, delayed)."""
    if organiser_token:
        check_organiser(live, organiser_token)
        if as_seat is not None and not 0 <= as_seat < live.record.players:
            raise errors.bad_request("as_seat", f"must be a seat, 0..{live.record.players - 1}")
        if as_seat is not None:
            check_claimed_secrecy(live, as_seat)
        return Watcher(as_seat, organiser=True)
    if as_seat is not None:
        if seat_token:
            raise errors.forbidden(
                "as_seat needs the organiser token; a seat token shows its own seat only",
                "ORGANISER_ONLY",
                live.game_id,
            )
        check_organiser(live, organiser_token)  # raises: no token
    return Watcher(seat_of(live, seat_token, spectator, play=False))


__all__ = [
    "PlayerSeat",
    "Principal",
    "SeatKey",
    "check_claimed_secrecy",
    "check_organiser",
    "check_scope",
    "hash_token",
    "held_seat",
    "read_claims_for",
    "seat_of",
    "token_seat",
    "unknown_claims",
    "watcher",
]
