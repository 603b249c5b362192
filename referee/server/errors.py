"""Domain errors as ``google.rpc.Status`` messages, as the contract lists them.

The application raises :class:`~referee.application.tables.errors.RefereeError`; this module alone
decides which status code each :class:`~referee.application.tables.errors.Kind` gets and how its
details travel (``ErrorInfo`` always; ``BadRequest`` and ``PreconditionFailure`` when the
error names fields or a state; ``RetryInfo`` when it says when to retry). The status is a
plain message, the same for every transport: the gRPC adapter sends it as the call's status,
the HTTP adapter as a Connect error or as gRPC-Web trailers.

>>> from referee.application.tables.errors import not_found
>>> code_name(status_code(not_found("f00d")))
'NOT_FOUND'
"""

from __future__ import annotations

from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2

from referee.application.tables.errors import (
    Kind,
    RefereeError,
    bad_request,
    clip,
    exhausted,
)

DOMAIN = "referee.v1"

#: The status code (``google.rpc.Code``) of each kind of refusal.
STATUS_CODES: dict[Kind, int] = {
    Kind.INVALID: code_pb2.INVALID_ARGUMENT,
    Kind.ILLEGAL: code_pb2.INVALID_ARGUMENT,
    Kind.NOT_NOW: code_pb2.FAILED_PRECONDITION,
    Kind.CONFLICT: code_pb2.ABORTED,
    Kind.NOT_FOUND: code_pb2.NOT_FOUND,
    Kind.UNAUTHENTICATED: code_pb2.UNAUTHENTICATED,
    Kind.FORBIDDEN: code_pb2.PERMISSION_DENIED,
    Kind.LIMIT: code_pb2.RESOURCE_EXHAUSTED,
    Kind.UNAVAILABLE: code_pb2.UNAVAILABLE,
}


#: Every code's name, looked up once (the enum's own ``Name`` costs microseconds a call).
_CODE_NAMES: dict[int, str] = {v.number: v.name for v in code_pb2.Code.DESCRIPTOR.values}


def status_code(error: RefereeError) -> int:
    """The ``google.rpc.Code`` number of ``error``."""
    return STATUS_CODES[error.kind]


def code_name(code: int) -> str:
    """``"NOT_FOUND"`` for 5: the name metrics and gRPC use.

    >>> code_name(code_pb2.RESOURCE_EXHAUSTED)
    'RESOURCE_EXHAUSTED'
    """
    return _CODE_NAMES[code]


def to_status(error: RefereeError) -> status_pb2.Status:
    """``error`` as a ``google.rpc.Status``: code, message and packed details."""
    details: list[any_pb2.Any] = []

    def pack(message: Message) -> None:
        packed = any_pb2.Any()
        packed.Pack(message)
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
    return status_pb2.Status(code=status_code(error), message=clip(error.message), details=details)


__all__ = [
    "DOMAIN",
    "STATUS_CODES",
    "RefereeError",
    "bad_request",
    "clip",
    "code_name",
    "exhausted",
    "status_code",
    "to_status",
]
