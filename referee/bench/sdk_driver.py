"""The client side of P14 for the referee, written as a user of the Python SDK writes a bot.

Each seat is :func:`referee_bot.sdk.play` with a bot that picks a random legal command, on a
channel (a connection) of its own, in a thread of its own: the seat's batched ``StreamGame``
(the SDK's default; the driver makes the stream itself only to cancel it at the window's
end) and a ``SubmitCommand`` per command, as the SDK does them. A coordinator creates each
game.

It speaks to ``referee bench`` as :mod:`referee.bench.boardgame`'s boardgame.io driver does
(``referee/bench/boardgameio/driver.js``): JSON lines on stdout, a line on stdin awaited
between the stages it reports, so that the bench samples the server's /proc between them::

    python -m referee.bench.sdk_driver '{"mode": "load", "server": "127.0.0.1:PORT", ...}'

``load`` and ``memory`` take the settings the Node driver takes. In ``memory`` the clients
hold the seat's batched ``StreamGame`` on a connection each (grpc.aio, many at once in one thread;
the SDK's thread per seat would measure the driver's threads, not the server).
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

import grpc

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc

#: A channel of its own per client: one TCP connection each, as each socket.io client has.
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
GAME_TYPE = "vampire-queen"
RPC_TIMEOUT = 30.0


def say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def told() -> None:
    sys.stdin.readline()


@dataclass
class Window:
    """The measured window: moves whose update reached every seat, and their round trips."""

    phase: str = "warmup"
    start: float = 0.0
    moves: int = 0
    games: int = 0
    errors: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def round_trip(self, sent: float, arrived: float) -> None:
        with self.lock:
            if self.phase == "measure" and sent >= self.start:
                self.moves += 1
                self.latencies_ms.append((arrived - sent) * 1000.0)


@dataclass
class Match:
    """One game's commands in flight: when each was sent, how many seats have its update."""

    players: int
    window: Window
    #: Set once every seat has its first message.
    started: threading.Event
    seated: int = 0
    sent_at: dict[int, float] = field(default_factory=dict)
    arrivals: dict[int, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def sent(self, version: int) -> None:
        with self.lock:
            self.sent_at[version] = time.perf_counter()

    def seat_started(self) -> None:
        with self.lock:
            self.seated += 1
            if self.seated == self.players:
                self.started.set()

    def arrived(self, after_version: int) -> None:
        """A seat has the settled view that follows the one at ``after_version``."""
        now = time.perf_counter()
        with self.lock:
            count = self.arrivals.get(after_version, 0) + 1
            if count < self.players:
                self.arrivals[after_version] = count
                return
            self.arrivals.pop(after_version, None)
            sent = self.sent_at.pop(after_version, None)
        if sent is not None:
            self.window.round_trip(sent, now)


class RandomSeat:
    """The SDK bot: a random legal command; it notes when the command leaves."""

    def __init__(self, match: Match, rng: random.Random) -> None:
        self.match = match
        self.rng = rng

    def choose(self, view: pb.View) -> pb.Command:
        self.match.sent(view.version)
        return self.rng.choice(view.legal_commands)


class SeatFollower:
    """The seat's ``on_message``: each settled view after the first is an arrival."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.version: int | None = None

    def __call__(self, message: pb.StreamGameResponse) -> None:
        from referee_bot.runner import settled

        if not settled(message):
            return
        version = message.view.version
        if self.version is None:
            self.match.seat_started()
        elif version > self.version:
            self.match.arrived(self.version)
        if self.version is None or version > self.version:
            self.version = version


def play_match(
    address: str,
    settings: dict[str, Any],
    window: Window,
    rng: random.Random,
    started: threading.Event,
) -> None:
    """One game from creation to its end (or the end of the window), an SDK seat per seat;
    ``started`` is set once every seat has its first message."""
    from referee_bot.runner import GameStream
    from referee_bot.sdk import play

    players = int(settings["players"])
    with grpc.insecure_channel(address, options=OWN_CONNECTION) as channel:
        created = pb_grpc.RefereeServiceStub(channel).CreateGame(
            pb.CreateGameRequest(game_type=GAME_TYPE, players=players), timeout=RPC_TIMEOUT
        )
    match = Match(players, window, started)
    streams: list[GameStream] = []
    channels = [grpc.insecure_channel(address, options=OWN_CONNECTION) for _ in created.seats]
    threads = []
    for seat, channel in zip(created.seats, channels, strict=True):
        stub = pb_grpc.RefereeServiceStub(channel)
        stream = GameStream(
            stub, created.game_id, token=seat.token, stop_at_game_over=True, batched=True
        )
        streams.append(stream)
        bot = RandomSeat(match, random.Random(rng.random()))
        follower = SeatFollower(match)

        def seat_play(
            bot: RandomSeat = bot,
            stub: Any = stub,
            stream: GameStream = stream,
            token: str = seat.token,
            follower: SeatFollower = follower,
        ) -> None:
            try:
                play(bot, stub, created.game_id, token, stream=stream, on_message=follower)
            except Exception:  # a seat that failed is counted, and its error shown
                if window.phase != "stopping":
                    traceback.print_exc()
                    with window.lock:
                        window.errors += 1

        threads.append(threading.Thread(target=seat_play, daemon=True))
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        if window.phase == "stopping":
            for stream in streams:
                stream.cancel()
        for thread in threads:
            thread.join(0.05)
    for channel in channels:
        channel.close()


def run_load(settings: dict[str, Any]) -> None:
    window = Window()
    address = str(settings["server"])

    starts = [threading.Event() for _ in range(int(settings["games"]))]

    def slot(index: int) -> None:
        rng = random.Random(int(settings["seed"]) * 7919 + index)
        while window.phase != "stopping":
            play_match(address, settings, window, rng, starts[index])
            if window.phase != "stopping":
                with window.lock:
                    window.games += 1

    slots = [
        threading.Thread(target=slot, args=(index,), daemon=True)
        for index in range(int(settings["games"]))
    ]
    for thread in slots:
        thread.start()
    deadline = time.monotonic() + 120  # the warm-up starts once every game is under way
    for started in starts:
        started.wait(max(0.0, deadline - time.monotonic()))
    time.sleep(float(settings["warmup"]))
    with window.lock:
        window.phase = "measure"
        window.start = time.perf_counter()
    say({"event": "measuring"})
    time.sleep(float(settings["seconds"]))
    with window.lock:
        seconds = time.perf_counter() - window.start
        window.phase = "stopping"
        done = {
            "event": "done",
            "moves": window.moves,
            "seconds": seconds,
            "latencies_ms": list(window.latencies_ms),
            "games": window.games,
            "errors": window.errors,
        }
    say(done)
    deadline = time.monotonic() + 10
    for thread in slots:
        thread.join(max(0.0, deadline - time.monotonic()))


# --- memory -----------------------------------------------------------------------------------


async def _new_games(stub: pb_grpc.RefereeServiceStub, count: int, players: int) -> list[Any]:
    made: list[Any] = []
    for start in range(0, count, 16):
        batch = [
            stub.CreateGame(
                pb.CreateGameRequest(game_type=GAME_TYPE, players=players), timeout=RPC_TIMEOUT
            )
            for _ in range(start, min(count, start + 16))
        ]
        made += await asyncio.gather(*batch)
    return made


async def _connect(address: str, games: list[Any]) -> list[tuple[grpc.aio.Channel, Any]]:
    """A connection per seat of ``games``, each holding the seat's stream after its first
    message."""
    held: list[tuple[grpc.aio.Channel, Any]] = []

    async def client(game: Any, seat: Any) -> None:
        channel = grpc.aio.insecure_channel(address, options=OWN_CONNECTION)
        call = pb_grpc.RefereeServiceStub(channel).StreamGame(
            pb.StreamGameRequest(game_id=game.game_id, seat_token=seat.token, batched=True)
        )
        held.append((channel, call))
        await call.read()

    pairs = [(game, seat) for game in games for seat in game.seats]
    for start in range(0, len(pairs), 32):
        await asyncio.gather(*(client(game, seat) for game, seat in pairs[start : start + 32]))
    return held


async def _memory(settings: dict[str, Any]) -> None:
    address = str(settings["server"])
    players = int(settings["players"])
    loop = asyncio.get_running_loop()
    async with grpc.aio.insecure_channel(address, options=OWN_CONNECTION) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        warm = await _new_games(stub, int(settings["warm_games"]), players)
        held = await _connect(address, warm)
        say({"event": "warm"})
        await loop.run_in_executor(None, told)
        games = await _new_games(stub, int(settings["games"]), players)
        say({"event": "games", "games": len(games)})
        await loop.run_in_executor(None, told)
        clients = await _connect(address, games[: int(settings["client_games"])])
        say({"event": "clients", "clients": len(clients)})
        await loop.run_in_executor(None, told)
        for other, call in held + clients:
            call.cancel()
            await other.close()


def main(argv: list[str]) -> int:
    settings = json.loads(argv[0])
    if settings["mode"] == "load":
        run_load(settings)
    else:
        asyncio.run(_memory(settings))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
