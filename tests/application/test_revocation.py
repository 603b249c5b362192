"""Account tokens that can be revoked and replaced, at the application
layer: a revoked token is refused, on this replica and on others (PostgreSQL), also when the
operator revoked it from another process with no notification (SQLite); every stream opened
with it (a player session, a game stream with the player's credential) ends UNAUTHENTICATED
``CREDENTIAL_REVOKED``, and streams opened with the account's new token go on."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog

from referee import cli
from referee.application import Kind, PlayerSeat, Principal, Referee, RefereeError, StreamEnded
from referee.application.players.credentials import ACCOUNT_TOKEN
from referee.application.players.sessions import GameMessage
from referee.store import SqliteEventStore, open_store
from tests.application.players_support import Platform
from tests.application.seating_support import DV, account, seats
from tests.application.support import WAIT, refused, run
from tests.store.pg import postgres_url, temporary_database


async def _seated(referee: Referee, principal: Principal) -> str:
    """A started game whose seat 0 ``principal``'s player claimed."""
    created = await referee.create(
        DV, 2, settings=seats(f"reserved:{principal.player.name}", "open")
    )
    await referee.seating.claim(created.game_id, principal, 0)
    await referee.seating.claim(created.game_id, None, 1, dict(created.invitations)[1])
    return created.game_id


async def _ended(stream: AsyncGenerator[Any, None]) -> RefereeError:
    """Read ``stream`` until it ends; the refusal it ends with (a game stream read directly
    raises it as :class:`StreamEnded`, a session as itself)."""
    async with asyncio.timeout(WAIT):
        with pytest.raises((RefereeError, StreamEnded)) as caught:
            async for _ in stream:
                pass
    ended = caught.value
    return ended.error if isinstance(ended, StreamEnded) else ended


async def _opened(referee: Referee, principal: Principal, game_id: str) -> tuple[Any, Any]:
    """A player session and a game stream opened with ``principal``, each past its first
    message."""
    session = referee.sessions.open(principal).messages()
    async with asyncio.timeout(WAIT):
        while not isinstance(await anext(session), GameMessage):
            pass
        stream = referee.stream(game_id, seat_token=PlayerSeat(principal, 0), batched=True)
        await anext(stream)
    return session, stream


def _revoked(error: RefereeError) -> None:
    assert (error.kind, error.reason) == (Kind.UNAUTHENTICATED, "CREDENTIAL_REVOKED"), error
    assert "acct-" not in str(error) and not error.metadata


async def _refused_soon(referee: Referee, token: str) -> RefereeError:
    """Authenticate ``token`` until it is refused (a hang guard, not a timing check)."""
    async with asyncio.timeout(WAIT):
        while True:
            try:
                await referee.players.authenticate(token)
            except RefereeError as error:
                return error
            await asyncio.sleep(0.05)


def test_a_revoked_token_is_refused_and_every_stream_opened_with_it_ends() -> None:
    async def scenario(referee: Referee) -> None:
        ann, token = await account(referee, "ann", "person")
        game_id = await _seated(referee, ann)
        session, stream = await _opened(referee, ann, game_id)
        revoked = await referee.players.revoke("ann")
        assert revoked.name == "ann"
        _revoked(await refused(referee.players.authenticate(token)))
        _revoked(await _ended(session))
        _revoked(await _ended(stream))
        # Signed out everywhere: a new session with the old principal is ended at once.
        late = referee.stream(game_id, seat_token=PlayerSeat(ann, 0))
        _revoked(await refused(anext(late)))
        # The token's index entry says it was revoked; no hash of it is in any refusal.
        assert any(d.body.get("revoked_ms") for d in referee.store.documents(ACCOUNT_TOKEN))
        # Revoked, the account plays on with a new token only.
        _, fresh = await referee.players.rotate("ann")
        again = await referee.players.authenticate(fresh)
        assert again.player.name == "ann"
        _revoked(await refused(referee.players.authenticate(token)))

    run(scenario)


