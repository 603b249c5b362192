"""P10: the player stream, side by side with P2.

The same 32 games x 4 seats as P2, the same server (``referee serve``, SQLite store), but
shaped as bot programs are: one program per seat number, each holding its seat of every game
on **one** PlayerSession stream and sending its commands on that stream (answered there by
command id), instead of one StreamGame per seat and a unary SubmitCommand per command. Each
program is a player with an account (the server runs with ``--open-registration``); a
coordinator makes each game with its seats reserved for the four players, and each program
claims its seat (``ClaimSeat`` with its credential), which its stream then follows from the
``holding`` the claim writes: the whole player flow, as a bot that plays many games at once
sees it.

Each round alternates, from the same client process: the bare fan-out (P2's floor), P2's
referee window (plain streams, unary commands) and the player-stream window; the load average
is recorded beside each round (the machine is shared and noisy). The goals: commands/s at
least 1.0x the bare fan-out's calls/s, server CPU per command at most 2/3 of P2's referee.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from referee.bench.load import (
    CHANNEL_OPTIONS,
    ECHO_ARGV,
    RPC_TIMEOUT,
    GameSpec,
    Load,
    ServerProcess,
    fanout_window,
    referee_argv,
    referee_window,
)
from referee.bench.service import Settings
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc


@dataclass
class _Game:
    """One game of the window as its coordinator sees it: done when every program has seen
    its end."""

    game_id: str
    players: int
    ended: set[int] = field(default_factory=set)
    over: asyncio.Event = field(default_factory=asyncio.Event)


class _Program:
    """One bot program: its seat of every game, on one PlayerSession."""

    def __init__(
        self, stub: pb_grpc.RefereeServiceStub, seat: int, load: Load, seed: int, token: str
    ):
        self.stub = stub
        self.seat = seat
        self.load = load
        self.rng = random.Random(seed)
        self.metadata = (("authorization", f"Bearer {token}"),)
        self.call: Any = stub.PlayerSession(
            timeout=load.warmup + load.seconds + RPC_TIMEOUT, metadata=self.metadata
        )
        self.games: dict[str, _Game] = {}
        self.acted: dict[str, int] = {}
        self.writing = asyncio.Lock()

    async def claim(self, game: _Game) -> None:
        """Take this program's reserved seat of ``game``: its stream follows it from then."""
        self.games[game.game_id] = game
        await self.stub.ClaimSeat(
            pb.ClaimSeatRequest(game_id=game.game_id, seat=self.seat),
            metadata=self.metadata,
            timeout=RPC_TIMEOUT,
        )

    async def run(self) -> None:
        load = self.load
        while True:
            response = await self.call.read()
            if response is grpc.aio.EOF:
                return
            load.messages += 1  # stream messages: each carries every message ready at once
            for message in response.messages:
                command = self._answer(message)
                if command is not None:
                    async with self.writing:
                        await self.call.write(pb.PlayerSessionRequest(command=command))

    def _answer(self, message: pb.PlayerMessage) -> pb.SessionCommand | None:
        """The command to send for ``message``, if any (outcomes and game ends counted)."""
        load = self.load
        kind = message.WhichOneof("kind")
        if kind == "outcome":
            if message.outcome.HasField("refusal"):
                load.errors += 1
            else:
                load.done(time.perf_counter())
            return None
        if kind != "update":
            return None
        update = message.update
        view = update.view
        game = self.games.get(update.game_id)
        if game is None:
            return None
        if view.game_over:
            if self.seat not in game.ended:
                game.ended.add(self.seat)
                if len(game.ended) == game.players:
                    game.over.set()
            return None
        if (
            self.seat not in view.pending_seats
            or not view.legal_commands
            or self.acted.get(update.game_id, -1) >= view.version
            or load.stopping()
        ):
            return None
        self.acted[update.game_id] = view.version
        return pb.SessionCommand(
            game_id=update.game_id,
            seat=self.seat,
            command_id=uuid.uuid4().hex,
            command=self.rng.choice(view.legal_commands),
            expected_version=view.version,
        )


