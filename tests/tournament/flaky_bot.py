"""A deliberately faulty bot for the tournament tests (built on the SDK).

python flaky_bot.py --server S --game-id G --token T [--seed X]
    --mode crash|hang|illegal|resign [--after N]

It plays random legal commands; ``illegal`` sends an empty (malformed) command first;
``crash`` exits with status 3 at its decision number N + 1 (default 1), ``hang`` sleeps there,
``resign`` resigns its seat there (``Resign`` with its token) and exits with status 0.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients"))

import grpc

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.sdk import SeatContext, main, parser


class Flaky:
    def __init__(self, mode: str, after: int, rng: random.Random, context: SeatContext) -> None:
        self.mode = mode
        self.after = after
        self.rng = rng
        self.context = context
        self.decisions = 0

    def choose(self, view: referee_pb2.View) -> referee_pb2.Command:
        self.decisions += 1
        if self.mode == "illegal" and self.decisions == 1:
            return referee_pb2.Command()  # names no command: INVALID_ARGUMENT
        if self.decisions > self.after:
            if self.mode == "crash":
                os._exit(3)
            if self.mode == "hang":
                time.sleep(3600)
            if self.mode == "resign":
                self.resign()
        return self.rng.choice(list(view.legal_commands))

    def resign(self) -> None:
        context = self.context
        with grpc.insecure_channel(context.server) as channel:
            stub = referee_pb2_grpc.RefereeServiceStub(channel)
            request = referee_pb2.ResignRequest(
                game_id=context.game_id, seat_token=context.args.token
            )
            stub.Resign(request, timeout=10)
        sys.stdout.flush()
        os._exit(0)  # nothing left to play: the referee plays for the seat to the end


def make_bot(context: SeatContext) -> Flaky:
    return Flaky(context.args.mode, context.args.after, context.rng, context)


if __name__ == "__main__":
    arguments = parser("flaky-bot")
    arguments.add_argument("--mode", choices=["crash", "hang", "illegal", "resign"], required=True)
    arguments.add_argument("--after", type=int, default=1)
    sys.exit(main(make_bot, prog="flaky-bot", arguments=arguments))
