"""The player session at the application layer: the seats it follows (held ones, by the
``holding`` documents, and token ones), exact resume, backpressure and the end of a game.

The holdings are written here as the seats room writes them in a claim's transaction (a
``holding`` document per seat), so the session is tested on its own contract: it follows a
seat as soon as its document is written, from the game's first event.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid
from collections.abc import AsyncGenerator
from typing import Any

from referee.application import Referee
from referee.application.players.sessions import (
    HOLDING,
    GameMessage,
    Granted,
    Notice,
    Outcome,
    Resume,
    SessionCommand,
    SessionMessage,
    parse_holding,
)
from referee.application.tables.access import Player, Principal
from referee.store import DocumentWrite, MemoryEventStore
from tests.application.support import WAIT, run

GAME = "vampire-queen"


def alice() -> Principal:
    return Principal(Player("alice", "bot"))


async def next_of(messages: AsyncGenerator[SessionMessage, None], kind: type) -> Any:
    async with asyncio.timeout(WAIT):
        async for message in messages:
            if isinstance(message, kind):
                return message
    raise AssertionError("the session ended")


def hold(referee: Referee, player: str, game_id: str, seat: int) -> None:
    referee.store.write_documents(
        [
            DocumentWrite(
                HOLDING,
                f"{player}/{game_id}/{seat}",
                {"game_id": game_id, "seat": seat, "game_type": GAME, "claimed_ms": 0},
                0,
            )
        ]
    )


def test_holding_keys() -> None:
    assert parse_holding("alice/0123abcd/2") == ("alice", "0123abcd", 2)
    assert parse_holding("alice/0123abcd/x") is None
    assert parse_holding("alice") is None


def test_a_seat_held_before_and_one_held_after_the_session_opens_are_followed() -> None:
    async def scenario(referee: Referee) -> None:
        first = await referee.create(GAME, 3, {"rounds": "1"})
        second = await referee.create(GAME, 3, {"rounds": "1"})
        hold(referee, "alice", first.game_id, 1)
        hold(referee, "bob", first.game_id, 2)  # someone else's: never followed
        session = referee.sessions.open(alice())
        messages = session.messages()
        try:
            granted = await next_of(messages, Granted)
            assert (granted.game_id, granted.seat, granted.token) == (first.game_id, 1, "")
            update = await next_of(messages, GameMessage)
            assert (update.game_id, update.seat) == (first.game_id, 1)
            assert update.update.view.view.viewer == 1  # redacted for the held seat
            hold(referee, "alice", second.game_id, 0)
            granted = await next_of(messages, Granted)
            assert (granted.game_id, granted.seat) == (second.game_id, 0)
            update = await next_of(messages, GameMessage)
            assert (update.game_id, update.seat) == (second.game_id, 0)
            assert update.update.events == ()  # a game's first message: its view
        finally:
            await messages.aclose()
        assert referee.streams == 0  # closing the session freed every seat's stream

    run(scenario)


def test_a_resume_before_the_holding_is_exact() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 3, {"rounds": "1"})
        version = referee.games[created.game_id].table.version
        hold(referee, "alice", created.game_id, 0)
        session = referee.sessions.open(alice(), [Resume(created.game_id, 0, version - 1)])
        messages = session.messages()
        try:
            await next_of(messages, Granted)
            first = await next_of(messages, GameMessage)
            assert first.update.events == ()
            second = await next_of(messages, GameMessage)
            assert [e.sequence for e in second.update.events] == [version]
            assert second.caught_up
        finally:
            await messages.aclose()

    run(scenario)


def test_a_resume_of_only_what_is_new_sends_nothing_the_client_has() -> None:
    """``only_new``: a reconnecting client that names every game it has gets no grant and no
    opening view again: for a game that did not move nothing at all, for one that moved only
    the batches after its sequence; a held game it does not name still opens as new."""

    async def scenario(referee: Referee) -> None:
        quiet = await referee.create(GAME, 3, {"rounds": "1"})
        moved = await referee.create(GAME, 3, {"rounds": "1"})
        fresh = await referee.create(GAME, 3, {"rounds": "1"})
        for game in (quiet, moved, fresh):
            hold(referee, "alice", game.game_id, 0)
        at = {g.game_id: referee.games[g.game_id].table.version for g in (quiet, moved)}
        live = referee.games[moved.game_id]
        seat = live.table.pending()[0]
        command = live.table.legal_commands(seat)[0]
        await referee.submit(moved.game_id, moved.seat_tokens[seat], "c1", command)
        resumes = [Resume(g, 0, after, only_new=True) for g, after in at.items()]
        session = referee.sessions.open(alice(), resumes)
        messages = session.messages()
        seen: list[tuple[str, str, tuple[int, ...]]] = []
        try:
            while True:  # until the session has been silent a while
                try:
                    message = await asyncio.wait_for(anext(messages), 0.5)
                except TimeoutError:
                    break
                if isinstance(message, Granted):
                    seen.append(("granted", message.game_id, ()))
                elif isinstance(message, GameMessage):
                    sequences = tuple(e.sequence for e in message.update.events)
                    seen.append(("update", message.game_id, sequences))
        finally:
            await messages.aclose()
        assert all(game != quiet.game_id for _, game, _ in seen), seen
        of_moved = [(kind, sequences) for kind, game, sequences in seen if game == moved.game_id]
        after = at[moved.game_id]
        assert of_moved == [("update", tuple(range(after + 1, live.table.version + 1)))]
        assert ("granted", fresh.game_id, ()) in seen  # not named: a new game to the client

    run(scenario)


def test_token_seats_play_a_game_to_its_end_and_the_seat_is_dropped() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 3, {"rounds": "1"})
        resumes = [Resume(created.game_id, s, 0, t) for s, t in enumerate(created.seat_tokens)]
        session = referee.sessions.open(None, resumes)
        rng = random.Random(3)
        live = referee.games[created.game_id]
        outcomes: list[Outcome] = []
        acted: dict[int, int] = {}
        async with contextlib.aclosing(session.messages()) as messages, asyncio.timeout(WAIT):
            async for message in messages:
                if isinstance(message, Outcome):
                    outcomes.append(message)
                elif isinstance(message, GameMessage):
                    view = message.update.view.view
                    seat = message.seat
                    if seat in view.pending and acted.get(seat, -1) < view.version:
                        acted[seat] = view.version
                        command = rng.choice(view.legal_commands)
                        await session.command(
                            SessionCommand(created.game_id, seat, str(uuid.uuid4()), command)
                        )
                if live.finished and not session._seats:
                    break
        assert live.finished
        assert outcomes and all(o.refusal is None for o in outcomes)
        assert referee.streams == 0

    run(scenario)


def test_the_lobby_inbox_comes_on_the_session() -> None:
    """A challenge to the player reaches its session as a Notice (the lobby room's value)."""
    from referee.application.lobby.challenges import Challenge
    from referee.application.lobby.terms import Terms

    async def scenario(referee: Referee) -> None:
        await referee.players.create_account("alice", "bot")
        await referee.players.create_account("carol", "bot")
        session = referee.sessions.open(alice())
        messages = session.messages()
        try:
            await referee.lobby.challenges.create("carol", "alice", Terms("sleeping-queens", 2))
            notice = await next_of(messages, Notice)
            assert isinstance(notice.item, Challenge)
            assert (notice.item.challenger, notice.item.challenged) == ("carol", "alice")
        finally:
            await messages.aclose()

    run(scenario)


def test_a_scoped_platform_token_follows_only_its_game() -> None:
    async def scenario(referee: Referee) -> None:
        first = await referee.create(GAME, 3, {"rounds": "1"})
        second = await referee.create(GAME, 3, {"rounds": "1"})
        hold(referee, "alice", first.game_id, 0)
        hold(referee, "alice", second.game_id, 1)
        scoped = Principal(Player("alice", "bot", platform=True), scope_game=second.game_id)
        messages = referee.sessions.open(scoped).messages()
        try:
            granted = await next_of(messages, Granted)
            assert (granted.game_id, granted.seat) == (second.game_id, 1)
            await asyncio.sleep(0.05)
            assert referee.streams == 1  # the other game's seat is not followed
        finally:
            await messages.aclose()

    run(scenario)


def test_a_held_seats_command_goes_the_seats_way_and_a_spectator_may_not_play() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 3, {"rounds": "1"})
        live = referee.games[created.game_id]
        seat = live.table.pending()[0]
        hold(referee, "alice", created.game_id, seat)

        async def submit_held(player: str, command: SessionCommand) -> Any:
            # As the seats room does it, here with the seat's token.
            assert player == "alice"
            return await referee.commands.submit(
                command.game_id,
                created.seat_tokens[command.seat],
                command.command_id,
                command.command,
                expected_version=command.expected_version,
                client_decision_ms=command.client_decision_ms,
            )

        referee.sessions.submit_held = submit_held
        legal = live.table.view(seat).legal_commands[0]
        for principal, refused in ((spectator(), "TOKEN_SCOPE"), (alice(), None)):
            session = referee.sessions.open(principal)
            messages = session.messages()
            try:
                await next_of(messages, GameMessage)
                await session.command(
                    SessionCommand(created.game_id, seat, str(uuid.uuid4()), legal)
                )
                outcome = await next_of(messages, Outcome)
                if refused is None:
                    assert outcome.refusal is None and outcome.submitted is not None
                else:
                    assert outcome.refusal is not None and outcome.refusal.reason == refused
            finally:
                await messages.aclose()

    run(scenario)


