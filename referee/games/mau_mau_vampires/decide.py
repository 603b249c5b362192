"""Mau Mau Vampires: what a command causes (reads the state, never changes it).

:data:`HANDLERS` declares the handler of each (phase, command type): a turn (MM-8 ... MM-12),
the card just drawn (MM-8), a triggered ability (:mod:`.abilities`), a chance to wish (MM-14),
showing a card of a called colour (MM-22 b) and sharing the two cards of (g). A few entries
only refuse, under the rule the command belongs to (an ability's command on a turn: MM-18);
the engine calls a handler for a seat asked to decide and a well-formed command, and refuses a
command without an entry under the rule of the decision asked for. Each handler drafts its
events on a :class:`~.state._Draft`; what follows an action (abilities, the end of the turn or
of the hand) is :mod:`.flow`.
"""

from __future__ import annotations

from referee.engine import game
from referee.engine.game import Rejection
from referee.games.mau_mau_vampires import abilities
from referee.games.mau_mau_vampires.characters import CHARACTERS
from referee.games.mau_mau_vampires.commands import legal_commands, nothing_to_draw
from referee.games.mau_mau_vampires.flow import (
    after_ability,
    announced,
    card_code,
    end_action,
    end_hand,
    finish_special,
    name,
    next_trigger,
    penalty,
)
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CLOCK,
    COLOURS,
    MAU_MAU_CARDS,
    WEREWOLF,
    CallColour,
    CardPlayed,
    CardShown,
    Colour,
    Command,
    DayNightTurned,
    DeclineAbility,
    DrawCard,
    DrawnShared,
    DrawReason,
    EndTurn,
    Event,
    GiveCard,
    NoWish,
    Phase,
    PlayCard,
    SetAside,
    ShareDrawn,
    ShowCard,
    SwapCharacters,
    TurnStarted,
    UseAbility,
    Wish,
    Wished,
    WishOffered,
    WishReason,
    colour_of,
    symbol_of,
)
from referee.games.mau_mau_vampires.state import (
    _ABILITY_COMMANDS,
    _NONE,
    MauMauVampiresState,
    _Draft,
    _playable,
    _raw_triggers,
    owed_for,
)

#: A handler: the events of ``command`` by ``seat``, a seat whose decision it is.
Handler = game.Handler[MauMauVampiresState, Event]


# --- a turn (MM-8 ... MM-12) -------------------------------------------------------------------


def draw_on_turn(state: MauMauVampiresState, seat: int, command: DrawCard) -> list[Event]:
    """MM-8: draw 1; the drawer then decides whether to play it (``PLAY_DRAWN``)."""
    if nothing_to_draw(state) and legal_commands(state, seat)[0] != command:
        # MM-15 ruling: with nothing to draw, a player who can play must play.
        raise Rejection(
            "MM-15",
            "nothing can be drawn (deck and discard pile are empty): drawing is not a "
            "choice while you can play a card",
        )
    d = _Draft(state)
    if d.draw(seat, 1, DrawReason.TURN) == 0:
        # MM-15: the player passes; once every playing seat in turn has passed so, the hand
        # ends blocked (MM-15 ruling).
        d.idle += 1
        if d.idle >= len(state.playing):
            end_hand(state, d, None)
        else:
            d.emit(TurnStarted(state.next_playing(seat), False))
    return d.events


def play_on_turn(state: MauMauVampiresState, seat: int, command: PlayCard) -> list[Event]:
    return _play(state, seat, command, card_code(command.card, "MM-8"))


def end_turn(state: MauMauVampiresState, seat: int, command: EndTurn) -> list[Event]:
    """MM-8: keep the card just drawn."""
    return [TurnStarted(state.next_playing(seat), False)]


def play_drawn(state: MauMauVampiresState, seat: int, command: PlayCard) -> list[Event]:
    """MM-8: play the card just drawn."""
    code = card_code(command.card, "MM-8")
    if code != state.drawn:
        raise Rejection(
            "MM-8", f"after drawing you may play only the card drawn, {name(state.drawn)}"
        )
    return _play(state, seat, command, code)


