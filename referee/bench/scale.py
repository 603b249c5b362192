"""P13: replicas scale by CPU per command.

Throughput cannot show scaling on a machine of two cores shared by the client, every replica
and PostgreSQL; CPU per command can: if three replicas together spend no more CPU per command
than one does, commands/s grows with the cores they are given. So P13 plays the same load
against one ``referee serve`` replica and then against three on one PostgreSQL database (a
fresh database per window, dropped after it), and divides the server CPU per command summed
over the replicas' processes (user + system, from ``/proc/<pid>/stat``) by the single
replica's, over the measured window only (from the end of a warm-up that holds the accounts'
registrations and the first games' creations and claims, to the window's end). Beside it,
the CPU of the PostgreSQL backends serving the window's database (their pids from
``pg_stat_activity``, their time from ``/proc``; a server on another host shows 0), which a
host running both must budget for too.

The load is P10's shape, spread as a load balancer would: N games x 4 seats, each seat played
by a bot program that holds its seats on one PlayerSession (batched updates, commands on the
stream). A program is one player account connected to one replica; there is one program per
(seat number, replica). Each game has a home replica (games spread round-robin) where it is
created, and its seats go to programs:

* ``split``: seat ``s`` of a game at home ``h`` to the program of replica ``(h + s) % 3``,
  so every game is followed on every replica (the worst case: each replica also folds in
  and serves the events of commands that the others decided);
* ``together``: every seat to the home replica's programs, so a game's live state is kept
  only where its seats are (the layout docs/operations.md recommends).

With one replica both layouts are the same. Each round runs the three windows one after the
other (``one``, ``split``, ``together``) with the load average beside each; the ratios are
the medians of the rounds'.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.bench.load import (
    GameSpec,
    Load,
    ServerProcess,
    referee_argv,
)
from referee.bench.players import play_games
from referee.bench.replicas import admin_url

#: The replicas of the scaled windows.
REPLICAS = 3
#: The windows: (name, replicas, share of the N games, the replica of seat ``s`` of a game
#: at home ``h``). ``one/3`` is one replica with the load each replica of ``together`` has.
LAYOUTS: tuple[tuple[str, int, int, Callable[[int, int], int]], ...] = (
    ("one", 1, 1, lambda home, seat: 0),
    ("split", REPLICAS, 1, lambda home, seat: (home + seat) % REPLICAS),
    ("together", REPLICAS, 1, lambda home, seat: home),
    ("one/3", 1, REPLICAS, lambda home, seat: 0),
)


@dataclass(frozen=True)
class Settings:
    concurrency: int
    rounds: int
    warmup: float
    seconds: float

    @classmethod
    def make(cls, quick: bool, concurrency: int | None) -> Settings:
        if quick:
            return cls(concurrency or 4, 1, 1.0, 1.5)
        return cls(concurrency or 24, 3, 5.0, 10.0)


def serve_argv(url: str) -> list[str]:
    """One replica: players with accounts, no call limit (a limit would pace the bench)."""
    return [
        *referee_argv(url, 10**6, 10**6),
        "--open-registration",
        "--player-calls-per-minute",
        "0",
    ]


async def _load(
    addresses: list[str],
    place: Callable[[int, int], int],
    spec: GameSpec,
    concurrency: int,
    load: Load,
    seed: int,
    sample: Callable[[], _Sample],
) -> tuple[_Sample, _Sample]:
    """``concurrency`` games at once until the window ends, seats placed by ``place``;
    ``sample()`` taken when the warm-up ends and when the window ends."""
    taken: list[_Sample] = []

    async def sampler() -> None:
        for at in (load.begin, load.end):
            await asyncio.sleep(max(0.0, at - time.perf_counter()))
            taken.append(sample())

    sampling = asyncio.ensure_future(sampler())
    await play_games(addresses, place, spec, concurrency, load, seed)
    await sampling
    return taken[0], taken[1]


def window(
    admin: str,
    layout: str,
    replicas: int,
    games: int,
    place: Callable[[int, int], int],
    spec: GameSpec,
    settings: Settings,
    folder: Path,
    seed: int,
) -> dict[str, Any]:
    """One window: a fresh database, ``replicas`` servers on it, ``games`` games at once;
    the CPU figures."""
    from referee.store.postgres import scratch_database

    before = _uptime()
    with ExitStack() as stack:
        url = stack.enter_context(scratch_database(admin, "referee_bench_scale"))
        servers = []
        for index in range(replicas):
            log = folder / f"p13-{layout.replace('/', '-')}-{index}.log"
            server = ServerProcess.start(serve_argv(url), log)
            stack.callback(server.stop)
            servers.append(server)
        load = Load(settings.warmup, settings.seconds)

        def sample() -> _Sample:
            return _Sample(
                [server.cpu_seconds() for server in servers],
                _backends(admin, url),
                time.process_time(),
                time.perf_counter(),
            )

        first, last = asyncio.run(
            _load([s.address for s in servers], place, spec, games, load, seed, sample)
        )
    # The measured window only: the warm-up's registrations, first creations and claims
    # (a burst of document commits whose length varies with the machine's load) left out.
    cpu = [b - a for a, b in zip(first.replicas, last.replicas, strict=True)]
    database = sum(c - first.database.get(pid, 0.0) for pid, c in last.database.items())
    client = last.client - first.client
    wall = last.wall - first.wall
    total = max(load.commands, 1)
    return load.summary() | {
        "layout": layout,
        "replicas": replicas,
        "games_at_once": games,
        "uptime_before": before,
        "uptime_after": _uptime(),
        "total_commands": load.total,
        "measured_commands": load.commands,
        "server_cpu_us_per_command": 1e6 * sum(cpu) / total,
        "replica_cpu_us_per_command": [1e6 * c / total for c in cpu],
        "client_cpu_us_per_command": 1e6 * client / total,
        "server_cpu_share": sum(cpu) / wall,
        "database_cpu_us_per_command": 1e6 * database / total,
    }


@dataclass(frozen=True)
class _Sample:
    """CPU seconds so far: each replica's, each PostgreSQL backend's, the client's; and when."""

    replicas: list[float]
    database: dict[int, float]
    client: float
    wall: float


