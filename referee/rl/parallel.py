"""PettingZoo's parallel API over the games' turns.

The games are turn-based: one seat decides at a time (where several seats are asked at once,
e.g. the opponents answering a called colour in Mau Mau Vampires, they answer one after the
other, and a later answer may depend on what an earlier one revealed). So there is no form in
which every agent moves at once. :func:`parallel_env` gives the parallel API over the turns
(PettingZoo's ``turn_based_aec_to_parallel``): every ``step(actions)`` takes one action per
live agent but plays only that of the agent to act, the one whose ``action_mask`` has an entry
(every other agent's mask is all zeros and its action is ignored);
``infos[agent]["active_agent"]`` names the next agent to act.

>>> par = parallel_env("dracula-vs-van-helsing", seed=3)
>>> observations, infos = par.reset()
>>> [a for a, o in observations.items() if o["action_mask"].any()]
['seat_1']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from referee.rl.aec import env


def parallel_env(
    game: str,
    players: int | None = None,
    options: Mapping[str, str] | None = None,
    seed: int | None = None,
    render_mode: str | None = None,
) -> Any:
    """A PettingZoo ``ParallelEnv`` of ``game`` over its turns (see the module)."""
    return turn_based_aec_to_parallel(env(game, players, options, seed, render_mode))
