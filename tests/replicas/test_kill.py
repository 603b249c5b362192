"""End to end: three ``referee serve`` processes on one PostgreSQL database, bots of each game
spread over them, one replica killed with SIGKILL mid-play and restarted.

Checked: every game finishes and verifies (``referee verify`` logic on the store); every
command a replica acknowledged is in the store with the events it answered; every stream
connection, the first and each resumption on another replica, delivers the events after its
``after_sequence`` with no gap and no duplicate; a client on gRPC's round_robin policy keeps
working through the kill.
"""

from __future__ import annotations

import random
import re
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from referee import fairness
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from referee_bot.runner import GameStream, settled
from referee_bot.strategies import make_strategy
from tests.replicas.cluster import Replica, round_robin_channel
from tests.store.pg import postgres_url, temporary_database

GAMES = 4
PLAYERS = 3
GAME = "vampire-queen"
#: Acknowledged commands (all games) before the kill: play is well under way by then.
KILL_AFTER = 40
#: Seconds the whole play may take before the test gives up (a hang guard).
PLAY_TIMEOUT = 240.0
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED)
#: How gRPC may report a connection cut by a killed server other than UNAVAILABLE.
DROPPED = re.compile(r"Stream removed|Socket closed|Connection reset|RST_STREAM|GOAWAY")


def _dropped(error: grpc.RpcError) -> bool:
    """A call cut by the kill (transport gone), not an answer of the referee."""
    return error.code() in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL) and bool(
        DROPPED.search(error.details() or "")
    )


class _Cut(grpc.RpcError):
    """A cut connection, reported as UNAVAILABLE so the stream resumes elsewhere."""

    def __init__(self, error: grpc.RpcError) -> None:
        super().__init__(str(error))
        self._details = f"connection cut: {error.details()}"

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return self._details


