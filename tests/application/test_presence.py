"""Presence (docs/lobby.md, "Presence"): a player is online while it has a player stream open,
on any replica; each replica holds a lease per player in the store, renewed while the
stream is open, given back when it closes, and running out by itself when the replica
stops. The lobby's tables say who is online."""

from __future__ import annotations

import asyncio

from referee.application import Referee
from referee.application.lobby.room import LobbyFilter
from referee.application.players.presence import KIND, Presence
from referee.application.tables.access import Player, Principal
from referee.application.tables.live import now_ms
from referee.store import DocumentWrite, EventStore, MemoryEventStore
from tests.application.seating_support import seats
from tests.application.support import run, until
from tests.store.pg import temporary_database


def ann() -> Principal:
    return Principal(Player("ann", "bot"))


async def online(referee: Referee, *names: str) -> dict[str, bool]:
    return await referee.presence.online(names)


def test_a_player_is_online_while_its_stream_is_open() -> None:
    async def scenario(referee: Referee) -> None:
        assert await online(referee, "ann", "bob") == {"ann": False, "bob": False}
        first = referee.sessions.open(ann())
        second = referee.sessions.open(ann())  # two streams of one player
        await until(lambda: bool(referee.store.documents(KIND, "ann/")))
        assert await online(referee, "ann", "bob") == {"ann": True, "bob": False}
        first.close()
        await asyncio.sleep(0.05)
        assert await online(referee, "ann") == {"ann": True}  # its other stream is open
        second.close()
        await until(lambda: not referee.store.documents(KIND, "ann/"))
        assert await online(referee, "ann") == {"ann": False}

    run(scenario)


def test_a_lease_that_ran_out_is_offline() -> None:
    """A replica killed with its players' streams open wrote no goodbye: its lease ends."""

    async def scenario(referee: Referee) -> None:
        referee.store.write_documents(
            [
                DocumentWrite(KIND, "ann/dead-replica", {"until_ms": now_ms() - 1}, 0),
                DocumentWrite(KIND, "bob/dead-replica", {"until_ms": now_ms() + 60_000}, 0),
            ]
        )
        assert await online(referee, "ann", "bob") == {"ann": False, "bob": True}

    run(scenario)


def test_the_lease_is_renewed_while_the_stream_stays_open() -> None:
    async def scenario(referee: Referee) -> None:
        presence = Presence(referee.repository, lease_ms=300)
        presence.arrived("ann")
        await until(lambda: bool(referee.store.documents(KIND, "ann/")))
        first = referee.store.documents(KIND, "ann/")[0]
        await asyncio.sleep(0.5)  # past the first lease: renewed meanwhile
        assert await presence.online(["ann"]) == {"ann": True}
        assert referee.store.documents(KIND, "ann/")[0].revision > first.revision
        presence.close()  # stops renewing, as a replica that stops
        await asyncio.sleep(0.4)
        assert await presence.online(["ann"]) == {"ann": False}

    run(scenario)


def test_the_lobby_shows_who_is_online() -> None:
    async def scenario(referee: Referee) -> None:
        for name in ("ann", "bob"):
            await referee.players.create_account(name, "bot")
        created = await referee.create(
            "vampire-queen",
            3,
            {"rounds": "1"},
            settings=seats("reserved:ann", "reserved:bob", "open", listed=True),
        )
        await referee.seating.claim_for(created.game_id, 0, "ann", "bot")
        await referee.seating.claim_for(created.game_id, 1, "bob", "bot")
        session = referee.sessions.open(ann())
        await until(lambda: bool(referee.store.documents(KIND, "ann/")))
        [table] = await referee.lobby.list(LobbyFilter(game_type="vampire-queen"))
        flags = {h.player: h.online for h in table.game.seat_holders if h.player}
        assert flags == {"ann": True, "bob": False}
        session.close()

    run(scenario)


def _two_replicas(store: EventStore, other: EventStore) -> None:
    async def scenario(referee: Referee) -> None:
        second = Referee(other)
        await second.recover()
        try:
            session = referee.sessions.open(ann())
            await until(lambda: bool(store.documents(KIND, "ann/")))
            assert await online(second, "ann") == {"ann": True}
            session.close()
            await until(lambda: not store.documents(KIND, "ann/"))
            assert await online(second, "ann") == {"ann": False}
        finally:
            second.close()

    run(scenario, store=store)


def test_a_player_online_on_one_replica_is_online_on_another() -> None:
    store = MemoryEventStore()
    _two_replicas(store, store)


def test_presence_across_two_replicas_on_postgresql() -> None:
    from referee.store.postgres import PostgresEventStore

    with temporary_database() as url:
        _two_replicas(PostgresEventStore(url), PostgresEventStore(url))