def test_a_rotated_token_replaces_the_old_one_whose_streams_end_alone() -> None:
    async def scenario(referee: Referee) -> None:
        ann, old = await account(referee, "ann", "person")
        game_id = await _seated(referee, ann)
        session, stream = await _opened(referee, ann, game_id)
        player, new = await referee.players.rotate("ann", ann.credential)
        assert player.name == "ann" and new != old and new.startswith("acct-")
        signed_in = await referee.players.authenticate(new)
        _revoked(await refused(referee.players.authenticate(old)))
        _revoked(await _ended(session))
        _revoked(await _ended(stream))
        # The new token's streams go on.
        session, stream = await _opened(referee, signed_in, game_id)
        # RotateToken's check: the caller's token must still be the account's.
        _revoked(await refused(referee.players.rotate("ann", ann.credential)))
        assert (await referee.players.authenticate(new)).player.name == "ann"
        await asyncio.sleep(0.1)
        await session.aclose()
        await stream.aclose()

    run(scenario)


def test_only_an_account_has_a_token_to_revoke() -> None:
    platform = Platform.new()

    async def scenario(referee: Referee) -> None:
        from referee.application.players.accounts import PlayerSettings

        referee.players.configure(PlayerSettings(platform=platform.keys()))
        await referee.players.authenticate(platform.token("dee"))
        for call in (
            referee.players.revoke("platform:dee"),
            referee.players.rotate("platform:dee"),
        ):
            error = await refused(call)
            assert (error.kind, error.reason) == (Kind.NOT_NOW, "NOT_AN_ACCOUNT")
        for name in ("nobody", "not a name"):
            error = await refused(referee.players.revoke(name))
            assert error.reason == "PLAYER_UNKNOWN"

    run(scenario)


@pytest.fixture
def cli_logging() -> Iterator[None]:
    """``referee account`` configures the process's logging for its run (warnings only):
    the tests after this one keep theirs."""
    saved = structlog.get_config()
    try:
        yield
    finally:
        structlog.configure(**saved)


@pytest.mark.usefixtures("cli_logging")
def test_the_operator_revokes_from_another_process_with_no_notification(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server on a SQLite file hears nothing of another process's writes: it reads the
    revocations' count again within the bound and refuses the token, ending its streams."""
    path = tmp_path / "referee.sqlite3"

    async def scenario(referee: Referee) -> None:
        ann, token = await account(referee, "ann", "person")
        game_id = await _seated(referee, ann)
        session, stream = await _opened(referee, ann, game_id)
        assert (await referee.players.authenticate(token)).player.name == "ann"  # trusted now
        code = await asyncio.to_thread(
            cli.main, ["account", "revoke", "ann", "--store", f"sqlite:{path}"]
        )
        assert code == 0
        _revoked(await _refused_soon(referee, token))
        _revoked(await _ended(session))
        _revoked(await _ended(stream))

    run(scenario, store=SqliteEventStore(str(path)))
    assert "acct-" not in capsys.readouterr().out, "revoke prints no token"
    assert cli.main(["account", "rotate", "ann", "--store", f"sqlite:{path}"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("acct-") and out.count("\n") == 1 and "acct-" not in err
    assert cli.main(["account", "revoke", "nobody", "--store", f"sqlite:{path}"]) == 1


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    with temporary_database() as url:
        yield postgres_url(url)


def test_a_token_revoked_on_one_replica_is_refused_on_the_other_and_its_streams_end(
    database: str,
) -> None:
    """Two replicas on one PostgreSQL database: the second trusts the token and streams
    with it; the first revokes it; the second refuses it and ends its streams."""

    async def scenario() -> None:
        first, second = Referee(open_store(database)), Referee(open_store(database))
        try:
            await first.recover()
            await second.recover()
            _, token = await first.players.create_account("bo", "bot")
            bo = await second.players.authenticate(token)
            game_id = await _seated(second, bo)
            session, stream = await _opened(second, bo, game_id)
            await first.players.revoke("bo")
            _revoked(await _refused_soon(second, token))
            _revoked(await _ended(session))
            _revoked(await _ended(stream))
            _revoked(await refused(first.players.authenticate(token)))
        finally:
            with contextlib.suppress(Exception):
                first.close()
            second.close()

    asyncio.run(scenario())
