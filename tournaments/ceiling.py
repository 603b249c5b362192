"""Sleeping Queens: how much better than its heuristic a player can be, measured without a
search (docs/performance.md "What a seat cannot know").

    python tournaments/ceiling.py DEALS [VARIANT ...]

Each VARIANT of the heuristic plays the heuristic over DEALS duplicate deals of two seats
(``ceiling-N``, each deal once in each seat, as ``duel.py`` does): per deal the variant's wins
minus the heuristic's, averaged over the two seatings, with a 95% interval. A heuristic game
takes about a millisecond, so thousands of deals tell differences of a hundredth apart.

* ``queens``: the heuristic told where every face-down queen lies (which SQ-18 hides from
  every seat): what knowing them is worth to the same play;
* the rest change one habit, to see whether a better player lies next to the heuristic:
  ``jester-late`` (a Jester only when nothing but discards is left), ``block-odds`` (a Knight
  or Potion valued by the chance that its target holds no Dragon or Wand, counted from the
  cards the seat has not seen, in place of a flat 0.8), ``king-first`` (a King before any
  Knight or Potion that does not win), ``knight-first`` (a Knight before a King), ``no-potion``
  (a Potion only as a discard), ``pairs-first`` (a pair or equation before a Knight, Potion or
  Jester).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from typing import Any

from duel import interval

from referee.engine import View
from referee.engine.bot import game_bot
from referee.engine.table import Table
from referee.games.sleeping_queens import bot as heuristic
from referee.games.sleeping_queens.model import (
    DRAGON,
    WAND,
    Discard,
    PlayJester,
    PlayKing,
    PlayKnight,
    PlayPotion,
    Position,
)

GAME = "sleeping-queens"
#: A habit changed: (the command, the heuristic's value of it, the view) -> the new value.
Habit = Callable[[Any, float, View], float]


def _jester_late(command: Any, value: float, view: View) -> float:
    return 1.0 if isinstance(command, PlayJester) else value


def _block_odds(command: Any, value: float, view: View) -> float:
    if not isinstance(command, PlayKnight | PlayPotion) or value >= heuristic.WIN:
        return value
    game = view.game
    card = DRAGON if isinstance(command, PlayKnight) else WAND
    unseen_cards = game.draw_pile_size + sum(game.hand_sizes) - len(game.hand)
    unseen = max(0, 3 - list(game.discard_pile).count(card) - list(game.hand).count(card))
    owner = heuristic._owner(game, command.queen)
    held = game.hand_sizes[owner] if owner is not None else 0
    none = 1.0
    for drawn in range(held):  # the target's hand holds none of the unseen blocking cards
        none *= max(0.0, (unseen_cards - unseen - drawn) / max(1, unseen_cards - drawn))
    return value / heuristic.SleepingQueensHeuristic.block_risk * none


def _first(kinds: tuple[type, ...]) -> Habit:
    def habit(command: Any, value: float, view: View) -> float:
        return value + 100 if isinstance(command, kinds) and 0 < value < heuristic.WIN else value

    return habit


def _no_potion(command: Any, value: float, view: View) -> float:
    return 0.2 if isinstance(command, PlayPotion) and value < heuristic.WIN else value


def _pairs_first(command: Any, value: float, view: View) -> float:
    return value + 8 if isinstance(command, Discard) and len(command.cards) > 1 else value


HABITS: dict[str, Habit] = {
    "jester-late": _jester_late,
    "block-odds": _block_odds,
    "king-first": _first((PlayKing,)),
    "knight-first": _first((PlayKnight,)),
    "no-potion": _no_potion,
    "pairs-first": _pairs_first,
}


class Variant(heuristic.SleepingQueensHeuristic):
    """The heuristic with one habit changed."""

    def __init__(self, habit: Habit) -> None:
        self.habit = habit

    def value(self, view: View, players: int, command: Any) -> float:
        return self.habit(command, super().value(view, players, command), view)


def told_the_queens(table: Table[Any], seat: int) -> View:
    """The seat's view with every face-down queen shown where she lies."""
    view = table.view(seat)
    shown = tuple(Position(p, bool(q), q) for p, q in enumerate(table.state.positions))
    return dataclasses.replace(view, game=dataclasses.replace(view.game, positions=shown))


def deal(number: int, variant: str) -> float:
    """The variant's wins minus the heuristic's over one deal's two seatings."""
    base = game_bot(GAME)
    assert base is not None
    other = base if variant == "queens" else Variant(HABITS[variant])
    wins = 0
    for seat in (0, 1):
        table = Table.create(GAME, 2, {}, seed=f"ceiling-{number}".encode())
        while (results := table.results()) is None:
            mover = table.pending()[0]
            if mover != seat:
                view = table.view(mover)
                table.submit(mover, base.choose(view, 2))
                continue
            view = told_the_queens(table, mover) if variant == "queens" else table.view(mover)
            table.submit(mover, other.choose(view, 2))
        first = {result.seat for result in results if result.rank == 1}
        wins += (seat in first) - (1 - seat in first)
    return wins / 2


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    deals = int(sys.argv[1])
    for variant in sys.argv[2:] or ["queens", *HABITS]:
        if variant != "queens" and variant not in HABITS:
            raise SystemExit(f"{variant}: one of queens, {', '.join(HABITS)}")
        differences = [deal(number, variant) for number in range(deals)]
        print(f"{variant}: variant - heuristic, wins: {interval(differences)} ({deals} deals)")


if __name__ == "__main__":
    main()
