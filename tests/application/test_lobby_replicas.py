"""The lobby on two replicas sharing PostgreSQL: an accept race decided by the database, a
pairing made of requests that arrived at different replicas, and a lobby watch on one
replica that hears the claims made on the other (the store's document notifications)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from referee.application import GameSettings, Referee, SeatPlan
from referee.application.lobby.pairing import PairingState
from referee.application.lobby.room import LobbyChange
from referee.application.lobby.terms import Terms
from referee.application.tables.access import Player, Principal
from referee.application.tables.errors import RefereeError
from tests.store.pg import temporary_database

DV = Terms("dracula-vs-van-helsing", 2)


def on_two_replicas(scenario: Callable[[Referee, Referee], Awaitable[None]]) -> None:
    from referee.store.postgres import PostgresEventStore

    with temporary_database() as url:

        async def main() -> None:
            first, second = Referee(PostgresEventStore(url)), Referee(PostgresEventStore(url))
            for referee in (first, second):
                await referee.recover()
            for name in ("ann", "bob", "cy", "dee"):
                await first.players.create_account(name, "bot")
            try:
                await scenario(first, second)
            finally:
                first.close()
                second.close()

        asyncio.run(main())


def test_two_replicas_cannot_both_accept_one_challenge() -> None:
    async def scenario(first: Referee, second: Referee) -> None:
        for _ in range(3):
            challenge = await first.lobby.challenges.create("ann", "", DV)
            outcomes = await asyncio.gather(
                first.lobby.challenges.answer(challenge.challenge_id, "bob", True),
                second.lobby.challenges.answer(challenge.challenge_id, "cy", True),
                return_exceptions=True,
            )
            [won] = [o for o in outcomes if not isinstance(o, BaseException)]
            [lost] = [o for o in outcomes if isinstance(o, BaseException)]
            assert isinstance(lost, RefereeError) and lost.reason == "CHALLENGE_ANSWERED"
            summary = await second.summary(won.game_id)
            assert summary.started
            assert [h.player for h in summary.seat_holders] == ["ann", won.challenge.accepted_by]

    on_two_replicas(scenario)


def test_requests_at_two_replicas_are_paired_once() -> None:
    async def scenario(first: Referee, second: Referee) -> None:
        ann = await first.lobby.pairing.request("ann", DV)
        bob = await second.lobby.pairing.request("bob", DV)
        assert bob.state is PairingState.PAIRED
        seen_first, _ = await first.lobby.pairing.get(ann.ticket_id)
        assert seen_first.game_id == bob.game_id
        summary = await first.summary(bob.game_id)
        assert sorted(h.player for h in summary.seat_holders) == ["ann", "bob"]

    on_two_replicas(scenario)


def test_a_watch_hears_the_other_replicas_claims() -> None:
    async def scenario(first: Referee, second: Referee) -> None:
        stream = first.lobby.watch()
        assert await asyncio.wait_for(anext(stream), 10) == LobbyChange(caught_up=True)
        settings = GameSettings(card_commitments=True, seats=(SeatPlan("open"),) * 2, listed=True)
        created = await second.create("dracula-vs-van-helsing", 2, settings=settings)
        change = await asyncio.wait_for(anext(stream), 10)
        assert change.table is not None and change.table.game.game_id == created.game_id
        await second.seating.claim(created.game_id, Principal(Player("ann", "bot")))
        change = await asyncio.wait_for(anext(stream), 10)
        assert change.table is not None and change.table.open_seats == (1,)
        await second.seating.claim(created.game_id, Principal(Player("bob", "bot")))
        change = await asyncio.wait_for(anext(stream), 10)
        assert change == LobbyChange(removed_game_id=created.game_id)
        await stream.aclose()

    on_two_replicas(scenario)
