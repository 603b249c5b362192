"""Remote bots the runner starts itself, for a tournament on its own referee.

A remote bot (``account:``) normally runs somewhere else already and claims the seats the
runner reserves for it. On the runner's own referee (no ``server``: an in-memory referee
started for this run) nobody could have created its account or started it beforehand, so a
remote bot may say how to start it (``launch:``): the runner registers the account there,
starts the command once, before the first game, with the account's token in
``REFEREE_CREDENTIAL`` (never on the command line, where ``ps`` shows it), and stops it after
the last game. It is then exactly a remote bot: one program, every seat over its player
stream, found by the reservation alone. The first game waits for it to come online (its
player stream open, ``GetPresence``) for up to ``limits.start_timeout``: a bot still offline
then is absent from its games, as any offline remote bot is. With ``server:``/``--server``
the runner starts nothing: the account must exist and the bot must be running.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from referee.v1 import referee_pb2
from referee_tournament.config import TournamentConfig
from referee_tournament.processes import POLL, python_path
from referee_tournament.seats import offline_accounts


@contextlib.contextmanager
def launched(config: TournamentConfig, stub: Any, address: str, logs: Path) -> Iterator[None]:
    """Register and start every remote bot with a ``launch`` command; stop them at the end."""
    processes: list[subprocess.Popen[bytes]] = []
    files: list[IO[bytes]] = []
    try:
        for bot in config.bots:
            if bot.account is None or not bot.launch:
                continue
            token = stub.Register(
                referee_pb2.RegisterRequest(name=bot.account, kind=referee_pb2.PLAYER_KIND_BOT),
                timeout=30,
            ).token
            values = {"server": address, "python": sys.executable, "bot": bot.name}
            argv = [arg.format_map(values) for arg in bot.launch]
            env = {
                **os.environ,
                "PYTHONPATH": python_path(),
                **bot.env,
                "REFEREE_CREDENTIAL": token,
            }
            logs.mkdir(parents=True, exist_ok=True)
            log: IO[bytes] = (logs / f"remote-{bot.name}.log").open("wb")
            files.append(log)
            processes.append(
                subprocess.Popen(
                    argv,
                    cwd=bot.cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        accounts = [bot.account for bot in config.bots if bot.account is not None and bot.launch]
        deadline = time.monotonic() + config.limits.start_timeout
        while offline_accounts(stub, accounts) and time.monotonic() < deadline:
            time.sleep(10 * POLL)
        yield
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(5)
        for file in files:
            file.close()
