"""The one policy of every server stream (StreamGame, PlayerSession, WatchPlayer, WatchLobby,
over gRPC and over HTTP alike): who may open one, how long a reader may make no progress, and
what an idle stream sends.

- **Admission** (:meth:`Pacing.admit`): every stream counts against ``max_streams`` (the
  replica's), ``max_streams_per_player`` (a signed-in player's, whatever the transport) and
  ``max_streams_per_address`` (one client address's); over a cap the stream is refused with
  RESOURCE_EXHAUSTED and ``RetryInfo`` (a slot frees when a stream ends, so a client waits a
  moment and tries again).
- **Stall limit** (:class:`Outlet`): each message is written with the transport's own
  writer, which waits while the client takes nothing (HTTP/2 and gRPC flow control, a full
  socket); a write that has not completed within ``stall_seconds`` ends the stream with
  RESOURCE_EXHAUSTED and the position to resume after (``last_sequence`` when the stream
  says it). What the server holds for a reader is therefore the message being written, the
  transport's buffers (bounded by the stall limit: the HTTP port's sockets also give up on
  a peer that acknowledges nothing for that long, see :mod:`referee.server.http`) and the
  stream's own backlog, bounded where it is kept (the fan-out's ``stream_buffer`` events;
  a player session's queue, in messages and bytes; the lobby's coalesced changes, one per
  table).
- **Heartbeats**: a stream that has written nothing for ``heartbeat_seconds`` writes its
  heartbeat message, so that proxies' and browsers' idle timeouts do not cut it; a
  heartbeat that cannot be written within the stall limit ends the stream like any message.

One ticker task per referee watches every open outlet (rather than a timer per message or
a task per stream), waking four times per the shorter of the two periods.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, TypeVar

import structlog

from referee.application.tables import errors
from referee.application.tables.errors import RefereeError

log = structlog.get_logger("referee")

#: A transport's writer of one stream message (its serialized bytes).
Write = Callable[[bytes], Awaitable[None]]

#: How long a client over a stream cap is told to wait before trying again: a slot frees
#: when any of its streams ends.
RETRY_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class StreamPolicy:
    """The limits every stream is held to (their flags and defaults: docs/operations.md)."""

    #: A write the client has not taken within this long ends the stream (0: never).
    stall_seconds: float = 10.0
    #: An idle stream writes a heartbeat this often (0: never).
    heartbeat_seconds: float = 15.0
    #: Open streams of this replica, at most.
    max_streams: int = 20_000
    #: Open streams of one signed-in player, at most (0: no cap).
    max_streams_per_player: int = 100
    #: Open streams of one client address, at most (0: no cap).
    max_streams_per_address: int = 2000


class Releasable(Protocol):
    """Something a stream holds from :meth:`Outlet.enter` on, given back once by the outlet:
    at the stream's end, with what it ends with (``None``: OK), or at a stall."""

    def __enter__(self) -> None: ...

    def release(self, error: BaseException | None) -> None: ...


#: What an outlet gives back at a stall of a plain write: a holding of the stream's own, a
#: generator the stream reads (closed: its ``finally`` gives back what it holds), or a task
#: of the stream's (cancelled).
Holding: TypeAlias = Releasable | AsyncGenerator[Any, None] | asyncio.Future[Any]
_H = TypeVar("_H", bound=AsyncGenerator[Any, None] | asyncio.Future[Any])


