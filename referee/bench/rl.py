"""P8: PettingZoo AEC environment steps per second, ours against PettingZoo's RLCard-backed
classic environments, and what the observation encoding costs per step.

Every environment is driven by the same two loops, each a uniformly random legal action from
the observation's ``action_mask`` through ``agent_iter``, ``last()`` and ``step`` (a terminated
agent steps ``None``, not counted): **user**, the loop of docs/embedding.md as a user writes
it (``np.flatnonzero`` of the mask, ``int(rng.choice(legal))`` with a numpy ``Generator``),
and **cheap**, the same with the bench's cheaper pick (``legal[int(random() * len(legal))]``
from :mod:`random`). The target is the user loop's: every game's steps/s ÷ leduc ``env()``'s,
both driven by it. One ``reset(seed=...)`` per run, then plain ``reset()`` between games
(PettingZoo's RLCard envs rebuild the RLCard env on every seeded reset). Rates are per second
of this process's CPU time, as in P1. The peers (``leduc_holdem_v4``, ``texas_holdem_v4``)
need rlcard and pygame (the ``bench`` extra); a peer that cannot be loaded is skipped with a
note.

The target compares with the peers as PettingZoo hands them out, ``env()``: the raw env in its
order, bounds and illegal-move wrappers, the checks our env makes itself (step before reset,
an action out of range or not legal: errors). ``leduc_holdem_v4.raw_env()`` without them is
measured too and shown next to it, not part of the target.

The encoding cost: for views met in random games of each configuration, the CPU time of the
encoder alone and of the mask alone, per observation, next to the environment's whole step.
"""

from __future__ import annotations

import importlib
import random
import time
import warnings
from typing import Any

import numpy as np

#: The two loops (see the module); the first is the target's.
DRIVERS = ("user", "cheap")
#: The peer of the target (the user loop on both sides).
TARGET_PEER = "leduc_holdem_v4"

#: PettingZoo's RLCard-backed classic environments: (module, constructor, in the target).
PEERS = (
    ("leduc_holdem_v4", "env", True),
    ("texas_holdem_v4", "env", True),
    ("leduc_holdem_v4", "raw_env", False),
)


def peer_name(module: str, constructor: str) -> str:
    return module if constructor == "env" else f"{module} {constructor}()"


def configurations(quick: bool) -> list[tuple[str, int]]:
    """(game, players): 4 players (or the only count) in quick runs, fewest and 4 otherwise."""
    from referee.engine import get_game
    from referee.rl import games

    found = []
    for game in games():
        info = get_game(game).info
        four = min(4, info.max_players)
        counts = [four] if quick else sorted({info.min_players, four})
        found += [(game, n) for n in counts]
    return found


def drive(env: Any, seconds: float, seed: int, driver: str = "user") -> dict[str, Any]:
    """Random legal actions through ``env`` for about ``seconds`` of CPU (at least one game),
    picked as ``driver`` says (:data:`DRIVERS`)."""
    if driver == "user":
        rng = np.random.default_rng(seed)

        def choose(legal: Any) -> int:
            return int(rng.choice(legal))  # docs/embedding.md's loop, as written there
    else:
        pick = random.Random(seed).random

        def choose(legal: Any) -> int:
            return int(legal[int(pick() * len(legal))])

    steps = games = 0
    cpu_started = time.process_time()
    started = time.perf_counter()
    env.reset(seed=seed)
    while True:
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(choose(np.flatnonzero(obs["action_mask"])))
            steps += 1
        games += 1
        if time.process_time() - cpu_started >= seconds:
            break
        env.reset()
    cpu = time.process_time() - cpu_started
    return {
        "games": games,
        "steps": steps,
        "seconds": time.perf_counter() - started,
        "cpu_seconds": cpu,
        "steps_per_second": steps / max(cpu, 1e-9),
    }


