"""Streams at the application layer: resuming, redaction, views, the buffer bound.

Moved here from tests/server/test_streams.py and test_limits.py, which keep what the wire
carries (the status of a refused stream, a live stream over gRPC, a slow reader on HTTP/2):
these drive :class:`~referee.application.Referee` directly on a memory store.
"""

from __future__ import annotations

import asyncio
import random

from referee.application import Kind, Limits, Referee, StreamEnded, Update
from referee.application.tables.access import Player, PlayerSeat, Principal
from referee.games.vampire_queen.model import HandDealt
from tests.application.seating_support import seats
from tests.application.support import play_to_end, plays, refused, run, until

GAME = "vampire-queen"


async def read(
    referee: Referee, game_id: str, viewer: int | None, tokens: tuple[str, ...], after: int = 0
) -> list[Update]:
    token = tokens[viewer] if viewer is not None else ""
    stream = referee.stream(game_id, seat_token=token, spectator=viewer is None, after=after)
    return [update async for update in stream]


def test_resume_from_every_sequence_gives_exactly_the_rest() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 3, {"rounds": "1"})
        live = referee.games[created.game_id]
        await play_to_end(referee, created, 7)
        final = live.table.version
        for viewer in (1, None):
            full = await read(referee, created.game_id, viewer, created.seat_tokens)
            assert not full[0].events and full[0].view.view.over
            events = [update.events[0] for update in full[1:]]
            assert [e.sequence for e in events] == list(range(1, final + 1))
            for after in range(final + 1):
                resumed = await read(referee, created.game_id, viewer, created.seat_tokens, after)
                assert resumed[0].view == full[0].view
                assert [u.events[0] for u in resumed[1:]] == events[after:], after
                assert [u.view for u in resumed[1:]] == [u.view for u in full[1 + after :]]
        error = await refused(
            anext(referee.stream(created.game_id, spectator=True, after=final + 1))
        )
        assert error.kind is Kind.INVALID and error.field_violations[0][0] == "after_sequence"

    run(scenario)


def test_a_spectator_stream_is_public_only() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 3, {"rounds": "1"})
        await play_to_end(referee, created, 8)
        updates = await read(referee, created.game_id, None, created.seat_tokens)
        dealt = [u.events[0].event for u in updates[1:] if isinstance(u.events[0].event, HandDealt)]
        assert len(dealt) == 3
        assert all(len(hand.cards) == 0 and hand.count == 13 for hand in dealt)
        for update in updates:
            assert not update.view.view.game.hand and not update.view.view.legal_commands

    run(scenario)


def test_stream_views_match_the_views_of_the_submitting_seat() -> None:
    """The view a stream gives after a command's last event is the view its answer gave; after
    a whole command, exactly the pending seats are offered legal commands."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 4, {"rounds": "1"})
        answers = await play_to_end(referee, created, 9)
        seen = {
            seat: {
                u.events[0].sequence: u.view
                for u in (await read(referee, created.game_id, seat, created.seat_tokens))[1:]
            }
            for seat in range(4)
        }
        for answer in answers:
            assert seen[answer.seat][answer.last_sequence] == answer.view
            for other in range(4):
                view = seen[other][answer.last_sequence].view
                assert bool(view.legal_commands) == (other in view.pending), other

    run(scenario)


def test_a_stream_that_falls_a_buffer_behind_ends_and_resumes_exactly() -> None:
    """A stream whose reader takes nothing while more batches than its buffer are published
    ends with kind LIMIT and the last sequence it sent (what it had sent, with no gap);
    resumed from there it gets the rest."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 4, {"rounds": "5"})
        live = referee.games[created.game_id]
        token = created.seat_tokens[0]
        stream = referee.stream(created.game_id, seat_token=token)
        assert not (await anext(stream)).events  # open; now nobody reads it
        rng = random.Random(10)
        for number in range(12):
            seat = live.table.pending()[0]
            command = rng.choice(live.table.view(seat).legal_commands)
            await referee.submit(created.game_id, created.seat_tokens[seat], f"{number}", command)
        version = live.table.version
        sent: list[int] = []
        try:
            async for update in stream:
                sent += [e.sequence for e in update.events]
        except StreamEnded as ended:
            error = ended.error
        else:
            raise AssertionError("the stream behind its buffer ended without an error")
        assert error.kind is Kind.LIMIT
        last = int(error.metadata["last_sequence"])
        assert sent == list(range(1, last + 1)), "no gap before the end"
        assert last <= version
        # Resumed after it: the current view, then exactly the events it had not sent.
        stream = referee.stream(created.game_id, seat_token=token, after=last)
        first = await anext(stream)
        assert not first.events and first.view == live.view(0)
        rest: list[int] = []
        while len(rest) < version - last:
            rest += [e.sequence for e in (await anext(stream)).events]
        await stream.aclose()
        assert rest == list(range(last + 1, version + 1))
        assert referee.streams == 0

    run(scenario, Limits(stream_buffer=2))


