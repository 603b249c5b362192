"""P1 peers: RLCard's UNO environment and OpenSpiel's ``crazy_eights`` (C++), random play.

Both come from the optional ``bench`` extra (``pip install -e '.[bench]'``, done by
``make bench``). A peer that is not installed is skipped with a note, never an error.
"""

from __future__ import annotations

import importlib
import random
import time
from typing import Any

#: Shown in the report next to each peer.
RLCARD_UNO = "rlcard uno"
OPENSPIEL_CRAZY_EIGHTS = "open_spiel crazy_eights"


def _module(name: str) -> Any:
    """The module, or None when it is not installed (imported untyped: no stubs exist)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def versions() -> dict[str, str | None]:
    from importlib import metadata

    found: dict[str, str | None] = {}
    for dist in ("rlcard", "open_spiel", "numpy"):
        try:
            found[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            found[dist] = None
    return found


def rlcard_uno(seconds: float, seed: int = 0) -> dict[str, Any] | str:
    """``rlcard.make('uno')`` (2 players), each step a random legal action; or a note."""
    rlcard = _module("rlcard")
    if rlcard is None:
        return "rlcard is not installed (pip install -e '.[bench]')"
    env = rlcard.make("uno", config={"seed": seed})
    rng = random.Random(seed)
    steps = games = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while games == 0 or time.perf_counter() - started < seconds:
        state, _ = env.reset()
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            steps += 1
        games += 1
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    return {
        "players": env.num_players,
        "games": games,
        "steps": steps,
        "seconds": elapsed,
        "cpu_seconds": cpu,
        "steps_per_second": steps / max(cpu, 1e-9),
    }


def openspiel_crazy_eights(seconds: float, seed: int = 0) -> dict[str, Any] | str:
    """``pyspiel.load_game('crazy_eights')`` (5 players, C++), random legal actions; or a note.

    Only the players' decisions count as steps; chance nodes (the deal, draws) are sampled
    and applied too, and counted apart as ``chance_steps``.
    """
    pyspiel = _module("pyspiel")
    if pyspiel is None:
        return "open_spiel is not installed (pip install -e '.[bench]')"
    game = pyspiel.load_game("crazy_eights")
    rng = random.Random(seed)
    steps = chance = games = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while games == 0 or time.perf_counter() - started < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights)[0])
                chance += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        games += 1
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    return {
        "players": game.num_players(),
        "games": games,
        "steps": steps,
        "chance_steps": chance,
        "seconds": elapsed,
        "cpu_seconds": cpu,
        "steps_per_second": steps / max(cpu, 1e-9),
    }
