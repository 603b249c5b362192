"""One open stream's wake-up flag and state, as the live game and the fan-out both see it.

Its own module so that :mod:`referee.application.tables.live` (which holds a game's subscribers) and
:mod:`referee.application.tables.fanout` (which serves them) need not import each other.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from referee.application.tables.errors import RefereeError


class Flag:
    """What ``asyncio.Event`` does for one waiter (the stream's own loop), without its deque
    of waiters (760 bytes): an open stream holds one for its whole life."""

    __slots__ = ("_set", "_waiter")

    def __init__(self) -> None:
        self._set = False
        self._waiter: asyncio.Future[None] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> None:
        """Return once the flag is raised (at once if it is)."""
        if self._set:
            return
        waiter = self._waiter = asyncio.get_running_loop().create_future()
        try:
            await waiter
        finally:
            self._waiter = None


@dataclass(eq=False, slots=True)
class Subscriber:
    #: Raised by the fan-out's ``publish`` and ``close_all``; lowered by the stream.
    wake: Flag = field(default_factory=Flag)
    closing: RefereeError | None = None
    #: The seat whose stream this is (``None``: a spectator or the organiser).
    seat: int | None = None
    #: The version the stream's viewer could see when it opened: its history ends there.
    opened: int = 0
    #: The SHA-256 of the account token the stream was opened with ("" for none): a revoked
    #: token's streams are ended (``Streams.end_opened_with``).
    credential: str = ""
    #: Whose view the stream sends (a seat; ``None``: a spectator's), and whether it is a
    #: plain stream (one message per event, each with the view after it: the live game
    #: makes the views inside a batch once for all of them, ``LiveGame.past_view``).
    viewer: int | None = None
    plain: bool = False
    #: The version up to which the stream has taken its messages (made them, to send).
    sent: int = 0
    #: The organiser's stream run behind by the game's delay: it takes a batch when the
    #: delay says, so none is made ahead for it (``LiveGame.absorb``).
    delayed: bool = False


__all__ = ["Flag", "Subscriber"]
