"""P3 over the player stream: the same seeded games as P3, one after the other,
each played by one program holding all its seats on **one** PlayerSession, its commands and
their events on that one connection (no unary call per command).

The goal: per command at most 1.5x a bare echo round trip (P3's floor), since a command on
the player stream is one message up and, batched, about one message down.
"""

from __future__ import annotations

import random
import uuid

import grpc

from referee.bench.load import RPC_TIMEOUT, GameSpec
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc


async def play_on_session(stub: pb_grpc.RefereeServiceStub, spec: GameSpec, seed: int) -> int:
    """One complete game with a bot on every seat, every seat followed by its token on one
    PlayerSession; the choices are drawn as ``play_game(…, seed)`` draws them. Returns the
    commands sent."""
    created = await stub.CreateGame(
        pb.CreateGameRequest(
            game_type=spec.game_type,
            players=spec.players,
            options=spec.options,
            seed=str(seed),
            public_reproducible_seed=True,  # reproducible benchmark games, nothing secret
        ),
        timeout=RPC_TIMEOUT,
    )
    rng = random.Random(seed)
    call = stub.PlayerSession(timeout=10 * RPC_TIMEOUT)
    try:
        for s in created.seats:
            resume = pb.GameResume(game_id=created.game_id, seat=s.seat, seat_token=s.token)
            await call.write(pb.PlayerSessionRequest(resume=resume))
        acted: dict[int, int] = {}
        over: set[int] = set()
        commands = 0
        while len(over) < spec.players:
            response = await call.read()
            if response is grpc.aio.EOF:
                raise RuntimeError("the player stream ended before the game did")
            for message in response.messages:
                if message.HasField("outcome") and message.outcome.HasField("refusal"):
                    raise RuntimeError(f"refused: {message.outcome.refusal.message}")
                if not message.HasField("update"):
                    continue
                view = message.update.view
                if view.game_over:
                    over.add(view.seat)
                    continue
                if (
                    view.version <= acted.get(view.seat, -1)
                    or view.seat not in view.pending_seats
                    or not view.legal_commands
                ):
                    continue
                acted[view.seat] = view.version
                command = pb.SessionCommand(
                    game_id=created.game_id,
                    seat=view.seat,
                    command_id=uuid.uuid4().hex,
                    command=rng.choice(view.legal_commands),
                    expected_version=view.version,
                )
                commands += 1
                await call.write(pb.PlayerSessionRequest(command=command))
        return commands
    finally:
        call.cancel()


__all__ = ["play_on_session"]
