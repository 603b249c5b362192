"""The terminal display: a progress bar with the live standings, or one line per game."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from referee_tournament.config import TournamentConfig
from referee_tournament.ratings import standings
from referee_tournament.records import GameRecord
from referee_tournament.report import standings_text


def bar(done: int, total: int, width: int = 30) -> str:
    """``[#######-------]  7/14``.

    >>> bar(1, 4, 8)
    '[##------] 1/4'
    """
    filled = round(width * done / total) if total else width
    return f"[{'#' * filled}{'-' * (width - filled)}] {done:>{len(str(total))}}/{total}"


def game_line(record: GameRecord) -> str:
    """One finished game: ``#3 vampire-queen deal 0: a 1, b 3, c 2 (ok, 1.2 s)``."""
    spec = record.spec
    seats = ", ".join(f"{s.bot} {s.rank}" for s in sorted(record.seats, key=lambda s: s.seat))
    faults = "; ".join(f"{f.bot} {f.kind}" for f in record.faults)
    where = f"round {spec.round} " if spec.round else ""
    return (
        f"#{spec.index} {spec.game} {where}deal {spec.deal}: {seats or record.detail[:60]} "
        f"({record.status}{', ' + faults if faults else ''}, {record.seconds:.1f} s)"
    )


class Progress:
    """On a terminal: a bar and the standings, redrawn in place (at most every ``every``
    seconds, and after the last game); otherwise one line per finished game."""

    def __init__(
        self,
        config: TournamentConfig,
        stream: TextIO | None = None,
        *,
        live: bool | None = None,
        every: float = 0.5,
    ) -> None:
        self.config = config
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.every = every
        self.drawn = 0
        self.last = 0.0
        self.started = time.monotonic()

    def __call__(
        self, record: GameRecord, done: int, total: int, records: Sequence[GameRecord]
    ) -> None:
        if not self.live:
            print(f"[{done}/{total}] {game_line(record)}", file=self.stream, flush=True)
            return
        now = time.monotonic()
        if done < total and now - self.last < self.every:
            return
        self.last = now
        rate = done / max(1e-9, now - self.started)
        table = standings_text([s.to_json() for s in standings(self.config.bot_names, records)])
        width = shutil.get_terminal_size().columns
        lines = [f"{bar(done, total)}  {rate:.1f} games/s", *table.splitlines()]
        lines = [line[:width] for line in lines]
        if self.drawn:
            self.stream.write(f"\x1b[{self.drawn}F\x1b[J")
        self.stream.write("\n".join(lines) + "\n")
        self.stream.flush()
        self.drawn = len(lines)
