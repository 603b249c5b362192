"""What the seating tests share: accounts, seat plans and a refusal that changed nothing."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from referee.application import (
    Clock,
    GameSettings,
    Kind,
    Principal,
    Referee,
    RefereeError,
    SeatPlan,
)
from tests.application.support import refused

DV = "dracula-vs-van-helsing"
OPEN, RESERVED, CREATOR, TOKEN = "open", "reserved", "creator", "token"


async def account(referee: Referee, name: str, kind: str = "bot") -> tuple[Principal, str]:
    """A new account's principal (as its credential authenticates) and credential."""
    _, token = await referee.players.create_account(name, kind)
    return await referee.players.authenticate(token), token


def seats(*modes: str, clock: Clock | None = None, **more: Any) -> GameSettings:
    """Settings with one seat plan per mode (``"reserved:ann"`` reserves for ann)."""
    plans = tuple(SeatPlan(*mode.split(":", 1)) for mode in modes)
    return GameSettings(clock=clock or Clock(), card_commitments=True, seats=plans, **more)


def snapshot(referee: Referee, game_id: str) -> tuple[Any, ...]:
    """What a refusal must leave as it was: the log, the claims, the store's claims and
    documents."""
    live = referee.games[game_id]
    store = referee.store
    documents = tuple(
        (d.kind, d.key, d.revision) for kind in ("lobby", "holding") for d in store.documents(kind)
    )
    return (
        tuple(live.table.log),
        dict(live.table.status.claims),
        dict(store.seat_claims(game_id)),
        documents,
        store.version(game_id),
    )


async def unchanged(
    referee: Referee, game_id: str, call: Awaitable[Any], kind: Kind, reason: str
) -> RefereeError:
    """``call`` is refused with ``kind``/``reason`` and the game and its documents are as
    they were; the refusal names no secret (the caller checks its own)."""
    before = snapshot(referee, game_id)
    error = await refused(call)
    assert (error.kind, error.reason) == (kind, reason), error
    assert snapshot(referee, game_id) == before
    return error


def assert_no_secret(text: str, secrets: list[str]) -> None:
    for secret in secrets:
        assert secret and secret not in text, "a secret leaked"
