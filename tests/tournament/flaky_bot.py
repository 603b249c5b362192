"""A deliberately faulty bot for the tournament tests (built on the SDK).

python flaky_bot.py --server S --game-id G --token T [--seed X] --mode crash|hang|illegal
    [--after N]

It plays random legal commands; ``illegal`` sends an empty (malformed) command first;
``crash`` exits with status 3 at its decision number N + 1 (default 1), ``hang`` sleeps there.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients"))

from referee.v1 import referee_pb2
from referee_bot.sdk import SeatContext, main, parser


class Flaky:
    def __init__(self, mode: str, after: int, rng: random.Random) -> None:
        self.mode = mode
        self.after = after
        self.rng = rng
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
        return self.rng.choice(list(view.legal_commands))


def make_bot(context: SeatContext) -> Flaky:
    return Flaky(context.args.mode, context.args.after, context.rng)


if __name__ == "__main__":
    arguments = parser("flaky-bot")
    arguments.add_argument("--mode", choices=["crash", "hang", "illegal"], required=True)
    arguments.add_argument("--after", type=int, default=1)
    sys.exit(main(make_bot, prog="flaky-bot", arguments=arguments))
