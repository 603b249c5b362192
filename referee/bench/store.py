"""P5: the SQLite event store against raw SQLite, and cold-start recovery.

* Durable appends/s of :class:`SqliteEventStore` (one command: one event plus its command
  outcome, in one transaction, as the server appends) divided by raw single-row inserts into
  a WAL database, each its own transaction, with the same ``synchronous`` setting, measured
  alternately in the same run.
* Group commit: appends from 32 games at once as the server makes them (each game's next
  append as soon as its last one is answered, all awaited on one event loop through
  ``append_soon``, so the store's writer commits the ones that arrive together in one
  transaction), per second, divided by the same raw single-row inserts; with the appends' p50
  and p99 latency (from the call to its answer) and the mean group.
* Cold start: a database holding finished and running games (real event logs from random
  play); the time for a new referee to list them (server ready) and to replay every running game.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import os
import random
import sqlite3
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from referee.application import Limits, Referee
from referee.application.tables.access import hash_token
from referee.engine.table import Table
from referee.metrics import Metrics
from referee.store import CommandOutcome, EventStore, GameRecord, SqliteEventStore
from referee.store.sqlite import _SCHEMA, Synchronous
from referee.stored import encode_batch, encode_deal

#: A typical event payload: a serialized SetPlayed with its sequence numbers (about 20 bytes).
PAYLOAD = bytes(range(24))


def _record(game_id: str, players: int = 4, game_type: str = "vampire-queen") -> GameRecord:
    return GameRecord(
        game_id=game_id,
        game_type=game_type,
        players=players,
        options={"hunter_queen": "1", "hunter_tie": "first", "rounds": "5"},
        seed=os.urandom(32),
        deal=b"",
        seat_token_hashes=tuple(hash_token(str(s)) for s in range(players)),
        created_at=time.time(),
    )


def store_appends(path: Path, count: int, seconds: float, synchronous: Synchronous) -> float:
    """Appends per second through the store: ``count`` appends or ``seconds``, whichever first."""
    with SqliteEventStore(path, synchronous=synchronous) as store:
        games = [uuid.uuid4().hex[:16] for _ in range(8)]
        for game_id in games:
            store.create_game(_record(game_id), [PAYLOAD])
        fingerprint = hashlib.sha256(PAYLOAD).hexdigest()
        # The commands are made up front: only the store is timed.
        planned = []
        for index in range(count):
            version = 1 + index // len(games)
            outcome = CommandOutcome(str(uuid.uuid4()), 0, fingerprint, version + 1, version + 1)
            planned.append((games[index % len(games)], version, outcome))
        payloads = [PAYLOAD]
        done = 0
        started = time.perf_counter()
        deadline = started + seconds
        for game_id, version, outcome in planned:
            store.append(game_id, version, payloads, outcome)
            done += 1
            if time.perf_counter() > deadline:
                break
        return done / (time.perf_counter() - started)


def raw_same_writes(path: Path, count: int, seconds: float, synchronous: Synchronous) -> float:
    """The store's three writes per append (event row, command row, version) straight through
    ``sqlite3`` in one transaction each, the version check folded into the UPDATE: what the
    store's schema costs SQLite, without the store's Python around it."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {synchronous}")
        conn.execute("PRAGMA foreign_keys = ON")
        for statement in _SCHEMA:
            conn.execute(statement)
        conn.execute(
            "INSERT INTO games (game_id, game_type, players, options, seed, deal, token_hashes,"
            " created_at, version) VALUES ('g', 'vampire-queen', 4, '{}', x'00', x'', '[]', 0, 0)"
        )
        fingerprint = hashlib.sha256(PAYLOAD).hexdigest()
        ids = [str(uuid.uuid4()) for _ in range(count)]
        done = 0
        started = time.perf_counter()
        deadline = started + seconds
        for sequence, command_id in enumerate(ids, 1):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "UPDATE games SET version = ? WHERE game_id = 'g' AND version = ?",
                (sequence, sequence - 1),
            )
            conn.execute(
                "INSERT INTO commands (game_id, command_id, seat, fingerprint, first_sequence,"
                " last_sequence) VALUES ('g', ?, 0, ?, ?, ?)",
                (command_id, fingerprint, sequence, sequence),
            )
            conn.execute(
                "INSERT INTO events (game_id, sequence, payload) VALUES ('g', ?, ?)",
                (sequence, PAYLOAD),
            )
            conn.execute("COMMIT")
            done += 1
            if time.perf_counter() > deadline:
                break
        return done / (time.perf_counter() - started)
    finally:
        conn.close()


