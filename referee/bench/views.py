"""Micro-benchmark of the per-command work of the server around the engine.

After every accepted command the server builds each seat's view (``Table.view`` then
``codec.view_to_proto``) and the new events as each viewer may see them (``Table.redact`` then
``codec.event_to_proto(..., describe=True)``; the application layer encodes an event once per
distinct redaction, the older hub once per viewer). This times both paths over random games of
every registered game type, on refereed tables with card commitments (what the server makes),
and reports CPU microseconds per seat view (the table's view and its message) and per event
per viewer (redaction and message). The viewers are every seat and the spectator (``None``).
With ``--distinct`` an event is encoded once per distinct redaction, as the application's
live game does, and its message shared by the viewers who see it alike (the per-viewer figure
then counts a redaction for every viewer, an encoding for every distinct one). The medians of
``--rounds`` rounds are printed.

It imports only what every version of the package has, so the same file measures an older
checkout side by side, both at once on a 2-core machine::

    cp referee/bench/views.py /tmp/views.py
    PYTHONPATH=/path/to/old/checkout .venv/bin/python /tmp/views.py &
    .venv/bin/python /tmp/views.py      # or: .venv/bin/python -m referee.bench.views

Nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Any

from referee import codec
from referee.engine.registry import all_games
from referee.engine.table import Table
from referee.engine.table_events import TableSettings

GAME_ID = "bench"


def play(
    game_type: str, players: int, seed: int, *, serialize: bool = False, distinct: bool = False
) -> dict[str, float]:
    """One random game (the same ``seed``, the same game): CPU seconds in views and events."""
    rng = random.Random(seed)
    table = Table.create(
        game_type,
        players=players,
        seed=str(seed).encode(),
        settings=TableSettings(card_commitments=True),
        salt=b"s" * 32,
    )
    viewers: list[Any] = [*range(players), None]
    clock = time.process_time
    view_s = event_s = 0.0
    views = events = 0
    seen = 0
    while True:
        # The events of the last batch, for every viewer (the streams and the response).
        started = clock()
        for index in range(seen, table.version):
            event = table.log[index]
            encoded: dict[Any, Any] = {}
            for viewer in viewers:
                redacted = table.redact(event, viewer)
                if distinct and redacted in encoded:
                    continue
                message = codec.event_to_proto(game_type, redacted, index + 1, describe=True)
                if serialize:
                    message.SerializeToString()
                if distinct:
                    encoded[redacted] = message
        event_s += clock() - started
        events += (table.version - seen) * len(viewers)
        seen = table.version
        # Every viewer's view after it.
        started = clock()
        for viewer in viewers:
            view = codec.view_to_proto(GAME_ID, players, table.view(viewer))
            if serialize:
                view.SerializeToString()
        view_s += clock() - started
        views += len(viewers)
        pending = table.pending()
        if not pending:
            break
        seat = pending[0] if len(pending) == 1 else rng.choice(pending)
        table.submit(seat, rng.choice(table.legal_commands(seat)))
    return {"view_s": view_s, "views": views, "event_s": event_s, "events": events}


def measure(game_type: str, players: int, games: int, first_seed: int, **kw: Any) -> dict[str, Any]:
    total = {"view_s": 0.0, "views": 0, "event_s": 0.0, "events": 0}
    for seed in range(first_seed, first_seed + games):
        for key, value in play(game_type, players, seed, **kw).items():
            total[key] += value
    return {
        "game": game_type,
        "players": players,
        "us_per_view": 1e6 * total["view_s"] / max(1, total["views"]),
        "us_per_event": 1e6 * total["event_s"] / max(1, total["events"]),
        "views": total["views"],
        "events": total["events"],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="random games per round and type")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (the median is reported)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--only", help="one game type")
    parser.add_argument("--serialize", action="store_true", help="also SerializeToString")
    parser.add_argument(
        "--distinct", action="store_true", help="encode an event once per distinct redaction"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    types = [g.info for g in all_games() if not args.only or g.info.type_id == args.only]
    runs: dict[str, list[dict[str, Any]]] = {info.type_id: [] for info in types}
    for round_ in range(args.rounds):
        for info in types:
            players = min(max(args.players, info.min_players), info.max_players)
            runs[info.type_id].append(
                measure(
                    info.type_id,
                    players,
                    args.games,
                    1000 * round_,
                    serialize=args.serialize,
                    distinct=args.distinct,
                )
            )
    rows = []
    for type_id, found in runs.items():
        rows.append(
            {
                "game": type_id,
                "players": found[0]["players"],
                "us_per_view": statistics.median(r["us_per_view"] for r in found),
                "us_per_event": statistics.median(r["us_per_event"] for r in found),
                "views": found[0]["views"],
                "events": found[0]["events"],
            }
        )
    if args.json:
        json.dump(rows, sys.stdout)
        print()
        return
    for row in rows:
        print(
            f"{row['game']:24} {row['players']:2}p  view {row['us_per_view']:7.1f} us"
            f"  event {row['us_per_event']:6.1f} us  ({row['views']} views,"
            f" {row['events']} events per round)"
        )


if __name__ == "__main__":
    main()
