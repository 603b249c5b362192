"""``referee-cli``: play or watch a game in the terminal, over the public gRPC API only.

    referee-cli new --game vampire-queen --players 4 --bots 3 [--options rounds=1] [--seed S]
    referee-cli new --game dracula-vs-van-helsing        (2 players: you and one bot)
    referee-cli new --game sleeping-queens --players 3
    referee-cli join --game-id ID --token TOKEN
    referee-cli spectate --game-id ID
    referee-cli list
    referee-cli rules GAME

and as a player (:mod:`referee_cli.lobby`): ``register`` (a name, on a server with open
registration), ``whoami``, ``lobby``, ``join`` (a join link, an open or reserved seat, or back
to a held seat), ``challenge``, ``challenges``, ``accept``, ``decline``, ``pair``, ``resign``,
``ratings`` (a player's ratings, absences included, or a game's leaderboard).

The bots of ``new`` are ``referee-bot play`` processes of their own, so they outlive the CLI.
A background thread reads the game's stream (resuming after drops) into a queue; the main
thread prints each event as one line, and when the newest view ends a batch of events and
asks this seat to decide, it draws the screen, lists the legal commands by number and reads
the choice from stdin.
"""

from __future__ import annotations

import argparse
import datetime
import queue
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import grpc

from referee import cli_help
from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot import DEFAULT_SERVER
from referee_bot.runner import (
    BotError,
    GameStream,
    default_players,
    describe_rpc_error,
    parse_options,
    settled,
    submit,
)
from referee_bot.strategies import known_games, strategy_names
from referee_cli import lobby, organiser, render
from referee_cli.screen import SCREEN_WIDTH, GameInfo, join


