"""``referee bench``: the performance figures of docs/performance.md, measured side by side.

Every compared figure is a ratio of two measurements taken in the same run (the machine is
shared and noisy): P1 the engine against RLCard's UNO, P2 and P6 the service against a bare
gRPC echo server, P3 gRPC against in-process play, P5 the event store against raw SQLite.
P4 is an absolute capacity (games, streams and RSS); P7 replicas on PostgreSQL against one
on SQLite, and the PostgreSQL store against raw inserts through its driver; P11 search's
fork, step and undo against OpenSpiel's clone and apply_action; P12 the application's
CPU per command in-process, by stage, against the engine's own step; P13 the server CPU per
command of three replicas on PostgreSQL against one's; P14 the server against boardgame.io's
with a game of the same shape, each driven by its own user's client. Nothing here
asserts a speed.

Results go to ``OUT/bench.json`` and ``OUT/bench.md``. ``--quick`` is a smoke run of seconds
(CI): small sizes, no peers needed (peers that are not installed are skipped with a note).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import shlex
import statistics
from pathlib import Path
from typing import Any

PARTS = (
    "P1",
    "P2",
    "P3",
    "P4",
    "P5",
    "P6",
    "P7",
    "P8",
    "P9",
    "P10",
    "P11",
    "P12",
    "P13",
    "P14",
    "RESTART",
    "SOAK",
    "LEVELS",
)
#: Parts a bare ``referee bench`` runs (SOAK takes eleven minutes, LEVELS about an hour of CPU
#: time: ask for them by name).
DEFAULT_PARTS = tuple(part for part in PARTS if part not in ("SOAK", "LEVELS"))

#: The performance targets (docs/performance.md), as (figure, comparison, value).
TARGETS = {
    "P1": ("every game's steps/s ÷ RLCard UNO's", ">=", 2.0),
    "P2": ("referee commands/s ÷ echo calls/s", ">=", 0.8),
    "P3": ("gRPC game time ÷ in-process game time", "<=", 10.0),
    "P4": ("RSS with 10,000 games and 20,000 streams (MiB)", "<=", 2048.0),
    "P5": ("store appends/s, 32 games at once ÷ raw SQLite inserts/s (NORMAL)", ">=", 1.0),
    "P6": ("referee p50 and p99 ÷ echo's", "<=", 2.0),
    "P7": ("PostgreSQL store appends/s, 32 games at once ÷ raw psycopg inserts/s", ">=", 1.0),
    "P8": ("every game's AEC env steps/s ÷ PettingZoo leduc env()'s, the docs' loop", ">=", 1.5),
    "P9": ("commands/s over Connect ÷ over gRPC", ">=", 0.7),
    "P10": ("player-stream commands/s ÷ P2's bare fan-out calls/s", ">=", 1.0),
    "P11": ("every game's fork + step time ÷ OpenSpiel crazy_eights clone + apply", "<=", 3.0),
    "P12": ("in-process CPU per command ÷ one engine step of the same game", "<=", 10.0),
    "P13": ("server CPU per command, 3 replicas on PostgreSQL ÷ 1 (seats together)", "<=", 1.25),
    "P14": ("server CPU per move ÷ boardgame.io's, same game shape and load", "<=", 1.0),
    "RESTART": ("seconds from start to the first write, PostgreSQL with 2,000 games", "<=", 5.0),
    "SOAK": ("server RSS growth after warm-up over 11 minutes of play (%)", "<=", 5.0),
    "LEVELS": (
        "least lower bound of a house level's lead over the one below (every game, 95 %)",
        ">=",
        0.0,
    ),
}


def parse_parts(text: str | None) -> list[str]:
    """``"P1,p5"`` -> ``["P1", "P5"]``; ``None`` or ``""`` -> every part.

    >>> parse_parts("p5, P1")
    ['P1', 'P5']
    """
    if not text:
        return list(DEFAULT_PARTS)
    chosen = {part.strip().upper() for part in text.split(",") if part.strip()}
    unknown = sorted(chosen - set(PARTS))
    if unknown:
        raise ValueError(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    return [part for part in PARTS if part in chosen]


def machine() -> dict[str, Any]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": model or platform.processor(),
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
    }


# --- P1 -----------------------------------------------------------------------------------------


def engine_part(quick: bool) -> dict[str, Any]:
    """Our games and the peers, one after the other in this process, in alternating rounds."""
    from referee.bench import engine, peers

    seconds = 0.15 if quick else 1.5
    rounds = 1 if quick else 3
    configs = engine.configurations(quick)
    ours: dict[tuple[str, int], list[dict[str, Any]]] = {c: [] for c in configs}
    uno: list[dict[str, Any]] = []
    crazy: list[dict[str, Any]] = []
    notes: list[str] = []
    for index in range(rounds):
        for result, found in (
            (peers.rlcard_uno(seconds, seed=index), uno),
            (peers.openspiel_crazy_eights(seconds, seed=index), crazy),
        ):
            if isinstance(result, str):
                if result not in notes:
                    notes.append(result)
            else:
                found.append(result)
        for game_type, players in configs:
            ours[(game_type, players)].append(
                engine.measure(game_type, players, seconds, first_seed=index * 100_000)
            )

    def rate(runs: list[dict[str, Any]]) -> float:
        return float(statistics.median(r["steps_per_second"] for r in runs))

    uno_rate = rate(uno) if uno else None
    rows = []
    for (game_type, players), runs in ours.items():
        rows.append(
            {
                "game": game_type,
                "players": players,
                "steps_per_second": rate(runs),
                "games": sum(r["games"] for r in runs),
                "steps": sum(r["steps"] for r in runs),
                "ratio_to_rlcard_uno": rate(runs) / uno_rate if uno_rate else None,
            }
        )
    peer_rows = []
    for name, runs in ((peers.RLCARD_UNO, uno), (peers.OPENSPIEL_CRAZY_EIGHTS, crazy)):
        if runs:
            peer_rows.append(
                {
                    "game": name,
                    "players": runs[0]["players"],
                    "steps_per_second": rate(runs),
                    "games": sum(r["games"] for r in runs),
                    "steps": sum(r["steps"] for r in runs),
                    "ratio_to_rlcard_uno": rate(runs) / uno_rate if uno_rate else None,
                }
            )
    ratios = [r["ratio_to_rlcard_uno"] for r in rows if r["ratio_to_rlcard_uno"] is not None]
    return {
        "games": rows,
        "peers": peer_rows,
        "peer_versions": peers.versions(),
        "notes": notes,
        "seconds_per_run": seconds,
        "rounds": rounds,
        "min_ratio": min(ratios) if ratios else None,
    }


# --- report ---------------------------------------------------------------------------------


def _met(part: str, value: float | None) -> str:
    if value is None:
        return "n/a"
    _, comparison, target = TARGETS[part]
    ok = value >= target if comparison == ">=" else value <= target
    return "yes" if ok else "**no**"


def headline(results: dict[str, Any]) -> dict[str, float | None]:
    """The one figure per part that its target is about."""
    found: dict[str, float | None] = {}
    if "P1" in results:
        found["P1"] = results["P1"]["min_ratio"]
    if "P2" in results:
        found["P2"] = results["P2"]["ratio"]
    if "P3" in results:
        found["P3"] = results["P3"]["ratio"]
    if "P4" in results:
        found["P4"] = results["P4"]["projected_10k_games_20k_streams_mib"]
    if "P5" in results:
        found["P5"] = results["P5"]["appends"]["normal"]["grouped_ratio"]
    if "P6" in results:
        p6 = results["P6"]
        found["P6"] = max(p6["p50_ratio"], p6["p99_ratio"])
    if "P7" in results:
        p7 = results["P7"]
        found["P7"] = p7["appends"]["grouped_ratio"] if "appends" in p7 else None
    if "P8" in results:
        found["P8"] = results["P8"].get("min_ratio")
    if "P9" in results:
        found["P9"] = results["P9"]["commands_ratio"]
    if "P10" in results:
        found["P10"] = results["P10"]["to_fanout"]
    if "P11" in results:
        found["P11"] = results["P11"]["max_to_crazy_eights"]
    if "P12" in results:
        found["P12"] = results["P12"]["steps_per_command"]
    if "P13" in results:
        found["P13"] = results["P13"].get("together_to_one")
    if "P14" in results:
        p14 = results["P14"]
        found["P14"] = (
            p14["figures"]["server_cpu_us_per_move"]["referee_ratio"] if "figures" in p14 else None
        )
    if "RESTART" in results:
        found["RESTART"] = results["RESTART"].get("first_write_seconds")
    if "SOAK" in results:
        growth = results["SOAK"]["growth"]
        found["SOAK"] = growth * 100 if growth is not None else None
    if "LEVELS" in results:
        found["LEVELS"] = results["LEVELS"]["least_lower_bound"]
    return found


def _n(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def markdown(report: dict[str, Any]) -> str:
    meta = report["meta"]
    results = report["results"]
    out = [
        f"# referee bench ({'quick' if meta['quick'] else 'full'})",
        "",
        f"- date: {meta['date']}",
        f"- machine: {meta['machine']['cpu']}, {meta['machine']['cores']} cores, "
        f"{meta['machine']['system']}, Python {meta['machine']['python']}",
        f"- command: `{meta['command']}`",
        "",
        "| part | figure | value | target | met |",
        "|---|---|---:|---:|---|",
    ]
    for part, value in headline(results).items():
        figure, comparison, target = TARGETS[part]
        digits = 1 if target * 10 % 1 == 0 else 2  # 1.25 is not 1.2
        out.append(
            f"| {part} | {figure} | {_n(value)} | {comparison} {_n(target, digits)} "
            f"| {_met(part, value)} |"
        )
    if "P14" in results:
        from referee.bench import boardgame

        out += boardgame.markdown(results["P14"])
    if "P1" in results:
        p1 = results["P1"]
        out += ["", "## P1 engine: random-play steps/s", ""]
        out += ["| game | players | steps/s | ÷ RLCard UNO | games |", "|---|---:|---:|---:|---:|"]
        for row in p1["games"] + p1["peers"]:
            out.append(
                f"| {row['game']} | {row['players']} | {row['steps_per_second']:,.0f} "
                f"| {_n(row['ratio_to_rlcard_uno'])} | {row['games']:,} |"
            )
        out += [f"- note: {note}" for note in p1["notes"]]
    if "P2" in results:
        p2 = results["P2"]
        out += [
            "",
            "## P2 service throughput",
            "",
            f"{p2['game']}, {p2['players']} players, {p2['concurrent_games']} concurrent games, "
            f"{p2['open_streams']} streams open: **{p2['referee_commands_per_second']:,.0f} "
            f"commands/s**; echo {p2['echo_calls_per_second']:,.0f} calls/s with the same "
            f"concurrency; ratio **{p2['ratio']:.2f}** (median of {len(p2['rounds'])} rounds).",
            "",
            f"The floor: the bare server with the same fan-out (one unary call, then one "
            f"message on each of {p2['players']} streams) does "
            f"{p2['fanout_calls_per_second']:,.0f} calls/s, **{p2['fanout_ratio']:.2f}** of the "
            f"echo; the referee reaches {p2['referee_to_fanout']:.2f} of that floor while "
            f"sending {p2['stream_messages_per_command']:.1f} stream messages per command.",
            "",
            "| server CPU time | referee, per command | bare fan-out, per call | echo, per call |",
            "|---|---:|---:|---:|",
            f"| server process | {p2['referee_server_cpu_us_per_command']:,.0f} µs "
            f"| {p2['fanout_server_cpu_us_per_call']:,.0f} µs "
            f"| {p2['echo_server_cpu_us_per_call']:,.0f} µs |",
            "",
            f"Batched streams (one message per command batch): "
            f"**{p2['batched_commands_per_second']:,.0f} commands/s**, "
            f"**{p2['batched_to_fanout']:.2f}** of the bare fan-out (target >= 0.6), "
            f"{p2['batched_stream_messages_per_command']:.1f} stream messages per command, "
            f"server CPU {p2['batched_server_cpu_us_per_command']:,.0f} µs per command = "
            f"**{p2['batched_cpu_to_fanout']:.2f}x** the bare fan-out's per call (target <= 2).",
        ]
    if "P3" in results:
        p3 = results["P3"]
        out += [
            "",
            "## P3 remote vs local",
            "",
            f"{p3['games']} seeded {p3['game']} games ({p3['players']} players, "
            f"{p3['commands']:,} commands, identical games: {p3['same_games']}): in-process "
            f"{p3['local_seconds']:.3f} s; over gRPC one after the other "
            f"{p3['remote_sequential_seconds']:.3f} s (**{p3['ratio']:.1f}x**), all at once "
            f"{p3['remote_concurrent_seconds']:.3f} s ({p3['concurrent_ratio']:.1f}x). "
            f"Per command: {p3['remote_ms_per_command']:.2f} ms over gRPC; a bare echo round "
            f"trip alone takes {p3['echo_ms_per_round_trip']:.2f} ms, so gRPC's floor for "
            f"these games is {p3['floor_ratio']:.1f}x the in-process time.",
        ]
        if "session_ms_per_command" in p3:
            out += [
                "",
                f"On the player stream (the same games, each on one PlayerSession: commands "
                f"and their events on one connection): {p3['session_seconds']:.3f} s, "
                f"{p3['session_ms_per_command']:.2f} ms per command, "
                f"**{p3['session_to_echo']:.2f}x** an echo round trip (goal <= 1.5).",
            ]
    if "P4" in results:
        p4 = results["P4"]
        out += [
            "",
            "## P4 capacity",
            "",
            f"{p4['games']:,} games and {p4['streams']:,} open streams in one server: RSS "
            f"{p4['rss_start_mib']:.0f} MiB at start, {p4['rss_games_mib']:.0f} MiB with the "
            f"games, **{p4['rss_streams_mib']:.0f} MiB** with the streams (peak "
            f"{p4['peak_rss_mib']:.0f} MiB); {p4['kib_per_game']:.1f} KiB per game, "
            f"{p4['kib_per_stream']:.1f} KiB per stream; projected for 10,000 games and 20,000 "
            f"streams: {p4['projected_10k_games_20k_streams_mib']:.0f} MiB. Created in "
            f"{p4['create_seconds']:.1f} s, streams opened in {p4['open_seconds']:.1f} s; a "
            f"command then reached its stream in {p4['probe_ms']:.1f} ms.",
        ]
        if "trace" in p4:
            out += trace_tables(p4["trace"])
    if "P5" in results:
        p5 = results["P5"]
        out += ["", "## P5 store", ""]
        out += [
            "| synchronous | store appends/s | raw inserts/s | ratio | raw, the store's 3 writes/s "
            "| its ratio | 32 games at once/s | its ratio | p50 / p99 ms | per commit |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for mode in p5["appends"].values():
            out.append(
                f"| {mode['synchronous']} | {mode['store_appends_per_second']:,.0f} "
                f"| {mode['raw_inserts_per_second']:,.0f} | {mode['ratio']:.2f} "
                f"| {mode['raw_same_writes_per_second']:,.0f} "
                f"| {mode['raw_same_writes_ratio']:.2f} "
                f"| {mode['grouped_appends_per_second']:,.0f} | {mode['grouped_ratio']:.2f} "
                f"| {mode['grouped_p50_ms']:.2f} / {mode['grouped_p99_ms']:.2f} "
                f"| {mode['grouped_mean_group']:.1f} |"
            )
        rec = p5["recovery"]
        out += [
            "",
            f"Cold start with {rec['games']:,} games ({rec['finished']:,} finished, "
            f"{rec['running']:,} running, {rec['events']:,} events): ready (games listed) in "
            f"**{rec['ready_seconds']:.2f} s**; every running game replayed in "
            f"{rec['replay_running_seconds']:.2f} s ({rec['replay_per_game_ms']:.2f} ms each).",
        ]
    if "P6" in results:
        p6 = results["P6"]
        out += [
            "",
            "## P6 latency",
            "",
            f"At {p6['rate_per_second']:,.0f} commands/s (70% of P2): referee p50 "
            f"{p6['referee_p50_ms']:.2f} ms, p99 {p6['referee_p99_ms']:.2f} ms (command sent to "
            f"its event on every seat's stream); echo p50 {p6['echo_p50_ms']:.2f} ms, p99 "
            f"{p6['echo_p99_ms']:.2f} ms at the same rate; ratios **{p6['p50_ratio']:.2f}** "
            f"(p50) and **{p6['p99_ratio']:.2f}** (p99). The bare fan-out server at that rate: "
            f"p50 {p6['fanout_p50_ms']:.2f} ms, p99 {p6['fanout_p99_ms']:.2f} ms "
            f"({p6['fanout_p50_ratio']:.2f} and {p6['fanout_p99_ratio']:.2f} of the echo's). "
            f"Batched streams at that rate: p50 {p6['batched_p50_ms']:.2f} ms, p99 "
            f"{p6['batched_p99_ms']:.2f} ms, **{p6['batched_p99_to_fanout']:.2f}x** the bare "
            f"fan-out's p99 (target <= 3).",
        ]
    if "P7" in results:
        from referee.bench.replicas import markdown as replicas_markdown

        out += replicas_markdown(results["P7"])
    if "RESTART" in results:
        from referee.bench.restart import markdown as restart_markdown

        out += restart_markdown(results["RESTART"])
    if "SOAK" in results:
        soak = results["SOAK"]
        growth = soak["growth"]
        out += [
            "",
            "## SOAK memory",
            "",
            f"{soak['clients']} clients played {soak['games']:,} games ({soak['commands']:,} "
            f"commands) for {soak['seconds']:.0f} s against one server on SQLite. Server RSS "
            f"after warm-up {soak['rss_after_warmup_mib']:.1f} MiB, at the end "
            f"{soak['rss_at_end_mib']:.1f} MiB: growth **"
            + (f"{growth:+.1%}" if growth is not None else "n/a")
            + "** (target < 5%).",
            "",
            f"RSS at the start {soak['rss_start_mib']:.1f} MiB; before the load (one game "
            f"played and evicted) {soak['rss_before_mib']:.1f} MiB; peak "
            f"{soak['rss_peak_mib']:.1f} MiB; after the load, every game evicted (idle "
            f"{soak['evict_idle_seconds']:g} s), **{soak['rss_after_load_mib']:.1f} MiB**: "
            f"{soak['after_to_before']:+.1%} of before, {soak['after_to_start']:+.1%} of the "
            "start (target within 10%).",
        ]
    if "P8" in results:
        from referee.bench import rl

        out += rl.markdown(results["P8"])
    if "P9" in results:
        out += ["", *http_markdown(results["P9"])]
    if "P10" in results:
        from referee.bench import players as player_stream

        out += player_stream.markdown(results["P10"])
    if "P11" in results:
        from referee.bench import search

        out += search.markdown(results["P11"])
    if "P12" in results:
        from referee.bench import stages

        out += [
            "",
            "## P12 the in-process budget per command",
            "",
            *stages.markdown(results["P12"]),
        ]
    if "P13" in results:
        from referee.bench import scale

        out += scale.markdown(results["P13"])
    if "LEVELS" in results:
        from referee.bench import levels

        out += levels.markdown(results["LEVELS"])
    return "\n".join(out) + "\n"


def http_markdown(p7: dict[str, Any]) -> list[str]:
    grpc_, connect = p7["grpc"], p7["connect"]
    lines = [
        "## P9 HTTP (Connect) and the web client",
        "",
        f"Same client pattern, same server, {p7['concurrency']} concurrent games: gRPC "
        f"{grpc_['per_second']:,.0f} commands/s (p99 {grpc_.get('p99_ms', 0):.2f} ms command to "
        f"stream), Connect {connect['per_second']:,.0f} commands/s (p99 "
        f"{connect.get('p99_ms', 0):.2f} ms); ratios **{p7['commands_ratio']:.2f}** (commands/s, "
        f"target >= 0.7) and **{p7.get('p99_ratio', 0):.2f}** (p99, target <= 1.5).",
    ]
    page = p7.get("page", {})
    if page.get("gzip_bytes"):
        tti = page.get("tti_ms_median")
        lines += [
            "",
            f"The page's first load: {page['gzip_bytes'] / 1024:.1f} KiB gzipped (HTML, JS, CSS; "
            "target < 300 KB)"
            + (f"; join link to interactive table {tti} ms (median of 5)." if tti else "."),
        ]
    return lines


def trace_tables(trace: dict[str, Any]) -> list[str]:
    """P4's tracemalloc breakdown (``--trace``) as two tables: the top lines per game and
    per stream (bytes and blocks each), with the traced and the RSS totals."""
    bare = trace["bare_grpc"]
    out = [
        "",
        f"Where the memory goes (tracemalloc, {trace['games']:,} games, two streams each; a "
        f"bare grpc.aio stream of the echo server: {bare['kib_per_stream']:.1f} KiB RSS):",
    ]
    for key, name in (("per_game", "per live game"), ("per_stream", "per open stream")):
        part = trace[key]
        out += [
            "",
            f"{name}: {part['traced_kib_each']:.1f} KiB traced (Python's allocators), "
            f"{part['rss_kib_each']:.1f} KiB RSS under tracemalloc",
            "",
            "| where | bytes each | blocks each |",
            "|---|---:|---:|",
        ]
        out += [
            f"| `{row['where']}` | {row['bytes_each']:,.0f} | {row['blocks_each']:.1f} |"
            for row in part["by_line"]
        ]
    return out


def main(
    *,
    quick: bool = False,
    out: str = "bench-results",
    only: str | None = None,
    game: str = "vampire-queen",
    players: int = 4,
    concurrency: int | None = None,
    capacity_games: int | None = None,
    recovery_games: int | None = None,
    argv: list[str] | None = None,
    trace: bool = False,
) -> int:
    parts = parse_parts(only)
    results: dict[str, Any] = {}
    if "P1" in parts:
        print("P1 engine ...", flush=True)
        results["P1"] = engine_part(quick)
    if "SOAK" in parts:
        print("SOAK memory over a long run ...", flush=True)
        from referee.bench import soak

        results["SOAK"] = soak.run(quick)
    if "P5" in parts:
        print("P5 store ...", flush=True)
        from referee.bench import store

        results["P5"] = store.run(quick, recovery_games)
    if "RESTART" in parts:
        print("RESTART a replica on PostgreSQL with many games ...", flush=True)
        from referee.bench import restart

        results["RESTART"] = restart.run(quick, recovery_games)
    if "P8" in parts:
        print("P8 learning environments ...", flush=True)
        from referee.bench import rl

        results["P8"] = rl.run(quick)
    service_parts = set(parts) & {"P2", "P3", "P4", "P6"}
    if service_parts:
        print(f"{', '.join(sorted(service_parts))} service ...", flush=True)
        from referee.bench import service
        from referee.bench.load import GameSpec

        spec = GameSpec(game_type=game, players=players)
        results |= service.run(service_parts, quick, spec, concurrency, capacity_games, trace)
    if "P7" in parts:
        print("P7 replicas on PostgreSQL ...", flush=True)
        from referee.bench import replicas

        results["P7"] = replicas.run(quick)
    if "P9" in parts:
        print("P9 HTTP ...", flush=True)
        from referee.bench import http

        results["P9"] = http.run(quick)
    if "P10" in parts:
        print("P10 the player stream, side by side with P2 ...", flush=True)
        from referee.bench import players as player_stream
        from referee.bench.load import GameSpec

        results["P10"] = player_stream.run(
            quick, GameSpec(game_type=game, players=players), concurrency
        )
    if "P11" in parts:
        print("P11 search: copies, steps and undo ...", flush=True)
        from referee.bench import search

        results["P11"] = search.run(quick)
    if "P12" in parts:
        print("P12 the in-process cost per command, by stage ...", flush=True)
        from referee.bench import stages

        results["P12"] = stages.run(quick, game, players)
    if "P13" in parts:
        print("P13 replicas scale: server CPU per command, 1 and 3 replicas ...", flush=True)
        from referee.bench import scale
        from referee.bench.load import GameSpec

        results["P13"] = scale.run(quick, GameSpec(game_type=game, players=players), concurrency)
    if "P14" in parts:
        print("P14 beside boardgame.io: CPU per move, round trips, memory ...", flush=True)
        from referee.bench import boardgame

        results["P14"] = boardgame.run(quick, concurrency)
    if "LEVELS" in parts:
        print("LEVELS the house bots' levels over duplicate deals, every game ...", flush=True)
        from referee.bench import levels

        Path(out).mkdir(parents=True, exist_ok=True)
        results["LEVELS"] = levels.run(quick, progress=Path(out) / "levels-deals.jsonl")
    results = {part: results[part] for part in PARTS if part in results}
    command = "referee " + shlex.join(argv if argv is not None else ["bench"])
    report = {
        "meta": {
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": machine(),
            "command": command,
            "quick": quick,
            "parts": parts,
        },
        "headline": headline(results),
        "targets": {
            p: {"figure": f, "comparison": c, "value": v} for p, (f, c, v) in TARGETS.items()
        },
        "results": results,
    }
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bench.json").write_text(json.dumps(report, indent=2) + "\n")
    text = markdown(report)
    (folder / "bench.md").write_text(text)
    print(text)
    print(f"wrote {folder / 'bench.json'} and {folder / 'bench.md'}")
    return 0
