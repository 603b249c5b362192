"""Fan-out: every open stream of every live game, and what each one sends next.

A stream is a :class:`Subscriber` of one game: a bounded queue the referee pokes after each
committed batch (:meth:`FanOut.publish`, which never waits), and a generator
(:meth:`FanOut.stream`) that sends its viewer the events it has not sent yet, redacted, each
with the view after it, or one update per batch when batched. A stream that falls a whole
buffer behind, or that the referee closes (shutdown), ends with the :class:`StreamEnded`
error; the client resumes from the last sequence it saw, exactly.

Batched streams of one viewer that keep up share one :class:`~referee.application.values.Update`
per batch (:meth:`LiveGame.batch_update`); the events inside it are shared by every viewer who
sees them alike. The plain form follows the log on a private replica so each event comes with
the view right after it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable, Iterable
from typing import Any

from referee.application import errors
from referee.application.errors import RefereeError
from referee.application.live import LiveGame, now_ms
from referee.application.subscriber import Subscriber
from referee.application.values import SeatView, Update, Watcher
from referee.engine.table import Table
from referee.metrics import Metrics


class StreamEnded(Exception):
    """Ends one stream with an error (overflow, shutdown)."""

    def __init__(self, error: RefereeError) -> None:
        super().__init__(str(error))
        self.error = error


class FanOut:
    """The open streams (at most ``max_streams``, each buffering ``buffer`` batches)."""

    def __init__(self, metrics: Metrics, max_streams: int, buffer: int) -> None:
        self.metrics = metrics
        self.max_streams = max_streams
        self.buffer = buffer
        #: How many streams are open now.
        self.streams = 0

    def publish(self, live: LiveGame) -> None:
        """Tell every stream of ``live`` that the game has moved on (never waits)."""
        version = live.table.version
        for sub in live.subscribers:
            try:
                sub.queue.put_nowait(version)
            except asyncio.QueueFull:
                sub.overflowed = True  # the stream ends; the client resumes later

    def close_all(self, games: Iterable[LiveGame], error: RefereeError) -> None:
        """End every open stream with ``error`` (shutdown: clients resume elsewhere/later)."""
        for live in games:
            for sub in live.subscribers:
                sub.closing = error
                with contextlib.suppress(asyncio.QueueFull):
                    sub.queue.put_nowait(-1)

    def check_room(self) -> None:
        if self.streams >= self.max_streams:
            raise errors.exhausted("streams", self.max_streams)

    async def stream(
        self,
        live: LiveGame,
        watcher: Watcher,
        after: int,
        batched: bool,
        on_hang_up: Callable[[], None],
    ) -> AsyncGenerator[Update, None]:
        """First the current view, then every event after ``after`` with the view after it,
        then live events; returns after the final event of a finished game (the seed reveal
        included). The organiser's stream runs behind by the game's organiser delay.
        ``on_hang_up`` is called when a seat's stream is closed by its client mid-game."""
        viewer = watcher.viewer
        delayed = watcher.organiser and live.settings.delayed

        def visible() -> int:
            return live.visible_version(now_ms()) if delayed else live.table.version

        self.check_room()
        if after > visible():
            raise errors.bad_request("after_sequence", f"the game has only {visible()} events")
        seat = None if watcher.organiser else viewer
        sub = Subscriber(asyncio.Queue(self.buffer), seat=seat)
        live.subscribers.add(sub)
        self.streams += 1
        self.metrics.streams_open.set(self.streams)
        table = live.table
        players = live.record.players
        try:
            yield Update((), live.view_at(viewer, visible()))
            # A private replica follows the log so each event comes with the view after it;
            # a batched stream that keeps up never needs one (it sends the live view).
            replica: Table[Any] | None = None
            if not batched:
                replica = Table.replay(table.config, table.log[:after], table.settings)
            sent = after
            while True:
                target = visible()
                while batched and sent < target:
                    end = min(live.batch_ends[sent], target)
                    if end < table.version:  # behind: the view after this batch is a past one
                        if replica is None or replica.version != sent:
                            replica = Table.replay(table.config, table.log[:sent], table.settings)
                        replica.extend(table.log[sent:end])
                    update = live.batch_update(viewer, sent, end, replica)
                    sent = end
                    yield update
                while sent < target:
                    assert replica is not None
                    replica.extend((table.log[sent],))
                    sent += 1
                    if sent == table.version:  # the current view: with the clocks
                        seen = live.view(viewer)
                    else:
                        seen = SeatView(live.game_id, players, replica.view(viewer))
                    yield Update((live.stamped(sent - 1, viewer),), seen)
                if live.finished and sent >= table.version:
                    return
                if sub.closing is not None:
                    raise StreamEnded(sub.closing)
                if sub.overflowed:
                    raise StreamEnded(
                        errors.exhausted("stream buffer", self.buffer, last_sequence=str(sent))
                    )
                if delayed and sent < table.version and live.settings.organiser_delay_ms:
                    # Wake up when the next batch is old enough to be shown.
                    due = live.recorded_ms[sent] + live.settings.organiser_delay_ms - now_ms()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(sub.queue.get(), max(0.005, due / 1000))
                else:
                    await sub.queue.get()
        except (GeneratorExit, asyncio.CancelledError):
            mid_game = not live.over and sub.closing is None  # not ended by a shutdown
            if viewer is not None and not watcher.organiser and mid_game:
                on_hang_up()  # the seat's client hung up mid-game
            raise
        finally:
            live.subscribers.discard(sub)
            self.streams -= 1
            self.metrics.streams_open.set(self.streams)


__all__ = ["FanOut", "StreamEnded", "Subscriber"]