class Terminal:
    """stdin/stdout with optional ANSI emphasis when stdout is a terminal."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.ansi = bool(getattr(stdout, "isatty", lambda: False)())

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def say_wrapped(self, text: str) -> None:
        """``text`` broken at spaces to the screen's width (later lines indented by two), so a
        long line never wraps mid-word at the terminal's edge."""
        width = shutil.get_terminal_size((SCREEN_WIDTH, 24)).columns if self.ansi else SCREEN_WIDTH
        lines = textwrap.wrap(
            text, max(20, width - 1), subsequent_indent="  ", break_long_words=False
        )
        self.say("\n".join(lines) if lines else text)

    def strong(self, text: str) -> str:
        return f"\x1b[1m{text}\x1b[0m" if self.ansi else text

    def ask(self, prompt: str) -> str | None:
        """One line from stdin, or None at end of input."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        return None if line == "" else line.strip()


#: How often a reader waiting for the next message wakes to let a pending Ctrl-C through.
_WAKE_SECONDS = 0.2


class _Reader:
    """Feeds a GameStream into a queue from a background thread."""

    END = object()

    def __init__(self, stream: GameStream) -> None:
        self.stream = stream
        self.items: queue.Queue[object] = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="stream-reader", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for message in self.stream:
                self.items.put(message)
        except BaseException as error:
            self.items.put(error)
        self.items.put(self.END)

    def _get(self, timeout: float | None) -> object:
        if timeout is not None:
            return self.items.get(timeout=timeout)
        # A wait without end is many short ones: the kernel may hand a Ctrl-C to any thread
        # (the reader's, gRPC's), and Python runs its handler in the main thread only when that
        # thread wakes; one long wait on the queue would not wake before the next message.
        while True:
            try:
                return self.items.get(timeout=_WAKE_SECONDS)
            except queue.Empty:
                continue

    def next_batch(
        self, timeout: float | None = None
    ) -> tuple[list[referee_pb2.StreamGameResponse], bool]:
        """The next message and any already queued after it; True when the stream has ended.
        With a ``timeout``, an empty batch when nothing came in that many seconds."""
        batch: list[referee_pb2.StreamGameResponse] = []
        try:
            item = self._get(timeout)
        except queue.Empty:
            return batch, False
        while True:
            if item is self.END:
                return batch, True
            if isinstance(item, BaseException):
                raise item
            assert isinstance(item, referee_pb2.StreamGameResponse)
            batch.append(item)
            try:
                item = self.items.get_nowait()
            except queue.Empty:
                return batch, False


def follow_game(
    stub: referee_pb2_grpc.RefereeServiceStub,
    term: Terminal,
    game_id: str,
    *,
    token: str = "",
    spectator: bool | None = None,
    after_sequence: int = 0,
    server: str = DEFAULT_SERVER,
    rejoin: str | None = None,
) -> int:
    """Show a game as it happens; play the seat of ``token`` (spectate without one).
    Returns the exit status (0 at game over or when the player quits). While other seats
    decide, it says whom it waits for (once per decision, after a moment of quiet).
    ``rejoin`` is the command that comes back to the seat (default: ``join`` with the
    token, the only way back to a seat no account holds). ``spectator=False`` with no token:
    the seat that ``stub`` is bound to (:class:`referee_cli.player.SeatStub`)."""
    spectator = not token if spectator is None else spectator
    info = game_info(stub, game_id)
    stream = GameStream(
        stub,
        game_id,
        token=token,
        spectator=spectator,
        after_sequence=after_sequence,
    )
    reader = _Reader(stream)
    shown = _Shown(term, info, spectator, after_sequence)
    try:
        while True:
            waiting = _waiting_for(
                shown.newest, shown.newest_settled, shown.seen >= shown.replay_until
            )
            quiet = WAITING_NOTICE_SECONDS if waiting and waiting != shown.waiting_told else None
            try:
                batch, ended = reader.next_batch(timeout=quiet)
            except BotError as error:
                term.say(f"error: {error}")
                return 1
            if not batch and not ended:  # nobody moved for a moment: say whom we wait for
                assert waiting is not None
                shown.tell_waiting(waiting)
                continue
            for message in batch:
                shown.show(message)
            if ended:  # the server ends the stream after the game's final event
                if shown.newest is not None and shown.newest.game_over:
                    term.say(render.render_view(shown.newest, info))
                    return 0
                term.say("The stream ended before the game was over.")
                return 1
            newest = shown.asked()
            if newest is None:
                continue
            shown.prompted = newest.version
            outcome = _prompt_and_submit(stub, term, newest, token, info)
            if outcome == "quit":
                _left(term, rejoin or join_command(server, game_id, token))
                return 0
            if outcome == "retry":
                shown.prompted = -1  # ask again on the next message (e.g. after a reconnection)
    except KeyboardInterrupt:
        if spectator:
            raise
        _left(term, rejoin or join_command(server, game_id, token))
        return 130
    finally:
        stream.cancel()


class _Shown:
    """What :func:`follow_game` has shown of the game so far: the newest view and whether its
    batch is complete, the history replayed before the first current view, the last event
    printed, the last view prompted for, and the waiting last announced."""

    def __init__(self, term: Terminal, info: GameInfo, spectator: bool, after: int) -> None:
        self.term, self.info, self.spectator = term, info, spectator
        self.newest: referee_pb2.View | None = None
        self.newest_settled = False
        self.replay_until = after  # the first view's version: print the history before asking
        self.seen = after  # the last event sequence printed
        self.prompted = -1
        self.drawn = False  # the table is drawn once on joining, after any history replayed
        #: (version, seats) last announced
        self.waiting_told: tuple[int, tuple[int, ...]] | None = None
        self.batch_events = 0  # events of the current batch printed so far
        #: Who holds each seat, from the newest view that says so: the views of the history
        #: replayed before the current view may come without it.
        self.holders: list[referee_pb2.SeatHolder] = []

    def tell_waiting(self, waiting: tuple[int, tuple[int, ...]]) -> None:
        """Nobody moved for a moment: say whom we wait for."""
        self.waiting_told = waiting
        newest = self.newest
        holders = render.holder_names(newest) if newest is not None else []
        names = join([render.seat_name(seat, None, holders) for seat in waiting[1]])
        self.term.say(f"waiting for {names} ... (Ctrl-C to leave)")

    def show(self, message: referee_pb2.StreamGameResponse) -> None:
        """One message of the stream: its event printed, its view kept if newer, and the
        table drawn at the first current view."""
        term, view = self.term, message.view
        if view.seat_holders:
            self.holders = list(view.seat_holders)
        else:
            view.seat_holders.extend(self.holders)
        if message.HasField("event"):
            self.seen = message.event.sequence
            self.batch_events += 1
            term.say_wrapped(render.describe_event(message.event, render.holder_names(view)))
            if self.spectator and render.redraw_for_spectator(message.event, self.batch_events):
                term.say(render.render_view(view, self.info))  # e.g. after a round's end
            if settled(message):
                self.batch_events = 0
        if self.newest is None or view.version >= self.newest.version:
            self.newest, self.newest_settled = view, settled(message)
        if not message.HasField("event"):  # a (re)connection's current view
            self.replay_until = max(self.replay_until, view.version)
            asked = view.seat in view.pending_seats and bool(view.legal_commands)
            # The first current view draws the table even when moves were replayed
            # before it: someone may move between the joining GetView and the stream.
            current = not self.drawn and not view.game_over
            self.drawn = True
            if current and (self.spectator or not asked):  # a prompt draws its own screen
                term.say(render.render_view(view, self.info))

    def asked(self) -> referee_pb2.View | None:
        """The newest view, when it asks this seat for a command not prompted for yet."""
        newest = self.newest
        if (
            newest is None
            or not self.newest_settled
            or self.seen < self.replay_until
            or not newest.HasField("seat")
            or newest.seat not in newest.pending_seats
            or not newest.legal_commands
            or newest.version <= self.prompted
        ):
            return None
        return newest


def _left(term: Terminal, command: str) -> None:
    term.say("You left the game; it waits for you. Rejoin with:")
    term.say(command)


#: Seconds without news before the CLI says whom it waits for.
WAITING_NOTICE_SECONDS = 0.5


def _waiting_for(
    view: referee_pb2.View | None, is_settled: bool, caught_up: bool
) -> tuple[int, tuple[int, ...]] | None:
    """(version, the other seats that must decide) when the game waits for someone else."""
    if view is None or not is_settled or not caught_up or view.game_over:
        return None
    me = view.seat if view.HasField("seat") else None
    if me is not None and me in view.pending_seats and view.legal_commands:
        return None
    others = tuple(seat for seat in view.pending_seats if seat != me)
    return (view.version, others) if others else None


def game_info(stub: referee_pb2_grpc.RefereeServiceStub, game_id: str) -> GameInfo:
    """The name and options of a game's type, from the server (``ListGameTypes``)."""
    game_type = stub.GetGame(referee_pb2.GetGameRequest(game_id=game_id), timeout=30).game
    types = stub.ListGameTypes(referee_pb2.ListGameTypesRequest(), timeout=30).game_types
    known = next((t for t in types if t.game_type == game_type.game_type), None)
    return GameInfo.of(known) if known is not None else GameInfo(game_type.game_type)


