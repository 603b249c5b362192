"""An in-memory event store: for tests, demos and throw-away servers (lost on exit)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from referee.store.base import (
    CommandOutcome,
    DuplicateCommand,
    EventStore,
    GameExists,
    GameNotFound,
    GameRecord,
    StoredEvent,
    VersionConflict,
    check_limit,
    check_outcome,
)

__all__ = ["MemoryEventStore"]


@dataclass(slots=True)
class _Game:
    record: GameRecord
    events: list[bytes]
    commands: dict[str, CommandOutcome] = field(default_factory=dict)
    finished: bool = False
    stats: dict[int, dict[str, int]] = field(default_factory=dict)


def _copy(record: GameRecord) -> GameRecord:
    """A record with its own ``options`` and ``settings``, so callers cannot change stored data
    by aliasing."""
    return dataclasses.replace(record, options=dict(record.options), settings=dict(record.settings))


class MemoryEventStore(EventStore):
    """Dicts behind one :class:`threading.Lock`; every method is atomic.

    Each write checks everything before changing anything, which makes it all-or-nothing
    without a rollback. Listeners run after the lock is released.
    """

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._games: dict[str, _Game] = {}  # insertion order = creation order
        self._closed = False

    def _game(self, game_id: str) -> _Game:
        """The game, with the lock held; also the closed check every method needs."""
        if self._closed:
            raise RuntimeError("event store is closed")
        try:
            return self._games[game_id]
        except KeyError:
            raise GameNotFound(game_id) from None

    def create_game(self, record: GameRecord, events: Sequence[bytes]) -> None:
        payloads = [bytes(event) for event in events]
        with self._lock:
            if self._closed:
                raise RuntimeError("event store is closed")
            if record.game_id in self._games:
                raise GameExists(record.game_id)
            self._games[record.game_id] = _Game(_copy(record), payloads)
        self._notify(record.game_id, len(payloads))

    def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        outcome: CommandOutcome | None = None,
    ) -> int:
        payloads = [bytes(event) for event in events]
        check_outcome(expected_version, len(payloads), outcome)
        with self._lock:
            game = self._game(game_id)
            first = None if outcome is None else game.commands.get(outcome.command_id)
            if first is not None:
                raise DuplicateCommand(game_id, first)
            if len(game.events) != expected_version:
                raise VersionConflict(game_id, expected_version, len(game.events))
            game.events.extend(payloads)
            if outcome is not None:
                game.commands[outcome.command_id] = outcome
            version = len(game.events)
        self._notify(game_id, version)
        return version

    def set_finished(self, game_id: str, finished: bool = True) -> None:
        with self._lock:
            self._game(game_id).finished = finished

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        check_limit(limit)
        with self._lock:
            events = self._game(game_id).events
            start = max(after, 0)
            stop = len(events) if limit is None else start + limit
            return [
                StoredEvent(game_id, sequence, payload)
                for sequence, payload in enumerate(events[start:stop], start + 1)
            ]

    def version(self, game_id: str) -> int:
        with self._lock:
            return len(self._game(game_id).events)

    def get_game(self, game_id: str) -> GameRecord:
        with self._lock:
            return _copy(self._game(game_id).record)

    def list_games(self) -> list[tuple[GameRecord, int, bool]]:
        with self._lock:
            if self._closed:
                raise RuntimeError("event store is closed")
            games = [(_copy(g.record), len(g.events), g.finished) for g in self._games.values()]
        # sorted() is stable: games created at the same time keep their creation order.
        return sorted(games, key=lambda game: game[0].created_at)

    def find_command(self, game_id: str, command_id: str) -> CommandOutcome | None:
        with self._lock:
            return self._game(game_id).commands.get(command_id)

    def commands(self, game_id: str) -> list[CommandOutcome]:
        with self._lock:
            recorded = list(self._game(game_id).commands.values())
        return sorted(recorded, key=lambda outcome: outcome.first_sequence)

    def add_stats(self, game_id: str, seat: int, counts: Mapping[str, int]) -> None:
        with self._lock:
            counters = self._game(game_id).stats.setdefault(seat, {})
            for name, amount in counts.items():
                counters[name] = counters.get(name, 0) + amount

    def stats(self, game_id: str) -> dict[int, dict[str, int]]:
        with self._lock:
            return {seat: dict(c) for seat, c in self._game(game_id).stats.items()}

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._games.clear()
