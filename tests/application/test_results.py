"""One rule for results (docs/lobby.md, "Results"): in a rated game a seat that resigned,
forfeited on time, was abandoned (a bot that hung up and never came back) or never showed
up ranks below every seat that finished, whatever the referee's default moves made of its
hand, and its rating update is a loss to each finisher; the result says how each seat
ended, under which rule, and which ranking applied. Rated challenges, rated pairings and
rated tournament games (reserved seats, as the tournament runner makes them) alike."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

import pytest

from referee.application import Clock, Limits, Referee, RefereeError
from referee.application.lobby.terms import Terms
from referee.application.players.ratings import Rating
from referee.application.tables.access import Player, PlayerSeat, Principal
from referee.application.tables.errors import Kind
from referee.application.tables.values import Summary
from referee.engine.outcomes import Ranking, SeatEnd
from referee.store import MemoryEventStore
from tests.application.seating_support import seats
from tests.application.support import WAIT, refused, until
from tests.application.test_disconnects import hang_up

DV = "dracula-vs-van-helsing"
#: The reconnect window of these tests: a seat whose stream closed is abandoned after it.
WINDOW = 0.3
#: A clock under which a seat that never moves forfeits after one timeout, while a seat that
#: moves at once never times out (even on a loaded machine).
FORFEITING = Clock(decision_ms=300, bank_ms=700, forfeit_after_timeouts=1)
NAMES = ("ann", "bob", "cy", "dee", "eve")
#: A deal of Dracula vs Van Helsing where the referee's default moves for seat 0, which
#: resigns at once, beat seat 1's random play (:func:`play_on`) by the rules.
WON_BY_DEFAULT = "resign-0-seed-long-enough-xx"


def run(scenario: Callable[[Referee], Awaitable[None]], idle_expiry: float = 24 * 3600) -> None:
    async def main() -> None:
        limits = Limits(reconnect_window_seconds=WINDOW, idle_expiry_seconds=idle_expiry)
        referee = Referee(MemoryEventStore(), limits=limits)
        await referee.recover()
        for name in NAMES:
            await referee.players.create_account(name, "bot")
        try:
            await scenario(referee)
        finally:
            referee.close()

    asyncio.run(main())


def held(name: str, seat: int | None = None) -> PlayerSeat:
    return PlayerSeat(Principal(Player(name, "bot")), seat)


# --- the three ways a rated game between two players is made ---------------------------------


async def challenge(referee: Referee, clock: Clock) -> tuple[str, dict[int, str]]:
    made = await referee.lobby.challenges.create(
        "ann", "bob", Terms(DV, 2, clock=clock, rated=True)
    )
    answered = await referee.lobby.challenges.answer(made.challenge_id, "bob", True)
    return answered.game_id, {0: "ann", 1: "bob"}


async def pairing(referee: Referee, clock: Clock) -> tuple[str, dict[int, str]]:
    terms = Terms(DV, 2, clock=clock, rated=True)
    first = await referee.lobby.pairing.request("ann", terms)
    second = await referee.lobby.pairing.request("bob", terms)
    first, _ = await referee.lobby.pairing.get(first.ticket_id)
    return second.game_id, {first.seat: "ann", second.seat: "bob"}


async def tournament(referee: Referee, clock: Clock) -> tuple[str, dict[int, str]]:
    """As the tournament runner makes a rated game: both seats reserved, then claimed."""
    settings = seats("reserved:ann", "reserved:bob", clock=clock, rated=True)
    created = await referee.create(DV, 2, settings=settings)
    for seat, name in enumerate(("ann", "bob")):
        await referee.seating.claim_for(created.game_id, seat, name, "bot")
    return created.game_id, {0: "ann", 1: "bob"}


MAKERS = {"challenge": challenge, "pairing": pairing, "tournament": tournament}


async def play_on(referee: Referee, game_id: str, players: dict[int, str], *movers: str) -> None:
    """The ``movers`` play random legal commands until the game is over; the others never
    move (the referee plays for a seat that left)."""
    rng = random.Random(7)
    number = 0
    for _ in range(int(WAIT / 0.005)):
        live = referee.games[game_id]
        if live.table.over:
            return
        mine = [s for s in live.table.pending() if players[s] in movers]
        if not mine:
            await asyncio.sleep(0.005)  # the referee's move, or a clock running out
            continue
        seat = mine[0]
        command = rng.choice(live.table.view(seat).legal_commands)
        number += 1
        try:
            await referee.submit(game_id, held(players[seat], seat), f"m{number}", command)
        except RefereeError as error:
            assert error.kind in (Kind.NOT_NOW, Kind.CONFLICT), error  # the referee moved first
    raise AssertionError("the game did not end")


async def ratings(referee: Referee) -> dict[str, Rating]:
    return {name: await referee.players.ratings.get(name, DV) for name in ("ann", "bob")}


async def rated(referee: Referee, game_id: str) -> dict[str, Rating]:
    await until(lambda: referee.store.read_document("rated_game", game_id) is not None)
    return await ratings(referee)


def check_left_last(summary: Summary, players: dict[int, str], end: SeatEnd, rule: str) -> None:
    """ann left (``end`` under ``rule``) and ranks last with the reason; bob finished first,
    whatever the default moves made of ann's hand (``rules_rank`` keeps that)."""
    assert summary.ranking is Ranking.FINISHERS_FIRST
    assert summary.results is not None
    by_name = {players[o.seat]: o for o in summary.results}
    ann, bob = by_name["ann"], by_name["bob"]
    assert (ann.rank, ann.end, ann.end_rule_id) == (2, end, rule), ann
    assert ann.end_reason.startswith(f"seat {ann.seat} ") and ann.left_at_version > 0
    assert (bob.rank, bob.end, bob.end_rule_id, bob.end_reason) == (1, SeatEnd.FINISHED, "", "")
    [gone] = summary.seats_left
    assert (gone.seat, gone.end, gone.rule_id) == (ann.seat, end, rule)
    holder = summary.seat_holders[ann.seat]
    assert holder.left is end


