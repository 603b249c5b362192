"""Mau Mau Vampires: the commands a seat may send (legal moves, made of shared immutable
commands) and the command space of the conformance suite. (The engine checks the shape of the
commands a seat sends.)"""

from __future__ import annotations

from referee.engine.game import (
    Seat,
)
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CLOCK,
    CODES,
    COLOUR_OF,
    COLOURS,
    HIDDEN,
    MAU_MAU_CARDS,
    SYMBOL_OF,
    WEREWOLF,
    Ability,
    Announcement,
    CallColour,
    Card,
    CardKind,
    Colour,
    Command,
    DeclineAbility,
    DrawCard,
    EndTurn,
    GiveCard,
    NoWish,
    Phase,
    PlayCard,
    SetAside,
    ShareDrawn,
    ShowCard,
    SwapCharacters,
    UseAbility,
    Wish,
)
from referee.games.mau_mau_vampires.state import (
    _NONE,
    _OWED,
    _SAY_NOTHING,
    _TURN,
    MAX_PLAYERS,
    MauMauVampiresState,
    _opponents,
    _playable,
    owed_for,
)

#: Every PlayCard a legal list can hold, built once: _PLAYS[code][announcement] and
#: _WEREWOLF_PLAYS[seat][announcement] (legal_commands runs at every step).
_PLAYS: tuple[tuple[PlayCard, ...], ...] = tuple(
    tuple(PlayCard(CARDS[code], a) for a in Announcement) for code in range(CODES)
)
_WEREWOLF_PLAYS: tuple[tuple[PlayCard, ...], ...] = tuple(
    tuple(PlayCard(CARDS[WEREWOLF], a, seat) for a in Announcement) for seat in range(MAX_PLAYERS)
)

_DRAW = DrawCard()
_END_TURN = EndTurn()
_DECLINE = DeclineAbility()
_USE = UseAbility()
_NO_WISH = NoWish()
_WISHES = tuple(Wish(c) for c in COLOURS)
_CALLS = tuple(CallColour(c) for c in COLOURS)
#: MM-9: the Mau Mau codes matching each top card (same colour or symbol), ascending.
_MATCHING: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        code
        for code in range(MAU_MAU_CARDS)
        if COLOUR_OF[code] == COLOUR_OF[top] or SYMBOL_OF[code] == SYMBOL_OF[top]
    )
    for top in range(MAU_MAU_CARDS)
)
#: MM-14: the Mau Mau codes of each colour (index 1-4), ascending.
_OF_COLOUR: tuple[tuple[int, ...], ...] = tuple(
    tuple(code for code in range(MAU_MAU_CARDS) if COLOUR_OF[code] == colour)
    for colour in range(len(COLOURS) + 1)
)

_SPACE: dict[int, tuple[Command, ...]] = {}


def _command_space(players: int) -> tuple[Command, ...]:
    """Every command shape, for ``players`` seats, plus some malformed ones."""
    space = _SPACE.get(players)
    if space is not None:
        return space
    seats = range(players)
    announces = tuple(Announcement)
    cards = [*CARDS, HIDDEN, Card(CardKind.CLOCK, Colour.RED, 0)]
    moves: list[Command] = [DrawCard(), EndTurn(), NoWish(), UseAbility(), DeclineAbility()]
    moves += [Wish(c) for c in Colour]
    moves += [CallColour(c) for c in Colour]
    moves += [SwapCharacters(s) for s in range(-1, players + 1)]
    moves += [ShowCard(card) for card in cards]
    moves += [PlayCard(card, a) for card in cards for a in announces]
    moves += [PlayCard(CARDS[WEREWOLF], a, s) for s in range(players + 1) for a in announces]
    moves += [PlayCard(CARDS[0], _NONE, 0)]
    moves += [GiveCard(to, card, a) for to in seats for card in CARDS for a in announces]
    moves += [SetAside(card, a) for card in CARDS for a in announces]
    combos: list[tuple[int, ...]] = [(), *((s,) for s in seats)]
    combos += [(s, t) for s in seats for t in seats]
    combos += [(0, 0, 0)]
    moves += [ShareDrawn(combo, a) for combo in combos for a in announces]
    space = _SPACE[players] = tuple(moves)
    return space


# --- what a seat may do ----------------------------------------------------------------------


def nothing_to_draw(state: MauMauVampiresState) -> bool:
    """MM-15: the deck is empty and so is the discard pile under its top card (nothing to
    reshuffle): a draw now would draw nothing."""
    return not state.deck and not any(state.pile_under)


