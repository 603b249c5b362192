"""Identities that cannot be borrowed, at the application layer: a
platform token's subject lives in the platform's name space, so it never acts as an account
or a house bot of the same name; with bare names a collision is refused with its reason; a
credential that may only watch sees the public view on every call and stream."""

from __future__ import annotations

import asyncio

import pytest

from referee.application import Kind, PlayerSeat, Principal, Referee
from referee.application.house.levels import parse_levels
from referee.application.players.accounts import PlayerSettings
from referee.application.players.sessions import GameMessage
from tests.application.players_support import Platform
from tests.application.seating_support import DV, account, seats
from tests.application.support import WAIT, refused, run

PLATFORM = Platform.new()


def _platform(referee: Referee, namespace: str = "platform") -> None:
    settings = PlayerSettings(platform=PLATFORM.keys(), platform_namespace=namespace)
    referee.players.configure(settings)


async def _seated(referee: Referee, principal: Principal) -> tuple[str, int]:
    """A started game of DV whose seat 0 ``principal``'s player claimed (seat 1: a code)."""
    created = await referee.create(
        DV, 2, settings=seats(f"reserved:{principal.player.name}", "open")
    )
    await referee.seating.claim(created.game_id, principal, 0)
    code = dict(created.invitations)[1]
    await referee.seating.claim(created.game_id, None, 1, code)
    return created.game_id, 0


def test_a_platform_subject_is_its_platforms_player_never_the_account_of_that_name() -> None:
    """``sub=victim`` signs in as ``platform:victim``: the account ``victim``'s seat is not
    its seat (no view, no command, no resignation)."""

    async def scenario(referee: Referee) -> None:
        _platform(referee)
        victim, _ = await account(referee, "victim", "person")
        game_id, seat = await _seated(referee, victim)
        borrowed = await referee.players.authenticate(PLATFORM.token("victim"))
        assert borrowed.player.name == "platform:victim" and borrowed.player.platform
        mine = PlayerSeat(borrowed, seat)
        for call in (
            referee.view(game_id, seat_token=mine),
            referee.view(game_id, seat_token=PlayerSeat(borrowed)),
            referee.seating.resign(game_id, mine),
        ):
            error = await refused(call)
            assert (error.kind, error.reason) == (Kind.FORBIDDEN, "NOT_SEATED")
        assert (
            await referee.view(game_id, seat_token=PlayerSeat(victim, seat))
        ).view.viewer == seat
        assert await referee.players.get("platform:victim") == borrowed.player
        assert (await referee.players.get("victim")).platform is False

    run(scenario)


def test_a_platform_subject_never_acts_as_a_house_bot() -> None:
    async def scenario(referee: Referee) -> None:
        _platform(referee)
        (bot,) = await referee.house_bots.start(parse_levels("normal:1"), seed=3)
        ann, _ = await account(referee, "ann", "person")
        created = await referee.create(DV, 2, settings=seats("reserved:ann", "open"))
        await referee.seating.claim(created.game_id, ann, 0)
        await referee.fill_with_bots(created.game_id, created.organiser_token)
        assert referee.games[created.game_id].table.status.claims[1].player == bot.player
        borrowed = await referee.players.authenticate(PLATFORM.token(bot.player, kind="bot"))
        assert borrowed.player.name == f"platform:{bot.player}"
        error = await refused(referee.seating.resign(created.game_id, PlayerSeat(borrowed, 1)))
        assert error.reason == "NOT_SEATED"
        error = await refused(referee.view(created.game_id, seat_token=PlayerSeat(borrowed, 1)))
        assert error.reason == "NOT_SEATED"

    run(scenario)


@pytest.mark.parametrize("name", ["victim", "Victim", "house-normal"])
def test_with_bare_names_a_subject_that_names_an_account_or_a_house_bot_is_refused(
    name: str,
) -> None:
    async def scenario(referee: Referee) -> None:
        _platform(referee, namespace="")
        await account(referee, "victim", "person")
        await referee.house_bots.start(parse_levels("normal:1"), seed=3)
        token = PLATFORM.token(name)
        error = await refused(referee.players.authenticate(token))
        assert (error.kind, error.reason) == (Kind.FORBIDDEN, "PLATFORM_NAME_TAKEN")
        assert error.metadata["claim"] == "sub"
        assert "--platform-namespace" in error.message and token not in str(error)
        # Refused every time (not only the first), and on a fresh process too.
        error = await refused(referee.players.authenticate(token))
        assert error.reason == "PLATFORM_NAME_TAKEN"
        # A name of its own is the platform's player's, bare.
        own = await referee.players.authenticate(PLATFORM.token("dee"))
        assert own.player.name == "dee" and own.player.platform

    run(scenario)


def test_no_account_or_house_bot_takes_a_platform_players_name() -> None:
    async def scenario(referee: Referee) -> None:
        _platform(referee)
        error = await refused(referee.players.create_account("platform:ada"))
        assert (error.kind, error.reason) == (Kind.INVALID, "BAD_REQUEST")
        assert "platform" in error.message
        _platform(referee, namespace="")
        await referee.players.authenticate(PLATFORM.token("house-easy", kind="bot"))
        with pytest.raises(ValueError, match="platform"):
            await referee.house_bots.start(parse_levels("easy:1"), seed=3)

    run(scenario)


def test_a_namespace_is_a_short_name() -> None:
    for bad in ("with:colon", "x" * 17, "-lead", "sp ace"):
        with pytest.raises(ValueError):
            PlayerSettings(platform_namespace=bad)
    assert PlayerSettings(platform_namespace="").platform_namespace == ""


def test_a_spectator_token_of_a_seated_player_sees_the_public_view_only() -> None:
    """Every call and stream that takes a player's credential: a seat named is refused
    (TOKEN_SCOPE), no seat named gives the spectator's view; a player session follows the
    player's seats with the spectator's view."""

    async def scenario(referee: Referee) -> None:
        _platform(referee)
        seated = await referee.players.authenticate(PLATFORM.token("bea"))
        game_id, seat = await _seated(referee, seated)
        private = await referee.view(game_id, seat_token=PlayerSeat(seated, seat))
        public = await referee.view(game_id, spectator=True)
        assert private.view != public.view, "the seat's view shows more than the public one"
        watching = await referee.players.authenticate(PLATFORM.token("bea", role="spectator"))
        assert watching.spectator_only and watching.player == seated.player

        for named in (seat, 1 - seat):
            error = await refused(referee.view(game_id, seat_token=PlayerSeat(watching, named)))
            assert (error.kind, error.reason) == (Kind.FORBIDDEN, "TOKEN_SCOPE")
            stream = referee.stream(game_id, seat_token=PlayerSeat(watching, named))
            error = await refused(anext(stream))
            assert error.reason == "TOKEN_SCOPE"
        shown = await referee.view(game_id, seat_token=PlayerSeat(watching))
        assert shown.view == public.view
        stream = referee.stream(game_id, seat_token=PlayerSeat(watching))
        first = await anext(stream)
        assert first.view.view == public.view
        await stream.aclose()

        session = referee.sessions.open(watching)
        messages = session.messages()
        try:
            async with asyncio.timeout(WAIT):
                message = await anext(messages)
                while not isinstance(message, GameMessage):
                    message = await anext(messages)
            assert (message.game_id, message.seat) == (game_id, seat)
            assert message.update.view.view == public.view
        finally:
            await messages.aclose()

    run(scenario)