@dataclass(eq=False, slots=True)
class Outlet:
    """One stream's writes under the policy: :meth:`send` each message; the stream's
    handler runs inside ``async with`` (see :meth:`Pacing.outlet`).

    A stall ends the stream in one of two ways, as the transport's write allows. A write
    that may be cancelled (``cancel_writes``: HTTP, in process) is: the stall cancels the
    stream's task, which gives back what it holds as it unwinds. gRPC's cannot be taken back
    once begun (a status sent while a message is still being written is refused, and the
    call is left with neither), so the stream's task writes it and nothing cancels it: at
    the stall the outlet gives back at once everything the stream registered with it (its
    count in the metrics and its slots, :meth:`enter`; the generators it reads and its
    reader's task, :meth:`hold`), and :meth:`send` raises the stall's error once the write
    ends (the client reads again, or its connection ends)."""

    pacing: Pacing
    write: Write
    #: The stream's heartbeat message (made when one is due).
    heartbeat: Callable[[], bytes]
    #: Where the client resumes after the message last taken (``last_sequence``), in the
    #: stall's error.
    resume: dict[str, str] = field(default_factory=dict)
    #: The transport's write may be cancelled: a stall cancels the stream's task.
    cancel_writes: bool = True
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: When the write under way began (0: none); when the last one ended.
    _began: float = 0.0
    _last: float = 0.0
    #: The write under way is a heartbeat's (a task of its own writes it).
    _beat_writing: bool = False
    _task: asyncio.Task[object] | None = None
    _stalled: bool = False
    _beating: asyncio.Future[None] | None = None
    #: What the stream holds, given back at a stall of a plain write (:meth:`hold`).
    _holdings: list[Holding] | None = None
    #: The generators and tasks given back at a stall, while they close.
    _closing: asyncio.Future[None] | None = None

    async def __call__(self, data: bytes) -> None:
        await self.send(data)

    async def send(self, data: bytes, beat: bool = False) -> None:
        """Write one message (waiting for a heartbeat under way); ``beat``: the heartbeat's
        own task writes it."""
        async with self._lock:
            loop = self.pacing.loop()
            self._beat_writing = beat
            self._began = loop.time()
            try:
                await self.write(data)
            finally:
                self._began = 0.0
                self._last = loop.time()
                if self._closing is not None:
                    # Closed once, by the stall: the stream's unwinding finds them closed.
                    await self._closing
            if self._stalled:  # a plain write, taken at last: the stream ends all the same
                raise self.stall_error()

    def enter(self, holding: Releasable) -> None:
        """Enter ``holding`` (a refusal raises here, what was entered before it released
        with it) and hold it until the stream's end, or its stall (see the class). The
        outlet is the one owner: no ``with`` block of the stream's keeps its own exit."""
        try:
            holding.__enter__()
        except BaseException as error:
            self._release(error)
            raise
        self._held(holding)

    def hold(self, holding: _H) -> _H:
        """Register ``holding`` as the stream's, to give back at a stall (see the class):
        a generator is closed, a task cancelled (their own ends are the stream's)."""
        self._held(holding)
        return holding

    def _held(self, holding: Holding) -> None:
        if self._holdings is None:
            self._holdings = []
        self._holdings.append(holding)

    def _release(self, error: BaseException | None) -> None:
        """Give back what was entered (:meth:`enter`), last first, with what the stream
        ends with."""
        holdings, self._holdings = self._holdings or [], None
        for holding in reversed(holdings):
            if not isinstance(holding, asyncio.Future | AsyncGenerator):
                holding.release(error)

    async def __aenter__(self) -> Outlet:
        self._task = asyncio.current_task()
        self._last = self.pacing.loop().time()
        self.pacing.watch(self)
        return self

    async def __aexit__(self, kind: object, error: object, trace: object) -> None:
        stalled = self._stalled and isinstance(error, asyncio.CancelledError)
        if stalled:
            assert self._task is not None
            self._task.uncancel()
        beating = self._beating
        if beating is not None:
            if self.cancel_writes:
                beating.cancel()
            else:
                await self._heartbeat_taken(beating)
        self.pacing.forget(self)
        if stalled or (self._stalled and kind is None):
            ending = self.stall_error()
            self._release(ending)
            raise ending from None
        self._release(error if isinstance(error, BaseException) else None)

    async def _heartbeat_taken(self, beating: asyncio.Future[None]) -> None:
        """Wait for the heartbeat under way to be taken (a plain write is never cancelled,
        and the stream's status goes out after it); stalled meanwhile, the stream's holdings
        are given back while it waits."""
        if self._stalled:
            self._give_back()
        while not beating.done():
            try:
                await asyncio.wait((beating,))
            except asyncio.CancelledError:
                if not self._stalled:
                    raise
                assert self._task is not None
                self._task.uncancel()
                self._give_back()

    def stall_error(self) -> RefereeError:
        return errors.exhausted(
            "stream stall seconds", int(self.pacing.policy.stall_seconds), **self.resume
        )

    # --- the ticker's side ----------------------------------------------------------------

    def check(self, now: float) -> None:
        """End a stalled write; start a heartbeat when the stream has been idle too long."""
        policy = self.pacing.policy
        if self._stalled:
            return
        if self._began and policy.stall_seconds and now - self._began > policy.stall_seconds:
            self._stall()
        elif (
            policy.heartbeat_seconds
            and self._beating is None
            and not self._lock.locked()
            and now - self._last >= policy.heartbeat_seconds
        ):
            self._beating = asyncio.ensure_future(self._beat())

    def _stall(self) -> None:
        self._stalled = True
        if self.cancel_writes or self._beat_writing:
            # The stream's task is not in a plain write: it unwinds, giving back as it goes.
            if self._task is not None:
                self._task.cancel()
            return
        self._give_back()

    def _give_back(self) -> None:
        """Give back what the stream holds, now (its task waits in a write that cannot be
        cancelled): releasables at once, its generators and tasks closed by a task."""
        self.pacing.forget(self)
        closing = [
            holding
            for holding in reversed(self._holdings or ())
            if isinstance(holding, asyncio.Future | AsyncGenerator)
        ]
        self._release(self.stall_error())
        if closing:
            self._closing = asyncio.ensure_future(_close(closing))

    async def _beat(self) -> None:
        try:
            # A write that fails fails the stream's own next write the same way.
            with contextlib.suppress(Exception):
                await self.send(self.heartbeat(), beat=True)
        finally:
            self._beating = None


