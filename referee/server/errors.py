"""Domain errors as gRPC statuses with ``google.rpc`` details, as the contract lists them.

The application raises :class:`~referee.application.errors.RefereeError`; this module alone
decides which status code each :class:`~referee.application.errors.Kind` gets and how its
details travel (``ErrorInfo`` always; ``BadRequest`` and ``PreconditionFailure`` when the
error names fields or a state; ``RetryInfo`` when it says when to retry). The HTTP adapter
takes its Connect errors from the same status.

>>> from referee.application.errors import not_found
>>> status_code(not_found("f00d")).name
'NOT_FOUND'
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from referee.application.errors import (
    Kind,
    RefereeError,
    bad_request,
    clip,
    exhausted,
)

DOMAIN = "referee.v1"

#: The status code of each kind of refusal.
STATUS_CODES: dict[Kind, grpc.StatusCode] = {
    Kind.INVALID: grpc.StatusCode.INVALID_ARGUMENT,
    Kind.ILLEGAL: grpc.StatusCode.INVALID_ARGUMENT,
    Kind.NOT_NOW: grpc.StatusCode.FAILED_PRECONDITION,
    Kind.CONFLICT: grpc.StatusCode.ABORTED,
    Kind.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    Kind.UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
    Kind.FORBIDDEN: grpc.StatusCode.PERMISSION_DENIED,
    Kind.LIMIT: grpc.StatusCode.RESOURCE_EXHAUSTED,
    Kind.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
}


def status_code(error: RefereeError) -> grpc.StatusCode:
    return STATUS_CODES[error.kind]


def to_status(error: RefereeError) -> grpc.Status:
    """``error`` as a gRPC status: code, message and packed ``google.rpc`` details."""
    details: list[any_pb2.Any] = []

    def pack(message: object) -> None:
        packed = any_pb2.Any()
        packed.Pack(message)  # type: ignore[arg-type]
        details.append(packed)

    metadata = {clip(k): clip(v) for k, v in error.metadata.items()}
    pack(error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=metadata))
    if error.field_violations:
        pack(
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(field=clip(f), description=clip(d))
                    for f, d in error.field_violations
                ]
            )
        )
    if error.precondition is not None:
        kind, subject, description = error.precondition
        pack(
            error_details_pb2.PreconditionFailure(
                violations=[
                    error_details_pb2.PreconditionFailure.Violation(
                        type=kind, subject=subject, description=description
                    )
                ]
            )
        )
    if error.retry_after is not None:
        delay = duration_pb2.Duration()
        delay.FromMilliseconds(round(error.retry_after * 1000))
        pack(error_details_pb2.RetryInfo(retry_delay=delay))
    code = status_code(error)
    status = status_pb2.Status(
        code=getattr(code_pb2, code.name), message=clip(error.message), details=details
    )
    return rpc_status.to_status(status)


__all__ = [
    "DOMAIN",
    "STATUS_CODES",
    "RefereeError",
    "bad_request",
    "clip",
    "exhausted",
    "status_code",
    "to_status",
]
