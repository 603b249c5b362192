"""SubmitCommand: rule violations, turn and game-over preconditions, malformed commands,
idempotency by command id and optimistic concurrency. A rejected command changes nothing."""

from __future__ import annotations

import itertools
import random

import grpc
import pytest

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from referee.v1 import vampire_queen_pb2 as vq
from tests.server.conftest import (
    Failure,
    Game,
    assert_bad_request,
    create_game,
    fails,
    play_to_end,
    snapshot,
    submit,
    submit_request,
    summary,
    view,
    vq_command,
)


def leader_of(stub: pb_grpc.RefereeServiceStub, game: Game) -> int:
    pending = list(summary(stub, game).pending_seats)
    assert len(pending) == 1
    return pending[0]


def rejected(
    stub: pb_grpc.RefereeServiceStub, game: Game, request: pb.SubmitCommandRequest
) -> Failure:
    """Submit a command that must be rejected; checks that nothing changed."""
    before = snapshot(stub, game)
    failure = fails(stub.SubmitCommand, request)
    assert snapshot(stub, game) == before, "a rejected command changed the game or a view"
    assert failure.code not in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL), failure
    return failure


def single_card_lead(leader_view: pb.View) -> pb.Command:
    for command in leader_view.legal_commands:
        play = command.vampire_queen
        if play.WhichOneof("kind") == "play_set" and play.play_set.count == 1:
            return command
    raise AssertionError("a leader with 13 cards can always lead one card")


def test_leader_passing_is_a_rule_violation_vq6(stub: pb_grpc.RefereeServiceStub) -> None:
    game = create_game(stub)
    leader = leader_of(stub, game)
    failure = rejected(stub, game, submit_request(game, leader, vq_command(pass_=True)))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.info is not None and failure.info.reason == "RULE_VIOLATION"
    assert failure.rule_id == "VQ-6"


