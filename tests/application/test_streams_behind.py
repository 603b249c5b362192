"""A command on the memory store is done in its caller's turn of the loop, and the streams
that have not taken the batches before it yet still get each batch, in order, with the view
right after it.

A stream takes a batch when its task next runs, so several commands may commit before it
does (the seats that decide together send theirs at once). The messages it has yet to take
are made for it as the next batch comes (``LiveGame.absorb``); these tests compare what such
streams send with what a stream that replays the same history from the store sends.
"""

from __future__ import annotations

import random
from collections.abc import AsyncGenerator

import pytest

from referee.application import Created, Referee, Update
from tests.application.support import awaited, run

GAME = "vampire-queen"


def test_a_command_on_the_memory_store_is_done_before_its_caller_waits() -> None:
    """Decided, appended, folded in and published in the caller's own step: no other task
    runs between a command's arrival and its answer (the caller cannot be cancelled half-way
    through it either)."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 4, {"rounds": "1"})
        live, _, token, command = awaited(referee, created)
        before = live.table.version
        submitting = referee.submit(created.game_id, token, "first", command)
        with pytest.raises(StopIteration) as done:
            submitting.send(None)
        answer = done.value.value
        assert not answer.duplicate and answer.version == live.table.version > before
        assert answer.first_sequence == before + 1

    run(scenario)


def _open(
    referee: Referee, created: Created, viewer: int | None, after: int, batched: bool
) -> AsyncGenerator[Update, None]:
    token = created.seat_tokens[viewer] if viewer is not None else ""
    return referee.stream(
        created.game_id, seat_token=token, spectator=viewer is None, after=after, batched=batched
    )


async def _taken(updates: AsyncGenerator[Update, None], until: int) -> list[Update]:
    """The stream's messages up to the one whose last event is ``until``."""
    found = []
    while True:
        update = await anext(updates)
        found.append(update)
        if update.events and update.events[-1].sequence >= until:
            return found


@pytest.mark.parametrize("batched", [True, False], ids=["batched", "plain"])
def test_streams_behind_several_commands_get_every_batch_with_its_view(batched: bool) -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 4, {"rounds": "1"})
        game_id, tokens = created.game_id, created.seat_tokens
        live = referee.games[game_id]
        viewers: list[int | None] = [0, 1, 2, 3, None, 2]  # two streams of seat 2
        streams = [_open(referee, created, viewer, 0, batched) for viewer in viewers]
        for stream in streams:
            await _taken(stream, live.table.version)  # the history: every stream keeps up
        opened = live.table.version
        rng = random.Random(5)
        for number in range(6):  # six commands, no stream running between them
            seat = live.table.pending()[0]
            command = rng.choice(live.table.view(seat).legal_commands)
            await referee.submit(game_id, tokens[seat], f"c{number}", command)
        final = live.table.version
        assert final >= opened + 6
        for viewer, stream in zip(viewers, streams, strict=True):
            sent = await _taken(stream, final)
            again = _open(referee, created, viewer, opened, batched)
            replayed = await _taken(again, final)
            await again.aclose()
            assert [[e.sequence for e in u.events] for u in sent] == [
                [e.sequence for e in u.events] for u in replayed[1:]
            ]
            assert [u.events for u in sent] == [u.events for u in replayed[1:]]
            assert [u.view for u in sent] == [u.view for u in replayed[1:]], viewer
            assert all(u.view.view.version == u.events[-1].sequence for u in sent)
            await stream.aclose()
        assert not live.subscribers
        assert not live.made_for_latest or not live.made_for_latest.carried, "all taken"

    run(scenario)