def check_a_loss(after: dict[str, Rating]) -> None:
    """One rated game each, ann's a loss to bob."""
    assert after["ann"].games == after["bob"].games == 1
    assert after["ann"].mu < 25 < after["bob"].mu
    assert after["ann"].left_early == 1 and after["bob"].left_early == 0


@pytest.mark.parametrize("way", MAKERS)
def test_a_seat_that_resigns_ranks_last_with_a_loss_and_the_reason(way: str) -> None:
    async def scenario(referee: Referee) -> None:
        game_id, players = await MAKERS[way](referee, Clock())
        ann = next(s for s, n in players.items() if n == "ann")
        await referee.seating.resign(game_id, held("ann", ann))
        await play_on(referee, game_id, players, "bob")
        summary = await referee.summary(game_id)
        check_left_last(summary, players, SeatEnd.RESIGNED, "RESIGNED")
        check_a_loss(await rated(referee, game_id))

    run(scenario)


@pytest.mark.parametrize("way", MAKERS)
def test_a_seat_that_forfeits_on_time_ranks_last_with_a_loss_and_the_reason(way: str) -> None:
    async def scenario(referee: Referee) -> None:
        game_id, players = await MAKERS[way](referee, FORFEITING)
        await play_on(referee, game_id, players, "bob")  # ann never moves
        summary = await referee.summary(game_id)
        check_left_last(summary, players, SeatEnd.FORFEITED, "FORFEIT")
        [gone] = summary.seats_left
        assert gone.reason == f"seat {gone.seat} forfeited on time after 1 timeout"
        check_a_loss(await rated(referee, game_id))

    run(scenario)


