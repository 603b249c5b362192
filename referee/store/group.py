"""Group commit: one writer thread per store turns appends that arrive together into one
transaction (one commit, one fsync), each acknowledged only once that transaction is durable.

The writer never waits for company: it takes whatever is pending the moment it is free, so a
lone append commits at once, and appends group only because they arrived while the commit
before them was in flight (the server's games append independently of one another). A group
holds at most one append per game: a second append of the same game waits for the next group,
so it is checked against the first one's outcome, not batched with it.

The backend's ``write`` commits a group in one transaction and answers each member with its
new version or the :class:`~referee.store.base.StoreError` that refused it alone (a version
conflict, a recorded command id, no such game), so one member's refusal leaves the others
committed. When ``write`` raises, nothing of the group is known to have committed: a
:class:`~referee.store.base.StoreUnavailable` (a fault of the database, maybe ``uncertain``)
fails every member with it, and any other error is retried member by member, so a bad append
fails alone.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass

from referee.store.base import (
    CommandOutcome,
    EventStore,
    StoreError,
    StoreUnavailable,
    check_outcome,
)

__all__ = ["MAX_GROUP", "GroupCommitStore", "GroupWriter", "Pending", "Write"]

#: Most appends in one transaction: a bound on how long one commit holds the database.
MAX_GROUP = 256


@dataclass(slots=True)
class Pending:
    """An append waiting for (or in) a group."""

    game_id: str
    expected_version: int
    payloads: list[bytes]
    outcome: CommandOutcome | None
    future: Future[int]


#: Commits a group in one transaction; answers each member (in order) with its new version
#: or the error that refused it alone.
Write = Callable[[Sequence[Pending]], list[int | StoreError]]


class GroupWriter:
    """The writer thread of a store: :meth:`submit` queues an append, the thread commits what
    is queued in groups through ``write`` and calls ``notify(game_id, version)`` for each
    committed member before its future is answered (as the store's listeners expect)."""

    def __init__(self, name: str, write: Write, notify: Callable[[str, int], None]) -> None:
        self._write = write
        self._notify = notify
        self._queue: deque[Pending] = deque()
        self._changed = threading.Condition()
        self._closed = False
        #: How many groups were committed and how many appends they held (tests, benchmarks).
        self.groups = 0
        self.grouped = 0
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(
        self,
        game_id: str,
        expected_version: int,
        payloads: list[bytes],
        outcome: CommandOutcome | None,
    ) -> Future[int]:
        """Queue an append; its future ends with the new version or the append's error."""
        future: Future[int] = Future()
        with self._changed:
            if self._closed:
                raise RuntimeError("event store is closed")
            self._queue.append(Pending(game_id, expected_version, payloads, outcome, future))
            self._changed.notify()
        return future

    def close(self) -> None:
        """Commit what is queued, then stop the thread; idempotent."""
        with self._changed:
            self._closed = True
            self._changed.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join()

    def _take(self) -> list[Pending] | None:
        """The next group (waiting for one); ``None`` once closed and drained."""
        with self._changed:
            while not self._queue and not self._closed:
                self._changed.wait()
            group: list[Pending] = []
            games: set[str] = set()
            later: list[Pending] = []
            while self._queue and len(group) < MAX_GROUP:
                pending = self._queue.popleft()
                if pending.game_id in games:
                    later.append(pending)  # after this group's append of the same game
                elif pending.future.set_running_or_notify_cancel():  # else cancelled: dropped
                    games.add(pending.game_id)
                    group.append(pending)
            self._queue.extendleft(reversed(later))
            if not group and not self._queue:
                return None if self._closed else []
            return group

    def _run(self) -> None:
        while (group := self._take()) is not None:
            if group:
                self._commit(group)

    def _commit(self, group: list[Pending]) -> None:
        try:
            answers = self._write(group)
        except StoreUnavailable as fault:
            for pending in group:
                pending.future.set_exception(fault)
            return
        except BaseException as error:
            if len(group) == 1:
                group[0].future.set_exception(error)
                return
            for pending in group:  # find the member that fails, and fail only it
                self._commit([pending])
            return
        self.groups += 1
        self.grouped += len(group)
        for pending, answer in zip(group, answers, strict=True):
            if isinstance(answer, int):
                self._notify(pending.game_id, answer)
        for pending, answer in zip(group, answers, strict=True):
            if isinstance(answer, int):
                pending.future.set_result(answer)
            else:
                pending.future.set_exception(answer)


class GroupCommitStore(EventStore):
    """A store whose appends go through its :class:`GroupWriter` (``_writer``, which the
    backend starts with its ``write``), answered when the writer's commit is durable."""

    _writer: GroupWriter

    def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        outcome: CommandOutcome | None = None,
    ) -> int:
        return self.append_soon(game_id, expected_version, events, outcome).result()

    def append_soon(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        outcome: CommandOutcome | None = None,
    ) -> Future[int]:
        payloads = [bytes(event) for event in events]
        check_outcome(expected_version, len(payloads), outcome)
        return self._writer.submit(game_id, expected_version, payloads, outcome)