class RecordingStream(GameStream):
    """A GameStream that keeps what each connection delivered, before any client-side
    filtering: ``(after_sequence, [event sequences])`` per connection."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.connections: list[tuple[int, list[int]]] = []

    def _open(self) -> grpc.CallIterator[pb.StreamGameResponse]:  # type: ignore[override]
        call = super()._open()
        received: list[int] = []
        self.connections.append((self.last_sequence, received))

        def recorded() -> Iterator[pb.StreamGameResponse]:
            try:
                for message in call:
                    if message.HasField("event"):
                        received.append(message.event.sequence)
                    yield message
            except grpc.RpcError as error:
                if _dropped(error):
                    raise _Cut(error) from error
                raise

        return recorded()  # type: ignore[return-value]


@dataclass
class Seat:
    game_id: str
    seat: int
    token: str
    home: int
    #: (command id, first_sequence, last_sequence) of every acknowledged command.
    acks: list[tuple[str, int, int]] = field(default_factory=list)
    stream: RecordingStream | None = None
    error: BaseException | None = None
    finished: bool = False


def _submit(
    stub: pb_grpc.RefereeServiceStub, seat: Seat, command: pb.Command, version: int
) -> pb.SubmitCommandResponse | None:
    """Submit with one command id, retried while replicas are unreachable; None when the
    game moved on (ABORTED / FAILED_PRECONDITION: the stream brings the news)."""
    request = pb.SubmitCommandRequest(
        game_id=seat.game_id,
        seat_token=seat.token,
        command_id=str(uuid.uuid4()),
        command=command,
        expected_version=version,
    )
    for attempt in range(60):
        try:
            response: pb.SubmitCommandResponse = stub.SubmitCommand(request, timeout=20)
        except grpc.RpcError as error:
            code = error.code()
            if code in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                return None
            retry = code in RETRYABLE or code == grpc.StatusCode.DEADLINE_EXCEEDED
            if not (retry or _dropped(error)):
                raise
            time.sleep(min(1.0, 0.05 * 2**attempt))
            continue
        seat.acks.append((request.command_id, response.first_sequence, response.last_sequence))
        return response
    raise AssertionError(f"seat {seat.seat} of {seat.game_id}: no replica answered")


def _play(channel: grpc.Channel, seat: Seat, rng: random.Random) -> None:
    stub = pb_grpc.RefereeServiceStub(channel)
    strategy = make_strategy("random", GAME)
    stream = RecordingStream(
        stub, seat.game_id, token=seat.token, stop_at_game_over=True, max_retries=200
    )
    seat.stream = stream
    newest = acted = -1
    try:
        for message in stream:
            view = message.view
            if view.version < newest:
                continue
            newest = view.version
            if view.game_over:
                seat.finished = True
                break
            if (
                not settled(message)
                or seat.seat not in view.pending_seats
                or not view.legal_commands
                or view.version <= acted
            ):
                continue
            acted = view.version
            _submit(stub, seat, strategy.choose(view, rng), view.version)
    except BaseException as error:
        seat.error = error
    finally:
        stream.cancel()


@pytest.fixture
def database() -> Iterator[str]:
    with temporary_database() as url:
        yield postgres_url(url)


def test_three_replicas_survive_a_kill(database: str, tmp_path: Path) -> None:
    replicas = [Replica(database, tmp_path, f"replica-{i}") for i in range(3)]
    channels: list[grpc.Channel] = []
    try:
        for replica in replicas:
            replica.start()
        addresses = [r.address for r in replicas]
        balanced = round_robin_channel(addresses)
        channels.append(balanced)
        stub = pb_grpc.RefereeServiceStub(balanced)
        seats: list[Seat] = []
        for n in range(GAMES):
            created = stub.CreateGame(
                pb.CreateGameRequest(
                    game_type=GAME,
                    players=PLAYERS,
                    seed=f"kill-{n}",
                    public_reproducible_seed=True,
                    options={"rounds": "1"},
                ),
                timeout=20,
            )
            for s in created.seats:
                seats.append(Seat(created.game_id, s.seat, s.token, home=len(seats) % 3))
        threads = []
        for index, seat in enumerate(seats):
            # Each seat's client prefers its home replica and fails over to the others in
            # order (pick_first over a rotated list): the seats are spread deterministically.
            ordered = addresses[seat.home :] + addresses[: seat.home]
            channel = grpc.insecure_channel(
                "ipv4:" + ",".join(ordered),
                options=[
                    ("grpc.initial_reconnect_backoff_ms", 100),
                    ("grpc.max_reconnect_backoff_ms", 1000),
                ],
            )
            channels.append(channel)
            rng = random.Random(f"kill:{index}")
            threads.append(threading.Thread(target=_play, args=(channel, seat, rng), daemon=True))
        for thread in threads:
            thread.start()

        deadline = time.monotonic() + PLAY_TIMEOUT
        while sum(len(s.acks) for s in seats) < KILL_AFTER and time.monotonic() < deadline:
            if all(not t.is_alive() for t in threads):
                break
            time.sleep(0.01)
        acked_before_kill = sum(len(s.acks) for s in seats)
        replicas[1].kill()
        time.sleep(0.5)  # play goes on at the two others meanwhile
        replicas[1].start()  # same port: the clients' address lists stay valid

        while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
            if any(s.error is not None for s in seats):
                break  # one seat failed: its game cannot finish, do not wait for it
            time.sleep(0.05)
        errors = [(s.game_id, s.seat, s.error) for s in seats if s.error is not None]
        assert errors == []
        progress = {(s.game_id, s.seat): (len(s.acks), s.finished) for s in seats}
        assert all(not t.is_alive() for t in threads), f"games not finished in time: {progress}"
        assert all(s.finished for s in seats), progress
        assert acked_before_kill >= KILL_AFTER, f"the kill came too late: {progress}"
        killed_home = [s for s in seats if s.home == 1]
        reconnects = [s.stream.reconnects if s.stream else None for s in killed_home]
        assert any(reconnects), f"no stream of the killed replica reconnected: {reconnects}"

        # Streams: every connection, first or resumed, delivered after+1, after+2, ...
        for seat in seats:
            assert seat.stream is not None
            for after, received in seat.stream.connections:
                assert received == list(range(after + 1, after + 1 + len(received))), (
                    seat.game_id,
                    seat.seat,
                    after,
                    received,
                )

        # The round_robin client still reaches the game through any replica.
        game_ids = sorted({s.game_id for s in seats})
        for game_id in game_ids:
            for _ in range(3):
                game = stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=20).game
                assert game.game_over

        from referee.store.postgres import PostgresEventStore

        with PostgresEventStore(database, listen=False) as store:
            for seat in seats:  # no acknowledged command lost
                for command_id, first, last in seat.acks:
                    recorded = store.find_command(seat.game_id, command_id)
                    assert recorded is not None, (seat.game_id, command_id)
                    assert (recorded.first_sequence, recorded.last_sequence) == (first, last)
                    assert recorded.seat == seat.seat
            for game_id in game_ids:
                report = fairness.verify_store(store, game_id)
                assert report.ok, report.text()
    finally:
        for channel in channels:
            channel.close()
        for replica in replicas:
            replica.stop()
