"""Turns at one SQLite connection, in the order the calls asked (:class:`Turns`): a call
waits while the queue moves and gives up only when it stalls (:mod:`referee.store.sqlite`)."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Turns"]


class Turns:
    """The store's connection, one call at a time, in the order the calls asked.

    :meth:`take` waits while turns pass, however many are queued ahead: a queue that moves
    is the store working. It gives up (``False``) only after ``stall`` seconds in which no turn
    began, the holder stuck; a call that gives up leaves the queue. ``turns`` counts the
    turns begun and ``queued`` the calls waiting (tests)."""

    def __init__(self, stall: float) -> None:
        self.stall = stall
        self._changed = threading.Condition(threading.Lock())
        self._held = False
        self._queue: deque[object] = deque()
        self.turns = 0

    @property
    def queued(self) -> int:
        with self._changed:
            return len(self._queue)

    def take(self) -> bool:
        """This caller's turn (``True``), or ``False`` after ``stall`` seconds without one."""
        with self._changed:
            if not self._held and not self._queue:
                return self._begin()
            me = object()
            self._queue.append(me)
            seen, since = self.turns, time.monotonic()
            while self._held or self._queue[0] is not me:
                if self.turns != seen:  # the queue moved: a fresh ``stall`` from now
                    seen, since = self.turns, time.monotonic()
                left = since + self.stall - time.monotonic()
                if left <= 0:
                    self._queue.remove(me)
                    self._changed.notify_all()  # the head may have changed
                    return False
                self._changed.wait(left)
            self._queue.popleft()
            return self._begin()

    def _begin(self) -> bool:
        self._held = True
        self.turns += 1
        return True

    def give(self) -> None:
        """End this caller's turn: the first one queued takes the next."""
        with self._changed:
            self._held = False
            self._changed.notify_all()

    @contextmanager
    def held(self) -> Iterator[None]:
        """A turn, however long it takes (closing the store)."""
        while not self.take():
            pass
        try:
            yield
        finally:
            self.give()