def spectator() -> Principal:
    return Principal(Player("alice", "bot", platform=True), spectator_only=True)


def test_a_game_over_before_the_session_is_not_replayed_unless_resumed() -> None:
    async def scenario(referee: Referee) -> None:
        over = await referee.create(GAME, 3, {"rounds": "1"})
        running = await referee.create(GAME, 3, {"rounds": "1"})
        await referee.abort(over.game_id, over.organiser_token, "done")
        hold(referee, "alice", over.game_id, 0)
        hold(referee, "alice", running.game_id, 0)
        messages = referee.sessions.open(alice()).messages()
        try:
            granted = await next_of(messages, Granted)
            assert granted.game_id == running.game_id
        finally:
            await messages.aclose()
        resumed = referee.sessions.open(alice(), [Resume(over.game_id, 0, 0)]).messages()
        try:
            seen = {(await next_of(resumed, Granted)).game_id for _ in range(2)}
            assert seen == {over.game_id, running.game_id}
        finally:
            await resumed.aclose()

    run(scenario)


class _SlowToReturn(MemoryEventStore):
    """A store whose creation returns late, after telling its listeners: what a busy writer
    thread does now and then."""

    def create_game(self, *args: Any, **kwargs: Any) -> None:
        super().create_game(*args, **kwargs)
        time.sleep(0.1)


def test_a_seat_held_at_creation_is_followed_on_the_game_the_referee_keeps() -> None:
    """The creation's holding reaches the session during the store's commit, before the
    creation keeps its live game: the session must follow that game, not a second copy
    loaded meanwhile (that one would never move)."""
    from referee.application import GameSettings
    from referee.application.tables.clocks import SeatPlan

    async def scenario(referee: Referee) -> None:
        await referee.players.create_account("alice", "bot")
        messages = referee.sessions.open(alice()).messages()
        try:
            settings = GameSettings(seats=(SeatPlan("creator"), SeatPlan("open")))
            created = await referee.create("sleeping-queens", 2, settings=settings, creator=alice())
            granted = await next_of(messages, Granted)
            assert granted.game_id == created.game_id
            await next_of(messages, GameMessage)
            live = referee.games[created.game_id]
            assert [sub.seat for sub in live.subscribers] == [0]
        finally:
            await messages.aclose()

    run(scenario, store=_SlowToReturn())
