"""Restart on the same SQLite file: games, views, tokens, command ids and streams carry over."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import grpc

from referee.server.app import running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    RPC_TIMEOUT,
    Failure,
    Game,
    create_game,
    failure_of,
    play_random,
    play_to_end,
    read_ok,
    serialised,
    snapshot,
    stream_request,
    submit,
    summary,
)


def test_restart_on_the_same_sqlite_file_continues_every_game(
    tmp_path: Path, rng: random.Random
) -> None:
    store = f"sqlite:{tmp_path}/referee.sqlite3"
    received: list[pb.StreamGameResponse] = []
    ending: list[Failure | None] = []

    channels: list[grpc.Channel] = []  # closed after the server stopped, not before
    with running_server(store=store, grace_seconds=2.0) as first:
        channels.append(grpc.insecure_channel(first.address))
        stub = pb_grpc.RefereeServiceStub(channels[-1])
        games = {
            "long": create_game(stub, players=3, rounds=2, seed="restart-long"),
            "short": create_game(stub, players=4, rounds=1),
            "done": create_game(stub, players=5, rounds=1),
        }
        played = play_random(stub, games["long"], rng, max_commands=20)
        play_random(stub, games["short"], rng, max_commands=7)
        play_to_end(stub, games["done"], rng)
        before = {name: snapshot(stub, game) for name, game in games.items()}
        listed = stub.ListGames(pb.ListGamesRequest(), timeout=RPC_TIMEOUT)

        # A stream that is open when the server stops ends cleanly, for resumption.
        call = stub.StreamGame(stream_request(games["long"], 1), timeout=60)
        received.append(next(call))

        def consume() -> None:
            try:
                for message in call:
                    received.append(message)
            except grpc.RpcError as error:
                ending.append(failure_of(error))
            else:
                ending.append(None)

        reader = threading.Thread(target=consume, daemon=True)
        reader.start()
        version = summary(stub, games["long"]).version
        deadline = time.monotonic() + RPC_TIMEOUT
        while len(received) < 1 + version:  # the view, then the events so far
            assert reader.is_alive() and time.monotonic() < deadline, ending
            reader.join(timeout=0.01)
    reader.join(timeout=RPC_TIMEOUT)
    assert not reader.is_alive()
    channels.pop().close()
    assert ending and ending[0] is not None, "the stream ended with OK while the game runs"
    assert ending[0].code is grpc.StatusCode.UNAVAILABLE, ending[0]
    assert ending[0].info is not None and ending[0].info.reason, ending[0]
    last_seen = received[-1].event.sequence
    assert last_seen == version
    assert [m.event.sequence for m in received[1:]] == list(range(1, version + 1))

    with (
        running_server(store=store, grace_seconds=1.0) as second,
        grpc.insecure_channel(second.address) as channel,
    ):
        stub = pb_grpc.RefereeServiceStub(channel)
        assert {name: snapshot(stub, game) for name, game in games.items()} == before
        assert stub.ListGames(pb.ListGamesRequest(), timeout=RPC_TIMEOUT) == listed

        # A command id accepted before the restart is still a duplicate after it.
        seat, command, command_id = played.commands[-1]
        again = submit(stub, games["long"], seat, command, command_id)
        assert again.duplicate
        assert (again.first_sequence, again.last_sequence) == (
            played.responses[-1].first_sequence,
            played.responses[-1].last_sequence,
        )
        assert {name: snapshot(stub, game) for name, game in games.items()} == before

        # Resume the interrupted stream; play on to the end; nothing is missing or repeated.
        long_game: Game = games["long"]
        call = stub.StreamGame(stream_request(long_game, 1, last_seen), timeout=60)
        resumed = [next(call)]
        assert not resumed[0].HasField("event") and resumed[0].view.version == last_seen
        finished: list[Failure | None] = []

        def follow() -> None:
            try:
                for message in call:
                    resumed.append(message)
            except grpc.RpcError as error:
                finished.append(failure_of(error))
            else:
                finished.append(None)

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        for game in games.values():
            play_to_end(stub, game, rng)
        follower.join(timeout=RPC_TIMEOUT)
        assert finished == [None], finished
        final = summary(stub, long_game).version
        assert [m.event.sequence for m in resumed[1:]] == list(range(last_seen + 1, final + 1))
        full = read_ok(stub, stream_request(long_game, 1))
        assert serialised(received[1:] + resumed[1:]) == serialised(full[1:])
        for game in games.values():
            assert summary(stub, game).game_over


def test_games_created_after_a_restart_get_fresh_ids(tmp_path: Path) -> None:
    store = f"sqlite:{tmp_path}/referee.sqlite3"
    ids = []
    for _ in range(2):
        with (
            running_server(store=store, grace_seconds=1.0) as server,
            grpc.insecure_channel(server.address) as channel,
        ):
            stub = pb_grpc.RefereeServiceStub(channel)
            ids.append(create_game(stub).game_id)
            listed = stub.ListGames(pb.ListGamesRequest(), timeout=RPC_TIMEOUT)
            assert [g.game_id for g in listed.games] == ids[::-1]
