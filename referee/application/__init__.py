"""The referee as an application: refereed games in-process, with no transport.

>>> import asyncio
>>> from referee.application import Referee
>>> from referee.store import open_store
>>> async def main():
...     referee = Referee(open_store("memory:"))
...     await referee.recover()
...     created = await referee.create("dracula-vs-van-helsing", 2)
...     view = await referee.view(created.game_id, seat_token=created.seat_tokens[0])
...     referee.close()
...     return view.view.version > 0
>>> from structlog.testing import capture_logs
>>> with capture_logs():  # the referee logs each new game; not into this example
...     asyncio.run(main())
True

See docs/embedding.md ("Refereed games in-process") for clocks, idempotent commands and
streams. The layers: :mod:`referee.engine` (rules, sans-I/O), this package (live games,
commands, clocks, streams), :mod:`referee.store` (event stores), :mod:`referee.stored` (the
stored form), :mod:`referee.server` (gRPC and HTTP adapters).
"""

from __future__ import annotations

from referee.application.players.accounts import Player, Players, Principal
from referee.application.referee import Limits, Referee
from referee.application.tables.access import PlayerSeat
from referee.application.tables.clocks import Clock, GameSettings, SeatClock, SeatPlan
from referee.application.tables.errors import Kind, RefereeError
from referee.application.tables.fanout import StreamEnded
from referee.application.tables.values import (
    Claimed,
    Created,
    Decided,
    DecidedBy,
    Exported,
    Page,
    RecordedCommand,
    SeatHolder,
    SeatStats,
    SeatView,
    StampedEvent,
    Submitted,
    Summary,
    Unreadable,
    Update,
    Watcher,
)

__all__ = [
    "Claimed",
    "Clock",
    "Created",
    "Decided",
    "DecidedBy",
    "Exported",
    "GameSettings",
    "Kind",
    "Limits",
    "Page",
    "Player",
    "PlayerSeat",
    "Players",
    "Principal",
    "RecordedCommand",
    "Referee",
    "RefereeError",
    "SeatClock",
    "SeatHolder",
    "SeatPlan",
    "SeatStats",
    "SeatView",
    "StampedEvent",
    "StreamEnded",
    "Submitted",
    "Summary",
    "Unreadable",
    "Update",
    "Watcher",
]
