"""House bots at the application layer: a person alone against them finishes every game type
(seats reserved for the bots, the person leaving and coming back), and a four-player game of
every game type that seats four against one level's several accounts; a challenge to a bot is
accepted and played, pairing with a bot on request, and the replacement rule (counted)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from referee.application import Referee
from referee.application.house.levels import (
    LEVELS,
    Level,
    account_names,
    max_accounts,
    parse_levels,
)
from referee.application.lobby.challenges import ChallengeState
from referee.application.lobby.pairing import PairingState
from referee.application.lobby.terms import Terms
from referee.application.tables.access import PlayerSeat, Principal
from referee.engine import all_games
from tests.application.seating_support import account, seats
from tests.application.support import WAIT, run, until

#: One account of each level (the tables below seat at most three players).
BOTH = parse_levels("easy:1,normal:1")


async def person(referee: Referee, name: str = "ann") -> Principal:
    principal, _ = await account(referee, name, "person")
    return principal


async def play_as(
    referee: Referee, game_id: str, principal: Principal, seat: int, seed: int, leave_at: int = -1
) -> None:
    """``principal`` plays its seat with random legal moves until the game is over; after
    ``leave_at`` of its moves it is away a moment (the bots wait for it: no clock)."""
    rng = random.Random(seed)
    mine = PlayerSeat(principal, seat)
    moves = 0
    async with asyncio.timeout(WAIT * 3):
        while True:
            view = (await referee.view(game_id, seat_token=mine)).view
            if view.over:
                return
            if not view.legal_commands:
                await asyncio.sleep(0.005)
                continue
            if moves == leave_at:
                await asyncio.sleep(0.2)
            command = rng.choice(view.legal_commands)
            try:
                await referee.submit(
                    game_id, mine, f"p{moves}", command, expected_version=view.version
                )
            except Exception as error:  # a bot moved first (a simultaneous decision)
                if getattr(error, "reason", "") != "VERSION_CONFLICT":
                    raise
            moves += 1


def seats_for(game_type: str) -> int:
    return min(int(all_games_by_id()[game_type].info.min_players), 1 + len(BOTH))


def all_games_by_id() -> dict[str, Any]:
    return {g.info.type_id: g for g in all_games()}


@pytest.mark.parametrize("game_type", sorted(all_games_by_id()))
def test_a_person_alone_against_house_bots_finishes_every_game(game_type: str) -> None:
    async def scenario(referee: Referee) -> None:
        bots = await referee.house_bots.start(BOTH, seed=1)
        assert [b.player for b in bots] == ["house-easy", "house-normal"]
        ann = await person(referee)
        n = seats_for(game_type)
        modes = ["creator", *[f"reserved:{b.player}" for b in bots][: n - 1]]
        # One hand of Mau Mau: the person plays at random (five hands are thousands of moves).
        options = {"hands": "1"} if game_type == "mau-mau-vampires" else {}
        created = await referee.create(game_type, n, options, settings=seats(*modes), creator=ann)
        await until(lambda: referee.games[created.game_id].table.started)
        await play_as(referee, created.game_id, ann, 0, seed=7, leave_at=2)
        summary = await referee.summary(created.game_id)
        assert summary.game_over and not summary.aborted
        players = {h.player for h in referee.games[created.game_id].holders()}
        assert players == {"ann", *(b.player for b in bots[: n - 1])}
        assert referee.house_bots.bots == bots

    run(scenario)


FOUR_SEATERS = sorted(
    g.info.type_id for g in all_games() if g.info.min_players <= 4 <= g.info.max_players
)
#: Short games: the person plays at random.
SHORT = {"mau-mau-vampires": {"hands": "1"}, "vampire-queen": {"rounds": "1"}}


@pytest.mark.parametrize("game_type", FOUR_SEATERS)
def test_a_person_alone_fills_and_finishes_a_four_player_game_with_one_levels_accounts(
    game_type: str,
) -> None:
    """One account holds one seat of a game, so a level runs several (``house-normal``,
    ``-2``, ``-3`` by default): a person reserves a seat for each and plays the game out."""

    async def scenario(referee: Referee) -> None:
        bots = await referee.house_bots.start(parse_levels("normal"), seed=11)
        names = [b.player for b in bots]
        assert names == ["house-normal", "house-normal-2", "house-normal-3"]
        assert {b.level for b in bots} == {"normal"}
        ann = await person(referee)
        modes = ["creator", *[f"reserved:{name}" for name in names]]
        options = SHORT.get(game_type, {})
        created = await referee.create(game_type, 4, options, settings=seats(*modes), creator=ann)
        await until(lambda: referee.games[created.game_id].table.started)
        await play_as(referee, created.game_id, ann, 0, seed=12)
        summary = await referee.summary(created.game_id)
        assert summary.game_over and not summary.aborted
        players = [h.player for h in referee.games[created.game_id].holders()]
        assert players == ["ann", *names]

    run(scenario)


def test_a_challenge_to_a_house_bot_is_accepted_and_played() -> None:
    async def scenario(referee: Referee) -> None:
        await referee.house_bots.start(parse_levels("normal"), seed=2)
        ann = await person(referee)
        terms = Terms("dracula-vs-van-helsing", 2)
        challenge = await referee.lobby.challenges.create("ann", "house-normal", terms)
        found: list[Any] = []

        async def accepted() -> None:
            while not found:
                current, _ = await referee.lobby.challenges.get(challenge.challenge_id)
                if current.state is ChallengeState.ACCEPTED:
                    found.append(current)
                await asyncio.sleep(0.01)

        async with asyncio.timeout(WAIT):
            await accepted()
        game_id = found[0].game_id
        await play_as(referee, game_id, ann, 0, seed=3)
        assert (await referee.summary(game_id)).game_over

    run(scenario)


def test_a_challenge_to_anyone_is_left_to_people() -> None:
    async def scenario(referee: Referee) -> None:
        await referee.house_bots.start(parse_levels("easy"), seed=2)
        await person(referee)
        challenge = await referee.lobby.challenges.create("ann", "", Terms("sleeping-queens", 2))
        await asyncio.sleep(0.3)
        current, _ = await referee.lobby.challenges.get(challenge.challenge_id)
        assert current.state is ChallengeState.OPEN

    run(scenario)


def test_pairing_with_a_house_bot_on_request() -> None:
    async def scenario(referee: Referee) -> None:
        await referee.house_bots.start(BOTH, pair_after_seconds=0.2, seed=4)
        ann = await person(referee)
        ticket = await referee.lobby.pairing.request("ann", Terms("mau-mau-vampires", 2))
        assert ticket.state is PairingState.WAITING
        paired: list[Any] = []

        async def wait() -> None:
            while not paired:
                current, _ = await referee.lobby.pairing.get(ticket.ticket_id)
                if current.state is PairingState.PAIRED:
                    paired.append(current)
                await asyncio.sleep(0.02)

        async with asyncio.timeout(WAIT):
            await wait()
        game_id, seat = paired[0].game_id, paired[0].seat
        # Seated in the creation that wrote the ticket paired: held, and dealt, already.
        summary = await referee.summary(game_id)
        assert summary.started
        holders = {(h.player, h.state) for h in summary.seat_holders}
        assert holders == {("ann", "held"), ("house-easy", "held")}
        await play_as(referee, game_id, ann, seat, seed=5)
        assert (await referee.summary(game_id)).game_over

    run(scenario)


def test_a_failing_level_is_replaced_by_random_and_counted(monkeypatch: Any) -> None:
    """A level that raises, and one slower than its budget: each move is the random
    strategy's instead, counted by reason, and the game still ends."""
    import referee.application.house.levels as levels

    real = levels.choose

    def flaky(strategy: str, view: Any, players: int, seed: int, *rest: Any) -> Any:
        if strategy == "explode":
            raise RuntimeError("boom")
        if strategy == "slow":
            import time

            time.sleep(0.2)
        return real("random", view, players, seed)

    monkeypatch.setattr(levels, "choose", flaky)

    async def scenario(referee: Referee) -> None:
        chosen = (Level("explode", "explode"), Level("slow", "slow"))
        await referee.house_bots.start(chosen, budget_ms=50, seed=6)
        ann = await person(referee)
        modes = ("creator", "reserved:house-explode", "reserved:house-slow")
        created = await referee.create("vampire-queen", 3, settings=seats(*modes), creator=ann)
        await until(lambda: referee.games[created.game_id].table.started)
        await play_as(referee, created.game_id, ann, 0, seed=8)
        registry = referee.metrics.registry

        def fallbacks(level: str, reason: str) -> float:
            labels = {"level": level, "game_type": "vampire-queen", "reason": reason}
            value = registry.get_sample_value("referee_house_bot_fallbacks_total", labels)
            return value or 0.0

        assert fallbacks("explode", "error") > 0
        assert fallbacks("slow", "budget") > 0
        moves = registry.get_sample_value(
            "referee_house_bot_moves_total", {"level": "slow", "game_type": "vampire-queen"}
        )
        assert moves and moves >= fallbacks("slow", "budget")

    run(scenario)