def join_command(server: str, game_id: str, token: str) -> str:
    """The command that plays a seat, wrapped (shell continuation) to fit 80 columns, so it
    can be copied from a terminal as it is."""
    first = "  referee-cli join"
    if server != DEFAULT_SERVER:
        first += f" --server {server}"
    return f"{first} --game-id {game_id} \\\n      --token {token}"


def _prompt_and_submit(
    stub: referee_pb2_grpc.RefereeServiceStub,
    term: Terminal,
    view: referee_pb2.View,
    token: str,
    info: GameInfo | None = None,
) -> str:
    """Draw the screen, read a choice, send it. Returns "sent", "quit", "wait" (the game
    moved on: a newer view will ask again) or "retry" (the command could not be sent)."""
    shown = render.screen(view, info)
    term.say()
    term.say(shown.text)
    while True:
        chosen = _choose(term, view, shown.groups)
        if chosen is None:
            return "quit"
        if chosen == RESIGN:
            answer = term.ask("Resign this game? The referee then plays your seat. (y/n): ")
            if answer is None or answer.lower() not in ("y", "yes"):
                continue
            try:
                stub.Resign(referee_pb2.ResignRequest(game_id=view.game_id, seat_token=token))
            except grpc.RpcError as error:
                term.say(f"error: {describe_rpc_error(error)}")
                continue
            term.say("You resigned.")
            return "sent"  # the stream brings the resignation and the moves made for the seat
        command = view.legal_commands[chosen]
        try:
            submit(stub, view.game_id, token, command, expected_version=view.version)
            return "sent"
        except grpc.RpcError as error:
            term.say(f"error: {describe_rpc_error(error)}")
            if error.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                return "wait"
            if error.code() != grpc.StatusCode.INVALID_ARGUMENT:
                return "retry"