@pytest.mark.parametrize("way", MAKERS)
def test_a_seat_that_hangs_up_and_never_comes_back_is_abandoned_last_with_a_loss(
    way: str,
) -> None:
    """A bot that crashed: its stream closed mid-game and did not come back within the
    reconnect window. The referee records it abandoned and plays for it; no clock needed."""

    async def scenario(referee: Referee) -> None:
        game_id, players = await MAKERS[way](referee, Clock())
        ann = next(s for s, n in players.items() if n == "ann")
        await hang_up(referee, game_id, held("ann", ann))  # type: ignore[arg-type]
        await play_on(referee, game_id, players, "bob")
        summary = await referee.summary(game_id)
        check_left_last(summary, players, SeatEnd.ABANDONED, "ABANDONED")
        [gone] = summary.seats_left
        assert "did not come back within 0.3 s" in gone.reason
        check_a_loss(await rated(referee, game_id))

    run(scenario)


@pytest.mark.parametrize("way", MAKERS)
def test_a_seat_that_stays_connected_and_never_moves_is_abandoned_last_with_a_loss(
    way: str,
) -> None:
    """No clock, and ann keeps her seat's stream open but never moves: past the idle expiry
    the seat the game waits for is abandoned, and loses. Before, the game waited for her for
    ever; and had bob given up and closed his stream, he would have been abandoned first
    and ranked below her: stalling won."""

    async def scenario(referee: Referee) -> None:
        game_id, players = await MAKERS[way](referee, Clock())
        ann = next(s for s, n in players.items() if n == "ann")
        stream = referee.stream(game_id, seat_token=held("ann", ann))  # type: ignore[arg-type]
        await anext(stream)  # connected, and silent
        await play_on(referee, game_id, players, "bob")
        summary = await referee.summary(game_id)
        check_left_last(summary, players, SeatEnd.ABANDONED, "ABANDONED")
        [gone] = summary.seats_left
        assert "no move for 0.5 s" in gone.reason, gone.reason
        check_a_loss(await rated(referee, game_id))
        await stream.aclose()

    run(scenario, idle_expiry=0.5)


@pytest.mark.parametrize("way", MAKERS)
def test_a_player_who_gives_up_on_a_staller_ranks_above_the_staller(way: str) -> None:
    """No clock; ann keeps her stream open and never moves; bob gives up and closes his. bob
    is abandoned only once the game waits for him, which it does only after ann was abandoned
    for stalling: she left first and ranks last, with the loss. Were bob abandoned as soon as
    his reconnect window passed, he would have left first and ranked below the staller."""

    async def scenario(referee: Referee) -> None:
        game_id, players = await MAKERS[way](referee, Clock())
        ann = next(s for s, n in players.items() if n == "ann")
        bob = 1 - ann
        stream = referee.stream(game_id, seat_token=held("ann", ann))  # type: ignore[arg-type]
        await anext(stream)  # connected, and silent
        rng = random.Random(5)
        while (pending := referee.games[game_id].table.pending()) != (ann,):  # bob plays
            assert pending == (bob,), pending
            command = rng.choice(referee.games[game_id].table.view(bob).legal_commands)
            await referee.submit(game_id, held("bob", bob), f"b{rng.random()}", command)
        await hang_up(referee, game_id, held("bob", bob))  # type: ignore[arg-type]
        await until(lambda: referee.games[game_id].table.over)
        summary = await referee.summary(game_id)
        assert summary.results is not None
        by_name = {players[o.seat]: o for o in summary.results}
        assert (by_name["bob"].rank, by_name["ann"].rank) == (1, 2), summary.results
        assert by_name["ann"].end is by_name["bob"].end is SeatEnd.ABANDONED
        assert "no move for" in by_name["ann"].end_reason
        after = await rated(referee, game_id)
        assert after["ann"].mu < 25 < after["bob"].mu  # a loss to bob
        await stream.aclose()

    run(scenario, idle_expiry=1.0)


