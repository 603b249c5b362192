"""P14: the referee beside boardgame.io, the server a user would otherwise pick.

Two servers run side by side as child processes on 127.0.0.1: a boardgame.io server
(``referee/bench/boardgameio/server.js``, boardgame.io from npm at the version its
``package-lock.json`` pins, its own defaults: the in-memory store, socket.io) holding a game of
Vampire Queen's shape written for it (``game.js``: 4 seats, hidden hands through
``playerView``, tricks, hunters, 5 rounds), and ``referee serve`` on its memory store holding
Vampire Queen itself. Each is driven by the client its user would write, in a child process of
its own, at the same concurrency (32 games, 4 seats each, a random legal move on every turn,
a new game when one ends): boardgame.io's ``Client`` over socket.io from Node
(``driver.js``), and the referee's Python SDK (:mod:`referee.bench.sdk_driver`), every seat on
a connection of its own.

The windows alternate in each round (which side goes first alternates too), with the load
average beside them. Per window: server CPU per move (``/proc/PID/stat`` of the server process
only, from the end of the warm-up to the end of the window, divided by the moves whose update
reached every seat in the window), p50 and p99 of the round trip from sending a move to its
update on all the game's seats. Then each server, fresh, holds games and clients: RSS after a
warm-up, after ``memory_games`` more games (seats joined: boardgame.io's lobby ``join``, the
referee's seat tokens), and after a client on every seat of ``client_games`` of them, each
holding its first state; the differences give KiB per live game and per connected client.
Every figure is reported with its ratio (referee ÷ boardgame.io).

boardgame.io is installed by ``make bench`` (``npm ci`` in ``referee/bench/boardgameio``);
without node or the package the part is skipped with a note. Nothing here asserts a speed.
"""

from __future__ import annotations

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

from referee.bench.load import ServerProcess, referee_argv

#: The Node side: package.json, package-lock.json, game.js, server.js, driver.js.
FOLDER = Path(__file__).with_name("boardgameio")
#: The store both servers keep their games in: memory (boardgame.io's default InMemory).
REFEREE_STORE = "memory:"


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
        driver.read("measuring", settings.warmup + 60)
        cpu_started = server.cpu_seconds()
        done = driver.read("done", settings.seconds + 60)
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
    }