async def _close(holdings: list[AsyncGenerator[Any, None] | asyncio.Future[Any]]) -> None:
    """Close a stalled stream's generators and tasks, in turn (innermost first)."""
    for holding in holdings:
        if isinstance(holding, asyncio.Future):
            holding.cancel()
            continue
        try:
            await holding.aclose()
        except Exception:  # what the stream raised as it closed: its end is the stall's
            log.exception("stalled_stream_close_failed")


class Admission:
    """A stream's place under the caps while its ``with`` block runs (:meth:`Pacing.admit`,
    :meth:`Pacing.admit_player`): refused on entry when over a cap, given back on exit. A
    plain object rather than a generator's context manager: an open stream holds one for
    its whole life."""

    __slots__ = ("address", "pacing", "player", "released")

    def __init__(self, pacing: Pacing, address: str, player: str | None) -> None:
        self.pacing = pacing
        self.address = address
        self.player = player
        self.released = False

    def __enter__(self) -> None:
        pacing = self.pacing
        policy = pacing.policy
        player = self.player
        if player is not None:
            cap = policy.max_streams_per_player
            if cap and pacing.by_player.get(player, 0) >= cap:
                raise errors.rate_limited("streams per player", cap, RETRY_SECONDS, player=player)
            _count(pacing.by_player, player, 1)
            return
        if pacing.open >= policy.max_streams:
            raise errors.rate_limited("streams", policy.max_streams, RETRY_SECONDS)
        per_address = policy.max_streams_per_address
        address = self.address
        if address and per_address and pacing.by_address.get(address, 0) >= per_address:
            raise errors.rate_limited("streams per address", per_address, RETRY_SECONDS)
        pacing.open += 1
        _count(pacing.by_address, address, 1)

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self.release()

    def release(self, error: BaseException | None = None) -> None:
        """Give the place back (once: at the block's end, or the stream's, or its stall)."""
        if self.released:
            return
        self.released = True
        pacing = self.pacing
        if self.player is not None:
            _count(pacing.by_player, self.player, -1)
        else:
            pacing.open -= 1
            _count(pacing.by_address, self.address, -1)


class Pacing:
    """The stream policy of one referee: admission and the open outlets."""

    def __init__(self, policy: StreamPolicy) -> None:
        self.policy = policy
        #: Open streams: in all, by player, by client address.
        self.open = 0
        self.by_player: dict[str, int] = {}
        self.by_address: dict[str, int] = {}
        self._outlets: set[Outlet] = set()
        self._ticker: asyncio.Future[None] | None = None

    def admit(self, address: str = "") -> Admission:
        """Hold a stream's place for the duration of the ``with`` block: counted against
        ``max_streams`` and, ``address`` given (the client's, as its transport says),
        ``max_streams_per_address``; RESOURCE_EXHAUSTED with RetryInfo over either."""
        return Admission(self, address, None)

    def admit_player(self, player: str) -> Admission:
        """Count a stream of the signed-in ``player`` (a stream admitted already, once its
        credential is resolved) against ``max_streams_per_player``, for the duration of the
        ``with`` block."""
        return Admission(self, "", player)

    def outlet(
        self,
        write: Write,
        heartbeat: Callable[[], bytes],
        cancel_writes: bool = True,
        **resume: str,
    ) -> Outlet:
        """A stream's writer under the policy: use it as ``async with outlet:`` around the
        stream, in the task that runs it (a stall ends the stream with RESOURCE_EXHAUSTED and
        ``resume``, which the stream keeps up to date). ``cancel_writes``: ``write`` may be
        cancelled (see :class:`Outlet`)."""
        return Outlet(self, write, heartbeat, dict(resume), cancel_writes)

    def loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    def watch(self, outlet: Outlet) -> None:
        self._outlets.add(outlet)
        if self._period() and (self._ticker is None or self._ticker.done()):
            self._ticker = asyncio.ensure_future(self._tick())

    def forget(self, outlet: Outlet) -> None:
        self._outlets.discard(outlet)
        if not self._outlets and self._ticker is not None:
            self._ticker.cancel()  # nothing to watch: none left waiting when the loop ends
            self._ticker = None

    def _period(self) -> float:
        periods = [p for p in (self.policy.stall_seconds, self.policy.heartbeat_seconds) if p]
        return min(1.0, max(0.02, min(periods) / 4)) if periods else 0.0

    async def _tick(self) -> None:
        """Check every open outlet each period (cancelled when none is open)."""
        period = self._period()
        loop = asyncio.get_running_loop()
        while self._outlets:
            await asyncio.sleep(period)
            now = loop.time()
            for outlet in tuple(self._outlets):
                outlet.check(now)


def _count(counts: dict[str, int], key: str, step: int) -> None:
    if not key:
        return
    left = counts.get(key, 0) + step
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


__all__ = [
    "RETRY_SECONDS",
    "Admission",
    "Holding",
    "Outlet",
    "Pacing",
    "Releasable",
    "StreamPolicy",
    "Write",
]
