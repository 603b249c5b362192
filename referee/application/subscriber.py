"""One open stream's wake-up flag and state, as the live game and the fan-out both see it.

Its own module so that :mod:`referee.application.live` (which holds a game's subscribers) and
:mod:`referee.application.fanout` (which serves them) need not import each other.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from referee.application.errors import RefereeError


@dataclass(eq=False)
class Subscriber:
    #: Raised by the fan-out's ``publish`` and ``close_all``; lowered by the stream.
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closing: RefereeError | None = None
    #: The seat whose stream this is (``None``: a spectator or the organiser).
    seat: int | None = None
    #: The version the stream's viewer could see when it opened: its history ends there.
    opened: int = 0


__all__ = ["Subscriber"]