def test_following_with_a_wrong_count_is_a_rule_violation_vq7(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    game = create_game(stub, seed="vq7")
    leader = leader_of(stub, game)
    lead = single_card_lead(view(stub, game, leader))
    submit(stub, game, leader, lead)
    follower = leader_of(stub, game)
    assert follower == (leader + 1) % game.players
    failure = rejected(stub, game, submit_request(game, follower, vq_command(play_set=(13, 2, 0))))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.info is not None and failure.info.reason == "RULE_VIOLATION"
    assert failure.rule_id == "VQ-7"


def test_not_your_turn_is_failed_precondition_with_rule_id(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    game = create_game(stub)
    leader = leader_of(stub, game)
    other = (leader + 1) % game.players
    failure = rejected(stub, game, submit_request(game, other, vq_command(pass_=True)))
    assert failure.code is grpc.StatusCode.FAILED_PRECONDITION, failure
    assert failure.precondition is not None and failure.precondition.violations
    assert failure.rule_id and failure.rule_id.startswith("VQ-"), failure.metadata


def test_command_after_game_over_is_failed_precondition(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_game(stub)
    play_to_end(stub, game, rng)
    for seat in range(game.players):
        for command in (vq_command(pass_=True), vq_command(play_set=(1, 1, 0))):
            failure = rejected(stub, game, submit_request(game, seat, command))
            assert failure.code is grpc.StatusCode.FAILED_PRECONDITION, failure
            assert failure.precondition is not None
            assert failure.rule_id, failure.metadata


MALFORMED = [
    pytest.param(lambda r: r.command.CopyFrom(pb.Command()), "command", id="empty-game-oneof"),
    pytest.param(
        lambda r: r.command.CopyFrom(pb.Command(vampire_queen=vq.VampireQueenCommand())),
        "command",
        id="empty-kind-oneof",
    ),
    pytest.param(lambda r: r.ClearField("command"), "command", id="no-command"),
    pytest.param(lambda r: r.ClearField("command_id"), "command_id", id="no-command-id"),
    pytest.param(lambda r: setattr(r, "command_id", "x" * 10_000), "command_id", id="huge-id"),
]


@pytest.mark.parametrize(("spoil", "bad_field"), MALFORMED)
def test_malformed_command_is_invalid_argument_bad_request(
    stub: pb_grpc.RefereeServiceStub, spoil: object, bad_field: str
) -> None:
    game = create_game(stub)
    leader = leader_of(stub, game)
    request = submit_request(game, leader, single_card_lead(view(stub, game, leader)))
    spoil(request)  # type: ignore[operator]
    failure = rejected(stub, game, request)
    assert_bad_request(failure, bad_field)


def test_empty_kind_names_the_kind_field(stub: pb_grpc.RefereeServiceStub) -> None:
    game = create_game(stub)
    request = submit_request(
        game, leader_of(stub, game), pb.Command(vampire_queen=vq.VampireQueenCommand())
    )
    failure = rejected(stub, game, request)
    assert_bad_request(failure, "command.vampire_queen")


def test_same_command_id_twice_is_applied_once(stub: pb_grpc.RefereeServiceStub) -> None:
    game = create_game(stub)
    leader = leader_of(stub, game)
    command = single_card_lead(view(stub, game, leader))
    first = submit(stub, game, leader, command, command_id="retry-me")
    after_first = snapshot(stub, game)
    again = submit(stub, game, leader, command, command_id="retry-me")
    assert not first.duplicate and again.duplicate
    assert (again.first_sequence, again.last_sequence) == (
        first.first_sequence,
        first.last_sequence,
    )
    assert snapshot(stub, game) == after_first, "the retry changed the game"
    # A stale expected_version on a retry, and the log appended once: tests/application.


def test_same_command_id_for_a_different_command_is_invalid_argument(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    game = create_game(stub)
    leader = leader_of(stub, game)
    legal = [
        c
        for c in view(stub, game, leader).legal_commands
        if c.vampire_queen.WhichOneof("kind") == "play_set"
    ]
    submit(stub, game, leader, legal[0], command_id="once")
    follower = leader_of(stub, game)
    # Another command under the same id, by the same seat and by another seat.
    for seat, command in ((leader, legal[1]), (follower, vq_command(pass_=True))):
        failure = rejected(stub, game, submit_request(game, seat, command, command_id="once"))
        assert_bad_request(failure, "command_id")


def test_retried_rejected_command_returns_the_same_error(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    game = create_game(stub)
    leader = leader_of(stub, game)
    other = (leader + 1) % game.players
    for seat, command_id in ((leader, "illegal"), (other, "not-my-turn")):
        request = submit_request(game, seat, vq_command(pass_=True), command_id=command_id)
        first = rejected(stub, game, request)
        second = rejected(stub, game, request)
        assert second.same_as(first), (first, second)


def test_expected_version_mismatch_is_aborted_with_current_version(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    game = create_game(stub)
    leader = leader_of(stub, game)
    command = single_card_lead(view(stub, game, leader))
    version = summary(stub, game).version
    # Every kind of wrong version: tests/application/test_commands.py.
    failure = rejected(stub, game, submit_request(game, leader, command, expected_version=0))
    assert failure.code is grpc.StatusCode.ABORTED, failure
    assert failure.metadata.get("current_version") == str(version), failure.metadata
    accepted = submit(stub, game, leader, command, expected_version=version)
    assert accepted.first_sequence == version + 1


def test_random_game_plays_to_the_end_through_the_api(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_game(stub, players=5, rounds=2)
    played = play_to_end(stub, game, rng)
    sequences = [(r.first_sequence, r.last_sequence) for r in played.responses]
    # Commands appended consecutive, non-overlapping runs of events after the opening deal.
    assert sequences[0][0] == game.created.game.version + 1
    for (_, last), (first, _) in itertools.pairwise(sequences):
        assert first == last + 1
    final = summary(stub, game)
    assert final.version == sequences[-1][1] + 1  # then the referee revealed the seed
    assert final.game_over and not final.pending_seats and len(final.results) == 5
    for seat in [*range(5), None]:
        seat_view = view(stub, game, seat)
        assert seat_view.game_over and not seat_view.legal_commands
        assert list(seat_view.results) == list(final.results)


INT32 = 2**31 - 1
ODD_COMMANDS = [
    *(vq_command(play_set=t) for t in [(-1, 1, 0), (INT32, 1, 0), (5, -3, 0), (5, INT32, 0)]),
    *(vq_command(play_set=t) for t in [(5, 1, -1), (5, 1, INT32), (-INT32, -INT32, -INT32)]),
    *(vq_command(play_set=t) for t in [(14, 1, 0), (0, 0, 0), (15, 1, 0), (20, 1, 0)]),
    *(vq_command(play_card=v) for v in (-1, 0, 15, 20, INT32)),
    *(vq_command(lead_hunter=v) for v in (-1, 0, 14, INT32)),
]


def test_odd_values_are_rule_violations_never_internal(stub: pb_grpc.RefereeServiceStub) -> None:
    """Out-of-range numbers in a well-formed command are illegal moves with a rule id."""
    game = create_game(stub)
    leader = leader_of(stub, game)
    for command in ODD_COMMANDS:
        failure = rejected(stub, game, submit_request(game, leader, command))
        assert failure.code is grpc.StatusCode.INVALID_ARGUMENT, (command, failure)
        assert failure.rule_id and failure.rule_id.startswith("VQ-"), (command, failure)
