"""Networked games: each bot a separate process talking gRPC to the referee.

For one game the runner creates it (``CreateGame`` with the deal's seed), follows it as a
spectator (the public event stream, kept as the game's replay data), and starts one process
per seat from the bot's command line with the placeholders filled in. It watches two things:

* a bot process that **exits** while the game is not over: a ``crash``;
* a seat that stays **pending** longer than ``limits.move_timeout`` (its first decision gets
  ``limits.start_timeout`` more, for the process to start): a ``hang``; the process is killed.

A fault costs the bot, never the tournament: the runner kills the process and removes the
seat from the game (``Resign`` with the organiser token): the referee records the seat
**abandoned**, with the fault as its reason, and plays the game's default commands for it to
the end. A game still running after ``limits.game_timeout`` has the seats it waits for
removed the same way. The runner ranks nobody: every game ranks the seats that finished above
the seats that left (``RANKING_FINISHERS_FIRST``), and each seat's record is the referee's
result as it is (rank, how the seat ended, the rule and the reason), whether it resigned,
forfeited on time, was abandoned (by the runner, or by the referee when its stream closed and
did not come back) or never showed up.

When the referee counts faults per seat itself (``GameSummary.seat_stats``: illegal commands,
clock timeouts, disconnects) the runner adds them to the bots' faults. Remote bots (player
accounts running on their own) get reserved seats: :mod:`referee_tournament.seats`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.runner import BotError, GameStream, describe_rpc_error, retry_delay, settled
from referee_tournament.config import TournamentConfig
from referee_tournament.processes import (
    POLL,
    Features,
    Watch,
    command_line,
    message_json,
    python_path,
    startable,
)
from referee_tournament.records import Fault, GameRecord, SeatRecord
from referee_tournament.schedule import GameSpec
from referee_tournament.seats import (
    Method,
    absent_seats,
    add_referee_stats,
    count_default_moves,
    offline_accounts,
    player_ratings,
    remote_seats,
    reserve_seats,
    seat_records,
)
from referee_tournament.verifying import reveal, verify

#: Longest reason the referee takes for a removed seat (it is public, in the log).
REASON_LENGTH = 300
#: Longest a game's creation waits out the referee's limit of games an address creates a
#: minute (a referee run by others may keep it; the runner's own embedded one does not).
CREATE_PATIENCE = 300.0


class NetworkRunner:
    """Plays games on a referee at ``address``; bot output goes to ``log_dir``."""

    def __init__(self, config: TournamentConfig, address: str, log_dir: Path) -> None:
        self.config = config
        self.address = address
        self.log_dir = log_dir
        self.channel = grpc.insecure_channel(address)
        self.stub = referee_pb2_grpc.RefereeServiceStub(self.channel)
        self.features = Features.detect()
        self.env_path = python_path()
        #: game id -> organiser token, for revealing the deferred seeds and exporting the full
        #: logs (organiser only) at the end.
        self.organiser_tokens: dict[str, str] = {}
        self._lock = threading.Lock()
        #: Remote accounts found offline after waiting for them once: absent at once while
        #: they stay offline (forgotten when they come back).
        self._gone: set[str] = set()

    def close(self) -> None:
        self.channel.close()

    def check(self) -> None:
        """Fail early (ValueError) on a game type or table size the referee does not run, or
        a clock it does not have."""
        if self.config.clock and not self.features.clock:
            raise ValueError("clock: this referee has no clocks (CreateGameRequest.clock)")
        response = self.stub.ListGameTypes(referee_pb2.ListGameTypesRequest(), timeout=30)
        known = {t.game_type: t for t in response.game_types}
        for index, entry in enumerate(self.config.games):
            info = known.get(entry.game)
            if info is None:
                raise ValueError(
                    f"games[{index}].game: the referee has no game {entry.game!r}; "
                    f"it runs {', '.join(sorted(known))}"
                )
            if not info.min_players <= entry.players <= info.max_players:
                raise ValueError(
                    f"games[{index}].players: {entry.game} is for {info.min_players} to "
                    f"{info.max_players} players, got {entry.players}"
                )
        problems = [
            problem
            for bot in self.config.bots
            if (not bot.remote or bot.launch) and (problem := startable(bot))
        ]
        if problems:
            raise ValueError("a bot cannot start:\n  " + "\n  ".join(problems))

    def finish(self, records: list[GameRecord]) -> None:
        """After the last game: reveal every deferred seed (RevealSeed), then check every
        game as ``referee verify --server`` does: each deal against its commitment, each
        event against the revealed seed and the recorded commands (docs/fairness.md)."""
        reveal(self.channel, self.features, self.organiser_tokens, records)
        verify(self.stub, self.organiser_tokens, records)

    def player_ratings(self) -> dict[str, Any]:
        """After a rated tournament: the remote bots' persisted ratings (GetRatings)."""
        accounts = {b.name: b.account for b in self.config.bots if b.account is not None}
        if not self.config.rated or not accounts:
            return {}
        return player_ratings(self.stub, accounts, [e.game for e in self.config.games])

    def offline(self, accounts: list[str]) -> set[str]:
        """The ``accounts`` with no player stream open (``GetPresence``). One found offline
        for the first time is waited for, up to ``start_timeout`` (a bot reconnecting, or
        still starting); after that it is absent at once for as long as it stays offline."""
        found = offline_accounts(self.stub, accounts)
        with self._lock:
            self._gone -= set(accounts) - found  # back online
            waiting = found - self._gone
        deadline = time.monotonic() + self.config.limits.start_timeout
        while waiting and time.monotonic() < deadline:
            time.sleep(10 * POLL)
            found = offline_accounts(self.stub, accounts)
            waiting &= found
        with self._lock:
            self._gone |= found
        return found

    # --- one game -----------------------------------------------------------------------

    def play(self, spec: GameSpec, *, final: bool = False) -> tuple[GameRecord, dict[str, Any]]:
        """Play one game; returns its record and its replay data. Never raises for a bot's
        fault; a referee that refuses the game gives a ``failed`` record. ``final``: the
        last replay of a void deal (a no-show is then scored as a loss)."""
        started = time.monotonic()
        request = referee_pb2.CreateGameRequest(
            game_type=spec.game,
            players=spec.players,
            options=dict(spec.options),
            seed=spec.seed,
            ranking=referee_pb2.RANKING_FINISHERS_FIRST,
        )
        if self.config.clock:
            for key, value in self.config.clock.items():
                setattr(request.clock, key, value)
        if self.features.defer_seed_reveal and self.features.reveal_seed:
            # Every seating of a deal shares its seed: it stays secret until the tournament
            # is over (reveal_seeds), else the first game to end would give the deal away.
            request.defer_seed_reveal = True
        offline = self.offline(list(remote_seats(self.config, spec).values()))
        remote = reserve_seats(self.config, spec, request, offline, final=final)
        try:
            created = self._create(request)
        except grpc.RpcError as error:
            detail = f"CreateGame: {describe_rpc_error(error)}"
            return GameRecord(spec=spec, status="failed", detail=detail), {}
        game = _Game(self, spec, created, started, remote, offline)
        if game.organiser_token:
            with self._lock:
                self.organiser_tokens[game.game_id] = game.organiser_token
        try:
            return game.run()
        finally:
            game.cleanup()

    def _create(self, request: referee_pb2.CreateGameRequest) -> Any:
        """CreateGame, waiting as long as the referee asks when it limits the games one
        address creates a minute (``RetryInfo``), for at most :data:`CREATE_PATIENCE` s."""
        deadline = time.monotonic() + CREATE_PATIENCE
        while True:
            try:
                return self.stub.CreateGame(request, timeout=30)
            except grpc.RpcError as error:
                delay = retry_delay(error)
                if delay is None or time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay)


