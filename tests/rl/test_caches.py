"""The encoders' and masks' caches change no observation.

The encoders keep the entries that change once a round or hand at most (Dracula vs Van
Helsing: the last ones met, reused while the view's districts, track, round, HP and order stay
equal; Mau Mau Vampires: by the values they come from) and :class:`referee.rl.core.ActionTable`
keeps masks by their set of legal actions (docs/performance.md, P8); no cache is keyed by an
object's identity. A deep copy of a view shares no object with it: its observation and mask
must be those of the view itself, at every step of random games, whichever of the two is
encoded first.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest

from referee.engine import Table
from referee.rl import spec
from referee.rl.core import ActionTable
from tests.rl.test_envs import CASES


@pytest.mark.parametrize(("game_type", "players"), CASES)
def test_a_copy_of_a_view_encodes_and_masks_the_same(game_type: str, players: int) -> None:
    game = spec(game_type, players)
    rng = random.Random(players)
    checked = 0
    for number in range(3):
        table: Table[Any] = Table.create(game_type, players, seed=f"cache-{number}".encode())
        while True:
            for viewer in rng.sample(range(players), min(players, 2)):
                view = table.view(viewer)
                twin = copy.deepcopy(view)
                assert twin == view
                pair = [view, twin] if rng.random() < 0.5 else [twin, view]
                first, second = (game.encoder.encode(v) for v in pair)
                assert first.dtype == second.dtype == np.float32
                assert np.array_equal(first, second)
                masks = [game.actions.mask(v.legal_commands) for v in pair]
                assert np.array_equal(masks[0], masks[1])
                checked += 1
            if table.results() is not None or checked > 400:
                break
            seat = table.pending()[0]
            table.submit(seat, rng.choice(table.legal_commands(seat)))
    assert checked > 50


def test_a_mask_is_the_callers_own_and_the_limits_keep_it_right() -> None:
    """A returned mask can be changed without changing the next one; for commands equal to the
    table's but not the same objects, and past the cache's limits (new sets of legal actions,
    after which the table stops keeping masks), the masks stay right."""
    table = ActionTable("demo", tuple(f"c{i}" for i in range(40)))
    first = table.mask(("c1", "c2"))
    first[:] = 1
    assert table.mask(("c2", "c1")).tolist() == [0, 1, 1] + [0] * 37
    rng = random.Random(0)
    for _ in range(6000):
        chosen = rng.sample(range(40), 3)
        # new string objects every time: equal to the table's commands, never the same ones
        legal = ["".join(["c", str(i)]) for i in chosen]
        assert np.flatnonzero(table.mask(legal)).tolist() == sorted(chosen)
    assert table._masks is None  # mostly new sets: the table stopped keeping masks
