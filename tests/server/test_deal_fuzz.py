"""No fixed deal a client sends can break a game: hypothesis-made decks and picks,
for every game, through the real gRPC service. A deal is either refused at creation with
INVALID_ARGUMENT naming its part, or the game is created and then played to its end by
random legal commands; no call anywhere answers UNKNOWN or INTERNAL.

The decks mix whole permutations of the game's cards (valid first decks), their prefixes (the
top cards of a later shuffle), the game's cards with repeats and strings that are no card.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import grpc
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from referee.games.dracula_vs_van_helsing.model import DECK as DV_DECK
from referee.games.mau_mau_vampires.deal import DECK as MM_DECK
from referee.games.sleeping_queens.rules import DECK as SQ_DECK
from referee.games.sleeping_queens.rules import QUEEN_DECK
from referee.games.vampire_queen.rules import DECK as VQ_DECK
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import NO_ADDRESS_LIMITS, RPC_TIMEOUT, Game, failure_of

#: game type -> (players range, the cards of each of its known shuffles, options for a short game)
GAMES: dict[str, tuple[range, tuple[tuple[str, ...], ...], dict[str, str]]] = {
    "vampire-queen": (range(3, 13), (VQ_DECK,), {"rounds": "1"}),
    "sleeping-queens": (range(2, 6), (SQ_DECK, QUEEN_DECK), {}),
    "dracula-vs-van-helsing": (range(2, 3), (DV_DECK,), {}),
    "mau-mau-vampires": (range(2, 7), (MM_DECK,), {"hands": "1"}),
}
#: Strings that are no card of any game (or of another game), and edge cases.
JUNK = ["", " ", "x", "Q ", "0", "14", "-1", "R0", "R12", "wolf", "K", "rose", "Y9", "\u0663"]
#: The event limit of the fuzzed games: they end soon whatever the commands.
MAX_EVENTS = 400
BAD = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}


@st.composite
def deals(draw: st.DrawFn) -> tuple[str, int, pb.FixedDeal]:
    game_type = draw(st.sampled_from(sorted(GAMES)))
    players_range, known, _ = GAMES[game_type]
    players = draw(st.sampled_from(list(players_range)))
    cards = sorted({card for deck in known for card in deck})
    deal = pb.FixedDeal()
    for index in range(draw(st.integers(0, 4))):
        base = known[index] if index < len(known) else known[0]
        kind = draw(st.sampled_from(["whole", "whole", "whole", "prefix", "cards", "junk"]))
        if kind == "whole":
            deck = list(draw(st.permutations(base)))
        elif kind == "prefix":
            deck = list(draw(st.permutations(base)))[: draw(st.integers(0, len(base)))]
        elif kind == "cards":
            deck = draw(st.lists(st.sampled_from(cards), max_size=len(base) + 3))
        else:
            deck = draw(st.lists(st.sampled_from(cards + JUNK), max_size=12))
        deal.decks.add().cards.extend(deck)
    # Mostly in range (a seat, a character), so that most games are created and played.
    pick = st.one_of(st.integers(0, 1), st.integers(0, 1), st.integers(0, 1), st.integers(-3, 14))
    deal.picks.extend(draw(st.lists(pick, max_size=8)))
    return game_type, players, deal


@pytest.fixture
def server() -> Iterator[RefereeServer]:
    """The files' server, without per-address budgets: every example creates a game."""
    with running_server(store="memory:", grace_seconds=1.0, players=NO_ADDRESS_LIMITS) as running:
        yield running


def _call(method: object, request: object) -> object:
    """A unary call; its error must never be UNKNOWN or INTERNAL."""
    try:
        return method(request, timeout=RPC_TIMEOUT)  # type: ignore[operator]
    except grpc.RpcError as error:
        failure = failure_of(error)
        assert failure.code not in BAD, failure
        raise


def _play_to_end(stub: pb_grpc.RefereeServiceStub, game: Game, rng: random.Random) -> None:
    while True:
        public = _call(stub.GetGame, pb.GetGameRequest(game_id=game.game_id)).game  # type: ignore[attr-defined]
        if public.game_over:
            return
        seat = rng.choice(list(public.pending_seats))
        request = pb.GetViewRequest(game_id=game.game_id, seat_token=game.tokens[seat])
        seen = _call(stub.GetView, request).view  # type: ignore[attr-defined]
        command = rng.choice(list(seen.legal_commands))
        _call(
            stub.SubmitCommand,
            pb.SubmitCommandRequest(
                game_id=game.game_id,
                seat_token=game.tokens[seat],
                command_id=f"fuzz-{public.version}",
                command=command,
            ),
        )


@pytest.mark.timeout(900)
@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=deals(), play_seed=st.integers(0, 2**32))
def test_no_fixed_deal_breaks_a_game(
    stub: pb_grpc.RefereeServiceStub, case: tuple[str, int, pb.FixedDeal], play_seed: int
) -> None:
    game_type, players, deal = case
    options = GAMES[game_type][2]
    request = pb.CreateGameRequest(
        game_type=game_type, players=players, options=options, deal=deal, max_events=MAX_EVENTS
    )
    try:
        created = _call(stub.CreateGame, request)
    except grpc.RpcError as error:
        failure = failure_of(error)
        assert failure.code is grpc.StatusCode.INVALID_ARGUMENT, failure
        assert failure.fields and failure.fields[0].startswith(("deal", "players")), failure
        event(f"{game_type}: refused at {failure.fields[0].split('[')[0]}")
        return
    event(f"{game_type}: created and played to the end")
    tokens = [s.token for s in sorted(created.seats, key=lambda s: s.seat)]  # type: ignore[attr-defined]
    game = Game(created.game_id, tokens, created)  # type: ignore[attr-defined, arg-type]
    _play_to_end(stub, game, random.Random(play_seed))