def test_every_view_of_a_replayed_stream_names_the_seats_holders() -> None:
    """A client that reconnects (or a spectator from the start) reads each event with the view
    after it: those past views name who holds each seat, as the current one does, so a client
    can put names on the log it replays (batched or one event at a time)."""

    async def scenario(referee: Referee) -> None:
        for name in ("ann", "bob", "cy"):
            await referee.players.create_account(name, "bot")
        settings = seats("reserved:ann", "reserved:bob", "reserved:cy")
        created = await referee.create(GAME, 3, {"rounds": "1"}, settings=settings)
        for seat, name in enumerate(("ann", "bob", "cy")):
            await referee.seating.claim_for(created.game_id, seat, name, "bot")
        live = referee.games[created.game_id]
        current = live.view(None).holders
        assert [h.player for h in current] == ["ann", "bob", "cy"]
        rng = random.Random(3)
        for _ in range(12):
            seat = live.table.pending()[0]
            command = rng.choice(live.table.view(seat).legal_commands)
            holder = PlayerSeat(Principal(Player(("ann", "bob", "cy")[seat], "bot")), seat)
            await referee.submit(created.game_id, holder, f"c{_}", command)
        for batched in (False, True):
            stream = referee.stream(created.game_id, spectator=True, batched=batched)
            updates = [await anext(stream) for _ in range(4)]
            await stream.aclose()
            assert all(u.view.holders == current for u in updates[1:]), batched

    run(scenario)


def test_plain_streams_that_keep_up_take_the_views_inside_a_batch_from_the_game() -> None:
    """Plain streams (one message per event) following a game as it is played get, inside
    each batch, the views a stream replaying the game afterwards makes with its own table
    copy; the live game made them once for all of them with the one copy it keeps."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 4, {"rounds": "1"})
        live = referee.games[created.game_id]
        viewers = (0, 1, 2, 3, None)
        got: dict[int | None, list[Update]] = {viewer: [] for viewer in viewers}

        async def follow(viewer: int | None) -> None:
            token = created.seat_tokens[viewer] if viewer is not None else ""
            async for update in referee.stream(
                created.game_id, seat_token=token, spectator=viewer is None
            ):
                got[viewer].append(update)

        def caught_up() -> bool:
            version = live.table.version
            return all(
                updates and updates[-1].events and updates[-1].events[-1].sequence == version
                for updates in got.values()
            )

        followers = [asyncio.ensure_future(follow(viewer)) for viewer in viewers]
        await until(caught_up)
        batches = 0
        async for _, answer in plays(referee, created, 11):
            batches += answer.last_sequence > answer.first_sequence  # more than one event
            await until(caught_up)
        await asyncio.gather(*followers)
        assert batches and live.stepper is not None and live.stepper.version > 8
        for viewer in viewers:
            replayed = await read(referee, created.game_id, viewer, created.seat_tokens)
            assert [u.events for u in got[viewer][1:]] == [u.events for u in replayed[1:]]
            assert [u.view for u in got[viewer][1:]] == [u.view for u in replayed[1:]], viewer

    run(scenario)


def test_a_game_keeps_no_seat_s_deal_openings_for_other_viewers() -> None:
    """Each seat's copy of the deal's openings (its own cards' salts and Merkle paths) is
    nobody else's: once sent, the live game does not keep it for other viewers."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 4, {"rounds": "1"})
        live = referee.games[created.game_id]
        for seat in range(4):
            stream = referee.stream(created.game_id, seat_token=created.seat_tokens[seat])
            updates = [await anext(stream) for _ in range(live.table.version + 1)]
            await stream.aclose()
            assert updates[-1].events[0].sequence == live.table.version
            assert max(len(update.events[0].data) for update in updates[1:]) > 1024
        assert live.latest.public and all(
            len(value.data) < 1024 for value in live.latest.events.values()
        )

    run(scenario)


def test_a_game_keeps_no_batched_update_with_a_seat_s_deal_openings() -> None:
    """The same on batched streams (what the bot SDK asks for): each seat's batch with its
    deal openings is sent, not kept for the seat's other streams of that batch."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 4, {"rounds": "1"})
        live = referee.games[created.game_id]
        for seat in range(4):
            stream = referee.stream(
                created.game_id, seat_token=created.seat_tokens[seat], batched=True
            )
            updates = [await anext(stream) for _ in range(2)]  # the view, the creation's batch
            await stream.aclose()
            assert updates[-1].events[-1].sequence == live.table.version
            assert max(len(event.data) for event in updates[-1].events) > 1024
        assert all(
            len(event.data) < 1024
            for update in live.latest.updates.values()
            for event in update.events
        )

    run(scenario)