class _Game:
    def __init__(
        self,
        runner: NetworkRunner,
        spec: GameSpec,
        created: referee_pb2.CreateGameResponse,
        started: float,
        remote: dict[int, str],
        offline: set[str],
    ) -> None:
        self.runner = runner
        self.spec = spec
        self.limits = runner.config.limits
        self.game_id = created.game_id
        self.tokens = {seat.seat: seat.token for seat in created.seats}
        #: Seats reserved for remote bots (seat -> account): no process, no token here.
        self.remote = remote
        #: Remote accounts with no player stream open when the game was made.
        self.offline = offline
        self.organiser_token = (
            str(getattr(created, runner.features.organiser_token_field))
            if runner.features.organiser_token_field
            else ""
        )
        self.commitment = str(getattr(created.game, "seed_commitment", ""))
        self.started = started
        self.watch = Watch()
        self.processes: dict[int, subprocess.Popen[bytes]] = {}
        self.process_started: dict[int, float] = {}
        self.logs: list[Any] = []
        self.faulty: set[int] = set()
        #: Seats whose process the runner ended while the game was running.
        self.killed: set[int] = set()
        self.threads: list[threading.Thread] = []
        self.faults: list[Fault] = []
        # Batched: the server sends the watcher one message per command, not one per event
        # (each with a whole view); the replay records each event of it all the same.
        self.stream = GameStream(
            runner.stub, self.game_id, spectator=True, stop_at_game_over=True, batched=True
        )

    # --- spectator ----------------------------------------------------------------------

    def _follow(self) -> None:
        watch = self.watch
        try:
            for message in self.stream:
                with watch.lock:
                    for event in message.events:
                        watch.events.append(message_json(event))
                        if event.WhichOneof("game") != "referee":  # not the referee's own
                            watch.batches.add(event.batch_end_sequence)
                        count_default_moves(event, watch.default_moves)
                        if event.HasField("decided") and not event.decided.by:
                            # The seat's own command: its start-up allowance is over.
                            watch.moved.add(event.decided.seat)
                    view = message.view
                    if not settled(message) or view.version < watch.version:
                        continue
                    pending = tuple(view.pending_seats)
                    if view.version != watch.version:
                        # Any new event restarts the wait (who moved is Decided.seat above:
                        # a referee's event, e.g. another seat resigning, is no one's move).
                        watch.since = time.monotonic()
                    watch.version = view.version
                    watch.pending = pending
                    watch.final_view = view
                    if view.game_over:
                        watch.over = True
        except BotError as error:
            with watch.lock:
                watch.error = str(error)

    # --- bots ---------------------------------------------------------------------------

    def _start_bots(self) -> None:
        spec = self.spec
        for seat, name in enumerate(spec.seating):
            if seat in self.remote:
                continue  # it runs on its own and claims its reserved seat
            bot = self.runner.config.bot(name)
            values = {
                "server": self.runner.address,
                "game_id": self.game_id,
                "token": self.tokens[seat],
                "seat": str(seat),
                "seed": spec.bot_seed(seat),
                "game": spec.game,
                "players": str(spec.players),
                "bot": name,
                "python": sys.executable,
            }
            env = {
                **os.environ,
                "PYTHONPATH": self.runner.env_path,
                **bot.env,
                "REFEREE_SERVER": values["server"],
                "REFEREE_GAME_ID": values["game_id"],
                "REFEREE_TOKEN": values["token"],
                "REFEREE_SEAT": values["seat"],
                "REFEREE_SEED": values["seed"],
            }
            self.runner.log_dir.mkdir(parents=True, exist_ok=True)
            log_path = self.runner.log_dir / f"{spec.index:04d}-seat{seat}-{_safe(name)}.log"
            log = log_path.open("wb")
            self.logs.append(log)
            argv = command_line(bot, values)
            self.process_started[seat] = time.monotonic()
            try:
                self.processes[seat] = subprocess.Popen(
                    argv,
                    cwd=bot.cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            except OSError as error:
                self._fault(seat, "crash", f"cannot start {argv[0]!r}: {error}")

    def _kill(self, seat: int) -> None:
        process = self.processes.get(seat)
        if process is None or process.poll() is not None:
            return
        with self.watch.lock:
            if not self.watch.over:
                self.killed.add(seat)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(5)

    def _fault(self, seat: int, kind: str, detail: str) -> None:
        """``seat``'s bot failed: the fault is recorded, its process killed and its seat
        removed from the game (the referee records it abandoned and plays for it)."""
        self.faulty.add(seat)
        self.faults.append(Fault(bot=self.spec.seating[seat], seat=seat, kind=kind, detail=detail))
        self._kill(seat)
        self._remove(seat, f"{kind}: {detail}")

    def _remove(self, seat: int, reason: str) -> None:
        """The organiser's removal of ``seat`` (``Resign`` with the organiser token): refused
        harmlessly once the game is over or the seat has left already."""
        request = referee_pb2.ResignRequest(
            game_id=self.game_id,
            seat=seat,
            organiser_token=self.organiser_token,
            reason=reason[:REASON_LENGTH],
        )
        with contextlib.suppress(grpc.RpcError):
            self.runner.stub.Resign(request, timeout=10)

    def _game_over(self) -> bool:
        """The referee's word (the spectator stream may lag behind a bot's exit)."""
        try:
            game = self.runner.stub.GetGame(
                referee_pb2.GetGameRequest(game_id=self.game_id), timeout=10
            ).game
        except grpc.RpcError:
            return False
        return bool(game.game_over)

    def _seats_left(self) -> set[int]:
        """The seats that left the game already, as the referee says (e.g. resigned)."""
        summary = self._summary()
        return {gone.seat for gone in summary.seats_left} if summary is not None else set()

    def _current_version(self) -> int | None:
        try:
            game = self.runner.stub.GetGame(
                referee_pb2.GetGameRequest(game_id=self.game_id), timeout=10
            ).game
        except grpc.RpcError:
            return None
        return int(game.version)

    # --- the game -----------------------------------------------------------------------

    def run(self) -> tuple[GameRecord, dict[str, Any]]:
        follower = threading.Thread(target=self._follow, name=f"watch-{self.game_id}", daemon=True)
        follower.start()
        self.threads.append(follower)
        self._start_bots()
        limits = self.limits
        # A remote bot may take until the join deadline to sit down (the referee ends it then).
        deadline = self.started + limits.game_timeout
        if self.remote:
            deadline += limits.join_timeout
        timed_out = False
        while True:
            with self.watch.lock:
                over = self.watch.over
                version = self.watch.version
                pending = self.watch.pending
                since = self.watch.since
                moved = set(self.watch.moved)
            if over:
                break
            now = time.monotonic()
            if now > deadline:
                if timed_out:  # its seats removed, and still not over: the referee's fault
                    self._abort("not over after the seats it waited for were removed")
                    return self._failed("game not over after its waiting seats were removed")
                for seat in pending or range(self.spec.players):
                    self._fault(seat, "game_timeout", f"game not over after {limits.game_timeout}s")
                timed_out = True
                deadline = now + limits.move_timeout + limits.exit_grace
                continue
            if not follower.is_alive() and not over:
                if self._game_over():
                    follower.join(5)
                    break
                with self.watch.lock:
                    error = self.watch.error or "the spectator stream ended"
                return self._failed(error)
            for seat, process in list(self.processes.items()):
                if seat in self.faulty:
                    continue
                code = process.poll()
                if code is not None:
                    if self._game_over():
                        break
                    if seat in self._seats_left():
                        self.faulty.add(seat)  # it resigned, then exited: no fault, nothing to do
                        continue
                    self._fault(seat, "crash", f"exited with status {code} before the game's end")
                    continue
                start = since
                if seat not in moved:  # its first move: the process may still be starting
                    start = max(since, self.process_started[seat] + limits.start_timeout)
                if seat in pending and now - start > limits.move_timeout:
                    if self._current_version() != version:
                        continue  # the stream lags: the seat did move
                    self._fault(seat, "hang", f"no move within {limits.move_timeout}s")
            self._watch_remote(now, pending, since, moved, version)
            time.sleep(POLL)
        return self._finish()

    def _watch_remote(
        self, now: float, pending: tuple[int, ...], since: float, moved: set[int], version: int
    ) -> None:
        """A remote seat pending too long is a hang (its first move gets start_timeout more,
        from the deal). Nothing to kill: the seat is removed, the referee plays for it."""
        for seat in self.remote:
            if seat in self.faulty or seat not in pending:
                continue
            allowance = self.limits.move_timeout
            if seat not in moved:
                allowance += self.limits.start_timeout
            if now - since > allowance and self._current_version() == version:
                self._fault(seat, "hang", f"no move within {allowance:g}s (remote bot)")

    def _absent(self, seat: int) -> None:
        """An ``absent`` fault for the remote bot of ``seat``, which never sat down."""
        account = self.remote.get(seat, "?")
        if account in self.offline:
            detail = f"{account} was offline (no player stream open) when the game was made"
        else:
            detail = f"seat reserved for {account} not claimed within {self.limits.join_timeout:g}s"
        self.faults.append(
            Fault(bot=self.spec.seating[seat], seat=seat, kind="absent", detail=detail)
        )

    def _void(self, summary: referee_pb2.GameSummary) -> tuple[GameRecord, dict[str, Any]]:
        """The referee voided the game at its join deadline (``no_show: void``): the absent
        bots are charged, nobody is ranked; the tournament replays the deal."""
        for seat in absent_seats(summary):
            self._absent(seat)
        with self.watch.lock:
            events = list(self.watch.events)
        record = GameRecord(
            spec=self.spec,
            status="void",
            faults=self.faults,
            game_id=self.game_id,
            seconds=time.monotonic() - self.started,
            seed_commitment=self.commitment,
            detail="void: " + ", ".join(f.bot for f in self.faults if f.kind == "absent"),
            remote=bool(self.remote),
        )
        return record, self._replay(events, None)

    def _summary(self) -> referee_pb2.GameSummary | None:
        try:
            response = self.runner.stub.GetGame(
                referee_pb2.GetGameRequest(game_id=self.game_id), timeout=10
            )
        except grpc.RpcError:
            return None
        summary: referee_pb2.GameSummary = response.game
        return summary

    def _finish(self) -> tuple[GameRecord, dict[str, Any]]:
        # Let the bots see the end and exit by themselves.
        end = time.monotonic() + self.limits.exit_grace
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(max(0.0, end - time.monotonic()))
        for thread in self.threads:
            thread.join(max(0.0, end - time.monotonic()))
        with self.watch.lock:
            view = self.watch.final_view
            events = list(self.watch.events)
            commands = max(0, len(self.watch.batches) - 1)
            default_moves = dict(self.watch.default_moves)
        if view is None or not view.game_over:
            try:
                view = self.runner.stub.GetView(
                    referee_pb2.GetViewRequest(game_id=self.game_id, spectator=True), timeout=10
                ).view
            except grpc.RpcError as error:
                return self._failed(f"GetView: {error.code()}")
        if view.aborted and self.remote:
            summary = self._summary()
            if summary is not None and absent_seats(summary):
                return self._void(summary)
        if view.aborted or len(view.results) != self.spec.players:
            return self._failed(f"the game ended without results: {view.end_reason}")
        seats = seat_records(self.spec, view.results, default_moves)
        for seat in seats:
            if seat.end == "absent":
                self._absent(seat.seat)
        self._referee_stats(seats)
        record = GameRecord(
            spec=self.spec,
            status="no_show" if any(s.end == "absent" for s in seats) else "ok",
            seats=seats,
            faults=self.faults,
            game_id=self.game_id,
            commands=commands,
            seconds=time.monotonic() - self.started,
            seed_commitment=self.commitment,
            remote=bool(self.remote),
            referee_rated=self.runner.config.rated,
        )
        return record, self._replay(events, view)

    def _failed(self, error: str) -> tuple[GameRecord, dict[str, Any]]:
        for seat in list(self.processes):
            self._kill(seat)
        record = GameRecord(
            spec=self.spec,
            status="failed",
            game_id=self.game_id,
            seconds=time.monotonic() - self.started,
            detail=error,
        )
        return record, {}

    def _abort(self, reason: str) -> None:
        """AbortGame, when the referee has it (with the organiser token, when it has one)."""
        if not self.runner.features.abort_game:
            return
        service = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"]
        call = Method(self.runner.channel, service.methods_by_name["AbortGame"])
        request = call.request_class(
            game_id=self.game_id, organiser_token=self.organiser_token, reason=reason[:300]
        )
        with contextlib.suppress(grpc.RpcError):
            call(request, timeout=10)

    def _referee_stats(self, seats: list[SeatRecord]) -> None:
        """Add GameSummary.seat_stats (when the referee has them) to the faults and seats."""
        if not self.runner.features.seat_stats:
            return
        summary = self._summary()
        if summary is not None:
            charged = self.faulty | self.killed
            add_referee_stats(summary, self.spec, seats, self.faults, charged)

    def _replay(
        self, events: list[dict[str, Any]], view: referee_pb2.View | None
    ) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            **self.spec.to_json(),
            "events": events,
            "final_view": message_json(view) if view is not None else None,
        }

    def cleanup(self) -> None:
        self.stream.cancel()
        for seat in list(self.processes):
            self._kill(seat)
        for log in self.logs:
            log.close()


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