def raw_inserts(path: Path, count: int, seconds: float, synchronous: Synchronous) -> float:
    """Single-row inserts per second into a WAL database, one transaction each."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {synchronous}")
        conn.execute("CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY, payload BLOB)")
        row = (PAYLOAD,)
        done = 0
        started = time.perf_counter()
        deadline = started + seconds
        while done < count and time.perf_counter() < deadline:
            conn.execute("INSERT INTO log (payload) VALUES (?)", row)
            done += 1
        return done / (time.perf_counter() - started)
    finally:
        conn.close()


#: Games appending at once in the group-commit figure.
GAMES_AT_ONCE = 32


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def games_at_once(store: EventStore, count: int, seconds: float) -> dict[str, float]:
    """:data:`GAMES_AT_ONCE` games appending at once through ``store.append_soon``, each its
    next command (one event and its outcome) as soon as the last is answered, awaited on one
    event loop as the server's games are: ``count`` appends or ``seconds``, whichever first.
    """
    games = [uuid.uuid4().hex[:16] for _ in range(GAMES_AT_ONCE)]
    for game_id in games:
        store.create_game(_record(game_id), [PAYLOAD])
    fingerprint = hashlib.sha256(PAYLOAD).hexdigest()
    ids = [str(uuid.uuid4()) for _ in range(count)]  # made up front: only the store is timed
    latencies: list[float] = []
    writer = getattr(store, "_writer", None)  # the store's GroupWriter: how many commits
    groups_before = writer.groups if writer is not None else 0

    async def play(game_id: str, deadline: float) -> None:
        version = 1
        while ids and time.perf_counter() < deadline:
            outcome = CommandOutcome(ids.pop(), 0, fingerprint, version + 1, version + 1)
            sent = time.perf_counter()
            future = store.append_soon(game_id, version, [PAYLOAD], outcome)
            version = await asyncio.wrap_future(future)
            latencies.append(time.perf_counter() - sent)

    async def main() -> float:
        started = time.perf_counter()
        await asyncio.gather(*(play(game_id, started + seconds) for game_id in games))
        return time.perf_counter() - started

    elapsed = asyncio.run(main())
    groups = (writer.groups - groups_before) if writer is not None else 0
    return {
        "appends_per_second": len(latencies) / elapsed,
        "p50_ms": _quantile(latencies, 0.5) * 1000,
        "p99_ms": _quantile(latencies, 0.99) * 1000,
        "mean_group": len(latencies) / groups if groups else float("nan"),
    }


def grouped_sqlite(
    path: Path, count: int, seconds: float, synchronous: Synchronous
) -> dict[str, float]:
    with SqliteEventStore(path, synchronous=synchronous) as store:
        return games_at_once(store, count, seconds)


def appends(quick: bool, folder: Path) -> dict[str, Any]:
    """Alternate store and raw runs; the ratio is the median of each round's ratio."""
    rounds = 2 if quick else 5
    count = 300 if quick else 50_000
    seconds = 0.2 if quick else 1.5
    modes: list[Synchronous] = ["NORMAL", "FULL"]
    result: dict[str, Any] = {}
    for mode in modes:
        store_rates, raw_rates, same_rates, ratios, same_ratios = [], [], [], [], []
        grouped: list[dict[str, float]] = []
        grouped_ratios = []
        for index in range(rounds):
            grouped.append(
                grouped_sqlite(folder / f"group-{mode}-{index}.db", count, seconds, mode)
            )
            rate_store = store_appends(folder / f"store-{mode}-{index}.db", count, seconds, mode)
            rate_raw = raw_inserts(folder / f"raw-{mode}-{index}.db", count, seconds, mode)
            rate_same = raw_same_writes(folder / f"same-{mode}-{index}.db", count, seconds, mode)
            store_rates.append(rate_store)
            raw_rates.append(rate_raw)
            same_rates.append(rate_same)
            ratios.append(rate_store / rate_raw)
            same_ratios.append(rate_same / rate_raw)
            grouped_ratios.append(grouped[-1]["appends_per_second"] / rate_raw)
        result[mode.lower()] = {
            "synchronous": mode,
            "store_appends_per_second": statistics.median(store_rates),
            "raw_inserts_per_second": statistics.median(raw_rates),
            "raw_same_writes_per_second": statistics.median(same_rates),
            "ratio": statistics.median(ratios),
            "raw_same_writes_ratio": statistics.median(same_ratios),
            "rounds": rounds,
            "games_at_once": GAMES_AT_ONCE,
            "grouped_appends_per_second": statistics.median(
                g["appends_per_second"] for g in grouped
            ),
            "grouped_ratio": statistics.median(grouped_ratios),
            "grouped_p50_ms": statistics.median(g["p50_ms"] for g in grouped),
            "grouped_p99_ms": statistics.median(g["p99_ms"] for g in grouped),
            "grouped_mean_group": statistics.median(g["mean_group"] for g in grouped),
        }
    return result


