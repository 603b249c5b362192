"""The ``referee`` command: ``serve``, ``scenario run``, ``bench``, ``verify``."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from referee.server.hub import Limits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="referee", description="Game referee server and tools.")
    commands = parser.add_subparsers(dest="command")

    serving = commands.add_parser("serve", help="run the gRPC server (default)")
    serving.add_argument("--listen", default="127.0.0.1:50051", help="host:port for gRPC")
    serving.add_argument(
        "--store",
        default="sqlite:data/referee.sqlite3",
        help="event store: sqlite:PATH (default sqlite:data/referee.sqlite3) or memory:",
    )
    serving.add_argument(
        "--metrics", default="127.0.0.1:9464", help="host:port for /metrics ('' to disable)"
    )
    serving.add_argument("--max-games", type=int, default=Limits.max_games)
    serving.add_argument("--max-streams", type=int, default=Limits.max_streams)
    serving.add_argument(
        "--stream-buffer",
        type=int,
        default=Limits.stream_buffer,
        help="notifications a slow stream may fall behind before it is ended",
    )
    serving.add_argument("--max-message-bytes", type=int, default=4 * 1024 * 1024)

    scenario = commands.add_parser("scenario", help="scripted games")
    scenario_commands = scenario.add_subparsers(dest="scenario_command", required=True)
    run = scenario_commands.add_parser("run", help="run scenario files; non-zero on a mismatch")
    run.add_argument("files", nargs="+")

    bench = commands.add_parser(
        "bench", help="performance figures (docs/performance.md), as ratios measured side by side"
    )
    bench.add_argument("--quick", action="store_true", help="a smoke run of seconds (CI)")
    bench.add_argument("--out", default="bench-results", help="folder for bench.json and bench.md")
    bench.add_argument("--only", help="parts to run, e.g. P1,P5 (default: P1 to P6)")
    bench.add_argument("--game", default="vampire-queen", help="game of P2, P3, P4 and P6")
    bench.add_argument("--players", type=int, default=4, help="players of P2, P3, P4 and P6")
    bench.add_argument("--concurrency", type=int, help="concurrent games of P2 and P6")
    bench.add_argument("--capacity-games", type=int, help="games held in P4 (two streams each)")
    bench.add_argument("--recovery-games", type=int, help="games in P5's cold-start database")

    verifying = commands.add_parser(
        "verify",
        help="re-check a finished game against its seed commitment (docs/fairness.md)",
        description="Re-derive every event of a finished game from its revealed seed and "
        "its commands; exit 0 when the log is consistent, 1 when it is not, 2 when the game "
        "cannot be read or has nothing to check yet (no commitment, seed not revealed).",
    )
    verifying.add_argument("game_id")
    source = verifying.add_mutually_exclusive_group()
    source.add_argument(
        "--store", help="event store to read: sqlite:PATH (default sqlite:data/referee.sqlite3)"
    )
    source.add_argument(
        "--server",
        help="host:port of a running referee (uses ExportGame, with the organiser token)",
    )
    verifying.add_argument(
        "--organiser-token",
        default=os.environ.get("REFEREE_ORGANISER_TOKEN", ""),
        help="the game's organiser token for --server (default $REFEREE_ORGANISER_TOKEN); "
        "not needed for a game created with public_reveal_waives_secrecy",
    )
    verifying.add_argument("--json", action="store_true", help="print the report as JSON")

    args = parser.parse_args(argv)
    if args.command == "verify":
        return _verify(args.game_id, args.store, args.server, args.json, args.organiser_token)
    if args.command == "scenario":
        from referee.scenario.runner import main as run_scenarios

        return int(run_scenarios(args.files))
    if args.command == "bench":
        from referee.bench import main as run_bench

        try:
            return int(
                run_bench(
                    quick=args.quick,
                    out=args.out,
                    only=args.only,
                    game=args.game,
                    players=args.players,
                    concurrency=args.concurrency,
                    capacity_games=args.capacity_games,
                    recovery_games=args.recovery_games,
                    argv=argv if argv is not None else sys.argv[1:],
                )
            )
        except ValueError as error:
            parser.error(str(error))
    if args.command is None:
        args = parser.parse_args(["serve", *(argv or [])])
    from referee.server.app import ServerConfig, configure_logging, serve

    configure_logging()
    config = ServerConfig(
        listen=args.listen,
        store=args.store,
        metrics=args.metrics or None,
        limits=Limits(
            max_games=args.max_games,
            max_streams=args.max_streams,
            stream_buffer=args.stream_buffer,
        ),
        max_message_bytes=args.max_message_bytes,
    )
    asyncio.run(serve(config))
    return 0


def _verify(
    game_id: str, store_url: str | None, server: str | None, as_json: bool, token: str = ""
) -> int:
    import json

    from referee import fairness

    try:
        if server:
            import grpc

            from referee.v1 import referee_pb2 as pb
            from referee.v1 import referee_pb2_grpc as pb_grpc

            with grpc.insecure_channel(server) as channel:
                stub = pb_grpc.RefereeServiceStub(channel)
                try:
                    request = pb.ExportGameRequest(game_id=game_id, organiser_token=token)
                    export = stub.ExportGame(request, timeout=60)
                except grpc.RpcError as error:
                    call: Any = error  # a failed call is also a grpc.Call
                    print(f"referee verify: {call.code().name}: {call.details()}", file=sys.stderr)
                    return 2
            report = fairness.verify_export(export)
        else:
            from referee.store import GameNotFound, open_store

            try:
                with open_store(store_url or "sqlite:data/referee.sqlite3") as store:
                    report = fairness.verify_store(store, game_id)
            except GameNotFound:
                print(f"referee verify: no game {game_id!r} in the store", file=sys.stderr)
                return 2
    except (OSError, ValueError, RuntimeError) as error:
        print(f"referee verify: {error}", file=sys.stderr)
        return 2
    print(json.dumps(report.to_json(), indent=2) if as_json else report.text())
    if report.unverifiable:
        return 2  # nothing to check (yet): not a tampered log
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
