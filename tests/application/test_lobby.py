"""The lobby list, its stream of changes and a player's inbox, at the application layer.

The ``lobby`` documents are the seats' room's to write; here the tests write them as it does
(a listed game with open seats), so the lobby is tested on its own."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncGenerator
from typing import Any, TypeVar

import pytest

from referee.application import GameSettings, SeatPlan
from referee.application.lobby.challenges import Challenge, ChallengeState
from referee.application.lobby.pairing import PairingState, PairingTicket
from referee.application.lobby.room import ClockFilter, LobbyChange, LobbyFilter
from referee.application.lobby.terms import Terms
from referee.application.tables.clocks import Clock
from referee.application.tables.errors import RefereeError, stopping
from referee.store import DocumentWrite
from tests.application.lobby_support import World, run_lobby

T = TypeVar("T")
DV = Terms("dracula-vs-van-helsing", 2)


async def listed_game(
    world: World, game_type: str = "dracula-vs-van-helsing", players: int = 2, **body: Any
) -> tuple[str, tuple[str, ...]]:
    """A listed game with open seats, its ``lobby`` document (written by the seats' room)
    overwritten with ``body``; its id and secrets (tokens and claim codes)."""
    clock = body.pop("clock", Clock())
    settings = GameSettings(
        clock=clock,
        card_commitments=True,
        seats=(SeatPlan("open"),) * players,
        listed=True,
        rated=bool(body.get("rated", False)),
    )
    created = await world.referee.create(game_type, players, settings=settings)
    written = world.referee.store.read_document("lobby", created.game_id)
    assert written is not None
    document = {
        "game_type": game_type,
        "players": players,
        "options": dict(created.summary.options),
        "clock": {
            "decision_ms": clock.decision_ms,
            "bank_ms": clock.bank_ms,
            "forfeit_after_timeouts": clock.forfeit_after_timeouts,
        },
        "rated": False,
        "open_seats": list(range(players)),
        "created_ms": created.summary.created_unix_ms,
        "join_deadline_ms": created.summary.created_unix_ms + 600_000,
        **body,
    }
    world.referee.store.write_documents(
        [DocumentWrite("lobby", created.game_id, document, written.revision)]
    )
    codes = tuple(code for _, code in created.invitations)
    return created.game_id, (*(t for t in created.seat_tokens if t), *codes)


async def next_of(stream: AsyncGenerator[T, None]) -> T:
    return await asyncio.wait_for(anext(stream), 5)


async def drain(stream: AsyncGenerator[T, None], quiet: float = 0.1) -> list[T]:
    """What ``stream`` sends until it is quiet for ``quiet`` seconds (then it is closed)."""
    got: list[T] = []
    try:
        while True:
            got.append(await asyncio.wait_for(anext(stream), quiet))
    except TimeoutError:
        pass
    await stream.aclose()
    return got


def test_the_list_filters_and_shows_newest_first() -> None:
    async def scenario(world: World) -> None:
        plain, _ = await listed_game(world)
        clocked, _ = await listed_game(world, clock=Clock(500))
        rated, _ = await listed_game(world, "vampire-queen", 3, rated=True)
        full, _ = await listed_game(world, open_seats=[])
        lobby = world.lobby

        async def ids(which: LobbyFilter) -> set[str]:
            return {t.game.game_id for t in await lobby.list(which)}

        everything = await lobby.list()
        assert {t.game.game_id for t in everything} == {plain, clocked, rated}
        assert full not in {t.game.game_id for t in everything}
        created = [t.created_ms for t in everything]
        assert created == sorted(created, reverse=True)
        assert await ids(LobbyFilter(game_type="vampire-queen")) == {rated}
        assert await ids(LobbyFilter(players=2)) == {plain, clocked}
        assert await ids(LobbyFilter(clock=ClockFilter.CLOCKED)) == {clocked}
        assert await ids(LobbyFilter(clock=ClockFilter.UNCLOCKED)) == {plain, rated}
        assert await ids(LobbyFilter(min_decision_ms=600)) == set()
        assert await ids(LobbyFilter(max_decision_ms=500)) == {clocked}
        assert await ids(LobbyFilter(rated=True)) == {rated}
        assert await ids(LobbyFilter(rated=False)) == {plain, clocked}
        [table] = [t for t in everything if t.game.game_id == rated]
        assert table.open_seats == (0, 1, 2)

    run_lobby(scenario)


def test_a_game_without_a_lobby_document_is_never_listed() -> None:
    async def scenario(world: World) -> None:
        await world.referee.create("dracula-vs-van-helsing", 2)
        assert await world.lobby.list() == []

    run_lobby(scenario)


def test_the_watch_sends_the_list_then_changes() -> None:
    async def scenario(world: World) -> None:
        first, _ = await listed_game(world)
        stream = world.lobby.watch(LobbyFilter(game_type="dracula-vs-van-helsing"))
        opened = await next_of(stream)
        assert opened.table is not None and opened.table.game.game_id == first
        assert await next_of(stream) == LobbyChange(caught_up=True)
        # A new table, one of another type (filtered out), a seat claimed, then one gone.
        second, _ = await listed_game(world)
        await listed_game(world, "vampire-queen", 3)
        change = await next_of(stream)
        assert change.table is not None and change.table.game.game_id == second
        store = world.referee.store
        document = store.read_document("lobby", first)
        assert document is not None
        body = {**document.body, "open_seats": [1]}
        store.write_documents([DocumentWrite("lobby", first, body, document.revision)])
        change = await next_of(stream)
        assert change.table is not None and change.table.open_seats == (1,)
        store.write_documents([DocumentWrite("lobby", first, None, document.revision + 1)])
        assert await next_of(stream) == LobbyChange(removed_game_id=first)
        await stream.aclose()
        assert world.lobby._subscriptions == set()

    run_lobby(scenario)


def test_nothing_listed_or_streamed_carries_a_secret() -> None:
    """Over the list, the watch and the inbox: no seat token, organiser token or seed."""

    async def scenario(world: World) -> None:
        secrets_: list[str] = []
        for _ in range(2):
            game_id, tokens = await listed_game(world)
            secrets_.extend(tokens)
            secrets_.append(world.referee.store.get_game(game_id).organiser_token_hash)
            secrets_.append(world.referee.games[game_id].record.seed.hex())
        challenge = await world.lobby.challenges.create("ann", "bob", DV)
        answered = await world.lobby.challenges.answer(challenge.challenge_id, "bob", True)
        secrets_.append(answered.seat_token)
        secrets_.extend(world.host.made[answered.game_id].tokens)
        await world.lobby.pairing.request("cy", DV)
        seen: list[Any] = list(await world.lobby.list())
        watch = world.lobby.watch()
        while (change := await next_of(watch)) != LobbyChange(caught_up=True):
            seen.append(change)
        await watch.aclose()
        for player in ("ann", "bob", "cy"):
            seen.extend(await drain(world.lobby.inbox(player)))
        assert seen
        text = "".join(repr(dataclasses.asdict(value)) for value in seen)
        for secret in secrets_:
            assert secret not in text

    run_lobby(scenario)


def test_the_inbox_brings_what_concerns_the_player() -> None:
    async def scenario(world: World) -> None:
        early = await world.lobby.challenges.create("ann", "bob", DV)
        inbox = world.lobby.inbox("bob")
        first = await next_of(inbox)
        assert isinstance(first, Challenge) and first.challenge_id == early.challenge_id
        await world.lobby.challenges.create("ann", "cy", DV)  # not bob's: not delivered
        anyone = await world.lobby.challenges.create("cy", "", DV)
        got = await next_of(inbox)
        assert isinstance(got, Challenge) and got.challenge_id == anyone.challenge_id
        await world.lobby.challenges.answer(anyone.challenge_id, "dee", True)
        got = await next_of(inbox)  # taken by another: bob hears it is gone
        assert isinstance(got, Challenge) and got.challenge_id == anyone.challenge_id
        assert got.state is ChallengeState.ACCEPTED and got.accepted_by == "dee"
        await world.lobby.challenges.withdraw(early.challenge_id, "ann")
        got = await next_of(inbox)
        assert isinstance(got, Challenge) and got.state is ChallengeState.WITHDRAWN
        ticket = await world.lobby.pairing.request("bob", DV)
        got = await next_of(inbox)
        assert isinstance(got, PairingTicket) and got.ticket_id == ticket.ticket_id
        await world.lobby.pairing.request("dee", DV)  # pairs bob
        got = await next_of(inbox)
        assert isinstance(got, PairingTicket) and got.state is PairingState.PAIRED
        await inbox.aclose()

    run_lobby(scenario)


def test_a_challenge_made_as_the_inbox_opens_comes_once() -> None:
    """A challenge written after the inbox subscribed but before it read the open ones is in
    both: it is delivered once, and the next item is the next change."""

    async def scenario(world: World) -> None:
        challenges = world.lobby.challenges
        read_open = challenges.open_for
        made: list[Challenge] = []

        async def made_while_reading(player: str) -> list[Challenge]:
            made.append(await challenges.create("ann", "bob", DV))
            return await read_open(player)

        challenges.open_for = made_while_reading  # type: ignore[method-assign]
        inbox = world.lobby.inbox("bob")
        first = await next_of(inbox)
        assert first == made[0]
        later = await challenges.create("cy", "bob", DV)
        got = await next_of(inbox)
        assert isinstance(got, Challenge) and got.challenge_id == later.challenge_id
        await inbox.aclose()

    run_lobby(scenario)


def test_the_inbox_starts_with_the_waiting_ticket() -> None:
    async def scenario(world: World) -> None:
        ticket = await world.lobby.pairing.request("bob", DV)
        inbox = world.lobby.inbox("bob")
        assert await next_of(inbox) == ticket
        await inbox.aclose()

    run_lobby(scenario)


def test_a_shutdown_ends_every_watch_and_inbox_with_its_error() -> None:
    async def scenario(world: World) -> None:
        error = stopping("the server is shutting down")
        for lobby, close in [
            (world.lobby, world.lobby.close_watches),
            (world.referee.lobby, world.referee.close_streams),  # the facade's own
        ]:
            watch = lobby.watch()
            assert await next_of(watch) == LobbyChange(caught_up=True)
            inbox = lobby.inbox("ann")
            waiting = asyncio.ensure_future(anext(inbox))
            await asyncio.sleep(0.05)
            close(error)
            with pytest.raises(RefereeError) as caught:
                await next_of(watch)
            assert caught.value is error
            with pytest.raises(RefereeError):
                await asyncio.wait_for(waiting, 5)
            assert lobby._subscriptions == set()

    run_lobby(scenario)
