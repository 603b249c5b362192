"""House bots over the wire, on a real server started with
``--house-bots easy:1,normal`` (one easy account, three normal), over gRPC and Connect:
ListGameTypes names every account; a person alone
against them finishes every game type, calling with a fresh connection each time (as a page
that closes and comes back would); a challenge to a bot is accepted and played; a pairing
request is joined by a bot; and a person who leaves a clocked game is charged by its clock
only, while the bots play on."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from referee.application.players.accounts import PlayerSettings
from referee.engine import all_games
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee_bot.strategies import make_strategy
from tests.server.test_lobby_wire import WIRES, Wire
from tests.server.transports import WireError

TIMEOUT = 60.0
BOTS = ["house-easy", "house-normal"]
_names = itertools.count()


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with running_server(
        store="memory:",
        grace_seconds=1.0,
        http="127.0.0.1:0",
        players=PlayerSettings(open_registration=True, calls_per_minute=0),
        house_bots="easy:1,normal",
        house_bots_pair_after=0.3,
    ) as running:
        yield running


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest, server: RefereeServer) -> Wire:
    return Wire(request.param, server)


def person(wire: Wire) -> tuple[str, str]:
    name = f"ann{next(_names)}-{wire.name}"
    registered = wire.call("Register", pb.RegisterRequest(name=name, kind=pb.PLAYER_KIND_PERSON))
    return name, registered.token


def play(wire: Wire, game_id: str, seat: int, token: str, seed: int) -> pb.GameSummary:
    """The SDK's heuristic moves for ``seat`` (by the person's credential, each call on a
    connection of its own) until the game is over (random moves make Mau Mau thousands of
    commands long)."""
    rng = random.Random(seed)
    deadline = time.monotonic() + TIMEOUT
    number = 0
    while time.monotonic() < deadline:
        view = wire.call("GetView", pb.GetViewRequest(game_id=game_id, seat=seat), token).view
        if view.game_over:
            game: pb.GameSummary = wire.call("GetGame", pb.GetGameRequest(game_id=game_id)).game
            return game
        if not view.legal_commands:
            time.sleep(0.02)
            continue
        request = pb.SubmitCommandRequest(
            game_id=game_id,
            seat=seat,
            command_id=f"p{number}",
            command=make_strategy("heuristic", view.game_type).choose(view, rng),
            expected_version=view.version,
        )
        number += 1
        try:
            wire.call("SubmitCommand", request, token)
        except WireError as error:  # a bot's move came first
            if error.code not in ("ABORTED", "FAILED_PRECONDITION"):
                raise
    view = wire.call("GetView", pb.GetViewRequest(game_id=game_id, spectator=True)).view
    raise AssertionError(
        f"the game did not end: pending {list(view.pending_seats)} at {view.version}\n"
        + _debug(wire.server)
    )


def game_with(wire: Wire, name: str) -> tuple[str, int]:
    """The started game (and seat) where ``name`` holds a seat, once there is one (a
    pairing's or challenge's seats are reserved first, then claimed)."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        for game in wire.call("ListGames", pb.ListGamesRequest(page_size=200)).games:
            for holder in game.seat_holders:
                if holder.player == name and game.started:
                    return game.game_id, holder.seat
        time.sleep(0.05)
    raise AssertionError(f"no game for {name}")


def _debug(server: RefereeServer) -> str:
    """What each house bot last saw of its seats (for a game that did not end)."""
    lines = []
    for bot in server.referee.house_bots._bots.values():
        for key, seen in bot.latest.items():
            lines.append(
                f"{bot.name} {key}: latest {seen.view.version}, "
                f"{len(seen.view.legal_commands)} legal, decided {bot.decided.get(key)}"
            )
    return "\n".join(lines)