def _play(state: MauMauVampiresState, seat: int, command: PlayCard, code: int) -> list[Event]:
    hand = state.hands[seat]
    if not hand[code]:
        raise Rejection("MM-8", f"you hold no {name(code)}")
    if code != WEREWOLF and command.werewolf_seat is not None:
        raise Rejection("MM-11", "werewolf_seat is only for playing a Werewolf")
    d = _Draft(state)
    left = d.sizes[seat] - 1
    if code < MAU_MAU_CARDS:
        _check_playable(state, code)
        owed = owed_for(left)
        said = announced(state, command.announce, owed, "MM-16")
        d.emit(CardPlayed(seat, CARDS[code], said, owed, None, ""))
        d.sizes[seat] = left
        d.bury(state.top)
        penalty(d, seat, owed, said)
        # MM-18 ... MM-20: the character may trigger.
        if not next_trigger(d, seat, _raw_triggers(state, seat, code)):
            end_action(state, d, seat, extra=False)
        return d.events
    # MM-10: a special card is playable whatever the top card is.
    # MM-17: played as the last card, nothing is owed (or accepted) as announcement.
    owed = owed_for(left) if left > 0 else _NONE
    rule = "MM-16" if left > 0 else "MM-17"
    target = command.werewolf_seat
    replaced = ""
    if code == WEREWOLF:
        target = _check_werewolf_target(state, target)
        if state.werewolf >= 0:
            replaced = CHARACTERS.characters[state.werewolf].id
    said = announced(state, command.announce, owed, rule)
    d.emit(CardPlayed(seat, CARDS[code], said, owed, target, replaced))
    d.sizes[seat] = left
    if replaced:
        # MM-11: never more than one werewolf: the old one is discarded (MM-13: under the
        # top card) as soon as the new one is placed, so before a missed Mau's penalty card
        # (MM-16), whose reshuffle (MM-15) takes it; apply buries it at CardPlayed too.
        d.bury(WEREWOLF)
    penalty(d, seat, owed, said)
    wish_reason = WishReason.UNSPECIFIED
    if replaced:
        wish_reason = WishReason.WEREWOLF_REPLACED  # MM-11, MM-14: the player may wish
    elif code == CLOCK and state.clocks + 1 == len(state.playing):
        # MM-12: as many clocks as players: turn Day/Night and every character; discard
        # the werewolf and the clocks; the player may wish.
        werewolf = CHARACTERS.characters[state.werewolf].id if state.werewolf >= 0 else ""
        d.emit(DayNightTurned(not state.night, state.clocks + 1, werewolf))
        d.bury(CLOCK, state.clocks + 1)
        if werewolf:
            d.bury(WEREWOLF)
        wish_reason = WishReason.DAY_NIGHT_TURNED
    if wish_reason is not WishReason.UNSPECIFIED:
        d.emit(WishOffered(seat, wish_reason))  # MM-14
    else:
        finish_special(state, d, seat)
    return d.events


def _check_playable(state: MauMauVampiresState, code: int) -> None:
    """MM-9, MM-14: same colour or symbol as the top card; while a wish is open, the wished
    colour (any symbol)."""
    if _playable(state, code):
        return
    colour = colour_of(code)
    if state.wish:
        if colour != state.wish:
            raise Rejection(
                "MM-9",
                f"{Colour(state.wish).name.lower()} is wished (MM-14): play a "
                f"{Colour(state.wish).name.lower()} card, a special card, or draw",
            )
        return
    if colour != colour_of(state.top) and symbol_of(code) != symbol_of(state.top):
        raise Rejection(
            "MM-9",
            f"{name(code)} matches neither the colour nor the symbol of the top card "
            f"{name(state.top)}",
        )


def _check_werewolf_target(state: MauMauVampiresState, target: int | None) -> int:
    """MM-11: on a character (of a seat playing this hand) that has no werewolf."""
    if target is None:
        raise Rejection("MM-11", "a Werewolf needs werewolf_seat: whose character gets it")
    if target not in state.playing:
        raise Rejection("MM-11", f"seat {target} has no character in this hand")
    if state.characters[target] == state.werewolf:
        raise Rejection("MM-11", f"the character of seat {target} already carries a werewolf")
    return target


# --- refusals on a turn: commands of other decisions ---------------------------------------------


def no_ability(state: MauMauVampiresState, seat: int, command: Command) -> list[Event]:
    raise Rejection(
        "MM-18",
        "no ability has triggered: abilities trigger only on your own Mau Mau cards, "
        "without a werewolf on your character",
    )


def no_wish(state: MauMauVampiresState, seat: int, command: Command) -> list[Event]:
    raise Rejection("MM-14", "there is no chance to wish now")


def no_call(state: MauMauVampiresState, seat: int, command: Command) -> list[Event]:
    raise Rejection("MM-22", "no colour is called")


def draw_first(state: MauMauVampiresState, seat: int, command: EndTurn) -> list[Event]:
    raise Rejection("MM-8", "play a card or draw one first")


def drawn_already(state: MauMauVampiresState, seat: int, command: DrawCard) -> list[Event]:
    raise Rejection("MM-8", "you have drawn your card: play it or end your turn")


# --- a chance to wish (MM-14), a called colour (MM-22 b), the cards of (g) ---------------------


def _wish_rule(state: MauMauVampiresState) -> str:
    return "MM-22" if state.wish_reason is WishReason.CARD_RECEIVED else "MM-14"


