"""A program in a pseudo-terminal (stdlib ``pty``), driven the way a person would: wait for a
text on the screen, type a line. ``expect`` waits by reading, with a time limit only as a
guard against a hung program (never as a measure of speed)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Sequence

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: Seconds an expected text may take to appear before the test gives up (a hang guard).
GUARD_SECONDS = 90.0


#: Runs the program with Ctrl-C as a terminal's program has it. A suite started in the
#: background by a shell without job control (``pytest &``) ignores SIGINT, children inherit
#: that, and Python then installs no KeyboardInterrupt handler: a test that presses Ctrl-C would
#: wait. The disposition is reset by a small launcher rather than a ``preexec_fn``: that makes
#: ``subprocess`` fork the whole test process, whose gRPC threads (a server in the test) then
#: break the child ("skipping fork() handlers", then epoll errors in the program).
DEFAULT_INTERRUPT = (
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execvp(sys.argv[1], sys.argv[1:])",
)


class PtySession:
    """``command`` on a fresh 80x24 pseudo-terminal; ``text`` is everything it printed
    (ANSI codes removed, ``\\r\\n`` as ``\\n``)."""

    def __init__(
        self, command: Sequence[str], *, env: dict[str, str] | None = None, rows: int = 24
    ) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, 80, 0, 0))
        self.process = subprocess.Popen(
            [*DEFAULT_INTERRUPT, *command],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,  # the pty is its controlling terminal, as in a shell
            close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.raw = b""
        self.position = 0  # where the next expect starts looking

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", "replace")).replace("\r\n", "\n")

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], wait)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # the program ended and the pty closed
            return False
        if not chunk:
            return False
        self.raw += chunk
        return True

    def expect(self, pattern: str) -> re.Match[str]:
        """Wait until ``pattern`` (a regex) appears after the previous match; return it."""
        deadline = time.monotonic() + GUARD_SECONDS
        compiled = re.compile(pattern)
        while True:
            found = compiled.search(self.text, self.position)
            if found:
                self.position = found.end()
                return found
            if time.monotonic() > deadline or not self._read(0.2):
                if (found := compiled.search(self.text, self.position)) is not None:
                    self.position = found.end()
                    return found
                tail = self.text[-3000:]
                raise AssertionError(f"{pattern!r} did not appear; the screen ends with:\n{tail}")

    def send(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\r")

    def wait(self) -> int:
        """Read to the end of the output (the pty closes when the program ends); its status."""
        deadline = time.monotonic() + GUARD_SECONDS
        while self._read(0.2):
            assert time.monotonic() < deadline, "the program did not end"
        return self.process.wait(GUARD_SECONDS)

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(30)
        os.close(self.master)
