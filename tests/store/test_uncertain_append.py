"""An append whose outcome the referee cannot know, settled by the command id (issue 24).

A TCP relay between the referee and a real PostgreSQL forwards everything, except that, once
armed, it cuts the connection that sent ``referee_append`` as soon as the database answers:
the append has committed, and the referee never hears so. The call must answer UNAVAILABLE
with ``uncertain`` (not UNKNOWN), and the client's retry with the same command id must get the
first outcome (``duplicate``) without applying the command twice.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import grpc
import pytest

from referee.server.app import running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import failure_of
from tests.store.faults import DEADLINE, fault_of
from tests.store.pg import postgres_url, temporary_database


class CuttingRelay:
    """Relays TCP connections to ``upstream``; :meth:`arm` makes it cut the next connection
    that asks for ``referee_append`` once the database has answered it."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self._armed = threading.Event()
        self.cut = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self) -> None:
        self.cut.clear()
        self._armed.set()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            asked = threading.Event()  # this connection sent referee_append while armed
            threading.Thread(target=self._up, args=(client, server, asked), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, asked), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket, asked: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while data := client.recv(65536):
                if self._armed.is_set() and b"referee_append" in data:
                    self._armed.clear()
                    asked.set()
                server.sendall(data)
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_WR)

    def _down(self, server: socket.socket, client: socket.socket, asked: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while data := server.recv(65536):
                if asked.is_set():  # the answer to the append: drop it and the connection
                    self.cut.set()
                    break
                client.sendall(data)
        for end in (client, server):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def relayed() -> Iterator[tuple[CuttingRelay, pb_grpc.RefereeServiceStub]]:
    with temporary_database() as url:
        direct = postgres_url(url)
        host_port = direct.split("@", 1)[1].split("/", 1)[0]
        host, port = host_port.rsplit(":", 1)
        relay = CuttingRelay((host, int(port)))
        store = direct.replace(host_port, f"127.0.0.1:{relay.port}")
        try:
            with (
                running_server(store, store_wait=1.0) as server,
                grpc.insecure_channel(server.address) as channel,
            ):
                yield relay, pb_grpc.RefereeServiceStub(channel)
        finally:
            relay.close()


def test_an_append_cut_off_after_its_commit_is_unavailable_and_its_retry_answers_it(
    relayed: tuple[CuttingRelay, pb_grpc.RefereeServiceStub],
) -> None:
    relay, stub = relayed
    created = stub.CreateGame(
        pb.CreateGameRequest(game_type="sleeping-queens", players=2), timeout=DEADLINE
    )
    game_id = created.game_id
    tokens = [s.token for s in sorted(created.seats, key=lambda s: s.seat)]
    seat = created.game.pending_seats[0]
    view = stub.GetView(
        pb.GetViewRequest(game_id=game_id, seat_token=tokens[seat]), timeout=DEADLINE
    ).view
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
