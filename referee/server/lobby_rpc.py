"""The RPCs of the lobby, challenges and pairing (ListLobby, WatchLobby, the challenge and
pairing calls).

Mixed into :class:`~referee.server.service.RefereeCore`, which finds each RPC by its name.
"""

from __future__ import annotations

from referee.application import Referee
from referee.metrics import Metrics


class LobbyCalls:
    """The RPCs of the lobby, challenges and pairing."""

    referee: Referee
    metrics: Metrics


__all__ = ["LobbyCalls"]
