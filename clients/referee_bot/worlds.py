"""Worlds for bots over the wire: the seat's knowledge rebuilt from its stream, and the
library's sampler on it (:mod:`referee.search.worlds`).

A search bot (ISMCTS, PIMC) needs complete states its seat cannot tell from the real one.
Everything the sampler needs is what the seat's stream carried: its redacted events (every
``StreamGameResponse.event``, or ``.events`` of a batched stream, or ``GameUpdate.events`` of
the player stream) and its latest view; plus the public setup (the game's type, seat count
and options, from ``GetGame`` or the ``GameSummary``). :class:`SeatKnowledge` collects them
message by message; :meth:`SeatKnowledge.sample` returns a :class:`~referee.search.worlds.World`
whose ``table()`` a bot can search on in-process::

    known = SeatKnowledge(options=summary.options)
    for message in stub.StreamGame(request):
        known.feed(message)
        if known.view is not None and seat in known.view.pending:
            world = known.sample(seed=random.getrandbits(64))
            ...  # search world.table(), submit the chosen command
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from referee.codec import event_from_proto, view_from_proto
from referee.engine.table import View
from referee.search.worlds import Knowledge, World, sample_world
from referee.v1 import referee_pb2


class SeatKnowledge:
    """What one seat received over its stream, as the library's :class:`Knowledge`."""

    def __init__(
        self, options: Mapping[str, str] | None = None, players: int | None = None
    ) -> None:
        self.options = dict(options or {})
        self.players = players
        self.events: list[Any] = []
        self.view: View | None = None
        self._last = 0  # the last event's sequence number (a resumed stream sends no repeat)

    def feed(self, message: Any) -> None:
        """Take one message: a ``StreamGameResponse`` (one event, or a batch of them) or a
        ``GameUpdate`` of the player stream, with the view after it."""
        if isinstance(message, referee_pb2.StreamGameResponse):
            events = list(message.events) or ([message.event] if message.HasField("event") else [])
        else:
            events = list(message.events)
        for event in events:
            if event.sequence <= self._last:
                continue
            self.events.append(event_from_proto(event))
            self._last = event.sequence
        if message.HasField("view"):
            if self.players is None:
                self.players = message.view.players
            self.view = view_from_proto(message.view)

    def knowledge(self) -> Knowledge:
        """The seat's knowledge as of the last message fed."""
        view = self.view
        if view is None or view.viewer is None or self.players is None:
            raise ValueError("no seat view received yet")
        return Knowledge(
            view.game_type, self.players, self.options, view.viewer, tuple(self.events), view
        )

    def sample(self, seed: bytes | int | str, *, check: bool = False) -> World:
        """A world the seat could be in (seeded), from what it received only."""
        return sample_world(self.knowledge(), seed, check=check)


def knowledge_from_stream(
    messages: Iterable[Any], options: Mapping[str, str] | None = None
) -> Knowledge:
    """The knowledge of the seat whose stream ``messages`` are (see :meth:`SeatKnowledge.feed`)."""
    known = SeatKnowledge(options)
    for message in messages:
        known.feed(message)
    return known.knowledge()