async def play_games(
    addresses: list[str],
    place: Callable[[int, int], int],
    spec: GameSpec,
    concurrency: int,
    load: Load,
    seed: int,
) -> None:
    """``concurrency`` games at once on the servers at ``addresses`` until ``load`` stops: each
    seat a bot program of its own (a registered player on a channel of its own, one per
    server), seat ``s`` of a game created at server ``home`` played from server
    ``place(home, s)``; every game's seats reserved for their players at creation."""
    count = len(addresses)
    channels = [
        grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
        for address in addresses
        for _ in range(spec.players)
    ]
    try:
        # programs[r][s]: seat s's program at server r, on a channel of its own.
        programs: list[list[_Program]] = []
        names: list[list[str]] = []
        for replica in range(count):
            row, named = [], []
            for seat in range(spec.players):
                stub = pb_grpc.RefereeServiceStub(channels[replica * spec.players + seat])
                name = f"bench-{uuid.uuid4().hex[:12]}-{replica}-{seat}"
                token = (
                    await stub.Register(
                        pb.RegisterRequest(name=name, kind=pb.PLAYER_KIND_BOT),
                        timeout=RPC_TIMEOUT,
                    )
                ).token
                row.append(_Program(stub, seat, load, seed + 10 * replica + seat, token))
                named.append(name)
            programs.append(row)
            names.append(named)
        readers = [asyncio.ensure_future(p.run()) for row in programs for p in row]
        coordinators = [row[0].stub for row in programs]

        async def slot(index: int) -> None:
            home = index % count
            game_seed = seed + 100 * index
            seats = [place(home, seat) for seat in range(spec.players)]
            while not load.stopping():
                created = await coordinators[home].CreateGame(
                    pb.CreateGameRequest(
                        game_type=spec.game_type,
                        players=spec.players,
                        options=spec.options,
                        seed=str(game_seed),
                        public_reproducible_seed=True,  # reproducible, nothing secret
                        seat_requests=[
                            pb.SeatRequest(mode=pb.SEAT_MODE_RESERVED, player=names[r][s])
                            for s, r in enumerate(seats)
                        ],
                    ),
                    timeout=RPC_TIMEOUT,
                )
                game = _Game(created.game_id, spec.players)
                await asyncio.gather(*(programs[r][s].claim(game) for s, r in enumerate(seats)))
                remaining = max(0.01, load.end - time.perf_counter())
                try:
                    await asyncio.wait_for(game.over.wait(), remaining)
                except TimeoutError:
                    return
                game_seed += 1_000_003

        try:
            await asyncio.wait_for(
                asyncio.gather(*(slot(i) for i in range(concurrency))),
                load.warmup + load.seconds + RPC_TIMEOUT,
            )
        finally:
            for row in programs:
                for program in row:
                    program.call.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
    finally:
        for channel in channels:
            await channel.close()


async def player_window(
    server: ServerProcess, spec: GameSpec, concurrency: int, load: Load, seed: int
) -> dict[str, Any]:
    """The player-stream load for one window: commands/s, server and client CPU per
    command."""
    server_before, client_before = server.cpu_seconds(), time.process_time()
    started = time.perf_counter()
    await play_games([server.address], lambda home, seat: 0, spec, concurrency, load, seed)
    wall = time.perf_counter() - started
    total = max(load.total, 1)
    server_cpu = server.cpu_seconds() - server_before
    return load.summary() | {
        "server_cpu_us_per_command": 1e6 * server_cpu / total,
        "client_cpu_us_per_command": 1e6 * (time.process_time() - client_before) / total,
        "server_cpu_share": server_cpu / wall,
    }


def _uptime() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} cores)"


