"""The referee's domain errors: what a caller did that the referee refuses, and why.

Every refusal is a :class:`RefereeError` with a :class:`Kind` (what sort of refusal), a
``reason`` (a stable machine-readable name such as ``RULE_VIOLATION`` or ``GAME_NOT_FOUND``),
the rule id where a rule refused it, and details that name the field or the state at fault.
Transports map kinds to their own status codes (:mod:`referee.server.errors` for gRPC and
Connect); an embedding platform reads them as they are. Messages never contain hidden
information.

>>> error = not_found("f00d")
>>> error.kind, error.reason, str(error)
(<Kind.NOT_FOUND: 'not found'>, 'GAME_NOT_FOUND', "not found: no game 'f00d'")
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from referee.engine.game import Rejection

#: Errors may echo what a caller sent; clip it so a transport's trailers stay small.
MAX_ECHO = 300


def clip(text: str) -> str:
    """``text``, shortened to :data:`MAX_ECHO` characters.

    >>> len(clip("x" * 10_000))
    300
    """
    return text if len(text) <= MAX_ECHO else text[: MAX_ECHO - 3] + "..."


class Kind(enum.Enum):
    """What sort of refusal an error is (each transport has one status code per kind)."""

    #: A request field is missing or malformed (before any rule is asked).
    INVALID = "invalid"
    #: The rules forbid the command in any state like this one (a rule id says which).
    ILLEGAL = "illegal"
    #: Fine in itself, but not in the game's current state: not this seat's turn, the game
    #: is over, the seed is not revealed yet.
    NOT_NOW = "not now"
    #: The caller decided against a version the game has moved past (``expected_version``).
    CONFLICT = "conflict"
    #: No such game.
    NOT_FOUND = "not found"
    #: A token is required and none was given.
    UNAUTHENTICATED = "unauthenticated"
    #: The token given does not allow this.
    FORBIDDEN = "forbidden"
    #: A limit of the referee (games, streams, a stream's buffer or stall time).
    LIMIT = "limit"
    #: The referee is stopping, or its event store cannot serve the call now (the caller
    #: retries elsewhere or later; ``retry_after`` says when).
    UNAVAILABLE = "unavailable"


@dataclass
class RefereeError(Exception):
    """A refusal caused by what the caller sent or when (never a referee fault)."""

    kind: Kind
    message: str
    reason: str
    #: Machine-readable details (``rule_id``, ``seat``, ``game_id``, ``limit``, ...).
    metadata: dict[str, str] = field(default_factory=dict)
    #: ``(field, description)`` for each field at fault.
    field_violations: list[tuple[str, str]] = field(default_factory=list)
    #: ``(type, subject, description)`` of the state that is not right for the request.
    precondition: tuple[str, str, str] | None = None
    #: Seconds after which a retry may succeed (``google.rpc.RetryInfo``); ``None``: no hint.
    retry_after: float | None = None

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.message}"

    @property
    def rule_id(self) -> str | None:
        """The rule that refused the command, if a rule did."""
        return self.metadata.get("rule_id")


def bad_request(field_name: str, description: str) -> RefereeError:
    return RefereeError(
        Kind.INVALID,
        f"{field_name}: {description}",
        "BAD_REQUEST",
        field_violations=[(field_name, description)],
    )


def setup_refused(field_name: str, description: str, rule_id: str = "") -> RefereeError:
    """A game's settings the rules do not allow (too many players, an option's value):
    ``BAD_REQUEST`` naming the field, as every malformed request, with the rule's id when a
    rule says it.

    >>> setup_refused("players", "for 2 to 4 players, got 9", "SQ-1").metadata
    {'rule_id': 'SQ-1'}
    """
    refused = bad_request(field_name, description)
    if rule_id:
        refused.metadata["rule_id"] = rule_id
    return refused


def not_found(game_id: str) -> RefereeError:
    return RefereeError(
        Kind.NOT_FOUND, f"no game {game_id!r}", "GAME_NOT_FOUND", metadata={"game_id": game_id}
    )


#: The ``PreconditionFailure`` type of each "not now" reason of a command: the turn, the
#: game's state, or the seat's own.
_PRECONDITION_TYPES = {
    "NOT_YOUR_TURN": "TURN",
    "GAME_OVER": "GAME_STATE",
    "GAME_NOT_STARTED": "GAME_STATE",
    "SEAT_RESIGNED": "SEAT",
    "SEAT_FORFEITED": "SEAT",
    "SEAT_ABANDONED": "SEAT",
    "NO_SUCH_SEAT": "SEAT",
}


#: The reasons that come with a rule id: a command's (illegal, or not now) and a setup's.
RULE_REASONS = frozenset({"RULE_VIOLATION", "BAD_REQUEST", *_PRECONDITION_TYPES})


def rule_violation(rejection: Rejection, seat: int) -> RefereeError:
    """The engine's rejection of ``seat``'s command: illegal, or (a precondition) not now,
    with the rejection's own reason (``NOT_YOUR_TURN``, ``GAME_OVER``, ...).

    >>> from referee.engine.game import not_your_turn
    >>> error = rule_violation(not_your_turn(1, [], "VQ-7"), 1)
    >>> error.kind, error.reason, error.rule_id, error.precondition[0]
    (<Kind.NOT_NOW: 'not now'>, 'GAME_OVER', 'VQ-7', 'GAME_STATE')
    """
    metadata = {"rule_id": rejection.rule_id, "seat": str(seat)}
    if rejection.kind == "precondition":
        return RefereeError(
            Kind.NOT_NOW,
            f"{rejection.rule_id}: {rejection.message}",
            rejection.reason,
            metadata=metadata,
            precondition=(
                _PRECONDITION_TYPES.get(rejection.reason, "TURN"),
                f"seat/{seat}",
                rejection.message,
            ),
        )
    return RefereeError(
        Kind.ILLEGAL,
        f"{rejection.rule_id}: {rejection.message}",
        "RULE_VIOLATION",
        metadata=metadata,
    )


def not_now(message: str, reason: str) -> RefereeError:
    """A request that is fine but not in the game's current state (abort a finished game,
    reveal before the end, export before the reveal)."""
    return RefereeError(Kind.NOT_NOW, message, reason, precondition=("GAME_STATE", "game", message))


def version_conflict(expected: int, current: int, seat: int) -> RefereeError:
    return RefereeError(
        Kind.CONFLICT,
        f"expected version {expected} but the game is at version {current}",
        "VERSION_CONFLICT",
        metadata={
            "expected_version": str(expected),
            "current_version": str(current),
            "seat": str(seat),
        },
    )


def exhausted(what: str, limit: int, **metadata: str) -> RefereeError:
    return RefereeError(
        Kind.LIMIT,
        f"{what} limit reached ({limit})",
        "LIMIT",
        metadata={"limit": what, "value": str(limit), **metadata},
    )


def token_missing(message: str) -> RefereeError:
    return RefereeError(Kind.UNAUTHENTICATED, message, "TOKEN_MISSING")


def forbidden(message: str, reason: str, game_id: str) -> RefereeError:
    return RefereeError(Kind.FORBIDDEN, message, reason, metadata={"game_id": game_id})


def stopping(message: str) -> RefereeError:
    return RefereeError(Kind.UNAVAILABLE, message, "SHUTDOWN")


def store_unavailable(message: str, retry_after: float, uncertain: bool) -> RefereeError:
    """The event store failed the call (restarted, unreachable, locked, full): retry after
    ``retry_after`` seconds. A command retried with the same command id is applied at most
    once, whether or not an ``uncertain`` append had committed.

    >>> error = store_unavailable("the store lost its connection", 0.5, uncertain=True)
    >>> error.kind, error.reason, error.retry_after, error.metadata
    (<Kind.UNAVAILABLE: 'unavailable'>, 'STORE_UNAVAILABLE', 0.5, {'uncertain': 'true'})
    """
    return RefereeError(
        Kind.UNAVAILABLE,
        f"{message}; retry (a command with the same command_id applies at most once)",
        "STORE_UNAVAILABLE",
        metadata={"uncertain": "true"} if uncertain else {},
        retry_after=retry_after,
    )


# --- players and credentials ------------------------------------------------------------------
# A refusal of a credential never quotes it: the messages name the claim or the rule at fault.


def unauthenticated(reason: str, message: str, **metadata: str) -> RefereeError:
    """A credential that is missing, malformed, expired or not signed by whom we trust
    (``CREDENTIAL_MISSING``, ``CREDENTIAL_INVALID``, ``TOKEN_EXPIRED``, ``TOKEN_SIGNATURE``)."""
    return RefereeError(Kind.UNAUTHENTICATED, message, reason, metadata=dict(metadata))


def denied(reason: str, message: str, **metadata: str) -> RefereeError:
    """A valid credential that does not allow this (``TOKEN_SCOPE``, ``REGISTRATION_CLOSED``)."""
    return RefereeError(Kind.FORBIDDEN, message, reason, metadata=dict(metadata))


def player_unknown(name: str) -> RefereeError:
    return RefereeError(
        Kind.NOT_FOUND, f"no player {clip(name)!r}", "PLAYER_UNKNOWN", metadata={"player": name}
    )


def name_taken(name: str) -> RefereeError:
    message = f"the name {name!r} is taken"
    return RefereeError(
        Kind.NOT_NOW,
        message,
        "NAME_TAKEN",
        metadata={"player": name},
        precondition=("NAME", f"player/{name}", message),
    )


def rate_limited(what: str, limit: int, retry_after: float, **metadata: str) -> RefereeError:
    """A per-player limit (calls per minute): RESOURCE_EXHAUSTED with ``RetryInfo``."""
    error = exhausted(what, limit, **metadata)
    error.retry_after = retry_after
    return error


__all__ = [
    "MAX_ECHO",
    "RULE_REASONS",
    "Kind",
    "RefereeError",
    "bad_request",
    "clip",
    "denied",
    "exhausted",
    "forbidden",
    "name_taken",
    "not_found",
    "not_now",
    "player_unknown",
    "rate_limited",
    "rule_violation",
    "setup_refused",
    "stopping",
    "store_unavailable",
    "token_missing",
    "unauthenticated",
    "version_conflict",
]
