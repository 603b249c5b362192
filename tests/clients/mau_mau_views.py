"""Hand-built Mau Mau Vampires messages (views, commands, events), as the server sends them,
for the render and strategy tests.

Cards are written in deal notation: ``"R1"`` .. ``"P11"`` (colour letter + symbol), ``"CLOCK"``,
``"WOLF"``, ``"?"`` for a card you may not see. The characters are the provisional table of
the rules (MM-4), typed in here: clients never read the game's data file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.v1 import mau_mau_vampires_pb2, referee_pb2

MM = mau_mau_vampires_pb2.MauMauVampires
MMV = mau_mau_vampires_pb2.MauMauVampiresView
MME = mau_mau_vampires_pb2.MauMauVampiresEvent
MMC = mau_mau_vampires_pb2.MauMauVampiresCommand

RED, BLUE, GREEN, PURPLE = MM.COLOUR_RED, MM.COLOUR_BLUE, MM.COLOUR_GREEN, MM.COLOUR_PURPLE
MAU, MAU_MAU = MM.ANNOUNCEMENT_MAU, MM.ANNOUNCEMENT_MAU_MAU
SYMBOLS = [
    "skull",
    "coffin",
    "spider",
    "tombstone",
    "stake",
    "cross",
    "bat",
    "garlic",
    "blood",
    "hourglass",
    "candle",
]
_LETTERS = {"R": RED, "B": BLUE, "G": GREEN, "P": PURPLE}
#: id -> (name, ability, day symbols, vampire symbol, vampire colour, first game) (MM-4).
CHARACTERS: dict[str, tuple[str, int, tuple[int, int], int, int, bool]] = {
    "C1": ("The Count", MM.ABILITY_GIVE_LEFT, (1, 2), 8, GREEN, True),
    "C2": ("The Countess", MM.ABILITY_WISH_AND_PLAY_AGAIN, (3, 4), 9, PURPLE, True),
    "C3": ("The Baron", MM.ABILITY_OPPONENTS_DRAW_ONE, (5, 6), 10, RED, True),
    "C4": ("The Duchess", MM.ABILITY_FEWEST_DRAW_TWO, (7, 8), 11, BLUE, True),
    "C5": ("The Prince", MM.ABILITY_CALL_COLOUR, (9, 1), 4, BLUE, False),
    "C6": ("The Bride", MM.ABILITY_SWAP_AND_PLAY_AGAIN, (10, 3), 6, GREEN, False),
    "C7": ("The Professor", MM.ABILITY_DRAW_TWO_AND_SHARE, (11, 5), 3, PURPLE, False),
    "C8": ("The Twins", MM.ABILITY_SET_ASIDE_POT, (7, 2), 5, RED, False),
}


def card(text: str) -> MM.Card:
    """``"R1"`` -> red S1; ``"CLOCK"``, ``"WOLF"``; ``"?"`` a hidden card."""
    if text == "CLOCK":
        return MM.Card(kind=MM.CARD_KIND_CLOCK)
    if text == "WOLF":
        return MM.Card(kind=MM.CARD_KIND_WEREWOLF)
    if text == "?":
        return MM.Card()
    return MM.Card(kind=MM.CARD_KIND_MAU_MAU, colour=_LETTERS[text[0]], symbol=int(text[1:]))


def cards(text: str) -> list[MM.Card]:
    """``"R1 B3 CLOCK"`` -> three cards."""
    return [card(t) for t in text.split()]


# --- commands ------------------------------------------------------------------------------


def command(**kind: object) -> referee_pb2.Command:
    return referee_pb2.Command(mau_mau_vampires=MMC(**kind))  # type: ignore[arg-type]


def draw() -> referee_pb2.Command:
    return command(draw_card=MMC.DrawCard())


def play(text: str, announce: int = 0, werewolf: int | None = None) -> referee_pb2.Command:
    p = MMC.PlayCard(card=card(text), announce=announce)  # type: ignore[arg-type]
    if werewolf is not None:
        p.werewolf_seat = werewolf
    return command(play_card=p)


def end_turn() -> referee_pb2.Command:
    return command(end_turn=MMC.EndTurn())


def wish(colour: int) -> referee_pb2.Command:
    return command(wish=MMC.Wish(colour=colour))  # type: ignore[arg-type]


def no_wish() -> referee_pb2.Command:
    return command(no_wish=MMC.NoWish())


def use() -> referee_pb2.Command:
    return command(use_ability=MMC.UseAbility())


def decline() -> referee_pb2.Command:
    return command(decline_ability=MMC.DeclineAbility())


def give(to: int, text: str, announce: int = 0) -> referee_pb2.Command:
    return command(give_card=MMC.GiveCard(to_seat=to, card=card(text), announce=announce))  # type: ignore[arg-type]


def call(colour: int) -> referee_pb2.Command:
    return command(call_colour=MMC.CallColour(colour=colour))  # type: ignore[arg-type]


def show(text: str) -> referee_pb2.Command:
    return command(show_card=MMC.ShowCard(card=card(text)))


def swap(seat: int) -> referee_pb2.Command:
    return command(swap_characters=MMC.SwapCharacters(seat=seat))


def share(to_seats: Sequence[int], announce: int = 0) -> referee_pb2.Command:
    return command(share_drawn=MMC.ShareDrawn(to_seats=list(to_seats), announce=announce))  # type: ignore[arg-type]


def set_aside(text: str, announce: int = 0) -> referee_pb2.Command:
    return command(set_aside=MMC.SetAside(card=card(text), announce=announce))  # type: ignore[arg-type]


def event(**kind: object) -> referee_pb2.Event:
    return referee_pb2.Event(sequence=9, mau_mau_vampires=MME(**kind))  # type: ignore[arg-type]


# --- views ---------------------------------------------------------------------------------


def character(seat: int, cid: str, werewolf: bool = False) -> MMV.CharacterView:
    name, ability, day, symbol, colour, first = CHARACTERS[cid]
    return MMV.CharacterView(
        seat=seat,
        id=cid,
        name=name,
        ability=ability,  # type: ignore[arg-type]
        day_symbols=list(day),
        vampire_symbol=symbol,
        vampire_colour=colour,  # type: ignore[arg-type]
        first_game=first,
        werewolf=werewolf,
    )


def make_view(
    *,
    seat: int | None = 0,
    players: int = 3,
    hand: str = "",
    hand_sizes: Sequence[int] | None = None,
    top: str = "B5",
    wish: int = 0,
    night: bool = False,
    clocks: int = 0,
    werewolf_seat: int | None = None,
    characters: Sequence[str] = ("C1", "C2", "C3", "C4", "C5", "C6"),
    phase: int = MMV.PHASE_TURN,
    turn: int | None = 0,
    decision: str = "turn",
    deciders: Sequence[int] | None = None,
    legal: Sequence[referee_pb2.Command] = (),
    ability: int = 0,
    wisher: int | None = None,
    called_colour: int = 0,
    answering: Sequence[int] = (),
    shown: Sequence[tuple[int, str]] = (),
    drawn: str = "",
    to_share: str = "",
    to_share_count: int = 0,
    totals: Sequence[int] | None = None,
    tiebreak_points: Sequence[int] | None = None,
    hand_scores: Sequence[Any] = (),
    pot_size: int = 0,
    pot_yours: str = "",
    announcements: str = "required",
    hands: int = 5,
    hand_number: int = 1,
    tiebreak: int = 0,
    playing: Sequence[int] | None = None,
    extra_turn: bool = False,
    last_hand: str = "",
    deck_size: int = 20,
    pile_size: int = 6,
    game_over: bool = False,
    ranks: Sequence[int] = (),
) -> referee_pb2.View:
    """A view for ``seat`` (None: a spectator). ``characters``: an id per seat."""
    mine = cards(hand)
    sizes = list(hand_sizes) if hand_sizes is not None else [len(mine) or 5] * players
    game = MMV(
        hand_number=hand_number,
        hands=hands,
        tiebreak=tiebreak,
        dealer=players - 1,
        playing=list(playing) if playing is not None else list(range(players)),
        hand=mine if seat is not None else [],
        hand_sizes=sizes,
        deck_size=deck_size,
        pile_size=pile_size,
        top=card(top) if top else MM.Card(),
        wish=wish,  # type: ignore[arg-type]
        night=night,
        clocks=clocks,
        characters=[
            character(s, characters[s], werewolf=s == werewolf_seat) for s in range(players)
        ],
        symbols=SYMBOLS,
        pot_size=pot_size,
        pot_yours=cards(pot_yours),
        phase=MMV.PHASE_GAME_OVER if game_over else phase,  # type: ignore[arg-type]
        extra_turn=extra_turn,
        ability=ability,  # type: ignore[arg-type]
        called_colour=called_colour,  # type: ignore[arg-type]
        answering=list(answering),
        shown_to_you=[MMV.ShownCard(seat=s, card=card(t)) for s, t in shown],
        drawn=cards(drawn),
        to_share=cards(to_share),
        to_share_count=to_share_count or len(cards(to_share)),
        totals=list(totals) if totals is not None else [0] * players,
        tiebreak_points=list(tiebreak_points) if tiebreak_points is not None else [0] * players,
        hand_scores=list(hand_scores),
        characters_option="keep",
        announcements=announcements,
        last_hand=cards(last_hand),
    )
    if werewolf_seat is not None:
        game.werewolf_seat = werewolf_seat
    if turn is not None and not game_over:
        game.turn = turn
    if wisher is not None:
        game.wisher = wisher
    if deciders is None:
        deciders = [] if game_over or turn is None else [wisher if wisher is not None else turn]
    view = referee_pb2.View(
        game_id="g4",
        game_type="mau-mau-vampires",
        version=31,
        pending_seats=list(deciders),
        legal_commands=list(legal),
        game_over=game_over,
        players=players,
        decisions=[referee_pb2.PendingDecision(seat=s, kind=decision) for s in deciders],
        results=[
            referee_pb2.SeatResult(seat=s, score=(totals or [0] * players)[s], rank=r)
            for s, r in enumerate(ranks)
        ],
        mau_mau_vampires=game,
    )
    if seat is not None:
        view.seat = seat
    return view


def hand_score(
    number: int, scores: Sequence[int], ender: int | None = None, tiebreak: int = 0
) -> MMV.HandScore:
    score = MMV.HandScore(hand_number=number, tiebreak=tiebreak, scores=list(scores))
    if ender is None:
        score.blocked = True
    else:
        score.ender = ender
    return score
