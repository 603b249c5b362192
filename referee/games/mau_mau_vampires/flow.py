"""Mau Mau Vampires: what follows an action, shared by every handler of :mod:`.decide` and
:mod:`.abilities`: announcements and their penalties (MM-16), the next triggered ability
(MM-18 ... MM-20), the end of an action, of a turn and of a hand (MM-23, MM-24), and the deal
of the next hand (MM-6, MM-7). Like the handlers, it reads the state and writes only the
:class:`~.state._Draft`."""

from __future__ import annotations

from collections.abc import Sequence

from referee.engine.game import Rejection, rank_by_score
from referee.games.mau_mau_vampires.characters import CHARACTERS
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CLOCK,
    FULL_DECK,
    MAU_MAU_CARDS,
    WEREWOLF,
    Ability,
    AbilityTriggered,
    Announcement,
    Card,
    CardsDealt,
    Colour,
    DrawReason,
    GameEnded,
    HandEnded,
    HandStarted,
    PotTaken,
    ShuffleReason,
    StartingCardTurned,
    TurnStarted,
    code_or_none,
    colour_of,
    symbol_of,
)
from referee.games.mau_mau_vampires.state import (
    _NEEDS_A_CARD,
    _NONE,
    MAX_TIEBREAKS,
    MauMauVampiresState,
    _Draft,
    _sorted_cards,
    hand_size_for,
)


def card_code(card: Card, rule: str) -> int:
    """The code of a command's card, or the rejection of a card that does not exist (the
    engine checked the field types only: a symbol 12, a Clock with a colour, ``Card()``)."""
    code = code_or_none(card)
    if code is None:
        raise Rejection(
            rule,
            f"a card is a Mau Mau card (colour, symbol 1-11), a Clock or a Werewolf, got {card!r}",
        )
    return code


def name(code: int) -> str:
    """A card in words, e.g. ``green 7 (bat)``."""
    if code == CLOCK:
        return "Clock"
    if code == WEREWOLF:
        return "Werewolf"
    symbol = symbol_of(code)
    return f"{Colour(colour_of(code)).name.lower()} {symbol} ({CHARACTERS.symbols[symbol - 1]})"


# --- announcements (MM-16, MM-17) ------------------------------------------------------------


def announced(
    state: MauMauVampiresState, announce: Announcement, owed: Announcement, rule: str
) -> Announcement:
    """MM-16: the announcement that counts. With ``auto`` the referee says what is owed."""
    if state.auto_announce:
        if announce != _NONE:
            raise Rejection(
                rule,
                "announcements are automatic in this game (announcements=auto): leave "
                "announce unset",
            )
        return owed
    if announce != _NONE and announce != owed:
        if owed is _NONE:
            detail = (
                "a special card played as your last card does not end the hand (MM-17)"
                if rule == "MM-17"
                else "this action does not leave you 1 or 0 cards"
            )
            raise Rejection(rule, f"nothing to announce: {detail}")
        raise Rejection(rule, f"this action calls for {owed.name.replace('_', ' ').title()}")
    return Announcement(announce)


def penalty(d: _Draft, seat: int, owed: Announcement, announced: Announcement) -> None:
    """MM-16: a missed Mau draws 1, a missed Mau Mau 2 (and the hand goes on)."""
    if owed is _NONE:
        return
    if announced == owed:
        if owed is Announcement.MAU_MAU:
            d.missed = False  # a later Mau Mau said right counts again
        return
    if owed is Announcement.MAU:
        d.draw(seat, 1, DrawReason.MISSED_MAU)
    else:
        d.missed = True
        d.draw(seat, 2, DrawReason.MISSED_MAU_MAU)


# --- after an action: abilities, the end of the turn -------------------------------------------


def next_trigger(d: _Draft, seat: int, triggers: Sequence[Ability]) -> bool:
    """Ask the owner about the next usable triggered ability; ``False`` if none is left. An
    ability that cannot be used at all (a card to give with an empty hand) does not trigger."""
    for ability in triggers:
        if ability not in _NEEDS_A_CARD or d.sizes[seat] > 0:
            character = CHARACTERS.characters[d.characters[seat]]
            d.emit(AbilityTriggered(seat, ability, character.id))
            return True
    return False


def end_action(state: MauMauVampiresState, d: _Draft, seat: int, *, extra: bool) -> None:
    """The play and its abilities are resolved: the hand ends if the player has no cards
    (MM-23; not after a missed Mau Mau, MM-16), else another turn (MM-21) or the next."""
    if d.sizes[seat] == 0 and not d.missed:
        end_hand(state, d, seat)
    else:
        d.emit(TurnStarted(seat if extra else state.next_playing(seat), extra))


