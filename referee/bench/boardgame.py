"""P14: the referee beside boardgame.io, the server a user would otherwise pick.

Servers run side by side as child processes on 127.0.0.1: a boardgame.io server
(``referee/bench/boardgameio/server.js``, boardgame.io from npm at the version its
``package-lock.json`` pins, its own defaults: the in-memory store, socket.io) holding a game of
Vampire Queen's shape written for it (``game.js``: 4 seats, hidden hands through
``playerView``, tricks, hunters, 5 rounds), and ``referee serve`` holding Vampire Queen
itself, twice: on its memory store (like boardgame.io's) and on SQLite (its default). Each is
driven by the client its user would write, in a child process of its own, at the same
concurrency (32 games, 4 seats each, a random legal move on every turn, a new game when one
ends): boardgame.io's ``Client`` over socket.io from Node (``driver.js``), and the referee's
Python SDK (:mod:`referee.bench.sdk_driver`), every seat on a connection of its own. A window's
warm-up starts once every game's seats are connected.

Each round runs every side's window in turn (the order turns by one each round), with the load
average beside them. Per window: server CPU per move (``/proc/PID/stat`` of the server process
only, from the end of the warm-up to the end of the window, divided by the moves whose update
reached every seat in the window), p50 and p99 of the round trip from sending a move to its
update on all the game's seats. Then each server, fresh, holds games and clients: RSS after a
warm-up, after ``memory_games`` more games (seats joined: boardgame.io's lobby ``join``, the
referee's seat tokens), and after a client on every seat of ``client_games`` of them, each
holding its first state; the differences give KiB per live game and per connected client.
Beside them, the floor of a gRPC client: as many bare grpc.aio server streams of the echo
server, each on a connection of its own.
Every figure is reported with its ratios (each referee ÷ boardgame.io).

boardgame.io is installed by ``make bench`` (``npm ci`` in ``referee/bench/boardgameio``);
without node or the package the part is skipped with a note. Nothing here asserts a speed.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from referee.bench import echo
from referee.bench.load import ECHO_ARGV, ServerProcess, referee_argv
from referee.bench.sdk_driver import OWN_CONNECTION

#: The Node side: package.json, package-lock.json, game.js, server.js, driver.js. An installed
#: wheel carries none of it: ``REFEREE_BENCH_PEER`` names a checkout's folder, where ``make
#: bench-peer`` installed boardgame.io (``make bench-compiled`` sets it for both builds).
FOLDER = Path(os.environ.get("REFEREE_BENCH_PEER") or Path(__file__).with_name("boardgameio"))
#: How long a driver may take to connect every game's seats (a loaded machine is slow at it).
SETUP_SECONDS = 300.0
BOARDGAMEIO = "boardgameio"
#: The referee's sides, by store: its memory store is boardgame.io's (its default InMemory)
#: like for like; SQLite is the referee's own default.
REFEREES = {"referee": "memory:", "referee_sqlite": "sqlite"}
SIDES = (BOARDGAMEIO, *REFEREES)
#: How the report names each side.
NAMES = {
    BOARDGAMEIO: "boardgame.io",
    "referee": "referee (memory)",
    "referee_sqlite": "referee (SQLite)",
}


@dataclass(frozen=True)
class Settings:
    games: int
    players: int
    warmup: float
    seconds: float
    rounds: int
    warm_games: int
    memory_games: int
    client_games: int

    @classmethod
    def make(cls, quick: bool, concurrency: int | None = None) -> Settings:
        if quick:
            return cls(concurrency or 4, 4, 0.5, 1.5, 1, 4, 40, 10)
        return cls(concurrency or 32, 4, 2.0, 8.0, 3, 20, 1000, 250)


def missing() -> str | None:
    """Why the peer cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not installed: P14 (boardgame.io) skipped"
    if not (FOLDER / "node_modules" / "boardgame.io" / "package.json").is_file():
        return (
            "boardgame.io is not installed: P14 skipped "
            "(make bench, or npm ci in referee/bench/boardgameio)"
        )
    return None


def versions() -> dict[str, str]:
    package = json.loads((FOLDER / "node_modules" / "boardgame.io" / "package.json").read_text())
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True)
    return {"boardgame.io": str(package["version"]), "node": node.stdout.strip()}


def _uptime() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} cores)"


