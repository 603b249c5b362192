"""The batched stream: one message per command batch, the view once after it.

A batched stream must say exactly what the one-event-per-message stream says, grouped by
batch: the same redacted events, and after each batch the view the plain stream shows after
the batch's last event. It resumes exactly from any sequence, also inside a batch.
"""

from __future__ import annotations

import random
import threading
from itertools import groupby
from typing import Any

import pytest

from referee.engine import Game as Rules
from referee.engine import all_games
from referee.server.app import RefereeServer
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    create_game,
    create_refereed,
    play_random,
    play_to_end,
    read_ok,
    stream_request,
    summary,
    wait_for,
)

GAMES = [pytest.param(rules, id=rules.info.type_id) for rules in all_games()]


def batched(game: Any, seat: int | None, after: int = 0) -> pb.StreamGameRequest:
    request = stream_request(game, seat, after)
    request.batched = True
    return request


def plain_by_batch(messages: list[pb.StreamGameResponse]) -> list[tuple[list[bytes], bytes]]:
    """The plain stream's events grouped by batch, each group with the view after it."""
    events = [m for m in messages[1:]]
    out = []
    for _, group in groupby(events, key=lambda m: m.event.batch_end_sequence):
        members = list(group)
        out.append(
            (
                [m.event.SerializeToString(deterministic=True) for m in members],
                members[-1].view.SerializeToString(deterministic=True),
            )
        )
    return out


def batches(messages: list[pb.StreamGameResponse]) -> list[tuple[list[bytes], bytes]]:
    return [
        (
            [e.SerializeToString(deterministic=True) for e in m.events],
            m.view.SerializeToString(deterministic=True),
        )
        for m in messages[1:]
    ]


@pytest.mark.parametrize("rules", GAMES)
def test_a_batched_stream_says_what_the_plain_stream_says_by_batch(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random, rules: Rules[Any]
) -> None:
    info = rules.info
    options = {o.name: str(o.minimum) for o in info.options if not o.allowed}
    game = create_refereed(
        stub, info.min_players, rounds=None, game_type=info.type_id, options=options
    )
    play_to_end(stub, game, rng)
    for seat in (0, None):
        plain = read_ok(stub, stream_request(game, seat))
        grouped = read_ok(stub, batched(game, seat))
        assert grouped[0].view == plain[0].view and not grouped[0].events
        assert all(not m.HasField("event") for m in grouped)
        assert batches(grouped) == plain_by_batch(plain)
        # Each message is one whole batch: its last event ends it.
        for message in grouped[1:]:
            assert message.events[-1].batch_end_sequence == message.events[-1].sequence


def test_a_batched_stream_resumes_inside_a_batch(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_game(stub, players=4)
    play_to_end(stub, game, rng)
    plain = read_ok(stub, stream_request(game, 1))[1:]
    inside = next(m.event for m in plain if m.event.batch_end_sequence > m.event.sequence)
    resumed = read_ok(stub, batched(game, 1, inside.sequence))
    first = resumed[1]
    assert [e.sequence for e in first.events] == list(
        range(inside.sequence + 1, inside.batch_end_sequence + 1)
    )
    rest = [e.sequence for m in resumed[1:] for e in m.events]
    assert rest == list(range(inside.sequence + 1, summary(stub, game).version + 1))


def test_a_live_command_is_one_message_shared_by_the_viewers_streams(
    server: RefereeServer, stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_game(stub, players=3)
    start = summary(stub, game).version
    received: list[list[pb.StreamGameResponse]] = [[], []]

    def follow(into: list[pb.StreamGameResponse]) -> None:
        call = stub.StreamGame(batched(game, None, start), timeout=60)
        for message in call:
            into.append(message)
            if message.events:
                break
        call.cancel()

    readers = [threading.Thread(target=follow, args=(into,)) for into in received]
    for reader in readers:
        reader.start()
    wait_for(lambda: server.referee.streams == 2, "both streams to open")
    played = play_random(stub, game, rng, max_commands=1)
    for reader in readers:
        reader.join(timeout=60)
    response = played.responses[0]
    for messages in received:
        assert len(messages) == 2  # the view, then the command's batch in one message
        assert [e.sequence for e in messages[1].events] == list(
            range(response.first_sequence, response.last_sequence + 1)
        )
    assert received[0][1] == received[1][1]
    live = server.referee.games[game.game_id]
    assert list(live.latest.updates) == [None]  # built once, for both spectators
