"""Vampire Queen rules (``docs/rules/vampire-queen.md``); each rule id appears where enforced.

Hands are kept as counts by value (index 1-13 number cards, 14 queens) plus the Hunter holders,
so legal sets are enumerated from counts, never from combinations of card ids.

>>> from referee.engine import Table
>>> table = Table.create("vampire-queen", players=3, seed=b"x")
>>> view = table.view(table.pending()[0])
>>> len(view.game.hand) >= 13  # VQ-3: 13 cards, plus any Hunter
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import compress
from typing import Any

from referee.engine.chance import (
    check_fixed_deck,
    check_fixed_pick,
    deck_for,
    hidden_permutation,
    pick_for,
)
from referee.engine.game import (
    CardsTaken,
    ChanceStep,
    Decision,
    DeckOrder,
    Game,
    GameConfig,
    GameInfo,
    OptionSpec,
    Rejection,
    Seat,
    SeatResult,
    Viewer,
    rank_by_score,
    require_int_fields,
    union_members,
)
from referee.games.vampire_queen import labels
from referee.games.vampire_queen.model import (
    HUNTER_15,
    HUNTER_20,
    HUNTERS,
    QUEEN,
    CardPlayed,
    Command,
    Event,
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

#: VQ-1: the 108 cards that are shuffled and dealt (the Hunters never are), in deal notation.
DECK: tuple[str, ...] = tuple(str(v) for v in range(1, 14) for _ in range(8)) + ("Q",) * 4
_NOTATION = {str(v): v for v in range(1, 14)} | {"Q": QUEEN}


# Commands are immutable values, so the legal moves are built once per distinct situation
# (value, cards held, queens held, ...) and shared: a step allocates no command objects.
PASS = Pass()
_CARDS = {v: PlayCard(v) for v in range(1, QUEEN + 1)}
_HUNTER_LEADS = {h: LeadHunter(h) for h in HUNTERS}


@cache
def _leads(value: int, have: int, queens: int) -> tuple[PlaySet, ...]:
    """VQ-8: every set a leader can make of ``value`` holding ``have`` of it and ``queens``
    queens: 1..have cards of the value plus 0..queens queens."""
    return tuple(PlaySet(value, k + q, q) for k in range(1, have + 1) for q in range(queens + 1))


@cache
def _queen_sets(queens: int) -> tuple[PlaySet, ...]:
    """VQ-9: queens alone are a set worth 14, of 1..queens cards."""
    return tuple(PlaySet(QUEEN, q, q) for q in range(1, queens + 1))


@cache
def _follows(value: int, have: int, queens: int, count: int) -> tuple[PlaySet, ...]:
    """VQ-7/VQ-8: the sets of exactly ``count`` cards of ``value`` (at least one real card,
    queens filling the rest) from ``have`` of it and ``queens`` queens."""
    return tuple(
        PlaySet(value, count, q) for q in range(max(0, count - have), min(queens, count - 1) + 1)
    )


# Events and trick plays are immutable values as well: the few distinct ones are built once.
_set_played = cache(SetPlayed)
_passed = cache(Passed)
_card_played = cache(CardPlayed)
_trick_play = cache(TrickPlay)
_VALUES = range(1, 15)  # the values a hand counts (hands[seat][v])
# A redacted hand is one value for every viewer it is hidden from: the server encodes it once.
_hand_hidden = cache(HandDealt)


@cache
def _decision(seat: int, kind: TrickKind) -> Decision:
    """VQ-6/VQ-7/VQ-12: what the seat on turn decides in a trick of this kind."""
    if kind is TrickKind.UNSPECIFIED:
        return Decision(seat, "lead", "VQ-6")
    if kind is TrickKind.NORMAL:
        return Decision(seat, "follow", "VQ-7")
    return Decision(seat, "answer_hunter", "VQ-12")


def hand_size_for(players: int) -> int:
    """VQ-3: cards dealt to each player.

    >>> [hand_size_for(n) for n in (3, 8, 9, 10, 11, 12)]
    [13, 13, 12, 10, 9, 9]
    """
    return min(13, 108 // players)


def penalty(value: int) -> int:
    """VQ-18: number cards at face value, queen 14, Hunters 15 and 20 (= the value itself)."""
    return value


@dataclass(slots=True)
class VampireQueenState:
    """The whole table, hidden parts included. Only ``apply`` changes it."""

    config: GameConfig
    players: int
    rounds: int
    hunter_tie_last: bool
    hunter_queen: int
    hand_size: int
    round: int = 0
    #: hands[seat][v] = how many cards of value v (1-13; 14 = queens) the seat holds.
    hands: list[list[int]] = field(default_factory=list)
    hunter_holder: dict[int, int] = field(default_factory=dict)
    hunter_on_table: int = 0
    leader: int = 0
    turn: int = -1
    trick_kind: TrickKind = TrickKind.UNSPECIFIED
    trick: list[TrickPlay] = field(default_factory=list)
    lead_count: int = 0
    best_value: int = 0
    best_seat: int = -1
    pile: list[int] = field(default_factory=list)
    #: VQ-15: barred[seat] = the Hunter that seat may not lead in its next lead (0 = none).
    barred: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    last_penalties: list[int] = field(default_factory=list)
    shuffles: int = 0
    picks: int = 0
    over: bool = False
    #: The view's fields every viewer shares, built by the first view of this state and
    #: dropped by ``apply``; a copy (``copy_state``, ``replace``) starts without.
    public: tuple[Any, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def cards_in_hand(self, seat: int) -> int:
        """Cards ``seat`` holds, Hunters included (VQ-20: public)."""
        count = sum(self.hands[seat])
        for hunter in HUNTERS:
            if self.hunter_holder.get(hunter) == seat and self.hunter_on_table != hunter:
                count += 1
        return count

    def hand_sizes(self) -> tuple[int, ...]:
        """``cards_in_hand`` of every seat."""
        sizes = [sum(hand) for hand in self.hands]
        for hunter, holder in self.hunter_holder.items():
            if self.hunter_on_table != hunter:
                sizes[holder] += 1
        return tuple(sizes)

    def hunters_in_hand(self, seat: int) -> list[int]:
        return [
            h for h in HUNTERS if self.hunter_holder.get(h) == seat and self.hunter_on_table != h
        ]

    def hand_penalty(self, seat: int) -> int:
        hand = self.hands[seat]
        return sum(v * hand[v] for v in range(1, 15)) + sum(self.hunters_in_hand(seat))

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.players


class VampireQueen(Game[VampireQueenState]):
    info = GameInfo(
        type_id="vampire-queen",
        name="Vampire Queen",
        min_players=3,  # VQ-2
        players_rule="VQ-2",
        max_events=50_000,  # 5 rounds take a few hundred events, 50 rounds of 12 about 15,000
        max_players=12,
        options=(
            OptionSpec(
                "hunter_tie",
                "first",
                "VQ-14: who takes a Hunter trick when several tie for the highest card",
                allowed=("first", "last"),
            ),
            OptionSpec(
                "hunter_queen",
                "1",
                "VQ-12: what a queen counts in a Hunter trick",
                allowed=("1", "14"),
            ),
            OptionSpec("rounds", "5", "VQ-19: rounds in the game", minimum=1, maximum=50),
        ),
        rules="vampire-queen.md",
        summary="Climbing and shedding: beat the set led or pass; never get stuck with a Hunter.",
    )
    command_types = union_members(Command)
    event_types = union_members(Event)
    view_type = VampireQueenView

    # Display text for people, never for parsing (labels.py, View/Event in the protos).
    def command_label(self, command: Any, view: Any) -> str:
        return labels.command_label(command, view)

    def event_text(self, event: Any) -> str:
        return labels.event_text(event)

    # --- setup -------------------------------------------------------------------------------

    def new_state(self, config: GameConfig) -> VampireQueenState:
        if config.deal is not None:
            # Every part of a fixed deal is checked here, so no shuffle can fail mid-game:
            # deck k deals round k + 1 (the 108 cards of VQ-1), pick 0 the 15 Hunter (VQ-4).
            for index in range(len(config.deal.decks)):
                check_fixed_deck(config, index, DECK, note=f"round {index + 1}, VQ-1")
            check_fixed_pick(config, 0, config.players, "the seat of the 15 Hunter, VQ-4")
        n = config.players
        return VampireQueenState(
            config=config,
            players=n,
            rounds=int(config.options["rounds"]),
            hunter_tie_last=config.options["hunter_tie"] == "last",
            hunter_queen=int(config.options["hunter_queen"]),
            hand_size=hand_size_for(n),
            hands=[[0] * 15 for _ in range(n)],
            barred=[0] * n,
            totals=[0] * n,
        )

    def start(self, state: VampireQueenState) -> list[Any]:
        # VQ-4: a random seat receives the 15 Hunter; its left neighbour the 20 and leads.
        first = pick_for(state.config, state.picks, state.players)
        return self._deal(state, 1, first, state.next_seat(first), hunter_pick=True)

    def _deal(
        self, state: VampireQueenState, round_no: int, h15: int, h20: int, *, hunter_pick: bool
    ) -> list[Any]:
        """VQ-4/VQ-5: shuffle the 108 cards, deal the hand size to each seat; undealt cards
        are set aside unseen (they appear in no event, VQ-21)."""
        deck = deck_for(state.config, state.shuffles, DECK)
        size = state.hand_size
        hands = [
            tuple(sorted(_NOTATION[c] for c in deck[s * size : (s + 1) * size]))
            for s in range(state.players)
        ]
        sizes = tuple(
            size + (1 if h15 == s else 0) + (1 if h20 == s else 0) for s in range(state.players)
        )
        events: list[Any] = [
            RoundStarted(
                round=round_no,
                leader=h20,
                hunter_15_holder=h15,
                hunter_20_holder=h20,
                hand_sizes=sizes,
                shuffle=state.shuffles,
                hunter_pick=hunter_pick,
            )
        ]
        events.extend(HandDealt(seat=s, count=size, cards=hands[s]) for s in range(state.players))
        return events

    # --- deciding ----------------------------------------------------------------------------

    def decisions(self, state: VampireQueenState) -> tuple[Decision, ...]:
        if state.over:
            return ()
        return (_decision(state.turn, state.trick_kind),)

    def pending(self, state: VampireQueenState) -> tuple[Seat, ...]:
        return () if state.over else (state.turn,)  # one seat decides at a time

    def decide(self, state: VampireQueenState, seat: Seat, command: Any) -> list[Any]:
        if state.over or seat != state.turn:
            self.check_pending(state, seat, end_rule="VQ-19")  # raises the standard rejection
        require_int_fields(command, "VQ-8")
        kind = state.trick_kind
        if kind is TrickKind.UNSPECIFIED:
            first = self._decide_lead(state, seat, command)
        elif kind is TrickKind.NORMAL:
            first = self._decide_follow(state, seat, command)
        else:
            first = self._decide_hunter_answer(state, seat, command)
        return self._continue(state, seat, first)

    def _decide_lead(self, state: VampireQueenState, seat: Seat, command: Any) -> Any:
        if isinstance(command, PlaySet):
            self._check_set(state, seat, command)
            return _set_played(seat, command.value, command.count, command.queens)
        if isinstance(command, LeadHunter):
            hunter = command.hunter
            if hunter not in HUNTERS:
                raise Rejection("VQ-1", f"there is no {hunter} Hunter; Hunters are 15 and 20")
            if hunter not in state.hunters_in_hand(seat):
                raise Rejection("VQ-11", f"you do not hold the {hunter} Hunter")
            if state.barred[seat] == hunter:
                raise Rejection(
                    "VQ-15", f"you took the {hunter} Hunter and may not lead it in this trick"
                )
            return HunterLed(seat, hunter)
        if isinstance(command, Pass | PlayCard):
            raise Rejection("VQ-6", "the leader must lead a set or a Hunter")
        raise _unknown(command)

    def _decide_follow(self, state: VampireQueenState, seat: Seat, command: Any) -> Any:
        if isinstance(command, Pass):
            return _passed(seat)  # VQ-7: passing is always allowed
        if isinstance(command, PlaySet):
            if command.count != state.lead_count:
                raise Rejection(
                    "VQ-7", f"play exactly {state.lead_count} card(s), as many as were led"
                )
            if command.value <= state.best_value:
                raise Rejection(
                    "VQ-7", f"a set must be strictly higher than {state.best_value} to beat it"
                )
            self._check_set(state, seat, command)
            return _set_played(seat, command.value, command.count, command.queens)
        if isinstance(command, LeadHunter):
            raise Rejection("VQ-11", "only the leader can play a Hunter, as the lead")
        if isinstance(command, PlayCard):
            raise Rejection("VQ-7", "a set was led: pass or play a set of the same size")
        raise _unknown(command)

    def _decide_hunter_answer(self, state: VampireQueenState, seat: Seat, command: Any) -> Any:
        if isinstance(command, PlayCard):
            value = command.value
            if not 1 <= value <= QUEEN:
                raise Rejection(
                    "VQ-12", "answer a Hunter with a number card (1-13) or a queen (14)"
                )
            if state.hands[seat][value] == 0:
                raise Rejection("VQ-12", f"you hold no {_card_name(value)}")
            return _card_played(seat, value)
        if isinstance(command, Pass):
            raise Rejection("VQ-12", "no one may pass in a Hunter trick: play one card")
        if isinstance(command, LeadHunter):
            raise Rejection("VQ-12", "a Hunter is never played to answer a Hunter")
        if isinstance(command, PlaySet):
            raise Rejection("VQ-12", "in a Hunter trick play exactly one card (PlayCard)")
        raise _unknown(command)

    @staticmethod
    def _check_set(state: VampireQueenState, seat: Seat, command: PlaySet) -> None:
        """VQ-8/VQ-9: a set is one value plus queens, or queens alone (value 14)."""
        value, count, queens = command.value, command.count, command.queens
        if count < 1 or not 0 <= queens <= count:
            raise Rejection("VQ-8", "a set has at least one card and 0..count queens")
        if value == QUEEN:
            if queens != count:
                raise Rejection("VQ-9", "a set of value 14 is made of queens only")
        elif 1 <= value <= 13:
            if queens == count:
                raise Rejection(
                    "VQ-9", "a set of queens only is worth 14 and may not be declared lower"
                )
        else:
            raise Rejection("VQ-8", f"a set's value is 1-13, or 14 for queens only; got {value}")
        hand = state.hands[seat]
        numbers = count - queens
        if (value != QUEEN and hand[value] < numbers) or hand[QUEEN] < queens:
            raise Rejection(
                "VQ-8",
                f"you do not hold {numbers} x {_card_name(value)} and {queens} queen(s)",
            )

    def _continue(self, state: VampireQueenState, seat: Seat, first: Any) -> list[Any]:
        """The events that follow ``first`` without anyone deciding: skips, trick end, scoring,
        the next deal. Computed from ``state`` (before ``first``) without mutating it."""
        events = [first]
        n = state.players
        leader = state.leader
        hunter_trick = isinstance(first, HunterLed) or state.trick_kind is TrickKind.HUNTER
        nxt = (seat + 1) % n
        if hunter_trick:
            # VQ-13: seats holding only Hunters are skipped.
            while nxt != leader and sum(state.hands[nxt]) == 0:
                events.append(Skipped(nxt))
                nxt = (nxt + 1) % n
        if nxt != leader:
            return events  # VQ-7/VQ-12: the next seat decides
        # The trick is over (everyone had a turn).
        if hunter_trick:
            winner, taken = self._hunter_winner(state, first)
            events.append(TrickWon(winner, True, taken))
        else:
            winner = seat if isinstance(first, SetPlayed) else state.best_seat
            events.append(TrickWon(winner, False, ()))
            taken = ()
        # VQ-17: after the trick is resolved, does anyone have no cards? (The card(s) just
        # played count as gone already.)
        sizes = [state.cards_in_hand(s) for s in range(n)]
        sizes[seat] -= _cards_removed(first)
        sizes[winner] += len(taken)
        if min(sizes) > 0:
            return events
        penalties = [state.hand_penalty(s) for s in range(n)]
        penalties[seat] -= _penalty_removed(first)
        penalties[winner] += sum(penalty(v) for v in taken)
        totals = tuple(t + p for t, p in zip(state.totals, penalties, strict=True))
        events.append(RoundScored(state.round, tuple(penalties), totals))
        if state.round >= state.rounds:  # VQ-19
            ranks = tuple(r.rank for r in rank_by_score(totals, lower_wins=True))
            events.append(GameEnded(totals, ranks))
            return events
        # VQ-5: Hunters stay with their holders (the winner took any Hunter on the table).
        holders = dict(state.hunter_holder)
        for hunter in taken:
            if hunter in HUNTERS:
                holders[hunter] = winner
        events.extend(
            self._deal(
                state, state.round + 1, holders[HUNTER_15], holders[HUNTER_20], hunter_pick=False
            )
        )
        return events

    def _hunter_winner(self, state: VampireQueenState, last: Any) -> tuple[int, tuple[int, ...]]:
        """VQ-14/VQ-16: the highest answer takes the Hunter and every played card."""
        plays = [(p.seat, p.value) for p in state.trick if p.kind is PlayKind.CARD]
        pile = list(state.pile)
        if isinstance(last, CardPlayed):
            plays.append((last.seat, last.value))
            pile.append(last.value)
        elif isinstance(last, HunterLed):
            pile.append(last.hunter)
        if not plays:  # nobody could answer: the leader keeps the Hunter
            return state.leader, tuple(pile)
        best_seat, best = -1, -1
        for seat, value in plays:
            rank = state.hunter_queen if value == QUEEN else value
            if rank > best or (rank == best and state.hunter_tie_last):
                best_seat, best = seat, rank
        return best_seat, tuple(sorted(pile))

    # --- applying ----------------------------------------------------------------------------

    def apply(self, state: VampireQueenState, event: Any) -> VampireQueenState:
        state.public = None
        handler = _APPLY[type(event)]
        handler(state, event)
        return state

    # --- what a seat may see and do ----------------------------------------------------------

    def legal_commands(self, state: VampireQueenState, seat: Seat) -> list[Any]:
        if state.over or seat != state.turn:
            return []
        hand = state.hands[seat]
        queens = hand[QUEEN]
        kind = state.trick_kind
        if kind is TrickKind.HUNTER:  # VQ-12
            return [_CARDS[v] for v in range(1, 15) if hand[v]]
        if kind is TrickKind.NORMAL:  # VQ-7: pass, or the same count strictly higher
            count = state.lead_count
            moves: list[Any] = [PASS]
            for value in range(state.best_value + 1, 14):
                have = hand[value]
                if have:
                    moves += _follows(value, have, queens, count)
            if queens >= count and state.best_value < QUEEN:  # VQ-9: 14 cannot be beaten
                moves.append(_queen_sets(count)[-1])
            return moves
        # Leading (VQ-6, VQ-8, VQ-9, VQ-11, VQ-15)
        moves = []
        for value in range(1, 14):
            have = hand[value]
            if have:
                moves += _leads(value, have, queens)
        moves += _queen_sets(queens)
        hunters = state.hunters_in_hand(seat)
        # VQ-15: never the Hunter just taken. (The taker always holds the card it answered
        # with, so it always has another lead.)
        moves.extend(_HUNTER_LEADS[h] for h in hunters if state.barred[seat] != h)
        return moves

    def command_space(self, state: VampireQueenState, seat: Seat) -> list[Any]:
        space: list[Any] = [Pass(), LeadHunter(HUNTER_15), LeadHunter(HUNTER_20), LeadHunter(7)]
        space += [PlayCard(v) for v in range(0, 16)]
        space += [PlaySet(v, c, q) for v in range(0, 16) for c in range(0, 13) for q in range(0, 5)]
        return space

    def view(self, state: VampireQueenState, viewer: Viewer) -> VampireQueenView:
        public = state.public
        if public is None:
            public = state.public = _public(state)
        if viewer is None:
            hand: tuple[int, ...] = ()
        else:
            counts = state.hands[viewer]
            cards: list[int] = []
            for value in compress(_VALUES, counts[1:]):  # only the values held
                cards += [value] * counts[value]
            hunters = state.hunters_in_hand(viewer)
            hand = (*cards, *hunters) if hunters else tuple(cards)
        return VampireQueenView(state.round, state.rounds, hand, *public)

    def chance_steps(self, config: GameConfig, event: Any) -> Sequence[ChanceStep]:
        """VQ-4: each round's shuffle deals ``hand_size`` cards to each seat in seat order
        (positions ``s*size ..``); the rest stay set aside, opened to no one (VQ-21)."""
        kind = type(event)
        if kind is RoundStarted:
            return (DeckOrder(event.shuffle, tuple(deck_for(config, event.shuffle, DECK))),)
        if kind is HandDealt:
            return (CardsTaken(event.count, (event.seat,)),)
        return ()

    def redact(self, event: Any, viewer: Viewer) -> Any:
        # VQ-20/VQ-21: a dealt hand is seen by its owner only; everything else is public.
        if type(event) is HandDealt and event.seat != viewer:
            return _hand_hidden(event.seat, event.count, ())
        return event

    def results(self, state: VampireQueenState) -> tuple[SeatResult, ...] | None:
        if not state.over:
            return None
        return rank_by_score(state.totals, lower_wins=True)  # VQ-19

    def limit_results(self, state: VampireQueenState, players: int) -> tuple[SeatResult, ...]:
        """At the event limit: the totals of the rounds played, lowest first (VQ-19)."""
        return rank_by_score(state.totals, lower_wins=True)

    def hidden_variant(
        self, state: VampireQueenState, viewer: Viewer, salt: int
    ) -> VampireQueenState:
        """Deal the cards of every hand ``viewer`` cannot see anew among those hands, or swap
        two of them (:func:`~referee.engine.chance.hidden_permutation`)."""
        other = self.copy_state(state)
        hidden = [s for s in range(state.players) if s != viewer]
        pool = [v for s in hidden for v in range(1, 15) for _ in range(state.hands[s][v])]
        pool = hidden_permutation(pool, [None] * len(pool), salt)  # hands are unordered
        for s in hidden:
            size = sum(state.hands[s])
            counts = [0] * 15
            for v in pool[:size]:
                counts[v] += 1
            pool = pool[size:]
            other.hands[s] = counts
        return other

    def copy_state(self, state: VampireQueenState) -> VampireQueenState:
        from dataclasses import replace

        return replace(
            state,
            hands=[list(h) for h in state.hands],
            hunter_holder=dict(state.hunter_holder),
            trick=list(state.trick),
            pile=list(state.pile),
            barred=list(state.barred),
            totals=list(state.totals),
            last_penalties=list(state.last_penalties),
        )


def _public(state: VampireQueenState) -> tuple[Any, ...]:
    """The fields of the view after ``hand``, in field order (VQ-20, VQ-21: all public), the
    same objects for every viewer of this state."""
    return (
        state.hand_sizes(),
        state.hunter_holder.get(HUNTER_15, 0),
        state.hunter_holder.get(HUNTER_20, 0),
        state.leader,
        None if state.over else state.turn,
        state.trick_kind,
        tuple(state.trick),
        state.lead_count,
        state.best_value,
        None if state.best_seat < 0 else state.best_seat,
        tuple(state.barred),
        tuple(state.last_penalties),
        tuple(state.totals),
        "last" if state.hunter_tie_last else "first",
        state.hunter_queen,
    )


# --- event handlers (the only code that changes a state) ------------------------------------


def _apply_round_started(state: VampireQueenState, e: RoundStarted) -> None:
    state.round = e.round
    state.hunter_holder = {HUNTER_15: e.hunter_15_holder, HUNTER_20: e.hunter_20_holder}
    state.hunter_on_table = 0
    state.leader = state.turn = e.leader
    state.hands = [[0] * 15 for _ in range(state.players)]
    state.barred = [0] * state.players  # VQ-15 ruling: no carry-over into a new round
    _clear_trick(state)
    state.shuffles += 1
    if e.hunter_pick:
        state.picks += 1


def _apply_hand_dealt(state: VampireQueenState, e: HandDealt) -> None:
    counts = [0] * 15
    for value in e.cards:
        counts[value] += 1
    state.hands[e.seat] = counts


def _start_play(state: VampireQueenState, seat: int) -> None:
    if seat == state.leader:
        state.barred[seat] = 0  # VQ-15: the restriction covers one lead only


def _apply_set_played(state: VampireQueenState, e: SetPlayed) -> None:
    _start_play(state, e.seat)
    hand = state.hands[e.seat]
    hand[QUEEN] -= e.queens
    if e.value != QUEEN:
        hand[e.value] -= e.count - e.queens
    if state.trick_kind is TrickKind.UNSPECIFIED:
        state.trick_kind = TrickKind.NORMAL
        state.lead_count = e.count
    state.trick.append(_trick_play(e.seat, PlayKind.SET, e.value, e.count, e.queens))
    state.best_value, state.best_seat = e.value, e.seat
    state.turn = state.next_seat(e.seat)


def _apply_passed(state: VampireQueenState, e: Passed) -> None:
    state.trick.append(_trick_play(e.seat, PlayKind.PASS, 0, 0, 0))
    state.turn = state.next_seat(e.seat)


def _apply_hunter_led(state: VampireQueenState, e: HunterLed) -> None:
    _start_play(state, e.seat)
    state.trick_kind = TrickKind.HUNTER
    state.hunter_on_table = e.hunter
    state.pile = [e.hunter]
    state.best_value, state.best_seat = 0, -1  # VQ-11: the Hunter counts 0
    state.trick.append(_trick_play(e.seat, PlayKind.HUNTER, e.hunter, 1, 0))
    state.turn = state.next_seat(e.seat)


def _apply_card_played(state: VampireQueenState, e: CardPlayed) -> None:
    state.hands[e.seat][e.value] -= 1
    state.pile.append(e.value)
    rank = state.hunter_queen if e.value == QUEEN else e.value  # VQ-12 ruling
    if rank > state.best_value or (rank == state.best_value and state.hunter_tie_last):
        state.best_value, state.best_seat = rank, e.seat  # VQ-14 tie ruling
    state.trick.append(_trick_play(e.seat, PlayKind.CARD, e.value, 1, 1 if e.value == QUEEN else 0))
    state.turn = state.next_seat(e.seat)


def _apply_skipped(state: VampireQueenState, e: Skipped) -> None:
    state.trick.append(_trick_play(e.seat, PlayKind.SKIP, 0, 0, 0))
    state.turn = state.next_seat(e.seat)


def _apply_trick_won(state: VampireQueenState, e: TrickWon) -> None:
    if e.hunter_trick:
        hand = state.hands[e.winner]
        for value in e.taken:
            if value in HUNTERS:
                state.hunter_holder[value] = e.winner
            else:
                hand[value] += 1
        if e.winner != state.leader:
            state.barred[e.winner] = state.hunter_on_table  # VQ-15
        state.hunter_on_table = 0
    state.leader = state.turn = e.winner  # VQ-10/VQ-14: the winner leads next
    _clear_trick(state)


def _apply_round_scored(state: VampireQueenState, e: RoundScored) -> None:
    state.totals = list(e.totals)
    state.last_penalties = list(e.penalties)


def _apply_game_ended(state: VampireQueenState, e: GameEnded) -> None:
    state.over = True
    state.turn = -1


def _clear_trick(state: VampireQueenState) -> None:
    state.trick_kind = TrickKind.UNSPECIFIED
    state.trick = []
    state.lead_count = 0
    state.best_value = 0
    state.best_seat = -1
    state.pile = []


_APPLY: dict[type, Any] = {
    RoundStarted: _apply_round_started,
    HandDealt: _apply_hand_dealt,
    SetPlayed: _apply_set_played,
    Passed: _apply_passed,
    HunterLed: _apply_hunter_led,
    CardPlayed: _apply_card_played,
    Skipped: _apply_skipped,
    TrickWon: _apply_trick_won,
    RoundScored: _apply_round_scored,
    GameEnded: _apply_game_ended,
}


def _cards_removed(event: Any) -> int:
    if isinstance(event, SetPlayed):
        return event.count
    if isinstance(event, HunterLed | CardPlayed):
        return 1
    return 0


def _penalty_removed(event: Any) -> int:
    if isinstance(event, SetPlayed):
        return (
            event.count * event.value
            if event.value == QUEEN
            else ((event.count - event.queens) * event.value + event.queens * QUEEN)
        )
    if isinstance(event, HunterLed):
        return event.hunter
    if isinstance(event, CardPlayed):
        return event.value
    return 0


def _card_name(value: int) -> str:
    return "queen" if value == QUEEN else str(value)


def _unknown(command: Any) -> Rejection:
    return Rejection("VQ-6", f"not a Vampire Queen command: {type(command).__name__}")