def test_levels_are_named_and_parsed() -> None:
    assert [level.name for level in parse_levels("normal, easy,normal")] == ["normal", "easy"]
    with pytest.raises(ValueError, match="unknown house bot level"):
        parse_levels("grandmaster")
    counted = parse_levels("easy:2,normal")
    assert [(level.name, level.accounts) for level in counted] == [("easy", 2), ("normal", 3)]
    assert account_names(counted[0]) == ("house-easy", "house-easy-2")
    assert max_accounts() == 11  # Vampire Queen seats twelve
    for bad in ("normal:0", "normal:12", "normal:x"):
        with pytest.raises(ValueError, match=r"must be 1\.\.11"):
            parse_levels(bad)
    assert set(LEVELS) >= {"easy", "normal"}


def test_a_level_blunders_its_share_of_moves_and_otherwise_plays_its_strategy() -> None:
    """``easy`` and ``normal`` play the heuristic's command but for their share of random
    ones (drawn from the decision's seed: the same seed, the same move); a level without
    blunders is its strategy exactly."""
    from referee.application.house.levels import choose
    from referee.engine import Table
    from referee.engine.bot import game_bot

    table = Table.create("sleeping-queens", 2, seed=b"blunders")
    seat = table.pending()[0]
    view = table.view(seat)
    heuristic = game_bot("sleeping-queens")
    assert heuristic is not None and len(view.legal_commands) > 4
    best = heuristic.choose(view, 2)
    assert LEVELS["easy"].blunders > LEVELS["normal"].blunders > LEVELS["hard"].blunders == 0
    for level in LEVELS.values():
        if level.knows:
            continue
        moves = [
            choose(level.strategy, view, 2, seed, blunders=level.blunders) for seed in range(600)
        ]
        assert all(move in view.legal_commands for move in moves)
        off = sum(move != best for move in moves) / len(moves)
        # A blunder is uniform over the legal commands, the heuristic's own among them.
        expected = level.blunders * (1 - 1 / len(view.legal_commands))
        assert abs(off - expected) < 0.08, (level.name, off, expected)
        assert choose(level.strategy, view, 2, 5, blunders=level.blunders) == moves[5]
    assert {choose("heuristic", view, 2, seed) for seed in range(50)} == {best}


def test_hard_plays_the_heuristic_whole_where_its_search_is_not_stronger() -> None:
    """In Sleeping Queens the search is not measured stronger than the heuristic, so ``hard``
    plays the heuristic's own move there (and would otherwise not beat ``normal``, the
    heuristic with blunders); elsewhere it searches from the seat's knowledge."""
    from referee.application.house.levels import decide
    from referee.engine import Table
    from referee.engine.bot import game_bot
    from referee.search.worlds import Knowledge

    hard = LEVELS["hard"]
    assert "sleeping-queens" in hard.heuristic_in and hard.knows
    for game_type in ("sleeping-queens", "dracula-vs-van-helsing"):
        table = Table.create(game_type, 2, seed=b"hard")
        seat = table.pending()[0]
        view = table.view(seat)
        known = Knowledge(
            game_type, 2, dict(table.config.options), seat, tuple(table.redacted_log(seat)), view
        )
        heuristic = game_bot(game_type)
        assert heuristic is not None
        made = asyncio.run(decide(hard, view, 2, random.Random(1), 10**6, knowledge=known))
        assert not made.fallback and made.command in view.legal_commands
        if game_type in hard.heuristic_in:
            assert made.command == heuristic.choose(view, 2)
