"""The Python bot SDK: write ``choose(view) -> command``, the SDK plays the seat.

A bot is any object with one method::

    class FirstLegal:
        def choose(self, view: referee_pb2.View) -> referee_pb2.Command:
            return view.legal_commands[0]

``view`` is the seat's :class:`referee_pb2.View` (the game's own view in ``view.<game>``, e.g.
``view.vampire_queen.hand``) and ``view.legal_commands`` is never empty when ``choose`` is
called; return one of them (unchanged). :func:`play` runs a bot for one seat until the game is
over, and does the protocol of ``docs/clients.md`` for it:

* it streams the seat's events and views (``StreamGame``, batched: one message per batch of
  events, the view once after it) and asks the bot only for a **settled** view (every view of
  a batched stream; on a plain one, ``event.sequence == event.batch_end_sequence`` or the
  current view that opens a stream) in which the seat is pending, once per view version;
* it submits the choice with a fresh ``command_id`` and ``expected_version`` = the view's
  version, retrying with the same id (never applied twice) while the outcome is unknown
  (``UNAVAILABLE``, ``DEADLINE_EXCEEDED``, a transport error: ``runner.OUTCOME_UNKNOWN``); a
  stale version (``ABORTED``) or a turn that moved on (``FAILED_PRECONDITION``) just means
  waiting for the next view;
* whenever the stream ends before the game is over, for any reason but a refusal of the
  request itself (a server restarting, a replica killed behind a proxy: ``INTERNAL``, an early
  end, ...), it reconnects with backoff and resumes after the last sequence received: no event
  is lost or seen twice;
* an illegal command (``INVALID_ARGUMENT``) is logged and counted, and the seat then plays the
  first legal command of that view (the canonical default), so a buggy bot never stalls a game;
* it times every decision: a ``DEBUG`` log line per decision on the logger
  ``referee_bot.sdk``, and count / mean / p95 / max in :class:`PlayResult` (``referee-bot play``
  prints them). When the referee's ``SubmitCommandRequest`` has a field for the client's
  decision time (one of :data:`DECISION_TIME_FIELDS`), the SDK fills it in.

A script that plays one seat from the command line (the tournament runner starts bots so)::

    from referee_bot.sdk import main

    if __name__ == "__main__":
        raise SystemExit(main(lambda context: FirstLegal()))

    # python my_bot.py --server 127.0.0.1:50051 --game-id ID --token TOKEN [--seed S]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import grpc

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot import DEFAULT_SERVER
from referee_bot.runner import (
    BACKOFF_SECONDS,
    BotError,
    GameStream,
    describe_rpc_error,
    send_command,
    settled,
)
from referee_bot.strategies import Strategy

log = logging.getLogger("referee_bot.sdk")

#: Names the referee may give a ``SubmitCommandRequest`` field for the client-measured decision
#: time in milliseconds; the SDK sends it when the field exists (checked at run time).
DECISION_TIME_FIELDS = ("client_decision_ms", "decision_time_ms", "decision_ms")

#: Submit errors after which the bot just waits for the next view.
STALE = (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)


class Bot(Protocol):
    """Picks one of ``view.legal_commands`` (never empty when called)."""

    def choose(self, view: referee_pb2.View) -> referee_pb2.Command: ...


class StrategyBot:
    """A :mod:`referee_bot.strategies` strategy with its random generator, as an SDK bot."""

    def __init__(self, strategy: Strategy, rng: random.Random) -> None:
        self.strategy = strategy
        self.rng = rng

    def choose(self, view: referee_pb2.View) -> referee_pb2.Command:
        return self.strategy.choose(view, self.rng)

    def feed(self, message: referee_pb2.StreamGameResponse) -> None:
        """Pass the seat's stream on to a strategy that reads it (``search``)."""
        feed = getattr(self.strategy, "feed", None)
        if feed is not None:
            feed(message)


