"""Accounts and account tokens: made by the operator or by Register when
the server allows it, shown once, kept hashed, checked in constant time; every refusal with its
kind and reason, and nothing written by a refused call."""

from __future__ import annotations

import hashlib
import json

import pytest
from structlog.testing import capture_logs

from referee.application import Kind, Player, Principal, Referee
from referee.application.players.accounts import (
    ACCOUNT,
    ACCOUNT_NAME,
    ACCOUNT_TOKEN,
    PlayerSettings,
)
from referee.store import EventStore, MemoryEventStore
from tests.application.support import refused, run


def _documents(store: EventStore) -> str:
    """Every account document, as one text (to look for what must not be there)."""
    found = [d for kind in (ACCOUNT, ACCOUNT_TOKEN, ACCOUNT_NAME) for d in store.documents(kind)]
    return json.dumps([(d.kind, d.key, d.body) for d in found])


def test_an_account_token_is_shown_once_kept_hashed_and_signs_the_player_in() -> None:
    store = MemoryEventStore()

    async def scenario(referee: Referee) -> None:
        player, token = await referee.players.create_account("ada", "bot")
        assert player == Player("ada", "bot", player.created_ms)
        assert player.created_ms > 0
        assert token.startswith("acct-") and len(token) > 40
        kept = _documents(store)
        assert token not in kept
        assert hashlib.sha256(token.encode()).hexdigest() in kept
        assert await referee.players.authenticate(token) == Principal(player)
        assert await referee.players.get("ada") == player
        assert await referee.players.optional(token) == Principal(player)
        assert await referee.players.optional("") is None
        other, _ = await referee.players.create_account("bea")
        assert other.kind == "person"
        assert await referee.players.accounts() == [player, other]

    run(scenario, store=store)


def test_open_registration_makes_accounts_and_is_off_by_default() -> None:
    store = MemoryEventStore()

    async def scenario(referee: Referee) -> None:
        error = await refused(referee.players.register("ada", "bot"))
        assert (error.kind, error.reason) == (Kind.FORBIDDEN, "REGISTRATION_CLOSED")
        assert _documents(store) == "[]"
        referee.players.configure(PlayerSettings(open_registration=True))
        player, token = await referee.players.register("ada", "bot")
        assert (await referee.players.authenticate(token)).player == player

    run(scenario, store=store)


def test_a_taken_name_is_refused_and_the_first_account_keeps_its_token() -> None:
    store = MemoryEventStore()

    async def scenario(referee: Referee) -> None:
        player, token = await referee.players.create_account("ada")
        before = _documents(store)
        error = await refused(referee.players.create_account("ada", "bot"))
        assert (error.kind, error.reason) == (Kind.NOT_NOW, "NAME_TAKEN")
        assert error.metadata == {"player": "ada"}
        assert _documents(store) == before
        for other_case in ("Ada", "ADA"):  # a name is unique whatever its case
            error = await refused(referee.players.create_account(other_case))
            assert (error.kind, error.reason) == (Kind.NOT_NOW, "NAME_TAKEN")
        assert _documents(store) == before
        assert (await referee.players.authenticate(token)).player == player

    run(scenario, store=store)


@pytest.mark.parametrize(
    "name", ["", "-ada", ".ada", "_ada", "a" * 33, "ada lovelace", "ada/1", "adà", "a\n"]
)
def test_a_name_that_is_no_player_name_is_refused(name: str) -> None:
    store = MemoryEventStore()

    async def scenario(referee: Referee) -> None:
        error = await refused(referee.players.create_account(name))
        assert (error.kind, error.reason) == (Kind.INVALID, "BAD_REQUEST")
        assert [f for f, _ in error.field_violations] == ["name"]
        assert _documents(store) == "[]"

    run(scenario, store=store)


def test_the_longest_and_oddest_good_names_are_accepted() -> None:
    async def scenario(referee: Referee) -> None:
        for name in ["a" * 32, "A.b-c_9", "7"]:
            player, _ = await referee.players.create_account(name)
            assert player.name == name

    run(scenario)


