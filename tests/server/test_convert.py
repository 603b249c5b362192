"""The application's values as ``referee.v1`` messages (:mod:`referee.server.convert`).

A stream message is put together from the bytes its view and events carry (encoded once by
the live game); its bytes must be exactly what protobuf serializes for the same values, built
through protobuf's own message API, for every game, every viewer and both forms.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from referee.application import Clock, GameSettings, Referee, SeatView, StampedEvent, Update
from referee.engine.registry import all_games
from referee.server import convert
from referee.store import MemoryEventStore
from referee.stored import decided_to_proto
from referee.v1 import referee_pb2 as pb
from tests import protobuf_reference as reference

GAMES = sorted(game.info.type_id for game in all_games())


@pytest.mark.parametrize("watched", [False, True], ids=["alone", "watched"])
@pytest.mark.parametrize("clocked", [False, True], ids=["plain", "clock"])
@pytest.mark.parametrize("game_type", GAMES)
def test_batched_messages_are_the_bytes_protobuf_would_write(
    game_type: str, clocked: bool, watched: bool
) -> None:
    """``watched``: with a stream open, the live game keeps each batch's stored bytes, and a
    viewer's copy of an event it sees whole is made from them and its display text."""

    async def scenario() -> None:
        referee = Referee(MemoryEventStore())
        await referee.recover()
        players = next(g for g in all_games() if g.info.type_id == game_type).info.min_players
        clock = Clock(decision_ms=600_000) if clocked else Clock()
        settings = GameSettings(clock=clock, card_commitments=True)
        created = await referee.create(game_type, players, settings=settings)
        live = referee.games[created.game_id]
        if watched:
            watching = referee.stream(created.game_id, spectator=True, batched=True)
            await anext(watching)
        rng = random.Random(game_type)
        checked = 0
        for number in range(60):
            if live.over:
                break
            seat = live.table.pending()[0]
            command = rng.choice(live.table.view(seat).legal_commands)
            await referee.submit(created.game_id, created.seat_tokens[seat], f"{number}", command)
            start = max(0, live.table.version - 1)
            while start > 0 and live.batch_ends[start - 1] == live.table.version:
                start -= 1  # back to the first event of the latest batch
            for viewer in [None, *range(players)]:
                update = live.batch_update(viewer, start, live.table.version, None)
                expected = pb.StreamGameResponse(
                    view=_view(update.view), events=[_event(e, game_type) for e in update.events]
                )
                assert convert.update_bytes(update) == expected.SerializeToString()
                assert convert.update_to_proto(update, batched=True) == expected
                for stamped in update.events:  # the plain form: one event each
                    plain = Update((stamped,), update.view)
                    one = pb.StreamGameResponse(
                        view=_view(plain.view), event=_event(stamped, game_type)
                    )
                    assert convert.update_bytes(plain, batched=False) == one.SerializeToString()
                checked += 1
            assert bool(live.latest.stored) == watched
        assert checked
        if watched:
            await watching.aclose()
        empty = Update((), live.view(None))
        first = pb.StreamGameResponse(view=_view(empty.view)).SerializeToString()
        assert convert.update_bytes(empty) == convert.update_bytes(empty, batched=False) == first
        referee.close()

    asyncio.run(scenario())


def _view(seat_view: SeatView) -> pb.View:
    return reference.view(seat_view.game_id, seat_view.players, seat_view.view, seat_view.clocks)


def _event(stamped: StampedEvent, game_type: str) -> pb.Event:
    decided = None if stamped.decided is None else decided_to_proto(stamped.decided)
    return reference.event(
        game_type,
        stamped.event,
        stamped.sequence,
        batch_end=stamped.batch_end,
        recorded_ms=stamped.recorded_ms,
        decided=decided,
        describe=True,
    )


@pytest.mark.parametrize("game_type", GAMES)
def test_a_submit_answer_is_the_bytes_protobuf_would_write(game_type: str) -> None:
    """SubmitCommand's answer carries the seat's view as the bytes the live game made: the
    answer is what protobuf serializes for the same values, a retry's (duplicate) too."""

    async def scenario() -> None:
        referee = Referee(MemoryEventStore())
        await referee.recover()
        players = next(g for g in all_games() if g.info.type_id == game_type).info.min_players
        created = await referee.create(game_type, players)
        live = referee.games[created.game_id]
        rng = random.Random(game_type)
        answers = []
        for number in range(20):
            if live.over:
                break
            seat = live.table.pending()[0]
            command = rng.choice(live.table.view(seat).legal_commands)
            token = created.seat_tokens[seat]
            answers.append(await referee.submit(created.game_id, token, f"{number}", command))
            answers.append(await referee.submit(created.game_id, token, f"{number}", command))
        assert answers and any(a.duplicate for a in answers)
        for answer in answers:
            expected = pb.SubmitCommandResponse(
                first_sequence=answer.first_sequence,
                last_sequence=answer.last_sequence,
                duplicate=answer.duplicate,
                view=_view(answer.view),
            )
            assert convert.submitted_bytes(answer) == expected.SerializeToString()
            assert convert.submitted_to_proto(answer) == expected
        referee.close()

    asyncio.run(scenario())


def test_games_without_a_clock_share_one() -> None:
    """A live game holds its settings for its whole life: every game created without a clock
    (the request's clock all zeros, or stored so) holds the same one; a clock stays its own."""
    plain = [convert.settings_from_request(pb.CreateGameRequest()) for _ in range(2)]
    stored = GameSettings.from_json(plain[0].to_json())
    assert plain[0].clock is plain[1].clock is stored.clock and not stored.clock.enabled
    request = pb.CreateGameRequest(clock=pb.ClockSettings(decision_ms=1000, bank_ms=500))
    clocked = convert.settings_from_request(request)
    assert clocked.clock == Clock(1000, 500) and clocked.clock is not plain[0].clock
    assert GameSettings.from_json(clocked.to_json()) == clocked
