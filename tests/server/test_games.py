"""Game lifecycle over gRPC: game types, creation (and its bad input), GetGame, ListGames,
NOT_FOUND on every game-scoped call.

The smoke tests at the top run for every registered game (a new game is covered the moment its
package exists); the Vampire Queen tests below them pin down details with its rules.
"""

from __future__ import annotations

import random
import uuid
from typing import Any

import grpc
import pytest

from referee import codec
from referee.engine import Game as Rules
from referee.engine import Table, TableSettings, all_games
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    DECK,
    GAME,
    RPC_TIMEOUT,
    assert_bad_request,
    create_game,
    create_refereed,
    dealt_hand,
    fails,
    fixed_deal,
    play_to_end,
    stream_fails,
    summary,
    view,
    vq_command,
)

GAMES = [pytest.param(rules, id=rules.info.type_id) for rules in all_games()]


def short_options(rules: Rules[Any]) -> dict[str, str]:
    """Options for a short game: every integer option at its minimum (in every game so far
    they count rounds or hands); the rest at their defaults."""
    return {o.name: str(o.minimum) for o in rules.info.options if not o.allowed}


# --- every registered game ----------------------------------------------------------------------


@pytest.mark.parametrize("rules", GAMES)
def test_list_game_types_describes_every_registered_game(
    stub: pb_grpc.RefereeServiceStub, rules: Rules[Any]
) -> None:
    types = stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=RPC_TIMEOUT).game_types
    assert [t.game_type for t in types] == [g.info.type_id for g in all_games()]
    info = rules.info
    listed = next(t for t in types if t.game_type == info.type_id)
    assert (listed.name, listed.summary, listed.rules) == (info.name, info.summary, info.rules)
    assert (listed.min_players, listed.max_players) == (info.min_players, info.max_players)
    assert [
        (o.name, o.default_value, o.description, list(o.allowed_values), o.minimum, o.maximum)
        for o in listed.options
    ] == [
        (o.name, o.default, o.description, list(o.allowed), o.minimum, o.maximum)
        for o in info.options
    ]
    # The score column says what it counts.
    assert listed.score_meaning == info.score_meaning and listed.score_meaning


@pytest.mark.parametrize("rules", GAMES)
def test_create_game_deals_what_the_engine_deals_from_the_seed(
    stub: pb_grpc.RefereeServiceStub, rules: Rules[Any]
) -> None:
    """Tokens, a summary with every option filled in, and each seat's view of the opening the
    engine gives for the same seed (the server adds the seed commitment in front)."""
    info = rules.info
    for players in sorted({info.min_players, info.max_players}):
        game = create_refereed(stub, players, rounds=None, seed="smoke", game_type=info.type_id)
        created = game.created
        assert [s.seat for s in created.seats] == list(range(players))
        assert len(set(game.tokens)) == players and all(len(t) >= 16 for t in game.tokens)
        settings = TableSettings(card_commitments=True)  # as the server makes them
        local = Table.create(info.type_id, players, seed=b"smoke", settings=settings)
        summary_ = created.game
        assert summary_.game_type == info.type_id and summary_.players == players
        assert dict(summary_.options) == info.normalise_options({})
        assert summary_.version == local.version
        assert list(summary_.pending_seats) == list(local.pending())
        assert len(summary_.seed_commitment) == 64 and not summary_.revealed_seed
        assert summary(stub, game) == summary_
        field = codec.game_field(info.type_id)
        for seat in [*range(players), None]:
            seen = view(stub, game, seat)
            assert seen.WhichOneof("game") == field
            expected = codec.view_to_proto(created.game_id, players, local.view(seat))
            assert getattr(seen, field) == getattr(expected, field), f"seat {seat}"
            assert list(seen.legal_commands) == list(expected.legal_commands)
            assert seen.seat == seat if seat is not None else not seen.HasField("seat")
        for seat, token in enumerate(game.tokens):
            assert token not in str(summary_), f"seat {seat}'s token is in the public summary"


