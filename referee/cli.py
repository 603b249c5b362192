"""The ``referee`` command: ``serve``, ``account``, ``scenario run``, ``bench``, ``verify``."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from typing import Any

from referee import cli_help
from referee.application import Limits
from referee.application.house.levels import DEFAULT_BUDGET_MS, parse_levels
from referee.application.players.accounts import (
    DEFAULT_PLATFORM_NAMESPACE,
    DEFAULT_REGISTRATIONS_PER_MINUTE,
    PlayerSettings,
)
from referee.application.tables.limits import DEFAULT_PER_MINUTE, AddressLimits
from referee.server.addresses import parse_networks
from referee.server.connections import Connections
from referee.store import DEFAULT_WAIT

LOG_LEVELS = ("debug", "info", "warning", "error")


def build_parser() -> argparse.ArgumentParser:
    """The ``referee`` command line (the ``serve`` defaults read from the environment now)."""
    from referee.engine.registry import all_games

    game_ids = ", ".join(game.info.type_id for game in all_games())
    parser = cli_help.parser(
        "referee",
        "Game referee server and tools. Without a command: serve.",
        epilog="Docs: README.md, docs/operations.md (flags, logs, metrics), docs/rules/.",
    )
    commands = cli_help.subcommands(parser, dest="command", metavar="COMMAND")

    serving = commands.add_parser(
        "serve",
        help="run the gRPC server (the default command)",
        description="Run the gRPC server. Every flag can also be set by the environment "
        "variable named in its help (the flag wins); docs/operations.md.",
    )
    _env_flag(serving, "--listen", default="127.0.0.1:50051", help="host:port for gRPC")
    _env_flag(
        serving,
        "--store",
        default="sqlite:data/referee.sqlite3",
        help="event store: sqlite:PATH, memory: (lost at exit) or postgresql://... (shared by "
        "several replicas)",
    )
    _env_flag(
        serving,
        "--store-wait-seconds",
        type=float,
        default=DEFAULT_WAIT,
        help="longest a call waits for the store (a PostgreSQL connection, the answer to each "
        "statement, SQLite's write lock) before it fails with UNAVAILABLE and a retry hint",
    )
    _env_flag(
        serving,
        "--metrics",
        default="127.0.0.1:9464",
        help="host:port for Prometheus /metrics ('' to disable)",
    )
    _env_flag(
        serving,
        "--log-level",
        default="info",
        choices=LOG_LEVELS,
        help="JSON log lines on stderr from this level up; debug adds one line per command",
    )
    _env_flag(
        serving,
        "--http",
        default="",
        help="host:port for browsers: Connect, gRPC-Web and the web client ('' = off)",
    )
    _env_flag(
        serving,
        "--http-cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another origin (e.g. http://localhost:5173) browsers may call --http from; "
        "repeat for more, '*' for any (default: the HTTP port's own origin only); "
        "in the environment: comma-separated",
    )
    _env_flag(
        serving,
        "--max-games",
        type=int,
        default=Limits.max_games,
        help="games not over that one replica holds; more: RESOURCE_EXHAUSTED",
    )
    _env_flag(
        serving,
        "--max-streams",
        type=int,
        default=Limits.max_streams,
        help="open streams (StreamGame, PlayerSession, WatchPlayer, WatchLobby) per replica; "
        "more: RESOURCE_EXHAUSTED with RetryInfo",
    )
    _env_flag(
        serving,
        "--max-streams-per-player",
        type=int,
        default=Limits.max_streams_per_player,
        help="open streams of one signed-in player per replica (0 = no cap); more: "
        "RESOURCE_EXHAUSTED with RetryInfo",
    )
    _env_flag(
        serving,
        "--max-streams-per-address",
        type=int,
        default=Limits.max_streams_per_address,
        help="open streams of one client address per replica (0 = no cap; the address as "
        "--trusted-proxy finds it); more: RESOURCE_EXHAUSTED with RetryInfo",
    )
    _env_flag(
        serving,
        "--stream-buffer",
        type=int,
        default=Limits.stream_buffer,
        help="events a slow stream may fall behind the live game before it is ended with "
        "RESOURCE_EXHAUSTED",
    )
    _env_flag(
        serving,
        "--stream-stall-seconds",
        type=float,
        default=Limits.stream_stall_seconds,
        help="a stream whose client takes no message for this long is ended with "
        "RESOURCE_EXHAUSTED (0 = never)",
    )
    _env_flag(
        serving,
        "--stream-heartbeat-seconds",
        type=float,
        default=Limits.stream_heartbeat_seconds,
        help="an idle stream sends a heartbeat this often, so proxies keep it (0 = never)",
    )
    _env_flag(
        serving,
        "--max-live-games",
        type=int,
        default=Limits.max_live_games,
        help="most games held in memory; idle ones beyond it load again on demand",
    )
    _env_flag(
        serving,
        "--evict-idle-seconds",
        type=float,
        default=Limits.evict_idle_seconds,
        help="a game with no call, stream or running clock for this long leaves memory",
    )
    _env_flag(
        serving,
        "--idle-expiry-seconds",
        type=float,
        default=Limits.idle_expiry_seconds,
        help="a game without a clock and no move for this long: in a rated game the seat it "
        "waits for is abandoned (it loses); any other is aborted, with a public reason, once "
        "no seat is connected (0 = never; default 24 h)",
    )
    _env_flag(
        serving,
        "--reconnect-window-seconds",
        type=float,
        default=Limits.reconnect_window_seconds,
        help="a seat whose client closed its stream mid-game and that opens none again "
        "within this long (on any replica) is counted a disconnect",
    )
    _env_flag(
        serving,
        "--max-message-bytes",
        type=int,
        default=4 * 1024 * 1024,
        help="largest gRPC message received or sent, in bytes",
    )
    _env_flag(
        serving,
        "--open-registration",
        action="store_true",
        help="let anyone create an account with the Register call (default: only the "
        "operator, with 'referee account create')",
    )
    _env_flag(
        serving,
        "--platform-key",
        default="",
        metavar="FILE",
        help="accept players' JWTs signed with this PEM public key (RS256, ES256 or EdDSA; "
        "docs/embedding.md, 'Platform tokens')",
    )
    _env_flag(
        serving,
        "--platform-jwks",
        default="",
        metavar="FILE",
        help="accept players' JWTs signed with a key of this JWKS file (by their kid)",
    )
    _env_flag(
        serving,
        "--platform-issuer",
        default="",
        help="platform tokens must carry this 'iss' claim",
    )
    _env_flag(
        serving,
        "--platform-audience",
        default="",
        help="platform tokens must carry this 'aud' claim (needed when they carry one)",
    )
    _env_flag(
        serving,
        "--platform-namespace",
        default=DEFAULT_PLATFORM_NAMESPACE,
        help="a platform token's player is named NAMESPACE:SUB here, apart from every account "
        "and house bot ('' keeps the subjects' names bare: a subject that names an account or "
        "a house bot is then refused)",
    )
    _env_flag(
        serving,
        "--player-calls-per-minute",
        type=int,
        default=DEFAULT_PER_MINUTE,
        help="calls one player may make per minute on this replica (a minute's worth may "
        "come at once); more: RESOURCE_EXHAUSTED with a retry delay (0 = unlimited)",
    )
    _env_flag(
        serving,
        "--registrations-per-minute",
        type=int,
        default=DEFAULT_REGISTRATIONS_PER_MINUTE,
        help="Register calls this replica accepts per minute, from anyone, with "
        "--open-registration; more: RESOURCE_EXHAUSTED with a retry delay (0 = unlimited)",
    )
    _address_flags(serving)
    _connection_flags(serving)
    _env_flag(
        serving,
        "--house-bots",
        default="",
        metavar="LEVELS",
        help="run bot players of these strengths (easy, normal, hard) in the server, each "
        "LEVEL or LEVEL:COUNT accounts (3 unless said, at most 11), e.g. 'easy:1,normal' "
        "(accounts house-easy, house-normal, house-normal-2, house-normal-3; docs/lobby.md, "
        "'House bots')",
    )
    _env_flag(
        serving,
        "--house-bot-budget-ms",
        type=int,
        default=DEFAULT_BUDGET_MS,
        help="a house bot's most time for a move; past it (or when its strategy fails) it "
        "plays a random legal move, logged and counted (hard searches half of it in CPU time)",
    )
    _env_flag(
        serving,
        "--house-bots-pair-after",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="a pairing request waiting this long is joined by a house bot (0 = never)",
    )
    _env_flag(
        serving,
        "--drain-seconds",
        type=float,
        default=2.0,
        help="at shutdown, after health turns NOT_SERVING, serve on until no call arrived "
        "for 0.2 s, at most this long",
    )
    _env_flag(
        serving,
        "--grace-seconds",
        type=float,
        default=5.0,
        help="how long a stopping server lets calls in flight finish",
    )

    account = commands.add_parser(
        "account",
        help="players' accounts: create one (its API token is printed once), list them, "
        "revoke or replace a token",
    )
    account_commands = cli_help.subcommands(
        account, dest="account_command", required=True, metavar="COMMAND"
    )
    creating = account_commands.add_parser(
        "create",
        help="create an account; prints its API token on stdout, once (only its hash is kept)",
    )
    creating.add_argument("name", help="1-32 letters, digits, '-', '_', '.'")
    creating.add_argument("--bot", action="store_true", help="the account is a program's")
    listing = account_commands.add_parser(
        "list", help="every player: name, kind, created, account or platform (tab-separated)"
    )
    revoking = account_commands.add_parser(
        "revoke",
        help="the account's token signs in no more, on every replica within seconds, and "
        "the streams opened with it end ('rotate' gives it a new one)",
    )
    revoking.add_argument("name", help="the account")
    rotating = account_commands.add_parser(
        "rotate",
        help="a new API token for the account, printed on stdout once; the old one is revoked",
    )
    rotating.add_argument("name", help="the account")
    for accounts in (creating, listing, revoking, rotating):
        _env_flag(
            accounts,
            "--store",
            default="sqlite:data/referee.sqlite3",
            help="the server's event store (accounts live with the games)",
        )

    health = commands.add_parser(
        "health",
        help="ask a server's gRPC health service; exit 0 when SERVING (container probes)",
    )
    health.add_argument("--address", default="127.0.0.1:50051", help="host:port of the server")
    health.add_argument("--service", default="", help="service name ('' = the whole server)")
    health.add_argument("--timeout", type=float, default=3.0, help="seconds to wait")

    scenario = commands.add_parser("scenario", help="scripted games (docs/scenarios.md)")
    scenario_commands = cli_help.subcommands(
        scenario, dest="scenario_command", required=True, metavar="COMMAND"
    )
    run = scenario_commands.add_parser("run", help="run scenario files; non-zero on a mismatch")
    run.add_argument("files", nargs="+", help="scenario files (.yaml, .json) or folders")
    run.add_argument(
        "--server", metavar="HOST:PORT", help="play against this running referee over gRPC"
    )
    run.add_argument(
        "--keep-going", action="store_true", help="report every mismatch, not only the first"
    )
    run.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")

    bench = commands.add_parser(
        "bench", help="performance figures (docs/performance.md), as ratios measured side by side"
    )
    bench.add_argument("--quick", action="store_true", help="a smoke run of seconds (CI)")
    bench.add_argument("--out", default="bench-results", help="folder for bench.json and bench.md")
    bench.add_argument("--only", help="parts to run, e.g. P1,P5 (default: P1 to P9)")
    bench.add_argument(
        "--game", default="vampire-queen", help=f"game id of P2, P3, P4 and P6: {game_ids}"
    )
    bench.add_argument("--players", type=int, default=4, help="players of P2, P3, P4 and P6")
    bench.add_argument(
        "--concurrency", type=int, help="concurrent games of P2 and P6 (default: by the part)"
    )
    bench.add_argument(
        "--capacity-games", type=int, help="games held in P4, two streams each (default: by P4)"
    )
    bench.add_argument(
        "--trace",
        action="store_true",
        help="P4 again under tracemalloc (at most 1,000 games): the top allocators per game and "
        "per stream",
    )
    bench.add_argument(
        "--recovery-games",
        type=int,
        help="games in P5's and RESTART's cold-start databases (default: by the part)",
    )

    verifying = commands.add_parser(
        "verify",
        help="re-check a finished game against its seed commitment (docs/fairness.md)",
        description="Re-derive every event of a finished game from its revealed seed and "
        "its commands; exit 0 when the log is consistent, 1 when it is not, 2 when the game "
        "cannot be read or has nothing to check yet (no commitment, seed not revealed).",
    )
    verifying.add_argument("game_id", help="the game to check")
    source = verifying.add_mutually_exclusive_group()
    source.add_argument(
        "--store", help="event store to read: sqlite:PATH (default: sqlite:data/referee.sqlite3)"
    )
    source.add_argument(
        "--server",
        help="host:port of a running referee (uses ExportGame, with the organiser token)",
    )
    verifying.add_argument(
        "--organiser-token",
        # No default here: help shows defaults, and a token must never be printed.
        help="the game's organiser token for --server (else env REFEREE_ORGANISER_TOKEN); "
        "not needed for a game created with public_reveal_waives_secrecy",
    )
    verifying.add_argument(
        "--organiser-token-file",
        metavar="FILE",
        help="read the game's organiser token from FILE: the organiser-tokens.json that "
        "referee-tournament and referee-cli new keep (owner-only, secret)",
    )
    verifying.add_argument("--json", action="store_true", help="print the report as JSON")

    return parser


def _token_from_file(path: str, game_id: str) -> str | None:
    """The game's organiser token from an organiser-tokens.json (``{"games": {id: token}}``);
    None, with a message that never quotes a token, when it is not there."""
    import json

    try:
        with open(path, encoding="utf-8") as file:
            games = json.load(file).get("games", {})
    except (OSError, ValueError, AttributeError) as error:
        print(f"referee verify: {path}: cannot read it ({type(error).__name__})", file=sys.stderr)
        return None
    token = games.get(game_id) if isinstance(games, dict) else None
    if not isinstance(token, str) or not token:
        print(f"referee verify: {path} has no organiser token for {game_id}", file=sys.stderr)
        return None
    return token


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "health":
        return _health(args.address, args.service, args.timeout)
    if args.command == "verify":
        token = args.organiser_token or os.environ.get("REFEREE_ORGANISER_TOKEN", "")
        if args.organiser_token_file:
            token = _token_from_file(args.organiser_token_file, args.game_id)
            if token is None:
                return 2
        return _verify(args.game_id, args.store, args.server, args.json, token)
    if args.command == "account":
        kind = "bot" if getattr(args, "bot", False) else "person"
        return _account(args.account_command, args.store, getattr(args, "name", ""), kind)
    if args.command == "scenario":
        from referee.scenario.command import main as run_scenarios

        options = ["--keep-going"] if args.keep_going else []
        options += ["--server", args.server] if args.server else []
        options += ["--junit", args.junit] if args.junit else []
        return int(run_scenarios([*options, *args.files]))
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
                    trace=args.trace,
                    argv=argv if argv is not None else sys.argv[1:],
                )
            )
        except ValueError as error:
            parser.error(str(error))
    if args.command is None:
        args = parser.parse_args(["serve", *(argv or [])])
    from referee.server.app import ServerConfig, configure_logging, serve

    configure_logging(logging.getLevelNamesMapping()[args.log_level.upper()])
    players = _player_settings(args)
    if players is None:
        return 2
    try:
        parse_levels(args.house_bots)
    except ValueError as error:
        parser.error(f"--house-bots: {error}")
    try:
        parse_networks(args.trusted_proxy)
        connections = Connections(
            http_header_seconds=args.http_header_seconds,
            http_idle_seconds=args.http_idle_seconds,
            grpc_handshake_seconds=args.grpc_handshake_seconds,
            grpc_idle_seconds=args.grpc_idle_seconds,
            grpc_age_seconds=args.grpc_max_connection_age_seconds,
            grpc_age_grace_seconds=args.grpc_max_connection_age_grace_seconds,
            grpc_keepalive_seconds=args.grpc_keepalive_seconds,
            grpc_min_ping_seconds=args.grpc_min_ping_seconds,
        )
    except ValueError as error:
        parser.error(str(error))
    config = ServerConfig(
        listen=args.listen,
        store=args.store,
        store_wait=args.store_wait_seconds,
        metrics=args.metrics or None,
        http=args.http or None,
        cors_origins=tuple(args.http_cors_origin),
        limits=Limits(
            max_games=args.max_games,
            max_streams=args.max_streams,
            stream_buffer=args.stream_buffer,
            stream_stall_seconds=args.stream_stall_seconds,
            stream_heartbeat_seconds=args.stream_heartbeat_seconds,
            max_streams_per_player=args.max_streams_per_player,
            max_streams_per_address=args.max_streams_per_address,
            max_live_games=args.max_live_games,
            evict_idle_seconds=args.evict_idle_seconds,
            idle_expiry_seconds=args.idle_expiry_seconds,
            reconnect_window_seconds=args.reconnect_window_seconds,
        ),
        players=players,
        trusted_proxies=tuple(args.trusted_proxy),
        connections=connections,
        max_message_bytes=args.max_message_bytes,
        grace_seconds=args.grace_seconds,
        drain_seconds=args.drain_seconds,
        house_bots=args.house_bots,
        house_bot_budget_ms=args.house_bot_budget_ms,
        house_bots_pair_after=args.house_bots_pair_after,
    )
    try:
        asyncio.run(serve(config))
    except OSError as error:  # e.g. the port is taken: say so, exit non-zero, no traceback
        print(f"referee serve: {error}", file=sys.stderr)
        return 1
    return 0


def _env_flag(parser: argparse.ArgumentParser, flag: str, **options: Any) -> None:
    """A flag whose default comes from ``REFEREE_<FLAG>`` when that is set (``--max-games``:
    ``REFEREE_MAX_GAMES``), so containers are configured by environment alone."""
    name = "REFEREE_" + flag.removeprefix("--").replace("-", "_").upper()
    if name in os.environ:
        value = os.environ[name]
        if options.get("action") == "append":  # a list: comma-separated in the environment
            options["default"] = [item.strip() for item in value.split(",") if item.strip()]
        elif options.get("action") == "store_true":  # a switch: on for 1/true/yes/on
            options["default"] = value.strip().lower() in ("1", "true", "yes", "on")
        else:
            options["default"] = value  # argparse applies ``type`` to string defaults
    shown = options.get("help", "")
    options["help"] = f"{shown}{'; ' if shown else ''}env {name}"
    parser.add_argument(flag, **options)


def _address_flags(serving: argparse.ArgumentParser) -> None:
    """``serve``'s limits of calls no player is counted for, per client address."""
    limits = AddressLimits()
    for flag, default, what in (
        (
            "--address-claim-attempts-per-minute",
            limits.claim_attempts_per_minute,
            "ClaimSeat calls with a claim code (a right code is not counted)",
        ),
        ("--address-games-per-minute", limits.games_created_per_minute, "CreateGame calls"),
        (
            "--address-registrations-per-minute",
            limits.registrations_per_minute,
            "Register calls",
        ),
        (
            "--address-reads-per-minute",
            limits.reads_per_minute,
            "public reads (games, views as spectator, lobby, ratings, presence)",
        ),
    ):
        _env_flag(
            serving,
            flag,
            type=int,
            default=default,
            help=f"{what} one client address may make per minute without a player's "
            "credential; more: RESOURCE_EXHAUSTED with a retry delay (0 = unlimited)",
        )
    _env_flag(
        serving,
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="CIDR",
        help="a proxy (address or network) whose X-Forwarded-For / X-Real-IP names the "
        "client's address; repeat for more; in the environment: comma-separated (default: "
        "none, the connection's peer is the client)",
    )