# --- cold start ---------------------------------------------------------------------------------


def _logs(distinct: int, players: int) -> list[tuple[Any, list[bytes]]]:
    """``distinct`` finished random games: (config, encoded events) each."""
    logs = []
    for seed in range(distinct):
        rng = random.Random(seed)
        table = Table.create("vampire-queen", players=players, seed=str(seed).encode())
        batches: list[list[Any]] = [list(table.log)]
        while table.pending():
            seat = table.pending()[0]
            batches.append(table.submit(seat, rng.choice(table.legal_commands(seat))))
        payloads: list[bytes] = []
        for batch in batches:
            payloads += encode_batch("vampire-queen", batch, len(payloads) + 1)
        logs.append((table.config, payloads))
    return logs


def build_database(path: Path, games: int, players: int = 4) -> dict[str, int]:
    """Half finished games, half running ones (stopped halfway through their log)."""
    logs = _logs(min(games, 16), players)
    events = 0
    with SqliteEventStore(path) as store:
        for index in range(games):
            config, payloads = logs[index % len(logs)]
            finished = index % 2 == 0
            kept = payloads if finished else payloads[: len(payloads) // 2]
            record = dataclasses.replace(
                _record(f"g{index:08d}", players),
                seed=config.seed,
                deal=encode_deal(config.deal),
            )
            store.create_game(record, kept)
            if finished:
                store.set_finished(record.game_id)
            events += len(kept)
    return {"games": games, "finished": (games + 1) // 2, "running": games // 2, "events": events}


async def _recover(path: Path) -> dict[str, float]:
    started = time.perf_counter()
    referee = Referee(SqliteEventStore(path), Metrics(), Limits(max_games=10**9))
    try:
        listed = await referee.recover()
        ready = time.perf_counter()
        running = [
            record.game_id for record, _, finished in referee.store.list_games() if not finished
        ]
        for game_id in running:
            await referee.summary(game_id)  # loads and replays it
        loaded = time.perf_counter()
    finally:
        referee.close()
    return {
        "games_listed": listed,
        "ready_seconds": ready - started,
        "replay_running_seconds": loaded - ready,
        "total_seconds": loaded - started,
        "replay_per_game_ms": (loaded - ready) * 1000 / max(1, len(running)),
    }


def recovery(quick: bool, folder: Path, games: int | None = None) -> dict[str, Any]:
    size = games or (20 if quick else 10_000)
    path = folder / "recovery.db"
    started = time.perf_counter()
    built = build_database(path, size)
    built_seconds = time.perf_counter() - started
    timing = asyncio.run(_recover(path))
    return {**built, "build_seconds": built_seconds, **timing}


def run(quick: bool, recovery_games: int | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="referee-bench-store-") as tmp:
        folder = Path(tmp)
        return {
            "appends": appends(quick, folder),
            "recovery": recovery(quick, folder, recovery_games),
        }
