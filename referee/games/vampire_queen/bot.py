"""A heuristic Vampire Queen player over the engine's values (found by the registry as
``BOT``; the contract is in :mod:`referee.bots`).

Penalties are the cards left in hand at the end of a round (face value, queen 14, Hunters
15/20), so the aim is to shed cards, high ones and Hunters first, and to keep queens (wild) for
when they finish a hand.

Leading (nothing led yet):
  1. lead a Hunter if allowed (the leader never takes a Hunter trick, VQ-16), the 20 first;
  2. if one set empties the hand, lead it;
  3. otherwise lead the largest set without queens, the lowest value among equals (low cards
     can only ever leave the hand as leads; big sets are hard to beat);
  4. with only queens left, lead them all (14 is unbeatable).

Following a set (normal trick):
  1. if a set empties the hand, play it (the round ends with us at 0);
  2. play the cheapest set that beats without queens (lowest value), keeping high cards and
     queens for later;
  3. a set that needs queens only when the end is near (some seat, us included, holds at most
     4 cards), with as few queens as possible; otherwise pass.

Answering a Hunter (everyone plays one card, the highest takes the lot):
  1. if a card cannot become the highest (below the best so far, or equal to it when the first
     of a tie wins), play the one with the highest penalty among them: it leaves the hand for
     good (a queen counts only 1 here by default: an ideal discard);
  2. otherwise play the card of lowest rank, leaving the most room for a later player to beat
     it (if we take the trick anyway, the card comes back with it).

>>> from referee.engine import Table
>>> table = Table.create("vampire-queen", 3, seed=b"bot")
>>> seat = table.pending()[0]
>>> BOT.choose(table.view(seat), 3) in table.legal_commands(seat)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.engine import View
from referee.games.vampire_queen.model import (
    HUNTERS,
    QUEEN,
    LeadHunter,
    Pass,
    PlayCard,
    PlaySet,
    TrickKind,
    VampireQueenView,
)
from referee.search import ismcts
from referee.search.pimc import Settings


class VampireQueenHeuristic:
    """Plays Vampire Queen (see the module)."""

    endgame_cards = 4

    def choose(self, view: View, players: int) -> Any:
        legal = view.legal_commands
        game: VampireQueenView = view.game
        if game.trick_kind == TrickKind.HUNTER:
            return self._answer_hunter(game, legal)
        if game.trick_kind == TrickKind.NORMAL:
            return self._follow(game, legal)
        return self._lead(game, legal)

    # --- leading -----------------------------------------------------------------------

    def _lead(self, game: VampireQueenView, legal: Sequence[Any]) -> Any:
        hunters = [c for c in legal if isinstance(c, LeadHunter)]
        if hunters:
            return max(hunters, key=lambda c: c.hunter)
        sets = [c for c in legal if isinstance(c, PlaySet)]
        if not sets:
            return legal[0]
        emptying = _emptying(game, sets)
        if emptying is not None:
            return emptying
        plain = [c for c in sets if c.queens == 0]
        if plain:
            return max(plain, key=lambda c: (c.count, -c.value))
        return max(sets, key=lambda c: c.count)

    # --- following ---------------------------------------------------------------------

    def _follow(self, game: VampireQueenView, legal: Sequence[Any]) -> Any:
        passes = [c for c in legal if isinstance(c, Pass)]
        sets = [c for c in legal if isinstance(c, PlaySet)]
        emptying = _emptying(game, sets)
        if emptying is not None:
            return emptying
        plain = [c for c in sets if c.queens == 0]
        if plain:
            return min(plain, key=lambda c: c.value)
        endgame = bool(game.hand_sizes) and min(game.hand_sizes) <= self.endgame_cards
        if sets and (endgame or not passes):
            return min(sets, key=lambda c: (c.queens, c.value))
        return passes[0] if passes else legal[0]

    # --- answering a Hunter ------------------------------------------------------------

    def _answer_hunter(self, game: VampireQueenView, legal: Sequence[Any]) -> Any:
        cards = [c for c in legal if isinstance(c, PlayCard)]
        if not cards:
            return legal[0]
        queen_rank = game.hunter_queen or 1

        def rank(command: PlayCard) -> int:
            return queen_rank if command.value == QUEEN else command.value

        safe: list[PlayCard] = []
        if game.best_seat is not None:
            best = game.best_value
            ties_to_last = game.hunter_tie == "last"
            safe = [c for c in cards if rank(c) < best or (rank(c) == best and not ties_to_last)]
        if safe:  # the penalty of a card is its value
            return max(safe, key=lambda c: (c.value, -rank(c)))
        return min(cards, key=lambda c: (rank(c), c.value))


def _emptying(game: VampireQueenView, sets: list[PlaySet]) -> PlaySet | None:
    """A set that plays every card left in hand (Hunters aside: they never go in a set)."""
    hand = [v for v in game.hand if v not in HUNTERS]
    if len(hand) != len(game.hand):
        return None  # a Hunter would stay in hand: no point rushing out
    for command in sets:
        if command.count == len(hand):
            return command
    return None


#: The bot the registry finds (referee.bots).
BOT = VampireQueenHeuristic()

#: How :mod:`referee.search.pimc` searches this game: a playout stops when the round is
#: scored (a five-round game costs ~40 ms to play out, a round a few).
SEARCH = Settings(horizon="round")
#: The tree search as measured against the heuristic (docs/performance.md "ISMCTS"): to the
#: round's scoring, every seat's decisions in the tree.
TREE_SEARCH = ismcts.Settings(horizon="round", opponents="tree")
