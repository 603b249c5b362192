"""The lobby on the facade (``Referee.lobby``) with the seats' room: an accepted challenge
and a pairing make a game whose seats are reserved for and held by the players, dealt at
once; a challenge with an extra seat is listed until someone takes it; the games-at-once
limit counts the seats a player holds."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

from referee.application import Referee
from referee.application.lobby.pairing import PairingState
from referee.application.lobby.room import LobbyFilter
from referee.application.lobby.seats import ClaimedSeats
from referee.application.lobby.terms import Terms
from referee.application.tables.access import Player, PlayerSeat, Principal
from referee.application.tables.errors import Kind
from referee.store import MemoryEventStore
from tests.application.lobby_support import snapshot
from tests.application.support import refused

DV = Terms("dracula-vs-van-helsing", 2)


def run(scenario: Callable[[Referee], Awaitable[None]]) -> None:
    async def main() -> None:
        referee = Referee(MemoryEventStore())
        await referee.recover()
        for name in ("ann", "bob", "cy", "dee"):
            await referee.players.create_account(name, "bot")
        try:
            await scenario(referee)
        finally:
            referee.close()

    asyncio.run(main())


def seat_of(name: str, seat: int | None = None) -> PlayerSeat:
    return PlayerSeat(Principal(Player(name, "bot")), seat)


def test_an_accepted_challenge_seats_both_players_and_deals() -> None:
    async def scenario(referee: Referee) -> None:
        challenge = await referee.lobby.challenges.create("ann", "bob", DV)
        answered = await referee.lobby.challenges.answer(challenge.challenge_id, "bob", True)
        summary = await referee.summary(answered.game_id)
        assert summary.started and not summary.listed
        holders = [(h.seat, h.state, h.player, h.kind) for h in summary.seat_holders]
        assert holders == [(0, "held", "ann", "bot"), (1, "held", "bob", "bot")]
        # Each plays with its credential; the accepter also has its seat's token.
        challenger = await referee.view(answered.game_id, seat_token=seat_of("ann"))
        assert challenger.view.viewer == 0
        accepter = await referee.view(answered.game_id, seat_token=answered.seat_token)
        assert accepter.view.viewer == 1
        assert await referee.lobby.list() == []  # not listed: no open seat

    run(scenario)


def test_a_challenge_with_an_extra_seat_is_listed_until_taken() -> None:
    async def scenario(referee: Referee) -> None:
        terms = Terms("vampire-queen", 3, {"rounds": "1"})
        challenge = await referee.lobby.challenges.create("ann", "bob", terms)
        answered = await referee.lobby.challenges.answer(challenge.challenge_id, "bob", True)
        [table] = await referee.lobby.list(LobbyFilter(game_type="vampire-queen"))
        assert table.game.game_id == answered.game_id and table.open_seats == (2,)
        assert not table.game.started
        claimed = await referee.seating.claim(answered.game_id, Principal(Player("cy", "bot")))
        assert claimed.seat == 2
        assert (await referee.summary(answered.game_id)).started
        assert await referee.lobby.list() == []

    run(scenario)


def test_a_pairing_seats_every_paired_player() -> None:
    async def scenario(referee: Referee) -> None:
        first = await referee.lobby.pairing.request("ann", DV)
        second = await referee.lobby.pairing.request("bob", DV)
        assert second.state is PairingState.PAIRED
        first_after, _ = await referee.lobby.pairing.get(first.ticket_id)
        summary = await referee.summary(second.game_id)
        assert summary.started
        by_seat = {h.seat: h.player for h in summary.seat_holders}
        assert by_seat == {first_after.seat: "ann", second.seat: "bob"}
        view = await referee.view(second.game_id, seat_token=seat_of("bob"))
        assert view.view.viewer == second.seat

    run(scenario)


def test_games_at_once_counts_the_seats_a_player_holds() -> None:
    async def scenario(referee: Referee) -> None:
        host = ClaimedSeats(referee.repository, referee.players)
        challenge = await referee.lobby.challenges.create("ann", "bob", DV)
        await referee.lobby.challenges.answer(challenge.challenge_id, "bob", True)
        await host.check_room("cy", 1)  # holds nothing
        error = await refused(host.check_room("bob", 1))
        assert (error.kind, error.reason) == (Kind.LIMIT, "LIMIT")
        assert error.metadata["limit"] == "games_at_once" and error.retry_after

    run(scenario)


def test_the_loser_of_an_accept_race_leaves_no_game_listed_or_held() -> None:
    async def scenario(referee: Referee) -> None:
        challenge = await referee.lobby.challenges.create("ann", "", DV)
        before = snapshot(referee.store, "holding")
        outcomes = await asyncio.gather(
            referee.lobby.challenges.answer(challenge.challenge_id, "bob", True),
            referee.lobby.challenges.answer(challenge.challenge_id, "cy", True),
            return_exceptions=True,
        )
        [won] = [o for o in outcomes if not isinstance(o, BaseException)]
        holdings = set(snapshot(referee.store, "holding")) - set(before)
        assert {key.split("/")[1] for _, key in holdings} == {won.game_id}
        assert await referee.lobby.list() == []

    run(scenario)


def test_rated_terms_make_a_rated_game() -> None:
    async def scenario(referee: Referee) -> None:
        rated = Terms("dracula-vs-van-helsing", 2, rated=True)
        challenge = await referee.lobby.challenges.create("ann", "bob", rated)
        answered = await referee.lobby.challenges.answer(challenge.challenge_id, "bob", True)
        assert (await referee.summary(answered.game_id)).rated
        await referee.lobby.pairing.request("cy", rated)
        paired = await referee.lobby.pairing.request("dee", rated)
        summary = await referee.summary(paired.game_id)
        assert summary.rated and summary.started

    run(scenario)


def test_a_rated_pairing_played_to_its_end_rates_both_players() -> None:
    """From two requests to a finished rated game played with the players' credentials
    only (no token), and each player's rating moved; then both may ask again."""

    async def scenario(referee: Referee) -> None:
        rated = Terms("dracula-vs-van-helsing", 2, rated=True)
        await referee.lobby.pairing.request("ann", rated)
        paired = await referee.lobby.pairing.request("bob", rated)
        game_id = paired.game_id
        names = {h.seat: h.player for h in (await referee.summary(game_id)).seat_holders}
        rng = random.Random(7)
        for number in range(2000):
            if (await referee.summary(game_id)).game_over:
                break
            live = referee.games[game_id]
            seat = live.table.pending()[0]
            command = rng.choice(live.table.view(seat).legal_commands)
            await referee.submit(game_id, seat_of(names[seat], seat), f"c{number}", command)
        assert (await referee.summary(game_id)).game_over
        for name in ("ann", "bob"):
            for _ in range(100):
                if (await referee.players.ratings.get(name, rated.game_type)).games == 1:
                    break
                await asyncio.sleep(0.02)
            assert (await referee.players.ratings.get(name, rated.game_type)).games == 1
        again = await referee.lobby.pairing.request("ann", rated)
        assert again.state is PairingState.WAITING
        assert again.rating == await referee.players.ratings.ordinal("ann", rated.game_type)

    run(scenario)
