"""P12: the referee's in-process cost per command, and where it goes by stage.

No transport: the application layer (:class:`~referee.application.Referee` on the memory
store) drives ``games`` concurrent games with a random bot on every seat, each seat reading
its own **batched** stream and turning each update into the bytes a transport would send
(``referee.server.convert.update_bytes``), each command arriving as the serialized
``referee.v1.Command`` a transport would hand over (decoded here, as the service does) and
its answer encoded as the service encodes it. When a game ends another starts.

Two figures per round, from separate windows of the same process:

* **plain**: CPU time of the whole process per command, nothing instrumented (the figure
  to quote), next to the engine's own step of the same game (P1's random play, in the same
  round): the ratio is the in-process cost in engine steps (goal: at most 10);
* **stages**: the same load with the synchronous functions of each stage wrapped in a timer
  (thread CPU time, each stage's own time without the stages it calls), CPU per command by
  stage; what no stage claims (asyncio's tasks and wake-ups, the stream generators, the
  bots) is the row *unattributed*. The wrappers cost time of their own, so the stages'
  total is above the plain figure; the split, not the sum, is what this window is for.

The bots' own work (choosing a command, writing its bytes) is timed and left out of both.

It imports only what older versions of the application had too, so the same file measures
an older checkout side by side (``PYTHONPATH=/old/tree python /tmp/stages.py``). Nothing
here asserts a speed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import structlog

#: (module, attribute path, stage): the synchronous functions each stage is made of. A stage
#: named twice adds up; a function that calls another stage's function is charged only its
#: own time. Targets missing from a checkout are skipped (an older tree measures as it is).
TARGETS = (
    ("referee.application.tables.commands", "_fingerprint", "idempotency/fingerprint"),
    ("referee.application.tables.commands", "encode_command", "idempotency/fingerprint"),
    ("referee.engine.table", "Table.decide", "decide"),
    ("referee.engine.table", "Table._committed", "commitments and openings"),
    ("referee.engine.table", "Table.deck_tracker", "commitments and openings"),
    ("referee.application.tables.repository", "encode_batch", "append"),
    ("referee.store.memory", "MemoryEventStore.append", "append"),
    ("referee.application.tables.live", "LiveGame.absorb", "apply"),
    ("referee.engine.table", "Table.view", "views"),
    ("referee.application.tables.live", "LiveGame.view", "views"),
    ("referee.application.tables.live", "LiveGame.batch_update", "views"),
    ("referee.application.tables.live", "LiveGame.view_holders", "views"),
    ("referee.engine.table", "Table.redact", "redactions"),
    ("referee.application.tables.live", "LiveGame.stamped", "redactions"),
    ("referee.application.tables.values", "view_bytes", "encoding"),
    ("referee.application.tables.values", "event_bytes", "encoding"),
    ("referee.server.convert", "update_bytes", "encoding"),
    ("referee.server.convert", "submitted_bytes", "encoding"),
    ("referee.application.tables.fanout", "FanOut.publish", "fan-out"),
    ("referee.application.tables.timekeeper", "Timekeeper.arm", "clocks"),
    ("referee.application.tables.timekeeper", "Timekeeper._overdue", "clocks"),
    ("referee.application.tables.clocks", "SeatClocks.fold", "clocks"),
    ("referee.application.tables.clocks", "SeatClocks.elapsed", "clocks"),
    ("referee.application.tables.repository", "Repository.present", "clocks"),
    ("prometheus_client.metrics", "MetricWrapperBase.labels", "metrics"),
    ("prometheus_client.metrics", "Histogram.observe", "metrics"),
    ("prometheus_client.metrics", "Counter.inc", "metrics"),
    ("prometheus_client.metrics", "Gauge.set", "metrics"),
    ("structlog._config", "BoundLoggerLazyProxy.bind", "logging"),
    ("structlog._base", "BoundLoggerBase._process_event", "logging"),
)
#: The rows of the table, in a command's order through the server (``decode`` is the driver's own).
STAGES = (
    "decode",
    "idempotency/fingerprint",
    "decide",
    "commitments and openings",
    "append",
    "apply",
    "views",
    "redactions",
    "encoding",
    "fan-out",
    "clocks",
    "metrics",
    "logging",
)


def _devnull() -> TextIO:
    return open(os.devnull, "w")


@contextmanager
def _untimed(_name: str) -> Iterator[None]:
    yield


class Timers:
    """Exclusive thread-CPU time per stage, for wrapped synchronous functions."""

    def __init__(self) -> None:
        self.own: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        #: The running stages' children time, innermost last.
        self._stack: list[float] = []
        self._undo: list[tuple[Any, str, Any]] = []

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        clock = time.thread_time
        stack = self._stack
        stack.append(0.0)
        started = clock()
        try:
            yield
        finally:
            spent = clock() - started
            children = stack.pop()
            self.own[name] += spent - children
            self.calls[name] += 1
            if stack:
                stack[-1] += spent

    def wrap(self, owner: Any, name: str, stage: str) -> None:
        original = owner.__dict__[name]
        timers = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            with timers.stage(stage):
                return original(*args, **kwargs)

        setattr(owner, name, timed)
        self._undo.append((owner, name, original))

    def install(self) -> list[str]:
        """Wrap every target present; returns the missing ones."""
        import importlib

        missing = []
        for module_name, path, stage in TARGETS:
            try:
                owner: Any = importlib.import_module(module_name)
            except ImportError:
                missing.append(f"{module_name}.{path}")
                continue
            *classes, name = path.split(".")
            for cls in classes:
                owner = getattr(owner, cls, None)
            if owner is None or name not in getattr(owner, "__dict__", {}):
                missing.append(f"{module_name}.{path}")
                continue
            self.wrap(owner, name, stage)
        return missing

    def remove(self) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)
        self._undo.clear()


async def _drive(
    game_type: str, players: int, games: int, commands: int, seed: int, timers: Timers | None
) -> dict[str, float]:
    """``commands`` commands over ``games`` concurrent games; CPU seconds (process, bots)."""
    from referee import codec
    from referee.application import Referee
    from referee.server import convert
    from referee.store import MemoryEventStore
    from referee.v1 import referee_pb2 as pb

    referee = Referee(MemoryEventStore())
    await referee.recover()
    rng = random.Random(seed)
    done = asyncio.Event()
    counted = {"commands": 0, "bots": 0.0, "games": 0}
    stage = timers.stage if timers is not None else _untimed

    async def seat_loop(game_id: str, seat: int, token: str) -> None:
        stream = referee.stream(game_id, seat_token=token, batched=True)
        live = referee.games[game_id]
        number = 0
        try:
            async for update in stream:
                with stage("encoding"):
                    convert.update_bytes(update, True)
                view = update.view.view
                if done.is_set() or view.results is not None:
                    return
                if seat not in view.pending or view.version != live.table.version:
                    continue  # not this seat's turn, or a batch it has not caught up past
                bot_started = time.thread_time()
                choice = rng.choice(view.legal_commands)
                wire = codec.command_to_proto(game_type, choice).SerializeToString()
                counted["bots"] += time.thread_time() - bot_started
                with stage("decode"):
                    command = codec.command_from_proto(pb.Command.FromString(wire))[1]
                number += 1
                answer = await referee.submit(game_id, token, f"{seat}-{number}", command)
                with stage("encoding"):
                    convert.submitted_bytes(answer)
                counted["commands"] += 1
                if counted["commands"] >= commands:
                    done.set()
        finally:
            await stream.aclose()

    async def table_loop() -> None:
        try:
            await tables_of_games()
        except BaseException:
            done.set()  # a failure ends the window (and is raised below)
            raise

    async def tables_of_games() -> None:
        while not done.is_set():
            created = await referee.create(game_type, players)
            counted["games"] += 1
            tokens = created.seat_tokens
            gid = created.summary.game_id
            await asyncio.gather(*(seat_loop(gid, s, tokens[s]) for s in range(players)))

    cpu = time.process_time()
    tables = [asyncio.ensure_future(table_loop()) for _ in range(games)]
    try:
        await done.wait()
        for task in tables:  # the seats still waiting for a batch that will not come
            task.cancel()
        for outcome in await asyncio.gather(*tables, return_exceptions=True):
            if isinstance(outcome, Exception):
                raise outcome
    finally:
        referee.close()
    return {
        "cpu": time.process_time() - cpu,
        "bots": counted["bots"],
        "commands": counted["commands"],
        "games": counted["games"],
    }


def _engine_step(game_type: str, players: int, seconds: float) -> float:
    """CPU µs per engine step of random play (P1's) of the same game."""
    from referee.bench.engine import measure, random_play

    random_play(game_type, players, 0)  # imports and first-use work stay out of the figure
    found = measure(game_type, players, seconds)
    return 1e6 / float(found["steps_per_second"])


@contextmanager
def _logging_nowhere() -> Iterator[None]:
    """Info-level JSON log lines as the server writes them (a game's creation, its end),
    written nowhere, then the process's own configuration back.

    The whole chain is set, not only where lines go: a chain left by an earlier server in the
    same process (``configure_logging``'s ends in the standard library's formatter) cannot
    write to a print logger.
    """
    before = structlog.get_config()
    kept = {**before, "processors": list(before["processors"])}
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        logger_factory=structlog.PrintLoggerFactory(file=_devnull()),
    )
    try:
        yield
    finally:
        structlog.configure(**kept)


