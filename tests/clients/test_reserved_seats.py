"""The Python SDK claims the seats reserved for its player as the player stream announces them
(``referee-bot player --claim-reserved``: :class:`ReservedSeats` as a PlayerStream's
``on_message``), against a real server on loopback: a reservation made before the program
connected (announced when its stream opens) and one made while it runs, both played out;
the other player's seats are never tried."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Iterator

import grpc
import pytest

from referee.application.players.accounts import PlayerSettings
from referee.server.app import running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from referee_bot.reserved import ReservedSeats
from referee_bot.sdk import PlayResult, StrategyBot
from referee_bot.session import PlayerStream
from referee_bot.strategies import make_strategy

GAME = "sleeping-queens"
TIMEOUT = 120.0


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    with running_server(store="memory:", players=PlayerSettings(open_registration=True)) as s:
        yield str(s.address)


def register(stub: pb_grpc.RefereeServiceStub, prefix: str) -> tuple[str, str]:
    name = f"{prefix}-{uuid.uuid4().hex[:6]}"
    return name, stub.Register(pb.RegisterRequest(name=name, kind=pb.PLAYER_KIND_BOT)).token


def reserved_game(stub: pb_grpc.RefereeServiceStub, *players: str) -> str:
    seats = [pb.SeatRequest(mode=pb.SEAT_MODE_RESERVED, player=p) for p in players]
    request = pb.CreateGameRequest(game_type=GAME, players=len(players), seat_requests=seats)
    return str(stub.CreateGame(request, timeout=30).game_id)


class Program:
    """One player program: a PlayerStream whose messages go to its ReservedSeats."""

    def __init__(self, address: str, token: str, games: int) -> None:
        self.channel = grpc.insecure_channel(address)
        stub = pb_grpc.RefereeServiceStub(self.channel)
        self.claimer = ReservedSeats(stub, token)

        def bot_for(game: pb.GameSummary, seat: int) -> StrategyBot:
            return StrategyBot(make_strategy("random", game.game_type), random.Random(seat))

        self.stream = PlayerStream(
            stub, bot_for, credential=token, on_message=self.claimer.announced
        )
        self.results: list[PlayResult] = []
        self.failed: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, args=(games,), daemon=True)
        self.thread.start()

    def _run(self, games: int) -> None:
        try:
            self.results = self.stream.run(games=games, timeout=TIMEOUT)
        except BaseException as error:  # reported by the test
            self.failed.append(error)

    def close(self) -> None:
        self.stream.stop()
        self.thread.join(30)
        self.channel.close()


def test_the_sdk_claims_reserved_seats_as_the_stream_announces_them(address: str) -> None:
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        alice, alice_token = register(stub, "alice")
        bob, bob_token = register(stub, "bob")
        before = reserved_game(stub, alice, bob)  # before either program connects
        programs = [Program(address, alice_token, 2), Program(address, bob_token, 2)]
        try:
            deadline = time.monotonic() + TIMEOUT
            while not stub.GetGame(pb.GetGameRequest(game_id=before), timeout=30).game.started:
                assert time.monotonic() < deadline, "the reserved seats were never claimed"
                time.sleep(0.05)
            while_running = reserved_game(stub, bob, alice)
            for program in programs:
                program.thread.join(TIMEOUT)
                assert not program.failed, program.failed
        finally:
            for program in programs:
                program.close()
        alices, bobs = programs
        assert sorted(alices.claimer.claimed) == sorted([(before, 0), (while_running, 1)])
        assert sorted(bobs.claimer.claimed) == sorted([(before, 1), (while_running, 0)])
        for program in programs:
            assert len(program.results) == 2
            assert all(r.final_view is not None and r.final_view.game_over for r in program.results)
        for game_id in (before, while_running):
            game = stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=30).game
            assert game.game_over
            assert [h.player for h in game.seat_holders] == (
                [alice, bob] if game_id == before else [bob, alice]
            )
