"""What every RPC of the service is handed: its request (or the :class:`Refused` a transport
made of bytes it could not read), who calls, and (a stream) the transport's writer.

The bottom of :mod:`referee.server`: the service (:mod:`referee.server.service`), the calls it
is assembled from (:mod:`~referee.server.players_rpc`, :mod:`~referee.server.seats_rpc`,
:mod:`~referee.server.lobby_rpc`, :mod:`~referee.server.session_rpc`) and both transports
import these from here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from referee.application.tables.errors import RefereeError

#: A transport's writer of one stream message (its serialized bytes).
Write = Callable[[bytes], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sent a call, as its transport says: the player's credential from the
    ``authorization: Bearer <token>`` metadata (gRPC) or header (HTTP); ``""`` when none
    (seat and organiser tokens travel in the request itself). The calls resolve it to a
    player only when they need one, so a bad credential never fails a seat-token call that
    does not use it. ``address``: the client's address as its transport found it (see
    :mod:`referee.server.addresses`; ``""``: none, an in-process call), which the calls no
    player is counted for are counted against."""

    credential: str = ""
    address: str = ""

    @classmethod
    def from_authorization(cls, value: str, address: str = "") -> Caller:
        """From an ``authorization`` value: the token after ``Bearer`` (any case); a value
        without that scheme is kept whole, so the call refuses it with a reason."""
        scheme, _, token = value.strip().partition(" ")
        if scheme.lower() == "bearer":
            return cls(token.strip(), address)
        return cls(value.strip(), address)


#: A call without a credential.
ANONYMOUS = Caller()


@dataclass(frozen=True, slots=True)
class Refused:
    """A request a transport could not read (bytes that are not the request message, a bad
    envelope or encoding): the service answers it with ``error`` and counts it."""

    error: RefereeError
    #: What was wrong, in a word, for the log (never the request's content).
    what: str


__all__ = ["ANONYMOUS", "Caller", "Refused", "Write"]