@pytest.mark.parametrize("rules", GAMES)
def test_a_whole_game_over_grpc_ends_with_results_and_the_seed(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random, rules: Rules[Any]
) -> None:
    info = rules.info
    game = create_refereed(
        stub, info.min_players, rounds=None, game_type=info.type_id, options=short_options(rules)
    )
    played = play_to_end(stub, game, rng)
    final = summary(stub, game)
    assert final.game_over and not final.pending_seats and not final.aborted
    assert sorted(r.seat for r in final.results) == list(range(info.min_players))
    assert min(r.rank for r in final.results) == 1
    # The summary, every view and the end event say why, by the same rule.
    assert final.end_rule_id.startswith(info.players_rule.split("-")[0] + "-") and final.end_reason
    for seat in [*range(info.min_players), None]:
        seen_by = view(stub, game, seat)
        assert (seen_by.end_rule_id, seen_by.end_reason) == (final.end_rule_id, final.end_reason)
    # docs/fairness.md: released at the end, to the organiser only (hands stay secret).
    assert final.seed_released and not final.revealed_seed
    for seat in range(info.min_players):
        seen = view(stub, game, seat)
        assert seen.game_over and not seen.legal_commands
    # Over means over: the last command played, sent again as a new one, is not now.
    seat, command, _ = played.commands[-1]
    request = pb.SubmitCommandRequest(
        game_id=game.game_id,
        seat_token=game.tokens[seat],
        command_id=uuid.uuid4().hex,
        command=command,
    )
    assert fails(stub.SubmitCommand, request).code is grpc.StatusCode.FAILED_PRECONDITION


@pytest.mark.parametrize("rules", GAMES)
def test_bad_setup_of_every_game_is_invalid_argument_naming_the_field(
    stub: pb_grpc.RefereeServiceStub, rules: Rules[Any]
) -> None:
    info = rules.info
    bad: list[tuple[dict[str, Any], str]] = [
        ({"players": info.min_players - 1}, "players"),
        ({"players": info.max_players + 1}, "players"),
        ({"options": {"no_such_option": "1"}}, "options"),
    ]
    for option in info.options:
        wrong = "no-such-value" if option.allowed else str(option.maximum + 1)
        bad.append(({"options": {option.name: wrong}}, "options"))
    for fields, bad_field in bad:
        request = pb.CreateGameRequest(game_type=info.type_id, players=info.min_players)
        request.options.update(fields.get("options", {}))
        if "players" in fields:
            request.players = fields["players"]
        assert_bad_request(fails(stub.CreateGame, request), bad_field)
    assert not stub.ListGames(pb.ListGamesRequest(), timeout=RPC_TIMEOUT).games


# --- Vampire Queen in detail --------------------------------------------------------------------


def test_list_game_types_describes_vampire_queen(stub: pb_grpc.RefereeServiceStub) -> None:
    types = stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=RPC_TIMEOUT).game_types
    by_id = {t.game_type: t for t in types}
    assert GAME in by_id, list(by_id)
    vampire = by_id[GAME]
    assert (vampire.min_players, vampire.max_players) == (3, 12)  # VQ-2
    assert vampire.name and vampire.summary and vampire.rules
    options = {o.name: o for o in vampire.options}
    assert set(options) >= {"hunter_tie", "hunter_queen", "rounds"}
    assert list(options["hunter_tie"].allowed_values) == ["first", "last"]
    assert options["hunter_tie"].default_value == "first"
    assert options["rounds"].default_value == "5"
    assert not options["rounds"].allowed_values
    assert options["rounds"].minimum >= 1 and options["rounds"].maximum >= 5
    for game_type in types:
        assert game_type.min_players <= game_type.max_players


def test_create_game_returns_tokens_and_summary(stub: pb_grpc.RefereeServiceStub) -> None:
    game = create_game(stub, players=4, rounds=2, hunter_tie="last")
    created = game.created
    assert created.game_id
    assert [s.seat for s in created.seats] == [0, 1, 2, 3]
    assert len(set(game.tokens)) == 4 and all(len(t) >= 16 for t in game.tokens)
    info = created.game
    assert info.game_id == created.game_id and info.game_type == GAME and info.players == 4
    # Options come back with every default filled in.
    assert dict(info.options) == {"rounds": "2", "hunter_tie": "last", "hunter_queen": "1"}
    # The opening is already in the log: the seed commitment (docs/fairness.md), the first
    # shuffle's card commitment, then the deal: a round start and one HandDealt per seat,
    # then each seat's openings of its cards.
    assert info.version == 1 + 1 + 1 + 4 + 1 and info.card_commitments
    assert len(info.seed_commitment) == 64 and not info.revealed_seed
    assert len(info.pending_seats) == 1 and not info.game_over and not info.results
    assert info.created_unix_ms > 1_600_000_000_000
    assert summary(stub, game) == info
    for seat, token in enumerate(game.tokens):
        assert token not in str(info), "a seat token leaked into the public summary"
        assert view(stub, game, seat).seat == seat


def test_create_game_with_fixed_deal(stub: pb_grpc.RefereeServiceStub) -> None:
    deck = random.Random(7).sample(DECK, len(DECK))
    players, pick = 3, 1
    game = create_game(stub, players=players, deal=fixed_deal(deck, pick))
    info = summary(stub, game)
    assert list(info.pending_seats) == [(pick + 1) % players]  # VQ-4: the 20's holder leads
    for seat in range(players):
        seat_view = view(stub, game, seat)
        assert sorted(seat_view.vampire_queen.hand) == dealt_hand(deck, seat, players, pick)
        assert seat_view.vampire_queen.hunter_15_holder == pick
        assert seat_view.vampire_queen.hunter_20_holder == (pick + 1) % players


