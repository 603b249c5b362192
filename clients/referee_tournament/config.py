"""The tournament config file (YAML or JSON) and its checks.

Every problem is a :class:`ConfigError` that names the offending key, e.g.
``bots[2].command: unknown placeholder {tokn}``. The format is described in
``docs/tournaments.md``; :func:`load` reads a file, :func:`parse` a mapping.
"""

from __future__ import annotations

import math
import os
import secrets
import shlex
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

FORMATS = ("duplicate", "round-robin", "swiss")
#: What a remote bot's no-show costs (CreateGameRequest.no_show): ``loss`` (the referee ends
#: the game at the join deadline, the absent bot last), ``void`` (the referee voids the game;
#: the runner replays the deal, the last replay scored as a loss).
NO_SHOW = ("loss", "void")
#: Keys that are gone, and why (a config that still has them is refused, never ignored).
REMOVED_KEYS = {
    "on_failure": "a faulty bot's seat is now removed from its game (abandoned) and the "
    "referee finishes it with the game's default commands; the referee's one rule ranks it "
    "below every seat that finished (docs/tournaments.md, Faults)",
    "fallback": "the referee's default commands finish a faulty bot's seat (docs/tournaments.md, "
    "Faults)",
}

#: Placeholders a bot's command line may use, filled in per game and seat.
PLACEHOLDERS = {
    "server": "host:port of the referee",
    "game_id": "the game's id",
    "token": "the seat's secret token",
    "seat": "the seat index, from 0",
    "seed": "a seed for the bot's own random choices (fixed per game, seat and bot)",
    "game": "the game type id, e.g. vampire-queen",
    "players": "the number of seats",
    "bot": "the bot's name in the config",
    "python": "the Python interpreter that runs the tournament",
}


class ConfigError(ValueError):
    """A config that cannot be run; the message names the key."""


@dataclass(frozen=True)
class BotConfig:
    """One contestant.

    ``command`` (argv, with placeholders) runs it as a separate process in networked mode;
    ``strategy`` names a built-in ``referee_bot`` strategy, played in-process by ``--local``
    and, without a ``command``, by ``referee-bot play`` in networked mode.
    """

    name: str
    command: tuple[str, ...] | None = None
    strategy: str | None = None
    cwd: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    #: A remote bot: the player account it plays as. It runs anywhere, on its own (e.g.
    #: ``referee-bot player --claim-reserved``); the runner reserves its seats and it claims
    #: them. No command, no strategy.
    account: str | None = None
    #: For a remote bot with the runner's own referee only (no server): a command the runner
    #: starts once before the first game, as an operator would have started the bot, after
    #: creating the account there (its token in REFEREE_CREDENTIAL). Placeholders: {server},
    #: {python}, {bot}.
    launch: tuple[str, ...] | None = None

    @property
    def remote(self) -> bool:
        return self.account is not None

    def argv(self) -> tuple[str, ...]:
        """The command template of the networked mode (a remote bot's: its ``launch``)."""
        if self.command is not None:
            return self.command
        if self.account is not None:
            return self.launch or ()
        assert self.strategy is not None
        # --flag=value: a token may start with "-", which argparse would take for an option.
        return (
            "{python}",
            "-m",
            "referee_bot",
            "play",
            "--server={server}",
            "--game-id={game_id}",
            "--token={token}",
            f"--strategy={self.strategy}",
            "--seed={seed}",
        )


@dataclass(frozen=True)
class GameEntry:
    """One game of the tournament with its table size and options."""

    game: str
    players: int
    options: Mapping[str, str]
    deals: int


@dataclass(frozen=True)
class Limits:
    """Wall-clock limits that protect the tournament from a stuck bot (seconds)."""

    #: A seat pending longer than this (after its bot's start-up allowance) is a hang.
    move_timeout: float = 10.0
    #: A game not over after this long: the seats it waits for are removed (abandoned).
    game_timeout: float = 300.0
    #: Extra time for a bot process to start before its first move counts.
    start_timeout: float = 10.0
    #: A game with a remote bot that is not seated this long after its creation is ended by
    #: the referee (its join deadline): a no-show, the missing bot absent.
    join_timeout: float = 60.0
    #: After the game is over, how long a bot process may take to exit before it is killed.
    exit_grace: float = 2.0