def wish(state: MauMauVampiresState, seat: int, command: Wish | NoWish) -> list[Event]:
    """MM-14 (after a werewolf replaced or Day/Night turned), MM-22 a (a received card)."""
    d = _Draft(state)
    if isinstance(command, Wish):
        if command.colour not in COLOURS:
            raise Rejection(_wish_rule(state), "wish red, blue, green or purple")
        d.emit(Wished(seat, Colour(command.colour)))
    else:
        d.emit(Wished(seat, Colour.UNSPECIFIED))
    if state.wish_reason is WishReason.CARD_RECEIVED:
        after_ability(state, d, state.turn)
    else:
        finish_special(state, d, state.turn)
    return d.events


def show(state: MauMauVampiresState, seat: int, command: ShowCard) -> list[Event]:
    """MM-22 b: a holder of the called colour shows the caller one card of it."""
    colour = Colour(state.call_colour).name.lower()
    code = card_code(command.card, "MM-22")
    if colour_of(code) != state.call_colour:
        raise Rejection("MM-22", f"show a {colour} card: {colour} was called")
    if not state.hands[seat][code]:
        raise Rejection("MM-22", f"you hold no {name(code)}")
    d = _Draft(state)
    d.emit(CardShown(seat, state.turn, CARDS[code]))
    if len(state.answering) == 1:
        after_ability(state, d, state.turn)
    return d.events


def share(state: MauMauVampiresState, seat: int, command: ShareDrawn) -> list[Event]:
    """MM-22 g: give or keep each of the two cards drawn."""
    pair = state.pair
    to_seats = command.to_seats
    if len(to_seats) != len(pair):
        raise Rejection(
            "MM-22",
            f"name a receiver (your own seat to keep it) for each of {len(pair)} card(s)",
        )
    for to in to_seats:
        if to not in state.playing:
            raise Rejection("MM-22", f"seat {to} does not play this hand")
    d = _Draft(state)
    kept = sum(1 for to in to_seats if to == seat)
    left = d.sizes[seat] + kept
    # MM-16: giving cards away is an action that may leave 1 or 0 cards.
    owed = owed_for(left) if kept < len(pair) else _NONE
    said = announced(state, command.announce, owed, "MM-16")
    # MM-28: the receivers are listed by seat (then card), never in the order of the cards:
    # that order is the drawer's secret, and a receiver (or a spectator) would learn from it
    # how the hidden cards compare (MM-22 g).
    given = sorted(zip(to_seats, pair, strict=True))
    d.emit(
        DrawnShared(
            seat,
            tuple(to for to, _ in given),
            tuple(CARDS[code] for _, code in given),
            said,
            owed,
        )
    )
    for to in to_seats:
        d.sizes[to] += 1
    penalty(d, seat, owed, said)
    after_ability(state, d, seat)
    return d.events


# --- the table ------------------------------------------------------------------------------------

#: On a turn or with a card just drawn, commands of the other decisions are refused under
#: their own rule (an ability's: MM-18, a wish: MM-14, showing a card: MM-22).
_OTHER_DECISIONS: dict[type, Handler] = {
    **dict.fromkeys((*_ABILITY_COMMANDS, ShareDrawn), no_ability),
    Wish: no_wish,
    NoWish: no_wish,
    ShowCard: no_call,
}

#: The handler of each (phase, command type): the house table of ``decide``.
HANDLERS: dict[tuple[Phase, type], Handler] = {
    **{(Phase.TURN, kind): handler for kind, handler in _OTHER_DECISIONS.items()},
    **{(Phase.PLAY_DRAWN, kind): handler for kind, handler in _OTHER_DECISIONS.items()},
    (Phase.TURN, DrawCard): draw_on_turn,
    (Phase.TURN, PlayCard): play_on_turn,
    (Phase.TURN, EndTurn): draw_first,
    (Phase.PLAY_DRAWN, EndTurn): end_turn,
    (Phase.PLAY_DRAWN, PlayCard): play_drawn,
    (Phase.PLAY_DRAWN, DrawCard): drawn_already,
    (Phase.ABILITY, DeclineAbility): abilities.decline,
    (Phase.ABILITY, UseAbility): abilities.use,
    (Phase.ABILITY, GiveCard): abilities.give,
    (Phase.ABILITY, CallColour): abilities.call,
    (Phase.ABILITY, Wish): abilities.wish,
    (Phase.ABILITY, SwapCharacters): abilities.swap,
    (Phase.ABILITY, SetAside): abilities.set_aside,
    (Phase.WISH, Wish): wish,
    (Phase.WISH, NoWish): wish,
    (Phase.ANSWER_CALL, ShowCard): show,
    (Phase.SHARE_DRAWN, ShareDrawn): share,
}
