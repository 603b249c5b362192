"""Pairing at the application layer: one waiting ticket per player, cancel, pairing by the
rule, the widening with the wait, and the two guarantees as a property over interleavings
on two replicas (no player in two pairings at once; a cancelled request is never paired)."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.application.lobby import pairing as pairing_module
from referee.application.lobby.host import LobbyLimits
from referee.application.lobby.pairing import PairingState, PairingTicket
from referee.application.lobby.terms import Terms
from referee.application.tables.errors import Kind
from tests.application.lobby_support import NAMES, World, lobby_on, run_lobby, snapshot
from tests.application.support import refused

DV = Terms("dracula-vs-van-helsing", 2)
KINDS = ("pairing", "pairing_player")


def test_two_waiting_players_are_paired_at_once() -> None:
    async def scenario(world: World) -> None:
        pairing = world.lobby.pairing
        first = await pairing.request("ann", DV)
        assert first.state is PairingState.WAITING and first.terms.players == 2
        assert await pairing.waiting_for("ann") == first
        second = await pairing.request("bob", DV)
        assert second.state is PairingState.PAIRED and second.game_id
        first_after, _ = await pairing.get(first.ticket_id)
        assert first_after.state is PairingState.PAIRED
        assert first_after.game_id == second.game_id
        assert {first_after.seat, second.seat} == {0, 1}
        made = world.host.made[second.game_id]
        assert made.seated == {first_after.seat: "ann", second.seat: "bob"}
        assert await pairing.waiting_for("ann") is None
        assert world.referee.store.documents("pairing_player") == []

    run_lobby(scenario)


def test_a_second_request_while_waiting_is_refused() -> None:
    async def scenario(world: World) -> None:
        ticket = await world.lobby.pairing.request("ann", DV)
        before = snapshot(world.referee.store, *KINDS)
        for terms in (DV, Terms("vampire-queen", 3)):
            error = await refused(world.lobby.pairing.request("ann", terms))
            assert (error.kind, error.reason) == (Kind.NOT_NOW, "ALREADY_PAIRING")
            assert error.metadata["ticket_id"] == ticket.ticket_id
        assert snapshot(world.referee.store, *KINDS) == before
        # Once that request is cancelled, the player may ask again.
        await world.lobby.pairing.cancel(ticket.ticket_id, "ann")
        again = await world.lobby.pairing.request("ann", DV)
        assert again.state is PairingState.WAITING

    run_lobby(scenario)


def test_bad_requests_and_cancels_are_refused() -> None:
    async def scenario(world: World) -> None:
        pairing = world.lobby.pairing
        ticket = await pairing.request("ann", DV)
        before = snapshot(world.referee.store, *KINDS)
        cases = [
            (pairing.request("bob", Terms("no-such-game", 2)), Kind.INVALID, "BAD_REQUEST"),
            (pairing.request("bob", Terms("vampire-queen", 2)), Kind.INVALID, "BAD_REQUEST"),
            (pairing.cancel("pt-nonesuch", "ann"), Kind.NOT_FOUND, "TICKET_NOT_FOUND"),
            (pairing.cancel(ticket.ticket_id, "bob"), Kind.FORBIDDEN, "NOT_YOUR_TICKET"),
        ]
        for call, kind, reason in cases:
            error = await refused(call)
            assert (error.kind, error.reason) == (kind, reason)
        assert snapshot(world.referee.store, *KINDS) == before

    run_lobby(scenario)


def test_a_cancelled_request_is_not_paired() -> None:
    async def scenario(world: World) -> None:
        pairing = world.lobby.pairing
        ticket = await pairing.request("ann", DV)
        cancelled = await pairing.cancel(ticket.ticket_id, "ann")
        assert cancelled.state is PairingState.CANCELLED
        assert await pairing.cancel(ticket.ticket_id, "ann") == cancelled  # idempotent
        bob = await pairing.request("bob", DV)
        assert bob.state is PairingState.WAITING
        assert world.host.made == {}

    run_lobby(scenario)


def test_cancel_after_pairing_answers_the_pairing() -> None:
    async def scenario(world: World) -> None:
        ann = await world.lobby.pairing.request("ann", DV)
        await world.lobby.pairing.request("bob", DV)
        after = await world.lobby.pairing.cancel(ann.ticket_id, "ann")
        assert after.state is PairingState.PAIRED and after.game_id

    run_lobby(scenario)


def test_different_terms_do_not_pair() -> None:
    async def scenario(world: World) -> None:
        await world.lobby.pairing.request("ann", DV)
        rated = await world.lobby.pairing.request("bob", Terms(DV.game_type, 2, rated=True))
        assert rated.state is PairingState.WAITING

    run_lobby(scenario)


def test_three_seats_pair_three_players() -> None:
    async def scenario(world: World) -> None:
        terms = Terms("vampire-queen", 3, {"rounds": "1"})
        assert (await world.lobby.pairing.request("ann", terms)).state is PairingState.WAITING
        assert (await world.lobby.pairing.request("bob", terms)).state is PairingState.WAITING
        third = await world.lobby.pairing.request("cy", terms)
        assert third.state is PairingState.PAIRED
        assert sorted(world.host.made[third.game_id].seated.values()) == ["ann", "bob", "cy"]

    run_lobby(scenario)


def test_far_ratings_pair_once_the_gap_has_widened(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = {"now": 1_000_000}
    monkeypatch.setattr(pairing_module, "now_ms", lambda: clock["now"])

    async def scenario(world: World) -> None:
        world.ratings.ordinals.update(ann=0.0, bob=10.0)
        ann = await world.lobby.pairing.request("ann", DV)
        bob = await world.lobby.pairing.request("bob", DV)
        assert bob.state is PairingState.WAITING and bob.rating == 10.0
        clock["now"] += 13_000  # the allowed gap is 3 + 0.5 * 13 = 9.5 < 10
        assert await world.lobby.pairing.run() == []
        clock["now"] += 1_000  # 10.0: both have waited 14 s
        [game_id] = await world.lobby.pairing.run()
        assert (await world.lobby.pairing.get(ann.ticket_id))[0].game_id == game_id

    run_lobby(scenario)


def test_a_request_that_waits_too_long_is_cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = {"now": 1_000_000}
    monkeypatch.setattr(pairing_module, "now_ms", lambda: clock["now"])

    async def scenario(world: World) -> None:
        ticket = await world.lobby.pairing.request("ann", DV)
        clock["now"] += 60_000
        await world.lobby.pairing.run()
        after, _ = await world.lobby.pairing.get(ticket.ticket_id)
        assert after.state is PairingState.CANCELLED and not after.game_id
        assert await world.lobby.pairing.waiting_for("ann") is None

    run_lobby(scenario, LobbyLimits(pairing_wait_ms=60_000, sweep_seconds=3600))


def test_games_at_once_limit_pairing() -> None:
    async def scenario(world: World) -> None:
        await world.lobby.pairing.request("ann", DV)
        await world.lobby.pairing.request("bob", DV)
        before = snapshot(world.referee.store, *KINDS)
        error = await refused(world.lobby.pairing.request("ann", DV))
        assert (error.kind, error.reason) == (Kind.LIMIT, "LIMIT")  # RESOURCE_EXHAUSTED
        assert error.metadata["limit"] == "games_at_once" and error.retry_after
        assert snapshot(world.referee.store, *KINDS) == before

    run_lobby(scenario, LobbyLimits(games_at_once=1, sweep_seconds=3600))


# --- the guarantees, over interleavings on two replicas ------------------------------------

operations = st.lists(
    st.tuples(
        st.sampled_from(["request", "cancel", "run"]),
        st.sampled_from(NAMES[:5]),
        st.integers(0, 1),  # the replica
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=25, deadline=None)
@given(st.lists(operations, min_size=1, max_size=3))
def test_no_player_in_two_pairings_and_no_cancelled_request_paired(
    rounds: list[list[tuple[str, str, int]]],
) -> None:
    """Each round runs its operations at once (two lobbies on one store: two replicas);
    after every round: a ticket whose cancel answered CANCELLED is not paired, every game
    has its own players once, and a player waits on one ticket at most."""

    async def scenario(world: World) -> None:
        replicas = [world, lobby_on(world.referee)]
        cancelled: set[str] = set()

        async def apply(what: str, player: str, replica: int) -> None:
            pairing = replicas[replica].lobby.pairing
            if what == "request":
                await pairing.request(player, DV)
            elif what == "cancel":
                waiting = await pairing.waiting_for(player)
                if waiting is not None:
                    after = await pairing.cancel(waiting.ticket_id, player)
                    if after.state is PairingState.CANCELLED:
                        cancelled.add(after.ticket_id)
            else:
                await pairing.run()

        for round_ in rounds:
            await asyncio.gather(*(apply(*op) for op in round_), return_exceptions=True)
            tickets = [
                PairingTicket.from_json(d.body) for d in world.referee.store.documents("pairing")
            ]
            for ticket in tickets:
                if ticket.ticket_id in cancelled:
                    assert ticket.state is PairingState.CANCELLED and not ticket.game_id
            by_game: dict[str, list[str]] = {}
            for ticket in tickets:
                if ticket.state is PairingState.PAIRED:
                    by_game.setdefault(ticket.game_id, []).append(ticket.player)
            for players in by_game.values():
                assert len(players) == 2 and len(set(players)) == 2
            waiting = [t.player for t in tickets if t.state is PairingState.WAITING]
            assert len(waiting) == len(set(waiting))
            # Every game a pairing made is named by its tickets: a lost race makes none.
            kept = {m.game.game_id for r in replicas for m in r.host.live()}
            assert kept == set(by_game)
        replicas[1].lobby.close()

    run_lobby(scenario)


def test_one_replica_at_a_time_runs_the_periodic_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = {"now": 1_000_000}
    monkeypatch.setattr(pairing_module, "now_ms", lambda: clock["now"])

    async def scenario(world: World) -> None:
        other = lobby_on(world.referee)
        assert await world.lobby.pairing.lead(3.0)
        assert not await other.lobby.pairing.lead(3.0)
        assert await world.lobby.pairing.lead(3.0)  # the holder renews it
        clock["now"] += 3_001  # lapsed: the other takes it
        assert await other.lobby.pairing.lead(3.0)
        assert not await world.lobby.pairing.lead(3.0)
        other.lobby.close()

    run_lobby(scenario)


def test_the_sweep_pairs_once_the_gap_has_widened() -> None:
    async def scenario(world: World) -> None:
        world.ratings.ordinals.update(ann=0.0, bob=4.0)  # 1 s of waiting widens 3 to 3.5
        ann = await world.lobby.pairing.request("ann", DV)
        await world.lobby.pairing.request("bob", DV)
        for _ in range(100):
            await asyncio.sleep(0.1)
            if (await world.lobby.pairing.get(ann.ticket_id))[0].state is PairingState.PAIRED:
                return
        raise AssertionError("the sweep did not pair them")

    run_lobby(scenario, LobbyLimits(sweep_seconds=0.2))


def test_pairing_requests_per_minute_are_limited() -> None:
    async def scenario(world: World) -> None:
        pairing = world.lobby.pairing
        for _ in range(3):
            ticket = await pairing.request("ann", DV)
            await pairing.cancel(ticket.ticket_id, "ann")
        before = snapshot(world.referee.store, *KINDS)
        error = await refused(pairing.request("ann", DV))
        assert (error.kind, error.reason) == (Kind.LIMIT, "LIMIT")  # RESOURCE_EXHAUSTED
        assert error.metadata["limit"] == "pairing_requests_per_minute"
        assert error.retry_after is not None and 0 < error.retry_after <= 60
        assert snapshot(world.referee.store, *KINDS) == before
        await pairing.request("bob", DV)  # others are not limited by ann's requests

    run_lobby(scenario, LobbyLimits(pairing_requests_per_minute=3, sweep_seconds=3600))
