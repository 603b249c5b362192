"""The lobby's games exist only with their players seated: an accepted challenge
and a paired ticket are written in the game's creation transaction with the players' seat
claims, so a player told of its game (its stream's accepted challenge or paired ticket) asks
for its view at once and is never NOT_SEATED, on the replica that made the game or another.

Deterministic, not timed: the seats' room's own claim (``Seating.claim_for``, the path the
lobby claimed the seats by, after the creation) is held shut until the test has read the
view, so a lobby that still claimed after creating fails every run; and a document listener
reads the seat claims at the very commit that marks the challenge accepted or the ticket
paired (listeners run after the commit, in its thread).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from referee.application import Referee
from referee.application.lobby.challenges import Challenge, ChallengeState
from referee.application.lobby.pairing import PairingState, PairingTicket
from referee.application.lobby.terms import Terms
from referee.application.players.sessions import Notice
from referee.application.tables.access import Player, PlayerSeat, Principal
from referee.store import EventStore
from tests.application.test_lobby_replicas import on_two_replicas
from tests.application.test_lobby_seats import run

DV = Terms("dracula-vs-van-helsing", 2)
#: How long a step may take before the test gives up (a hang, not a speed bound).
WAIT = 20.0


def principal(name: str) -> Principal:
    return Principal(Player(name, "bot"))


def seat_of(name: str) -> PlayerSeat:
    return PlayerSeat(principal(name), None)


@contextmanager
def claims_held_shut(referee: Referee) -> Iterator[asyncio.Event]:
    """Hold every ``Seating.claim_for`` of ``referee`` until the returned event is set: a
    lobby that claimed its players' seats after creating the game would wait here, with
    the game named and its seats unheld."""
    opened = asyncio.Event()
    claim_for = referee.seating.claim_for

    async def held(*args: Any, **kwargs: Any) -> Any:
        await opened.wait()
        return await claim_for(*args, **kwargs)

    referee.seating.claim_for = held  # type: ignore[method-assign]
    try:
        yield opened
    finally:
        opened.set()
        referee.seating.claim_for = claim_for  # type: ignore[method-assign]


def claims_at_commit(store: EventStore) -> dict[str, list[tuple[int, str]]]:
    """``{game_id: [(seat, player), ...]}`` as the store holds them at the commit that names
    the game in an accepted challenge or a paired ticket."""
    seen: dict[str, list[tuple[int, str]]] = {}

    def listener(kind: str, key: str, revision: int) -> None:
        if kind not in ("challenge", "pairing") or not revision:
            return
        document = store.read_document(kind, key)
        game_id = str(document.body.get("game_id", "")) if document is not None else ""
        if game_id and game_id not in seen:
            claims = store.seat_claims(game_id)
            seen[game_id] = sorted((seat, claim.player) for seat, claim in claims.items())

    store.add_document_listener(listener)
    return seen


async def told(messages: AsyncGenerator[Any, None], named: Callable[[Any], bool]) -> Any:
    """The first lobby notice on a player stream whose item ``named`` picks."""
    async with asyncio.timeout(WAIT):
        async for message in messages:
            if isinstance(message, Notice) and named(message.item):
                return message.item
    raise AssertionError("the player stream ended")


def accepted(item: Any) -> bool:
    return isinstance(item, Challenge) and item.state is ChallengeState.ACCEPTED


def paired(item: Any) -> bool:
    return isinstance(item, PairingTicket) and item.state is PairingState.PAIRED


async def assert_seated(referee: Referee, game_id: str, *players: str) -> None:
    """Each player's view of the game, by its credential: no NOT_SEATED."""
    for player in players:
        seen = await referee.view(game_id, seat_token=seat_of(player))
        assert seen.view.viewer in (0, 1), (player, seen.view.viewer)


async def told_seated(
    maker: Referee, teller: Referee, first: Any, start: Callable[[], Awaitable[Any]]
) -> tuple[Any, Any]:
    """Ann's stream on ``teller`` shows ``first`` (it follows her inbox); ``start()`` (on
    ``maker``) makes the game, its claims held shut after the creation; as soon as her
    stream tells of the game (an accepted challenge or a paired ticket) both players' views
    are read on ``teller``. The notice and what ``start`` returned."""
    messages = teller.sessions.open(principal("ann")).messages()
    try:
        await told(messages, lambda item: item == first)
        with claims_held_shut(maker) as opened:
            started = asyncio.ensure_future(start())
            heard = await told(messages, lambda item: accepted(item) or paired(item))
            await assert_seated(teller, heard.game_id, "ann", "bob")
            opened.set()
            return heard, await started
    finally:
        await messages.aclose()


def test_the_accepted_challenge_is_told_with_both_seats_held() -> None:
    async def scenario(referee: Referee) -> None:
        at_commit = claims_at_commit(referee.store)
        challenge = await referee.lobby.challenges.create("ann", "bob", DV)
        heard, answered = await told_seated(
            referee,
            referee,
            challenge,
            lambda: referee.lobby.challenges.answer(challenge.challenge_id, "bob", True),
        )
        assert answered.game_id == heard.game_id
        assert at_commit[heard.game_id] == [(0, "ann"), (1, "bob")]
        mine = await referee.view(heard.game_id, seat_token=answered.seat_token)
        assert mine.view.viewer == 1  # the accepter's seat token still comes with the answer

    run(scenario)


def test_the_paired_ticket_is_told_with_every_seat_held() -> None:
    async def scenario(referee: Referee) -> None:
        at_commit = claims_at_commit(referee.store)
        waiting = await referee.lobby.pairing.request("ann", DV)
        heard, bob = await told_seated(
            referee, referee, waiting, lambda: referee.lobby.pairing.request("bob", DV)
        )
        assert bob.state is PairingState.PAIRED and bob.game_id == heard.game_id
        assert sorted(p for _, p in at_commit[heard.game_id]) == ["ann", "bob"]

    run(scenario)


def test_another_replica_reads_the_view_as_soon_as_it_tells_of_the_game() -> None:
    """PostgreSQL, two replicas: the game is made on the first, its players are told on the
    second, which loads it from the store with its claims and shows each player its view."""

    async def scenario(first: Referee, second: Referee) -> None:
        challenge = await first.lobby.challenges.create("ann", "bob", DV)
        heard, _ = await told_seated(
            first,
            second,
            challenge,
            lambda: first.lobby.challenges.answer(challenge.challenge_id, "bob", True),
        )
        assert accepted(heard)
        waiting = await first.lobby.pairing.request("ann", DV)
        heard, _ = await told_seated(
            first, second, waiting, lambda: first.lobby.pairing.request("bob", DV)
        )
        assert paired(heard)

    on_two_replicas(scenario)