def _round(game_type: str, players: int, games: int, commands: int, seed: int) -> dict[str, Any]:
    with _logging_nowhere():
        plain = asyncio.run(_drive(game_type, players, games, commands, seed, None))
        timers = Timers()
        missing = timers.install()
        try:
            staged = asyncio.run(_drive(game_type, players, games, commands, seed, timers))
        finally:
            timers.remove()
    n = staged["commands"]
    per = {name: timers.own.get(name, 0.0) / n * 1e6 for name in STAGES}
    total = (staged["cpu"] - staged["bots"]) / n * 1e6
    per["unattributed"] = total - sum(per.values())
    return {
        "plain_us": (plain["cpu"] - plain["bots"]) / plain["commands"] * 1e6,
        "staged_total_us": total,
        "stages_us": per,
        "commands": plain["commands"],
        "games": plain["games"],
        "missing": missing,
    }


def run(
    quick: bool = False,
    game_type: str = "vampire-queen",
    players: int = 4,
    games: int = 32,
    rounds: int | None = None,
) -> dict[str, Any]:
    """Rounds of engine step, plain window and staged window; medians."""
    rounds = rounds or (1 if quick else 3)
    commands = 400 if quick else 6000
    if quick:
        games = min(games, 4)
    found = []
    for number in range(rounds):
        load = os.getloadavg()  # the machine is shared: the figures come with its load
        step = _engine_step(game_type, players, 0.3 if quick else 1.5)
        one = _round(game_type, players, games, commands, number)
        one["engine_step_us"] = step
        one["load_average"] = [round(x, 2) for x in load]
        one["steps_per_command"] = one["plain_us"] / step
        found.append(one)
    med = statistics.median
    return {
        "game_type": game_type,
        "players": players,
        "games": games,
        "commands_per_round": commands,
        "engine_step_us": med(r["engine_step_us"] for r in found),
        "plain_us": med(r["plain_us"] for r in found),
        "steps_per_command": med(r["steps_per_command"] for r in found),
        "stages_us": {s: med(r["stages_us"][s] for r in found) for s in found[0]["stages_us"]},
        "staged_total_us": med(r["staged_total_us"] for r in found),
        "missing": found[0]["missing"],
        "rounds": found,
    }


def markdown(p12: dict[str, Any]) -> list[str]:
    lines = [
        f"In-process, {p12['games']} games x {p12['players']} seats of {p12['game_type']}, "
        f"batched streams, memory store: **{p12['plain_us']:,.0f} µs** of CPU per command, "
        f"**{p12['steps_per_command']:.1f}** engine steps ({p12['engine_step_us']:.1f} µs each; "
        "goal: at most 10).",
        "",
        "| stage | µs per command |",
        "|---|---:|",
    ]
    lines += [f"| {name} | {value:,.1f} |" for name, value in p12["stages_us"].items()]
    lines.append(f"| total (instrumented) | {p12['staged_total_us']:,.0f} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--game", default="vampire-queen")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--json", action="store_true", help="print the JSON, not the table")
    args = parser.parse_args(argv)
    found = run(args.quick, args.game, args.players, rounds=args.rounds)
    print(json.dumps(found, indent=2) if args.json else "\n".join(markdown(found)))
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["STAGES", "TARGETS", "Timers", "markdown", "run"]