def test_a_resigned_seat_whose_default_moves_won_by_the_rules_still_ranks_last() -> None:
    """A bot that resigns at once does not come first in rated games by its default moves
    winning by the rules: the rules' rank is kept (``rules_rank``); the rank is last."""

    async def scenario(referee: Referee) -> None:
        settings = seats("reserved:ann", "reserved:bob", rated=True)
        created = await referee.create(DV, 2, seed=WON_BY_DEFAULT, settings=settings)
        players = {0: "ann", 1: "bob"}
        for seat, name in players.items():
            await referee.seating.claim_for(created.game_id, seat, name, "bot")
        await referee.seating.resign(created.game_id, held("ann", 0))
        await play_on(referee, created.game_id, players, "bob")
        summary = await referee.summary(created.game_id)
        assert summary.results is not None
        ann, bob = summary.results
        assert (ann.rules_rank, bob.rules_rank) == (1, 2), "the default moves did not win here"
        assert (ann.rank, bob.rank) == (2, 1)
        check_a_loss(await rated(referee, created.game_id))

    run(scenario)


def test_a_player_who_never_claims_a_reserved_seat_loses_the_rated_game() -> None:
    async def scenario(referee: Referee) -> None:
        settings = seats("reserved:ann", "reserved:bob", rated=True, join_deadline_ms=200)
        created = await referee.create(DV, 2, settings=settings)
        await referee.seating.claim_for(created.game_id, 1, "bob", "bot")  # ann never comes
        await until(lambda: referee.games[created.game_id].table.over)
        summary = await referee.summary(created.game_id)
        assert not summary.started and not summary.aborted and summary.no_show_loses
        assert summary.end_rule_id == "NO-SHOW"
        assert summary.end_reason == (
            "seat 0 did not claim its reserved seat before the join deadline and loses"
        )
        check_left_last(summary, {0: "ann", 1: "bob"}, SeatEnd.ABSENT, "NO-SHOW")
        after = await rated(referee, created.game_id)
        assert after["ann"].absences == 1 and after["ann"].left_early == 0
        assert after["ann"].mu < 25 < after["bob"].mu and after["ann"].games == 1

    run(scenario)


def test_a_no_show_voids_the_game_when_the_organiser_says_so() -> None:
    async def scenario(referee: Referee) -> None:
        settings = seats(
            "reserved:ann", "reserved:bob", rated=True, join_deadline_ms=200, no_show="void"
        )
        created = await referee.create(DV, 2, settings=settings)
        await referee.seating.claim_for(created.game_id, 1, "bob", "bot")
        await until(lambda: referee.games[created.game_id].table.over)
        summary = await referee.summary(created.game_id)
        assert summary.aborted and summary.results is None and not summary.no_show_loses
        await asyncio.sleep(0.1)
        assert referee.store.documents("rating") == []

    run(scenario)


def test_an_unrated_casual_game_keeps_the_rules_ranking_and_says_so() -> None:
    """A resigned seat of an unrated game keeps the rank the default moves made of it; its
    result still says it resigned, and that the rules' ranking applied."""

    async def scenario(referee: Referee) -> None:
        settings = seats("reserved:ann", "reserved:bob")
        created = await referee.create(DV, 2, settings=settings)
        for seat, name in enumerate(("ann", "bob")):
            await referee.seating.claim_for(created.game_id, seat, name, "bot")
        await referee.seating.resign(created.game_id, held("ann", 0))
        await play_on(referee, created.game_id, {0: "ann", 1: "bob"}, "bob")
        summary = await referee.summary(created.game_id)
        assert summary.ranking is Ranking.RULES and summary.results is not None
        ann, bob = summary.results
        assert ann.end is SeatEnd.RESIGNED and ann.rank == ann.rules_rank
        assert bob.end is SeatEnd.FINISHED and bob.rank == bob.rules_rank

    run(scenario)


