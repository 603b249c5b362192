"""Mau Mau Vampires through the service: what a seat and a spectator see does not depend on
hidden cards (MM-28), here for the two cards of ability (g) (MM-22 g).

Two games with fixed deals that differ only in one card hidden from seat 1 and from the
spectator: the second card the Professor (seat 0) draws sorts below the card she gives to
seat 1 in one game and above it in the other. She gives the same card to seat 1 and the other
to seat 2 in both; seat 1's and the spectator's streams and views must be byte-identical.
"""

from __future__ import annotations

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.games.test_mau_mau_vampires import build_deck, picks_for
from tests.server.conftest import Game, create_game, submit, summary, view
from tests.server.test_leak import _as_seen_by

GAME = "mau-mau-vampires"
HANDS = ["R5 R6 R7 B5 B6 G7 G8 P10", "R8 R9 B8 B9 G9 G10 P7 P8", "R10 B10 G1 G2 G3 P2 P4 P6"]


def _deal(second: str) -> pb.FixedDeal:
    """Seat 0 is the Professor (C7); she starts on R11 and (g) draws P1 and ``second``. The
    other card of the pair (R3 or P9) lies deeper in the deck in the other game's place."""
    deck = list(build_deck(3, HANDS, start="R11", draws="P1 R3"))
    if second == "P9":
        i, j = deck.index("R3"), deck.index("P9")
        deck[i], deck[j] = deck[j], deck[i]
    deal = pb.FixedDeal(picks=list(picks_for(3, 2, ["C7", "C1", "C2"], False)))
    deal.decks.add().cards.extend(deck)
    return deal


def _legal(stub: pb_grpc.RefereeServiceStub, game: Game, seat: int, kind: str) -> pb.Command:
    """The first legal command of ``kind`` (a MauMauVampiresCommand field) for ``seat``."""
    return next(
        c
        for c in view(stub, game, seat).legal_commands
        if c.mau_mau_vampires.WhichOneof("kind") == kind
    )


def test_mm_28_mm_22_g_receivers_and_spectator_see_the_same_whatever_the_hidden_card(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    games = []
    for second in ("R3", "P9"):  # sorts below P1, above P1
        game = create_game(
            stub, players=3, rounds=None, seed="mm-leak", deal=_deal(second), game_type=GAME
        )
        play_r5 = next(
            c
            for c in view(stub, game, 0).legal_commands
            if c.mau_mau_vampires.WhichOneof("kind") == "play_card"
            and c.mau_mau_vampires.play_card.card.symbol == 5
            and c.mau_mau_vampires.play_card.card.colour == 1
        )
        submit(stub, game, 0, play_r5)
        submit(stub, game, 0, _legal(stub, game, 0, "use_ability"))
        to_share = view(stub, game, 0).mau_mau_vampires.to_share
        to_seats = [1 if (c.colour, c.symbol) == (4, 1) else 2 for c in to_share]
        share = next(
            c
            for c in view(stub, game, 0).legal_commands
            if c.mau_mau_vampires.WhichOneof("kind") == "share_drawn"
            and list(c.mau_mau_vampires.share_drawn.to_seats) == to_seats
        )
        submit(stub, game, 0, share)
        games.append(game)
    first, second = games
    # The games differ: seat 2 got R3 in one, P9 in the other; seat 0 saw them in another order.
    assert view(stub, first, 2).mau_mau_vampires.hand != view(stub, second, 2).mau_mau_vampires.hand
    assert summary(stub, first).version == summary(stub, second).version
    for seat in (1, None):
        # As the differential test of test_leak.py compares them (blanks what differs anyway).
        assert _as_seen_by(stub, first, seat) == _as_seen_by(stub, second, seat), seat  # type: ignore[arg-type]
