"""The RPCs of seats that are claimed, not handed out: ClaimSeat, Resign.

Mixed into :class:`~referee.server.service.RefereeCore`, which finds each RPC by its name.
"""

from __future__ import annotations

from referee.application import Referee
from referee.metrics import Metrics


class SeatCalls:
    """The RPCs of seats that are claimed, not handed out."""

    referee: Referee
    metrics: Metrics


__all__ = ["SeatCalls"]
