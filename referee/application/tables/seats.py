"""A table's seats as stored beside its log: seat tokens and claim codes, the documents of the
seats a named player holds (``holding``) or waits for (``reservation``), keyed
``player/game_id/seat``, and the ``lobby`` entry of a listed game waiting for players.

Creation writes them with a new game; the players' seating room with each claim; the
timekeeper deletes what a game that ended unfilled leaves behind.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from referee.application.tables.access import hash_token
from referee.application.tables.live import LiveGame, now_ms
from referee.store import DocumentWrite

#: The document kind of a CreateGame request id (key: the id's hash): the game it made.
CREATE_REQUEST = "create_request"
#: The document kind of a listed game waiting for players.
LOBBY = "lobby"
#: The document kind of the seats a player holds (key ``player/game_id/seat``).
HOLDING = "holding"
#: The document kind of the seats reserved for a player and not claimed yet (same key): what
#: the player stream announces (``sessions.Reserved``). Nothing secret is in it.
RESERVATION = "reservation"


def new_seat_token() -> str:
    # A prefix keeps tokens from starting with "-" (command lines would take it for a flag).
    return f"seat-{secrets.token_urlsafe(24)}"


def new_claim_code() -> str:
    return f"claim-{secrets.token_urlsafe(18)}"


@dataclass(frozen=True, slots=True)
class GameSecrets:
    """The secrets a new game hands its creator: seat tokens, claim codes, the organiser
    token. Random; or, for a CreateGame with a request id, derived from it and from ``key``
    (HMAC-SHA256 keyed by both, over the game id and what each secret is for), so that a
    retry of the same request is answered with the same secrets while the store keeps only
    their hashes, as for any game. ``key`` is drawn at random by the referee and kept in the
    request's document: who learns a request id (and the game id, which is public) cannot
    compute the tokens from them; who reads the store has the key but not the id."""

    request_id: str = ""
    #: What the request asked for (its fingerprint), kept with the id: a retry must match.
    asked: str = ""
    #: The referee's secret for this request (see above), kept in its document.
    key: str = ""

    @classmethod
    def for_request(cls, request_id: str, asked: str) -> GameSecrets:
        """The secrets of a new request: its key drawn now."""
        return cls(request_id, asked, secrets.token_urlsafe(32))

    def _part(self, game_id: str, label: str, size: int) -> str:
        if not self.request_id:
            return secrets.token_urlsafe(size)
        key = f"{self.key}/{self.request_id}".encode()
        what = f"{game_id}/{label}".encode()
        digest = hmac.new(key, what, hashlib.sha256).digest()[:size]
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def handed_out(
        self, game_id: str, modes: Sequence[str], seated: Collection[int]
    ) -> tuple[tuple[str, ...], dict[int, str], str]:
        """Each seat's token ("" for an open or reserved seat not seated at creation), the
        open seats' claim codes, and the organiser token, of a game whose seats are taken as
        ``modes`` says (each seat's plan)."""
        tokens = tuple(
            ""
            if mode in ("open", "reserved") and seat not in seated
            # A prefix keeps tokens from starting with "-" (command lines take it for a flag).
            else f"seat-{self._part(game_id, f'seat/{seat}', 24)}"
            for seat, mode in enumerate(modes)
        )
        codes = {
            seat: f"claim-{self._part(game_id, f'claim/{seat}', 18)}"
            for seat, mode in enumerate(modes)
            if mode == "open"
        }
        return tokens, codes, f"org-{self._part(game_id, 'organiser', 24)}"

    def documents(self, game_id: str, at: float) -> list[DocumentWrite]:
        """Written with the game: the request id's document (keyed by the id's hash), which
        a retry finds; none without a request id. Two creations with one id write it once
        (a :class:`~referee.store.RevisionConflict` for the second)."""
        if not self.request_id:
            return []
        body = {"game_id": game_id, "asked": self.asked, "key": self.key}
        return [DocumentWrite(CREATE_REQUEST, hash_token(self.request_id), body, 0, at)]


def holding_write(player: str, game_id: str, seat: int, game_type: str) -> DocumentWrite:
    """The ``holding`` document of a seat a named player took (written once, never before)."""
    body = {"game_id": game_id, "seat": seat, "game_type": game_type, "claimed_ms": now_ms()}
    return DocumentWrite(HOLDING, f"{player}/{game_id}/{seat}", body, 0, time.time())


def reservation_write(player: str, game_id: str, seat: int, game_type: str) -> DocumentWrite:
    """The ``reservation`` document of a seat reserved for ``player`` (at the game's creation)."""
    body = {"game_id": game_id, "seat": seat, "game_type": game_type, "reserved_ms": now_ms()}
    return DocumentWrite(RESERVATION, f"{player}/{game_id}/{seat}", body, 0, time.time())


def lobby_body(live: LiveGame, open_seats: list[int]) -> dict[str, Any]:
    """The ``lobby`` document of a listed game waiting for players."""
    settings, record = live.settings, live.record
    clock = settings.clock
    return {
        "game_type": record.game_type,
        "players": record.players,
        "options": dict(record.options),
        "clock": {
            "decision_ms": clock.decision_ms,
            "bank_ms": clock.bank_ms,
            "forfeit_after_timeouts": clock.forfeit_after_timeouts,
        },
        "rated": settings.rated,
        "open_seats": open_seats,
        "created_ms": int(record.created_at * 1000),
        "join_deadline_ms": int(record.created_at * 1000) + settings.join_deadline_ms,
    }