def _connection_flags(serving: argparse.ArgumentParser) -> None:
    """``serve``'s limits on connections (:mod:`referee.server.connections`)."""
    limits = Connections()
    for flag, default, what in (
        (
            "--http-header-seconds",
            limits.http_header_seconds,
            "an HTTP connection's request head (HTTP/2: its first request) must arrive within "
            "this long of opening, and a body within this long of its head",
        ),
        (
            "--http-idle-seconds",
            limits.http_idle_seconds,
            "an HTTP connection with no request in flight is closed after this long",
        ),
        (
            "--grpc-handshake-seconds",
            limits.grpc_handshake_seconds,
            "a gRPC connection's HTTP/2 handshake must end within this long",
        ),
        (
            "--grpc-idle-seconds",
            limits.grpc_idle_seconds,
            "a gRPC connection without a call for this long is closed (GOAWAY)",
        ),
        (
            "--grpc-max-connection-age-seconds",
            limits.grpc_age_seconds,
            "a gRPC connection is sent GOAWAY after this long (+ up to 10 %%)",
        ),
        (
            "--grpc-max-connection-age-grace-seconds",
            limits.grpc_age_grace_seconds,
            "then its calls have this long to end; streams still open end UNAVAILABLE and resume",
        ),
        (
            "--grpc-keepalive-seconds",
            limits.grpc_keepalive_seconds,
            "the server pings a gRPC connection silent this long, and drops it when no answer "
            "comes",
        ),
        (
            "--grpc-min-ping-seconds",
            limits.grpc_min_ping_seconds,
            "a gRPC client may ping at most this often; more often, it is sent away",
        ),
    ):
        _env_flag(serving, flag, type=float, default=default, help=f"{what} (0 = no limit)")


