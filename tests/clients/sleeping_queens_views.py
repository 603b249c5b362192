"""Hand-built Sleeping Queens messages (views, commands, events), as the server sends them,
for the render and strategy tests. Cards are ints (1-10, KING ... DRAGON), queens SQ enums."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.v1 import referee_pb2, sleeping_queens_pb2

SQ = sleeping_queens_pb2.SleepingQueens
SQV = sleeping_queens_pb2.SleepingQueensView
SQE = sleeping_queens_pb2.SleepingQueensEvent
SQC = sleeping_queens_pb2.SleepingQueensCommand

KING, JESTER, KNIGHT = SQ.CARD_KING, SQ.CARD_JESTER, SQ.CARD_KNIGHT
POTION, WAND, DRAGON = SQ.CARD_POTION, SQ.CARD_WAND, SQ.CARD_DRAGON
POINTS: dict[int, int] = {
    SQ.QUEEN_ROSE: 5,
    SQ.QUEEN_CAKE: 5,
    SQ.QUEEN_RAINBOW: 5,
    SQ.QUEEN_STARFISH: 5,
    SQ.QUEEN_LADYBUG: 10,
    SQ.QUEEN_MOON: 10,
    SQ.QUEEN_SUNFLOWER: 10,
    SQ.QUEEN_PEACOCK: 10,
    SQ.QUEEN_CAT: 15,
    SQ.QUEEN_DOG: 15,
    SQ.QUEEN_PANCAKE: 15,
    SQ.QUEEN_HEART: 20,
}


def cards(*values: int) -> list[Any]:
    """Card values for a message field (numbers are the cards 1-10)."""
    return list(values)


# --- commands ------------------------------------------------------------------------------


def command(**kind: object) -> referee_pb2.Command:
    return referee_pb2.Command(sleeping_queens=SQC(**kind))  # type: ignore[arg-type]


def discard(*cards: int) -> referee_pb2.Command:
    return command(discard=SQC.Discard(cards=sorted(cards)))  # type: ignore[arg-type]


def king(position: int) -> referee_pb2.Command:
    return command(play_king=SQC.PlayKing(position=position))


def knight(queen: int) -> referee_pb2.Command:
    return command(play_knight=SQC.PlayKnight(queen=queen))  # type: ignore[arg-type]


def potion(queen: int) -> referee_pb2.Command:
    return command(play_potion=SQC.PlayPotion(queen=queen))  # type: ignore[arg-type]


def jester() -> referee_pb2.Command:
    return command(play_jester=SQC.PlayJester())


def block() -> referee_pb2.Command:
    return command(block=SQC.Block())


def decline() -> referee_pb2.Command:
    return command(decline_block=SQC.DeclineBlock())


def wake(position: int) -> referee_pb2.Command:
    return command(wake_queen=SQC.WakeQueen(position=position))


def place(position: int) -> referee_pb2.Command:
    return command(place_queen=SQC.PlaceQueen(position=position))


def event(**kind: object) -> referee_pb2.Event:
    return referee_pb2.Event(sequence=5, sleeping_queens=SQE(**kind))  # type: ignore[arg-type]


# --- views ---------------------------------------------------------------------------------


def make_view(
    *,
    seat: int | None = 0,
    players: int = 3,
    hand: Sequence[int] = (),
    hand_sizes: Sequence[int] | None = None,
    awake: Mapping[int, Sequence[int]] | None = None,
    empty: Sequence[int] = (),
    known: Mapping[int, int] | None = None,
    draw_pile: int = 40,
    discard_pile: Sequence[int] = (),
    turn: int | None = 0,
    phase: int = SQV.PHASE_TURN,
    decider: int | None = None,
    decision: str = "turn",
    attacker: int | None = None,
    target_queen: int = 0,
    jester_card: int = 0,
    legal: Sequence[referee_pb2.Command] = (),
    game_over: bool = False,
    winners: Sequence[int] = (),
    end_rule: str = "",
    knight_cat_dog: str = "illegal",
) -> referee_pb2.View:
    """A view for ``seat``. ``awake``: seat -> its queens; ``empty``: positions without a
    queen (the woken ones); ``known``: position -> the queen known to sleep there."""
    awake = awake or {}
    known = known or {}
    decider = turn if decider is None else decider
    big = players >= 4
    game = SQV(
        hand=sorted(hand),  # type: ignore[arg-type]
        hand_sizes=list(hand_sizes or [len(hand) or 5] * players),
        draw_pile_size=draw_pile,
        discard_pile=list(discard_pile),  # type: ignore[arg-type]
        positions=[
            SQV.Position(position=p, asleep=p not in empty, queen=known.get(p, 0))  # type: ignore[arg-type]
            for p in range(12)
        ],
        awake=[
            SQV.AwakeQueens(
                seat=s,
                queens=list(awake.get(s, [])),  # type: ignore[arg-type]
                points=sum(POINTS[q] for q in awake.get(s, [])),
            )
            for s in range(players)
        ],
        phase=SQV.PHASE_OVER if game_over else phase,  # type: ignore[arg-type]
        target_queen=target_queen,  # type: ignore[arg-type]
        jester_card=jester_card,  # type: ignore[arg-type]
        knight_cat_dog=knight_cat_dog,
        queens_to_win=4 if big else 5,
        points_to_win=40 if big else 50,
        winners=list(winners),
        end_rule=end_rule,
    )
    if not game_over:
        if turn is not None:
            game.turn = turn
        if decider is not None:
            game.decider = decider
    if attacker is not None:
        game.attacker = attacker
    pending = [] if game_over or decider is None else [decider]
    view = referee_pb2.View(
        game_id="g3",
        game_type="sleeping-queens",
        version=23,
        pending_seats=pending,
        legal_commands=list(legal),
        game_over=game_over,
        results=[
            referee_pb2.SeatResult(seat=s, score=int(s in winners), rank=1 if s in winners else 2)
            for s in range(players)
        ]
        if game_over
        else [],
        players=players,
        decisions=[referee_pb2.PendingDecision(seat=s, kind=decision) for s in pending],
        sleeping_queens=game,
    )
    if seat is not None:
        view.seat = seat
    return view