async def _rounds(
    referee: ServerProcess, echo_server: ServerProcess, settings: Settings
) -> dict[str, Any]:
    spec = settings.spec
    rounds = []
    for index in range(settings.rounds):
        before = _uptime()
        fanout = await fanout_window(
            echo_server, settings.concurrency, spec.players, Load(settings.warmup, settings.seconds)
        )
        p2 = await referee_window(
            referee,
            spec,
            settings.concurrency,
            Load(settings.warmup, settings.seconds),
            seed=index * 10_000,
        )
        players = await player_window(
            referee,
            spec,
            settings.concurrency,
            Load(settings.warmup, settings.seconds),
            seed=index * 10_000,
        )
        rounds.append(
            {
                "uptime_before": before,
                "uptime_after": _uptime(),
                "fanout": fanout,
                "p2": p2,
                "players": players,
                "to_fanout": players["per_second"] / max(fanout["per_second"], 1e-9),
                "to_p2": players["per_second"] / max(p2["per_second"], 1e-9),
                "cpu_to_p2": players["server_cpu_us_per_command"]
                / max(p2["server_cpu_us_per_command"], 1e-9),
            }
        )

    def middle(key: str) -> float:
        return float(statistics.median(r[key] for r in rounds))

    def side(name: str, key: str) -> float:
        return float(statistics.median(r[name][key] for r in rounds))

    return {
        "game": spec.game_type,
        "players": spec.players,
        "concurrent_games": settings.concurrency,
        "programs": spec.players,
        "player_commands_per_second": side("players", "per_second"),
        "fanout_calls_per_second": side("fanout", "per_second"),
        "p2_commands_per_second": side("p2", "per_second"),
        "player_server_cpu_us_per_command": side("players", "server_cpu_us_per_command"),
        "p2_server_cpu_us_per_command": side("p2", "server_cpu_us_per_command"),
        "player_messages_per_command": side("players", "stream_messages_per_command"),
        "to_fanout": middle("to_fanout"),
        "to_p2": middle("to_p2"),
        "cpu_to_p2": middle("cpu_to_p2"),
        "errors": sum(r["players"]["errors"] for r in rounds),
        "rounds": rounds,
    }


def run(quick: bool, spec: GameSpec, concurrency: int | None = None) -> dict[str, Any]:
    """P10 with its own referee and echo servers (as P2 starts them)."""
    settings = Settings.make(quick, spec, concurrency)
    with tempfile.TemporaryDirectory(prefix="referee-bench-players-") as tmp:
        folder = Path(tmp)
        argv = referee_argv(f"sqlite:{folder / 'referee.sqlite3'}", 10**6, 10**6)
        # Players with accounts, unlimited calls (a limit per player would pace the bench).
        argv += ["--open-registration", "--player-calls-per-minute", "0"]
        referee = ServerProcess.start(argv, folder / "referee.log")
        try:
            echo_server = ServerProcess.start(ECHO_ARGV)
            try:
                return asyncio.run(_rounds(referee, echo_server, settings))
            finally:
                echo_server.stop()
        finally:
            referee.stop()


def markdown(p10: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "## P10 the player stream (side by side with P2)",
        "",
        f"{p10['game']}, {p10['concurrent_games']} games x {p10['players']} seats; "
        f"{p10['programs']} bot programs (accounts), each claiming its reserved seat of every "
        f"game and holding them all on one PlayerSession, sending its commands on it: "
        f"**{p10['player_commands_per_second']:,.0f} commands/s**, "
        f"**{p10['to_fanout']:.2f}x** the bare fan-out's "
        f"{p10['fanout_calls_per_second']:,.0f} calls/s (goal >= 1.0) and "
        f"{p10['to_p2']:.2f}x P2's referee ({p10['p2_commands_per_second']:,.0f} commands/s, "
        f"one stream per seat, unary commands). Server CPU "
        f"{p10['player_server_cpu_us_per_command']:,.0f} µs per command against P2's "
        f"{p10['p2_server_cpu_us_per_command']:,.0f} µs: **{p10['cpu_to_p2']:.2f}x** "
        f"(goal <= 0.67); {p10['player_messages_per_command']:.1f} stream messages per "
        f"command (all programs: an update per seat, the outcome); "
        f"{p10['errors']} refused commands. Medians of "
        f"{len(p10['rounds'])} rounds.",
        "",
        "| round | load before | load after | fan-out calls/s | P2 commands/s "
        "| player stream commands/s | ÷ fan-out | CPU ÷ P2 |",
        "|---:|---|---|---:|---:|---:|---:|---:|",
    ]
    for index, r in enumerate(p10["rounds"], 1):
        lines.append(
            f"| {index} | {r['uptime_before']} | {r['uptime_after']} "
            f"| {r['fanout']['per_second']:,.0f} | {r['p2']['per_second']:,.0f} "
            f"| {r['players']['per_second']:,.0f} | {r['to_fanout']:.2f} | {r['cpu_to_p2']:.2f} |"
        )
    return lines


__all__ = ["markdown", "player_window", "run"]