def peer(name: str, constructor: str = "env") -> Any:
    """A PettingZoo classic env, or a note (str) saying why it cannot be loaded."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = importlib.import_module(f"pettingzoo.classic.{name}")
            return getattr(module, constructor)()
    except ImportError as error:
        return f"pettingzoo.classic.{name} cannot be loaded ({error}; pip install -e '.[bench]')"


def encoding_cost(game: str, players: int, views: int, seed: int) -> dict[str, float]:
    """µs of CPU per observation: encoder alone and mask alone, over views of random games."""
    from referee.engine import Table
    from referee.rl import spec

    chosen = spec(game, players)
    rng = random.Random(seed)
    collected: list[Any] = []
    index = 0
    while len(collected) < views:
        table = Table.create(game, players, seed=f"p8-{seed}-{index}".encode())
        index += 1
        while table.results() is None and len(collected) < views:
            seat = table.pending()[0]
            collected.append(table.view(seat))
            table.submit(seat, rng.choice(table.legal_commands(seat)))
    encode, mask = chosen.encoder.encode, chosen.actions.mask
    started = time.process_time()
    for view in collected:
        encode(view)
    encoded = time.process_time() - started
    started = time.process_time()
    for view in collected:
        mask(view.legal_commands)
    masked = time.process_time() - started
    return {
        "encode_us": encoded / len(collected) * 1e6,
        "mask_us": masked / len(collected) * 1e6,
        "observation_size": chosen.encoder.size,
        "actions": chosen.actions.size,
    }


#: Measurements by driver: ours by (game, players), the peers' by their name, one a round.
Ours = dict[str, dict[tuple[str, int], list[dict[str, Any]]]]
Peers = dict[str, dict[str, list[dict[str, Any]]]]


def run(quick: bool) -> dict[str, Any]:
    try:
        from referee.rl import env as make_env
    except ImportError as error:
        return {"error": f"referee.rl needs the rl extra ({error}; pip install -e '.[rl]')"}
    seconds = 0.3 if quick else 2.0
    rounds = 1 if quick else 3
    configs = configurations(quick)
    ours, peers, notes = _measure(make_env, configs, seconds, rounds)
    peer_rates = {d: {name: _rate(runs) for name, runs in peers[d].items()} for d in DRIVERS}
    user_peers = peer_rates["user"]
    rows = [_row(game, players, ours, peer_rates, quick) for game, players in configs]
    ratios = [r["ratio_to_target_peer"] for r in rows if r["ratio_to_target_peer"] is not None]
    fastest_ratios = [
        r["ratio_to_fastest_peer"] for r in rows if r["ratio_to_fastest_peer"] is not None
    ]
    return {
        "games": rows,
        "peers": [
            {
                "game": name,
                "steps_per_second": user_peers[name],
                "cheap_steps_per_second": peer_rates["cheap"][name],
                "games": sum(r["games"] for d in DRIVERS for r in peers[d][name]),
                "steps": sum(r["steps"] for d in DRIVERS for r in peers[d][name]),
            }
            for name in user_peers
        ],
        "drivers": list(DRIVERS),
        "target_peer": TARGET_PEER,
        "notes": notes,
        "seconds_per_run": seconds,
        "rounds": rounds,
        "min_ratio": min(ratios) if ratios else None,
        "min_ratio_to_fastest_peer": min(fastest_ratios) if fastest_ratios else None,
    }


def _measure(
    make_env: Any, configs: list[tuple[str, int]], seconds: float, rounds: int
) -> tuple[Ours, Peers, list[str]]:
    """Each driver over the peers and our environments, ``rounds`` times; the notes say which
    peers could not be loaded."""
    # runs[driver][env name]: one measurement per round; rounds alternate peers and ours so
    # that a change of load on the shared machine falls on both.
    ours: Ours = {d: {c: [] for c in configs} for d in DRIVERS}
    peers: Peers = {d: {} for d in DRIVERS}
    notes: list[str] = []
    for index in range(rounds):
        for driver in DRIVERS:
            for module, constructor in [(m, c) for m, c, _ in PEERS]:
                found = peer(module, constructor)
                if isinstance(found, str):
                    if found not in notes:
                        notes.append(found)
                    continue
                name = peer_name(module, constructor)
                peers[driver].setdefault(name, []).append(drive(found, seconds, index, driver))
            for game, players in configs:
                env = make_env(game, players)
                ours[driver][(game, players)].append(drive(env, seconds, index, driver))
    return ours, peers, notes


def _rate(runs: list[dict[str, Any]]) -> float:
    return float(np.median([r["steps_per_second"] for r in runs]))


def _row(
    game: str, players: int, ours: Ours, peer_rates: dict[str, dict[str, float]], quick: bool
) -> dict[str, Any]:
    """One environment's line: its rates, its encoding cost and its ratios to the peers."""
    user_peers = peer_rates["user"]
    in_target = {peer_name(m, c) for m, c, target in PEERS if target}
    fastest = max((r for n, r in user_peers.items() if n in in_target), default=None)
    target_peer = user_peers.get(TARGET_PEER)
    steps_rate = _rate(ours["user"][(game, players)])
    cheap_rate = _rate(ours["cheap"][(game, players)])
    cost = encoding_cost(game, players, 200 if quick else 2000, seed=0)
    return {
        "game": game,
        "players": players,
        "steps_per_second": steps_rate,
        "step_us": 1e6 / steps_rate,
        "cheap_steps_per_second": cheap_rate,
        **cost,
        "games": sum(r["games"] for d in DRIVERS for r in ours[d][(game, players)]),
        "steps": sum(r["steps"] for d in DRIVERS for r in ours[d][(game, players)]),
        "ratio": {name: steps_rate / r for name, r in user_peers.items()},
        "cheap_ratio": {n: cheap_rate / r for n, r in peer_rates["cheap"].items()},
        "ratio_to_target_peer": steps_rate / target_peer if target_peer else None,
        "ratio_to_fastest_peer": steps_rate / fastest if fastest else None,
    }


