"""Tests of the clients (referee_cli, referee_bot), which live under clients/."""

import io
import sys
from pathlib import Path

# The clients install as top-level packages; from a plain checkout, find them in clients/.
_CLIENTS = str(Path(__file__).resolve().parents[2] / "clients")
if _CLIENTS not in sys.path:
    sys.path.insert(0, _CLIENTS)

from referee.v1 import referee_pb2, vampire_queen_pb2  # noqa: E402
from referee_cli.app import run as run_cli  # noqa: E402

VQ = vampire_queen_pb2.VampireQueenView
VQC = vampire_queen_pb2.VampireQueenCommand


def play_set(value: int, count: int, queens: int = 0) -> referee_pb2.Command:
    command = referee_pb2.Command()
    command.vampire_queen.play_set.CopyFrom(VQC.PlaySet(value=value, count=count, queens=queens))
    return command


def lead_hunter(hunter: int) -> referee_pb2.Command:
    command = referee_pb2.Command()
    command.vampire_queen.lead_hunter.hunter = hunter
    return command


def pass_() -> referee_pb2.Command:
    command = referee_pb2.Command()
    getattr(command.vampire_queen, "pass").SetInParent()
    return command


def play_card(value: int) -> referee_pb2.Command:
    command = referee_pb2.Command()
    command.vampire_queen.play_card.value = value
    return command


def trick_play(
    seat: int, kind: int, value: int = 0, count: int = 0, queens: int = 0
) -> vampire_queen_pb2.VampireQueenView.TrickPlay:
    return VQ.TrickPlay(seat=seat, kind=kind, value=value, count=count, queens=queens)  # type: ignore[arg-type]


def make_view(
    *,
    seat: int | None = 0,
    hand: list[int] | None = None,
    legal: list[referee_pb2.Command] | None = None,
    players: int = 4,
    hand_sizes: list[int] | None = None,
    trick_kind: int = VQ.TRICK_KIND_UNSPECIFIED,
    trick: list[vampire_queen_pb2.VampireQueenView.TrickPlay] | None = None,
    lead_count: int = 0,
    best_value: int = 0,
    best_seat: int | None = None,
    leader: int = 0,
    turn: int | None = 0,
    hunter_15_holder: int = 1,
    hunter_20_holder: int = 2,
    barred: list[int] | None = None,
    totals: list[int] | None = None,
    last_penalties: list[int] | None = None,
    hunter_tie: str = "first",
    hunter_queen: int = 1,
    round_: int = 1,
    rounds: int = 5,
    game_over: bool = False,
    results: list[tuple[int, int, int]] | None = None,
) -> referee_pb2.View:
    """A Vampire Queen view built by hand, as the server would send it."""
    hand = hand or []
    game = VQ(
        round=round_,
        rounds=rounds,
        hand=hand,
        hand_sizes=hand_sizes or [len(hand) or 13] * players,
        hunter_15_holder=hunter_15_holder,
        hunter_20_holder=hunter_20_holder,
        leader=leader,
        trick_kind=trick_kind,  # type: ignore[arg-type]
        trick=trick or [],
        lead_count=lead_count,
        best_value=best_value,
        barred_hunters=barred or [0] * players,
        last_penalties=last_penalties or [],
        totals=totals or [0] * players,
        hunter_tie=hunter_tie,
        hunter_queen=hunter_queen,
    )
    if turn is not None and not game_over:
        game.turn = turn
    if best_seat is not None:
        game.best_seat = best_seat
    view = referee_pb2.View(
        game_id="g1",
        game_type="vampire-queen",
        version=42,
        pending_seats=[] if game_over or turn is None else [turn],
        legal_commands=legal or [],
        game_over=game_over,
        results=[referee_pb2.SeatResult(seat=s, score=sc, rank=r) for s, sc, r in results or []],
        players=players,
        vampire_queen=game,
    )
    if seat is not None:
        view.seat = seat
    return view


def cli(argv: list[str], stdin: str = "") -> tuple[int, str]:
    """Run ``referee-cli`` with ``argv`` reading ``stdin``; its exit code and its output."""
    out = io.StringIO()
    code = run_cli(argv, io.StringIO(stdin), out)
    return code, out.getvalue()