def test_a_kind_that_is_no_kind_is_refused() -> None:
    async def scenario(referee: Referee) -> None:
        error = await refused(referee.players.create_account("ada", "robot"))
        assert (error.kind, error.reason) == (Kind.INVALID, "BAD_REQUEST")
        assert [f for f, _ in error.field_violations] == ["kind"]

    run(scenario)


@pytest.mark.parametrize(
    ("credential", "reason"),
    [
        ("", "CREDENTIAL_MISSING"),
        ("acct-" + "x" * 43, "CREDENTIAL_INVALID"),  # an account token of no account
        ("acct-", "CREDENTIAL_INVALID"),
        ("hunter2", "CREDENTIAL_INVALID"),  # no platform configured: only account tokens
        ("a.b.c", "CREDENTIAL_INVALID"),
        ("acct-" + "y" * 10_000, "CREDENTIAL_INVALID"),
    ],
)
def test_a_missing_or_wrong_account_token_is_unauthenticated(credential: str, reason: str) -> None:
    async def scenario(referee: Referee) -> None:
        _, token = await referee.players.create_account("ada")
        error = await refused(referee.players.authenticate(credential))
        assert (error.kind, error.reason) == (Kind.UNAUTHENTICATED, reason)
        assert credential not in str(error) or not credential
        if credential:
            error = await refused(referee.players.optional(credential))
            assert error.reason == reason
        # A token one character off is another token.
        twisted = token[:-1] + ("A" if token[-1] != "A" else "B")
        error = await refused(referee.players.authenticate(twisted))
        assert error.reason == "CREDENTIAL_INVALID"

    run(scenario)


def test_an_index_entry_that_names_another_account_signs_nobody_in() -> None:
    """The account's own record of its token hash decides, not the hash index alone."""
    store = MemoryEventStore()

    async def scenario(referee: Referee) -> None:
        await referee.players.create_account("ada")
        from referee.store import DocumentWrite

        forged = "acct-forged"
        digest = hashlib.sha256(forged.encode()).hexdigest()
        store.write_documents([DocumentWrite(ACCOUNT_TOKEN, digest, {"name": "ada"}, 0)])
        error = await refused(referee.players.authenticate(forged))
        assert error.reason == "CREDENTIAL_INVALID"

    run(scenario, store=store)


def test_an_unknown_player_is_not_found() -> None:
    async def scenario(referee: Referee) -> None:
        for name in ["nobody", "not a name"]:
            error = await refused(referee.players.get(name))
            assert (error.kind, error.reason) == (Kind.NOT_FOUND, "PLAYER_UNKNOWN")

    run(scenario)


def test_accounts_are_shared_by_referees_on_one_store() -> None:
    """A replica sees an account another one made (they are documents of the store)."""
    store = MemoryEventStore()

    async def scenario(referee: Referee) -> None:
        _, token = await referee.players.create_account("ada")
        other = Referee(store)
        try:
            assert (await other.players.authenticate(token)).player.name == "ada"
            error = await refused(other.players.create_account("ada"))
            assert error.reason == "NAME_TAKEN"
        finally:
            other.repository.close()

    run(scenario, store=store)


def test_no_token_reaches_a_log_line() -> None:
    """The token is shown once, to its owner: never in the log, refusals included."""
    with capture_logs() as logs:
        tokens: list[str] = []

        async def scenario(referee: Referee) -> None:
            referee.players.configure(PlayerSettings(open_registration=True))
            _, token = await referee.players.create_account("ada", "bot")
            tokens.append(token)
            _, token = await referee.players.register("bea")
            tokens.append(token)
            await referee.players.authenticate(token)
            await refused(referee.players.create_account("bea"))
            await refused(referee.players.authenticate(token + "x"))

        run(scenario)
    assert logs, "the account lines are logged"
    assert any(line.get("event") == "account_created" for line in logs)
    text = repr(logs)
    for token in tokens:
        assert token not in text
        assert token.removeprefix("acct-") not in text
