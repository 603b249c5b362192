"""A bot written with the Python SDK (referee_bot.sdk): one class, one method.

python tournaments/bots/sdk_random.py --server=ADDR --game-id=ID --token=TOKEN [--seed=S]

It plays a uniformly random legal command, from a generator seeded with --seed (so the
tournament's games are reproducible). Replace ``choose`` with your own policy: ``view`` is the
seat's referee.v1 View, with the game's own view in ``view.<game>`` (e.g.
``view.vampire_queen.hand``) and the legal commands in ``view.legal_commands``.
"""

from __future__ import annotations

import random
import sys

from referee.v1 import referee_pb2
from referee_bot.sdk import main


class RandomBot:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: referee_pb2.View) -> referee_pb2.Command:
        return self.rng.choice(list(view.legal_commands))


if __name__ == "__main__":
    sys.exit(main(lambda context: RandomBot(context.rng), prog="sdk-random"))