def memory(server: ServerProcess, driver: Driver, settings: Settings) -> dict[str, Any]:
    """RSS of ``server`` after the warm-up, the games and the clients the driver makes."""
    try:
        driver.read("warm", 300)
        warm = server.memory_kib()["VmRSS"]
        driver.go_on()
        games = int(driver.read("games", 600)["games"])
        with_games = server.memory_kib()["VmRSS"]
        driver.go_on()
        clients = int(driver.read("clients", 600)["clients"])
        with_clients = server.memory_kib()["VmRSS"]
        driver.go_on()
    finally:
        driver.close()
    return {
        "games": games,
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


def _referee(folder: Path) -> ServerProcess:
    return ServerProcess.start(referee_argv(REFEREE_STORE, 10**6, 10**6), folder / "referee.log")


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
    bgio = _boardgameio(folder)
    try:
        referee = _referee(folder)
        try:
            rounds = []
            for index in range(settings.rounds):
                before = _uptime()
                measured: dict[str, dict[str, Any]] = {}
                sides = ["boardgameio", "referee"]
                for side in sides if index % 2 == 0 else sides[::-1]:
                    load = _load_settings(settings, seed=index + 1)
                    if side == "boardgameio":
                        load["server"] = f"http://{bgio.address}"
                        measured[side] = window(bgio, _node_driver(load), settings)
                    else:
                        load["server"] = referee.address
                        measured[side] = window(referee, _sdk_driver(load), settings)
                rounds.append(
                    {"uptime_before": before, "uptime_after": _uptime(), "first": sides[index % 2]}
                    | measured
                )
            return rounds
        finally:
            referee.stop()
    finally:
        bgio.stop()


def _memories(folder: Path, settings: Settings) -> dict[str, Any]:
    found: dict[str, Any] = {"uptime_before": _uptime()}
    bgio = _boardgameio(folder)
    try:
        found["boardgameio"] = memory(
            bgio,
            _node_driver(_memory_settings(settings) | {"server": f"http://{bgio.address}"}),
            settings,
        )
    finally:
        bgio.stop()
    referee = _referee(folder)
    try:
        found["referee"] = memory(
            referee,
            _sdk_driver(_memory_settings(settings) | {"server": referee.address}),
            settings,
        )
    finally:
        referee.stop()
    found["uptime_after"] = _uptime()
    return found


def _ratio(ours: float | None, theirs: float | None) -> float | None:
    if ours is None or theirs is None or theirs == 0:
        return None
    return ours / theirs


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

    def side(name: str, key: str) -> float | None:
        values = [r[name][key] for r in rounds if r[name][key] is not None]
        return float(statistics.median(values)) if values else None

    figures: dict[str, Any] = {}
    for key in ("server_cpu_us_per_move", "p50_ms", "p99_ms", "moves_per_second"):
        ours, theirs = side("referee", key), side("boardgameio", key)
        figures[key] = {"referee": ours, "boardgameio": theirs, "ratio": _ratio(ours, theirs)}
    for key in ("kib_per_game", "kib_per_client"):
        ours, theirs = memories["referee"][key], memories["boardgameio"][key]
        figures[key] = {"referee": ours, "boardgameio": theirs, "ratio": _ratio(ours, theirs)}
    return {
        "versions": versions(),
        "referee_store": REFEREE_STORE,
        "concurrent_games": settings.games,
        "players": settings.players,
        "warmup": settings.warmup,
        "seconds": settings.seconds,
        "figures": figures,
        "errors": sum(r[name]["errors"] for r in rounds for name in ("referee", "boardgameio")),
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
        f"store) and the referee (store `{p14['referee_store']}`), {p14['concurrent_games']} "
        f"games x {p14['players']} seats each, a random legal move on every turn, every seat "
        f"on a connection of its own; medians of {len(p14['rounds'])} alternating rounds of "
        f"{p14['seconds']:.0f} s.",
        "",
        "| figure | referee | boardgame.io | ratio |",
        "|---|---:|---:|---:|",
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
            f"| {name} | {_cell(figure['referee'], digits)} "
            f"| {_cell(figure['boardgameio'], digits)} | **{_cell(figure['ratio'], 2)}** |"
        )
    out += [
        "",
        "| round | load before | load after | referee µs/move | boardgame.io µs/move | ratio |",
        "|---:|---|---|---:|---:|---:|",
    ]
    for index, r in enumerate(p14["rounds"]):
        ours = r["referee"]["server_cpu_us_per_move"]
        theirs = r["boardgameio"]["server_cpu_us_per_move"]
        out.append(
            f"| {index} | {r['uptime_before']} | {r['uptime_after']} "
            f"| {ours:,.0f} | {theirs:,.0f} | {_cell(_ratio(ours, theirs), 2)} |"
        )
    mem = p14["memory"]
    out += [
        "",
        f"Memory ({mem['uptime_before']}): each server fresh, RSS after a warm-up, after "
        f"{mem['referee']['games']:,} more games and after {mem['referee']['clients']:,} "
        f"clients: boardgame.io {mem['boardgameio']['rss_warm_mib']:.0f} -> "
        f"{mem['boardgameio']['rss_games_mib']:.0f} -> "
        f"{mem['boardgameio']['rss_clients_mib']:.0f} MiB, the referee "
        f"{mem['referee']['rss_warm_mib']:.0f} -> {mem['referee']['rss_games_mib']:.0f} -> "
        f"{mem['referee']['rss_clients_mib']:.0f} MiB.",
    ]
    return out
