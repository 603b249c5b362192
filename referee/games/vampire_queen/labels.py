"""Vampire Queen in words: a label for each legal command and a line for each event.

Display text for people (``View.legal_command_labels``, ``Event.description``), not for
parsing. Card words: numbers as themselves, ``14`` a queen, ``15``/``20`` the Hunters (VQ-1).

>>> command_label(PlaySet(value=8, count=3, queens=1), None)
'play three 8s using one queen'
>>> event_text(SetPlayed(seat=2, value=14, count=2, queens=2))
'seat 2 played two queens'
"""

from __future__ import annotations

from typing import Any

from referee.engine.labels import (
    PublicText,
    fallback,
    lines,
    number_word,
    plural,
    seat,
    wrapped,
)
from referee.engine.parts import NO_PARTS, CommandParts, hand_indexes
from referee.games.vampire_queen.model import (
    HUNTERS,
    QUEEN,
    CardPlayed,
    GameEnded,
    HandDealt,
    HunterLed,
    LeadHunter,
    Pass,
    Passed,
    PlayCard,
    PlayKind,
    PlaySet,
    RoundScored,
    RoundStarted,
    SetPlayed,
    Skipped,
    TrickKind,
    TrickPlay,
    TrickWon,
    VampireQueenView,
)

#: Events a game log may fold away (``Event.bookkeeping``): none; every play tells.
BOOKKEEPING: frozenset[type] = frozenset()


def card(value: int) -> str:
    """``a queen``, ``the 20 Hunter``, ``an 8``, ``a 7``."""
    if value == QUEEN:
        return "a queen"
    if value in HUNTERS:
        return f"the {value} Hunter"
    return f"an {value}" if value in (8, 11) else f"a {value}"


def short(value: int) -> str:
    return "Q" if value == QUEEN else f"H{value}" if value in HUNTERS else str(value)


#: :func:`short` of every card (1-13, a queen, the Hunters): a seat's hand is written in
#: every view of it.
_SHORT: dict[int, str] = {value: short(value) for value in (*range(1, QUEEN + 1), *HUNTERS)}


def cards_of_set(value: int, count: int) -> str:
    """``three 8s``, ``one queen``, ``two queens``."""
    if value == QUEEN:
        return f"{number_word(count)} queen{'' if count == 1 else 's'}"
    return f"{number_word(count)} {value}{'' if count == 1 else 's'}"


def command_label(command: Any, view: VampireQueenView | None) -> str:
    if isinstance(command, PlaySet):
        text = f"play {cards_of_set(command.value, command.count)}"
        if command.queens and command.value != QUEEN:
            text += (
                f" using {number_word(command.queens)} queen{'' if command.queens == 1 else 's'}"
            )
        return text
    if isinstance(command, LeadHunter):
        return f"lead the {command.hunter} Hunter"
    if isinstance(command, Pass):
        return "pass"
    if isinstance(command, PlayCard):
        text = f"play {card(command.value)}"
        if command.value == QUEEN and view is not None:
            text += f" (counts as {view.hunter_queen or 1} here)"
        return text
    return fallback(command)


def command_parts(command: Any, view: VampireQueenView) -> CommandParts:
    """The cards of the seat's hand a command plays (``View.legal_command_parts``): a set's
    cards (its queens among them), a Hunter, the one card answering a Hunter; a pass uses
    none. Every play goes on the trick, so none needs a target."""
    if isinstance(command, PlaySet):
        plain = 0 if command.value == QUEEN else command.count - command.queens
        queens = command.count - plain
        return CommandParts(hand_indexes(view.hand, [command.value] * plain + [QUEEN] * queens))
    if isinstance(command, LeadHunter):
        return CommandParts(hand_indexes(view.hand, [command.hunter]))
    if isinstance(command, PlayCard):
        return CommandParts(hand_indexes(view.hand, [command.value]))
    return NO_PARTS


def event_text(event: Any) -> str:
    if isinstance(event, RoundStarted):
        return (
            f"round {event.round} starts: {seat(event.leader)} leads; the 15 Hunter is with "
            f"{seat(event.hunter_15_holder)}, the 20 Hunter with {seat(event.hunter_20_holder)}"
        )
    if isinstance(event, HandDealt):
        if event.cards:
            return f"{seat(event.seat)} is dealt " + " ".join(short(v) for v in event.cards)
        return f"{seat(event.seat)} is dealt {plural(event.count, 'card')}"
    if isinstance(event, SetPlayed):
        text = f"{seat(event.seat)} played {cards_of_set(event.value, event.count)}"
        if event.queens and event.value != QUEEN:
            text += f" ({plural(event.queens, 'queen')} among them)"
        return text
    if isinstance(event, Passed):
        return f"{seat(event.seat)} passed"
    if isinstance(event, HunterLed):
        return f"{seat(event.seat)} led the {event.hunter} Hunter: everyone answers with one card"
    if isinstance(event, CardPlayed):
        return f"{seat(event.seat)} answered with {card(event.value)}"
    if isinstance(event, Skipped):
        return f"{seat(event.seat)} holds only Hunters and is skipped"
    if isinstance(event, TrickWon):
        if event.hunter_trick:
            taken = " ".join(short(v) for v in event.taken)
            return f"{seat(event.winner)} takes the Hunter trick into hand: {taken}"
        return f"{seat(event.winner)} wins the trick and leads next"
    if isinstance(event, RoundScored):
        totals = ", ".join(f"{seat(s)} {t}" for s, t in enumerate(event.totals))
        return f"round {event.round} scored (penalty points): {totals}"
    if isinstance(event, GameEnded):  # the event's own words (public), with the rule
        return f"game over: {event.end_reason} ({event.end_rule_id})"
    return fallback(event)


def _play_text(play: TrickPlay) -> str:
    if play.kind == PlayKind.SET:
        return f"{seat(play.seat)} {cards_of_set(play.value, play.count)}"
    if play.kind == PlayKind.HUNTER:
        return f"{seat(play.seat)} led {short(play.value)}"
    if play.kind == PlayKind.CARD:
        return f"{seat(play.seat)} {short(play.value)}"
    if play.kind == PlayKind.SKIP:
        return f"{seat(play.seat)} skipped"
    return f"{seat(play.seat)} passed"


def public_text(view: VampireQueenView) -> PublicText:
    """The texts of :func:`view_text` every viewer of the game at one version shares (VQ-20,
    VQ-21: the trick, the round and the Hunters' holders are public), wrapped once for all."""
    trick = ""
    if view.trick:
        kind = "Hunter trick" if view.trick_kind == TrickKind.HUNTER else "trick"
        trick = f"{kind}: " + "; ".join(_play_text(p) for p in view.trick)
    return (
        wrapped(trick),
        wrapped(
            f"round {view.round} of {view.rounds}; H15 with {seat(view.hunter_15_holder)}, "
            f"H20 with {seat(view.hunter_20_holder)}"
        ),
    )


def seat_text(view: VampireQueenView, public: PublicText) -> tuple[str, ...]:
    """:func:`view_text` from its public texts (:func:`public_text` of any viewer's view of
    the same version): the seat's hand is its own."""
    trick, table = public
    words = _SHORT
    return lines(
        f"your hand: {' '.join([words[v] for v in view.hand])}" if view.hand else "", trick, table
    )


def view_text(view: VampireQueenView) -> tuple[str, ...]:
    """The seat's view in the game's words (``View.view_lines``), from the view only: its
    hand by card words (VQ-1: ``Q`` a queen, ``H15``/``H20`` the Hunters), the trick so far."""
    return seat_text(view, public_text(view))
