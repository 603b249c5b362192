"""One open stream's mailbox, as the live game and the fan-out both see it.

Its own module so that :mod:`referee.application.live` (which holds a game's subscribers) and
:mod:`referee.application.fanout` (which serves them) need not import each other.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from referee.application.errors import RefereeError


@dataclass(eq=False)
class Subscriber:
    queue: asyncio.Queue[int]
    overflowed: bool = False
    closing: RefereeError | None = None
    #: The seat whose stream this is (``None``: a spectator or the organiser).
    seat: int | None = None


__all__ = ["Subscriber"]