def _choose(
    term: Terminal, view: referee_pb2.View, groups: list[tuple[str, list[int]]] | None
) -> int | None:
    """The index of the legal command the player picks, or None to quit. A menu too long for
    the screen (Vampire Queen's leads) comes in ``groups``, asked in two steps: the group (e.g.
    the value), then the command within it (how many cards, how many queens)."""
    if groups is None:
        texts = render.menu_texts(view)
        return _pick(term, "Your move:", texts, list(range(len(texts))), back=False)
    while True:
        labels = [label for label, _ in groups]
        group = _pick(term, "Your move:", labels, list(range(len(groups))), back=False)
        if group is None or group == RESIGN:
            return group
        label, members = groups[group]
        if len(members) == 1:
            return members[0]
        texts = [render.command_label(view, i) for i in members]
        chosen = _pick(term, f"{label}:", texts, members, back=True)
        if chosen != BACK:
            return chosen


#: What :func:`_pick` returns for "b" (back to the first step) and "r" (resign).
BACK = -1
RESIGN = -2


def _pick(
    term: Terminal, title: str, texts: list[str], values: list[int], *, back: bool
) -> int | None:
    """A numbered menu (in columns when long, to keep one 80x24 screen); the value picked,
    :data:`BACK`, or None to quit."""
    term.say(term.strong(title))
    term.say(render.menu_columns(texts))
    count = len(texts)
    extra = ", b to go back" if back else ", r to resign"
    while True:
        answer = term.ask(f"Choose 1-{count} (q to quit{extra}): ")
        if answer is None or answer.lower() in ("q", "quit", "exit"):
            return None
        if back and answer.lower() in ("b", "back"):
            return BACK
        if not back and answer.lower() in ("r", "resign"):
            return RESIGN
        if answer.isdigit() and 1 <= int(answer) <= count:
            return values[int(answer) - 1]
        term.say(f"Please type a number from 1 to {count}, or q to quit{extra}.")


# --- subcommands ---------------------------------------------------------------------------


