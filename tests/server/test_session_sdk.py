"""The bot SDK's player-stream mode (``referee_bot.session``) against a real server: one
program plays every seat it is given on one stream, and picks up where it was after the
stream breaks."""

from __future__ import annotations

import random
import threading

from referee.server.app import RefereeServer
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from referee_bot.sdk import StrategyBot
from referee_bot.session import PlayerStream
from referee_bot.strategies import make_strategy
from tests.server.conftest import RPC_TIMEOUT, create_game


def _bot(game: pb.GameSummary, seat: int) -> StrategyBot:
    return StrategyBot(make_strategy("random", game.game_type), random.Random(seat))


def test_one_program_plays_two_games_on_one_stream(
    server: RefereeServer, stub: pb_grpc.RefereeServiceStub
) -> None:
    games = [create_game(stub, 3), create_game(stub, 4)]
    seats = [(g.game_id, s, t) for g in games for s, t in enumerate(g.tokens)]
    stream = PlayerStream(stub, _bot, seats=seats)
    results = stream.run(games=len(seats), timeout=RPC_TIMEOUT * 3)
    assert len(results) == 7
    for result in results:
        assert result.final_view is not None and result.final_view.game_over
        assert result.commands > 0 and result.illegal == 0
    for game in games:
        view = stub.GetView(
            pb.GetViewRequest(game_id=game.game_id, seat_token=game.tokens[0]),
            timeout=RPC_TIMEOUT,
        ).view
        assert view.game_over


def test_the_program_resumes_after_its_stream_breaks(
    server: RefereeServer, stub: pb_grpc.RefereeServiceStub
) -> None:
    game = create_game(stub, 3)
    seats = [(game.game_id, s, t) for s, t in enumerate(game.tokens)]
    seen: list[int] = []
    openings: list[str] = []  # seat 0's grants and updates without events
    stream: PlayerStream

    def on_message(message: pb.PlayerMessage) -> None:
        kind = message.WhichOneof("kind")
        if kind == "seat" and message.seat.seat == 0:
            openings.append("seat")
        if kind == "update" and message.update.seat == 0:
            if not message.update.events:
                openings.append("view")
            seen.extend(e.sequence for e in message.update.events)
            if len(seen) > 20 and stream.reconnects == 0 and stream._call is not None:
                # Break the stream mid-game, as a proxy or a restart would.
                threading.Thread(target=stream._call.cancel).start()

    stream = PlayerStream(stub, _bot, seats=seats, on_message=on_message)
    stream.run(games=3, timeout=RPC_TIMEOUT * 3)
    assert stream.reconnects >= 1
    assert seen == list(range(1, len(seen) + 1))  # nothing lost or seen twice
    assert openings == ["seat", "view"]  # the resume sent neither again
