"""Rated games update their players' ratings at their end: through the
repository's ``on_finished`` hook, from the log's claims and the game's results; unrated and
aborted games leave ratings alone."""

from __future__ import annotations

import random
from pathlib import Path

from referee.application import Referee
from referee.application.players.ratings import RATED_GAME, RATING
from referee.ratings_model import plackett_luce
from referee.store import DocumentWrite, open_store
from tests.application.seating_support import DV, account, seats
from tests.application.support import run, until


async def _play_rated(referee: Referee, rated: bool = True) -> str:
    """A game of two reserved seats (ann, bob) claimed for them, played to its end."""
    ann, _ = await account(referee, "ann")
    bob, _ = await account(referee, "bob")
    settings = seats("reserved:ann", "reserved:bob", rated=rated)
    created = await referee.create(DV, 2, settings=settings)
    game_id = created.game_id
    tokens = [
        (await referee.seating.claim_for(game_id, seat, who.player)).token
        for seat, who in enumerate((ann, bob))
    ]
    live = referee.games[game_id]
    rng = random.Random(5)
    number = 0
    while not live.table.over:
        seat = live.table.pending()[0]
        command = rng.choice(live.table.view(seat).legal_commands)
        await referee.submit(game_id, tokens[seat], f"c{number}", command)
        number += 1
    return game_id


def test_a_rated_game_rates_its_players_by_their_ranks() -> None:
    async def scenario(referee: Referee) -> None:
        game_id = await _play_rated(referee)
        store = referee.store
        await until(lambda: store.read_document(RATED_GAME, game_id) is not None)
        results = referee.games[game_id].table.results()
        assert results is not None
        ranks = {r.seat: r.rank for r in results}
        model = plackett_luce()
        fresh = [[model.rating()], [model.rating()]]
        expected = model.rate(fresh, ranks=[float(ranks[0]), float(ranks[1])])
        for seat, name in enumerate(("ann", "bob")):
            rating = await referee.players.ratings.get(name, DV)
            assert rating.games == 1
            assert abs(rating.mu - expected[seat][0].mu) < 1e-9
        # The hook again (a replica that also saw the end): nothing changes.
        before = await referee.players.ratings.of("ann")
        await referee.players.ratings.record(referee.games[game_id])
        assert await referee.players.ratings.of("ann") == before

    run(scenario)


def test_an_unrated_game_leaves_the_ratings_alone() -> None:
    async def scenario(referee: Referee) -> None:
        game_id = await _play_rated(referee, rated=False)
        await referee.players.ratings.record(referee.games[game_id])
        assert referee.store.documents("rating") == []
        assert referee.store.read_document(RATED_GAME, game_id) is None

    run(scenario)


def test_an_aborted_rated_game_is_not_rated() -> None:
    async def scenario(referee: Referee) -> None:
        ann, _ = await account(referee, "ann")
        bob, _ = await account(referee, "bob")
        settings = seats("reserved:ann", "reserved:bob", rated=True)
        created = await referee.create(DV, 2, settings=settings)
        for seat, who in enumerate((ann, bob)):
            await referee.seating.claim_for(created.game_id, seat, who.player)
        await referee.abort(created.game_id, created.organiser_token, "a test")
        live = referee.games[created.game_id]
        await referee.players.ratings.record(live)
        assert referee.store.documents("rating") == []

    run(scenario)


def test_a_rated_game_that_ended_unrated_is_rated_at_the_next_start(tmp_path: Path) -> None:
    """As if the process had stopped between the game's last event and its rating."""
    url = f"sqlite:{tmp_path / 'referee.sqlite3'}"
    ended: list[str] = []

    async def play(referee: Referee) -> None:
        ended.append(await _play_rated(referee))
        await until(lambda: referee.store.read_document(RATED_GAME, ended[0]) is not None)

    run(play, store=open_store(url))
    with open_store(url) as store:
        lost = [
            DocumentWrite(d.kind, d.key, None, d.revision)
            for kind in (RATING, RATED_GAME)
            for d in store.documents(kind)
        ]
        assert len(lost) == 3
        store.write_documents(lost)

    async def restart(referee: Referee) -> None:
        await until(lambda: referee.store.read_document(RATED_GAME, ended[0]) is not None)
        for name in ("ann", "bob"):
            assert (await referee.players.ratings.get(name, DV)).games == 1

    run(restart, store=open_store(url))
