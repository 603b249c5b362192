"""Vampire Queen: what a seat may do and what it causes (VQ-4 ... VQ-19).

The engine (``Game.decide``) checks who may act and each command's shape; this module holds
the handlers, one per (phase, command type) in :data:`HANDLERS`, where the phase is the kind
of the current trick: nothing led yet (the lead, VQ-6), a normal trick (follow, VQ-7) or a
Hunter trick (answer, VQ-12). A handler computes the first event and :func:`_continue` what
follows without anyone deciding (skips, the end of the trick, scoring, the next deal), from
the state before the first event and without changing it.
"""

from __future__ import annotations

from functools import cache

from referee.engine.chance import deck_for
from referee.engine.game import Decision, Handler, Rejection, Seat, rank_by_score, refuse
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
    TrickWon,
)
from referee.games.vampire_queen.state import (
    DECK,
    NOTATION,
    VampireQueenState,
    card_name,
    penalty,
)

LEAD, FOLLOW, ANSWER = TrickKind.UNSPECIFIED, TrickKind.NORMAL, TrickKind.HUNTER


@cache
def decision(seat: int, kind: TrickKind) -> Decision:
    """VQ-6/VQ-7/VQ-12: what the seat on turn decides in a trick of this kind."""
    if kind is LEAD:
        return Decision(seat, "lead", "VQ-6")
    if kind is FOLLOW:
        return Decision(seat, "follow", "VQ-7")
    return Decision(seat, "answer_hunter", "VQ-12")


def deal(
    state: VampireQueenState, round_no: int, h15: int, h20: int, *, hunter_pick: bool
) -> list[Event]:
    """VQ-4/VQ-5: shuffle the 108 cards, deal the hand size to each seat; undealt cards
    are set aside unseen (they appear in no event, VQ-21)."""
    deck = deck_for(state.config, state.shuffles, DECK)
    size = state.hand_size
    hands = [
        tuple(sorted(NOTATION[c] for c in deck[s * size : (s + 1) * size]))
        for s in range(state.players)
    ]
    sizes = tuple(
        size + (1 if h15 == s else 0) + (1 if h20 == s else 0) for s in range(state.players)
    )
    events: list[Event] = [
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


# --- the handlers ---------------------------------------------------------------------------

# Events are immutable values with few distinct ones: the frequent ones are built once.
_set_played = cache(SetPlayed)
_passed = cache(Passed)
_card_played = cache(CardPlayed)


def _lead_set(state: VampireQueenState, seat: Seat, command: PlaySet) -> list[Event]:
    """VQ-6/VQ-8/VQ-9: the leader leads any set it holds."""
    _check_set(state, seat, command)
    first = _set_played(seat, command.value, command.count, command.queens)
    return _continue(state, seat, first)


def _lead_hunter(state: VampireQueenState, seat: Seat, command: LeadHunter) -> list[Event]:
    """VQ-11/VQ-15: the leader leads a Hunter it holds, never the one it just took."""
    hunter = command.hunter
    if hunter not in HUNTERS:
        raise Rejection("VQ-1", f"there is no {hunter} Hunter; Hunters are 15 and 20")
    if hunter not in state.hunters_in_hand(seat):
        raise Rejection("VQ-11", f"you do not hold the {hunter} Hunter")
    if state.barred[seat] == hunter:
        raise Rejection("VQ-15", f"you took the {hunter} Hunter and may not lead it in this trick")
    return _continue(state, seat, HunterLed(seat, hunter))


def _follow_pass(state: VampireQueenState, seat: Seat, command: Pass) -> list[Event]:
    return _continue(state, seat, _passed(seat))  # VQ-7: passing is always allowed


def _follow_set(state: VampireQueenState, seat: Seat, command: PlaySet) -> list[Event]:
    """VQ-7: as many cards as were led, strictly higher than the best so far."""
    if command.count != state.lead_count:
        raise Rejection("VQ-7", f"play exactly {state.lead_count} card(s), as many as were led")
    if command.value <= state.best_value:
        raise Rejection("VQ-7", f"a set must be strictly higher than {state.best_value} to beat it")
    _check_set(state, seat, command)
    first = _set_played(seat, command.value, command.count, command.queens)
    return _continue(state, seat, first)


def _answer_card(state: VampireQueenState, seat: Seat, command: PlayCard) -> list[Event]:
    """VQ-12: a Hunter lead is answered with one number card or a queen."""
    value = command.value
    if not 1 <= value <= QUEEN:
        raise Rejection("VQ-12", "answer a Hunter with a number card (1-13) or a queen (14)")
    if state.hands[seat][value] == 0:
        raise Rejection("VQ-12", f"you hold no {card_name(value)}")
    return _continue(state, seat, _card_played(seat, value))


_MUST_LEAD = "the leader must lead a set or a Hunter"

#: The handler of each (phase, command): every pair of Vampire Queen is here, the refusals
#: with the rule that forbids the command in that phase.
HANDLERS: dict[tuple[TrickKind, type], Handler[VampireQueenState, Event]] = {
    (LEAD, PlaySet): _lead_set,
    (LEAD, LeadHunter): _lead_hunter,
    (LEAD, Pass): refuse("VQ-6", _MUST_LEAD),
    (LEAD, PlayCard): refuse("VQ-6", _MUST_LEAD),
    (FOLLOW, Pass): _follow_pass,
    (FOLLOW, PlaySet): _follow_set,
    (FOLLOW, LeadHunter): refuse("VQ-11", "only the leader can play a Hunter, as the lead"),
    (FOLLOW, PlayCard): refuse("VQ-7", "a set was led: pass or play a set of the same size"),
    (ANSWER, PlayCard): _answer_card,
    (ANSWER, Pass): refuse("VQ-12", "no one may pass in a Hunter trick: play one card"),
    (ANSWER, LeadHunter): refuse("VQ-12", "a Hunter is never played to answer a Hunter"),
    (ANSWER, PlaySet): refuse("VQ-12", "in a Hunter trick play exactly one card (PlayCard)"),
}


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
            "VQ-8", f"you do not hold {numbers} x {card_name(value)} and {queens} queen(s)"
        )


