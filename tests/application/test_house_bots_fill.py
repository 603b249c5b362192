"""The organiser starts a waiting game by filling its empty seats with house bots
(``Referee.fill_with_bots``): open and bot-reserved seats are filled and the game is
played out; each refusal (not the organiser, started, no house bots, too few accounts, an
unknown level) changes nothing."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from referee.application import Kind, Referee
from referee.application.house.levels import parse_levels
from referee.store import MemoryEventStore
from tests.application.seating_support import seats, unchanged
from tests.application.support import WAIT, run, until
from tests.application.test_house_bots import person, play_as

SQ = "sleeping-queens"


def test_the_organiser_fills_the_open_seats_with_house_bots_and_the_game_is_played() -> None:
    async def scenario(referee: Referee) -> None:
        await referee.house_bots.start(parse_levels("easy:1,normal"), seed=21)
        ann = await person(referee)
        # An unlisted game: its open seats are for claim codes, and the organiser's fill.
        modes = ("creator", "open", "reserved:house-normal-2", "open")
        created = await referee.create(SQ, 4, settings=seats(*modes), creator=ann)
        await until(lambda: "house-normal-2" in _players(referee, created.game_id))
        summary = await referee.fill_with_bots(created.game_id, created.organiser_token)
        assert summary.game_id == created.game_id
        assert referee.games[created.game_id].table.started
        # The reserved seat kept its bot; the open ones took the free accounts, in order.
        assert _players(referee, created.game_id) == [
            "ann",
            "house-easy",
            "house-normal-2",
            "house-normal",
        ]
        await play_as(referee, created.game_id, ann, 0, seed=22)
        assert (await referee.summary(created.game_id)).game_over

    run(scenario)


def test_a_fill_of_one_level_takes_only_its_accounts() -> None:
    async def scenario(referee: Referee) -> None:
        await referee.house_bots.start(parse_levels("easy:1,normal"), seed=23)
        ann = await person(referee)
        created = await referee.create(
            SQ, 3, settings=seats("creator", "open", "open"), creator=ann
        )
        await referee.fill_with_bots(created.game_id, created.organiser_token, "normal")
        assert _players(referee, created.game_id) == ["ann", "house-normal", "house-normal-2"]

    run(scenario)


def test_refusals_change_nothing() -> None:
    async def scenario(referee: Referee) -> None:
        ann = await person(referee)
        created = await referee.create(
            SQ, 4, settings=seats("creator", "open", "open", "open"), creator=ann
        )
        game_id, token = created.game_id, created.organiser_token
        # No house bots configured on this referee (yet).
        await unchanged(
            referee,
            game_id,
            referee.fill_with_bots(game_id, token),
            Kind.NOT_NOW,
            "NO_HOUSE_BOTS",
        )
        await referee.house_bots.start(parse_levels("easy:1,normal:1"), seed=24)
        # Not the organiser: no token, another token (a seat's), a wrong one.
        await unchanged(
            referee,
            game_id,
            referee.fill_with_bots(game_id, ""),
            Kind.UNAUTHENTICATED,
            "TOKEN_MISSING",
        )
        await unchanged(
            referee,
            game_id,
            referee.fill_with_bots(game_id, "organiser-nope"),
            Kind.FORBIDDEN,
            "TOKEN_INVALID",
        )
        # Three empty seats, two accounts.
        error = await unchanged(
            referee,
            game_id,
            referee.fill_with_bots(game_id, token),
            Kind.NOT_NOW,
            "NOT_ENOUGH_HOUSE_BOTS",
        )
        assert error.metadata["empty_seats"] == "3" and error.metadata["house_bots"] == "2"
        await unchanged(
            referee,
            game_id,
            referee.fill_with_bots(game_id, token, "grandmaster"),
            Kind.INVALID,
            "BAD_REQUEST",
        )
        # Started: a three-player game filled, then filled again.
        small = await referee.create(SQ, 3, settings=seats("creator", "open", "open"), creator=ann)
        await referee.fill_with_bots(small.game_id, small.organiser_token)
        assert referee.games[small.game_id].table.started
        await unchanged(
            referee,
            small.game_id,
            referee.fill_with_bots(small.game_id, small.organiser_token),
            Kind.NOT_NOW,
            "GAME_STARTED",
        )

    run(scenario)


def _players(referee: Referee, game_id: str) -> list[str]:
    return [h.player for h in referee.games[game_id].holders()]


class _ClaimHeld(MemoryEventStore):
    """A store that holds one player's claim in its transaction until told (``release``):
    the moment a house bot is claiming its reserved seat, made to last."""

    def __init__(self, player: str) -> None:
        super().__init__()
        self.player = player
        self.entered = threading.Event()
        self.release = threading.Event()

    def claim_seat(self, game_id: str, expected_version: int, *args: Any, **kwargs: Any) -> int:
        claim = args[1] if len(args) > 1 else kwargs["claim"]
        if claim.player == self.player and not self.entered.is_set():
            self.entered.set()
            self.release.wait(WAIT)
        return super().claim_seat(game_id, expected_version, *args, **kwargs)


def test_a_fill_while_a_house_bot_claims_its_reserved_seat_leaves_that_seat_to_the_bot() -> None:
    """The race made deterministic: the bot's claim of its reserved seat is in the store's
    transaction when the organiser fills, and lands just after the fill has read the game.
    The fill must not claim that seat too (it was refused ALREADY_SEATED): one owner decides
    which seat each house bot takes, and the fill takes the seats nobody is claiming."""
    store = _ClaimHeld("house-normal")

    async def scenario(referee: Referee) -> None:
        await referee.house_bots.start(parse_levels("easy:1,normal:1"), seed=25)
        ann = await person(referee)
        modes = ("creator", "reserved:house-normal", "open")
        created = await referee.create(SQ, 3, settings=seats(*modes), creator=ann)
        assert await asyncio.to_thread(store.entered.wait, WAIT), "the bot never claimed"
        repository = referee.repository
        read = repository.get_current

        async def read_then_release(game_id: str) -> Any:
            live = await read(game_id)
            store.release.set()  # the bot's claim commits now, the fill going on
            return live

        repository.get_current = read_then_release  # type: ignore[method-assign]
        try:
            await referee.fill_with_bots(created.game_id, created.organiser_token)
        finally:
            store.release.set()
            repository.get_current = read  # type: ignore[method-assign]
        await until(lambda: referee.games[created.game_id].table.started)
        assert _players(referee, created.game_id) == ["ann", "house-normal", "house-easy"]

    run(scenario, store=store)
