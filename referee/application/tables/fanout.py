"""Fan-out: every open stream of every live game, and what each one sends next.

A stream is a :class:`Subscriber` of one game: a flag the referee raises after each committed
batch (:meth:`FanOut.publish`, which never waits), and a loop that sends its viewer the events
it has not sent yet, redacted, each with the view after it, or one update per batch when
batched. Nothing is queued per stream: what a stream has not sent yet is a position in the
game's log, so a slow stream costs no memory beyond the message it is writing.

Each stream is paced by its own reader. The **backlog bound** (``backlog``) is kept here: a
stream more than that many events behind the live game (events committed since it opened that
it has not sent) ends; the history a stream replays when it opens does not count. It ends with
``RESOURCE_EXHAUSTED`` and ``last_sequence``, the last event written (the client resumes after
it, losing nothing), as does a shutdown (``UNAVAILABLE``, reason ``SHUTDOWN``, for streams open
then and any opened later). The stall limit and heartbeats are every stream's, kept by
:mod:`referee.application.tables.pacing`. :meth:`FanOut.follow` is a stream's
updates; :meth:`FanOut.serve` runs them into a transport's ``send``.

Batched streams of one viewer that keep up share one
:class:`~referee.application.tables.values.Update` per batch (:meth:`LiveGame.batch_update`);
the events inside it are shared by every viewer who sees them alike. The plain form follows
the log on a private replica so each event comes with the view right after it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable
from typing import Any

from referee.application.tables import errors
from referee.application.tables.errors import RefereeError
from referee.application.tables.live import LiveGame, now_ms
from referee.application.tables.subscriber import Subscriber
from referee.application.tables.values import SeatView, Update, Watcher
from referee.engine.table import Table
from referee.metrics import Metrics

#: A transport's writer of one stream message: the update, and whether it is the message
#: that brings the stream up to the game as it was when the stream opened (``caught_up``:
#: every later message is a live one).
Send = Callable[[Update, bool], Awaitable[None]]
#: A stream's updates, each with its ``caught_up`` flag (:meth:`FanOut.follow`).
Updates = AsyncGenerator[tuple[Update, bool], None]


#: Revoked account tokens a fan-out remembers (the newest): far more than can be on their
#: way to a stream at once.
MAX_REVOKED = 1024


class StreamEnded(Exception):
    """Ends one stream with an error (backlog, stall, shutdown)."""

    def __init__(self, error: RefereeError) -> None:
        super().__init__(str(error))
        self.error = error


class FanOut:
    """The open streams of games: at most ``max_streams``, each at most ``backlog`` events
    behind."""

    def __init__(self, metrics: Metrics, max_streams: int, backlog: int) -> None:
        self.metrics = metrics
        self.max_streams = max_streams
        self.backlog = backlog
        #: How many streams are open now.
        self.streams = 0
        #: Set at shutdown: every stream, open or opened later, ends with it.
        self.closed: RefereeError | None = None
        #: Account tokens whose streams were ended as revoked: ``{hash: refusal}``, oldest
        #: first.
        self.revoked: OrderedDict[str, RefereeError] = OrderedDict()

    def publish(self, live: LiveGame) -> None:
        """Tell every stream of ``live`` that the game has moved on (never waits)."""
        for sub in live.subscribers:
            sub.wake.set()

    def close_all(self, games: Iterable[LiveGame], error: RefereeError) -> None:
        """End every open stream with ``error``, and every stream opened from now on
        (shutdown: clients resume elsewhere or later)."""
        self.closed = error
        for live in games:
            for sub in live.subscribers:
                sub.closing = error
                sub.wake.set()

    def end(self, games: Iterable[LiveGame], credential: str, error: RefereeError) -> None:
        """End every open stream opened with the account token whose hash is ``credential``
        (it was revoked), with ``error``, and refuse it to streams opening from now on (one
        may be on its way, past its credential's check, not yet listed: a revoked token
        never signs in again, so remembering it is never wrong)."""
        self.revoked[credential] = error
        while len(self.revoked) > MAX_REVOKED:
            self.revoked.popitem(last=False)
        for live in games:
            for sub in live.subscribers:
                if sub.credential == credential:
                    sub.closing = error
                    sub.wake.set()

    def check_room(self) -> None:
        if self.closed is not None:
            raise self.closed
        if self.streams >= self.max_streams:
            raise errors.exhausted("streams", self.max_streams)

    def _check(self, sub: Subscriber, sent: int, visible: int) -> None:
        """End the stream (:class:`StreamEnded`) if the referee closes it or it is more than
        ``backlog`` events behind what its viewer may see (``visible``)."""
        if sub.closing is not None:
            raise StreamEnded(sub.closing)
        if visible - max(sent, sub.opened) > self.backlog:
            raise StreamEnded(
                errors.exhausted("stream buffer", self.backlog, last_sequence=str(sent))
            )

    async def serve(self, updates: Updates, send: Send) -> None:
        """Run a stream (:meth:`follow`) into ``send``; returns when the game is finished,
        raises the :class:`RefereeError` the stream ends with."""
        try:
            # Closed by ``finally`` rather than ``aclosing``: an open stream would hold the
            # block's object and its bound exit for its whole life.
            async for update, caught_up in updates:
                await send(update, caught_up)
                del update  # an idle stream holds no message it sent (a seat's deal
                # openings are 3.7 KB in Vampire Queen)
        except StreamEnded as ended:
            raise ended.error from None
        finally:
            await updates.aclose()

    async def follow(
        self,
        live: LiveGame,
        watcher: Watcher,
        after: int,
        batched: bool,
        on_hang_up: Callable[[], None],
        credential: str = "",
    ) -> Updates:
        """First the current view, then every event after ``after`` with the view after it,
        then live events; returns after the final event of a finished game (the seed reveal
        included). Each update comes with ``caught_up`` (see :data:`Send`). The organiser's
        stream runs behind by the game's organiser delay. ``on_hang_up`` is called when a
        seat's stream is closed by its client mid-game. A stream the referee ends raises
        :class:`StreamEnded`.
        ``credential``: the hash of the account token it was opened with (:meth:`end`)."""
        viewer = watcher.viewer
        delayed = watcher.organiser and live.settings.delayed
        # No closures here (what the viewer sees, the stream's checks): an open stream
        # holds its generator's frame, and each closure with it, for its whole life.
        self.check_room()
        if credential in self.revoked:
            raise self.revoked[credential]
        opened = _visible(live, delayed)
        if after > opened:
            raise errors.bad_request("after_sequence", f"the game has only {opened} events")
        seat = None if watcher.organiser else viewer
        sub = Subscriber(
            seat=seat,
            opened=opened,
            credential=credential,
            viewer=viewer,
            plain=not batched,
            sent=after,
            delayed=delayed,
        )
        live.subscribe(sub)
        self.streams += 1
        self.metrics.streams_open.set(self.streams)
        table = live.table
        players = live.record.players
        try:
            yield Update((), live.view_at(viewer, opened)), after >= opened
            # A private replica follows the log while the stream is behind, so each event (or
            # batch) comes with the view after it; one that keeps up holds none (a table copy
            # per open stream would be most of its memory): a batched stream sends the live
            # view, a plain one the views inside a batch that the game makes for all its
            # plain streams (LiveGame.past_view).
            replica: Table[Any] | None = None
            sent = after
            while True:
                sub.wake.clear()
                target = _visible(live, delayed)
                while batched and sent < target:
                    self._check(sub, sent, _visible(live, delayed))
                    start, end = sent, min(live.batch_ends[sent], target)
                    # Behind: the view after this batch is a past one. The game made it when
                    # the next batch came if the stream had taken the one before; else the
                    # stream's own copy of the table follows the log.
                    update = live.carried(viewer, start) if end < table.version else None
                    if update is None:
                        if end < table.version:
                            if replica is None or replica.version != start:
                                replica = Table.replay(
                                    table.config, table.log[:start], table.settings
                                )
                            replica.extend(table.log[start:end])
                        update = live.batch_update(viewer, start, end, replica)
                    sent = sub.sent = end
                    yield update, start < opened <= end
                    # Dropped once sent: an idle stream's frame would keep the last batch it
                    # sent (a seat's deal openings) for as long as it waits.
                    del update
                while sent < target:
                    self._check(sub, sent, _visible(live, delayed))
                    index = sent
                    sent = sub.sent = sent + 1
                    seen: SeatView | None
                    if sent == table.version:  # the current view: with the clocks
                        replica = None
                        seen = live.view(viewer)
                    else:
                        # Past the history the stream opened with (which it replays with
                        # its own copy), the game's views; its own copy if it missed them.
                        live_event = replica is None and sent > opened
                        seen = live.past_view(viewer, sent) if live_event else None
                        if seen is None:
                            if replica is None:
                                replica = Table.replay(
                                    table.config, table.log[:index], table.settings
                                )
                            replica.extend((table.log[index],))
                            holders = live.view_holders()
                            seen = SeatView(
                                live.game_id, players, replica.view(viewer), holders=holders
                            )
                    yield Update((live.stamped(index, viewer),), seen), sent == opened
                if sent >= table.version:
                    replica = None  # caught up: the views of later batches are the game's
                if live.finished and sent >= table.version:
                    return
                self._check(sub, sent, _visible(live, delayed))
                if delayed and sent < table.version and live.settings.organiser_delay_ms:
                    # Wake up when the next batch is old enough to be shown.
                    due = live.recorded_ms[sent] + live.settings.organiser_delay_ms - now_ms()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(sub.wake.wait(), max(0.005, due / 1000))
                else:
                    await sub.wake.wait()
        except (GeneratorExit, asyncio.CancelledError):
            mid_game = not live.over and sub.closing is None  # not ended by a shutdown
            if viewer is not None and not watcher.organiser and mid_game:
                on_hang_up()  # the seat's client hung up mid-game
            raise
        finally:
            live.unsubscribe(sub)
            self.streams -= 1
            self.metrics.streams_open.set(self.streams)


def _visible(live: LiveGame, delayed: bool) -> int:
    """The game's version a stream may show: the organiser's runs behind by the delay."""
    return live.visible_version(now_ms()) if delayed else live.table.version


__all__ = ["FanOut", "Send", "StreamEnded", "Subscriber", "Updates"]
