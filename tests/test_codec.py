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
from referee import stored as stored_form
from referee.engine import FixedDeal, Table, all_games
from referee.engine.openings import CardOpening
from referee.engine.outcomes import Ranking
from referee.engine.table_events import TableSettings
from referee.v1 import referee_pb2 as pb
from tests import protobuf_reference as reference

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


# --- the codec's bytes against protobuf's own ---------------------------------------------------


def _same_bytes(data: bytes, reference: Any) -> None:
    """Exactly the bytes protobuf writes for the reference message (deterministic or not),
    and that message when parsed."""
    assert data == reference.SerializeToString()
    assert data == reference.SerializeToString(deterministic=True)
    assert type(reference).FromString(data) == reference


def _described(
    game_type: str,
    event: Any,
    sequence: int,
    stamps: tuple[int, int],
    decided: stored_form.Decided | None,
) -> pb.Event:
    """The reference message of ``event`` as a viewer receives it, with its batch's stamps."""
    return reference.event(
        game_type,
        event,
        sequence,
        batch_end=stamps[0],
        recorded_ms=stamps[1],
        decided=None if decided is None else stored_form.decided_to_proto(decided),
        describe=True,
    )


def _random_refereed_play(game_type: str, players: int, seed: int) -> Iterator[tuple[Table, int]]:  # type: ignore[type-arg]
    """A refereed table (card commitments, forfeits, finishers ranked first) played at
    random, with timeouts, resignations, abandoned seats, the default plays of the seats
    that left, sometimes an abort, and the reveal: yields the table and the version before
    each batch, as the server encodes them."""
    rng = random.Random(seed)
    table = Table.create(
        game_type,
        players=players,
        seed=str(seed).encode(),
        settings=TableSettings(
            card_commitments=True, forfeit_after_timeouts=2, ranking=Ranking.FINISHERS_FIRST
        ),
    )
    seen = 0
    while True:
        yield table, seen
        seen = table.version
        forfeited = table.forfeited_play()
        if forfeited:
            table.extend(forfeited)
            continue
        if table.reveal_due():
            table.extend(table.reveal())
            continue
        pending = table.pending()
        if not pending:
            return
        seat = rng.choice(pending)
        roll = rng.random()
        if not table.legal_commands(seat) or roll < 0.03:
            table.extend(table.time_out(seat))
        elif roll < 0.035 and table.version > 40:
            table.extend(table.abort("organiser"))
        elif roll < 0.04 and len(table.status.left) < players - 1:
            table.extend(table.resign(seat) if roll < 0.0375 else table.abandon(seat, "gone"))
        else:
            table.submit(seat, rng.choice(table.legal_commands(seat)))


def _player_counts(game_type: str) -> list[int]:
    info = next(g.info for g in all_games() if g.info.type_id == game_type)
    return sorted({info.min_players, min(4, info.max_players), info.max_players})


@pytest.mark.parametrize("game_type", GAMES)
def test_the_codec_writes_protobufs_own_bytes_over_random_play(game_type: str) -> None:
    """Every view (every seat and the spectator), every redacted event (stored, and as a
    viewer receives it: stamped and described) and every legal command of random refereed
    games: the codec's bytes are those protobuf serializes for the same values, built through
    its own message API (tests/protobuf_reference.py). No fallback can hide a difference."""
    decided = stored_form.Decided(1, 1234, 5, stored_form.DecidedBy.TIMEOUT)
    for players in _player_counts(game_type):
        for seed in range(2):
            viewers = [*range(players), None]
            for table, seen in _random_refereed_play(game_type, players, seed):
                for index in range(seen, table.version):
                    sequence = index + 1
                    unredacted = table.log[index]
                    _same_bytes(
                        codec.event_bytes(game_type, unredacted, sequence),
                        reference.event(game_type, unredacted, sequence),
                    )
                    stamps = (table.version, 1_700_000_000_000 + index)
                    first = decided if index == seen else None
                    for viewer in viewers:
                        event = table.redact(unredacted, viewer)
                        _same_bytes(
                            stored_form.event_bytes(
                                game_type, event, sequence, *stamps, first, described=True
                            ),
                            _described(game_type, event, sequence, stamps, first),
                        )
                for viewer in viewers:
                    view = table.view(viewer)
                    _same_bytes(
                        codec.view_bytes("g1", players, view),
                        reference.view("g1", players, view),
                    )
                    for command in view.legal_commands:
                        _same_bytes(
                            codec.command_bytes(game_type, command),
                            reference.command(game_type, command),
                        )


