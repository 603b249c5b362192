"""No hidden information reaches a seat (VQ-20..22): not in events, views, responses or errors.

Two angles: (1) a whole random game, inspecting everything each seat (and a spectator)
received, and searching all of it for the seed and the deal orders; (2) a differential test:
two games whose deals differ only in cards hidden from seats 0 and 1 must look byte-identical
to those seats, errors included.
"""

from __future__ import annotations

import random
import uuid
from collections import defaultdict

import grpc

from referee import codec
from referee.engine import labels
from referee.engine.chance import shuffled
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    CARD,
    DECK,
    RPC_TIMEOUT,
    Failure,
    Game,
    clear_card_digests,
    create_game,
    event_kind,
    fails,
    failure_of,
    fixed_deal,
    play_random,
    read_ok,
    read_until,
    stream_request,
    submit,
    submit_request,
    summary,
    view,
    vq_command,
)

GAME_TYPE = "vampire-queen"
SEED = "leak-check-seed-7f3a9c2e51"
PLAYERS = 4
HAND = 13


def _packed(values: list[int]) -> bytes:
    """Values as consecutive varints (how a packed repeated int32 field carries them)."""
    out = bytearray()
    for value in values:
        while True:
            byte = value & 0x7F
            value >>= 7
            out.append(byte | (0x80 if value else 0))
            if not value:
                break
    return bytes(out)


def _secrets_of_shuffle(index: int) -> tuple[list[int], dict[int, list[int]], list[bytes]]:
    """(deck order as values, sorted hand by seat, byte patterns that would reveal them)."""
    order = shuffled(DECK, SEED.encode(), index)
    values = [CARD[c] for c in order]
    hands = {s: sorted(values[s * HAND : (s + 1) * HAND]) for s in range(PLAYERS)}
    patterns = [
        _packed(values),  # the whole order, as a proto would carry it
        _packed(values[: PLAYERS * HAND]),  # the dealt part, in deal order
        _packed(values[PLAYERS * HAND :]),  # the undealt cards, set aside unseen (VQ-21)
    ]
    for sep in ("", ",", " ", ", "):
        patterns.append(sep.join(order).encode())
        patterns.append(sep.join(str(v) for v in values).encode())
    patterns.append(repr(order).encode())
    patterns.append(repr(values).encode())
    return values, hands, patterns


def _hand_patterns(hand: list[int]) -> list[bytes]:
    """How another seat's (sorted) hand would show if it leaked."""
    return [
        _packed(hand),  # as the packed ``cards`` field of a HandDealt would carry it
        repr(hand).encode(),
        repr(tuple(hand)).encode(),
        ", ".join(map(str, hand)).encode(),
    ]