def test_same_seed_gives_the_same_deal(stub: pb_grpc.RefereeServiceStub) -> None:
    first = create_game(stub, players=5, seed="reproducible")
    second = create_game(stub, players=5, seed="reproducible")
    other = create_game(stub, players=5, seed="another seed")
    hands = {
        name: [list(view(stub, game, s).vampire_queen.hand) for s in range(5)]
        for name, game in (("first", first), ("second", second), ("other", other))
    }
    assert hands["first"] == hands["second"]
    assert hands["first"] != hands["other"]
    assert first.tokens != second.tokens and first.game_id != second.game_id


def _deck_with(cards: list[str]) -> pb.FixedDeal:
    deal = pb.FixedDeal()
    deal.decks.add().cards.extend(cards)
    return deal


BAD_CREATE = [
    pytest.param({"game_type": "no-such-game", "players": 3}, "game_type", id="unknown-type"),
    pytest.param({"game_type": "", "players": 3}, "game_type", id="empty-type"),
    pytest.param({"players": 2}, "players", id="too-few-players"),
    pytest.param({"players": 13}, "players", id="too-many-players"),
    pytest.param({"players": 0}, "players", id="no-players"),
    pytest.param({"options": {"colour": "red"}}, "options", id="unknown-option"),
    pytest.param({"options": {"rounds": "0"}}, "options", id="rounds-below-minimum"),
    pytest.param({"options": {"rounds": "five"}}, "options", id="rounds-not-integer"),
    pytest.param({"options": {"hunter_tie": "middle"}}, "options", id="hunter-tie-not-allowed"),
    pytest.param({"deal": _deck_with(DECK[:10])}, "deal", id="deck-too-short"),
    pytest.param({"deal": _deck_with([*DECK[:-1], "X"])}, "deal", id="deck-unknown-card"),
    pytest.param({"deal": _deck_with([*DECK, "Q"])}, "deal", id="deck-extra-card"),
    pytest.param({"deal": pb.FixedDeal(picks=[7])}, "deal", id="pick-not-a-seat"),
]


@pytest.mark.parametrize(("fields", "bad_field"), BAD_CREATE)
def test_bad_create_game_is_invalid_argument_naming_the_field(
    stub: pb_grpc.RefereeServiceStub, fields: dict[str, object], bad_field: str
) -> None:
    request = pb.CreateGameRequest(game_type=GAME, players=3)
    for name, value in fields.items():
        if isinstance(value, dict):
            getattr(request, name).update(value)
        elif isinstance(value, pb.FixedDeal):
            request.deal.CopyFrom(value)
        else:
            setattr(request, name, value)
    failure = fails(stub.CreateGame, request)
    assert_bad_request(failure, bad_field)
    assert failure.info is not None and failure.info.reason
    # Nothing was created.
    listed = stub.ListGames(pb.ListGamesRequest(), timeout=RPC_TIMEOUT)
    assert not listed.games


