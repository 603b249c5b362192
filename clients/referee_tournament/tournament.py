"""Running a whole tournament: plan, play (networked or ``--local``), standings, outputs."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from referee.engine.seatings import seatings
from referee_tournament.config import TournamentConfig
from referee_tournament.ratings import standings
from referee_tournament.records import STATUSES, GameRecord
from referee_tournament.report import write_outputs
from referee_tournament.schedule import GameSpec, SwissPlanner, plan


class Runner(Protocol):
    def check(self) -> None: ...

    def play(self, spec: GameSpec, *, final: bool = False) -> tuple[GameRecord, dict[str, Any]]: ...

    def finish(self, records: list[GameRecord]) -> None: ...

    def close(self) -> None: ...


#: Called after every game with (record, games done, games in all, every record so far).
ProgressHook = Callable[[GameRecord, int, int, Sequence[GameRecord]], None]


@dataclass
class Outcome:
    results: dict[str, Any]
    records: list[GameRecord]
    paths: dict[str, Path] = field(default_factory=dict)


def total_games(config: TournamentConfig) -> int:
    """How many games the tournament plays."""
    if config.format != "swiss":
        return len(plan(config))
    bots = len(config.bots)
    return config.rounds * sum(
        (bots // entry.players) * entry.deals * len(seatings(entry.players))
        for entry in config.games
    )


def entry_label(config: TournamentConfig, entry: int) -> str:
    """The name of a game entry in the report: its game type, made unique when repeated."""
    game = config.games[entry].game
    if sum(e.game == game for e in config.games) > 1:
        return f"{game} #{entry + 1}"
    return game


@contextlib.contextmanager
def open_runner(
    config: TournamentConfig, *, local: bool, server: str | None, out: Path
) -> Iterator[tuple[Runner, dict[str, Any] | None, str | None]]:
    """(runner, the referee features it uses, the server address) for the mode asked."""
    if local:
        from referee_tournament.local import LocalRunner

        local_runner = LocalRunner(config)
        try:
            yield local_runner, None, None
        finally:
            local_runner.close()
        return
    from referee_tournament.network import NetworkRunner

    address = server or config.server
    with contextlib.ExitStack() as stack:
        own = address is None
        if address is None:
            # Open registration: the runner creates the accounts of the remote bots it
            # launches (nobody else can reach this in-memory referee before the run).
            address = stack.enter_context(embedded_server(registration=config.remote))
        network = NetworkRunner(config, address, out / "logs")
        stack.callback(network.close)
        if own:
            from referee_tournament.launch import launched

            stack.enter_context(launched(config, network.stub, address, out / "logs"))
        yield network, network.features.to_json(), address


@contextlib.contextmanager
def embedded_server(*, registration: bool = False) -> Iterator[str]:
    """A referee in this process (in-memory store) on an ephemeral port; logs warnings only.
    ``registration``: anyone may Register (for the remote bots the runner launches)."""
    import logging

    from referee.application.players.accounts import PlayerSettings
    from referee.application.tables.limits import AddressLimits
    from referee.server.app import configure_logging, running_server

    # The runner is this server's one client: no per-address limit on it.
    unlimited = AddressLimits(0, 0, 0, 0)
    players = PlayerSettings(open_registration=registration, per_address=unlimited)
    with running_server(store="memory:", players=players) as server:
        configure_logging(logging.WARNING)
        yield str(server.address)


def run(
    config: TournamentConfig,
    *,
    out: Path,
    local: bool = False,
    server: str | None = None,
    parallel: int | None = None,
    progress: ProgressHook | None = None,
    outputs: bool = True,
) -> Outcome:
    """Play every game of ``config`` and write the outputs into ``out``.

    Raises ValueError when the referee (or the engine, for ``--local``) cannot run the config.
    """
    started = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    (out / "games").mkdir(exist_ok=True)
    workers = 1 if local else (parallel or config.parallel)
    records: list[GameRecord] = []
    total = total_games(config)
    lock = threading.Lock()
    points: dict[str, float] | None = None
    with open_runner(config, local=local, server=server, out=out) as (runner, features, address):
        runner.check()

        def play_all(specs: Sequence[GameSpec], final: bool = False) -> list[GameRecord]:
            done: list[GameRecord] = []

            def one(spec: GameSpec) -> GameRecord:
                try:
                    record, replay = runner.play(spec, final=final)
                except Exception as error:  # a runner bug must not end the tournament
                    record = GameRecord(
                        spec=spec,
                        status="failed",
                        detail=f"{type(error).__name__}: {error}\n{traceback.format_exc()}",
                    )
                    replay = {}
                if replay:
                    name = f"games/{spec.index:04d}-{spec.game}.json"
                    (out / name).write_text(json.dumps(replay) + "\n", encoding="utf-8")
                    record.replay = name
                return record

            with ThreadPoolExecutor(max_workers=workers) as pool:
                futures = [pool.submit(one, spec) for spec in specs]
                for future in as_completed(futures):
                    record = future.result()
                    with lock:
                        records.append(record)
                        done.append(record)
                        if progress is not None:
                            progress(record, len(records), total, list(records))
            return done

        def play_phase(specs: Sequence[GameSpec]) -> list[GameRecord]:
            """Play ``specs``, then replay the void ones (``no_show: void``) up to
            ``replays`` times, the last replay scoring a no-show as a loss: every pairing
            plays (or is scored on) the same deals."""
            played = {r.spec.index: r for r in play_all(specs)}
            for attempt in range(config.replays):
                void = [r for r in played.values() if r.status == "void"]
                if not void:
                    break
                with lock:  # a replay stands in for its void game
                    for record in void:
                        records.remove(record)
                final = attempt == config.replays - 1
                for again in play_all([r.spec for r in void], final=final):
                    before = played[again.spec.index]
                    again.replays = before.replays + 1
                    absent = [f for f in before.faults if f.kind == "absent"]
                    again.faults = [*absent, *again.faults]
                    played[again.spec.index] = again
            return list(played.values())

        if config.format == "swiss":
            planner = SwissPlanner(config)
            for round_ in range(1, config.rounds + 1):
                specs, byes = planner.plan_round(round_)
                played = play_phase(specs)
                planner.record(
                    [(s.bot, r.spec.players, s.rank) for r in played if r.rated for s in r.seats],
                    byes,
                )
            points = dict(planner.points)
        else:
            play_phase(plan(config))
        records.sort(key=lambda r: r.spec.index)
        runner.finish(records)
        tokens = dict(getattr(runner, "organiser_tokens", {}))
        ratings_of = getattr(runner, "player_ratings", None)
        persisted = ratings_of() if ratings_of is not None else {}
    records.sort(key=lambda r: r.spec.index)
    results = build_results(
        config,
        records,
        mode="local" if local else "network",
        features=features,
        seconds=time.monotonic() - started,
        points=points,
        server=address,
    )
    results["player_ratings"] = persisted or None
    outcome = Outcome(results=results, records=records)
    if outputs:
        outcome.paths = write_outputs(results, out)
        if tokens:
            outcome.paths["organiser_tokens"] = write_tokens(out, address, tokens)
    return outcome


#: The file of the games' organiser tokens in the output folder (owner-only: secret).
TOKENS_FILE = "organiser-tokens.json"


def write_tokens(out: Path, server: str | None, tokens: dict[str, str]) -> Path:
    """``organiser-tokens.json``: each game's organiser token, readable by its owner only
    (0600, set at creation, so no other user can read it even for a moment). Whoever holds it
    may abort a running game, reveal its seed and export its full log: keep it secret.
    ``referee verify GAME_ID --server ADDR --organiser-token-file FILE`` reads it."""
    path = out / TOKENS_FILE
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a new file, so the mode below applies (an old one keeps its mode)
    data = {
        "secret": "organiser tokens: whoever holds them may abort, reveal and export games",
        "server": server,
        "games": tokens,
    }
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(data, file, indent=2)
        file.write("\n")
    return path


def build_results(
    config: TournamentConfig,
    records: Sequence[GameRecord],
    *,
    mode: str,
    features: dict[str, Any] | None,
    seconds: float,
    points: dict[str, float] | None = None,
    server: str | None = None,
) -> dict[str, Any]:
    """The content of results.json."""
    names = config.bot_names
    by_game: dict[str, Any] = {}
    for entry in range(len(config.games)):
        subset = [r for r in records if r.spec.entry == entry]
        by_game[entry_label(config, entry)] = [s.to_json() for s in standings(names, subset)]
    summary = {status: sum(r.status == status for r in records) for status in STATUSES}
    return {
        "name": config.name,
        "format": config.format,
        "mode": mode,
        "seed": config.seed,
        "secret_seed": config.secret_seed,
        "clock": dict(config.clock) or None,
        "server": server,
        "rounds": config.rounds if config.format == "swiss" else None,
        "games_config": [
            {
                "game": e.game,
                "players": e.players,
                "options": dict(e.options),
                "deals": e.deals,
                "seatings": len(seatings(e.players)),
            }
            for e in config.games
        ],
        "bots": [
            {
                "name": b.name,
                "strategy": b.strategy,
                "command": list(b.argv()) if mode == "network" else None,
            }
            for b in config.bots
        ],
        "no_show": config.no_show,
        "replays": config.replays,
        "limits": vars(config.limits),
        "referee_features": features,
        "seconds": round(seconds, 3),
        "summary": {"games": len(records), **summary},
        "standings": [s.to_json() for s in standings(names, records, points=points)],
        "by_game": by_game,
        "games": [r.to_json() for r in records],
    }


def comparable(results: dict[str, Any]) -> dict[str, Any]:
    """What must be equal between a networked and a ``--local`` run of the same tournament
    with deterministic bots: standings, and every game's seed, seating, status, results and
    number of commands (not ids, times, paths or the mode)."""
    keep = ("index", "game", "seed", "seating", "deal", "round", "status", "commands")
    seat_keys = ("seat", "bot", "rank", "score", "end")
    timing = ("decision_ms_mean",)

    def standing(row: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in row.items() if k not in timing}

    return {
        "standings": [standing(row) for row in results["standings"]],
        "by_game": {k: [standing(r) for r in v] for k, v in results["by_game"].items()},
        "games": [
            {
                **{k: g[k] for k in keep},
                "seats": [{k: s[k] for k in seat_keys} for s in g["seats"]],
            }
            for g in results["games"]
        ],
    }