def legal_commands(state: MauMauVampiresState, seat: Seat) -> list[Command]:
    phase = state.phase
    if phase is _TURN and seat == state.turn:
        hand = state.hands[seat]
        # MM-9, MM-14: only these codes can match the top card or the wished colour.
        wish = state.wish
        candidates = _OF_COLOUR[wish] if wish else _MATCHING[state.top]
        left = state.sizes[seat] - 1
        moves: list[Command]
        if state.auto_announce or not 0 <= left <= 1:  # nothing owed (MM-16)
            moves = [_DRAW, *[_PLAYS[code][0] for code in candidates if hand[code]]]
        else:
            announcements = (_OWED[left], _NONE)
            moves = [_DRAW]
            for code in candidates:
                if hand[code]:
                    plays = _PLAYS[code]
                    moves.extend([plays[a] for a in announcements])
        if hand[CLOCK]:
            moves.extend(_plays(state, seat, CLOCK))
        if hand[WEREWOLF]:
            moves.extend(_plays(state, seat, WEREWOLF))
        if len(moves) > 1 and nothing_to_draw(state):
            # MM-15 ruling: drawing is offered only when a card can be drawn; a player who
            # can play must then play. One who cannot passes: DrawCard, the draw skipped.
            del moves[0]
        return moves
    if phase is Phase.PLAY_DRAWN and seat == state.turn:
        return [_END_TURN, *_plays(state, seat, state.drawn)]
    if phase is Phase.ABILITY and seat == state.turn:
        return [_DECLINE, *_ability_moves(state, seat)]
    if phase is Phase.WISH and seat == state.wisher:
        return [_NO_WISH, *_WISHES]
    if phase is Phase.ANSWER_CALL and seat in state.answering:
        first = (state.call_colour - 1) * 11
        hand = state.hands[seat]
        return [ShowCard(CARDS[c]) for c in range(first, first + 11) if hand[c]]
    if phase is Phase.SHARE_DRAWN and seat == state.turn:
        return _share_moves(state, seat)
    return []


def _announcements(state: MauMauVampiresState, owed: Announcement) -> tuple[Announcement, ...]:
    """Accepted announcements, the right one first: saying nothing is a legal (penalised)
    choice (MM-16); with ``announcements=auto`` the referee speaks."""
    if state.auto_announce or owed is _NONE:
        return _SAY_NOTHING
    return (owed, _NONE)


def _plays(state: MauMauVampiresState, seat: int, code: int) -> list[Command]:
    left = state.sizes[seat] - 1
    if code < MAU_MAU_CARDS:
        if not _playable(state, code):
            return []
        owed = owed_for(left)
    else:
        owed = owed_for(left) if left > 0 else _NONE  # MM-17
    announcements = _announcements(state, owed)
    if code == WEREWOLF:
        return [
            _WEREWOLF_PLAYS[target][a]
            for target in state.playing
            if state.characters[target] != state.werewolf
            for a in announcements
        ]
    plays = _PLAYS[code]
    return [plays[a] for a in announcements]


def _ability_moves(state: MauMauVampiresState, seat: int) -> list[Command]:
    ability = state.ability
    if ability in (
        Ability.VAMPIRE_BITE,
        Ability.OPPONENTS_DRAW_ONE,
        Ability.FEWEST_DRAW_TWO,
        Ability.DRAW_TWO_AND_SHARE,
    ):
        return [_USE]
    if ability is Ability.CALL_COLOUR:
        return list(_CALLS)
    if ability is Ability.WISH_AND_PLAY_AGAIN:
        return list(_WISHES)
    if ability is Ability.SWAP_AND_PLAY_AGAIN:
        return [SwapCharacters(o) for o in _opponents(state, seat)]
    hand = state.hands[seat]
    announcements = _announcements(state, owed_for(state.sizes[seat] - 1))
    held = [c for c in range(CODES) if hand[c]]
    if ability is Ability.SET_ASIDE_POT:
        return [SetAside(CARDS[c], a) for c in held for a in announcements]
    receivers = (
        [state.next_playing(seat)] if ability is Ability.GIVE_LEFT else _opponents(state, seat)
    )
    return [GiveCard(to, CARDS[c], a) for to in receivers for c in held for a in announcements]


def _share_moves(state: MauMauVampiresState, seat: int) -> list[Command]:
    order = [seat, *_opponents(state, seat)]  # keeping comes first
    combos: list[tuple[int, ...]] = [()]
    for _ in state.pair:
        combos = [(*combo, to) for combo in combos for to in order]
    moves: list[Command] = []
    for combo in combos:
        kept = sum(1 for to in combo if to == seat)
        owed = owed_for(state.sizes[seat] + kept) if kept < len(combo) else _NONE
        moves.extend(ShareDrawn(combo, a) for a in _announcements(state, owed))
    return moves
