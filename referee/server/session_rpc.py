"""The RPCs of one stream per player: PlayerSession (bidirectional), WatchPlayer.

Mixed into :class:`~referee.server.service.RefereeCore`, which finds each RPC by its name.
"""

from __future__ import annotations

from referee.application import Referee
from referee.metrics import Metrics


class SessionCalls:
    """The RPCs of one stream per player."""

    referee: Referee
    metrics: Metrics


__all__ = ["SessionCalls"]