def after_ability(state: MauMauVampiresState, d: _Draft, seat: int, *, extra: bool = False) -> None:
    """An ability was used or declined: the next triggered one, else the end of the action."""
    if not next_trigger(d, seat, state.triggers):
        end_action(state, d, seat, extra=extra)


def finish_special(state: MauMauVampiresState, d: _Draft, seat: int) -> None:
    """The rest of a special card's effect: take the pot (MM-22 h), then the 2 penalty cards
    of a special card played last (MM-17); then the turn ends."""
    last = d.sizes[seat] == 0
    if state.pot:
        # Sorted: which card came from whose hand or from the deck stays unknown (MM-28).
        d.emit(PotTaken(seat, len(state.pot), _sorted_cards([c for c, _ in state.pot])))
        d.sizes[seat] += len(state.pot)
    if last:
        d.draw(seat, 2, DrawReason.SPECIAL_LAST_CARD)
    d.emit(TurnStarted(state.next_playing(seat), False))


# --- the end of a hand and of the game (MM-23, MM-24), the next deal (MM-6, MM-7) -------------


def end_hand(state: MauMauVampiresState, d: _Draft, ender: int | None) -> None:
    n = state.players
    playing = state.playing
    sizes = d.sizes
    in_hands = sum(sizes[s] for s in playing)
    scores = [0] * n
    for s in playing:
        # MM-23: 1 point per card in the other players' hands; 2 bonus points to the ender.
        scores[s] = in_hands - sizes[s] + (2 if s == ender else 0)
    totals = list(state.totals)
    points = list(state.tiebreak_points)
    target = totals if state.tiebreak == 0 else points
    for s in playing:
        target[s] += scores[s]
    d.emit(
        HandEnded(
            hand_number=state.hand_number,
            tiebreak=state.tiebreak,
            ender=ender,
            blocked=ender is None,
            scores=tuple(scores),
            cards_left=tuple(sizes),
            totals=tuple(totals),
            tiebreak_points=tuple(points),
        )
    )
    characters = list(d.characters)
    if state.pass_left:  # MM-7
        characters = [characters[(s - 1) % n] for s in range(n)]
    if state.tiebreak == 0 and state.hand_number < state.hands_total:
        playing_next: tuple[int, ...] = tuple(range(n))
        tiebreak = 0
    else:
        # MM-24: the highest total wins; tied leaders play a tie-break hand, at most 3.
        if state.tiebreak == 0:
            best = max(totals)
            leaders = tuple(s for s in range(n) if totals[s] == best)
        else:
            best = max(scores[s] for s in playing)
            leaders = tuple(s for s in playing if scores[s] == best)
        if len(leaders) == 1 or state.tiebreak == MAX_TIEBREAKS:
            final = tuple(t + p for t, p in zip(totals, points, strict=True))
            ranks = tuple(r.rank for r in rank_by_score(final, lower_wins=False))
            d.emit(GameEnded(final, ranks))
            return
        playing_next = leaders
        tiebreak = state.tiebreak + 1
    dealer = state.dealer
    for step in range(1, n + 1):  # MM-7: the next dealer is left of the last one
        dealer = (state.dealer + step) % n
        if dealer in playing_next:
            break
    start_hand(d, state.hand_number + 1, tiebreak, dealer, playing_next, characters)


def start_hand(
    d: _Draft,
    hand_number: int,
    tiebreak: int,
    dealer: int,
    playing: tuple[int, ...],
    characters: Sequence[int],
) -> None:
    """MM-6, MM-7: shuffle all 55 cards, deal, turn the first Mau Mau card; the player left
    of the dealer starts."""
    size = hand_size_for(len(playing))
    d.emit(
        HandStarted(
            hand_number=hand_number,
            tiebreak=tiebreak,
            dealer=dealer,
            playing=playing,
            characters=tuple(CHARACTERS.characters[c].id for c in characters),
            hand_size=size,
        )
    )
    order = d.shuffle(FULL_DECK, ShuffleReason.NEW_HAND)
    position = 0
    for seat in playing:
        d.emit(CardsDealt(seat, size, _sorted_cards(order[position : position + size])))
        position += size
    turned: list[int] = []
    while order[position] >= MAU_MAU_CARDS:
        turned.append(order[position])
        d.emit(StartingCardTurned(CARDS[order[position]]))
        position += 1
    d.emit(StartingCardTurned(CARDS[order[position]]))
    position += 1
    if turned:
        d.shuffle([*order[position:], *turned], ShuffleReason.SPECIALS_RETURNED)
    first = dealer
    for step in range(1, len(d.sizes) + 1):
        first = (dealer + step) % len(d.sizes)
        if first in playing:
            break
    d.emit(TurnStarted(first, False))
