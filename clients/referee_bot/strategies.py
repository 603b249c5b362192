"""Strategies: how a bot picks one of the legal commands of its view.

A strategy sees only what the server sends its seat (a :class:`referee_pb2.View` with its
``legal_commands``); it never re-implements the rules. It always returns one of
``view.legal_commands``.

The heuristics of Dracula vs Van Helsing, Sleeping Queens and Mau Mau Vampires live in their
own modules (:mod:`referee_bot.strategy_dracula`, :mod:`referee_bot.strategy_sleeping_queens`,
:mod:`referee_bot.strategy_mau_mau`).

Strategies are registered by name and game type in :data:`STRATEGIES`
(``STRATEGIES[name][game_type]``, ``"*"`` for any game). :func:`make_strategy` looks one up and
falls back to ``random`` for a game type with no strategy of that name, so a new game is
playable by every bot at once and can add its own strategies later::

    STRATEGIES["heuristic"]["my-game"] = MyGameHeuristic
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from referee.v1 import referee_pb2, vampire_queen_pb2
from referee_bot.strategy_dracula import DraculaHeuristic
from referee_bot.strategy_mau_mau import MauMauHeuristic
from referee_bot.strategy_sleeping_queens import SleepingQueensHeuristic

VQCommand = vampire_queen_pb2.VampireQueenCommand
VQView = vampire_queen_pb2.VampireQueenView

QUEEN = 14
HUNTERS = (15, 20)


class Strategy(Protocol):
    """Picks one command among ``view.legal_commands`` (never empty when called)."""

    def choose(self, view: referee_pb2.View, rng: random.Random) -> referee_pb2.Command: ...


StrategyFactory = Callable[[], Strategy]

ANY_GAME = "*"


class RandomStrategy:
    """Uniformly random among the legal commands: works for every game."""

    def choose(self, view: referee_pb2.View, rng: random.Random) -> referee_pb2.Command:
        return rng.choice(list(view.legal_commands))


class VampireQueenHeuristic:
    """A simple, sensible Vampire Queen player. Penalties are the cards left in hand at the
    end of a round (face value, queen 14, Hunters 15/20), so the aim is to shed cards, high
    ones and Hunters first, and to keep queens (wild) for when they finish a hand.

    Leading (nothing led yet):
      1. lead a Hunter if allowed (the leader never takes a Hunter trick, VQ-16), the 20 first;
      2. if one set empties the hand, lead it;
      3. otherwise lead the largest set without queens, the lowest value among equals
         (low cards can only ever leave the hand as leads; big sets are hard to beat);
      4. with only queens left, lead them all (14 is unbeatable).

    Following a set (normal trick):
      1. if a set empties the hand, play it (the round ends with us at 0);
      2. play the cheapest set that beats without queens (lowest value), keeping high cards
         and queens for later;
      3. a set that needs queens only when the end is near (some seat, us included, holds at
         most 4 cards), with as few queens as possible; otherwise pass.

    Answering a Hunter (everyone plays one card, the highest takes the lot):
      1. if a card cannot become the highest (below the best so far, or equal to it when the
         first of a tie wins), play the one with the highest penalty among them: it leaves
         the hand for good (a queen counts only 1 here by default: an ideal discard);
      2. otherwise play the card of lowest rank, leaving the most room for a later player
         to beat it (if we take the trick anyway, the card comes back with it).
    """

    endgame_cards = 4

    def choose(self, view: referee_pb2.View, rng: random.Random) -> referee_pb2.Command:
        legal = list(view.legal_commands)
        game = view.vampire_queen
        if game.trick_kind == VQView.TRICK_KIND_HUNTER:
            return self._answer_hunter(view, legal)
        if game.trick_kind == VQView.TRICK_KIND_NORMAL:
            return self._follow(view, legal)
        return self._lead(view, legal)

    # --- leading -----------------------------------------------------------------------

    def _lead(
        self, view: referee_pb2.View, legal: list[referee_pb2.Command]
    ) -> referee_pb2.Command:
        hunters = [c for c in legal if c.vampire_queen.HasField("lead_hunter")]
        if hunters:
            return max(hunters, key=lambda c: c.vampire_queen.lead_hunter.hunter)
        sets = [c for c in legal if c.vampire_queen.HasField("play_set")]
        if not sets:
            return legal[0]
        emptying = _emptying(view, sets)
        if emptying is not None:
            return emptying
        plain = [c for c in sets if c.vampire_queen.play_set.queens == 0]
        if plain:
            return max(
                plain,
                key=lambda c: (c.vampire_queen.play_set.count, -c.vampire_queen.play_set.value),
            )
        return max(sets, key=lambda c: c.vampire_queen.play_set.count)

    # --- following ---------------------------------------------------------------------

    def _follow(
        self, view: referee_pb2.View, legal: list[referee_pb2.Command]
    ) -> referee_pb2.Command:
        passes = [c for c in legal if c.vampire_queen.WhichOneof("kind") == "pass"]
        sets = [c for c in legal if c.vampire_queen.HasField("play_set")]
        emptying = _emptying(view, sets)
        if emptying is not None:
            return emptying
        plain = [c for c in sets if c.vampire_queen.play_set.queens == 0]
        if plain:
            return min(plain, key=lambda c: c.vampire_queen.play_set.value)
        game = view.vampire_queen
        endgame = bool(game.hand_sizes) and min(game.hand_sizes) <= self.endgame_cards
        if sets and (endgame or not passes):
            return min(
                sets,
                key=lambda c: (c.vampire_queen.play_set.queens, c.vampire_queen.play_set.value),
            )
        return passes[0] if passes else legal[0]

    # --- answering a Hunter ------------------------------------------------------------

    def _answer_hunter(
        self, view: referee_pb2.View, legal: list[referee_pb2.Command]
    ) -> referee_pb2.Command:
        game = view.vampire_queen
        cards = [c for c in legal if c.vampire_queen.HasField("play_card")]
        if not cards:
            return legal[0]
        queen_rank = game.hunter_queen or 1

        def rank(command: referee_pb2.Command) -> int:
            value = command.vampire_queen.play_card.value
            return queen_rank if value == QUEEN else value

        def penalty(command: referee_pb2.Command) -> int:
            return command.vampire_queen.play_card.value

        safe: list[referee_pb2.Command] = []
        if game.HasField("best_seat"):
            best = game.best_value
            ties_to_last = game.hunter_tie == "last"
            safe = [c for c in cards if rank(c) < best or (rank(c) == best and not ties_to_last)]
        if safe:
            return max(safe, key=lambda c: (penalty(c), -rank(c)))
        return min(cards, key=lambda c: (rank(c), penalty(c)))


def _emptying(
    view: referee_pb2.View, sets: list[referee_pb2.Command]
) -> referee_pb2.Command | None:
    """A set that plays every card left in hand (Hunters aside: they never go in a set)."""
    hand = [v for v in view.vampire_queen.hand if v not in HUNTERS]
    if len(hand) != len(view.vampire_queen.hand):
        return None  # a Hunter would stay in hand: no point rushing out
    for command in sets:
        if command.vampire_queen.play_set.count == len(hand):
            return command
    return None


#: Strategy factories: ``STRATEGIES[name][game_type]``; game type ``"*"`` means any game.
STRATEGIES: dict[str, dict[str, StrategyFactory]] = {
    "random": {ANY_GAME: RandomStrategy},
    "heuristic": {
        "vampire-queen": VampireQueenHeuristic,
        "dracula-vs-van-helsing": DraculaHeuristic,
        "sleeping-queens": SleepingQueensHeuristic,
        "mau-mau-vampires": MauMauHeuristic,
    },
}


def strategy_names() -> list[str]:
    """Every registered strategy name."""
    return sorted(STRATEGIES)


def known_games() -> list[str]:
    """The game type ids some strategy knows by name (for --help; a server's ListGameTypes is
    the full list, and any other game is played at random)."""
    return sorted({game for games in STRATEGIES.values() for game in games} - {ANY_GAME})


def effective_name(name: str, game_type: str) -> str:
    """The strategy that ``make_strategy(name, game_type)`` really plays.

    >>> effective_name("heuristic", "vampire-queen"), effective_name("heuristic", "other")
    ('heuristic', 'random')
    """
    by_game = STRATEGIES.get(name, {})
    return name if game_type in by_game or ANY_GAME in by_game else "random"


def make_strategy(name: str, game_type: str) -> Strategy:
    """The strategy ``name`` for ``game_type``; ``random`` when that game has none of that name.

    >>> type(make_strategy("heuristic", "vampire-queen")).__name__
    'VampireQueenHeuristic'
    >>> type(make_strategy("heuristic", "some-other-game")).__name__
    'RandomStrategy'
    """
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose one of {', '.join(strategy_names())}")
    by_game = STRATEGIES[name]
    factory = by_game.get(game_type) or by_game.get(ANY_GAME) or RandomStrategy
    return factory()