@dataclass(frozen=True)
class TournamentConfig:
    name: str
    games: tuple[GameEntry, ...]
    bots: tuple[BotConfig, ...]
    format: str = "duplicate"
    seed: str = "0"
    rounds: int = 0  # swiss only; 0 before defaults are applied
    #: Games played at once (networked mode); default: the CPUs, at most 4.
    parallel: int = 4
    server: str | None = None
    limits: Limits = field(default_factory=Limits)
    #: What a remote bot's no-show costs (:data:`NO_SHOW`).
    no_show: str = "loss"
    #: ``no_show: void``: how often a void game is replayed (after the other games); its last
    #: replay scores a no-show as a loss, so every pairing plays (or is scored on) its deals.
    replays: int = 1
    source: Path | None = None
    #: The referee's clock for every decision (CreateGameRequest.clock), empty for none.
    clock: Mapping[str, int] = field(default_factory=dict)
    #: True when the seed was drawn at random (no ``seed:`` in the config).
    secret_seed: bool = False
    #: Rated games (CreateGameRequest.rated): the referee updates the players' persisted
    #: ratings at each end. Every bot must be a remote bot (a player account).
    rated: bool = False

    @property
    def remote(self) -> bool:
        return any(bot.remote for bot in self.bots)

    @property
    def bot_names(self) -> list[str]:
        return [bot.name for bot in self.bots]

    def bot(self, name: str) -> BotConfig:
        return next(bot for bot in self.bots if bot.name == name)


_TOP_KEYS = {
    "name",
    "game",
    "players",
    "options",
    "deals",
    "games",
    "bots",
    "format",
    "seed",
    "rounds",
    "parallel",
    "server",
    "limits",
    "no_show",
    "replays",
    "clock",
    "rated",
}

#: Keys of ``clock:`` (the referee's ClockSettings, when it has them), in milliseconds.
CLOCK_KEYS = ("decision_ms", "bank_ms", "forfeit_after_timeouts")