@dataclass
class PlayResult:
    """How a seat's game went, from the bot's side."""

    game_id: str
    seat: int | None = None
    #: Commands the referee accepted from this seat (defaults after an illegal one included).
    commands: int = 0
    #: Commands refused as stale (someone moved first): harmless.
    conflicts: int = 0
    #: Commands the referee refused as illegal (INVALID_ARGUMENT).
    illegal: int = 0
    reconnects: int = 0
    #: Milliseconds each call of ``choose`` took, in order.
    decision_ms: list[float] = field(default_factory=list)
    #: The last view received (the final one when the game is over).
    final_view: referee_pb2.View | None = None

    def decision_summary(self) -> dict[str, float | int]:
        """``{count, mean_ms, p95_ms, max_ms}`` of the decision times."""
        times = sorted(self.decision_ms)
        if not times:
            return {"count": 0, "mean_ms": 0.0, "p95_ms": 0.0, "max_ms": 0.0}
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        return {
            "count": len(times),
            "mean_ms": round(sum(times) / len(times), 3),
            "p95_ms": round(p95, 3),
            "max_ms": round(times[-1], 3),
        }

    def report(self) -> dict[str, object]:
        """The JSON line ``referee-bot play`` prints at the end."""
        view = self.final_view
        result = None
        if view is not None and view.game_over:
            result = next((r for r in view.results if r.seat == self.seat), None)
        return {
            "game_id": self.game_id,
            "seat": self.seat,
            "score": result.score if result else None,
            "rank": result.rank if result else None,
            "commands": self.commands,
            "illegal": self.illegal,
            "reconnects": self.reconnects,
            "decisions": self.decision_summary(),
        }


def _decision_field() -> str | None:
    fields = referee_pb2.SubmitCommandRequest.DESCRIPTOR.fields_by_name
    return next((name for name in DECISION_TIME_FIELDS if name in fields), None)


class _Seat:
    """One seat's submissions: command ids, retries, accounting."""

    def __init__(
        self,
        stub: referee_pb2_grpc.RefereeServiceStub,
        game_id: str,
        token: str,
        result: PlayResult,
        *,
        retries: int = 12,
        backoff: float = BACKOFF_SECONDS[0],
    ) -> None:
        self.stub = stub
        self.game_id = game_id
        self.token = token
        self.result = result
        self.retries = retries
        self.backoff = backoff
        self.time_field = _decision_field()

    def submit(self, command: referee_pb2.Command, version: int, decision_ms: float) -> None:
        """Send ``command`` for the view at ``version``; raises grpc.RpcError when refused."""
        request = referee_pb2.SubmitCommandRequest(
            game_id=self.game_id,
            seat_token=self.token,
            command_id=str(uuid.uuid4()),
            expected_version=version,
            command=command,
        )
        if self.time_field is not None:
            setattr(request, self.time_field, max(0, round(decision_ms)))
        send_command(self.stub, request, retries=self.retries, first_backoff=self.backoff)
        self.result.commands += 1

    def decide(self, bot: Bot, view: referee_pb2.View) -> None:
        start = time.perf_counter()
        command = bot.choose(view)
        elapsed = (time.perf_counter() - start) * 1000.0
        self.result.decision_ms.append(elapsed)
        log.debug(
            "game %s seat %s version %s: decided in %.3f ms",
            self.game_id,
            view.seat,
            view.version,
            elapsed,
        )
        try:
            self.submit(command, view.version, elapsed)
        except grpc.RpcError as error:
            if error.code() in STALE:
                self.result.conflicts += 1  # someone moved first: the stream brings the news
                return
            if error.code() != grpc.StatusCode.INVALID_ARGUMENT:
                raise BotError(
                    f"game {self.game_id} seat {view.seat}: {describe_rpc_error(error)}"
                ) from None
            self.result.illegal += 1
            log.warning(
                "game %s seat %s: illegal command (%s); playing the first legal command",
                self.game_id,
                view.seat,
                describe_rpc_error(error),
            )
            try:
                self.submit(view.legal_commands[0], view.version, elapsed)
            except grpc.RpcError as again:
                if again.code() in STALE:
                    self.result.conflicts += 1
                    return
                raise BotError(
                    f"game {self.game_id} seat {view.seat}: {describe_rpc_error(again)}"
                ) from None


