"""Entry point of ``referee-cli`` (see :mod:`referee_cli.app`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from referee_cli.app import run


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(argv, sys.stdin, sys.stdout)
    except BrokenPipeError:  # e.g. piped into head: not an error worth a traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
