"""Who holds the other seats of a rated game with reserved seats stays hidden until it starts
(docs/lobby.md, "Results"), on every channel a player has: GetGame, ListGames, the lobby
(ListLobby), its seat's view and stream, the spectator's, and its player stream's
reservations. Two games that differ only in whom seat 1 is reserved for (and who claimed
seat 2) look the same to the player of seat 0, byte for byte once ids and times are blanked;
once the game starts, everyone is named."""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import grpc
import pytest
from google.protobuf import text_format
from google.protobuf.message import Message

from referee.application.players.accounts import PlayerSettings
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import RPC_TIMEOUT

GAME = "sleeping-queens"
#: What differs between two games by construction, not by who sits where.
BLANKED = [
    (re.compile(r"(created_unix_ms|join_deadline_unix_ms|recorded_unix_ms): \d+"), r"\1: T"),
    (re.compile(r'(seed_commitment|commitment|deal_commitment): "[0-9a-f]*"'), r'\1: "C"'),
    (re.compile(r"(root|salt): \S+"), r"\1: R"),
]


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    players = PlayerSettings(open_registration=True)
    with running_server(store="memory:", players=players) as running:
        yield running


@pytest.fixture
def stub(server: RefereeServer) -> Iterator[pb_grpc.RefereeServiceStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield pb_grpc.RefereeServiceStub(channel)


def register(stub: pb_grpc.RefereeServiceStub, prefix: str) -> tuple[str, list[tuple[str, str]]]:
    name = f"{prefix}-{uuid.uuid4().hex[:6]}"
    request = pb.RegisterRequest(name=name, kind=pb.PLAYER_KIND_BOT)
    token = stub.Register(request, timeout=RPC_TIMEOUT).token
    return name, [("authorization", f"Bearer {token}")]


def blank(message: Message, game_id: str) -> str:
    text = text_format.MessageToString(message).replace(game_id, "GAME")
    for pattern, replacement in BLANKED:
        text = pattern.sub(replacement, text)
    return text


class Reservations(threading.Thread):
    """A player's WatchPlayer stream, kept: the reservations it announces."""

    def __init__(self, stub: pb_grpc.RefereeServiceStub, auth: list[tuple[str, str]]) -> None:
        super().__init__(daemon=True)
        self.call = stub.WatchPlayer(pb.WatchPlayerRequest(), metadata=auth)
        self.seen: list[pb.PlayerMessage] = []
        self.start()

    def run(self) -> None:
        try:
            for response in self.call:
                self.seen.extend(response.messages)
        except grpc.RpcError:
            return

    def reserved(self, game_id: str) -> list[pb.PlayerMessage]:
        return [
            m
            for m in self.seen
            if m.WhichOneof("kind") == "reserved" and m.reserved.game_id == game_id
        ]


def wait_for(condition: Callable[[], object], what: str) -> None:
    for _ in range(500):
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"gave up waiting for {what}")


def everything(
    stub: pb_grpc.RefereeServiceStub,
    game_id: str,
    auth: list[tuple[str, str]],
    reserved: list[pb.PlayerMessage],
) -> list[str]:
    """All the player of seat 0 (claimed, the game not started) can read of the game."""
    found: list[Message] = [stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=RPC_TIMEOUT)]
    listed = stub.ListGames(pb.ListGamesRequest(game_type=GAME, page_size=1000), timeout=10)
    found += [g for g in listed.games if g.game_id == game_id]
    lobby = stub.ListLobby(pb.ListLobbyRequest(), timeout=RPC_TIMEOUT)
    found += [t for t in lobby.tables if t.game.game_id == game_id]
    mine = pb.GetViewRequest(game_id=game_id, seat=0)
    found.append(stub.GetView(mine, metadata=auth, timeout=RPC_TIMEOUT))
    found.append(stub.GetView(pb.GetViewRequest(game_id=game_id, spectator=True), timeout=10))
    for request, metadata in (
        (pb.StreamGameRequest(game_id=game_id, seat=0, batched=True), auth),
        (pb.StreamGameRequest(game_id=game_id, spectator=True, batched=True), []),
    ):
        call = stub.StreamGame(request, metadata=metadata, timeout=RPC_TIMEOUT)
        for message in call:  # the whole log so far, each batch with the view after it
            found.append(message)
            if message.caught_up:
                call.cancel()
                break
    found += reserved
    return [blank(message, game_id) for message in found]


def test_a_rated_games_reserved_players_are_hidden_until_it_starts(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    ann, ann_auth = register(stub, "ann")
    others = [register(stub, prefix) for prefix in ("bob", "cy", "dee", "eve")]
    (bob, bob_auth), (cy, cy_auth), (dee, _), (eve, eve_auth) = others
    watch = Reservations(stub, ann_auth)
    try:
        seen = []
        games = []
        for second, third, third_auth in ((bob, cy, cy_auth), (dee, eve, eve_auth)):
            seats = [
                pb.SeatRequest(mode=pb.SEAT_MODE_RESERVED, player=ann),
                pb.SeatRequest(mode=pb.SEAT_MODE_RESERVED, player=second),
                pb.SeatRequest(mode=pb.SEAT_MODE_RESERVED, player=third),
                pb.SeatRequest(mode=pb.SEAT_MODE_OPEN),
            ]
            created = stub.CreateGame(
                pb.CreateGameRequest(
                    game_type=GAME, players=4, seat_requests=seats, rated=True, listed=True
                ),
                timeout=RPC_TIMEOUT,
            )
            game_id = created.game_id
            games.append(created)
            for auth, seat in ((ann_auth, 0), (third_auth, 2)):
                claim = pb.ClaimSeatRequest(game_id=game_id, seat=seat)
                stub.ClaimSeat(claim, metadata=auth, timeout=RPC_TIMEOUT)
            wait_for(lambda game_id=game_id: watch.reserved(game_id), "the reservation")
            summary = stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=10).game
            assert not summary.started and summary.hide_reservations and summary.rated
            holders = [(h.state, h.player, h.hidden) for h in summary.seat_holders]
            assert holders == [
                (pb.SEAT_STATE_HELD, "", True),
                (pb.SEAT_STATE_RESERVED, "", True),
                (pb.SEAT_STATE_HELD, "", True),
                (pb.SEAT_STATE_OPEN, "", False),
            ]
            seen.append(everything(stub, game_id, ann_auth, watch.reserved(game_id)))
        first, second = seen
        assert first == second
        for text in (*first, *second):
            for name in (bob, cy, dee, eve):
                assert name not in text
        # Once the game has started, everyone is named.
        created = games[0]
        stub.ClaimSeat(
            pb.ClaimSeatRequest(game_id=created.game_id, seat=1),
            metadata=bob_auth,
            timeout=RPC_TIMEOUT,
        )
        _, fay_auth = register(stub, "fay")  # the open seat, from the lobby
        stub.ClaimSeat(
            pb.ClaimSeatRequest(game_id=created.game_id, seat=3),
            metadata=fay_auth,
            timeout=RPC_TIMEOUT,
        )
        summary = stub.GetGame(pb.GetGameRequest(game_id=created.game_id), timeout=10).game
        assert summary.started
        assert [h.player for h in summary.seat_holders][:3] == [ann, bob, cy]
        assert not any(h.hidden for h in summary.seat_holders)
    finally:
        watch.call.cancel()