def test_the_house_bots_are_listed(wire: Wire) -> None:
    listed = wire.call("ListGameTypes", pb.ListGameTypesRequest()).house_bots
    # Every account, so that a client can reserve a seat for each.
    assert [(b.player, b.level) for b in listed] == [
        ("house-easy", "easy"),
        ("house-normal", "normal"),
        ("house-normal-2", "normal"),
        ("house-normal-3", "normal"),
    ]
    assert listed[1].strategy == "heuristic" and listed[0].pair_after_ms == 300
    assert all(b.budget_ms > 0 and b.description for b in listed)


@pytest.mark.parametrize("game_type", sorted(g.info.type_id for g in all_games()))
def test_a_person_alone_against_house_bots_finishes_every_game(wire: Wire, game_type: str) -> None:
    name, token = person(wire)
    info = next(g.info for g in all_games() if g.info.type_id == game_type)
    players = min(int(info.min_players), 1 + len(BOTS))
    requests = [pb.SeatRequest(mode=pb.SEAT_MODE_CREATOR)] + [
        pb.SeatRequest(mode=pb.SEAT_MODE_RESERVED, player=bot) for bot in BOTS[: players - 1]
    ]
    # One hand of Mau Mau (the person plays at random: five hands are thousands of moves).
    options = {"hands": "1"} if game_type == "mau-mau-vampires" else {}
    created = wire.call(
        "CreateGame",
        pb.CreateGameRequest(
            game_type=game_type, players=players, seat_requests=requests, options=options
        ),
        token,
    )
    game = play(wire, created.game_id, 0, token, seed=len(game_type))
    assert game.game_over and not game.aborted
    assert [h.player for h in game.seat_holders] == [name, *BOTS[: players - 1]]


def test_a_challenge_to_a_house_bot_is_accepted_and_played(wire: Wire) -> None:
    name, token = person(wire)
    terms = pb.GameTerms(game_type="sleeping-queens", players=2)
    wire.call(
        "CreateChallenge", pb.CreateChallengeRequest(challenged="house-normal", terms=terms), token
    )
    game_id, seat = game_with(wire, name)
    game = play(wire, game_id, seat, token, seed=1)
    assert {h.player for h in game.seat_holders} == {name, "house-normal"}


def test_a_pairing_request_is_joined_by_a_house_bot(wire: Wire) -> None:
    name, token = person(wire)
    # One hand, and a number of them no other test asks for: no other request pairs with it.
    terms = pb.GameTerms(game_type="mau-mau-vampires", players=2, options={"hands": "1"})
    wire.call("RequestPairing", pb.RequestPairingRequest(terms=terms), token)
    game_id, seat = game_with(wire, name)
    game = play(wire, game_id, seat, token, seed=2)
    assert {h.player for h in game.seat_holders} == {name, "house-easy"}


def test_a_person_who_leaves_is_charged_by_the_clock_only(wire: Wire) -> None:
    """The person creates a clocked game against a bot and never comes back: the bot plays
    its moves, the person's seat times out and is forfeited by the clock's rule, and the
    game ends; the bot is charged nothing."""
    _, token = person(wire)
    requests = [
        pb.SeatRequest(mode=pb.SEAT_MODE_CREATOR),
        pb.SeatRequest(mode=pb.SEAT_MODE_RESERVED, player="house-normal"),
    ]
    clock = pb.ClockSettings(decision_ms=1000, forfeit_after_timeouts=2)
    created = wire.call(
        "CreateGame",
        pb.CreateGameRequest(
            game_type="dracula-vs-van-helsing", players=2, seat_requests=requests, clock=clock
        ),
        token,
    )
    wire.call("GetView", pb.GetViewRequest(game_id=created.game_id, seat=0), token)  # present
    deadline = time.monotonic() + TIMEOUT
    game: Any = None
    while time.monotonic() < deadline:
        game = wire.call("GetGame", pb.GetGameRequest(game_id=created.game_id)).game
        if game.game_over:
            break
        time.sleep(0.1)
    assert game is not None and game.game_over and not game.aborted
    stats = {s.seat: s for s in game.seat_stats}
    assert stats[0].timeouts >= 1
    assert stats[1].timeouts == 0 and not stats[1].forfeited and stats[1].commands > 0