# --- what follows without a decision ----------------------------------------------------------


def _continue(state: VampireQueenState, seat: Seat, first: Event) -> list[Event]:
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
        winner, taken = _hunter_winner(state, first)
        events.append(TrickWon(winner, True, taken))
    else:
        winner = seat if isinstance(first, SetPlayed) else state.best_seat
        events.append(TrickWon(winner, False, ()))
        taken = ()
    # VQ-17: after the trick is resolved, does anyone have no cards? (The card(s) just
    # played count as gone already.)
    sizes = list(state.hand_sizes())  # every seat's cards_in_hand, in one pass
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
        deal(state, state.round + 1, holders[HUNTER_15], holders[HUNTER_20], hunter_pick=False)
    )
    return events


def _hunter_winner(state: VampireQueenState, last: Event) -> tuple[int, tuple[int, ...]]:
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


def _cards_removed(event: Event) -> int:
    if isinstance(event, SetPlayed):
        return event.count
    if isinstance(event, HunterLed | CardPlayed):
        return 1
    return 0


def _penalty_removed(event: Event) -> int:
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


# --- what a seat may send -------------------------------------------------------------------

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


def legal_commands(state: VampireQueenState, seat: Seat) -> list[Command]:
    """Every command ``seat`` may send now, passing first (the gentlest)."""
    if state.over or seat != state.turn:
        return []
    hand = state.hands[seat]
    queens = hand[QUEEN]
    kind = state.trick_kind
    if kind is ANSWER:  # VQ-12
        return [_CARDS[v] for v in range(1, 15) if hand[v]]
    if kind is FOLLOW:  # VQ-7: pass, or the same count strictly higher
        count = state.lead_count
        moves: list[Command] = [PASS]
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


def command_space(state: VampireQueenState, seat: Seat) -> list[Command]:
    """A finite superset of the legal commands, with near misses (the conformance suite)."""
    space: list[Command] = [Pass(), LeadHunter(HUNTER_15), LeadHunter(HUNTER_20), LeadHunter(7)]
    space += [PlayCard(v) for v in range(0, 16)]
    space += [PlaySet(v, c, q) for v in range(0, 16) for c in range(0, 13) for q in range(0, 5)]
    return space
