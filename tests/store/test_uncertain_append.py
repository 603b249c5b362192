"""An append whose outcome the referee cannot know, settled by the command id.

A TCP relay between the referee and a real PostgreSQL forwards everything, except that, once
armed, it cuts the connection that sent ``referee_append`` as soon as the database answers:
the append has committed, and the referee never hears so. The call must answer UNAVAILABLE
with ``uncertain`` (not UNKNOWN), and the client's retry with the same command id must get the
first outcome (``duplicate``) without applying the command twice.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from referee.server.app import running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import failure_of
from tests.store.faults import DEADLINE, fault_of
from tests.store.pg import postgres_url, temporary_database
from tests.store.relay import CuttingRelay, relayed_url, upstream_of


@pytest.fixture
def relayed() -> Iterator[tuple[CuttingRelay, pb_grpc.RefereeServiceStub]]:
    with temporary_database() as url:
        direct = postgres_url(url)
        relay = CuttingRelay(upstream_of(direct))
        store = relayed_url(direct, relay)
        try:
            with (
                running_server(store, store_wait=1.0) as server,
                grpc.insecure_channel(server.address) as channel,
            ):
                yield relay, pb_grpc.RefereeServiceStub(channel)
        finally:
            relay.close()


def _first_move(stub: pb_grpc.RefereeServiceStub) -> tuple[str, list[str], int, pb.View]:
    """A new game: its id, seat tokens, the seat it waits for and that seat's view."""
    created = stub.CreateGame(
        pb.CreateGameRequest(game_type="sleeping-queens", players=2), timeout=DEADLINE
    )
    game_id = created.game_id
    tokens = [s.token for s in sorted(created.seats, key=lambda s: s.seat)]
    seat = created.game.pending_seats[0]
    view = stub.GetView(
        pb.GetViewRequest(game_id=game_id, seat_token=tokens[seat]), timeout=DEADLINE
    ).view
    return game_id, tokens, seat, view


def test_an_append_cut_off_after_its_commit_is_unavailable_and_its_retry_answers_it(
    relayed: tuple[CuttingRelay, pb_grpc.RefereeServiceStub],
) -> None:
    relay, stub = relayed
    game_id, tokens, seat, view = _first_move(stub)
    request = pb.SubmitCommandRequest(
        game_id=game_id,
        seat_token=tokens[seat],
        command_id="uncertain-1",
        command=view.legal_commands[0],
    )
    relay.arm()
    with pytest.raises(grpc.RpcError) as raised:
        stub.SubmitCommand(request, timeout=DEADLINE)
    assert relay.cut.is_set(), "the relay did not cut the append's answer"
    fault = fault_of("SubmitCommand", raised.value, 0.0)
    assert fault.code is grpc.StatusCode.UNAVAILABLE, fault
    assert fault.retry_delay is not None, fault
    info = failure_of(raised.value).info
    assert info is not None and info.reason == "STORE_UNAVAILABLE"
    assert info.metadata["uncertain"] == "true"

    answer = stub.SubmitCommand(request, timeout=DEADLINE)
    assert answer.duplicate, "the retry applied the command again (or it had not committed)"
    again = stub.SubmitCommand(request, timeout=DEADLINE)
    assert (again.first_sequence, again.last_sequence) == (
        answer.first_sequence,
        answer.last_sequence,
    )
    game = stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=DEADLINE).game
    assert (
        game.version
        == answer.last_sequence
        == view.version + (answer.last_sequence - answer.first_sequence + 1)
    ), "applied more than once"
    # And the game goes on from there.
    nxt = game.pending_seats[0]
    follow = stub.GetView(
        pb.GetViewRequest(game_id=game_id, seat_token=tokens[nxt]), timeout=DEADLINE
    ).view
    stub.SubmitCommand(
        pb.SubmitCommandRequest(
            game_id=game_id,
            seat_token=tokens[nxt],
            command_id="after-1",
            command=follow.legal_commands[0],
        ),
        timeout=DEADLINE,
    )


def test_the_streams_open_when_an_append_is_cut_off_get_its_events_without_a_get_game(
    relayed: tuple[CuttingRelay, pb_grpc.RefereeServiceStub],
) -> None:
    """A stall as a bot would meet it: every seat's stream is open, the append of a
    command commits and its answer is cut off, the retry answers ``duplicate``; nobody calls
    GetGame, and each stream still reaches the store's last sequence."""
    relay, stub = relayed
    game_id, tokens, seat, view = _first_move(stub)
    streams = [
        stub.StreamGame(
            pb.StreamGameRequest(game_id=game_id, seat_token=token, batched=True),
            timeout=DEADLINE,
        )
        for token in tokens
    ]
    for stream in streams:
        next(stream)  # the current view: the stream is open
    request = pb.SubmitCommandRequest(
        game_id=game_id,
        seat_token=tokens[seat],
        command_id="uncertain-streams",
        command=view.legal_commands[0],
    )
    relay.arm()
    with pytest.raises(grpc.RpcError):
        stub.SubmitCommand(request, timeout=DEADLINE)
    assert relay.cut.is_set(), "the relay did not cut the append's answer"
    for _ in range(50):  # the store may take a moment to come back
        try:
            answer = stub.SubmitCommand(request, timeout=DEADLINE)
            break
        except grpc.RpcError as error:
            assert error.code() is grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
    assert answer.duplicate
    for stream in streams:
        last = 0
        for message in stream:  # a hang guard: the call's deadline
            if message.events:
                last = message.events[-1].sequence
            if last >= answer.last_sequence:
                break
        assert last >= answer.last_sequence, "the stream stalled before the store's last event"
        stream.cancel()
