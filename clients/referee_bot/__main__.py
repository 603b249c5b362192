"""referee-bot: play one seat, or self-play whole games, against a running referee.

referee-bot play --server ADDR --game-id ID --token TOKEN [--strategy heuristic] [--seed S]
referee-bot selfplay --game vampire-queen --players 4 --games 10 [--seed 1] [--strategy mix]
referee-bot selfplay --game dracula-vs-van-helsing --games 10     (2 seats by default)
REFEREE_CREDENTIAL=acct-... referee-bot player [--accept-challenges] [--claim-reserved]
    [--challenge NAME | --pair]
    [--game sleeping-queens --players 2 --rated] [--games 1]   (every seat held, one stream)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence

import grpc

from referee import cli_help
from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot import DEFAULT_SERVER, sdk
from referee_bot.runner import (
    BotError,
    default_players,
    describe_rpc_error,
    parse_options,
    selfplay_game,
)
from referee_bot.sdk import StrategyBot
from referee_bot.strategies import known_games, make_strategy, strategy_names


def _parser() -> argparse.ArgumentParser:
    games = ", ".join(known_games())
    parser = cli_help.parser(
        "referee-bot",
        "Play one seat, or self-play whole games, against a running referee.",
        epilog="Strategies: random, heuristic (per game; docs/clients.md section 10).",
    )
    commands = cli_help.subcommands(parser, dest="command", required=True, metavar="COMMAND")

    play = commands.add_parser("play", help="play one seat of an existing game")
    play.add_argument("--server", default=DEFAULT_SERVER, help="host:port of the referee")
    play.add_argument("--game-id", required=True, help="the game's id (from CreateGame)")
    play.add_argument("--token", required=True, help="the seat's secret token")
    play.add_argument(
        "--strategy", default="heuristic", choices=strategy_names(), help="how the bot chooses"
    )
    play.add_argument("--seed", help="seed of the bot's random choices (default: random)")

    selfplay = commands.add_parser("selfplay", help="create games and play every seat")
    selfplay.add_argument("--server", default=DEFAULT_SERVER, help="host:port of the referee")
    selfplay.add_argument("--game", default="vampire-queen", help=f"game type id: {games}")
    selfplay.add_argument(
        "--players", type=int, help="number of seats (default: 4, within the game's range)"
    )
    selfplay.add_argument("--games", type=int, default=1, help="how many games to play")
    selfplay.add_argument(
        "--seed", type=int, help="game i uses seed S+i, deal and bots (default: random)"
    )
    selfplay.add_argument(
        "--strategy",
        default="heuristic",
        choices=[*strategy_names(), "mix"],
        help="how the bots choose; mix: heuristic on even seats, random on odd seats",
    )
    selfplay.add_argument(
        "--options", nargs="+", action="extend", metavar="K=V", help="game options, e.g. rounds=1"
    )
    selfplay.add_argument("--timeout", type=float, default=600.0, help="seconds per game")

    player = commands.add_parser(
        "player", help="play every seat a player holds, on its one player stream"
    )
    player.add_argument("--server", default=DEFAULT_SERVER, help="host:port of the referee")
    player.add_argument(
        "--credential-env",
        default="REFEREE_CREDENTIAL",
        help="environment variable holding the player's token (never a flag: ps shows flags)",
    )
    player.add_argument(
        "--strategy", default="heuristic", choices=strategy_names(), help="how the bot chooses"
    )
    player.add_argument("--seed", help="seed of the bot's random choices (default: random)")
    player.add_argument(
        "--games", type=int, default=1, help="stop after this many games end (0: never)"
    )
    player.add_argument(
        "--claim-reserved",
        action="store_true",
        help="claim every seat reserved for the player (e.g. by referee-tournament)",
    )
    player.add_argument("--accept-challenges", action="store_true", help="accept challenges")
    player.add_argument("--challenge", help="challenge this player first")
    player.add_argument("--pair", action="store_true", help="ask to be paired first")
    player.add_argument("--game", default="sleeping-queens", help=f"the terms: {games}")
    player.add_argument("--players", type=int, default=0, help="the terms: seats (0: fewest)")
    player.add_argument("--rated", action="store_true", help="the terms: a rated game")
    return parser


def _play(args: argparse.Namespace) -> int:
    with grpc.insecure_channel(args.server) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        try:
            game_type = stub.GetGame(
                referee_pb2.GetGameRequest(game_id=args.game_id), timeout=30
            ).game.game_type
            bot = StrategyBot(make_strategy(args.strategy, game_type), random.Random(args.seed))
            outcome = sdk.play(bot, stub, args.game_id, args.token)
        except grpc.RpcError as error:
            print(f"referee-bot: {describe_rpc_error(error)}", file=sys.stderr)
            return 1
        except BotError as error:
            print(f"referee-bot: {error}", file=sys.stderr)
            return 1
    print(json.dumps(outcome.report()), flush=True)
    return 0


def _selfplay(args: argparse.Namespace) -> int:
    try:
        options = parse_options(args.options)
    except ValueError as error:
        print(f"referee-bot: {error}", file=sys.stderr)
        return 2
    failures = 0
    with grpc.insecure_channel(args.server) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        if args.players is None:
            try:
                args.players = default_players(stub, args.game)
            except grpc.RpcError as error:
                print(f"referee-bot: {describe_rpc_error(error)}", file=sys.stderr)
                return 1
        if args.strategy == "mix":
            strategies = ["heuristic" if s % 2 == 0 else "random" for s in range(args.players)]
        else:
            strategies = [args.strategy] * args.players
        for index in range(args.games):
            seed = None if args.seed is None else str(args.seed + index)
            try:
                report = selfplay_game(
                    stub,
                    args.game,
                    args.players,
                    strategies,
                    options=options,
                    seed=seed,
                    timeout=args.timeout,
                )
            except grpc.RpcError as error:
                print(f"referee-bot: game {index}: {describe_rpc_error(error)}", file=sys.stderr)
                failures += 1
                continue
            except (BotError, TimeoutError) as error:
                print(f"referee-bot: game {index}: {error}", file=sys.stderr)
                failures += 1
                continue
            print(json.dumps(report), flush=True)
    return 1 if failures else 0


def _player(args: argparse.Namespace) -> int:
    import os

    from referee_bot.reserved import ReservedSeats
    from referee_bot.session import PlayerStream

    credential = os.environ.get(args.credential_env, "")
    if not credential:
        print(f"referee-bot: set {args.credential_env} to the player's token", file=sys.stderr)
        return 2
    metadata = [("authorization", f"Bearer {credential}")]
    terms = referee_pb2.GameTerms(game_type=args.game, players=args.players, rated=args.rated)
    rng = random.Random(args.seed)

    def bot_for(game: referee_pb2.GameSummary, seat: int) -> StrategyBot:
        return StrategyBot(make_strategy(args.strategy, game.game_type), rng)

    with grpc.insecure_channel(args.server) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        # The stream announces each seat reserved for the player (those waiting when it
        # opens too): claimed as announced, then played as any seat the player holds.
        claimer = ReservedSeats(stub, credential) if args.claim_reserved else None
        stream = PlayerStream(
            stub,
            bot_for,
            credential=credential,
            accept_challenges=args.accept_challenges,
            on_message=claimer.announced if claimer is not None else None,
        )
        try:
            if args.challenge:
                request = referee_pb2.CreateChallengeRequest(challenged=args.challenge, terms=terms)
                stub.CreateChallenge(request, metadata=metadata, timeout=30)
            if args.pair:
                pairing = referee_pb2.RequestPairingRequest(terms=terms)
                stub.RequestPairing(pairing, metadata=metadata, timeout=30)
            results = stream.run(games=args.games or None)
        except grpc.RpcError as error:
            print(f"referee-bot: {describe_rpc_error(error)}", file=sys.stderr)
            return 1
        except BotError as error:
            print(f"referee-bot: {error}", file=sys.stderr)
            return 1
    for result in results:
        print(json.dumps(result.report()), flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "play":
        return _play(args)
    if args.command == "player":
        return _player(args)
    return _selfplay(args)


if __name__ == "__main__":
    sys.exit(main())
