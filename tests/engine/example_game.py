"""High Card, the smallest whole game in the house pattern (docs/writing-a-game.md).

tests/engine/test_registry.py copies this file into a temporary ``referee/games/high_card``
package and checks that the registry finds it and the conformance suite passes it, with no
edit anywhere else. Its made-up rules, with ids as a rules file would give them:

* HC-1: the deck is the cards 1-9; each seat is dealt two, seen by that seat only.
* HC-2: seats play in turn, seat 0 first; the seat on turn plays one card it holds.
* HC-3: once every card is played the game is over; nothing more may be played.
* HC-4: a seat scores the sum of its cards; the higher score ranks first.
* HC-5: 2 to 4 players.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from referee.engine.chance import deck_for, hidden_permutation
from referee.engine.endings import Ending, winners_text
from referee.engine.game import (
    Decision,
    Game,
    GameConfig,
    GameInfo,
    OptionSpec,
    Rejection,
    Seat,
    SeatResult,
    Viewer,
    rank_by_score,
    union_members,
)

DECK = tuple(str(value) for value in range(1, 10))  # HC-1


# --- the wire vocabulary (a real game keeps it in model.py, named as in its proto) ------------


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card you hold (HC-2)."""

    card: int


Command = Play


@dataclass(frozen=True, slots=True)
class HandDealt:
    """``seat`` was dealt ``cards``; the others see ``count`` only (HC-1)."""

    seat: int
    count: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Played:
    """``seat`` played ``card`` (HC-2), face up."""

    seat: int
    card: int


Event = HandDealt | Played


@dataclass(frozen=True, slots=True)
class HighCardView:
    """What a viewer may know: its own hand, every hand's size, the cards played, the scores."""

    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    played: tuple[int, ...]
    scores: tuple[int, ...]


# --- the rules ----------------------------------------------------------------------------------


@dataclass(slots=True)
class HighCardState:
    config: GameConfig
    hands: list[list[int]] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    played: list[int] = field(default_factory=list)
    turn: int = 0


def _play(state: HighCardState, seat: Seat, command: Play) -> list[Event]:
    """HC-2: play one card you hold."""
    if command.card not in state.hands[seat]:
        raise Rejection("HC-2", f"you hold no {command.card}")
    return [Played(seat, command.card)]


class HighCard(Game[HighCardState, Command, Event]):
    info = GameInfo(
        type_id="high-card",
        name="High Card",
        min_players=2,  # HC-5
        max_players=4,
        players_rule="HC-5",
        max_events=1_000,  # a game takes at most 12 events
        options=(OptionSpec("cards", "2", "HC-1: cards dealt to each seat", minimum=1, maximum=2),),
        rules="high-card.md",
        summary="Play your cards; the highest sum wins.",
        score_meaning="the sum of the cards played, higher is better (HC-4)",
    )
    command_types = union_members(Command)
    event_types = union_members(Event)
    view_type = HighCardView

    def new_state(self, config: GameConfig) -> HighCardState:
        players = config.players
        return HighCardState(config, [[] for _ in range(players)], [0] * players)

    def start(self, state: HighCardState) -> list[Event]:
        deck = [int(card) for card in deck_for(state.config, 0, DECK)]  # HC-1
        size = int(state.config.options["cards"])
        return [
            HandDealt(seat, size, tuple(sorted(deck[seat * size : (seat + 1) * size])))
            for seat in range(state.config.players)
        ]

    def decisions(self, state: HighCardState) -> tuple[Decision, ...]:
        if self.results(state) is not None:
            return ()
        return (Decision(state.turn, "play", "HC-2"),)

    # Deciding: the engine checks who may act (``decisions``) and the command's shape; the
    # game declares its handlers by (phase, command type) and writes only them.
    def phase(self, state: HighCardState) -> str:
        return "play"  # one phase: a seat plays a card (HC-2)

    def end_rule(self, state: HighCardState) -> str:
        return "HC-3"  # "not now" after the end names the rule that ended the game

    handlers = {("play", Play): _play}

    def apply(self, state: HighCardState, event: Event) -> HighCardState:
        if isinstance(event, HandDealt):
            state.hands[event.seat] = list(event.cards)
        else:
            state.hands[event.seat].remove(event.card)
            state.scores[event.seat] += event.card  # HC-4
            state.played.append(event.card)
            state.turn = (event.seat + 1) % state.config.players
        return state

    def legal_commands(self, state: HighCardState, seat: Seat) -> list[Command]:
        if seat not in self.pending(state):
            return []
        return [Play(card) for card in sorted(set(state.hands[seat]))]

    def command_space(self, state: HighCardState, seat: Seat) -> list[Command]:
        return [Play(card) for card in range(0, 11)]

    def view(self, state: HighCardState, viewer: Viewer) -> HighCardView:
        hand = tuple(sorted(state.hands[viewer])) if viewer is not None else ()
        return HighCardView(
            hand=hand,
            hand_sizes=tuple(len(h) for h in state.hands),
            played=tuple(state.played),
            scores=tuple(state.scores),
        )

    def redact(self, event: Event, viewer: Viewer) -> Event:
        if isinstance(event, HandDealt) and event.seat != viewer:  # HC-1
            return HandDealt(event.seat, event.count, ())
        return event

    def results(self, state: HighCardState) -> tuple[SeatResult, ...] | None:
        # Before the deal the hands are empty too: over only once cards were played (HC-3).
        if not state.played or any(state.hands):
            return None
        return rank_by_score(state.scores, lower_wins=False)  # HC-3, HC-4

    def ending(self, state: HighCardState) -> Ending | None:
        """HC-3, in words from the public scores (every viewer sees them)."""
        results = self.results(state)
        if results is None:
            return None
        best = max(state.scores)
        ranks = [r.rank for r in results]
        return Ending("HC-3", f"{winners_text(ranks, 'wins', 'share the win')} with {best}")

    def hidden_variant(self, state: HighCardState, viewer: Viewer, salt: int) -> HighCardState:
        """Deal the cards ``viewer`` cannot see (other hands, the undealt deck) anew, or swap
        two of them (``hidden_permutation``; hands and the set-aside rest are unordered)."""
        other = self.copy_state(state)
        hidden = [seat for seat in range(state.config.players) if seat != viewer]
        known = set(state.played) | set(state.hands[viewer] if viewer is not None else ())
        pool = [card for card in range(1, 10) if card not in known]
        pool = hidden_permutation(pool, [None] * len(pool), salt)
        for seat in hidden:
            size = len(state.hands[seat])
            other.hands[seat], pool = sorted(pool[:size]), pool[size:]
        return other

    def copy_state(self, state: HighCardState) -> HighCardState:
        return replace(
            state,
            hands=[list(h) for h in state.hands],
            scores=list(state.scores),
            played=list(state.played),
        )


#: The rules, found by the registry (referee.engine.registry).
GAME = HighCard()
