"""The codec maps every command, event and view of every game onto its proto and back."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import codec
from referee.engine import FixedDeal, Table, all_games
from referee.v1 import referee_pb2 as pb

GAMES = [game.info.type_id for game in all_games()]


def _played(game_type: str, seed: int, steps: int) -> Table:  # type: ignore[type-arg]
    rng = random.Random(seed)
    info = next(g.info for g in all_games() if g.info.type_id == game_type)
    table = Table.create(game_type, players=info.min_players, seed=str(seed).encode())
    for _ in range(steps):
        if table.results() is not None:
            break
        seat = table.pending()[0]
        table.submit(seat, rng.choice(table.legal_commands(seat)))
    return table


@pytest.mark.parametrize("game_type", GAMES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 400))
def test_events_views_and_commands_round_trip(game_type: str, seed: int, steps: int) -> None:
    table = _played(game_type, seed, steps)
    for sequence, event in enumerate(table.log, start=1):
        message = codec.event_to_proto(game_type, event, sequence)
        wire = pb.Event.FromString(message.SerializeToString())
        assert wire.sequence == sequence
        assert codec.event_from_proto(wire) == event
    for viewer in [None, *range(table.config.players)]:
        view = table.view(viewer)
        message = codec.view_to_proto("g1", table.config.players, view)
        assert codec.view_from_proto(pb.View.FromString(message.SerializeToString())) == view
        for command in view.legal_commands:
            assert codec.command_from_proto(codec.command_to_proto(game_type, command)) == (
                game_type,
                command,
            )


def test_empty_command_is_a_codec_error_naming_the_field() -> None:
    with pytest.raises(codec.CodecError) as caught:
        codec.command_from_proto(pb.Command())
    assert caught.value.field == "command.game"
    with pytest.raises(codec.CodecError) as caught:
        codec.command_from_json({"vampireQueen": {}})
    assert caught.value.field == "command.vampire_queen.kind"
    with pytest.raises(codec.CodecError):
        codec.command_from_json({"vampireQueen": {"noSuchMove": {}}})


def test_fixed_deal_round_trip() -> None:
    deal = FixedDeal(decks=(("1", "Q"), ("2",)), picks=(3, 0))
    assert codec.deal_from_proto(codec.deal_to_proto(deal)) == deal
    assert codec.deal_from_proto(pb.FixedDeal()) is None


@pytest.mark.parametrize("game_type", GAMES)
def test_the_proto_and_the_model_name_the_same_commands_and_events(game_type: str) -> None:
    """A game lists its commands and events once, in its model (``Command = A | B``, read by
    ``union_members``); its proto must offer exactly those, and the ``oneof`` lines of
    ``Command``, ``Event`` and ``View`` must name the game."""
    game = next(g for g in all_games() if g.info.type_id == game_type)
    field = codec.game_field(game_type)
    for message, classes in [(pb.Command, game.command_types), (pb.Event, game.event_types)]:
        assert field in {f.name for f in message.DESCRIPTOR.oneofs_by_name["game"].fields}
        inner = message.DESCRIPTOR.fields_by_name[field].message_type
        cases = {f.name for f in inner.oneofs_by_name["kind"].fields}
        assert cases == {codec._snake(cls.__name__) for cls in classes}
    assert field in {f.name for f in pb.View.DESCRIPTOR.oneofs_by_name["game"].fields}
