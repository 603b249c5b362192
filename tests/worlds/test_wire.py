"""Worlds over the wire: the SDK rebuilds a seat's knowledge from its stream messages only
(``referee_bot.worlds``) and samples the same worlds as the library does from the table."""

from __future__ import annotations

import pytest

from referee.codec import event_to_proto, view_to_proto
from referee.engine import all_games
from referee.engine.registry import game_module
from referee.search.worlds import MODULE, check_world, knowledge_of, sample_world
from referee.v1 import referee_pb2
from referee_bot.worlds import SeatKnowledge, knowledge_from_stream
from tests.worlds.support import random_position

SAMPLED = [g.info.type_id for g in all_games() if game_module(g.info.type_id, MODULE)]


def _stream(table, seat):  # type: ignore[no-untyped-def]
    """The seat's StreamGame messages, one event each, as the server sends them."""
    game_type, players = table.config.game_type, table.config.players
    view = view_to_proto("g", players, table.view(seat))
    for sequence, event in enumerate(table.redacted_log(seat), 1):
        yield referee_pb2.StreamGameResponse(
            event=event_to_proto(game_type, event, sequence, describe=True), view=view
        )


@pytest.mark.parametrize("game_type", SAMPLED)
@pytest.mark.parametrize("refereed", [False, True])
def test_the_stream_is_all_the_sampler_needs(game_type: str, refereed: bool) -> None:
    table = random_position(
        game_type, 2 if game_type != "vampire-queen" else 3, 17, 60, refereed=refereed
    )
    seat = 1
    options = dict(table.config.options)
    known = knowledge_from_stream(_stream(table, seat), options)
    assert known == knowledge_of(table, seat)
    world = SeatKnowledge(options)
    for message in _stream(table, seat):
        world.feed(message)
    sampled = world.sample(5, check=True)
    check_world(sampled, knowledge_of(table, seat))
    assert sampled.events == sample_world(knowledge_of(table, seat), 5).events