def test_a_bot_that_dodges_an_opponent_ends_below_one_that_plays() -> None:
    """A dodger never claims its seats against the strong bot. Void games would cost it
    nothing, so each is a loss, and the absences show."""

    async def scenario(referee: Referee) -> None:
        async def game(first: str, second: str, *, dodger: str = "", resigns: str = "") -> None:
            settings = seats(
                f"reserved:{first}", f"reserved:{second}", rated=True, join_deadline_ms=200
            )
            created = await referee.create(DV, 2, settings=settings)
            players = {0: first, 1: second}
            for seat, name in players.items():
                if name != dodger:
                    await referee.seating.claim_for(created.game_id, seat, name, "bot")
            if resigns:
                seat = next(s for s, n in players.items() if n == resigns)
                await referee.seating.resign(created.game_id, held(resigns, seat))
                await play_on(referee, created.game_id, players, first, second)
            await until(lambda: referee.games[created.game_id].table.over)
            await until(
                lambda: referee.store.read_document("rated_game", created.game_id) is not None
            )

        # cy (strong) and dee (the dodger) each beat eve twice (eve resigns at once) ...
        for strong in ("cy", "dee"):
            await game(strong, "eve", resigns="eve")
            await game("eve", strong, resigns="eve")
        # ... and dee never sits down against cy.
        await game("cy", "dee", dodger="dee")
        await game("dee", "cy", dodger="dee")
        board = await referee.players.ratings.leaderboard(DV)
        order = [r.player for r in board]
        assert order.index("cy") < order.index("dee"), order
        dee = next(r for r in board if r.player == "dee")
        assert (dee.games, dee.absences) == (4, 2)

    run(scenario)


def test_the_organiser_removes_a_seat_that_stopped_answering() -> None:
    """The tournament runner's call for a bot that crashed or hung: the seat is abandoned
    with the organiser's reason, and the referee finishes it."""

    async def scenario(referee: Referee) -> None:
        settings = seats("reserved:ann", "reserved:bob", rated=True)
        created = await referee.create(DV, 2, settings=settings)
        for seat, name in enumerate(("ann", "bob")):
            await referee.seating.claim_for(created.game_id, seat, name, "bot")
        error = await refused(referee.remove_seat(created.game_id, "org-wrong", 0, "crash"))
        assert error.kind is Kind.FORBIDDEN
        await referee.remove_seat(created.game_id, created.organiser_token, 0, "crash: exit 3")
        again = await refused(referee.remove_seat(created.game_id, created.organiser_token, 0))
        assert (again.kind, again.reason) == (Kind.NOT_NOW, "ALREADY_LEFT")
        await play_on(referee, created.game_id, {0: "ann", 1: "bob"}, "bob")
        summary = await referee.summary(created.game_id)
        check_left_last(summary, {0: "ann", 1: "bob"}, SeatEnd.ABANDONED, "ABANDONED")
        [gone] = summary.seats_left
        assert gone.reason == "seat 0 abandoned the game: the organiser removed it: crash: exit 3"

    run(scenario)


def test_a_seat_that_left_is_never_the_one_to_move() -> None:
    """Every view after a resignation: the resigned seat is never pending and has no legal
    commands; while the game waits for its default command, the referee is to move."""

    async def scenario(referee: Referee) -> None:
        game_id, players = await tournament(referee, Clock())
        now = referee.games[game_id].table.version
        stream = referee.stream(game_id, seat_token=held("ann", 0), after=now)
        await anext(stream)
        await referee.seating.resign(game_id, held("ann", 0))
        task = asyncio.create_task(play_on(referee, game_id, players, "bob"))
        referee_moved = 0
        async for update in stream:
            view = update.view.view
            assert 0 not in view.pending and not view.legal_commands
            assert [g.seat for g in view.left] == [0]
            referee_moved += view.referee_to_move
            if view.over:
                break
        await task
        assert referee_moved > 0  # the views between a resignation and the default move

    run(scenario)
