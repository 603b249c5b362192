"""Who is asking: a seat (its token), a spectator, or the organiser (its token).

Tokens are kept only as SHA-256 hashes (:func:`hash_token`) and compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac

from referee.application import errors
from referee.application.live import LiveGame
from referee.application.values import Watcher
from referee.engine.game import Viewer


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def seat_of(live: LiveGame, token: str, spectator: bool) -> Viewer:
    """The seat a token belongs to; ``None`` for a spectator."""
    if not token:
        if spectator:
            return None
        raise errors.token_missing(
            "seat_token is required (or set spectator for public information)"
        )
    digest = hash_token(token)
    for seat, expected in enumerate(live.record.seat_token_hashes):
        if hmac.compare_digest(digest, expected):
            return seat
    raise errors.forbidden(
        "this token is not a seat token of this game", "TOKEN_INVALID", live.game_id
    )


def check_organiser(live: LiveGame, token: str) -> None:
    """Raise unless ``token`` is the game's organiser token (seat tokens are refused)."""
    if not token:
        raise errors.token_missing("organiser_token is required (from CreateGameResponse)")
    expected = live.record.organiser_token_hash
    if not expected or not hmac.compare_digest(hash_token(token), expected):
        raise errors.forbidden(
            "this token is not the organiser token of this game", "TOKEN_INVALID", live.game_id
        )


def watcher(
    live: LiveGame, seat_token: str, spectator: bool, organiser_token: str, as_seat: int | None
) -> Watcher:
    """Who a view or stream is for: a seat, a spectator or the organiser (any seat, delayed)."""
    if organiser_token:
        check_organiser(live, organiser_token)
        if as_seat is not None and not 0 <= as_seat < live.record.players:
            raise errors.bad_request("as_seat", f"must be a seat, 0..{live.record.players - 1}")
        return Watcher(as_seat, organiser=True)
    if as_seat is not None:
        if seat_token:
            raise errors.forbidden(
                "as_seat needs the organiser token; a seat token shows its own seat only",
                "ORGANISER_ONLY",
                live.game_id,
            )
        check_organiser(live, organiser_token)  # raises: no token
    return Watcher(seat_of(live, seat_token, spectator))


__all__ = ["check_organiser", "hash_token", "seat_of", "watcher"]