def play(
    bot: Bot,
    stub: referee_pb2_grpc.RefereeServiceStub,
    game_id: str,
    token: str,
    *,
    stream: GameStream | None = None,
    on_message: Callable[[referee_pb2.StreamGameResponse], None] | None = None,
    batched: bool = True,
) -> PlayResult:
    """Play one seat with ``bot`` until the game is over (see the module's docstring).

    Raises :class:`BotError` when the server refuses to go on (e.g. a wrong token) or the
    stream cannot be resumed. ``stream`` may be given to cancel the play from another thread;
    it is used as it is (make it with ``batched=True`` for one message per batch).

    ``on_message`` (and a bot's ``feed``) gets every message of the seat's stream: batched by
    default, each with a whole batch of events in ``message.events`` and the view after it.
    ``batched=False`` asks for the plain stream instead, one message per event in
    ``message.event``, each with the view right after it (passing states included), for a
    caller that wants those views.
    """
    stream = stream or GameStream(
        stub, game_id, token=token, stop_at_game_over=True, batched=batched
    )
    result = PlayResult(game_id=game_id)
    seat = _Seat(stub, game_id, token, result)
    newest = -1  # highest view version seen: replayed views after a reconnect are stale
    acted = -1  # version of the view we last acted on
    try:
        feed = getattr(bot, "feed", None)  # a bot that reads the seat's events (search)
        for message in stream:
            if on_message is not None:
                on_message(message)
            if feed is not None:
                feed(message)
            view = message.view
            result.final_view = view
            if view.HasField("seat"):
                result.seat = view.seat
            if view.version < newest:
                continue
            newest = view.version
            if view.game_over:
                break
            if (
                result.seat is None
                or not settled(message)
                or result.seat not in view.pending_seats
                or not view.legal_commands
                or view.version <= acted
            ):
                continue
            acted = view.version
            seat.decide(bot, view)
    finally:
        stream.cancel()
        result.reconnects = stream.reconnects
    return result


@dataclass(frozen=True)
class SeatContext:
    """What :func:`main` knows before the game starts, for building the bot."""

    server: str
    game_id: str
    game_type: str
    #: ``--seed``, or None.
    seed: str | None
    #: A generator seeded with ``--seed`` (unseeded without it).
    rng: random.Random
    #: Every parsed argument (a bot's own options too, see ``arguments`` of :func:`main`).
    args: argparse.Namespace


def parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The arguments of an SDK bot script: ``--server --game-id --token [--seed]``."""
    parse = argparse.ArgumentParser(prog=prog, description="play one seat of a referee game")
    parse.add_argument("--server", default=DEFAULT_SERVER, help="host:port of the referee")
    parse.add_argument("--game-id", required=True)
    parse.add_argument("--token", required=True, help="the seat's secret token")
    parse.add_argument("--seed", help="seed of the bot's random choices")
    parse.add_argument("-v", "--verbose", action="store_true", help="log every decision")
    return parse


def attach_values(
    argv: Sequence[str], flags: Sequence[str] = ("--token", "--game-id", "--seed")
) -> list[str]:
    """``--token -x`` -> ``--token=-x``: a seat token may begin with ``-``, which argparse
    would take for an option.

    >>> attach_values(["--token", "-abc", "--seed", "1"])
    ['--token=-abc', '--seed=1']
    """
    result: list[str] = []
    items = list(argv)
    index = 0
    while index < len(items):
        item = items[index]
        if item in flags and index + 1 < len(items):
            result.append(f"{item}={items[index + 1]}")
            index += 2
            continue
        result.append(item)
        index += 1
    return result


def main(
    make_bot: Callable[[SeatContext], Bot],
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    arguments: argparse.ArgumentParser | None = None,
) -> int:
    """Run one seat from the command line; print :meth:`PlayResult.report` as one JSON line.

    Returns the exit status: 0 when the game ended, 1 on an error (printed on stderr).
    ``arguments`` may extend :func:`parser` with a bot's own options (they arrive in
    ``context.args``).
    """
    args = (arguments or parser(prog)).parse_args(
        attach_values(sys.argv[1:] if argv is None else argv)
    )
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(name)s: %(message)s",
        stream=sys.stderr,
    )
    name = prog or "referee-bot"
    with grpc.insecure_channel(args.server) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        try:
            game = stub.GetGame(referee_pb2.GetGameRequest(game_id=args.game_id), timeout=30).game
            context = SeatContext(
                server=args.server,
                game_id=args.game_id,
                game_type=game.game_type,
                seed=args.seed,
                rng=random.Random(args.seed),
                args=args,
            )
            result = play(make_bot(context), stub, args.game_id, args.token)
        except grpc.RpcError as error:
            print(f"{name}: {describe_rpc_error(error)}", file=sys.stderr)
            return 1
        except BotError as error:
            print(f"{name}: {error}", file=sys.stderr)
            return 1
    print(json.dumps(result.report()), flush=True)
    return 0