@pytest.mark.parametrize("game_type", GAMES)
def test_bytes_made_from_shared_parts_are_protobufs_own(game_type: str) -> None:
    """The live game writes the views of a batch from the fields the first of them shares
    with the others (``view_common``: whichever viewer asked first), and a viewer's copy of an
    event it sees whole from the event's stored bytes (``stored.described``): over random
    refereed play of every game, every viewer's bytes made so are protobuf's own."""
    for players in _player_counts(game_type):
        viewers = [*range(players), None]
        for table, seen in _random_refereed_play(game_type, players, 0):
            stamps = (table.version, 1_700_000_000_000 + seen)
            for first in viewers:
                like = table.view(first)
                common = codec.view_common("g1", players, like)
                for viewer in viewers:
                    view = like if viewer == first else table.view(viewer, like)
                    _same_bytes(
                        codec.view_bytes("g1", players, view, (), common),
                        reference.view("g1", players, view),
                    )
            for index in range(seen, table.version):
                event, sequence = table.log[index], index + 1
                stored = stored_form.event_bytes(game_type, event, sequence, *stamps)
                _same_bytes(
                    stored_form.described(game_type, event, stored),
                    _described(game_type, event, sequence, stamps, None),
                )


def test_values_protobuf_refuses_are_refused() -> None:
    """Out of range or of the wrong type: the errors protobuf raises for the same values."""
    from referee.games.vampire_queen.model import PlaySet

    for value, error in [(1 << 40, ValueError), ("8", TypeError), (8.0, TypeError)]:
        with pytest.raises(error):
            reference.command("vampire-queen", PlaySet(value, 1, 0))  # type: ignore[arg-type]
        with pytest.raises(error):
            codec.command_bytes("vampire-queen", PlaySet(value, 1, 0))  # type: ignore[arg-type]
    negative = PlaySet(-3, 1, 0)
    _same_bytes(
        codec.command_bytes("vampire-queen", negative), reference.command("vampire-queen", negative)
    )
    assert codec.command_to_proto("vampire-queen", negative).vampire_queen.play_set.value == -3


@dataclasses.dataclass(frozen=True)
class _Opened:
    openings: tuple[CardOpening, ...]


@dataclasses.dataclass(frozen=True)
class _Aborted:
    reason: str | None


@dataclasses.dataclass(frozen=True)
class _Referee:
    """Nested messages that may be absent (``None``); both are cases of one ``oneof``, so at
    most one is set."""

    cards_opened: _Opened | None
    game_aborted: _Aborted | None


@pytest.mark.parametrize(
    "value",
    [
        _Referee(None, None),
        _Referee(_Opened(()), None),  # an empty repeated field: present, empty
        _Referee(None, _Aborted(None)),  # every field None: present, empty
        _Referee(None, _Aborted("")),  # a default string: present, empty
        _Referee(
            _Opened((CardOpening.from_wire(1, 2, "Q", b"s", (b"p", b""), (0, 3), True),)), None
        ),
        _Referee(_Opened((CardOpening.from_wire(0, 0, "", b"", ()),)), None),  # an empty item
        _Referee(None, _Aborted("why")),
    ],
)
def test_nested_messages_are_present_exactly_when_not_none(value: _Referee) -> None:
    """A nested value is in the bytes whenever it is not ``None``, even when all its fields
    are defaults (then empty), as protobuf writes a message that was set; and it reads back."""
    plan = codec.plan(_Referee, pb.RefereeEvent.DESCRIPTOR)
    expected = reference.fill(pb.RefereeEvent(), value)
    _same_bytes(plan.encode(value), expected)
    present = {f.name for f, _ in expected.ListFields()}
    assert present == {name for name in ("cards_opened", "game_aborted") if getattr(value, name)}
    back = plan.decode(pb.RefereeEvent.FromString(plan.encode(value)))
    assert back.cards_opened == value.cards_opened
