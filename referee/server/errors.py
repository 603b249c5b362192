"""gRPC errors with ``google.rpc`` details, as the contract lists them.

Every error a client can cause is a :class:`ClientError`; the servicer turns it into a status
with machine-readable details. Messages never contain hidden information.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from referee.engine.game import Rejection

DOMAIN = "referee.v1"
#: Errors may echo what a client sent; clip it so trailers stay far below gRPC's metadata limit.
MAX_ECHO = 300


def clip(text: str) -> str:
    """``text``, shortened to :data:`MAX_ECHO` characters.

    >>> len(clip("x" * 10_000))
    300
    """
    return text if len(text) <= MAX_ECHO else text[: MAX_ECHO - 3] + "..."


@dataclass
class ClientError(Exception):
    """An error caused by what the client sent (never INTERNAL or UNKNOWN)."""

    code: grpc.StatusCode
    message: str
    reason: str
    metadata: dict[str, str] = field(default_factory=dict)
    field_violations: list[tuple[str, str]] = field(default_factory=list)
    precondition: tuple[str, str, str] | None = None  # (type, subject, description)

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"

    def to_status(self) -> grpc.Status:
        details: list[any_pb2.Any] = []

        def pack(message: object) -> None:
            packed = any_pb2.Any()
            packed.Pack(message)  # type: ignore[arg-type]
            details.append(packed)

        metadata = {clip(k): clip(v) for k, v in self.metadata.items()}
        pack(error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN, metadata=metadata))
        if self.field_violations:
            pack(
                error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(
                            field=clip(f), description=clip(d)
                        )
                        for f, d in self.field_violations
                    ]
                )
            )
        if self.precondition is not None:
            kind, subject, description = self.precondition
            pack(
                error_details_pb2.PreconditionFailure(
                    violations=[
                        error_details_pb2.PreconditionFailure.Violation(
                            type=kind, subject=subject, description=description
                        )
                    ]
                )
            )
        status = status_pb2.Status(
            code=getattr(code_pb2, self.code.name), message=clip(self.message), details=details
        )
        return rpc_status.to_status(status)


def bad_request(field_name: str, description: str) -> ClientError:
    return ClientError(
        grpc.StatusCode.INVALID_ARGUMENT,
        f"{field_name}: {description}",
        "BAD_REQUEST",
        field_violations=[(field_name, description)],
    )


def not_found(game_id: str) -> ClientError:
    return ClientError(
        grpc.StatusCode.NOT_FOUND,
        f"no game {game_id!r}",
        "GAME_NOT_FOUND",
        metadata={"game_id": game_id},
    )


def rule_violation(rejection: Rejection, seat: int) -> ClientError:
    metadata = {"rule_id": rejection.rule_id, "seat": str(seat)}
    if rejection.kind == "precondition":
        return ClientError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"{rejection.rule_id}: {rejection.message}",
            "NOT_NOW",
            metadata=metadata,
            precondition=("TURN", f"seat/{seat}", rejection.message),
        )
    return ClientError(
        grpc.StatusCode.INVALID_ARGUMENT,
        f"{rejection.rule_id}: {rejection.message}",
        "RULE_VIOLATION",
        metadata=metadata,
    )


def not_now(message: str, reason: str) -> ClientError:
    """FAILED_PRECONDITION for a request that is fine but not in the game's current state
    (abort a finished game, reveal before the end, export before the reveal)."""
    return ClientError(
        grpc.StatusCode.FAILED_PRECONDITION,
        message,
        reason,
        precondition=("GAME_STATE", "game", message),
    )


def version_conflict(expected: int, current: int, seat: int) -> ClientError:
    return ClientError(
        grpc.StatusCode.ABORTED,
        f"expected version {expected} but the game is at version {current}",
        "VERSION_CONFLICT",
        metadata={
            "expected_version": str(expected),
            "current_version": str(current),
            "seat": str(seat),
        },
    )


def exhausted(what: str, limit: int, **metadata: str) -> ClientError:
    return ClientError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"{what} limit reached ({limit})",
        "LIMIT",
        metadata={"limit": what, "value": str(limit), **metadata},
    )