def cmd_new(
    stub: referee_pb2_grpc.RefereeServiceStub, term: Terminal, args: argparse.Namespace
) -> int:
    if args.players is None:
        args.players = default_players(stub, args.game)
    if args.bots is None:
        args.bots = args.players - 1
    if not 0 <= args.bots < args.players:
        term.say("error: --bots must be between 0 and players - 1 (you play seat 0)")
        return 2
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(
            game_type=args.game,
            players=args.players,
            options=parse_options(args.options),
            seed="" if args.seed is None else str(args.seed),
            # --seed is for replaying a deal: it is public and reproducible, not secret.
            public_reproducible_seed=args.seed is not None,
        ),
        timeout=30,
    )
    game_id = created.game_id
    term.say(f"Created game {game_id} ({args.game}, {args.players} players). You are seat 0.")
    if created.organiser_token:
        # Kept, never printed: the creator aborts or verifies the game with it later.
        kept = organiser.keep(game_id, created.organiser_token, args.server)
        term.say(f"Its organiser token is kept in {kept} (secret, readable by you only).")
    term.say(f"The rules: referee-cli rules {args.game}")
    tokens = {seat.seat: seat.token for seat in created.seats}
    bots: list[tuple[int, subprocess.Popen[bytes], Path]] = []
    for seat in range(1, args.bots + 1):
        seed = None if args.seed is None else f"{args.seed}:{seat}"
        process, log = start_bot(args.server, game_id, seat, tokens[seat], args.bot_strategy, seed)
        bots.append((seat, process, log))
        term.say(f"seat {seat}: bot ({args.bot_strategy}), process {process.pid}")
    for seat in range(args.bots + 1, args.players):
        term.say(f"seat {seat}: open; join with:")
        term.say(join_command(args.server, game_id, tokens[seat]))
    code = follow_game(stub, term, game_id, token=tokens[0], server=args.server)
    over = stub.GetGame(referee_pb2.GetGameRequest(game_id=game_id), timeout=30).game.game_over
    if not over:
        if bots:
            pids = " ".join(str(process.pid) for _, process, _ in bots)
            term.say(f"The bots play on (processes {pids}; logs in {bots[0][2].parent}).")
        return code
    for seat, process, log in bots:  # they end with the game: collect them
        try:
            status = process.wait(BOT_EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            term.say(f"seat {seat}: the bot (process {process.pid}) is still running")
            continue
        if status != 0:
            term.say(f"seat {seat}: the bot exited with status {status}; see {log}")
    return code


#: How long the CLI waits, at game over, for its bots to end by themselves.
BOT_EXIT_SECONDS = 30.0
#: Every bot process this process started (tests stop the ones still running).
STARTED_BOTS: list[subprocess.Popen[bytes]] = []


def start_bot(
    server: str, game_id: str, seat: int, token: str, strategy: str, seed: str | None
) -> tuple[subprocess.Popen[bytes], Path]:
    """``referee-bot play`` for one seat, as a process of its own (its own session, so neither
    quitting the CLI nor a Ctrl-C in its terminal stops it): the game never hangs on a seat
    whose bot died with the CLI. Its output goes to a log file; it ends with the game."""
    command = [sys.executable, "-m", "referee_bot", "play", "--server", server]
    command += ["--game-id", game_id, "--token", token, "--strategy", strategy]
    if seed is not None:
        command += ["--seed", seed]
    folder = Path(tempfile.gettempdir()) / "referee-cli"
    folder.mkdir(exist_ok=True)
    log = folder / f"{game_id}-seat{seat}.log"
    with log.open("ab") as output:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            start_new_session=True,
        )
    STARTED_BOTS.append(process)
    return process, log


def cmd_spectate(
    stub: referee_pb2_grpc.RefereeServiceStub, term: Terminal, args: argparse.Namespace
) -> int:
    after = 0
    if not args.from_start:
        after = stub.GetView(
            referee_pb2.GetViewRequest(game_id=args.game_id, spectator=True), timeout=30
        ).view.version
    term.say(f"Watching game {args.game_id} (public information only).")
    return follow_game(stub, term, args.game_id, after_sequence=after)


