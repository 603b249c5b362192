"""P4's memory breakdown: where a live game's and an open stream's bytes go.

The traced server is :mod:`referee.bench.traced_serve` (a module of its own because it
imports the command line, which imports the bench: nothing imports it, so no circle).

:func:`breakdown` compares two snapshots (by line, and by file) and divides each difference
by the number of games or streams added between them: the top allocators per game and per
stream. tracemalloc sees only what Python's allocators hand out: gRPC's C core allocates with
``malloc`` and is not in it, so RSS growth minus traced growth is, to a first approximation,
grpc's own C-side cost (plus allocator slack).
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

#: Frames kept per allocation: one is enough for "by line"; a few more give the caller.
FRAMES = 1


def _ignored() -> list[tracemalloc.Filter]:
    return [
        tracemalloc.Filter(False, tracemalloc.__file__),
        tracemalloc.Filter(False, "<frozen importlib._bootstrap>"),
        tracemalloc.Filter(False, "<frozen importlib._bootstrap_external>"),
        tracemalloc.Filter(False, "<unknown>"),
    ]


def _short(filename: str) -> str:
    """A file name relative to the package or the standard library it belongs to."""
    for marker in ("/site-packages/", "/lib/python3"):
        if marker in filename:
            tail = filename.split(marker, 1)[1]
            return tail.split("/", 1)[1] if marker == "/lib/python3" else tail
    if "/referee/" in filename:
        return "referee/" + filename.rsplit("/referee/", 1)[1]
    return filename


def breakdown(before: Path, after: Path, count: int, top: int = 15) -> dict[str, Any]:
    """The growth from snapshot ``before`` to ``after`` divided by ``count`` (games or
    streams added between them): the traced total and the ``top`` lines and files."""
    old = tracemalloc.Snapshot.load(str(before)).filter_traces(_ignored())
    new = tracemalloc.Snapshot.load(str(after)).filter_traces(_ignored())
    total = sum(s.size for s in new.statistics("filename")) - sum(
        s.size for s in old.statistics("filename")
    )

    def rows(key: str) -> list[dict[str, Any]]:
        out = []
        for diff in new.compare_to(old, key)[:top]:
            frame = diff.traceback[0]
            where = _short(frame.filename) + (f":{frame.lineno}" if key == "lineno" else "")
            out.append(
                {
                    "where": where,
                    "bytes_each": diff.size_diff / count,
                    "blocks_each": diff.count_diff / count,
                }
            )
        return out

    return {
        "count": count,
        "traced_kib_each": total / count / 1024,
        "by_line": rows("lineno"),
        "by_file": rows("filename"),
    }
