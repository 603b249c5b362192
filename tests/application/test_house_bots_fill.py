"""The organiser starts a waiting game by filling its empty seats with house bots (issue 20
§3; ``Referee.fill_with_bots``): open and bot-reserved seats are filled and the game is
played out; each refusal (not the organiser, started, no house bots, too few accounts, an
unknown level) changes nothing."""

from __future__ import annotations

from referee.application import Kind, Referee
from referee.application.house_levels import parse_levels
from tests.application.seating_support import seats, unchanged
from tests.application.support import run, until
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
