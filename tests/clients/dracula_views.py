"""Hand-built Dracula vs Van Helsing messages (views, commands, events), as the server sends
them, for the render and strategy tests. Cards are written ``"B7"``; ``"??"`` is hidden."""

from __future__ import annotations

from collections.abc import Sequence

from referee.v1 import dracula_vs_van_helsing_pb2, referee_pb2

DV = dracula_vs_van_helsing_pb2.DraculaVsVanHelsing
DVV = dracula_vs_van_helsing_pb2.DraculaVsVanHelsingView
DVE = dracula_vs_van_helsing_pb2.DraculaVsVanHelsingEvent
DVC = dracula_vs_van_helsing_pb2.DraculaVsVanHelsingCommand

COLOURS = {"Y": DV.COLOUR_YELLOW, "B": DV.COLOUR_BLUE, "R": DV.COLOUR_RED, "P": DV.COLOUR_PURPLE}


def card(text: str) -> dracula_vs_van_helsing_pb2.DraculaVsVanHelsing.Card:
    if not text or text == "??":
        return DV.Card()
    return DV.Card(colour=COLOURS[text[0]], value=int(text[1:]))


def cards(texts: Sequence[str]) -> list[dracula_vs_van_helsing_pb2.DraculaVsVanHelsing.Card]:
    return [card(t) for t in texts]


def track(letters: str) -> list[DV.Colour.ValueType]:
    """``"RPYB"``: red trump, then purple, yellow, blue."""
    return [COLOURS[c] for c in letters]


# --- commands ------------------------------------------------------------------------------


def command(**kind: object) -> referee_pb2.Command:
    return referee_pb2.Command(dracula_vs_van_helsing=DVC(**kind))  # type: ignore[arg-type]


def draw() -> referee_pb2.Command:
    return command(draw=DVC.Draw())


def call_end() -> referee_pb2.Command:
    return command(call_end=DVC.CallEnd())


def discard_drawn() -> referee_pb2.Command:
    return command(discard_drawn=DVC.DiscardDrawn())


def place(district: int) -> referee_pb2.Command:
    return command(place_drawn=DVC.PlaceDrawn(district=district))


def reveal_own(district: int) -> referee_pb2.Command:
    return command(reveal_own=DVC.RevealOwn(district=district))


def reveal_opponent(district: int) -> referee_pb2.Command:
    return command(reveal_opponent=DVC.RevealOpponent(district=district))


def swap(first: int, second: int) -> referee_pb2.Command:
    return command(swap_slots=DVC.SwapSlots(first=first, second=second))


def exchange(district: int) -> referee_pb2.Command:
    return command(exchange_district=DVC.ExchangeDistrict(district=district))


def trump(letter: str) -> referee_pb2.Command:
    return command(choose_trump=DVC.ChooseTrump(colour=COLOURS[letter]))


def all_swaps() -> list[referee_pb2.Command]:
    return [swap(a, b) for a in range(1, 6) for b in range(a + 1, 6)]


def event(**kind: object) -> referee_pb2.Event:
    return referee_pb2.Event(sequence=9, dracula_vs_van_helsing=DVE(**kind))  # type: ignore[arg-type]


# --- views ---------------------------------------------------------------------------------


def rack(
    seat: int,
    role: int,
    slots: Sequence[str],
    revealed: Sequence[int] = (),
    known: Sequence[int] = (),
) -> dracula_vs_van_helsing_pb2.DraculaVsVanHelsingView.Rack:
    """``revealed`` / ``known``: districts face up / known to the rack owner's opponent."""
    return DVV.Rack(
        seat=seat,
        role=role,  # type: ignore[arg-type]
        slots=[
            DVV.Slot(
                district=d,
                card=card(text),
                revealed=d in revealed,
                known_to_opponent=d in revealed or d in known,
            )
            for d, text in enumerate(slots, 1)
        ],
    )