def _player_settings(args: argparse.Namespace) -> PlayerSettings | None:
    """The players' flags of ``serve``; None (after saying why) when a key file cannot
    serve, so a misconfigured server never starts accepting nobody or anybody."""
    from referee.application.players.platform import PlatformKeys

    try:
        platform = PlatformKeys.from_files(
            args.platform_key, args.platform_jwks, args.platform_issuer, args.platform_audience
        )
    except (OSError, ValueError) as error:
        print(f"referee serve: platform key: {error}", file=sys.stderr)
        return None
    try:
        per_address = AddressLimits(
            claim_attempts_per_minute=args.address_claim_attempts_per_minute,
            games_created_per_minute=args.address_games_per_minute,
            registrations_per_minute=args.address_registrations_per_minute,
            reads_per_minute=args.address_reads_per_minute,
        )
    except ValueError as error:
        print(f"referee serve: --address-*-per-minute: {error}", file=sys.stderr)
        return None
    try:
        return PlayerSettings(
            open_registration=args.open_registration,
            platform=platform,
            calls_per_minute=args.player_calls_per_minute,
            registrations_per_minute=args.registrations_per_minute,
            platform_namespace=args.platform_namespace,
            per_address=per_address,
        )
    except ValueError as error:
        print(f"referee serve: --platform-namespace: {error}", file=sys.stderr)
        return None