def cmd_list(
    stub: referee_pb2_grpc.RefereeServiceStub, term: Terminal, args: argparse.Namespace
) -> int:
    response = stub.ListGames(
        referee_pb2.ListGamesRequest(running_only=args.running, game_type=args.game or ""),
        timeout=30,
    )
    if not response.games:
        term.say("No games.")
        return 0
    term.say(f"{'game id':<36}  {'game':<14} {'seats':>5} {'events':>6}  {'created':<19}  status")
    for game in response.games:
        created = datetime.datetime.fromtimestamp(game.created_unix_ms / 1000).strftime(
            "%Y-%m-%d %H:%M:%S"
        )
        if game.game_over:
            holders = {h.seat: h.player for h in game.seat_holders if h.player and not h.hidden}
            winners = [holders.get(r.seat, f"seat {r.seat}") for r in game.results if r.rank == 1]
            status = f"over (won by {', '.join(winners)})"
        elif game.referee_to_move and not game.pending_seats:
            status = "the referee plays for a seat that left"
        else:
            status = "waiting for seat " + ", ".join(str(s) for s in game.pending_seats)
        term.say(
            f"{game.game_id:<36}  {game.game_type:<14} {game.players:>5} {game.version:>6}  "
            f"{created:<19}  {status}"
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    games = ", ".join(known_games())
    parser = cli_help.parser(
        "referee-cli",
        "Play or watch referee games in the terminal.",
        epilog="The rules of each game: referee-cli rules GAME, or docs/rules/ in the repository.",
    )
    commands = cli_help.subcommands(parser, dest="command", required=True, metavar="COMMAND")

    def with_server(sub: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sub.add_argument("--server", default=DEFAULT_SERVER, help="host:port of the referee")
        return sub

    new = with_server(commands.add_parser("new", help="create a game and play seat 0"))
    new.add_argument("--game", default="vampire-queen", help=f"game type id: {games}")
    new.add_argument(
        "--players", type=int, help="number of seats (default: 4, within the game's range)"
    )
    new.add_argument(
        "--bots",
        type=int,
        default=None,
        help="bots on seats 1..N, each its own referee-bot process that plays on after you "
        "quit (default: every other seat)",
    )
    new.add_argument(
        "--bot-strategy",
        default="heuristic",
        choices=strategy_names(),
        help="how the bots choose",
    )
    new.add_argument(
        "--options", nargs="+", action="extend", metavar="K=V", help="game options, e.g. rounds=1"
    )
    new.add_argument("--seed", help="seed of the deal and of the bots (default: random)")

    spectate = with_server(commands.add_parser("spectate", help="watch a game"))
    spectate.add_argument("--game-id", required=True, help="the game's id")
    spectate.add_argument(
        "--from-start", action="store_true", help="replay every event from the beginning"
    )

    games_parser = with_server(commands.add_parser("list", help="list the server's games"))
    games_parser.add_argument("--running", action="store_true", help="only games not over")
    games_parser.add_argument("--game", help=f"only this game type id: {games}")

    rules = with_server(commands.add_parser("rules", help="print the rules of a game"))
    rules.add_argument("game", nargs="?", help=f"game type id: {games} (default: list them)")
    lobby.add_parsers(commands, with_server)
    return parser


def cmd_rules(
    stub: referee_pb2_grpc.RefereeServiceStub, term: Terminal, args: argparse.Namespace
) -> int:
    """The rules page the server sends with ListGameTypes (or where it is, in the repository)."""
    types = stub.ListGameTypes(referee_pb2.ListGameTypesRequest(), timeout=30).game_types
    chosen = next((t for t in types if t.game_type == args.game), None)
    if chosen is None:
        if args.game:
            term.say(f"error: the server has no game {args.game!r}")
        for game_type in types:
            term.say(f"{game_type.game_type:<24} {game_type.name}: {game_type.rules_path}")
        return 0 if not args.game else 2
    if chosen.rules_text:
        term.say(chosen.rules_text.rstrip("\n"))
    else:
        term.say(f"The server has no rules text; see {chosen.rules_path} in the repository.")
    return 0


COMMANDS = {
    "new": cmd_new,
    "spectate": cmd_spectate,
    "list": cmd_list,
    "rules": cmd_rules,
}


def run(argv: Sequence[str] | None, stdin: TextIO, stdout: TextIO) -> int:
    """Parse ``argv`` and run the subcommand with the given terminal streams."""
    args = build_parser().parse_args(argv)
    term = Terminal(stdin, stdout)
    with grpc.insecure_channel(args.server) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        try:
            if args.command in lobby.COMMANDS:
                return lobby.COMMANDS[args.command](stub, term, args, follow_game)
            return COMMANDS[args.command](stub, term, args)
        except grpc.RpcError as error:
            term.say(f"error: {describe_rpc_error(error)}")
            return 1
        except ValueError as error:
            term.say(f"error: {error}")
            return 2
        except KeyboardInterrupt:
            term.say("Interrupted.")
            return 130