def test_get_game_after_the_end_has_results(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_game(stub, players=3)
    play_to_end(stub, game, rng)
    info = summary(stub, game)
    assert info.game_over and not info.pending_seats
    assert sorted(r.seat for r in info.results) == [0, 1, 2]
    assert min(r.rank for r in info.results) == 1
    by_score = sorted(info.results, key=lambda r: r.score)  # VQ-19: lowest total wins
    assert [r.rank for r in by_score] == sorted(r.rank for r in info.results)


def test_list_games_newest_first_with_filters_and_paging(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    types = list(stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=RPC_TIMEOUT).game_types)
    games = [create_game(stub, players=3) for _ in range(5)]
    other_type = next((t for t in types if t.game_type != GAME), None)
    other = None
    if other_type is not None:  # a second registered game type: the type filter must tell them
        other = stub.CreateGame(
            pb.CreateGameRequest(game_type=other_type.game_type, players=other_type.min_players),
            timeout=RPC_TIMEOUT,
        )
    finished = games[1]
    play_to_end(stub, finished, rng)
    created_ids = [g.game_id for g in games] + ([other.game_id] if other else [])

    everything = stub.ListGames(pb.ListGamesRequest(), timeout=RPC_TIMEOUT)
    assert [g.game_id for g in everything.games] == created_ids[::-1], "newest first"
    assert not everything.next_page_token
    stamps = [g.created_unix_ms for g in everything.games]
    assert stamps == sorted(stamps, reverse=True)
    assert {g.game_id: g.game_over for g in everything.games}[finished.game_id]

    pages, token = [], ""
    while True:
        page = stub.ListGames(
            pb.ListGamesRequest(page_size=2, page_token=token), timeout=RPC_TIMEOUT
        )
        assert 0 < len(page.games) <= 2
        pages.append([g.game_id for g in page.games])
        token = page.next_page_token
        if not token:
            break
    assert [gid for page in pages for gid in page] == created_ids[::-1]
    assert [len(p) for p in pages] == [2] * (len(created_ids) // 2) + (
        [1] if len(created_ids) % 2 else []
    )

    running = stub.ListGames(pb.ListGamesRequest(running_only=True), timeout=RPC_TIMEOUT)
    assert [g.game_id for g in running.games] == [
        gid for gid in created_ids[::-1] if gid != finished.game_id
    ]
    assert not any(g.game_over for g in running.games)

    vampire = stub.ListGames(pb.ListGamesRequest(game_type=GAME), timeout=RPC_TIMEOUT)
    assert [g.game_id for g in vampire.games] == [g.game_id for g in games][::-1]
    assert all(g.game_type == GAME for g in vampire.games)
    if other is not None and other_type is not None:
        only_other = stub.ListGames(
            pb.ListGamesRequest(game_type=other_type.game_type), timeout=RPC_TIMEOUT
        )
        assert [g.game_id for g in only_other.games] == [other.game_id]
    none = stub.ListGames(pb.ListGamesRequest(game_type="no-such-game"), timeout=RPC_TIMEOUT)
    assert not none.games and not none.next_page_token


@pytest.mark.parametrize(
    ("request_fields", "bad_field"),
    [
        pytest.param({"page_token": "not-a-token"}, "page_token", id="token-not-a-number"),
        pytest.param({"page_size": 1001}, "page_size", id="size-over-1000"),
        pytest.param({"page_size": -1}, "page_size", id="size-negative"),
        # Not a token ListGames ever hands out.
        pytest.param({"page_token": "-1"}, "page_token", id="token-negative"),
    ],
)
def test_list_games_bad_paging_is_invalid_argument(
    stub: pb_grpc.RefereeServiceStub, request_fields: dict[str, object], bad_field: str
) -> None:
    for _ in range(3):
        create_game(stub)
    assert_bad_request(fails(stub.ListGames, pb.ListGamesRequest(**request_fields)), bad_field)


def test_every_game_scoped_call_on_an_unknown_game_is_not_found(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    real = create_game(stub)
    unknown = "0123456789abcdef"
    calls = {
        "GetGame": lambda: fails(stub.GetGame, pb.GetGameRequest(game_id=unknown)),
        "GetView(seat)": lambda: fails(
            stub.GetView, pb.GetViewRequest(game_id=unknown, seat_token=real.tokens[0])
        ),
        "GetView(spectator)": lambda: fails(
            stub.GetView, pb.GetViewRequest(game_id=unknown, spectator=True)
        ),
        "SubmitCommand": lambda: fails(
            stub.SubmitCommand,
            pb.SubmitCommandRequest(
                game_id=unknown,
                seat_token=real.tokens[0],
                command_id="c1",
                command=vq_command(pass_=True),
            ),
        ),
        "SubmitCommand(no token)": lambda: fails(
            stub.SubmitCommand,
            pb.SubmitCommandRequest(
                game_id=unknown, command_id="c1", command=vq_command(pass_=True)
            ),
        ),
        "StreamGame(seat)": lambda: stream_fails(
            stub, pb.StreamGameRequest(game_id=unknown, seat_token=real.tokens[0])
        ),
        "StreamGame(spectator)": lambda: stream_fails(
            stub, pb.StreamGameRequest(game_id=unknown, spectator=True)
        ),
    }
    for name, call in calls.items():
        failure = call()
        assert failure.code is grpc.StatusCode.NOT_FOUND, (name, failure)
        assert failure.info is not None, name
    # The real game is untouched by all of this.
    assert summary(stub, real).version == real.created.game.version


def test_over_long_ids_get_a_readable_error(stub: pb_grpc.RefereeServiceStub) -> None:
    """A 10 kB id is well under the message limit: the client must get the contract's code with
    its details (not a transport error because the reply echoed the id into its trailers)."""
    long_id = "x" * 10_000
    failure = fails(stub.GetGame, pb.GetGameRequest(game_id=long_id))
    assert failure.code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT), failure
    assert failure.info is not None, failure
    failure = fails(stub.CreateGame, pb.CreateGameRequest(game_type=long_id, players=3))
    assert_bad_request(failure, "game_type")