def _account(command: str, store_url: str, name: str, kind: str) -> int:
    """``referee account create|list|revoke|rotate``: straight on the store, no server
    needed (replicas see a new account, and a revoked token, within seconds: accounts are
    documents of the shared store)."""
    from referee.application import Referee, RefereeError
    from referee.application.players.credentials import RECHECK_SECONDS
    from referee.server.app import configure_logging
    from referee.store import open_store

    # stdout carries the token alone; the referee's own lines (as JSON) only from warnings up.
    configure_logging(logging.WARNING)

    async def run() -> int:
        referee = Referee(open_store(store_url))
        try:
            if command == "create":
                player, token = await referee.players.create_account(name, kind)
                print(
                    f"created {player.kind} account {player.name!r}; its API token (shown "
                    "only now; send it as 'authorization: Bearer <token>') is on stdout",
                    file=sys.stderr,
                )
                print(token)  # alone on stdout, so a script can take it: $(referee account ...)
            elif command == "revoke":
                player = await referee.players.revoke(name)
                print(
                    f"revoked the API token of {player.name!r}: refused on every replica "
                    f"within {RECHECK_SECONDS:g} s; 'referee account rotate {player.name}' "
                    "makes a new one",
                    file=sys.stderr,
                )
            elif command == "rotate":
                player, token = await referee.players.rotate(name)
                print(
                    f"a new API token for {player.name!r} (shown only now) is on stdout; the "
                    f"old one is refused on every replica within {RECHECK_SECONDS:g} s",
                    file=sys.stderr,
                )
                print(token)
            else:
                for player in await referee.players.accounts():
                    # name, kind, created (UTC), account or platform (a platform's player
                    # this server has seen a token of: no account, no date)
                    created = _iso(player.created_ms) if player.created_ms else "-"
                    source = "platform" if player.platform else "account"
                    print(f"{player.name}\t{player.kind or '-'}\t{created}\t{source}")
        except RefereeError as error:
            print(f"referee account: {error}", file=sys.stderr)
            return 1
        finally:
            referee.close()
        return 0

    try:
        return asyncio.run(run())
    except (OSError, ValueError, RuntimeError) as error:
        print(f"referee account: {error}", file=sys.stderr)
        return 2


def _iso(ms: int) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).isoformat(timespec="seconds")


def _health(address: str, service: str, timeout: float) -> int:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            answer = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as error:
            call: Any = error
            print(f"referee health: {address}: {call.code().name}", file=sys.stderr)
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)
    print(f"{address}: {status}")
    return 0 if answer.status == health_pb2.HealthCheckResponse.SERVING else 1


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