def test_a_whole_random_game_leaks_nothing(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_game(stub, players=PLAYERS, rounds=2, seed=SEED)
    received: dict[int | None, list[bytes]] = defaultdict(list)
    errors: dict[int, list[Failure]] = defaultdict(list)

    def probe(seat: int, seat_view: pb.View) -> None:
        """Before each move: the view, plus rejected attempts by the mover and another seat."""
        received[seat].append(seat_view.SerializeToString())
        other = (seat + 1) % PLAYERS
        attempts = [
            (seat, vq_command(play_set=(rng.randint(1, 13), 9, 0))),
            (seat, vq_command(play_card=rng.randint(1, 14))),
            (other, vq_command(pass_=True)),
            (other, vq_command(play_set=(rng.randint(1, 14), 1, 0))),
        ]
        for who, command in attempts:
            if command in seat_view.legal_commands and who == seat:
                continue
            try:
                submit(stub, game, who, command)
            except grpc.RpcError as error:
                failure = failure_of(error)
                errors[who].append(failure)
                received[who].append(failure.message.encode() + failure.raw)

    played = play_random(stub, game, rng, on_view=probe)
    assert summary(stub, game).game_over
    for (seat, _, _), response in zip(played.commands, played.responses, strict=True):
        received[seat].append(response.SerializeToString())
    streams = {v: read_ok(stub, stream_request(game, v)) for v in [*range(PLAYERS), None]}
    public = [
        summary(stub, game).SerializeToString(),
        stub.ListGames(pb.ListGamesRequest(), timeout=RPC_TIMEOUT).SerializeToString(),
    ]
    for v, messages in streams.items():
        # The seed goes to the organiser only (VQ-21/VQ-22: hands stay secret after the end):
        # the reveal everyone sees is empty; everything, the reveal included, is searched.
        reveal = messages[-1].event.referee
        assert reveal.WhichOneof("kind") == "seed_revealed" and not reveal.seed_revealed.seed
        assert not reveal.seed_revealed.salt and not reveal.seed_revealed.HasField("deal")
        received[v].extend(m.SerializeToString() for m in messages)
        received[v].append(view(stub, game, v).SerializeToString())
        received[v].extend(public)
    assert sum(len(e) for e in errors.values()) > 20, "the probe made too few rejected attempts"

    shuffles = sorted(
        {
            m.event.vampire_queen.round_started.shuffle
            for m in streams[None]
            if event_kind(m.event) == "round_started"
        }
    )
    assert len(shuffles) == 2, "two rounds, two deals"
    for viewer, messages in streams.items():
        dealt_rounds = 0
        for message in messages:
            if event_kind(message.event) == "round_started":
                dealt_rounds += 1
                _, hands, _ = _secrets_of_shuffle(dealt_rounds - 1)
            if event_kind(message.event) == "hand_dealt":
                dealt = message.event.vampire_queen.hand_dealt
                assert dealt.count == HAND
                if dealt.seat == viewer:
                    # Not vacuous: the deal the seed gives is the one the server dealt.
                    assert list(dealt.cards) == hands[viewer]
                else:
                    assert not dealt.cards, (viewer, dealt)
            seen = message.view
            # The display lines say what the view's fields say, nothing more (VQ-20).
            assert seen.view_lines and list(seen.view_lines) == list(
                labels.view_lines(GAME_TYPE, codec.view_from_proto(seen).game)
            )
            if viewer is None:
                assert not any("your hand" in line for line in seen.view_lines)
                assert not seen.HasField("seat") and not seen.vampire_queen.hand
                assert not seen.legal_commands
            else:
                assert seen.seat == viewer
                assert len(seen.vampire_queen.hand) == seen.vampire_queen.hand_sizes[viewer]

    for viewer, chunks in received.items():
        everything = b"\x00".join(chunks)
        assert SEED.encode() not in everything, f"the seed reached {viewer}"
        for index in shuffles:
            _, hands, patterns = _secrets_of_shuffle(index)
            for pattern in patterns:
                assert pattern not in everything, f"deal order {index} reached {viewer}"
            for other, hand in hands.items():
                if other == viewer or any(hand == hands[s] for s in hands if s != other):
                    continue
                for pattern in _hand_patterns(hand):
                    assert pattern not in everything, f"seat {other}'s hand reached {viewer}"
    for seat, failures in errors.items():
        for failure in failures:
            assert failure.code in (
                grpc.StatusCode.INVALID_ARGUMENT,
                grpc.StatusCode.FAILED_PRECONDITION,
            ), failure
            assert set(failure.metadata) <= {"rule_id", "seat"}, failure.metadata
            assert failure.metadata.get("seat") in (None, str(seat))


def _twin_games(stub: pb_grpc.RefereeServiceStub) -> tuple[Game, Game]:
    """Two 3-seat games whose deals differ only in seat 2's hand and the undealt cards."""
    deck = random.Random(5).sample(DECK, len(DECK))
    twin = deck[: 2 * HAND] + deck[2 * HAND :][::-1]
    pick = 2  # seat 2 holds the 15, seat 0 the 20 and leads
    assert sorted(twin[2 * HAND : 3 * HAND]) != sorted(deck[2 * HAND : 3 * HAND])
    return (
        create_game(stub, players=3, deal=fixed_deal(deck, pick)),
        create_game(stub, players=3, deal=fixed_deal(twin, pick)),
    )


def _attempts() -> list[pb.Command]:
    commands = [vq_command(pass_=True)]
    commands += [vq_command(lead_hunter=h) for h in (7, 15, 20)]
    commands += [vq_command(play_card=v) for v in range(0, 16)]
    commands += [
        vq_command(play_set=(v, c, q)) for v in range(16) for c in (0, 1, 2, 5) for q in (0, 1)
    ]
    return commands


def _outcome(stub: pb_grpc.RefereeServiceStub, game: Game, seat: int, command: pb.Command) -> bytes:
    """What a seat learns from submitting a command that is not legal for it, game id blanked."""
    failure = fails(stub.SubmitCommand, submit_request(game, seat, command, uuid.uuid4().hex))
    text = f"{failure.code.name}|{failure.message}".encode() + b"|" + failure.raw
    return text.replace(game.game_id.encode(), b"<game>")


def _as_seen_by(stub: pb_grpc.RefereeServiceStub, game: Game, seat: int) -> list[bytes]:
    """The seat's view and its whole stream so far, game id and commitments blanked (each game
    commits to its own secret seed, and to the deal salted with it: docs/fairness.md)."""
    public = summary(stub, game)
    version = public.version
    messages = [view(stub, game, seat), *read_until(stub, stream_request(game, seat), version)]
    blanks = [
        (game.game_id.encode(), b"<game>"),
        (public.seed_commitment.encode(), b"<commitment>"),
        (public.deal_commitment.encode(), b"<deal commitment>"),
    ]
    seen = []
    for message in messages:
        if isinstance(message, pb.StreamGameResponse):  # when it happened is not a card
            message.event.ClearField("recorded_unix_ms")
            message.event.decided.ClearField("decision_ms")
            clear_card_digests(message.event)
        data = message.SerializeToString(deterministic=True)
        for secret, blank in blanks:
            data = data.replace(secret, blank)
        seen.append(data)
    return seen


def test_what_a_seat_learns_does_not_depend_on_hidden_cards(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    first, second = _twin_games(stub)
    assert view(stub, first, 2).vampire_queen.hand != view(stub, second, 2).vampire_queen.hand
    commands = _attempts()

    def compare(seat: int) -> int:
        legal = set(
            c.SerializeToString(deterministic=True) for c in view(stub, first, seat).legal_commands
        )
        compared = 0
        for command in commands:
            if command.SerializeToString(deterministic=True) in legal:
                continue
            assert _outcome(stub, first, seat, command) == _outcome(stub, second, seat, command)
            compared += 1
        assert _as_seen_by(stub, first, seat) == _as_seen_by(stub, second, seat)
        return compared

    # Seat 0 leads: every illegal lead and every not-your-turn of seat 1 look the same.
    assert compare(0) > 80 and compare(1) > 80
    lead = next(
        c
        for c in view(stub, first, 0).legal_commands
        if c.vampire_queen.WhichOneof("kind") == "play_set" and c.vampire_queen.play_set.count == 1
    )
    for game in (first, second):
        submit(stub, game, 0, lead)
    # Seat 1 follows: its illegal follows, and seat 0's not-your-turn, look the same too.
    assert compare(1) > 80 and compare(0) > 80
    assert summary(stub, first).version == summary(stub, second).version
