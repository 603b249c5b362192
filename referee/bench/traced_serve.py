"""``python -m referee.bench.traced_serve SNAPSHOT_PREFIX serve ARGS...``: ``referee serve``
with :mod:`tracemalloc` on, for P4's memory breakdown (:mod:`referee.bench.memtrace`).

On ``SIGUSR1`` the server dumps a snapshot to ``SNAPSHOT_PREFIX.N`` (N counting from 0) and
then writes ``SNAPSHOT_PREFIX.N.done`` (so the bench knows the dump is whole). Nothing of the
server changes: the wrapper is the bench's. It imports :mod:`referee.cli`, which imports the
bench, so no module may import this one (tests/test_package_shape.py: no circles).
"""

from __future__ import annotations

import gc
import signal
import sys
import tracemalloc
from pathlib import Path

from referee.bench.memtrace import FRAMES


def main(argv: list[str]) -> int:
    prefix, rest = argv[0], argv[1:]
    dumps = iter(range(10**6))

    def dump(signum: int, frame: object) -> None:
        path = f"{prefix}.{next(dumps)}"
        gc.collect()  # what is still held, not what is waiting for the collector
        tracemalloc.take_snapshot().dump(path)
        Path(path + ".done").write_text("")

    # Imported before tracing starts: what the imports allocate is in neither difference,
    # and the server starts in seconds, not tens of seconds, on a loaded machine.
    from referee.cli import main as referee_main
    from referee.server import app  # noqa: F401

    tracemalloc.start(FRAMES)
    signal.signal(signal.SIGUSR1, dump)
    return referee_main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
