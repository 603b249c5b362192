"""The RPCs of accounts, credentials and ratings: Register, WhoAmI, GetRatings,
GetLeaderboard.

Mixed into :class:`~referee.server.service.RefereeCore`, which finds each RPC by its name.
"""

from __future__ import annotations

from referee.application import Referee
from referee.metrics import Metrics


class PlayerCalls:
    """The RPCs of accounts, credentials and ratings."""

    referee: Referee
    metrics: Metrics


__all__ = ["PlayerCalls"]
