"""Reservation announcements on the player stream (``sessions.Reserved``): a seat reserved for
a named player is announced to that player's sessions only, when it is made and, for those
still waiting, when a session opens; never with a token or a claim code; the claim of the
seat, and the end of a game that never filled, take the reservation away; the lobby's own
games (claimed for their players at once) announce nothing."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator

from referee.application import Referee
from referee.application.lobby.terms import Terms
from referee.application.players.seat_documents import Reserved
from referee.application.players.sessions import SessionMessage
from referee.application.tables.seats import RESERVATION
from tests.application.seating_support import account, assert_no_secret, seats
from tests.application.support import WAIT, run

SQ = "sleeping-queens"


async def reserved(
    messages: AsyncGenerator[SessionMessage, None], game_id: str, seen: list[Reserved]
) -> Reserved:
    """The next announcement of ``game_id``; every announcement on the way is kept in
    ``seen``."""
    async with asyncio.timeout(WAIT):
        async for message in messages:
            if isinstance(message, Reserved):
                seen.append(message)
                if message.game_id == game_id:
                    return message
    raise AssertionError("the session ended")


def reservations(referee: Referee) -> list[str]:
    return [d.key for d in referee.store.documents(RESERVATION)]


def test_a_reservation_reaches_its_player_only_and_names_no_secret() -> None:
    async def scenario(referee: Referee) -> None:
        ann, _ = await account(referee, "ann", "person")
        alice, _ = await account(referee, "alice")
        bob, _ = await account(referee, "bob")
        alices = referee.sessions.open(alice).messages()
        bobs = referee.sessions.open(bob).messages()
        seen_by_alice: list[Reserved] = []
        seen_by_bob: list[Reserved] = []
        try:
            modes = ("creator", "reserved:alice", "reserved:bob", "open")
            both = await referee.create(SQ, 4, settings=seats(*modes), creator=ann)
            # Bob's alone, then alice's again: alice's stream must skip bob's game.
            bobs_only = await referee.create(
                SQ, 2, settings=seats("creator", "reserved:bob"), creator=ann
            )
            again = await referee.create(
                SQ, 2, settings=seats("creator", "reserved:alice"), creator=ann
            )
            assert await reserved(alices, both.game_id, seen_by_alice) == Reserved(
                both.game_id, 1, SQ
            )
            assert await reserved(alices, again.game_id, seen_by_alice) == Reserved(
                again.game_id, 1, SQ
            )
            assert await reserved(bobs, both.game_id, seen_by_bob) == Reserved(both.game_id, 2, SQ)
            assert await reserved(bobs, bobs_only.game_id, seen_by_bob) == Reserved(
                bobs_only.game_id, 1, SQ
            )
            assert [(r.game_id, r.seat) for r in seen_by_alice] == [
                (both.game_id, 1),
                (again.game_id, 1),
            ]
            assert all(r.game_id != again.game_id for r in seen_by_bob)
            secrets = [
                token
                for created in (both, bobs_only, again)
                for token in (*created.seat_tokens, created.organiser_token)
                if token
            ] + [code for _, code in both.invitations]
            assert len(secrets) >= 5
            assert_no_secret(repr(seen_by_alice + seen_by_bob), secrets)
            bodies = [d.body for d in referee.store.documents(RESERVATION)]
            assert len(bodies) == 4
            assert_no_secret(repr(bodies), secrets)
        finally:
            await alices.aclose()
            await bobs.aclose()

    run(scenario)


def test_a_session_opened_later_is_told_the_reservations_still_waiting() -> None:
    """Reserved before the session opened: announced at its start, unless claimed since or
    in a game that ended unfilled (whose reservations the end took away)."""

    async def scenario(referee: Referee) -> None:
        ann, _ = await account(referee, "ann", "person")
        alice, _ = await account(referee, "alice")
        settings = seats("creator", "reserved:alice")
        waiting = await referee.create(SQ, 2, settings=settings, creator=ann)
        claimed = await referee.create(SQ, 2, settings=settings, creator=ann)
        aborted = await referee.create(SQ, 2, settings=settings, creator=ann)
        assert len(reservations(referee)) == 3
        await referee.seating.claim(claimed.game_id, alice)
        await referee.abort(aborted.game_id, aborted.organiser_token)
        for _ in range(int(WAIT / 0.01)):  # the end's hook runs in a task of its own
            if len(reservations(referee)) == 1:
                break
            await asyncio.sleep(0.01)
        assert reservations(referee) == [f"alice/{waiting.game_id}/1"]
        messages = referee.sessions.open(alice).messages()
        seen: list[Reserved] = []
        try:
            assert await reserved(messages, waiting.game_id, seen) == Reserved(
                waiting.game_id, 1, SQ
            )
            # Claimed now: the stream goes on to the seat itself, and announces nothing more.
            await referee.seating.claim(waiting.game_id, alice)
            assert reservations(referee) == []
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.3):
                    async for message in messages:
                        assert not isinstance(message, Reserved), message
            assert seen == [Reserved(waiting.game_id, 1, SQ)]
        finally:
            await messages.aclose()

    run(scenario)


def test_an_organisers_fill_of_a_reserved_seat_takes_its_reservation_away() -> None:
    """The organiser's path (``fill_seat``, FillWithBots'): any waiting seat, a reserved one
    too; its player is not told of a seat gone to someone else."""

    async def scenario(referee: Referee) -> None:
        ann, _ = await account(referee, "ann", "person")
        await account(referee, "alice")
        robot, _ = await account(referee, "robot")
        created = await referee.create(
            SQ, 3, settings=seats("creator", "reserved:alice", "open"), creator=ann
        )
        assert reservations(referee) == [f"alice/{created.game_id}/1"]
        await referee.seating.fill_seat(created.game_id, 1, robot.player)
        assert reservations(referee) == []

    run(scenario)


def test_the_lobbys_games_announce_nothing() -> None:
    """A challenge's game reserves both seats and claims them at once for the players: no
    reservation is written, so no program starts a second claim racing the lobby's."""

    async def scenario(referee: Referee) -> None:
        await account(referee, "ann", "person")
        await account(referee, "alice")
        challenge = await referee.lobby.challenges.create("ann", "alice", Terms(SQ, 2))
        await referee.lobby.challenges.answer(challenge.challenge_id, "alice", True)
        current, _ = await referee.lobby.challenges.get(challenge.challenge_id)
        assert current.game_id
        assert reservations(referee) == []

    run(scenario)


def test_a_reservation_made_on_another_replica_is_announced() -> None:
    """Two replicas on one PostgreSQL: the reservation's document notification crosses, and
    the claim on the first replica takes it away for both."""
    from tests.application.test_lobby_replicas import on_two_replicas

    async def scenario(first: Referee, second: Referee) -> None:
        alice = await first.players.authenticate((await first.players.create_account("al"))[1])
        messages = second.sessions.open(alice).messages()
        try:
            created = await first.create(SQ, 2, settings=seats("token", "reserved:al"))
            assert await reserved(messages, created.game_id, []) == Reserved(created.game_id, 1, SQ)
            await first.seating.claim(created.game_id, alice)
            assert reservations(second) == []
        finally:
            await messages.aclose()

    on_two_replicas(scenario)