def markdown(p8: dict[str, Any]) -> list[str]:
    if "error" in p8:
        return ["", "## P8 learning environments", "", f"- {p8['error']}"]
    names = [peer["game"] for peer in p8["peers"]]
    out = [
        "",
        "## P8 learning environments: AEC steps/s (random legal actions)",
        "",
        "user: the docs' loop (`int(rng.choice(np.flatnonzero(mask)))`, numpy Generator), "
        "the target's; cheap: the bench's pick (`legal[int(random() * len(legal))]`). "
        "Ratios: ours ÷ the peer, both driven by the same loop.",
        "",
    ]
    head = "| env | players | user steps/s | µs/step | cheap steps/s | encode µs | mask µs |"
    out.append(
        head + "".join(f" user ÷ {n} |" for n in names) + "".join(f" cheap ÷ {n} |" for n in names)
    )
    out.append("|---|---:|---:|---:|---:|---:|---:|" + "---:|" * (2 * len(names)))
    for row in p8["games"]:
        out.append(
            f"| {row['game']} | {row['players']} | {row['steps_per_second']:,.0f} "
            f"| {row['step_us']:.0f} | {row['cheap_steps_per_second']:,.0f} "
            f"| {row['encode_us']:.1f} | {row['mask_us']:.1f} |"
            + "".join(f" {row['ratio'][n]:.2f} |" for n in names)
            + "".join(f" {row['cheap_ratio'][n]:.2f} |" for n in names)
        )
    for peer in p8["peers"]:
        out.append(
            f"| pettingzoo {peer['game']} (RLCard) | 2 | {peer['steps_per_second']:,.0f} "
            f"| {1e6 / peer['steps_per_second']:.0f} | {peer['cheap_steps_per_second']:,.0f} "
            "| | |" + " |" * (2 * len(names))
        )
    out += [f"- note: {note}" for note in p8["notes"]]
    return out
