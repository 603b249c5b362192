"""What a player touches on a drawn table to make each legal command
(``View.legal_command_parts``): the cards of the seat's hand the command uses, then the things
on the table it aims at, in the order a player picks them.

A client that draws the table lets a player pick cards, then a target, from these alone, so a
new game needs no code of its own in any client: its ``labels`` module may define
``command_parts(command, view)``; without it (or where it returns ``None``) the parts are read
from the command's fields by name (:func:`default_parts`). Like the labels, parts use only the
command and the seat's own view, so they tell the seat nothing it may not know.

>>> hand_indexes((8, 8, 14, 8), (8, 14, 8))
(0, 1, 2)
>>> default_parts(_Give(card=7, to_seat=2), _HandView(hand=(3, 7)))
CommandParts(hand=(1,), targets=(Target(kind='seat', id='2', label='seat 2'),), any_order=False)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from referee.engine.registry import LABELS, game_module


@dataclass(frozen=True, slots=True)
class Target:
    """A thing on the table a command aims at: its ``kind`` ("seat", "pile", "position",
    "queen", "district", "slot", "colour" or a game's own word), which one (``id``, e.g. a
    seat number, "draw" or "discard" for a pile, "red" for a colour) and ``label``, its words
    for a client that draws no such thing and shows a button instead."""

    kind: str
    id: str
    label: str


@dataclass(frozen=True, slots=True)
class CommandParts:
    """The parts of one legal command: ``hand``, indexes into the game view's ``hand`` of the
    cards it uses (equal cards are interchangeable: any of them will do); ``targets``, what
    it aims at, in the order a player picks them (in any order when ``any_order``)."""

    hand: tuple[int, ...] = ()
    targets: tuple[Target, ...] = ()
    any_order: bool = False


#: A command made without touching anything on the table (pass, end the turn): a button.
NO_PARTS = CommandParts()


def seat_target(seat: int) -> Target:
    return Target("seat", str(seat), f"seat {seat}")


def pile(name: str, label: str) -> Target:
    """A pile: "draw" (the draw pile or deck), "discard", or a game's own ("pot")."""
    return Target("pile", name, label)


def hand_indexes(hand: Sequence[Any], cards: Iterable[Any]) -> tuple[int, ...]:
    """The indexes in ``hand`` of ``cards``, each at its own index (the first equal card not
    taken yet), ascending; :class:`ValueError` for a card the hand does not hold."""
    taken: set[int] = set()
    for card in cards:
        start = 0
        while True:  # the hand's own search (every legal command of every view asks)
            try:
                index = hand.index(card, start)
            except ValueError:
                raise ValueError(f"{card!r} is not in the hand (or not that many times)") from None
            if index not in taken:
                break
            start = index + 1
        taken.add(index)
    return tuple(sorted(taken))


def default_parts(command: Any, view: Any) -> CommandParts:
    """The parts of a command read from its fields by name: a field named ``card`` or
    ``cards`` uses those cards of the view's ``hand``, a field named ``seat`` or ending in
    ``_seat`` aims at that seat. Every other field is left to the command's label: the
    command is one of the choices a player makes from the list (or a button)."""
    if not dataclasses.is_dataclass(command):
        return NO_PARTS
    hand: Sequence[Any] = getattr(view, "hand", ())
    cards: list[Any] = []
    targets: list[Target] = []
    for field in dataclasses.fields(command):
        value = getattr(command, field.name)
        if field.name == "card":
            cards.append(value)
        elif field.name == "cards" and isinstance(value, tuple):
            cards.extend(value)
        elif (field.name == "seat" or field.name.endswith("_seat")) and isinstance(value, int):
            targets.append(seat_target(value))
    try:
        used = hand_indexes(hand, cards)
    except ValueError:  # a card from elsewhere (one just drawn, a pile): not the hand's
        used = ()
    return CommandParts(used, tuple(targets))


def legal_command_parts(
    type_id: str, view: Any, commands: Sequence[Any]
) -> tuple[CommandParts, ...]:
    """The parts of each of ``commands`` (the seat's legal commands, whose game view is
    ``view``), in their order: the game's ``command_parts`` where it gives some, else
    :func:`default_parts`."""
    own = getattr(game_module(type_id, LABELS), "command_parts", None)
    out = []
    for command in commands:
        parts = own(command, view) if own is not None else None
        out.append(parts if parts is not None else default_parts(command, view))
    return tuple(out)


@dataclass(frozen=True)
class _Give:
    card: int
    to_seat: int


@dataclass(frozen=True)
class _HandView:
    hand: tuple[int, ...]
