"""What the networked runner needs of the machine and of a bot's process: the features the
referee offers, a bot's command line with its placeholders filled in, whether it can start,
and the watch over a running process (:mod:`referee_tournament.network` plays the games).
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from referee.v1 import referee_pb2
from referee_tournament.config import PLACEHOLDERS, BotConfig

POLL = 0.02


@dataclass(frozen=True)
class Features:
    """Referee-side API this runner uses when the server's protos have it."""

    seat_stats: bool
    abort_game: bool
    organiser_token_field: str | None
    clock: bool
    defer_seed_reveal: bool
    reveal_seed: bool

    @classmethod
    def detect(cls) -> Features:
        summary = referee_pb2.GameSummary.DESCRIPTOR.fields_by_name
        service = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"]
        created = referee_pb2.CreateGameResponse.DESCRIPTOR.fields_by_name
        create = referee_pb2.CreateGameRequest.DESCRIPTOR.fields_by_name
        token = next(
            (name for name in created if "organi" in name and "token" in name),
            None,
        )
        return cls(
            seat_stats="seat_stats" in summary,
            abort_game="AbortGame" in service.methods_by_name and token is not None,
            organiser_token_field=token,
            clock="clock" in create,
            defer_seed_reveal="defer_seed_reveal" in create and token is not None,
            reveal_seed="RevealSeed" in service.methods_by_name and token is not None,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "seat_stats": self.seat_stats,
            "abort_game": self.abort_game,
            "organiser_token": self.organiser_token_field is not None,
            "clock": self.clock,
            "defer_seed_reveal": self.defer_seed_reveal and self.reveal_seed,
        }


def message_json(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def python_path() -> str:
    """PYTHONPATH for bot processes: where ``referee`` and ``referee_bot`` are imported from
    (a plain checkout has ``referee_bot`` in ``clients/``), then the inherited value."""
    import referee
    import referee_bot

    parts = [
        str(Path(referee.__file__).resolve().parents[1]),
        str(Path(referee_bot.__file__).resolve().parents[1]),
    ]
    inherited = os.environ.get("PYTHONPATH")
    if inherited:
        parts.append(inherited)
    return os.pathsep.join(dict.fromkeys(parts))


def command_line(bot: BotConfig, values: dict[str, str]) -> list[str]:
    return [arg.format_map(values) for arg in bot.argv()]


#: Programs that run a script named by their first argument (the script must exist too).
INTERPRETERS = ("python", "python3", "node", "nodejs", "ruby", "perl", "bash", "sh", "java")


def startable(bot: BotConfig) -> str | None:
    """Why ``bot``'s command cannot start, or None: checked before the first game, so a typo
    in a program or script name stops the tournament instead of costing the bot every game
    (as a crash each time, finished by the fallback)."""
    # Stand-ins for the per-game placeholders: only the program and the script matter here.
    argv = command_line(bot, {**dict.fromkeys(PLACEHOLDERS, "check"), "python": sys.executable})
    where = f"bots: {bot.name}: "
    cwd = bot.cwd or Path.cwd()
    if not cwd.is_dir():
        return f"{where}cwd {str(cwd)!r} is not a folder"
    program = argv[0]
    if os.sep in program:
        path = Path(program) if Path(program).is_absolute() else cwd / program
        if not (path.is_file() and os.access(path, os.X_OK)):
            return f"{where}{program!r} is not an executable file (in {cwd})"
    elif shutil.which(program, path=bot.env.get("PATH")) is None:
        return f"{where}{program!r} is not found on PATH"
    name = Path(program).name
    interpreter = name.rstrip("0123456789.") in INTERPRETERS or program == sys.executable
    scripts = [arg for arg in argv[1:] if not arg.startswith("-")][:1]
    if interpreter and scripts and "-m" not in argv[1:2] and "-c" not in argv[1:2]:
        script = Path(scripts[0]) if Path(scripts[0]).is_absolute() else cwd / scripts[0]
        if not script.exists():
            return f"{where}{name} would run {scripts[0]!r}, which is not there (in {cwd})"
    return None


@dataclass
class Watch:
    """What the spectator stream has shown so far (shared with the monitor)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    version: int = 0
    pending: tuple[int, ...] = ()
    since: float = field(default_factory=time.monotonic)
    over: bool = False
    final_view: referee_pb2.View | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    batches: set[int] = field(default_factory=set)
    #: Seats seen to move at least once (their start-up allowance is over).
    moved: set[int] = field(default_factory=set)
    error: str = ""
    #: Seat -> decisions the referee made for it by default (Decided.by), never the bot's.
    default_moves: dict[int, int] = field(default_factory=dict)
