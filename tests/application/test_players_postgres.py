"""Accounts and ratings on PostgreSQL, shared by two replicas (two referees, each with its
own store connection to one database): an account made on one signs in on the other, a
name is taken for both, a game's end seen by both rates it once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from referee import cli
from referee.application import Referee
from referee.application.players.ratings import Placed
from referee.store import open_store
from tests.application.support import refused
from tests.store.pg import postgres_url, temporary_database

GAME = "vampire-queen"


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    with temporary_database() as url:
        yield postgres_url(url)


def test_two_replicas_share_accounts_and_rate_a_game_once(database: str) -> None:
    async def scenario() -> None:
        first, second = Referee(open_store(database)), Referee(open_store(database))
        try:
            player, token = await first.players.create_account("ada", "bot")
            assert (await second.players.authenticate(token)).player == player
            assert await second.players.get("ada") == player
            error = await refused(second.players.create_account("ada"))
            assert error.reason == "NAME_TAKEN"
            placed = [Placed("ada", 1), Placed("bea", 2)]
            done = await asyncio.gather(
                first.players.ratings.record_result("g1", GAME, placed),
                second.players.ratings.record_result("g1", GAME, placed),
            )
            assert sorted(done) == [False, True]
            assert (await second.players.ratings.get("ada", GAME)).games == 1
            board = await first.players.ratings.leaderboard(GAME)
            assert [r.player for r in board] == ["ada", "bea"]
        finally:
            first.close()
            second.close()

    asyncio.run(scenario())


def test_the_operator_creates_an_account_on_postgresql(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["account", "create", "cy", "--store", database]) == 0
    token = capsys.readouterr().out.strip()

    async def signs_in() -> str:
        referee = Referee(open_store(database))
        try:
            return (await referee.players.authenticate(token)).player.name
        finally:
            referee.close()

    assert asyncio.run(signs_in()) == "cy"
    assert cli.main(["account", "list", "--store", database]) == 0
    assert "cy\tperson" in capsys.readouterr().out
