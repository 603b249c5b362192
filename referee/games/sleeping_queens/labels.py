"""Sleeping Queens in words: a label for each legal command and a line for each event.

Display text for people (``View.legal_command_labels``, ``Event.description``), not for
parsing. A label uses only the command and the seat's own view, so it names a sleeping queen
only where that seat may know her (SQ-18).

>>> command_label(PlayKing(position=7), None)
'play a King: wake the queen at position 7'
>>> command_label(Discard(cards=(2, 3, 5)), None)
'discard 2 + 3 = 5 and draw'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.engine.labels import PublicText, fallback, join, lines, plural, seat, wrapped
from referee.engine.parts import NO_PARTS, CommandParts, Target, hand_indexes, pile
from referee.games.sleeping_queens.model import (
    CAT,
    DRAGON,
    JESTER,
    KING,
    KNIGHT,
    POTION,
    QUEEN_POINTS,
    WAND,
    Block,
    BlockDeclined,
    Blocked,
    CardsDrawn,
    DeckShuffled,
    DeclineBlock,
    Discard,
    Discarded,
    GameEnded,
    JesterPlayed,
    JesterTurned,
    KingPlayed,
    KnightBounced,
    KnightPlayed,
    KnightWasted,
    PlaceQueen,
    PlayJester,
    PlayKing,
    PlayKnight,
    PlayPotion,
    PotionPlayed,
    QueenBounced,
    QueenPutToSleep,
    QueensLaid,
    QueenStolen,
    QueenWoken,
    RoseBonus,
    SleepingQueensView,
    TurnStarted,
    WakeQueen,
    card_name,
    queen_name,
)

#: Events a game log may fold away (``Event.bookkeeping``): whose turn it is (the table
#: shows it), the shuffles and the queens laid out at the start.
BOOKKEEPING: frozenset[type] = frozenset({TurnStarted, DeckShuffled, QueensLaid})


def a_card(value: int) -> str:
    return f"an {value}" if value == 8 else f"a {card_name(value)}"


def cards_text(cards: Sequence[int]) -> str:
    return " ".join(card_name(c) for c in cards)


def discard_text(cards: Sequence[int]) -> str:
    """One card, a pair, or an equation (SQ-9)."""
    cards = sorted(cards)
    if len(cards) == 1:
        return a_card(cards[0])
    if len(cards) == 2 and cards[0] == cards[1]:
        return f"a pair of {cards[0]}s"
    return " + ".join(str(c) for c in cards[:-1]) + f" = {cards[-1]}"


def queen(q: int) -> str:
    """``the Cat Queen (15)``."""
    return f"the {queen_name(q)} ({QUEEN_POINTS[q]})" if 0 < q < 13 else "a queen"


def _owner(view: SleepingQueensView | None, q: int) -> int | None:
    if view is None:
        return None
    return next((a.seat for a in view.awake if q in a.queens), None)


def _at(view: SleepingQueensView | None, position: int) -> str:
    known = 0
    if view is not None:
        known = next((p.queen for p in view.positions if p.position == position and p.asleep), 0)
    return f"position {position}" + (f" ({queen(known)})" if known else "")


def _owned(view: SleepingQueensView | None, q: int) -> str:
    owner = _owner(view, q)
    return f"{seat(owner)}'s {queen_name(q)} ({QUEEN_POINTS[q]})" if owner is not None else queen(q)


def command_label(command: Any, view: SleepingQueensView | None) -> str:
    target = queen(view.target_queen) if view is not None and view.target_queen else "your queen"
    if isinstance(command, Discard):
        return f"discard {discard_text(command.cards)} and draw"
    if isinstance(command, PlayKing):
        return f"play a King: wake the queen at {_at(view, command.position)}"
    if isinstance(command, PlayKnight):
        return f"play a Knight: steal {_owned(view, command.queen)}"
    if isinstance(command, PlayPotion):
        return f"play a Sleeping Potion: put {_owned(view, command.queen)} to sleep"
    if isinstance(command, PlayJester):
        return "play a Jester: turn over the top card of the draw pile"
    if isinstance(command, Block):
        return f"block with a Dragon or Wand: keep {target}"
    if isinstance(command, DeclineBlock):
        return f"do not block: let {target} go"
    if isinstance(command, WakeQueen):
        return f"wake the queen at {_at(view, command.position)}"
    if isinstance(command, PlaceQueen):
        return f"put {target} to sleep at position {command.position}"
    return fallback(command)


def _position(view: SleepingQueensView, position: int) -> Target:
    return Target("position", str(position), _at(view, position))


def _queen_target(view: SleepingQueensView, q: int) -> Target:
    return Target("queen", str(q), _owned(view, q))


def command_parts(command: Any, view: SleepingQueensView) -> CommandParts:
    """What a command uses (``View.legal_command_parts``): the card played from the hand,
    then the sleeping position (a King, a Jester's or the Rose Queen's wake, a queen put
    back), the awake queen (a Knight, a Potion) or the discard pile (a discard, SQ-9)."""
    if isinstance(command, Discard):
        return CommandParts(
            hand_indexes(view.hand, command.cards), (pile("discard", "the discard pile"),)
        )
    if isinstance(command, PlayKing):
        return CommandParts(hand_indexes(view.hand, [KING]), (_position(view, command.position),))
    if isinstance(command, PlayKnight | PlayPotion):
        card = KNIGHT if isinstance(command, PlayKnight) else POTION
        return CommandParts(hand_indexes(view.hand, [card]), (_queen_target(view, command.queen),))
    if isinstance(command, PlayJester):
        return CommandParts(hand_indexes(view.hand, [JESTER]))
    if isinstance(command, Block):
        # The attack card lies on the discard pile: a Dragon stops a Knight, a Wand a Potion.
        attack = view.discard_pile[-1] if view.discard_pile else KNIGHT
        return CommandParts(hand_indexes(view.hand, [DRAGON if attack == KNIGHT else WAND]))
    if isinstance(command, WakeQueen | PlaceQueen):
        return CommandParts(targets=(_position(view, command.position),))
    return NO_PARTS


def event_text(event: Any) -> str:
    if isinstance(event, DeckShuffled):
        if event.reshuffle:
            return f"the discard pile is shuffled into a new draw pile ({event.count} cards)"
        return f"the {event.count} cards are shuffled"
    if isinstance(event, QueensLaid):
        return "12 queens lie asleep, face down, in positions 0-11"
    if isinstance(event, CardsDrawn):
        if event.cards:
            return f"{seat(event.seat)} draws {cards_text(event.cards)}"
        return f"{seat(event.seat)} draws {plural(event.count, 'card')}"
    if isinstance(event, TurnStarted):
        return f"{seat(event.seat)}'s turn"
    if isinstance(event, Discarded):
        return f"{seat(event.seat)} discards {discard_text(event.cards)}"
    if isinstance(event, KingPlayed):
        return f"{seat(event.seat)} plays a King on the queen at position {event.position}"
    if isinstance(event, QueenWoken):
        return f"{seat(event.seat)} wakes {queen(event.queen)} at position {event.position}"
    if isinstance(event, QueenBounced):
        rival = "Dog" if event.queen == CAT else "Cat"
        return (
            f"{queen(event.queen)} goes back to sleep at position {event.position}: "
            f"{seat(event.seat)} holds the {rival} Queen"
        )
    if isinstance(event, RoseBonus):
        if event.lost:
            return f"{seat(event.seat)} loses the Rose Queen's bonus: no queen is left asleep"
        return f"the Rose Queen's bonus: {seat(event.seat)} wakes one more queen"
    if isinstance(event, JesterPlayed):
        return f"{seat(event.seat)} plays a Jester"
    if isinstance(event, JesterTurned):
        if event.counted is not None:
            return (
                f"the Jester turns up {a_card(event.card)}: counting from {seat(event.seat)}, "
                f"{seat(event.counted)} wakes a queen"
            )
        return f"the Jester turns up {a_card(event.card)}: {seat(event.seat)} keeps it, plays again"
    if isinstance(event, KnightPlayed):
        return f"{seat(event.seat)} plays a Knight on {seat(event.target)}'s {queen(event.queen)}"
    if isinstance(event, PotionPlayed):
        return (
            f"{seat(event.seat)} plays a Sleeping Potion on {seat(event.target)}'s "
            f"{queen(event.queen)}"
        )
    if isinstance(event, Blocked):
        return f"{seat(event.seat)} blocks with {a_card(event.card)}: the queen stays"
    if isinstance(event, BlockDeclined):
        return f"{seat(event.seat)} does not block"
    if isinstance(event, QueenStolen):
        return f"{seat(event.seat)} steals {queen(event.queen)} from {seat(event.from_seat)}"
    if isinstance(event, KnightWasted):
        return (
            f"{seat(event.seat)}'s Knight is wasted on {queen(event.queen)} "
            "(Cat and Dog never together)"
        )
    if isinstance(event, KnightBounced):
        return (
            f"{queen(event.queen)}, taken by {seat(event.seat)} from {seat(event.from_seat)}, "
            "goes back to sleep (Cat and Dog never together)"
        )
    if isinstance(event, QueenPutToSleep):
        return (
            f"{seat(event.seat)}'s {queen(event.queen)} goes back to sleep at position "
            f"{event.position} (chosen by {seat(event.by)})"
        )
    if isinstance(event, GameEnded):  # the event's own words (public), with the rule
        return f"game over: {event.end_reason} ({event.end_rule_id})"
    return fallback(event)


def public_text(view: SleepingQueensView) -> PublicText:
    """The texts of :func:`view_text` every viewer of the game at one version shares (SQ-17,
    SQ-18: the queens awake and asleep, the piles), wrapped once for all."""
    asleep = [p for p in view.positions if p.asleep]
    known = [f"{p.position} is {queen(p.queen)}" for p in asleep if p.queen]
    awake = "; ".join(
        f"{seat(a.seat)} {', '.join(queen_name(q) for q in a.queens)} ({a.points} points)"
        for a in view.awake
        if a.queens
    )
    pile = f"draw pile {view.draw_pile_size}"
    if view.discard_pile:
        pile += f"; discard pile top: {card_name(view.discard_pile[-1])}"
    return (
        wrapped(f"awake: {awake}" if awake else "no queen is awake yet"),
        wrapped(
            f"asleep at positions {' '.join(str(p.position) for p in asleep)}"
            + (f" ({join(known)})" if known else "")
            if asleep
            else "no queen is asleep"
        ),
        wrapped(pile),
    )


def seat_text(view: SleepingQueensView, public: PublicText) -> tuple[str, ...]:
    """:func:`view_text` from its public texts (:func:`public_text` of any viewer's view of
    the same version): the seat's hand is its own (SQ-19)."""
    return lines(f"your hand: {cards_text(view.hand)}" if view.hand else "", *public)


def view_text(view: SleepingQueensView) -> tuple[str, ...]:
    """The seat's view in the game's words (``View.view_lines``), from the view only: its hand
    by card name (SQ-2), the sleeping positions (a queen's name only where it is public,
    SQ-18), the queens awake in front of each seat (SQ-1) and the discard pile's top."""
    return seat_text(view, public_text(view))