class Driver:
    """A client program in a child process, speaking JSON lines (see ``driver.js``)."""

    def __init__(self, argv: list[str], cwd: Path | None = None) -> None:
        self.process = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def read(self, expected: str, timeout: float) -> dict[str, Any]:
        stdout = self.process.stdout
        assert stdout is not None
        ready, _, _ = select.select([stdout], [], [], timeout)
        line = stdout.readline() if ready else ""
        if not line:
            self.close()
            raise RuntimeError(f"the driver {self.process.args!r} stopped before {expected!r}")
        message: dict[str, Any] = json.loads(line)
        if message.get("event") != expected:
            raise RuntimeError(f"the driver said {message!r}, not {expected!r}")
        return message

    def go_on(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write("\n")
        stdin.flush()

    def close(self) -> None:
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _node_driver(settings: dict[str, Any]) -> Driver:
    return Driver(["node", "driver.js", json.dumps(settings)], cwd=FOLDER)


def _sdk_driver(settings: dict[str, Any]) -> Driver:
    return Driver([sys.executable, "-m", "referee.bench.sdk_driver", json.dumps(settings)])


def _percentile(ordered: list[float], share: float) -> float | None:
    if not ordered:
        return None
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def window(server: ServerProcess, driver: Driver, settings: Settings) -> dict[str, Any]:
    """One measured window of the driver's load on ``server``."""
    try:
        driver.read("measuring", settings.warmup + SETUP_SECONDS)
        cpu_started = server.cpu_seconds()
        done = driver.read("done", settings.seconds + SETUP_SECONDS)
        cpu = server.cpu_seconds() - cpu_started
    finally:
        driver.close()
    moves = int(done["moves"])
    ordered = sorted(float(ms) for ms in done["latencies_ms"])
    return {
        "moves": moves,
        "seconds": float(done["seconds"]),
        "moves_per_second": moves / float(done["seconds"]),
        "server_cpu_seconds": cpu,
        "server_cpu_us_per_move": cpu / max(moves, 1) * 1e6,
        "p50_ms": _percentile(ordered, 0.5),
        "p99_ms": _percentile(ordered, 0.99),
        "games_finished": int(done["games"]),
        "errors": int(done["errors"]),
        #: boardgame.io's lobby requests sent again after a failed connection (its driver).
        "retries": int(done.get("retries", 0)),
    }


def memory(server: ServerProcess, driver: Driver, settings: Settings) -> dict[str, Any]:
    """RSS of ``server`` after the warm-up, the games and the clients the driver makes."""
    try:
        driver.read("warm", 300)
        warm = server.memory_kib()["VmRSS"]
        driver.go_on()
        made = driver.read("games", 600)
        games = int(made["games"])
        with_games = server.memory_kib()["VmRSS"]
        driver.go_on()
        clients = int(driver.read("clients", 600)["clients"])
        with_clients = server.memory_kib()["VmRSS"]
        driver.go_on()
    finally:
        driver.close()
    return {
        "games": games,
        "retries": int(made.get("retries", 0)),
        "clients": clients,
        "rss_warm_mib": warm / 1024,
        "rss_games_mib": with_games / 1024,
        "rss_clients_mib": with_clients / 1024,
        "kib_per_game": (with_games - warm) / max(games, 1),
        "kib_per_client": (with_clients - with_games) / max(clients, 1),
    }


def _boardgameio(folder: Path) -> ServerProcess:
    return ServerProcess.start(
        ["server.js"],
        folder / "boardgameio.log",
        program="node",
        cwd=FOLDER,
        env={**os.environ, "NODE_ENV": "production"},
    )


def _referee(folder: Path, store: str) -> ServerProcess:
    if store == "sqlite":
        store = f"sqlite:{folder / 'referee.sqlite3'}"
        (folder / "referee.sqlite3").unlink(missing_ok=True)
    return ServerProcess.start(referee_argv(store, 10**6, 10**6), folder / "referee.log")


def _server(side: str, folder: Path) -> ServerProcess:
    if side == BOARDGAMEIO:
        return _boardgameio(folder)
    return _referee(folder, REFEREES[side])


def _driver(side: str, server: ServerProcess, settings: dict[str, Any]) -> Driver:
    if side == BOARDGAMEIO:
        return _node_driver(settings | {"server": f"http://{server.address}"})
    return _sdk_driver(settings | {"server": server.address})


def _load_settings(settings: Settings, seed: int) -> dict[str, Any]:
    return {
        "mode": "load",
        "games": settings.games,
        "players": settings.players,
        "warmup": settings.warmup,
        "seconds": settings.seconds,
        "seed": seed,
    }


def _memory_settings(settings: Settings) -> dict[str, Any]:
    return {
        "mode": "memory",
        "players": settings.players,
        "warm_games": settings.warm_games,
        "games": settings.memory_games,
        "client_games": settings.client_games,
    }


def _rounds(folder: Path, settings: Settings) -> list[dict[str, Any]]:
    """Every side's window in each round, in an order that turns by one each round."""
    servers: dict[str, ServerProcess] = {}
    try:
        for side in SIDES:
            servers[side] = _server(side, folder)
        rounds = []
        for index in range(settings.rounds):
            before = _uptime()
            order = SIDES[index % len(SIDES) :] + SIDES[: index % len(SIDES)]
            measured: dict[str, Any] = {}
            for side in order:
                driver = _driver(side, servers[side], _load_settings(settings, seed=index + 1))
                measured[side] = window(servers[side], driver, settings)
            rounds.append(
                {"uptime_before": before, "uptime_after": _uptime(), "order": order} | measured
            )
        return rounds
    finally:
        for server in servers.values():
            server.stop()


def _memories(folder: Path, settings: Settings) -> dict[str, Any]:
    """Each side's server, fresh, one after the other; then the floor of a gRPC client."""
    found: dict[str, Any] = {"uptime_before": _uptime()}
    for side in SIDES:
        server = _server(side, folder)
        try:
            found[side] = memory(
                server, _driver(side, server, _memory_settings(settings)), settings
            )
        finally:
            server.stop()
    echo_server = ServerProcess.start(ECHO_ARGV, folder / "echo.log")
    try:
        clients = settings.client_games * settings.players
        found["grpc_floor"] = asyncio.run(_bare_clients(echo_server, settings.warm_games, clients))
    finally:
        echo_server.stop()
    found["uptime_after"] = _uptime()
    return found


async def _bare_clients(server: ServerProcess, warm: int, count: int) -> dict[str, Any]:
    """What a client on a connection of its own costs grpc.aio itself: streams of the bare
    echo server's ``Watch`` (an async generator waiting on a queue, nothing of the
    referee), each on its own channel and past its first message; RSS before and after
    ``count`` of them, after ``warm`` first."""
    held: list[tuple[grpc.aio.Channel, Any]] = []

    async def watch(index: int) -> None:
        channel = grpc.aio.insecure_channel(server.address, options=OWN_CONNECTION)
        call = channel.unary_stream(echo.WATCH)(index.to_bytes(echo.ROOM_BYTES, "big"))
        held.append((channel, call))
        await asyncio.wait_for(call.read(), SETUP_SECONDS)

    async def open_streams(first: int, how_many: int) -> None:
        end = first + how_many
        for start in range(first, end, 32):
            await asyncio.gather(*(watch(i) for i in range(start, min(end, start + 32))))

    try:
        await open_streams(0, warm)
        before = server.memory_kib()["VmRSS"]
        await open_streams(warm, count)
        after = server.memory_kib()["VmRSS"]
    finally:
        for channel, call in held:
            call.cancel()
            await channel.close()
    return {"clients": count, "kib_per_client": (after - before) / count}


def _ratio(ours: float | None, theirs: float | None) -> float | None:
    if ours is None or theirs is None or theirs == 0:
        return None
    return ours / theirs


#: Figures of the windows and of the memory stage (the medians of the rounds for the first).
WINDOW_FIGURES = ("server_cpu_us_per_move", "p50_ms", "p99_ms", "moves_per_second")
MEMORY_FIGURES = ("kib_per_game", "kib_per_client")


def run(quick: bool, concurrency: int | None = None) -> dict[str, Any]:
    note = missing()
    if note is not None:
        return {"note": note}
    settings = Settings.make(quick, concurrency)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="referee-bench-boardgameio-") as tmp:
        folder = Path(tmp)
        rounds = _rounds(folder, settings)
        memories = _memories(folder, settings)

    def median(side: str, key: str) -> float | None:
        values = [r[side][key] for r in rounds if r[side][key] is not None]
        return float(statistics.median(values)) if values else None

    figures: dict[str, dict[str, Any]] = {}
    for key in WINDOW_FIGURES + MEMORY_FIGURES:
        found: dict[str, Any] = {}
        for side in SIDES:
            found[side] = median(side, key) if key in WINDOW_FIGURES else memories[side][key]
        for side in REFEREES:
            found[f"{side}_ratio"] = _ratio(found[side], found[BOARDGAMEIO])
        figures[key] = found
    floor = memories["grpc_floor"]["kib_per_client"]
    figures["kib_per_client"] |= {
        "grpc_floor": floor,
        "grpc_floor_ratio": _ratio(floor, figures["kib_per_client"][BOARDGAMEIO]),
    }
    return {
        "versions": versions(),
        "sides": list(SIDES),
        "concurrent_games": settings.games,
        "players": settings.players,
        "warmup": settings.warmup,
        "seconds": settings.seconds,
        "figures": figures,
        "errors": sum(r[side]["errors"] for r in rounds for side in SIDES),
        "rounds": rounds,
        "memory": memories,
        "elapsed_seconds": time.perf_counter() - started,
    }


