"""CreateGame with a request id: a retry returns the same game and the same secrets, on the
same referee or another one on the same store, and two racing with the same id make one game;
the same id for another request is refused."""

from __future__ import annotations

import asyncio
import base64
import hmac
import uuid

from referee.application import Kind, Referee
from referee.application.tables.seats import CREATE_REQUEST
from referee.store import MemoryEventStore
from tests.application.support import refused
from tests.store.pg import temporary_database

GAME = "vampire-queen"


async def _scenario() -> None:
    store = MemoryEventStore()
    first, second = Referee(store), Referee(store)
    await first.recover()
    await second.recover()
    request_id = str(uuid.uuid4())
    created = await first.create(GAME, 3, {"rounds": "1"}, request_id=request_id)
    again = await first.create(GAME, 3, {"rounds": "1"}, request_id=request_id)
    elsewhere = await second.create(GAME, 3, {"rounds": "1"}, request_id=request_id)
    for retry in (again, elsewhere):
        assert retry.game_id == created.game_id
        assert retry.seat_tokens == created.seat_tokens
        assert retry.organiser_token == created.organiser_token
    assert len(store.list_games()) == 1
    # The tokens of a retry are the game's: they play.
    view = await second.view(created.game_id, seat_token=elsewhere.seat_tokens[0])
    assert view.view.viewer == 0
    # The store keeps the id's hash and no token.
    (document,) = store.documents(CREATE_REQUEST)
    assert request_id not in document.key and request_id not in str(document.body)
    assert not any(token in str(document.body) for token in created.seat_tokens)
    # Another request with the same id: refused, nothing created.
    error = await refused(first.create(GAME, 4, {"rounds": "1"}, request_id=request_id))
    assert (error.kind, error.reason, error.field_violations[0][0]) == (
        Kind.INVALID,
        "BAD_REQUEST",
        "request_id",
    )
    # A guessable id would make guessable tokens: refused.
    error = await refused(first.create(GAME, 3, request_id="1"))
    assert error.field_violations[0][0] == "request_id"
    # Two replicas racing with one new id: one game, both answered with it.
    racing = str(uuid.uuid4())
    one, other = await asyncio.gather(
        first.create(GAME, 3, request_id=racing), second.create(GAME, 3, request_id=racing)
    )
    assert one.game_id == other.game_id and one.seat_tokens == other.seat_tokens
    assert len(store.list_games()) == 2
    first.close()
    second._stop_listening()


def test_a_retried_create_returns_the_same_game_on_any_replica() -> None:
    asyncio.run(_scenario())


async def _derived_from_public_inputs() -> None:
    """An attacker who learns a request id (a log line, a proxy) and sees the game id (it is
    public) must not compute the game's secrets from them: they are keyed by a secret the
    referee drew and keeps in the store, which the request id alone does not give."""
    store = MemoryEventStore()
    referee = Referee(store)
    await referee.recover()
    request_id = str(uuid.uuid4())
    created = await referee.create(GAME, 3, request_id=request_id)

    def guessed(label: str, size: int) -> str:
        digest = hmac.new(request_id.encode(), f"{created.game_id}/{label}".encode(), "sha256")
        return base64.urlsafe_b64encode(digest.digest()[:size]).decode().rstrip("=")

    assert created.organiser_token != f"org-{guessed('organiser', 24)}"
    assert created.seat_tokens[0] != f"seat-{guessed('seat/0', 24)}"
    # The store keeps the key beside the id's hash, never the id: the key alone does not
    # make the tokens either, and a retry still gets them back.
    (document,) = store.documents(CREATE_REQUEST)
    assert request_id not in str(document.body)
    again = await referee.create(GAME, 3, request_id=request_id)
    assert (again.seat_tokens, again.organiser_token) == (
        created.seat_tokens,
        created.organiser_token,
    )
    referee.close()


def test_the_secrets_of_a_request_id_are_not_derived_from_public_inputs() -> None:
    asyncio.run(_derived_from_public_inputs())


def test_a_retried_create_on_another_postgresql_replica_gets_the_same_secrets() -> None:
    """The request's key lives in the store: a replica that did not make the game answers a
    retry with the same tokens, and they play there."""
    from referee.store.postgres import PostgresEventStore

    async def scenario(url: str) -> None:
        first, second = Referee(PostgresEventStore(url)), Referee(PostgresEventStore(url))
        await first.recover()
        await second.recover()
        try:
            request_id = str(uuid.uuid4())
            created = await first.create(GAME, 3, request_id=request_id)
            again = await second.create(GAME, 3, request_id=request_id)
            assert (again.game_id, again.seat_tokens, again.organiser_token) == (
                created.game_id,
                created.seat_tokens,
                created.organiser_token,
            )
            view = await second.view(created.game_id, seat_token=again.seat_tokens[2])
            assert view.view.viewer == 2
        finally:
            first.close()
            second.close()

    with temporary_database() as url:
        asyncio.run(scenario(url))
