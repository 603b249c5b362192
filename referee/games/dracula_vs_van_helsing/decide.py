"""Dracula vs Van Helsing: what a command causes (reads the state, never changes it).

A turn is a chain of decisions of the active seat, each its own :class:`Step` with its own
commands: ``TURN`` (draw, or call the end) -> ``PLACE`` (discard the drawn card or put it into a
slot) -> the discarded card's own choice (``REVEAL_OWN`` 1, ``REVEAL_OPPONENT`` 3,
``SWAP_SLOTS`` 4, ``EXCHANGE_DISTRICT`` 6, ``CHOOSE_TRUMP`` 7). :data:`HANDLERS` declares the
handler of each (step, command type); the engine calls it for the active seat and a well-formed
command, and refuses any other command under the rule of the step's decision.
Effects without a choice (2, 5, 8) and effects that cannot resolve (DV-9) follow in the same
batch of events, and so do the end of the turn, the end of the round, the district-by-district
resolution and the next deal.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.engine import game
from referee.engine.chance import deck_for
from referee.engine.game import GameConfig, Rejection
from referee.games.dracula_vs_van_helsing.model import (
    CARDS,
    COLOURS,
    DECK,
    DISCARDS_TO_CALL,
    DISTRICTS,
    HUMANS,
    ROUNDS,
    CallEnd,
    CardDrawn,
    CardRevealed,
    ChooseTrump,
    Colour,
    Comparison,
    DeckTopRevealed,
    DiscardDrawn,
    DistrictExchanged,
    DistrictResolved,
    Draw,
    DrawnCardDiscarded,
    DrawnCardPlaced,
    EffectSkipped,
    EndCalled,
    Event,
    ExchangeDistrict,
    GameEnd,
    GameEnded,
    PlaceDrawn,
    RevealOpponent,
    RevealOwn,
    Role,
    RoundEnd,
    RoundEnded,
    RoundStarted,
    SlotsDealt,
    SlotsSwapped,
    Step,
    SwapSlots,
    TrumpChanged,
    TurnKind,
    TurnStarted,
    notation_codes,
)
from referee.games.dracula_vs_van_helsing.state import (
    DECK_SIZE,
    EFFECT_STEP,
    SLOTS,
    DraculaVsVanHelsingState,
)

#: A handler: the events of ``command`` by ``seat``, the seat whose decision it is.
Handler = game.Handler[DraculaVsVanHelsingState, Event]


def beats(dracula: int, van_helsing: int, track: Sequence[int]) -> tuple[bool, Comparison]:
    """DV-20: whether Dracula's card beats Van Helsing's, and what decided it.

    ``track`` is the colour order, trump first. Trump beats any other colour; otherwise the
    higher value wins; equal values go to the colour higher on the ladder.

    >>> track = [Colour.RED, Colour.YELLOW, Colour.BLUE, Colour.PURPLE]  # red is trump
    >>> beats(31, 18, track)  # red 1 (trump) against yellow 8
    (True, <Comparison.TRUMP: 1>)
    >>> beats(25, 17, track)  # blue 5 against yellow 7: the higher value
    (False, <Comparison.VALUE: 2>)
    >>> beats(26, 46, track)  # blue 6 against purple 6: blue is higher on the ladder
    (True, <Comparison.LADDER: 3>)
    """
    trump = track[0]
    a_trump = dracula // 10 == trump
    if a_trump != (van_helsing // 10 == trump):
        return a_trump, Comparison.TRUMP
    a, b = dracula % 10, van_helsing % 10
    if a != b:
        return a > b, Comparison.VALUE
    ladder = list(track)
    return ladder.index(dracula // 10) < ladder.index(van_helsing // 10), Comparison.LADDER


def _district(value: int, rule: str) -> int:
    if not 1 <= value <= DISTRICTS:
        raise Rejection(rule, f"districts are numbered 1-{DISTRICTS}, got {value}")
    return value


# --- TURN: draw, or call the end (DV-7, DV-19) ---------------------------------------------------


def draw(state: DraculaVsVanHelsingState, seat: int, command: Draw) -> list[Event]:
    """DV-7: the top card of the deck, seen by the drawer (by everyone after a 2, DV-11)."""
    # The deck is never empty at the start of a turn: a turn that empties it ends the round.
    top = state.deck[0]
    return [CardDrawn(seat, CARDS[top], state.revealed[top], len(state.deck) - 1)]


def call_end(state: DraculaVsVanHelsingState, seat: int, command: CallEnd) -> list[Event]:
    """DV-7: with 6 discards, instead of drawing; DV-19: the opponent takes one last turn."""
    if state.called_by >= 0:
        raise Rejection("DV-19", "the end was already called: this last turn must be a draw")
    if len(state.pile) < DISCARDS_TO_CALL:
        raise Rejection(
            "DV-7",
            f"the end can be called only with at least {DISCARDS_TO_CALL} cards on the "
            f"discard pile; it holds {len(state.pile)}",
        )
    return [EndCalled(seat), TurnStarted(1 - seat, TurnKind.LAST)]


# --- PLACE: discard the drawn card or put it into a slot (DV-7, DV-8) ---------------------------


def discard_drawn(state: DraculaVsVanHelsingState, seat: int, command: DiscardDrawn) -> list[Event]:
    drawn = state.drawn
    if drawn % 10 == 8 and len(state.pile) < DISCARDS_TO_CALL:
        raise _eight_too_early(len(state.pile), "put the drawn 8 into a slot instead")
    events: list[Event] = [DrawnCardDiscarded(seat, CARDS[drawn])]
    return _after_discard(state, seat, drawn, state.slots[seat], events)


def place_drawn(state: DraculaVsVanHelsingState, seat: int, command: PlaceDrawn) -> list[Event]:
    district = _district(command.district, "DV-7")
    drawn = state.drawn
    own = state.slots[seat]
    old = own[district - 1]
    if old % 10 == 8 and len(state.pile) < DISCARDS_TO_CALL:
        raise _eight_too_early(len(state.pile), "choose another slot")
    events: list[Event] = [
        DrawnCardPlaced(seat, district, CARDS[drawn], state.revealed[drawn], CARDS[old])
    ]
    after = list(own)
    after[district - 1] = drawn
    return _after_discard(state, seat, old, after, events)


def _eight_too_early(pile: int, advice: str) -> Rejection:
    return Rejection(
        "DV-8",
        f"an 8 can be discarded only when the discard pile already holds {DISCARDS_TO_CALL} "
        f"cards; it holds {pile}: {advice}",
    )


def _after_discard(
    state: DraculaVsVanHelsingState,
    seat: int,
    discarded: int,
    own: Sequence[int],
    events: list[Event],
) -> list[Event]:
    """DV-9: the discarded card's effect. Effects with a choice wait for it (the events end
    here); the others resolve now, or are skipped when they cannot."""
    value = discarded % 10
    revealed = state.revealed
    if value == 1:  # DV-10
        if any(not revealed[c] for c in own):
            return events
        events.append(EffectSkipped(seat, 1, "all your cards are already revealed (DV-9)"))
    elif value == 3:  # DV-12
        if any(not revealed[c] for c in state.slots[1 - seat]):
            return events
        events.append(EffectSkipped(seat, 3, "all the opponent's cards are revealed (DV-9)"))
    elif value == 2:  # DV-11
        if state.deck:
            events.append(DeckTopRevealed(seat, CARDS[state.deck[0]]))
        else:
            events.append(EffectSkipped(seat, 2, "the deck is empty (DV-9)"))
    elif value in EFFECT_STEP:  # 4, 6, 7 can always resolve
        return events
    slots = [own, state.slots[1 - seat]] if seat == 0 else [state.slots[0], own]
    events.extend(_finish_turn(state, seat, value, slots, state.track))
    return events


# --- the effects with a choice (DV-10, DV-12, DV-13, DV-15, DV-16) -------------------------------


def reveal_own(state: DraculaVsVanHelsingState, seat: int, command: RevealOwn) -> list[Event]:
    district = _district(command.district, "DV-10")
    code = state.slots[seat][district - 1]
    if state.revealed[code]:
        raise Rejection("DV-10", f"your card in district {district} is already revealed")
    events: list[Event] = [CardRevealed(seat, seat, district, CARDS[code])]
    return events + _finish_turn(state, seat, 1, state.slots, state.track)


def reveal_opponent(
    state: DraculaVsVanHelsingState, seat: int, command: RevealOpponent
) -> list[Event]:
    district = _district(command.district, "DV-12")
    opponent = 1 - seat
    code = state.slots[opponent][district - 1]
    if state.revealed[code]:
        raise Rejection("DV-12", f"the opponent's card in district {district} is already revealed")
    events: list[Event] = [CardRevealed(seat, opponent, district, CARDS[code])]
    return events + _finish_turn(state, seat, 3, state.slots, state.track)


def swap_slots(state: DraculaVsVanHelsingState, seat: int, command: SwapSlots) -> list[Event]:
    first = _district(command.first, "DV-13")
    second = _district(command.second, "DV-13")
    if first >= second:
        raise Rejection(
            "DV-13", f"name two different districts, the lower first (got {first}, {second})"
        )
    own = list(state.slots[seat])
    own[first - 1], own[second - 1] = own[second - 1], own[first - 1]
    slots = [own, state.slots[1]] if seat == 0 else [state.slots[0], own]
    events: list[Event] = [SlotsSwapped(seat, first, second)]
    return events + _finish_turn(state, seat, 4, slots, state.track)


def exchange_district(
    state: DraculaVsVanHelsingState, seat: int, command: ExchangeDistrict
) -> list[Event]:
    district = _district(command.district, "DV-15")
    index = district - 1
    given, taken = state.slots[seat][index], state.slots[1 - seat][index]
    revealed = state.revealed
    slots = [list(state.slots[0]), list(state.slots[1])]
    slots[seat][index], slots[1 - seat][index] = taken, given
    events: list[Event] = [
        DistrictExchanged(
            seat, district, CARDS[given], revealed[given], CARDS[taken], revealed[taken]
        )
    ]
    return events + _finish_turn(state, seat, 6, slots, state.track)


#: DV-16: the colours a 7 may name (Colour numbers).
_COLOUR_NUMBERS = frozenset(int(c) for c in COLOURS)


def choose_trump(state: DraculaVsVanHelsingState, seat: int, command: ChooseTrump) -> list[Event]:
    colour = command.colour
    if colour not in _COLOUR_NUMBERS:
        raise Rejection("DV-16", f"colours are 1 yellow, 2 blue, 3 red, 4 purple; got {colour}")
    chosen = Colour(colour)
    track = list(state.track)
    if chosen == track[0]:
        raise Rejection("DV-16", f"{chosen.name.lower()} is already trump: name another")
    # DV-16: the chosen colour and the trump token swap places; the other two stay.
    position = track.index(chosen)
    track[0], track[position] = chosen, track[0]
    events: list[Event] = [TrumpChanged(seat, chosen, tuple(track))]
    return events + _finish_turn(state, seat, 7, state.slots, track)


#: The handler of each (step, command type): the house table of ``decide``.
HANDLERS: dict[tuple[Step, type], Handler] = {
    (Step.TURN, Draw): draw,
    (Step.TURN, CallEnd): call_end,
    (Step.PLACE, DiscardDrawn): discard_drawn,
    (Step.PLACE, PlaceDrawn): place_drawn,
    (Step.REVEAL_OWN, RevealOwn): reveal_own,
    (Step.REVEAL_OPPONENT, RevealOpponent): reveal_opponent,
    (Step.SWAP_SLOTS, SwapSlots): swap_slots,
    (Step.EXCHANGE_DISTRICT, ExchangeDistrict): exchange_district,
    (Step.CHOOSE_TRUMP, ChooseTrump): choose_trump,
}

# --- the end of a turn and of a round (DV-6, DV-14, DV-17, DV-19 ... DV-23) ----------------------


def _finish_turn(
    state: DraculaVsVanHelsingState,
    seat: int,
    effect: int,
    slots: Sequence[Sequence[int]],
    track: Sequence[int],
) -> list[Event]:
    """The end of a turn whose effect has resolved: what comes next (DV-6, DV-14, DV-17,
    DV-19). ``slots`` and ``track`` are as the turn left them (the state does not have the
    turn's events applied yet)."""
    if effect == 8:  # DV-17: at once, no further turn for anyone
        return _end_round(state, RoundEnd.EIGHT, slots, track)
    if not state.deck:  # DV-19 (c): the deck ran out; a 5 grants nothing
        events: list[Event] = []
        if effect == 5:
            events.append(
                EffectSkipped(seat, 5, "the deck is empty: the round ends, no extra turn (DV-19)")
            )
        return events + _end_round(state, RoundEnd.DECK_EMPTY, slots, track)
    if effect == 5:  # DV-14, also during the last turn after a call (DV-19 ruling)
        return [TurnStarted(seat, TurnKind.EXTRA)]
    if state.called_by >= 0:  # DV-19 (a): that was the last turn after the call
        return _end_round(state, RoundEnd.CALL, slots, track)
    return [TurnStarted(1 - seat, TurnKind.NORMAL)]  # DV-6


def _end_round(
    state: DraculaVsVanHelsingState,
    reason: RoundEnd,
    slots: Sequence[Sequence[int]],
    track: Sequence[int],
) -> list[Event]:
    """DV-20 ... DV-23: reveal everything, resolve district by district (stopping as soon as
    the game is decided), then deal the next round or end the game."""
    dracula, van_helsing = state.dracula, 1 - state.dracula
    ours, theirs = slots[dracula], slots[van_helsing]
    events: list[Event] = [
        RoundEnded(
            state.round,
            reason,
            tuple(CARDS[c] for c in ours),
            tuple(CARDS[c] for c in theirs),
        )
    ]
    hp = state.hp
    vampires = [d.vampires for d in state.districts]
    for district in state.order:
        index = district - 1
        dracula_wins, comparison = beats(ours[index], theirs[index], track)
        if dracula_wins:  # DV-21: a human there becomes a vampire
            vampires[index] += 1
        else:  # DV-21: Dracula loses 1 HP
            hp -= 1
        events.append(
            DistrictResolved(
                district,
                CARDS[ours[index]],
                CARDS[theirs[index]],
                Role.DRACULA if dracula_wins else Role.VAN_HELSING,
                comparison,
                HUMANS - vampires[index],
                vampires[index],
                hp,
            )
        )
        # DV-22: checked after each district; later districts are not resolved.
        if vampires[index] == HUMANS:
            events.append(
                GameEnded(Role.DRACULA, dracula, GameEnd.VAMPIRES, state.round, district, hp)
            )
            return events
        if hp == 0:
            events.append(
                GameEnded(Role.VAN_HELSING, van_helsing, GameEnd.NO_HP, state.round, 0, hp)
            )
            return events
    if state.round >= ROUNDS:  # DV-23: Dracula survived the last round
        events.append(GameEnded(Role.DRACULA, dracula, GameEnd.ROUNDS, state.round, 0, hp))
        return events
    events.extend(deal(state.config, state.round + 1))
    events.append(TurnStarted(dracula, TurnKind.NORMAL))  # DV-6: Dracula opens every round
    return events


def deal(config: GameConfig, round_no: int) -> list[Event]:
    """DV-5: shuffle the 32 cards; 5 to each seat by district, the remaining 22 are the deck.
    Shuffle ``round - 1`` (the fixed deal's ``decks[round - 1]``)."""
    codes = notation_codes()
    order = [codes[text] for text in deck_for(config, round_no - 1, DECK)]
    cards = [CARDS[c] for c in order]
    return [
        RoundStarted(round_no, round_no - 1, DECK_SIZE, tuple(cards[2 * SLOTS :])),
        SlotsDealt(0, tuple(cards[:SLOTS])),
        SlotsDealt(1, tuple(cards[SLOTS : 2 * SLOTS])),
    ]