def _cell(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}"


def markdown(p14: dict[str, Any]) -> list[str]:
    out = ["", "## P14 beside boardgame.io", ""]
    if "note" in p14:
        return [*out, f"- note: {p14['note']}"]
    versions_ = p14["versions"]
    figures = p14["figures"]
    out += [
        f"boardgame.io {versions_['boardgame.io']} (node {versions_['node']}, its in-memory "
        f"store) and the referee (its memory store, and SQLite), {p14['concurrent_games']} "
        f"games x {p14['players']} seats each, a random legal move on every turn, every seat "
        f"on a connection of its own; medians of {len(p14['rounds'])} rounds of "
        f"{p14['seconds']:.0f} s, the sides' order turning each round. Ratios: referee ÷ "
        "boardgame.io.",
        "",
        "| figure | boardgame.io | referee (memory) | ratio | referee (SQLite) | ratio |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    rows = (
        ("server CPU per move (µs)", "server_cpu_us_per_move", 0),
        ("round trip to all seats, p50 (ms)", "p50_ms", 2),
        ("round trip to all seats, p99 (ms)", "p99_ms", 2),
        ("moves/s", "moves_per_second", 0),
        ("memory per live game (KiB)", "kib_per_game", 1),
        ("memory per connected client (KiB)", "kib_per_client", 1),
    )
    for name, key, digits in rows:
        figure = figures[key]
        out.append(
            f"| {name} | {_cell(figure[BOARDGAMEIO], digits)} "
            f"| {_cell(figure['referee'], digits)} | **{_cell(figure['referee_ratio'], 2)}** "
            f"| {_cell(figure['referee_sqlite'], digits)} "
            f"| {_cell(figure['referee_sqlite_ratio'], 2)} |"
        )
    out += [
        "",
        "| round | load before | load after | µs/move: boardgame.io | referee (memory) "
        "| referee (SQLite) |",
        "|---:|---|---|---:|---:|---:|",
    ]
    for index, r in enumerate(p14["rounds"]):
        cells = " | ".join(f"{r[side]['server_cpu_us_per_move']:,.0f}" for side in SIDES)
        out.append(f"| {index} | {r['uptime_before']} | {r['uptime_after']} | {cells} |")
    mem = p14["memory"]
    floor = figures["kib_per_client"]
    stages = ", ".join(
        f"{NAMES[side]} {mem[side]['rss_warm_mib']:.0f} -> {mem[side]['rss_games_mib']:.0f} -> "
        f"{mem[side]['rss_clients_mib']:.0f} MiB"
        for side in SIDES
    )
    out += [
        "",
        f"Memory ({mem['uptime_before']}): each server fresh, RSS after a warm-up, after "
        f"{mem[BOARDGAMEIO]['games']:,} more games and after {mem[BOARDGAMEIO]['clients']:,} "
        f"clients: {stages}. The floor of a gRPC client on a connection of its own (a bare "
        "grpc.aio server stream of the echo server, nothing of the referee): "
        f"{_cell(floor['grpc_floor'], 1)} KiB, **{_cell(floor['grpc_floor_ratio'], 2)}x** "
        "boardgame.io's client.",
    ]
    return out
