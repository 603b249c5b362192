"""A batch's views are made from the part every viewer of the game at that version shares,
made once from the view of whichever viewer asked first (``view_common``: its text lines every
viewer has alike, the bytes of its game view's fields every viewer has alike), and each
viewer's own part. Over random play of every game, every viewer's view (its bytes and its text
lines) is the one made for it alone: a seat's own field or text taken into the shared part
would give the other viewers its value."""

from __future__ import annotations

import random

import pytest

from referee import stored
from referee.application import GameSettings, Referee
from referee.engine import labels
from referee.engine.registry import all_games, get_game
from referee.v1 import referee_pb2 as pb
from tests.application.support import plays, run

GAMES = sorted(game.info.type_id for game in all_games())
#: The random games played of each game type, to their end (every part of a view, a seat's
#: cards in a pot or shown to it, its last hand, comes up in them).
SEEDS = (3, 4)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game_type", GAMES)
def test_every_viewers_view_is_its_own_whichever_viewer_asked_first(
    game_type: str, seed: int
) -> None:
    async def scenario(referee: Referee) -> None:
        info = get_game(game_type).info
        players = min(4, info.max_players)
        created = await referee.create(
            game_type, players, seed=f"views {seed}", settings=GameSettings(public_seed=True)
        )
        game_id = created.game_id
        viewers = [*range(players), None]
        rng = random.Random(seed)
        async for _, _answer in plays(referee, created, seed):
            live = referee.games[game_id]
            # The seat that moved asked first (its answer); the others in a random order.
            for viewer in rng.sample(viewers, len(viewers)):
                shared = live.view(viewer)
                alone = live.table.view(viewer)
                assert shared.view == alone
                assert shared.data == stored.view_bytes(
                    game_id, players, alone, (), shared.holders
                ), f"viewer {viewer} at version {alone.version}"
                wire = pb.View.FromString(shared.data)
                assert tuple(wire.view_lines) == labels.view_lines(game_type, alone.game)
                # What every viewer's lines share, made from any viewer's view, is the same.
                first = live.latest.common
                assert first is not None
                assert labels.public_text(game_type, alone.game) == labels.public_text(
                    game_type, first[0].game
                )

    run(scenario)