def load(path: str | Path) -> TournamentConfig:
    """Read and check a config file (``.yaml``, ``.yml`` or ``.json``: YAML reads both)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: {error.strerror or error}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML/JSON: {error}") from None
    return parse(data, source=path)


def parse(data: Any, *, source: Path | None = None) -> TournamentConfig:
    """Check a config given as a mapping; relative ``cwd`` paths are taken from ``source``'s
    folder (the current folder without one)."""
    if not isinstance(data, dict):
        raise ConfigError("the config must be a mapping (YAML or JSON object)")
    for key, why in REMOVED_KEYS.items():
        if key in data:
            raise ConfigError(f"{key}: no longer a setting: {why}")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise ConfigError(f"unknown key {unknown[0]!r}; known: {', '.join(sorted(_TOP_KEYS))}")
    base = source.resolve().parent if source is not None else Path.cwd()

    fmt = _choice(data, "format", FORMATS, "duplicate")
    deals = _int(data, "deals", 1, minimum=1)
    games = _games(data, deals)
    bots = _bots(data, base)
    names = [bot.name for bot in bots]
    for index, entry in enumerate(games):
        if entry.players > len(bots):
            raise ConfigError(
                f"games[{index}]: {entry.players} seats but only {len(bots)} bots "
                "(every seat needs a different bot)"
            )
    if fmt != "swiss" and "rounds" in data:
        raise ConfigError("rounds: only for format swiss")
    rounds = _int(data, "rounds", max(1, math.ceil(math.log2(len(names)))), minimum=1)
    no_show = _choice(data, "no_show", NO_SHOW, "loss")
    seed = data.get("seed")
    if seed is None:
        seed = secrets.token_hex(16)
    elif not isinstance(seed, str | int) or isinstance(seed, bool) or seed == "":
        raise ConfigError("seed: a string or an integer")
    rated = data.get("rated", False)
    if not isinstance(rated, bool):
        raise ConfigError("rated: true or false")
    if rated and not all(bot.remote for bot in bots):
        offline = ", ".join(bot.name for bot in bots if not bot.remote)
        raise ConfigError(
            f"rated: every bot must be a player account (account:), not {offline}: a rated "
            "game's seats are all held by named players"
        )
    server = data.get("server")
    if server is not None and (not isinstance(server, str) or not server):
        raise ConfigError("server: host:port of a running referee")
    return TournamentConfig(
        name=_str(data, "name", source.stem if source is not None else "tournament"),
        games=tuple(games),
        bots=tuple(bots),
        format=fmt,
        seed=str(seed),
        rounds=rounds,
        parallel=_int(data, "parallel", min(4, os.cpu_count() or 1), minimum=1),
        server=server,
        limits=_limits(data.get("limits")),
        no_show=no_show,
        replays=_int(data, "replays", 1, minimum=0),
        source=source,
        clock=_clock(data.get("clock")),
        secret_seed="seed" not in data,
        rated=rated,
    )


# --- parts -------------------------------------------------------------------------------


def _str(data: Mapping[str, Any], key: str, default: str, where: str = "") -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}{key}: a non-empty string")
    return value


def _int(data: Mapping[str, Any], key: str, default: int, *, minimum: int, where: str = "") -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ConfigError(f"{where}{key}: an integer >= {minimum}, got {value!r}")
    return value


def _choice(data: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str) -> str:
    value = data.get(key, default)
    if value not in choices:
        raise ConfigError(f"{key}: one of {', '.join(choices)}, got {value!r}")
    return str(value)


def _options(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}options: a mapping of option name to value")
    options: dict[str, str] = {}
    for name, item in value.items():
        if isinstance(item, bool):
            item = "true" if item else "false"
        if not isinstance(item, str | int | float):
            raise ConfigError(f"{where}options.{name}: a string or a number")
        options[str(name)] = str(item)
    return options


def _games(data: Mapping[str, Any], deals: int) -> list[GameEntry]:
    if "games" in data:
        if any(key in data for key in ("game", "players", "options")):
            raise ConfigError("give either games: [...] or game/players/options, not both")
        items = data["games"]
        if not isinstance(items, list) or not items:
            raise ConfigError("games: a non-empty list of {game, players, options, deals}")
        wheres = [f"games[{i}]." for i in range(len(items))]
    elif "game" in data:
        items = [{key: data[key] for key in ("game", "players", "options") if key in data}]
        wheres = [""]
    else:
        raise ConfigError("game: missing (or a list under games:)")
    entries = []
    for item, where in zip(items, wheres, strict=True):
        if not isinstance(item, dict):
            raise ConfigError(f"{where.rstrip('.')}: a mapping with game, players, options")
        unknown = sorted(set(item) - {"game", "players", "options", "deals"})
        if unknown:
            raise ConfigError(f"{where}{unknown[0]}: unknown key")
        if "players" not in item:
            raise ConfigError(f"{where}players: missing (the number of seats)")
        entries.append(
            GameEntry(
                game=_str(item, "game", "", where),
                players=_int(item, "players", 0, minimum=2, where=where),
                options=_options(item.get("options"), where),
                deals=_int(item, "deals", deals, minimum=1, where=where),
            )
        )
    return entries


#: Placeholders of a remote bot's ``launch`` command (it runs once, for every game).
LAUNCH = ("server", "python", "bot")


def _template(
    value: Any, where: str, *, key: str = "command", allowed: Any = PLACEHOLDERS
) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            argv = tuple(shlex.split(value))
        except ValueError as error:
            raise ConfigError(f"{where}{key}: {error}") from None
    elif isinstance(value, list) and all(isinstance(a, str | int | float) for a in value):
        argv = tuple(str(a) for a in value)
    else:
        raise ConfigError(f"{where}{key}: a command line (string) or a list of arguments")
    if not argv:
        raise ConfigError(f"{where}{key}: empty")
    for arg in argv:
        try:
            fields = [name for _, name, _, _ in string.Formatter().parse(arg) if name is not None]
        except ValueError as error:
            raise ConfigError(f"{where}{key}: {arg!r}: {error} (write {{{{ for a brace)") from None
        for name in fields:
            if name not in allowed:
                raise ConfigError(
                    f"{where}{key}: unknown placeholder {{{name}}}; known: "
                    + ", ".join(f"{{{p}}}" for p in allowed)
                )
    return argv


def _bots(data: Mapping[str, Any], base: Path) -> list[BotConfig]:
    from referee_bot.strategies import strategy_names

    items = data.get("bots")
    if not isinstance(items, list) or len(items) < 2:
        raise ConfigError("bots: a list of at least two bots")
    bots: list[BotConfig] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        where = f"bots[{index}]."
        if not isinstance(item, dict):
            raise ConfigError(f"bots[{index}]: a mapping with name and command or strategy")
        unknown = sorted(
            set(item) - {"name", "command", "strategy", "cwd", "env", "account", "launch"}
        )
        if unknown:
            raise ConfigError(f"{where}{unknown[0]}: unknown key")
        name = _str(item, "name", "", where)
        if name in seen:
            raise ConfigError(f"{where}name: {name!r} is used twice")
        seen.add(name)
        strategy = item.get("strategy")
        if strategy is not None and strategy not in strategy_names():
            raise ConfigError(
                f"{where}strategy: unknown strategy {strategy!r}; "
                f"one of {', '.join(strategy_names())}"
            )
        command = _template(item["command"], where) if "command" in item else None
        account = item.get("account")
        launch = None
        if account is not None:
            if not isinstance(account, str) or not account:
                raise ConfigError(f"{where}account: the bot's player name")
            if command is not None or strategy is not None:
                raise ConfigError(
                    f"{where}account: a remote bot runs on its own: no command or strategy"
                )
            if "launch" in item:
                launch = _template(item["launch"], where, key="launch", allowed=LAUNCH)
        elif "launch" in item:
            raise ConfigError(f"{where}launch: only for a remote bot (account:)")
        elif command is None and strategy is None:
            raise ConfigError(f"{where[:-1]}: needs a command, a strategy or an account")
        cwd = item.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise ConfigError(f"{where}cwd: a folder path")
        env = item.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(k, str) for k in env):
            raise ConfigError(f"{where}env: a mapping of variable name to value")
        bots.append(
            BotConfig(
                name=name,
                command=command,
                strategy=strategy,
                cwd=(base / cwd) if cwd is not None else base,
                env={k: str(v) for k, v in env.items()},
                account=account,
                launch=launch,
            )
        )
    return bots


def _limits(value: Any) -> Limits:
    if value is None:
        return Limits()
    if not isinstance(value, dict):
        raise ConfigError("limits: a mapping of limit name to seconds")
    known = Limits.__dataclass_fields__
    values: dict[str, float] = {}
    for key, item in value.items():
        if key not in known:
            raise ConfigError(f"limits.{key}: unknown; known: {', '.join(known)}")
        if not isinstance(item, int | float) or isinstance(item, bool) or item <= 0:
            raise ConfigError(f"limits.{key}: a positive number of seconds")
        values[key] = float(item)
    return Limits(**values)


def _clock(value: Any) -> dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"clock: a mapping with {', '.join(CLOCK_KEYS)}")
    clock: dict[str, int] = {}
    for key, item in value.items():
        if key not in CLOCK_KEYS:
            raise ConfigError(f"clock.{key}: unknown; known: {', '.join(CLOCK_KEYS)}")
        if not isinstance(item, int) or isinstance(item, bool) or item < 0:
            raise ConfigError(f"clock.{key}: an integer >= 0")
        clock[key] = item
    return clock
