"""Challenges at the application layer: the state machine, who may answer, expiry, the
limit, and compare-and-set between replicas. Every refusal names its code and reason and
changes nothing."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.application import Referee
from referee.application.lobby.challenges import (
    REFUSED_IN,
    TRANSITIONS,
    Challenge,
    ChallengeState,
    Move,
    next_state,
)
from referee.application.lobby.host import LobbyLimits
from referee.application.lobby.terms import Terms
from referee.application.tables.errors import Kind, RefereeError
from referee.store import RevisionConflict, SqliteEventStore
from tests.application.lobby_support import World, lobby_on, run_lobby, snapshot
from tests.application.support import refused

DV = Terms("dracula-vs-van-helsing", 2)
VQ3 = Terms("vampire-queen", 3, {"rounds": "1"})


def sample(state: ChallengeState) -> Challenge:
    return Challenge("ch-1", "ann", "bob", DV, state, 0, 10**15)


def test_the_state_machine_is_its_table() -> None:
    """Only an open challenge moves, once; every other (state, move) is refused with the
    reason of its state, FAILED_PRECONDITION."""
    assert set(TRANSITIONS) == {(ChallengeState.OPEN, move) for move in Move}
    for state, move in itertools.product(ChallengeState, Move):
        if (state, move) in TRANSITIONS:
            assert next_state(sample(state), move) is TRANSITIONS[state, move]
            continue
        with pytest.raises(RefereeError) as caught:
            next_state(sample(state), move)
        assert caught.value.kind is Kind.NOT_NOW
        assert caught.value.reason == REFUSED_IN[state]


def test_an_open_challenge_past_its_expiry_is_expired() -> None:
    challenge = Challenge("ch-1", "ann", "bob", DV, ChallengeState.OPEN, 0, 1000)
    assert challenge.as_of(999).state is ChallengeState.OPEN
    assert challenge.as_of(1000).state is ChallengeState.EXPIRED
    assert Challenge.from_json(challenge.to_json()) == challenge


def test_accepting_creates_the_game_and_seats_both() -> None:
    async def scenario(world: World) -> None:
        challenge = await world.lobby.challenges.create("ann", "bob", DV)
        assert challenge.state is ChallengeState.OPEN
        assert [c.challenge_id for c in await world.lobby.challenges.open_for("bob")] == [
            challenge.challenge_id
        ]
        answered = await world.lobby.challenges.answer(challenge.challenge_id, "bob", True)
        assert answered.challenge.state is ChallengeState.ACCEPTED
        assert answered.challenge.accepted_by == "bob"
        assert answered.game_id == answered.challenge.game_id
        assert answered.seat == 1
        made = world.host.made[answered.game_id]
        assert made.seated == {0: "ann", 1: "bob"}
        assert answered.seat_token == made.tokens[1]
        view = await world.referee.view(answered.game_id, seat_token=answered.seat_token)
        assert view.view.viewer == 1
        assert await world.lobby.challenges.open_for("bob") == []

    run_lobby(scenario)


def test_declining_closes_it_without_a_game() -> None:
    async def scenario(world: World) -> None:
        challenge = await world.lobby.challenges.create("ann", "bob", DV)
        answered = await world.lobby.challenges.answer(challenge.challenge_id, "bob", False)
        assert answered.challenge.state is ChallengeState.DECLINED
        assert answered.game_id == "" and world.host.made == {}

    run_lobby(scenario)


def test_a_challenge_to_anyone_with_an_extra_seat() -> None:
    async def scenario(world: World) -> None:
        challenge = await world.lobby.challenges.create("ann", "", VQ3)
        assert challenge.challenge_id in [
            c.challenge_id for c in await world.lobby.challenges.open_for("cy")
        ]
        answered = await world.lobby.challenges.answer(challenge.challenge_id, "cy", True)
        assert answered.challenge.accepted_by == "cy"
        assert world.host.made[answered.game_id].players == ("ann", "cy")

    run_lobby(scenario)


@pytest.mark.parametrize(
    ("close", "reason"),
    [
        ("accept", "CHALLENGE_ANSWERED"),
        ("decline", "CHALLENGE_ANSWERED"),
        ("withdraw", "CHALLENGE_WITHDRAWN"),
        ("expire", "CHALLENGE_EXPIRED"),
    ],
)
def test_a_closed_challenge_refuses_every_answer(close: str, reason: str) -> None:
    async def scenario(world: World) -> None:
        challenges = world.lobby.challenges
        expiry = 30 if close == "expire" else 0
        challenge = await challenges.create("ann", "bob", DV, expires_in_ms=expiry)
        if close == "accept":
            await challenges.answer(challenge.challenge_id, "bob", True)
        elif close == "decline":
            await challenges.answer(challenge.challenge_id, "bob", False)
        elif close == "withdraw":
            await challenges.withdraw(challenge.challenge_id, "ann")
        else:
            await asyncio.sleep(0.05)
        store = world.referee.store
        before = snapshot(store, "challenge"), len(world.host.made)
        for call in (
            challenges.answer(challenge.challenge_id, "bob", True),
            challenges.answer(challenge.challenge_id, "bob", False),
            challenges.withdraw(challenge.challenge_id, "ann"),
        ):
            error = await refused(call)
            assert (error.kind, error.reason) == (Kind.NOT_NOW, reason)  # FAILED_PRECONDITION
            assert error.metadata["challenge_id"] == challenge.challenge_id
        assert (snapshot(store, "challenge"), len(world.host.made)) == before

    run_lobby(scenario)


def test_the_sweep_writes_expired_challenges() -> None:
    async def scenario(world: World) -> None:
        challenge = await world.lobby.challenges.create("ann", "bob", DV, expires_in_ms=10)
        await asyncio.sleep(0.03)
        assert await world.lobby.challenges.expire() == 1
        stored = world.referee.store.read_document("challenge", challenge.challenge_id)
        assert stored is not None and stored.body["state"] == "expired"

    run_lobby(scenario)


def test_who_may_answer_and_withdraw() -> None:
    async def scenario(world: World) -> None:
        challenges = world.lobby.challenges
        to_bob = await challenges.create("ann", "bob", DV)
        to_anyone = await challenges.create("ann", "", DV)
        before = snapshot(world.referee.store, "challenge")
        cases = [
            (challenges.answer(to_bob.challenge_id, "ann", True), "OWN_CHALLENGE"),
            (challenges.answer(to_anyone.challenge_id, "ann", True), "OWN_CHALLENGE"),
            (challenges.answer(to_bob.challenge_id, "cy", True), "NOT_CHALLENGED"),
            (challenges.answer(to_bob.challenge_id, "cy", False), "NOT_CHALLENGED"),
            (challenges.answer(to_anyone.challenge_id, "cy", False), "NOT_CHALLENGED"),
            (challenges.withdraw(to_bob.challenge_id, "bob"), "NOT_CHALLENGER"),
        ]
        for call, reason in cases:
            error = await refused(call)
            assert (error.kind, error.reason) == (Kind.FORBIDDEN, reason)  # PERMISSION_DENIED
        assert snapshot(world.referee.store, "challenge") == before
        assert world.host.made == {}

    run_lobby(scenario)


def test_bad_challenges_are_refused_and_nothing_is_written() -> None:
    async def scenario(world: World) -> None:
        challenges = world.lobby.challenges
        cases = [
            (challenges.create("ann", "nobody", DV), Kind.NOT_FOUND, "PLAYER_UNKNOWN"),
            (challenges.create("ann", "ann", DV), Kind.INVALID, "BAD_REQUEST"),
            (
                challenges.create("ann", "bob", Terms("vampire-queen", 2)),
                Kind.INVALID,
                "BAD_REQUEST",
            ),
            (challenges.create("ann", "bob", DV, expires_in_ms=10**9), Kind.INVALID, "BAD_REQUEST"),
            (challenges.answer("ch-nonesuch", "bob", True), Kind.NOT_FOUND, "CHALLENGE_NOT_FOUND"),
            (challenges.withdraw("", "bob"), Kind.NOT_FOUND, "CHALLENGE_NOT_FOUND"),
        ]
        for call, kind, reason in cases:
            error = await refused(call)
            assert (error.kind, error.reason) == (kind, reason)
        assert snapshot(world.referee.store, "challenge") == {}

    run_lobby(scenario)


def test_open_challenges_are_limited_with_a_retry_hint() -> None:
    async def scenario(world: World) -> None:
        for _ in range(3):
            await world.lobby.challenges.create("ann", "bob", DV, expires_in_ms=20_000)
        before = snapshot(world.referee.store, "challenge")
        error = await refused(world.lobby.challenges.create("ann", "cy", DV))
        assert (error.kind, error.reason) == (Kind.LIMIT, "LIMIT")  # RESOURCE_EXHAUSTED
        assert error.metadata["limit"] == "open_challenges"
        assert error.retry_after is not None and 0 < error.retry_after <= 20
        assert snapshot(world.referee.store, "challenge") == before
        # Others are not limited by ann's challenges.
        await world.lobby.challenges.create("bob", "ann", DV)

    run_lobby(scenario, LobbyLimits(open_challenges=3, sweep_seconds=3600))


def test_games_at_once_limit_accepting() -> None:
    async def scenario(world: World) -> None:
        challenges = world.lobby.challenges
        first = await challenges.create("ann", "bob", DV)
        await challenges.answer(first.challenge_id, "bob", True)
        second = await challenges.create("cy", "bob", DV)
        before = snapshot(world.referee.store, "challenge"), len(world.host.made)
        error = await refused(challenges.answer(second.challenge_id, "bob", True))
        assert (error.kind, error.reason) == (Kind.LIMIT, "LIMIT")
        assert error.metadata["limit"] == "games_at_once" and error.retry_after
        assert (snapshot(world.referee.store, "challenge"), len(world.host.made)) == before

    run_lobby(scenario, LobbyLimits(games_at_once=1, sweep_seconds=3600))


def test_two_replicas_cannot_both_accept() -> None:
    """Two lobbies on one store (two replicas) accept one challenge to anyone at once: one
    wins, the other is refused CHALLENGE_ANSWERED, and it made no game (the challenge is
    written in the game's creation transaction, at the revision each had read)."""

    async def scenario(world: World) -> None:
        other = lobby_on(world.referee)
        conflicts = []
        for host in (world.host, other.host):
            opened = host.open_game

            async def counted(*args: Any, opened: Any = opened) -> Any:
                try:
                    return await opened(*args)
                except RevisionConflict as conflict:
                    conflicts.append(conflict)
                    raise

            host.open_game = counted  # type: ignore[method-assign,assignment]
        for round_ in range(5):
            games_before = len(world.referee.store.list_games())
            challenge = await world.lobby.challenges.create("ann", "", DV)
            outcomes = await asyncio.gather(
                world.lobby.challenges.answer(challenge.challenge_id, "bob", True),
                other.lobby.challenges.answer(challenge.challenge_id, "cy", True),
                return_exceptions=True,
            )
            won = [o for o in outcomes if not isinstance(o, BaseException)]
            lost = [o for o in outcomes if isinstance(o, RefereeError)]
            assert len(won) == 1 and len(lost) == 1, (round_, outcomes)
            assert lost[0].reason == "CHALLENGE_ANSWERED"
            assert len(world.referee.store.list_games()) == games_before + 1
            assert [m.game.game_id for m in world.host.live() + other.host.live()] == [
                won[0].game_id
            ]
            for host in (world.host, other.host):
                host.made.clear()
        assert conflicts  # the store decided at least once (both had read it open)
        other.lobby.close()

    run_lobby(scenario)


def test_two_replicas_on_one_sqlite_file_cannot_both_accept(tmp_path: Path) -> None:
    """As above, with two stores on one SQLite file: the database decides."""

    async def scenario() -> None:
        path = tmp_path / "lobby.sqlite"
        referees = [Referee(SqliteEventStore(str(path))) for _ in range(2)]
        for referee in referees:
            await referee.recover()
        worlds = [lobby_on(referee) for referee in referees]
        try:
            for _ in range(3):
                challenge = await worlds[0].lobby.challenges.create("ann", "", DV)
                outcomes = await asyncio.gather(
                    worlds[0].lobby.challenges.answer(challenge.challenge_id, "bob", True),
                    worlds[1].lobby.challenges.answer(challenge.challenge_id, "cy", True),
                    return_exceptions=True,
                )
                lost = [o for o in outcomes if isinstance(o, RefereeError)]
                assert len(lost) == 1 and lost[0].reason == "CHALLENGE_ANSWERED", outcomes
                kept = worlds[0].host.live() + worlds[1].host.live()
                assert len(kept) == 1
                for world in worlds:
                    world.host.made.clear()
        finally:
            for world in worlds:
                world.lobby.close()
                world.referee.close()

    asyncio.run(scenario())


moves = st.lists(
    st.tuples(
        st.sampled_from(["accept", "decline", "withdraw"]),
        st.sampled_from(["ann", "bob", "cy"]),
        st.integers(0, 1),  # the replica
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=25, deadline=None)
@given(moves, st.booleans())
def test_concurrent_moves_on_two_replicas_close_a_challenge_once(
    tried: list[tuple[str, str, int]], to_anyone: bool
) -> None:
    """Moves by anyone on either replica at once: at most one succeeds (the challenge
    moves once), an accepted challenge has exactly one game, and every other move is
    refused with the reason of who made it or of the state it found."""

    async def scenario(world: World) -> None:
        replicas = [world, lobby_on(world.referee)]
        challenge = await world.lobby.challenges.create("ann", "" if to_anyone else "bob", DV)

        async def move(what: str, player: str, replica: int) -> object:
            challenges = replicas[replica].lobby.challenges
            if what == "withdraw":
                return await challenges.withdraw(challenge.challenge_id, player)
            return await challenges.answer(challenge.challenge_id, player, what == "accept")

        outcomes = await asyncio.gather(*(move(*m) for m in tried), return_exceptions=True)
        done = [o for o in outcomes if not isinstance(o, BaseException)]
        refusals = [o for o in outcomes if isinstance(o, BaseException)]
        assert len(done) <= 1
        assert all(isinstance(r, RefereeError) for r in refusals), refusals
        allowed = {"OWN_CHALLENGE", "NOT_CHALLENGED", "NOT_CHALLENGER", *REFUSED_IN.values()}
        assert {r.reason for r in refusals if isinstance(r, RefereeError)} <= allowed
        after, _ = await world.lobby.challenges.get(challenge.challenge_id)
        games = world.host.live() + replicas[1].host.live()
        if after.state is ChallengeState.ACCEPTED:
            assert [m.game.game_id for m in games] == [after.game_id]
        else:
            assert games == []
        assert (after.state is ChallengeState.OPEN) == (not done)
        replicas[1].lobby.close()

    run_lobby(scenario)
