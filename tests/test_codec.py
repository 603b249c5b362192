"""The codec maps every command, event and view of every game onto its proto and back."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import codec
from referee.engine import FixedDeal, Table, all_games
from referee.engine.openings import CardOpening
from referee.engine.table_events import TableSettings
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


# --- the fast encoders against the straightforward ones (fill) -------------------------------


def _reference_equal(fast: Any, reference: Any) -> None:
    """The same message and the same bytes (deterministic or not)."""
    assert fast == reference
    assert fast.SerializeToString() == reference.SerializeToString()
    assert fast.SerializeToString(deterministic=True) == reference.SerializeToString(
        deterministic=True
    )


def _random_refereed_play(game_type: str, players: int, seed: int) -> Iterator[tuple[Table, int]]:  # type: ignore[type-arg]
    """A refereed table (card commitments, forfeits) played at random, with timeouts, the
    forfeited seats' default plays, sometimes an abort, and the reveal: yields the table and
    the version before each batch, as the server encodes them."""
    rng = random.Random(seed)
    table = Table.create(
        game_type,
        players=players,
        seed=str(seed).encode(),
        settings=TableSettings(card_commitments=True, forfeit_after_timeouts=2),
    )
    seen = 0
    while True:
        yield table, seen
        seen = table.version
        pending = table.pending()
        if not pending:
            return
        seat = rng.choice(pending)
        roll = rng.random()
        if not table.legal_commands(seat) or roll < 0.03:
            table.extend(table.time_out(seat))
        elif roll < 0.035 and table.version > 40:
            table.extend(table.abort("organiser"))
        else:
            table.submit(seat, rng.choice(table.legal_commands(seat)))
        forfeited = table.forfeited_play()
        if forfeited:
            table.extend(forfeited)
        if table.reveal_due():
            table.extend(table.reveal())


def _player_counts(game_type: str) -> list[int]:
    info = next(g.info for g in all_games() if g.info.type_id == game_type)
    return sorted({info.min_players, min(4, info.max_players), info.max_players})


@pytest.mark.parametrize("game_type", GAMES)
def test_fast_encoding_is_the_reference_encoding_over_random_play(game_type: str) -> None:
    """Every view (every seat and the spectator), every redacted event (with and without its
    description) and every legal command of random refereed games: the wire-byte encoders
    give exactly the messages ``fill`` builds. They are called directly, so a fallback to the
    reference cannot hide a difference."""
    for players in _player_counts(game_type):
        for seed in range(2):
            viewers = [*range(players), None]
            for table, seen in _random_refereed_play(game_type, players, seed):
                for index in range(seen, table.version):
                    for viewer in viewers:
                        event = table.redact(table.log[index], viewer)
                        memo = codec._event_memo(game_type, event)
                        sequence = codec._SEQUENCE_TAG + codec._UINT64[index + 1]
                        for data, describe in ((memo[2], False), (codec._described(memo), True)):
                            reference = codec.reference_event_to_proto(
                                game_type, event, index + 1, describe=describe
                            )
                            _reference_equal(pb.Event.FromString(sequence + data), reference)
                for viewer in viewers:
                    view = table.view(viewer)
                    reference_view = codec.reference_view_to_proto("g1", players, view)
                    fast_view = pb.View.FromString(codec._view_bytes("g1", players, view))
                    _reference_equal(fast_view, reference_view)
                    _reference_equal(codec.view_to_proto("g1", players, view), reference_view)
                    for command in view.legal_commands:
                        _reference_equal(
                            pb.Command.FromString(codec._command_bytes(game_type, command)),
                            codec.reference_command_to_proto(game_type, command),
                        )


@pytest.mark.parametrize("game_type", GAMES)
def test_views_encoded_twice_in_any_order_stay_the_same(game_type: str) -> None:
    """The memos (by value, by identity, the last tuple of each field) never hand one view's
    bytes to another: the views of one game, encoded in order and then again backwards."""
    players = _player_counts(game_type)[0]
    views = [
        table.view(viewer)
        for table, _ in _random_refereed_play(game_type, players, 7)
        for viewer in [*range(players), None]
    ][:600]
    first = [codec.view_to_proto("g", players, view).SerializeToString() for view in views]
    again = [codec.view_to_proto("g", players, view).SerializeToString() for view in views[::-1]]
    assert again[::-1] == first
    assert first == [
        codec.reference_view_to_proto("g", players, view).SerializeToString() for view in views
    ]


def test_a_mutable_value_is_never_encoded_from_a_stale_memo() -> None:
    """An encoding that met a mutable value (a non-frozen dataclass, a list where a tuple is
    declared) is not kept by identity: after the value changes, the bytes change too."""
    view = next(
        v
        for table, _ in _random_refereed_play("vampire-queen", 3, 1)
        for v in [table.view(0)]
        if v.game.trick
    )
    plays = list(view.game.trick)
    game = dataclasses.replace(view.game, trick=plays)  # a list, not a tuple
    before = codec.view_to_proto("g", 3, dataclasses.replace(view, game=game))
    plays.append(plays[0])
    after = codec.view_to_proto("g", 3, dataclasses.replace(view, game=game))
    assert len(after.vampire_queen.trick) == len(before.vampire_queen.trick) + 1
    assert after == codec.reference_view_to_proto("g", 3, dataclasses.replace(view, game=game))


def test_values_the_fast_encoders_refuse_fall_back_to_fill() -> None:
    """Out of range or of the wrong type: the fast path gives up and ``fill`` raises what it
    always did (or builds what it can)."""
    from referee.games.vampire_queen.model import PlaySet

    with pytest.raises(ValueError):
        codec.reference_command_to_proto("vampire-queen", PlaySet(1 << 40, 1, 0))
    with pytest.raises(ValueError):
        codec.command_to_proto("vampire-queen", PlaySet(1 << 40, 1, 0))
    with pytest.raises(TypeError):
        codec.command_to_proto("vampire-queen", PlaySet("8", 1, 0))  # type: ignore[arg-type]
    negative = codec.command_to_proto("vampire-queen", PlaySet(-3, 1, 0))
    assert negative == codec.reference_command_to_proto("vampire-queen", PlaySet(-3, 1, 0))
    assert negative.vampire_queen.play_set.value == -3


@dataclasses.dataclass(frozen=True)
class _Opened:
    openings: tuple[CardOpening, ...]


@dataclasses.dataclass(frozen=True)
class _Referee:
    """Nested messages (``None`` when absent: ``X | None`` would be a scalar to ``fill``)."""

    cards_opened: _Opened
    game_aborted: _Aborted


@dataclasses.dataclass(frozen=True)
class _Aborted:
    reason: str | None


_NONE: Any = None


@pytest.mark.parametrize(
    "value",
    [
        _Referee(_NONE, _NONE),
        _Referee(_Opened(()), _NONE),  # an empty repeated field: fill sets nothing
        _Referee(_NONE, _Aborted(None)),  # every field None: fill sets nothing
        _Referee(_NONE, _Aborted("")),  # an empty string is set: present
        _Referee(_Opened((CardOpening(1, 2, "Q", b"s", (b"p", b""), (0, 3), True),)), _NONE),
        _Referee(_Opened((CardOpening(0, 0, "", b"", ()),)), _Aborted("why")),
    ],
)
def test_nested_messages_are_present_exactly_when_fill_sets_them(value: _Referee) -> None:
    """A nested message is in the bytes when ``fill`` would set one of its fields, even to a
    default (then empty), and not when it sets none."""
    encoder = codec._compiled(_Referee, pb.RefereeEvent.DESCRIPTOR)
    reference = codec.fill(pb.RefereeEvent(), value)
    for _ in range(2):  # the second time from the memos
        fast = pb.RefereeEvent.FromString(encoder.encode(value))
        assert fast == reference
        assert fast.SerializeToString() == reference.SerializeToString()
        assert [f.name for f, _ in fast.ListFields()] == [f.name for f, _ in reference.ListFields()]
