"""A setup refused for a rule's reason names the rule, as a command's rejection does:
INVALID_ARGUMENT, ``ErrorInfo.metadata["rule_id"]`` and a ``BadRequest`` field violation
naming the field (``players``, ``options.<name>``, ``deal.decks[k]``, ``deal.picks[k]``).
"""

from __future__ import annotations

import grpc
import pytest

from referee.games.sleeping_queens.rules import DECK, QUEEN_DECK
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import assert_bad_request, fails


def _deal(*decks: list[str], picks: tuple[int, ...] = ()) -> pb.FixedDeal:
    deal = pb.FixedDeal(picks=list(picks))
    for deck in decks:
        deal.decks.add().cards.extend(deck)
    return deal


SQ_DECK = list(DECK)
SQ_QUEENS = list(QUEEN_DECK)

CASES = [
    pytest.param("vampire-queen", 2, {}, None, "players", "VQ-2", id="vq-2-seats"),
    pytest.param("vampire-queen", 13, {}, None, "players", "VQ-2", id="vq-13-seats"),
    pytest.param("sleeping-queens", 6, {}, None, "players", "SQ-3", id="sq-6-seats"),
    pytest.param("mau-mau-vampires", 7, {}, None, "players", "MM-5", id="mm-7-seats"),
    pytest.param("dracula-vs-van-helsing", 3, {}, None, "players", "DV-1", id="dv-3-seats"),
    pytest.param(
        "vampire-queen", 3, {"rounds": "0"}, None, "options.rounds", "VQ-19", id="rounds-0"
    ),
    pytest.param(
        "vampire-queen", 3, {"rounds": " 3 "}, None, "options.rounds", "VQ-19", id="rounds-spaces"
    ),
    pytest.param(
        "vampire-queen", 3, {"rounds": "\u0663"}, None, "options.rounds", "VQ-19", id="arabic-3"
    ),
    pytest.param(
        "mau-mau-vampires", 3, {"hands": "+3"}, None, "options.hands", "MM-7", id="hands-plus"
    ),
    pytest.param(
        "mau-mau-vampires", 3, {"hands": "03"}, None, "options.hands", "MM-7", id="hands-zero"
    ),
    pytest.param(
        "vampire-queen",
        3,
        {"hunter_tie": "middle"},
        None,
        "options.hunter_tie",
        "VQ-14",
        id="hunter-tie",
    ),
    pytest.param(
        "mau-mau-vampires",
        5,
        {"first_game": "true"},
        None,
        "options.first_game",
        "MM-5",
        id="first-game-5-seats",
    ),
    pytest.param(
        "sleeping-queens", 2, {"colour": "red"}, None, "options.colour", "", id="unknown-option"
    ),
    pytest.param(
        "sleeping-queens",
        2,
        {},
        _deal(SQ_DECK, SQ_QUEENS, ["K"] * 9),
        "deal.decks[2]",
        "",
        id="sq-reshuffle-too-many-kings",
    ),
    pytest.param(
        "sleeping-queens",
        2,
        {},
        _deal(SQ_DECK, SQ_QUEENS, ["1"], ["X"]),
        "deal.decks[3]",
        "",
        id="sq-reshuffle-unknown-card",
    ),
    pytest.param(
        "sleeping-queens", 2, {}, _deal(SQ_DECK[:-1]), "deal.decks[0]", "", id="sq-short-deck"
    ),
    pytest.param(
        "mau-mau-vampires", 3, {}, _deal(picks=(0, 0, 0, 7)), "deal.picks[3]", "", id="mm-pick"
    ),
    pytest.param(
        "dracula-vs-van-helsing", 2, {}, _deal(picks=(0, 4)), "deal.picks[1]", "", id="dv-pick"
    ),
]


@pytest.mark.parametrize(("game_type", "players", "options", "deal", "field", "rule"), CASES)
def test_a_refused_setup_names_the_field_and_the_rule(
    stub: pb_grpc.RefereeServiceStub,
    game_type: str,
    players: int,
    options: dict[str, str],
    deal: pb.FixedDeal | None,
    field: str,
    rule: str,
) -> None:
    request = pb.CreateGameRequest(game_type=game_type, players=players, options=options, deal=deal)
    failure = fails(stub.CreateGame, request)
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert_bad_request(failure, field)
    assert failure.fields == [field]
    assert failure.rule_id == (rule or None), failure
    assert failure.info is not None
    # Every setup refusal is BAD_REQUEST, with the rule id where a rule says it.
    assert failure.info.reason == "BAD_REQUEST"
    if rule:
        assert failure.message.startswith(f"{field}: {rule}: "), failure.message