def _backends(admin: str, url: str) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend connected to ``url``'s database (the
    server's shared processes, WAL writer and checkpointer, are left out)."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(admin, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (name,)
        ).fetchall()
    found = {}
    for (pid,) in rows:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # another host's server, or the backend just ended
            continue
        found[int(pid)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


def _uptime() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f}"


def run(quick: bool, spec: GameSpec, concurrency: int | None = None) -> dict[str, Any]:
    try:
        import psycopg

        from referee.store.postgres import scratch_database
    except ImportError as error:
        return {"skipped": f"psycopg is not installed ({error}): pip install '.[postgres]'"}
    admin = admin_url()
    try:
        with scratch_database(admin, "referee_bench_scale"):
            pass
    except psycopg.OperationalError as error:
        return {"skipped": f"PostgreSQL not available at {admin}: {str(error).strip()}"}
    settings = Settings.make(quick, concurrency)
    rounds = []
    with tempfile.TemporaryDirectory(prefix="referee-bench-scale-") as tmp:
        for index in range(settings.rounds):
            windows = {
                name: window(
                    admin,
                    name,
                    count,
                    max(1, settings.concurrency // share),
                    place,
                    spec,
                    settings,
                    Path(tmp),
                    seed=index * 10_000,
                )
                for name, count, share, place in LAYOUTS
            }
            cpu = {name: w["server_cpu_us_per_command"] for name, w in windows.items()}
            rounds.append(
                {
                    "windows": windows,
                    "split_to_one": cpu["split"] / max(cpu["one"], 1e-9),
                    "together_to_one": cpu["together"] / max(cpu["one"], 1e-9),
                    "together_to_one_third": cpu["together"] / max(cpu["one/3"], 1e-9),
                }
            )

    def median(pick: Callable[[dict[str, Any]], float]) -> float:
        return float(statistics.median(pick(r) for r in rounds))

    def of_window(name: str, key: str) -> float:
        return float(statistics.median(r["windows"][name][key] for r in rounds))

    return {
        "game": spec.game_type,
        "players": spec.players,
        "concurrent_games": settings.concurrency,
        "replicas": REPLICAS,
        "seconds": settings.seconds,
        "cores": os.cpu_count(),
        "split_to_one": median(lambda r: r["split_to_one"]),
        "together_to_one": median(lambda r: r["together_to_one"]),
        "together_to_one_third": median(lambda r: r["together_to_one_third"]),
        "cpu_us_per_command": {
            name: of_window(name, "server_cpu_us_per_command") for name, *_ in LAYOUTS
        },
        "commands_per_second": {name: of_window(name, "per_second") for name, *_ in LAYOUTS},
        "errors": sum(w["errors"] for r in rounds for w in r["windows"].values()),
        "rounds": rounds,
    }


def markdown(p13: dict[str, Any]) -> list[str]:
    out = ["", "## P13 replicas scale: server CPU per command", ""]
    if "skipped" in p13:
        return [*out, f"Skipped: {p13['skipped']}"]
    cpu = p13["cpu_us_per_command"]
    out += [
        f"{p13['game']}, {p13['concurrent_games']} games x {p13['players']} seats at once, "
        f"bot programs on PlayerSession streams; one replica, then {p13['replicas']} on one "
        f"PostgreSQL database (fresh per window), {p13['seconds']:.0f} s windows, "
        f"{p13['cores']} cores shared by the client, the replicas and PostgreSQL. Server CPU "
        f"per command summed over the replicas: one {cpu['one']:,.0f} µs; "
        f"{p13['replicas']}, a game's seats on different replicas (`split`) "
        f"{cpu['split']:,.0f} µs, **{p13['split_to_one']:.2f}x**; {p13['replicas']}, a game's "
        f"seats on its one replica (`together`) {cpu['together']:,.0f} µs, "
        f"**{p13['together_to_one']:.2f}x** (goal <= 1.25). One replica with a third of the "
        f"games (the load each replica of `together` has) {cpu['one/3']:,.0f} µs: `together` "
        f"is **{p13['together_to_one_third']:.2f}x** that (what being one of three costs, "
        f"beyond a smaller load's lost batching). {p13['errors']} refused commands. "
        f"Medians of {len(p13['rounds'])} rounds.",
        "",
        "| round | layout | replicas | games | load before | load after | commands/s "
        "| messages/command | CPU µs/command | per replica | ÷ one | PostgreSQL µs/command |",
        "|---:|---|---:|---:|---|---|---:|---:|---:|---|---:|---:|",
    ]
    for index, r in enumerate(p13["rounds"], 1):
        one = r["windows"]["one"]["server_cpu_us_per_command"]
        for name, w in r["windows"].items():
            per = " / ".join(f"{c:,.0f}" for c in w["replica_cpu_us_per_command"])
            out.append(
                f"| {index} | {name} | {w['replicas']} | {w['games_at_once']} "
                f"| {w['uptime_before']} | {w['uptime_after']} | {w['per_second']:,.0f} "
                f"| {w['stream_messages_per_command']:.1f} "
                f"| {w['server_cpu_us_per_command']:,.0f} | {per} "
                f"| {w['server_cpu_us_per_command'] / max(one, 1e-9):.2f} "
                f"| {w['database_cpu_us_per_command']:,.0f} |"
            )
    return out


__all__ = ["LAYOUTS", "markdown", "run", "serve_argv", "window"]