def make_view(
    *,
    seat: int | None = 0,
    dracula: int = 1,
    mine: Sequence[str] = ("R1", "R2", "Y7", "Y3", "B8"),
    theirs: Sequence[str] = ("??", "??", "??", "??", "??"),
    mine_revealed: Sequence[int] = (),
    mine_known: Sequence[int] = (),
    theirs_revealed: Sequence[int] = (),
    theirs_known: Sequence[int] = (),
    track_letters: str = "RPYB",
    step: int = DVV.STEP_TURN,
    turn: int | None = 0,
    turn_kind: int = DV.TURN_KIND_NORMAL,
    drawn: str = "",
    drawn_revealed: bool = False,
    discard: Sequence[str] = (),
    deck_size: int = 22,
    deck_top: str = "",
    hp: int = 12,
    vampires: Sequence[int] = (0, 0, 0, 0, 0),
    legal: Sequence[referee_pb2.Command] = (),
    called_by: int | None = None,
    effect: int = 0,
    round_: int = 1,
    game_over: bool = False,
    winner: int = DV.ROLE_UNSPECIFIED,
    last_resolution: Sequence[dracula_vs_van_helsing_pb2.DraculaVsVanHelsingEvent.DistrictResolved]
    | None = None,
    last_round_end: int = DV.ROUND_END_UNSPECIFIED,
    resolution_order: Sequence[int] = (1, 2, 3, 4, 5),
) -> referee_pb2.View:
    """A view for ``seat`` (``mine`` is its rack, ``theirs`` the other seat's); for a
    spectator (``seat=None``) ``mine`` is seat 0's rack and ``theirs`` seat 1's."""
    me = 0 if seat is None else seat
    other = 1 - me
    role_of = {dracula: DV.ROLE_DRACULA, 1 - dracula: DV.ROLE_VAN_HELSING}
    racks = {
        me: rack(me, role_of[me], mine, mine_revealed, mine_known),
        other: rack(other, role_of[other], theirs, theirs_revealed, theirs_known),
    }
    game = DVV(
        round=round_,
        rounds=5,
        dracula=dracula,
        van_helsing=1 - dracula,
        role=DV.ROLE_UNSPECIFIED if seat is None else role_of[seat],
        hp=hp,
        districts=[
            DVV.District(district=d, humans=4 - v, vampires=v) for d, v in enumerate(vampires, 1)
        ],
        track=track(track_letters),
        trump=track(track_letters)[0],
        resolution_order=list(resolution_order),
        racks=[racks[0], racks[1]],
        deck_size=deck_size,
        deck_top=card(deck_top),
        discard_pile=cards(discard),
        turn_kind=turn_kind,  # type: ignore[arg-type]
        step=DVV.STEP_OVER if game_over else step,  # type: ignore[arg-type]
        drawn=card(drawn),
        drawn_revealed=drawn_revealed,
        effect=effect,
        last_resolution=list(last_resolution or []),
        last_round_end=last_round_end,  # type: ignore[arg-type]
        winner=winner,  # type: ignore[arg-type]
    )
    if turn is not None and not game_over:
        game.turn = turn
    if called_by is not None:
        game.called_by = called_by
    results = []
    if game_over:
        winning_seat = dracula if winner == DV.ROLE_DRACULA else 1 - dracula
        results = [
            referee_pb2.SeatResult(
                seat=s, score=int(s == winning_seat), rank=1 if s == winning_seat else 2
            )
            for s in (0, 1)
        ]
    view = referee_pb2.View(
        game_id="g2",
        game_type="dracula-vs-van-helsing",
        version=17,
        pending_seats=[] if game_over or turn is None else [turn],
        legal_commands=list(legal),
        game_over=game_over,
        results=results,
        players=2,
        dracula_vs_van_helsing=game,
    )
    if seat is not None:
        view.seat = seat
    return view


def resolved(
    district: int,
    dracula_card: str,
    van_helsing_card: str,
    winner: int,
    comparison: int,
    humans: int = 4,
    vampires: int = 0,
    hp: int = 12,
) -> dracula_vs_van_helsing_pb2.DraculaVsVanHelsingEvent.DistrictResolved:
    return DVE.DistrictResolved(
        district=district,
        dracula_card=card(dracula_card),
        van_helsing_card=card(van_helsing_card),
        winner=winner,  # type: ignore[arg-type]
        comparison=comparison,  # type: ignore[arg-type]
        humans=humans,
        vampires=vampires,
        hp=hp,
    )
