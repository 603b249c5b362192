"""The stored form (:mod:`referee.stored`): batches, deals and commands read back as written,
for every game, and stored events that do not form whole batches refused where they break."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import codec, stored
from referee.engine import FixedDeal, Table, TableSettings, all_games
from referee.v1 import referee_pb2 as pb

GAMES = {game.info.type_id: game for game in all_games()}

decided_stamps = st.none() | st.builds(
    stored.Decided,
    seat=st.integers(0, 11),
    decision_ms=st.integers(0, 2**40),
    by=st.sampled_from(list(stored.DecidedBy)),
    client_decision_ms=st.integers(0, 2**32 - 1),
)


def _batches(game_type: str, seed: int, steps: int) -> list[list[Any]]:
    """A refereed game's log (the commitment first) cut where the table cut it: the opening,
    then one batch per command of random legal play."""
    rng = random.Random(seed)
    players = GAMES[game_type].info.min_players
    refereed = Table.create(game_type, players, seed=str(seed).encode(), settings=TableSettings())
    batches = [list(refereed.log)]
    for _ in range(steps):
        if refereed.over:
            break
        seat = refereed.pending()[0]
        batches.append(refereed.submit(seat, rng.choice(refereed.legal_commands(seat))))
    return batches


@pytest.mark.parametrize("game_type", sorted(GAMES))
@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 300),
    stamps=st.lists(st.tuples(st.integers(0, 2**45), decided_stamps), min_size=301),
)
def test_batches_read_back_as_written(
    game_type: str, seed: int, steps: int, stamps: list[tuple[int, stored.Decided | None]]
) -> None:
    payloads: list[bytes] = []
    written = []
    for batch, (recorded, decided) in zip(_batches(game_type, seed, steps), stamps, strict=False):
        first = len(payloads) + 1
        payloads += stored.encode_batch(game_type, batch, first, recorded, decided)
        written.append(stored.Batch(first, tuple(batch), recorded, decided))
    assert list(stored.read_batches(payloads)) == written
    # Reading may start at any batch (a referee catching up reads from its version on).
    if len(written) > 1:
        middle = written[len(written) // 2]
        assert next(iter(stored.read_batches(payloads[middle.first - 1 :]))) == middle
    assert [stored.recorded_ms(payloads[b.first - 1]) for b in written] == [
        b.recorded_ms for b in written
    ]
    messages = stored.decode_events(payloads)
    # Only the first event of a batch carries the decision's stamp.
    for batch in written:
        for offset in range(1, len(batch.events)):
            assert not messages[batch.first - 1 + offset].HasField("decided")


def test_events_from_before_stamps_are_batches_of_one() -> None:
    payloads = [
        codec.event_to_proto("vampire-queen", event, sequence).SerializeToString()
        for sequence, event in enumerate(_batches("vampire-queen", 3, 2)[1], start=1)
    ]
    batches = list(stored.read_batches(payloads))
    assert [(b.first, b.last, b.recorded_ms, b.decided) for b in batches] == [
        (s, s, 0, None) for s in range(1, len(payloads) + 1)
    ]


def _log(*shape: tuple[int, int]) -> list[pb.Event]:
    return [pb.Event(sequence=s, batch_end_sequence=end) for s, end in shape]


@pytest.mark.parametrize(
    ("log", "sequence", "says"),
    [
        (_log((1, 1), (2, 4), (3, 4)), 2, "batch end 4 is outside the log"),
        (_log((1, 1), (2, 1)), 2, "batch end 1 is outside the log"),
        (_log((1, 3), (2, 2), (3, 3)), 3, "inconsistent batch ends"),
        (_log((1, 2), (3, 2)), 2, "found sequence 3"),
    ],
)
def test_broken_batches_are_refused_where_they_break(
    log: list[pb.Event], sequence: int, says: str
) -> None:
    with pytest.raises(stored.StoredFormError, match=says) as caught:
        list(stored.batch_spans(log))
    assert caught.value.sequence == sequence


cards = st.text("0123456789QKJABCDEFGHR-", min_size=1, max_size=4)


@settings(max_examples=50, deadline=None)
@given(
    decks=st.lists(st.lists(cards, max_size=30).map(tuple), max_size=4).map(tuple),
    picks=st.lists(st.integers(0, 2**31 - 1), max_size=10).map(tuple),
)
def test_deal_round_trip(decks: tuple[tuple[str, ...], ...], picks: tuple[int, ...]) -> None:
    deal = FixedDeal(decks=decks, picks=picks)
    expected = deal if decks or picks else None  # an empty deal is no deal
    assert stored.decode_deal(stored.encode_deal(deal)) == expected
    assert stored.encode_deal(None) == b""
    assert stored.decode_deal(b"") is None


@pytest.mark.parametrize("game_type", sorted(GAMES))
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 200))
def test_a_command_payload_is_protobufs_deterministic_serialization(
    game_type: str, seed: int, steps: int
) -> None:
    """The payload is written once from the value, and is the bytes a deterministic
    serialization of the command's message writes: payloads stored before (and their
    fingerprints, which tell a retry from another command) stay equal."""
    table = Table.create(game_type, GAMES[game_type].info.min_players, seed=str(seed).encode())
    rng = random.Random(seed)
    for _ in range(steps):
        if table.over:
            break
        seat = table.pending()[0]
        legal = table.legal_commands(seat)
        for command in legal:
            message = codec.command_to_proto(game_type, command)
            expected = message.SerializeToString(deterministic=True)
            assert stored.encode_command(game_type, command) == expected
        table.submit(seat, rng.choice(legal))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 100))
def test_command_payloads_round_trip_with_equal_bytes(seed: int, steps: int) -> None:
    table = Table.create("sleeping-queens", players=3, seed=str(seed).encode())
    rng = random.Random(seed)
    for _ in range(steps):
        if table.over:
            break
        seat = table.pending()[0]
        command = rng.choice(table.legal_commands(seat))
        message = codec.command_to_proto("sleeping-queens", command)
        payload = stored.encode_command("sleeping-queens", command)
        assert stored.decode_command(payload) == message
        assert stored.read_command(payload) == ("sleeping-queens", command)
        _, decoded = stored.read_command(payload)
        assert stored.encode_command("sleeping-queens", decoded) == payload
        table.submit(seat, command)
