"""``referee-tournament``: run a bot tournament from a config file.

referee-tournament CONFIG [--out DIR] [--server ADDR] [--local] [--parallel N] [--quiet]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from referee import cli_help
from referee_tournament.config import ConfigError, load
from referee_tournament.progress import Progress
from referee_tournament.report import standings_text
from referee_tournament.tournament import run


def _parser() -> argparse.ArgumentParser:
    parser = cli_help.parser(
        "referee-tournament",
        "Run a bot tournament on the referee (docs/tournaments.md).",
        epilog="examples:\n"
        "  tournaments/example.yaml  networked: built-in strategies, a Python SDK bot, Node.js\n"
        "  tournaments/local.yaml    built-in strategies only: also with --local (in-process)",
    )
    parser.add_argument("config", type=Path, help="tournament config (YAML or JSON)")
    parser.add_argument(
        "--out", type=Path, help="output folder (default: tournament-out/ and the config's name)"
    )
    parser.add_argument(
        "--server",
        help="host:port of a running referee (default: the config's server, else a referee "
        "started in this process)",
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help="play in-process on the engine, no network (built-in strategies only)",
    )
    parser.add_argument(
        "--parallel", type=int, help="games at once, networked mode (default: the config's)"
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress display, only the final standings"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        config = load(args.config)
    except ConfigError as error:
        print(f"referee-tournament: {args.config}: {error}", file=sys.stderr)
        return 2
    if args.parallel is not None and args.parallel < 1:
        print("referee-tournament: --parallel must be at least 1", file=sys.stderr)
        return 2
    out = args.out or Path("tournament-out") / config.name
    progress = None if args.quiet else Progress(config)
    try:
        outcome = run(
            config,
            out=out,
            local=args.local,
            server=args.server,
            parallel=args.parallel,
            progress=progress,
        )
    except ValueError as error:
        print(f"referee-tournament: {error}", file=sys.stderr)
        return 2
    results = outcome.results
    summary = results["summary"]
    print(
        f"{results['name']}: {summary['games']} games in {results['seconds']:.1f} s "
        f"({summary['ok']} ok, {summary['no_show']} no-show, {summary['failed']} failed, "
        f"{summary['void']} void)"
    )
    print(standings_text(results["standings"]))
    for label, rows in results["by_game"].items():
        if len(results["by_game"]) > 1:
            print(f"\n{label}:\n{standings_text(rows)}")
    print(f"\nresults: {outcome.paths['json']}\nreport:  {outcome.paths['html']}")
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
