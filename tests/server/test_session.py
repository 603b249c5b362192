"""The player stream over real gRPC and HTTP: PlayerSession (bidirectional) and WatchPlayer.

Seats are followed here by their tokens (today's flow: ``GameResume.seat_token``), so these
tests need no account: one stream carries every seat of several games, each batched as a
StreamGame, resumes exactly per (game, seat), and answers each command by its id with the
outcome the unary call would give (a refusal's code, reason and metadata included).
"""

from __future__ import annotations

import queue
import random
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import RPC_TIMEOUT, Game, create_game, failure_of
from tests.server.transports import HttpTransport, WireError

SERVICE = "referee.v1.RefereeService"


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with running_server(store="memory:", grace_seconds=1.0, http="127.0.0.1:0") as running:
        yield running


@pytest.fixture
def stub(server: RefereeServer) -> Iterator[pb_grpc.RefereeServiceStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield pb_grpc.RefereeServiceStub(channel)


class Client:
    """One PlayerSession: requests sent from a queue, responses read as they come."""

    def __init__(self, stub: pb_grpc.RefereeServiceStub, metadata: Any = None) -> None:
        self.requests: queue.Queue[pb.PlayerSessionRequest | None] = queue.Queue()
        self.call = stub.PlayerSession(
            iter(self.requests.get, None), timeout=RPC_TIMEOUT * 3, metadata=metadata
        )
        #: The messages of responses read, not yet returned (a response carries a batch).
        self.ready: list[pb.PlayerMessage] = []

    def send(self, **kind: Any) -> None:
        self.requests.put(pb.PlayerSessionRequest(**kind))

    def resume(self, game: Game, seat: int, after: int = 0) -> None:
        self.send(
            resume=pb.GameResume(
                game_id=game.game_id, seat=seat, after_sequence=after, seat_token=game.tokens[seat]
            )
        )

    def read(self) -> pb.PlayerMessage:
        while not self.ready:
            self.ready = list(next(self.call).messages)
        return self.ready.pop(0)

    def close(self) -> None:
        self.requests.put(None)
        self.call.cancel()


def _command(view: pb.View, game_id: str, rng: random.Random) -> pb.SessionCommand:
    return pb.SessionCommand(
        game_id=game_id,
        seat=view.seat,
        command_id=str(uuid.uuid4()),
        command=rng.choice(view.legal_commands),
        expected_version=view.version,
    )


def play(client: Client, games: dict[str, Game], rng: random.Random) -> dict[str, Any]:
    """Play every followed seat to the end over the one stream; what each (game, seat) got."""
    sequences: dict[tuple[str, int], list[int]] = {}
    granted: set[tuple[str, int]] = set()
    over: set[tuple[str, int]] = set()
    outcomes: dict[str, pb.CommandOutcome] = {}
    sent: dict[str, pb.SessionCommand] = {}
    acted: dict[tuple[str, int], int] = {}
    seats = sum(g.players for g in games.values())
    while len(over) < seats:
        message = client.read()
        kind = message.WhichOneof("kind")
        if kind == "seat":
            key = (message.seat.game_id, message.seat.seat)
            assert key not in granted
            granted.add(key)
            assert message.seat.game.game_id == key[0]
            continue
        if kind == "outcome":
            outcomes[message.outcome.command_id] = message.outcome
            continue
        assert kind == "update"
        update = message.update
        key = (update.game_id, update.seat)
        assert key in granted, "a seat's updates come after its grant"
        sequences.setdefault(key, []).extend(e.sequence for e in update.events)
        view = update.view
        assert view.seat == update.seat
        if view.game_over:
            over.add(key)
        elif view.seat in view.pending_seats and acted.get(key, -1) < view.version:
            acted[key] = view.version
            command = _command(view, update.game_id, rng)
            sent[command.command_id] = command
            client.send(command=command)
    return {"sequences": sequences, "outcomes": outcomes, "sent": sent, "granted": granted}


def test_one_stream_plays_every_seat_of_several_games(stub: pb_grpc.RefereeServiceStub) -> None:
    rng = random.Random(7)
    games = {g.game_id: g for g in (create_game(stub, 3), create_game(stub, 4))}
    client = Client(stub)
    try:
        for game in games.values():
            for seat in range(game.players):
                client.resume(game, seat)
        got = play(client, games, rng)
        finals = {
            game.game_id: stub.GetView(
                pb.GetViewRequest(game_id=game.game_id, seat_token=game.tokens[0]),
                timeout=RPC_TIMEOUT,
            ).view
            for game in games.values()
        }
        # The stream goes on after game over up to the game's final event (the seed reveal).
        sequences = got["sequences"]
        while any(
            sequences[(game_id, seat)][-1] < final.version
            for game_id, final in finals.items()
            for seat in range(games[game_id].players)
        ):
            message = client.read()
            if message.WhichOneof("kind") == "update":
                update = message.update
                sequences[(update.game_id, update.seat)].extend(e.sequence for e in update.events)
            elif message.WhichOneof("kind") == "outcome":
                got["outcomes"][message.outcome.command_id] = message.outcome
    finally:
        client.close()
    for game in games.values():
        final = finals[game.game_id]
        for seat in range(game.players):
            # Every event of the game, in order, no gap and no duplicate, for every seat.
            assert got["sequences"][(game.game_id, seat)] == list(range(1, final.version + 1))
    # Every accepted command was answered, by its id (those sent after the final batch of
    # their game may still be on the way; none is refused in random legal play).
    answered = [o for o in got["outcomes"].values() if not o.HasField("refusal")]
    assert answered
    for outcome in answered:
        command = got["sent"][outcome.command_id]
        assert (outcome.game_id, outcome.seat) == (command.game_id, command.seat)
        assert outcome.first_sequence == command.expected_version + 1
        assert outcome.last_sequence >= outcome.first_sequence


def _first_update(client: Client) -> pb.GameUpdate:
    while True:
        message = client.read()
        if message.WhichOneof("kind") == "update":
            return message.update


def test_a_refused_command_carries_the_unary_calls_status(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    game = create_game(stub, 3)
    waiting = next(
        seat
        for seat in range(3)
        if seat
        not in stub.GetView(
            pb.GetViewRequest(game_id=game.game_id, seat_token=game.tokens[seat]),
            timeout=RPC_TIMEOUT,
        ).view.pending_seats
    )
    view = stub.GetView(
        pb.GetViewRequest(game_id=game.game_id, seat_token=game.tokens[waiting]),
        timeout=RPC_TIMEOUT,
    ).view
    pending = view.pending_seats[0]
    legal = stub.GetView(
        pb.GetViewRequest(game_id=game.game_id, seat_token=game.tokens[pending]),
        timeout=RPC_TIMEOUT,
    ).view.legal_commands[0]
    # The same command, out of turn, as a unary call and on the stream.
    with pytest.raises(grpc.RpcError) as unary:
        stub.SubmitCommand(
            pb.SubmitCommandRequest(
                game_id=game.game_id,
                seat_token=game.tokens[waiting],
                command_id="unary-1",
                command=legal,
            ),
            timeout=RPC_TIMEOUT,
        )
    expected = failure_of(unary.value)
    client = Client(stub)
    try:
        client.resume(game, waiting)
        _first_update(client)
        client.send(
            command=pb.SessionCommand(
                game_id=game.game_id, seat=waiting, command_id="stream-1", command=legal
            )
        )
        while (message := client.read()).WhichOneof("kind") != "outcome":
            pass
        outcome = message.outcome
        assert outcome.command_id == "stream-1"
        assert (outcome.game_id, outcome.seat) == (game.game_id, waiting)
        refusal = outcome.refusal
        assert refusal.code == expected.code.value[0]
        # The code by name too, as a JSON client reads it.
        assert json_format.MessageToDict(refusal)["codeName"] == "FAILED_PRECONDITION"
        assert refusal.message == expected.message
        assert expected.info is not None
        assert refusal.reason == expected.info.reason
        assert dict(refusal.metadata) == dict(expected.info.metadata)
        # A seat the stream does not follow: refused, the stream goes on.
        client.send(
            command=pb.SessionCommand(
                game_id=game.game_id, seat=pending, command_id="stream-2", command=legal
            )
        )
        while (message := client.read()).WhichOneof("kind") != "outcome":
            pass
        assert message.outcome.command_id == "stream-2"
        assert message.outcome.refusal.reason == "SEAT_NOT_HELD"
        assert message.outcome.refusal.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
    finally:
        client.close()
    after = stub.GetView(
        pb.GetViewRequest(game_id=game.game_id, seat_token=game.tokens[0]), timeout=RPC_TIMEOUT
    ).view
    assert after.version == view.version  # nothing changed


def test_resume_is_exact_per_game(stub: pb_grpc.RefereeServiceStub) -> None:
    rng = random.Random(11)
    games = [create_game(stub, 3), create_game(stub, 3)]
    # Move both games on a few commands with the unary call.
    for game in games:
        for _ in range(4):
            for seat in range(3):
                view = stub.GetView(
                    pb.GetViewRequest(game_id=game.game_id, seat_token=game.tokens[seat]),
                    timeout=RPC_TIMEOUT,
                ).view
                if seat in view.pending_seats and not view.game_over:
                    stub.SubmitCommand(
                        pb.SubmitCommandRequest(
                            game_id=game.game_id,
                            seat_token=game.tokens[seat],
                            command_id=str(uuid.uuid4()),
                            command=rng.choice(view.legal_commands),
                        ),
                        timeout=RPC_TIMEOUT,
                    )
                    break
    versions = [
        stub.GetView(
            pb.GetViewRequest(game_id=g.game_id, seat_token=g.tokens[0]), timeout=RPC_TIMEOUT
        ).view.version
        for g in games
    ]
    afters = [2, versions[1] - 1]
    client = Client(stub)
    try:
        for game, after in zip(games, afters, strict=True):
            client.resume(game, 1, after)
        seen: dict[str, list[int]] = {g.game_id: [] for g in games}
        caught: set[str] = set()
        while len(caught) < len(games):
            update = _first_update(client)
            seen[update.game_id].extend(e.sequence for e in update.events)
            if update.caught_up:
                caught.add(update.game_id)
    finally:
        client.close()
    for game, after, version in zip(games, afters, versions, strict=True):
        assert seen[game.game_id] == list(range(after + 1, version + 1))


def test_bytes_that_are_not_a_request_end_the_session(server: RefereeServer) -> None:
    """As every RPC answers them: INVALID_ARGUMENT with a BadRequest naming ``request``,
    after what was sent before them was served."""
    with grpc.insecure_channel(server.address) as channel:
        call = channel.stream_stream(
            f"/{SERVICE}/PlayerSession",
            request_serializer=lambda data: data,
            response_deserializer=pb.PlayerSessionResponse.FromString,
        )
        stub = pb_grpc.RefereeServiceStub(channel)
        game = create_game(stub, 3)
        resume = pb.PlayerSessionRequest(
            resume=pb.GameResume(game_id=game.game_id, seat=0, seat_token=game.tokens[0])
        ).SerializeToString()
        responses = call(iter([resume, b"\xff\xff\xff"]), timeout=RPC_TIMEOUT)
        with pytest.raises(grpc.RpcError) as ended:
            for _ in responses:
                pass
        failure = failure_of(ended.value)
        assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
        assert failure.fields == ["request"]


def test_a_request_with_neither_command_nor_resume_is_answered_and_the_stream_goes_on(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    game = create_game(stub, 3)
    client = Client(stub)
    try:
        client.send()
        client.resume(game, 0)
        first = client.read()
        assert first.WhichOneof("kind") == "outcome"
        assert first.outcome.refusal.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert first.outcome.refusal.reason == "BAD_REQUEST"
        assert client.read().WhichOneof("kind") == "seat"
        assert client.read().WhichOneof("kind") == "update"
    finally:
        client.close()


def test_a_wrong_seat_token_ends_the_session(stub: pb_grpc.RefereeServiceStub) -> None:
    game = create_game(stub, 3)
    client = Client(stub)
    client.send(resume=pb.GameResume(game_id=game.game_id, seat=1, seat_token=game.tokens[0]))
    with pytest.raises(grpc.RpcError) as caught:
        client.read()
    failure = failure_of(caught.value)
    assert failure.code == grpc.StatusCode.PERMISSION_DENIED
    assert failure.info is not None and failure.info.reason == "TOKEN_INVALID"
    assert game.tokens[0] not in failure.message
    client.close()


def test_a_credential_without_accounts_is_refused(stub: pb_grpc.RefereeServiceStub) -> None:
    client = Client(stub, metadata=(("authorization", "Bearer acct-nobody"),))
    with pytest.raises(grpc.RpcError) as caught:
        client.read()
    failure = failure_of(caught.value)
    assert failure.code == grpc.StatusCode.UNAUTHENTICATED
    assert "acct-nobody" not in failure.message
    client.close()


# --- HTTP ----------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", ["connect", "grpc-web", "grpc-web-text"])
def test_watch_player_over_http(server: RefereeServer, wire: str) -> None:
    assert server.http is not None
    http = HttpTransport(server.http.address, wire)
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        game = create_game(stub, 3)
        request = pb.WatchPlayerRequest(
            resume=[
                pb.GameResume(game_id=game.game_id, seat=s, seat_token=game.tokens[s])
                for s in range(3)
            ]
        )
        messages = http._enveloped("WatchPlayer", http._frame(request.SerializeToString()))
        got: dict[int, pb.GameUpdate] = {}
        granted = set()
        for message in (m for response in messages for m in response.messages):
            if message.WhichOneof("kind") == "seat":
                granted.add(message.seat.seat)
            elif message.WhichOneof("kind") == "update":
                assert message.update.seat in granted
                if message.update.caught_up:
                    got[message.update.seat] = message.update
                if len(got) == 3:
                    break
        assert {u.view.seat for u in got.values()} == {0, 1, 2}
        assert all(u.view.version == got[0].view.version for u in got.values())
        messages.close()


@pytest.mark.parametrize("wire", ["connect", "grpc-web"])
def test_player_session_is_grpc_only(server: RefereeServer, wire: str) -> None:
    assert server.http is not None
    http = HttpTransport(server.http.address, wire)
    with pytest.raises(WireError) as caught:
        list(http._enveloped("PlayerSession", http._frame(b"")))
    assert caught.value.code == "UNIMPLEMENTED"


def test_watch_player_without_credential_or_tokens_is_refused(server: RefereeServer) -> None:
    assert server.http is not None
    http = HttpTransport(server.http.address, "connect")
    with pytest.raises(WireError) as caught:
        list(http._enveloped("WatchPlayer", http._frame(b"")))
    assert caught.value.code == "UNAUTHENTICATED"


def test_many_sessions_at_once(stub: pb_grpc.RefereeServiceStub) -> None:
    """Four programs, one seat each of two games: each plays on its own stream."""
    games = {g.game_id: g for g in (create_game(stub, 4), create_game(stub, 4))}
    errors: list[BaseException] = []

    def program(seat: int) -> None:
        client = Client(stub)
        try:
            for game in games.values():
                client.resume(game, seat)
            one = {gid: Game(g.game_id, g.tokens, g.created) for gid, g in games.items()}
            _play_seat(client, one, seat, random.Random(seat))
        except BaseException as error:  # reported by the test
            errors.append(error)
        finally:
            client.close()

    threads = [threading.Thread(target=program, args=(s,)) for s in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(RPC_TIMEOUT * 3)
    assert not errors, errors


def _play_seat(client: Client, games: dict[str, Game], seat: int, rng: random.Random) -> None:
    over: set[str] = set()
    acted: dict[str, int] = {}
    while len(over) < len(games):
        message = client.read()
        if message.WhichOneof("kind") == "outcome":
            assert not message.outcome.HasField("refusal"), message.outcome
            continue
        if message.WhichOneof("kind") != "update":
            continue
        update = message.update
        view = update.view
        assert update.seat == seat
        if view.game_over:
            over.add(update.game_id)
        elif seat in view.pending_seats and acted.get(update.game_id, -1) < view.version:
            acted[update.game_id] = view.version
            client.send(command=_command(view, update.game_id, rng))


def test_a_session_whose_client_never_reads_is_ended() -> None:
    """The stall limit holds on the player stream as on StreamGame: RESOURCE_EXHAUSTED, and
    every seat's stream freed."""
    from referee.application import Limits
    from tests.server.conftest import play_random, summary, wait_for
    from tests.server.test_stalled_streams import STALLED_CLIENT

    limits = Limits(stream_stall_seconds=1.0)
    with (
        running_server(store="memory:", limits=limits, grace_seconds=1.0) as server,
        grpc.insecure_channel(server.address) as channel,
        grpc.insecure_channel(server.address, options=STALLED_CLIENT) as stalled_channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        game = create_game(stub, players=12, rounds=None)
        client = Client(pb_grpc.RefereeServiceStub(stalled_channel))
        for seat in range(12):
            client.resume(game, seat)
        client.read()  # open: from here on, the client reads nothing
        wait_for(lambda: server.referee.streams == 12, "the seats' streams")
        rng = random.Random(5)
        while not summary(stub, game).game_over and server.referee.streams:
            play_random(stub, game, rng, max_commands=50)
        wait_for(lambda: server.referee.streams == 0, "the stalled session to be ended", 30)
        with pytest.raises(grpc.RpcError) as ended:
            while True:
                client.read()
        failure = failure_of(ended.value)
        assert failure.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert failure.metadata.get("limit") == "stream stall seconds"
        client.close()


def test_watch_player_over_grpc(stub: pb_grpc.RefereeServiceStub) -> None:
    game = create_game(stub, 3)
    request = pb.WatchPlayerRequest(
        resume=[pb.GameResume(game_id=game.game_id, seat=2, seat_token=game.tokens[2])]
    )
    call = stub.WatchPlayer(request, timeout=RPC_TIMEOUT)
    try:
        read = (message for response in call for message in response.messages)
        kinds = [next(read).WhichOneof("kind") for _ in range(2)]
        assert kinds == ["seat", "update"]
    finally:
        call.cancel()
