"""Mau Mau Vampires as text: views, events and commands (pure functions, no I/O).

A Mau Mau card is its colour and its symbol's name, ``red skull``; the symbol names come from
the view (``MauMauVampiresView.symbols``, the game's data file), ``S1`` .. ``S11`` without
one. The special cards are ``Clock`` and ``Werewolf``. A hand is grouped by colour, specials
last; the compact form ``R:skull`` is for tight spots.

>>> names = ["skull", "coffin", "spider"]
>>> card(Card(kind=MM.CARD_KIND_MAU_MAU, colour=MM.COLOUR_RED, symbol=1), names)
'red skull'
>>> short(Card(kind=MM.CARD_KIND_MAU_MAU, colour=MM.COLOUR_PURPLE, symbol=3), names)
'P:spider'
>>> format_hand([mau(MM.COLOUR_BLUE, 2), mau(MM.COLOUR_RED, 3), mau(MM.COLOUR_RED, 1),
...              Card(kind=MM.CARD_KIND_CLOCK)], names)
'red: skull, spider | blue: coffin | Clock'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from google.protobuf import text_format

from referee.v1 import mau_mau_vampires_pb2, referee_pb2
from referee_cli.render_common import GameText, join_names, plural, seat_name, viewer

MM = mau_mau_vampires_pb2.MauMauVampires
MMView = mau_mau_vampires_pb2.MauMauVampiresView
MMEvent = mau_mau_vampires_pb2.MauMauVampiresEvent
MMCommand = mau_mau_vampires_pb2.MauMauVampiresCommand
Card = MM.Card
Character = MMView.CharacterView

NAME = "Mau Mau Vampires"
COLOURS: dict[int, str] = {
    MM.COLOUR_RED: "red",
    MM.COLOUR_BLUE: "blue",
    MM.COLOUR_GREEN: "green",
    MM.COLOUR_PURPLE: "purple",
}
#: What each ability does, in a few words (MM-19, MM-22 a-h).
ABILITIES: dict[int, str] = {
    MM.ABILITY_GIVE_LEFT: "(a) give 1 card to the left neighbour, who may wish",
    MM.ABILITY_CALL_COLOUR: "(b) call a colour: opponents show it or draw 2",
    MM.ABILITY_WISH_AND_PLAY_AGAIN: "(c) wish a colour and play again",
    MM.ABILITY_SWAP_AND_PLAY_AGAIN: "(d) swap characters and play again",
    MM.ABILITY_OPPONENTS_DRAW_ONE: "(e) every opponent draws 1",
    MM.ABILITY_FEWEST_DRAW_TWO: "(f) the opponent with the fewest cards draws 2",
    MM.ABILITY_DRAW_TWO_AND_SHARE: "(g) draw 2, then give them away or keep them",
    MM.ABILITY_SET_ASIDE_POT: "(h) set a card aside into the pot",
    MM.ABILITY_VAMPIRE_BITE: "bite: the left neighbour draws 2",
    MM.ABILITY_VAMPIRE_GIFT: "gift: give 1 card to another player",
}
#: Short names of the abilities, for the narration.
ABILITY_NAMES: dict[int, str] = {
    MM.ABILITY_GIVE_LEFT: "(a) give left",
    MM.ABILITY_CALL_COLOUR: "(b) call a colour",
    MM.ABILITY_WISH_AND_PLAY_AGAIN: "(c) wish and play again",
    MM.ABILITY_SWAP_AND_PLAY_AGAIN: "(d) swap and play again",
    MM.ABILITY_OPPONENTS_DRAW_ONE: "(e) opponents draw 1",
    MM.ABILITY_FEWEST_DRAW_TWO: "(f) fewest draw 2",
    MM.ABILITY_DRAW_TWO_AND_SHARE: "(g) draw 2 and share",
    MM.ABILITY_SET_ASIDE_POT: "(h) set aside into the pot",
    MM.ABILITY_VAMPIRE_BITE: "the vampire bite",
    MM.ABILITY_VAMPIRE_GIFT: "the vampire gift",
}
_DRAW_REASONS: dict[int, str] = {
    MMEvent.DRAW_REASON_TURN: "",
    MMEvent.DRAW_REASON_MISSED_MAU: " (penalty: Mau not said)",
    MMEvent.DRAW_REASON_MISSED_MAU_MAU: " (penalty: Mau Mau not said)",
    MMEvent.DRAW_REASON_SPECIAL_LAST_CARD: " (penalty: a special card played as the last card)",
    MMEvent.DRAW_REASON_VAMPIRE_BITE: " (vampire bite)",
    MMEvent.DRAW_REASON_CALLED_COLOUR: " (holds no card of the called colour)",
    MMEvent.DRAW_REASON_OPPONENTS_DRAW_ONE: " (ability e: every opponent draws 1)",
    MMEvent.DRAW_REASON_FEWEST_DRAW_TWO: " (ability f: the fewest cards draw)",
    MMEvent.DRAW_REASON_DRAW_TWO_AND_SHARE: " to hand out (ability g)",
}
_WISH_REASONS: dict[int, str] = {
    MMEvent.WISH_REASON_WEREWOLF_REPLACED: "a werewolf was replaced",
    MMEvent.WISH_REASON_DAY_NIGHT_TURNED: "day and night turned",
    MMEvent.WISH_REASON_CARD_RECEIVED: "a card was received",
}
_ANNOUNCEMENTS: dict[int, str] = {MM.ANNOUNCEMENT_MAU: "Mau", MM.ANNOUNCEMENT_MAU_MAU: "Mau Mau"}
_PENALTIES: dict[int, int] = {MM.ANNOUNCEMENT_MAU: 1, MM.ANNOUNCEMENT_MAU_MAU: 2}


# --- cards ---------------------------------------------------------------------------------


def mau(colour: int, symbol: int) -> MM.Card:
    """A Mau Mau card."""
    return Card(kind=MM.CARD_KIND_MAU_MAU, colour=colour, symbol=symbol)  # type: ignore[arg-type]


def colour_name(colour: int) -> str:
    return COLOURS.get(colour, "?")


def symbol_name(symbol: int, symbols: Sequence[str] = ()) -> str:
    """The symbol's name from the view's list, else ``S5``."""
    return symbols[symbol - 1] if 1 <= symbol <= len(symbols) else f"S{symbol}"


def card(c: MM.Card, symbols: Sequence[str] = ()) -> str:
    """``red skull``, ``Clock``, ``Werewolf``; ``?`` for a card you may not see."""
    if c.kind == MM.CARD_KIND_CLOCK:
        return "Clock"
    if c.kind == MM.CARD_KIND_WEREWOLF:
        return "Werewolf"
    if c.kind == MM.CARD_KIND_MAU_MAU:
        return f"{colour_name(c.colour)} {symbol_name(c.symbol, symbols)}"
    return "?"


def a_card(c: MM.Card, symbols: Sequence[str] = ()) -> str:
    """``red skull``, ``a Clock``, ``a Werewolf``, ``a card`` (hidden)."""
    if c.kind in (MM.CARD_KIND_CLOCK, MM.CARD_KIND_WEREWOLF):
        return "a " + card(c, symbols)
    return card(c, symbols) if c.kind == MM.CARD_KIND_MAU_MAU else "a card"


def short(c: MM.Card, symbols: Sequence[str] = ()) -> str:
    """The compact form: ``R:skull``, ``Clock``, ``Wolf``, ``?``."""
    if c.kind == MM.CARD_KIND_MAU_MAU:
        return f"{colour_name(c.colour)[0].upper()}:{symbol_name(c.symbol, symbols)}"
    return {MM.CARD_KIND_CLOCK: "Clock", MM.CARD_KIND_WEREWOLF: "Wolf"}.get(c.kind, "?")


def _sort_key(c: MM.Card) -> tuple[int, int, int]:
    special = c.kind != MM.CARD_KIND_MAU_MAU
    return (int(special), int(c.kind) if special else int(c.colour), c.symbol)


def format_hand(cards: Sequence[MM.Card], symbols: Sequence[str] = ()) -> str:
    """A hand grouped by colour (red, blue, green, purple), symbols in order, specials last."""
    groups: list[str] = []
    for colour, name in COLOURS.items():
        of = sorted(
            c.symbol for c in cards if c.kind == MM.CARD_KIND_MAU_MAU and c.colour == colour
        )
        if of:
            groups.append(f"{name}: " + ", ".join(symbol_name(s, symbols) for s in of))
    clocks = sum(1 for c in cards if c.kind == MM.CARD_KIND_CLOCK)
    wolves = sum(1 for c in cards if c.kind == MM.CARD_KIND_WEREWOLF)
    specials = []
    if clocks:
        specials.append("Clock" if clocks == 1 else f"{clocks} Clocks")
    if wolves:
        specials.append("Werewolf" if wolves == 1 else f"{wolves} Werewolves")
    if specials:
        groups.append(", ".join(specials))
    hidden = sum(1 for c in cards if c.kind == MM.CARD_KIND_UNSPECIFIED)
    if hidden:
        groups.append(plural(hidden, "hidden card"))
    return " | ".join(groups) or "(empty)"


def list_cards(cards: Sequence[MM.Card], symbols: Sequence[str] = ()) -> str:
    """``red skull and a Clock``, in the order given."""
    return join_names([a_card(c, symbols) for c in cards])


# --- the view's facts ----------------------------------------------------------------------


def _game(view: referee_pb2.View | None) -> MMView | None:
    if view is not None and view.HasField("mau_mau_vampires"):
        return view.mau_mau_vampires
    return None


def _symbols(view: referee_pb2.View | None) -> Sequence[str]:
    game = _game(view)
    return list(game.symbols) if game is not None else []


def character_of(game: MMView | None, seat: int) -> Character | None:
    if game is None:
        return None
    return next((c for c in game.characters if c.seat == seat), None)


def character_name(game: MMView | None, seat: int) -> str:
    """``The Count``, or ``seat 2's character`` when the view does not say."""
    found = character_of(game, seat)
    return found.name if found is not None and found.name else f"seat {seat}'s character"


def char_ref(game: MMView | None, seat: int, me: int | None = None) -> str:
    """``seat 2's The Count``, ``your The Count``."""
    name = character_name(game, seat)
    return f"your {name}" if seat == me else f"seat {seat}'s {name}"


def name_of_id(game: MMView | None, character_id: str) -> str:
    """A character's name from its id (``C1`` -> ``The Count``), the id if unknown."""
    if game is not None:
        for c in game.characters:
            if c.id == character_id and c.name:
                return c.name
    return character_id


def left_neighbour(game: MMView | None, seat: int, players: int) -> int:
    """The next seat clockwise playing this hand (MM-6)."""
    playing = list(game.playing) if game is not None and game.playing else list(range(players))
    for step in range(1, max(players, 1) + 1):
        other = (seat + step) % max(players, 1)
        if other in playing:
            return other
    return seat


def day_triggers(c: Character, symbols: Sequence[str] = ()) -> str:
    """``skull or coffin -> (a) give 1 card ...``."""
    on = " or ".join(symbol_name(s, symbols) for s in c.day_symbols)
    return f"{on} -> {ABILITIES.get(c.ability, '?')}"


def night_triggers(c: Character, symbols: Sequence[str] = ()) -> str:
    """``garlic -> bite (left neighbour draws 2); green -> gift (give a card away)``."""
    return (
        f"{symbol_name(c.vampire_symbol, symbols)} -> bite (left neighbour draws 2); "
        f"{colour_name(c.vampire_colour)} -> gift (give a card away)"
    )


def triggered(game: MMView | None, seat: int, c: MM.Card) -> list[int]:
    """The abilities ``seat`` would trigger by playing Mau Mau card ``c`` (MM-18 ... MM-20)."""
    character = character_of(game, seat)
    if game is None or character is None or character.werewolf:
        return []
    if c.kind != MM.CARD_KIND_MAU_MAU:
        return []
    if game.night:
        found = []
        if c.symbol == character.vampire_symbol:
            found.append(int(MM.ABILITY_VAMPIRE_BITE))
        if c.colour == character.vampire_colour:
            found.append(int(MM.ABILITY_VAMPIRE_GIFT))
        return found
    return [int(character.ability)] if c.symbol in character.day_symbols else []


def owed_for(cards_left: int) -> int:
    """What an action leaving that many cards calls for (MM-16)."""
    if cards_left == 1:
        return int(MM.ANNOUNCEMENT_MAU)
    if cards_left == 0:
        return int(MM.ANNOUNCEMENT_MAU_MAU)
    return int(MM.ANNOUNCEMENT_UNSPECIFIED)


def _size(game: MMView | None, seat: int | None) -> int | None:
    if game is None or seat is None or seat >= len(game.hand_sizes):
        return None
    return int(game.hand_sizes[seat])


def _auto(game: MMView | None) -> bool:
    return game is not None and game.announcements == "auto"


def _say(announce: int, owed: int | None, auto: bool) -> str:
    """What a command's announcement means: `` and say Mau``, or the penalty of silence."""
    if announce in _ANNOUNCEMENTS:
        return f" and say {_ANNOUNCEMENTS[announce]}"
    if owed in _ANNOUNCEMENTS:
        if auto:
            return f" (the referee says {_ANNOUNCEMENTS[owed]})"
        penalty = plural(_PENALTIES[owed], "penalty card")
        return f" without saying {_ANNOUNCEMENTS[owed]} ({penalty})"
    return ""


def _said(announced: int, owed: int) -> str:
    """What an event's announcement was: `` and says Mau`` / `` but does not say Mau``."""
    if announced in _ANNOUNCEMENTS:
        return f" and says {_ANNOUNCEMENTS[announced]}"
    if owed in _ANNOUNCEMENTS:
        return f" but does not say {_ANNOUNCEMENTS[owed]}"
    return ""


# --- commands ------------------------------------------------------------------------------


def describe_command(command: referee_pb2.Command, view: referee_pb2.View | None = None) -> str:
    """A legal command in words, e.g. ``play red skull and say Mau``, ``wish purple``."""
    if command.WhichOneof("game") != "mau_mau_vampires":
        return text_format.MessageToString(command, as_one_line=True)
    c = command.mau_mau_vampires
    kind = c.WhichOneof("kind")
    game = _game(view)
    me = viewer(view) if view is not None else None
    symbols = _symbols(view)
    size = _size(game, me)
    auto = _auto(game)
    players = view.players if view is not None else 0

    def held(colour: int) -> str:
        if game is None or me is None:
            return ""
        count = sum(1 for x in game.hand if x.kind == MM.CARD_KIND_MAU_MAU and x.colour == colour)
        return f" (you hold {count})"

    def left_after(count: int = 1) -> int | None:
        return None if size is None else size - count

    if kind == "draw_card":
        return "draw a card"
    if kind == "end_turn":
        drawn = game.drawn[0] if game is not None and game.drawn else None
        return f"keep {a_card(drawn, symbols)} and end your turn" if drawn else "end your turn"
    if kind == "play_card":
        return _describe_play(c.play_card, game, me, size, symbols, auto, players)
    if kind == "wish":
        colour = c.wish.colour
        if game is not None and game.phase == MMView.PHASE_ABILITY:
            return f"wish {colour_name(colour)} and play again{held(colour)}"
        return f"wish {colour_name(colour)}{held(colour)}"
    if kind == "no_wish":
        return "do not wish a colour"
    if kind == "use_ability":
        return "use " + _ability_use(game, me, players)
    if kind == "decline_ability":
        ability = game.ability if game is not None else 0
        what = ABILITIES.get(ability)
        return f"do not use the ability ({what})" if what else "do not use the ability"
    if kind == "give_card":
        g = c.give_card
        left = left_after()
        text = f"give {a_card(g.card, symbols)} to {seat_name(g.to_seat, me)}"
        text += _say(g.announce, None if left is None else owed_for(left), auto)
        if game is not None and game.ability == MM.ABILITY_GIVE_LEFT:
            text += " (they may then wish a colour)"
        return text
    if kind == "call_colour":
        called = colour_name(c.call_colour.colour)
        return f"call {called}: every opponent shows you a {called} card or draws 2"
    if kind == "show_card":
        caller = game.turn if game is not None and game.HasField("turn") else None
        to = f" to {seat_name(caller, me)}" if caller is not None else ""
        return f"show {a_card(c.show_card.card, symbols)}{to}"
    if kind == "swap_characters":
        other = c.swap_characters.seat
        mine = character_name(game, me) if me is not None else "your character"
        return (
            f"swap characters with {seat_name(other, me)} (your {mine} for "
            f"{character_name(game, other)}) and play again"
        )
    if kind == "share_drawn":
        return _describe_share(c.share_drawn, game, me, size, symbols, auto)
    if kind == "set_aside":
        s = c.set_aside
        left = left_after()
        text = f"set {a_card(s.card, symbols)} aside into the pot (with 1 card from the deck)"
        return text + _say(s.announce, None if left is None else owed_for(left), auto)
    return text_format.MessageToString(command, as_one_line=True)


def _describe_play(
    play: MMCommand.PlayCard,
    game: MMView | None,
    me: int | None,
    size: int | None,
    symbols: Sequence[str],
    auto: bool,
    players: int,
) -> str:
    c = play.card
    left = None if size is None else size - 1
    if c.kind == MM.CARD_KIND_MAU_MAU:
        text = f"play {card(c, symbols)}"
        text += _say(play.announce, None if left is None else owed_for(left), auto)
        found = triggered(game, me, c) if me is not None else []
        if found:
            text += " [triggers " + "; ".join(ABILITIES[a] for a in found) + "]"
        return text
    owed = None if left is None else (owed_for(left) if left > 0 else 0)
    notes: list[str] = []
    if c.kind == MM.CARD_KIND_CLOCK:
        text = "play a Clock"
        if game is not None:
            needed = len(game.playing) or players
            if game.clocks + 1 >= needed > 0:
                side = "day" if game.night else "night"
                notes.append(f"it turns {side}: every character turns, you may wish")
            else:
                notes.append(f"clock {game.clocks + 1} of {needed}")
    elif c.kind == MM.CARD_KIND_WEREWOLF:
        text = "play a Werewolf"
        if play.HasField("werewolf_seat"):
            text += f" on {char_ref(game, play.werewolf_seat, me)}"
        if game is not None and game.HasField("werewolf_seat"):
            old = char_ref(game, game.werewolf_seat, me)
            notes.append(f"replaces the werewolf on {old}, you may wish")
    else:
        return f"play {a_card(c, symbols)}"
    if game is not None and game.pot_size:
        notes.append(f"you take the {plural(game.pot_size, 'pot card')}")
    if left == 0:
        notes.append("your last card: 2 penalty cards")
    text += _say(play.announce, owed, auto)
    return text + (f" ({'; '.join(notes)})" if notes else "")


def _ability_use(game: MMView | None, me: int | None, players: int) -> str:
    """``use`` + what the ability without choices does, with whom it hits."""
    if game is None or me is None:
        return "the ability"
    owner = character_name(game, me)
    ability = game.ability
    if ability == MM.ABILITY_VAMPIRE_BITE:
        left = left_neighbour(game, me, players)
        return f"{owner}'s bite: {seat_name(left, me)} (your left neighbour) draws 2"
    if ability == MM.ABILITY_OPPONENTS_DRAW_ONE:
        return f"{owner}'s ability: every opponent draws 1"
    if ability == MM.ABILITY_FEWEST_DRAW_TWO:
        opponents = [s for s in (game.playing or range(players)) if s != me]
        sizes = {s: int(game.hand_sizes[s]) for s in opponents if s < len(game.hand_sizes)}
        if sizes:
            fewest = min(sizes.values())
            tied = [s for s, n in sizes.items() if n == fewest]
            if len(tied) == 1:
                who = f"{seat_name(tied[0], me)} ({plural(fewest, 'card')}) draws 2"
            else:
                who = f"{join_names([seat_name(s, me) for s in tied])} draw 1 each"
            return f"{owner}'s ability: {who}"
        return f"{owner}'s ability: the opponent with the fewest cards draws 2"
    if ability == MM.ABILITY_DRAW_TWO_AND_SHARE:
        return f"{owner}'s ability: draw 2 cards, then give them away or keep them"
    return f"{owner}'s ability"


def _describe_share(
    share: MMCommand.ShareDrawn,
    game: MMView | None,
    me: int | None,
    size: int | None,
    symbols: Sequence[str],
    auto: bool,
) -> str:
    cards = list(game.to_share) if game is not None else []
    parts = []
    for index, to in enumerate(share.to_seats):
        what = a_card(cards[index], symbols) if index < len(cards) else "a card"
        parts.append(f"keep {what}" if to == me else f"give {what} to {seat_name(to, me)}")
    kept = sum(1 for to in share.to_seats if to == me)
    owed: int | None = None
    if size is not None:
        owed = owed_for(size + kept) if kept < len(share.to_seats) else 0
    return ", ".join(parts) + _say(share.announce, owed, auto)


# --- events --------------------------------------------------------------------------------


def describe_event(
    event: referee_pb2.Event, view: referee_pb2.View | None = None, me: int | None = None
) -> str | None:
    """One line for an event (``view`` is the view right after it, for names), or None for an
    event not worth a line (another seat's deal, the shuffle of a new hand, a normal turn's
    start)."""
    if event.WhichOneof("game") != "mau_mau_vampires":
        return text_format.MessageToString(event, as_one_line=True)
    e = event.mau_mau_vampires
    kind = e.WhichOneof("kind")
    game = _game(view)
    symbols = _symbols(view)

    def who(seat: int) -> str:
        return seat_name(seat, me)

    def cards_of(cards: Sequence[MM.Card]) -> str:
        return list_cards(cards, symbols)

    if kind == "hand_started":
        hs = e.hand_started
        of = f" of {game.hands}" if game is not None and game.hands and not hs.tiebreak else ""
        title = f"hand {hs.hand_number}{of}"
        if hs.tiebreak:
            title = f"tie-break hand {hs.tiebreak} (hand {hs.hand_number})"
        chars = ", ".join(
            f"{who(s)} {name_of_id(game, hs.characters[s])}"
            for s in hs.playing
            if s < len(hs.characters)
        )
        return (
            f"--- {title}: {who(hs.dealer)} deals {hs.hand_size} cards each, day side up; "
            f"characters: {chars}"
        )
    if kind == "deck_shuffled":
        ds = e.deck_shuffled
        if ds.reason == MMEvent.SHUFFLE_REASON_SPECIALS_RETURNED:
            return f"the turned special cards are shuffled back into the deck ({ds.count} cards)"
        if ds.reason == MMEvent.SHUFFLE_REASON_PILE_RESHUFFLED:
            return (
                f"the deck ran out: the discard pile is shuffled into a new deck ({ds.count} cards)"
            )
        return None
    if kind == "cards_dealt":
        cd = e.cards_dealt
        if cd.seat == me and cd.cards:
            return f"you are dealt: {format_hand(list(cd.cards), symbols)}"
        return None
    if kind == "starting_card_turned":
        c = e.starting_card_turned.card
        if c.kind == MM.CARD_KIND_MAU_MAU:
            return f"the discard pile starts with {card(c, symbols)}"
        return f"{a_card(c, symbols)} is turned and set aside (it goes back into the deck)"
    if kind == "turn_started":
        ts = e.turn_started
        return f"{who(ts.seat)} takes another turn" if ts.extra else None
    if kind == "cards_drawn":
        dr = e.cards_drawn
        why = _DRAW_REASONS.get(dr.reason, "")
        if dr.count == 0:
            return f"{who(dr.seat)} has nothing to draw (deck and pile are empty)"
        drawn = cards_of(list(dr.cards)) if dr.cards else plural(dr.count, "card")
        return f"{who(dr.seat)} draws {drawn}{why}"
    if kind == "card_played":
        return _describe_played(e.card_played, game, me, symbols)
    if kind == "day_night_turned":
        dn = e.day_night_turned
        if dn.night:
            head = "night falls: the characters turn vampire"
        else:
            head = "day breaks: the characters turn human"

        wolf = ""
        if dn.werewolf_character:
            wolf = f" and the werewolf on {name_of_id(game, dn.werewolf_character)}"
        return f"--- {head}; {plural(dn.clocks, 'clock')}{wolf} discarded"
    if kind == "wish_offered":
        wo = e.wish_offered
        why = _WISH_REASONS.get(wo.reason, "")
        return f"{who(wo.seat)} may wish a colour" + (f" ({why})" if why else "")
    if kind == "wished":
        w = e.wished
        if w.colour == MM.COLOUR_UNSPECIFIED:
            return f"{who(w.seat)} wishes no colour"
        return f"{who(w.seat)} wishes {colour_name(w.colour)}"
    if kind == "ability_triggered":
        at = e.ability_triggered
        name = name_of_id(game, at.character) if at.character else character_name(game, at.seat)
        what = ABILITIES.get(at.ability, "an ability")
        return f"{who(at.seat)} may use {name}'s ability: {what}"
    if kind == "ability_declined":
        ad = e.ability_declined
        return f"{who(ad.seat)} does not use {ABILITY_NAMES.get(ad.ability, 'the ability')}"
    if kind == "ability_used":
        au = e.ability_used
        return f"{who(au.seat)} uses {ABILITY_NAMES.get(au.ability, 'the ability')}"
    if kind == "card_given":
        cg = e.card_given
        what = a_card(cg.card, symbols)
        how = " (vampire gift)" if cg.ability == MM.ABILITY_VAMPIRE_GIFT else ""
        return f"{who(cg.from_seat)} gives {what} to {who(cg.to_seat)}{how}" + _said(
            cg.announced, cg.owed
        )
    if kind == "colour_called":
        cc = e.colour_called
        colour = colour_name(cc.colour)
        text = f"{who(cc.seat)} calls {colour}"
        if cc.answering:
            names = join_names([who(s) for s in cc.answering])
            text += f": {names} must show a {colour} card"
        else:
            text += f": nobody holds {colour}"
        return text
    if kind == "card_shown":
        cs = e.card_shown
        return f"{who(cs.seat)} shows {who(cs.to_seat)} {a_card(cs.card, symbols)}"
    if kind == "characters_swapped":
        sw = e.characters_swapped
        return (
            f"{who(sw.seat)} swaps characters with {who(sw.other)}: {who(sw.seat)} is now "
            f"{name_of_id(game, sw.seat_character)}, {who(sw.other)} "
            f"{name_of_id(game, sw.other_character)}"
        )
    if kind == "drawn_shared":
        ds2 = e.drawn_shared
        return f"{who(ds2.seat)} {_shared(ds2, symbols, who)}" + _said(ds2.announced, ds2.owed)
    if kind == "card_set_aside":
        sa = e.card_set_aside
        deck = f" and {plural(sa.deck_count, 'card')} from the deck" if sa.deck_count else ""
        return (
            f"{who(sa.seat)} sets {a_card(sa.card, symbols)}{deck} aside into the pot "
            f"({plural(sa.pot_size, 'card')})" + _said(sa.announced, sa.owed)
        )
    if kind == "pot_taken":
        pt = e.pot_taken
        taken = f": {cards_of(list(pt.cards))}" if pt.cards else ""
        return f"{who(pt.seat)} takes the pot into hand ({plural(pt.count, 'card')}){taken}"
    if kind == "hand_ended":
        return _describe_hand_ended(e.hand_ended, me)
    if kind == "game_ended":
        ge = e.game_ended
        winners = [s for s, r in enumerate(ge.ranks) if r == 1]
        names = join_names([who(s) for s in winners])
        best = ge.scores[winners[0]] if winners and winners[0] < len(ge.scores) else 0
        verb = "wins" if len(winners) == 1 else "share the win"
        scores = ", ".join(f"{who(s)} {p}" for s, p in enumerate(ge.scores))
        return f"--- game over: {names} {verb} with {plural(best, 'point')} ({scores})"
    return text_format.MessageToString(event, as_one_line=True)


def _describe_played(
    cp: MMEvent.CardPlayed, game: MMView | None, me: int | None, symbols: Sequence[str]
) -> str:
    who = seat_name(cp.seat, me)
    c = cp.card
    said = _said(cp.announced, cp.owed)
    if c.kind == MM.CARD_KIND_WEREWOLF:
        text = f"{who} plays a Werewolf"
        if cp.HasField("werewolf_seat"):
            target = cp.werewolf_seat
            text += f" on {char_ref(game, target, me)}"
        if cp.replaced:
            text += f" (replacing the werewolf on {name_of_id(game, cp.replaced)})"
        return text + said
    if c.kind == MM.CARD_KIND_CLOCK:
        text = f"{who} plays a Clock"
        if game is not None:
            needed = len(game.playing)
            text += f" ({game.clocks} of {needed})" if game.clocks else ""
        return text + said
    return f"{who} plays {card(c, symbols)}{said}"


def _shared(ds: MMEvent.DrawnShared, symbols: Sequence[str], who: Callable[[int], str]) -> str:
    """``gives red skull to seat 2, keeps a card``; ``keeps both cards``."""
    kept = [c for c, to in zip(ds.cards, ds.to_seats, strict=False) if to == ds.seat]
    if len(kept) == len(ds.to_seats) and not any(c.kind for c in kept):
        return "keeps " + ("both cards" if len(kept) == 2 else plural(len(kept), "card"))
    parts = []
    for index, to in enumerate(ds.to_seats):
        c = ds.cards[index] if index < len(ds.cards) else Card()
        what = a_card(c, symbols)
        parts.append(f"keeps {what}" if to == ds.seat else f"gives {what} to {who(to)}")
    return ", ".join(parts)


def _describe_hand_ended(he: MMEvent.HandEnded, me: int | None) -> str:
    which = f"tie-break hand {he.tiebreak}" if he.tiebreak else f"hand {he.hand_number}"
    if he.HasField("ender"):
        why = f"{seat_name(he.ender, me)} is out of cards (+2)"
    else:
        why = "blocked: nothing to draw and nobody played"
    points = ", ".join(f"{seat_name(s, me)} {p}" for s, p in enumerate(he.scores))
    text = f"--- {which} ends: {why}; points: {points}"
    if he.tiebreak:
        text += "; tie-break points by seat: " + ", ".join(str(t) for t in he.tiebreak_points)
    else:
        text += "; totals by seat: " + ", ".join(str(t) for t in he.totals)
    return text


# --- views ---------------------------------------------------------------------------------


def _pending_text(view: referee_pb2.View, game: MMView, me: int | None) -> str:
    symbols = list(game.symbols)
    if view.game_over or game.phase == MMView.PHASE_GAME_OVER:
        return "Game over."
    turn = game.turn if game.HasField("turn") else None
    if turn is None:
        return ""
    you = turn == me
    name = "You" if you else seat_name(turn, me)
    phase = game.phase
    if phase == MMView.PHASE_TURN:
        extra = " (another turn)" if game.extra_turn else ""
        if you:
            return f"Your turn{extra}: play a card or draw one."
        return f"Turn: {seat_name(turn, me)}{extra} plays a card or draws one."
    if phase == MMView.PHASE_PLAY_DRAWN:
        if you and game.drawn:
            return f"You drew {a_card(game.drawn[0], symbols)}: play it or keep it."
        return f"{name} drew a card: play it or keep it."
    if phase == MMView.PHASE_ABILITY:
        owner = character_name(game, turn)
        what = ABILITIES.get(game.ability, "an ability")
        return f"{name} may use {owner}'s ability: {what}."
    if phase == MMView.PHASE_WISH:
        wisher = game.wisher if game.HasField("wisher") else turn
        if wisher == me:
            return "You may wish a colour."
        return f"{seat_name(wisher, me)} may wish a colour."

    if phase == MMView.PHASE_ANSWER_CALL:
        colour = colour_name(game.called_colour)
        names = join_names(["you" if s == me else seat_name(s, me) for s in game.answering])
        return f"{name} called {colour}: {names} must show a {colour} card."
    if phase == MMView.PHASE_SHARE_DRAWN:
        if you and game.to_share:
            return f"You drew {list_cards(list(game.to_share), symbols)}: give them away or keep."
        count = plural(game.to_share_count, "drawn card")
        return f"{name} hands out {count} (ability g)."
    return f"Waiting for {seat_name(turn, me)}."


def _table_line(view: referee_pb2.View, game: MMView, me: int | None) -> str:
    symbols = list(game.symbols)
    side = "Night (vampires)" if game.night else "Day (humans)"
    needed = len(game.playing) or view.players
    parts = [side, f"clocks {game.clocks}/{needed}"]
    if game.HasField("werewolf_seat"):
        seat = game.werewolf_seat
        parts.append(f"werewolf on {char_ref(game, seat, me)}")
    else:
        parts.append("no werewolf")
    pot = f"pot {plural(game.pot_size, 'card')}"
    if game.pot_yours:
        pot += f" (yours: {list_cards(list(game.pot_yours), symbols)})"
    parts.append(pot)
    return " | ".join(parts)


#: What the letters and words of the character lines mean (the field trial asked).
ABILITY_LEGEND = (
    "  (a)-(h): the human abilities, by their letter in the rules (MM-22); bite and",
    "  gift: what every vampire does (MM-19). See: referee-cli rules mau-mau-vampires",
)


def _seat_lines(view: referee_pb2.View, game: MMView, me: int | None) -> list[str]:
    symbols = list(game.symbols)
    lines = ["  seat            cards  total  character"]
    playing = set(game.playing)
    turn = game.turn if game.HasField("turn") and not view.game_over else None
    for seat in range(view.players):
        size = game.hand_sizes[seat] if seat < len(game.hand_sizes) else 0
        total = game.totals[seat] if seat < len(game.totals) else 0
        mark = ">" if seat == turn else " "
        c = character_of(game, seat)
        if c is None:
            who = "-"
        else:
            side = "vampire" if game.night else "human"
            wolf = " [WEREWOLF: no abilities]" if c.werewolf else ""
            who = f"{c.name or c.id} ({side}){wolf}"
        out = "" if not playing or seat in playing else "  (not in this hand)"
        lines.append(f"{mark} {seat_name(seat, me):<15} {size:>5}  {total:>5}  {who}{out}")
        if c is not None:
            day, night = day_triggers(c, symbols), night_triggers(c, symbols)
            now = " (now)"
            lines.append(f"      day{'' if game.night else now}: {day}")
            lines.append(f"      night{now if game.night else ''}: {night}")
    return lines


def _score_lines(view: referee_pb2.View, game: MMView, me: int | None) -> list[str]:
    if not game.hand_scores:
        return []
    seats = range(view.players)
    width = max(8, *(len(seat_name(s, me)) + 1 for s in seats))
    lines = ["Scores:" + " " * 13 + "".join(f"{seat_name(s, me):>{width}}" for s in seats)]
    for hs in game.hand_scores:
        label = f"hand {hs.hand_number}" + (f" (tie-break {hs.tiebreak})" if hs.tiebreak else "")
        row = "".join(f"{(hs.scores[s] if s < len(hs.scores) else 0):>{width}}" for s in seats)
        if hs.HasField("ender"):
            note = f"  {seat_name(hs.ender, me)} went out"
        else:
            note = "  blocked" if hs.blocked else ""
        lines.append(f"  {label:<18}{row}{note}")
    lines.append(f"  {'total':<18}" + "".join(f"{t:>{width}}" for t in game.totals))
    if any(game.tiebreak_points):
        lines.append(
            f"  {'tie-break points':<18}" + "".join(f"{t:>{width}}" for t in game.tiebreak_points)
        )
    return lines


def render_view(view: referee_pb2.View) -> str:
    """The whole screen: whose decision and what about, the table (day/night, clocks,
    werewolf, pot), the top card and the wish, every seat's cards, total and character with
    its abilities, your hand, and the scores of the finished hands."""
    me = viewer(view)
    if not view.HasField("mau_mau_vampires"):
        return text_format.MessageToString(view)
    game = view.mau_mau_vampires
    symbols = list(game.symbols)
    who = "spectator" if me is None else f"you are seat {me}"
    which = f"hand {game.hand_number}/{game.hands}"
    if game.tiebreak:
        which = f"tie-break hand {game.tiebreak} (hand {game.hand_number})"
    lines = [f"== {NAME} | game {view.game_id} | {which} | {who} =="]
    pending = _pending_text(view, game, me)
    if pending:
        lines.append(pending)
    lines.append(_table_line(view, game, me))
    wish = colour_name(game.wish) if game.wish else "none"
    top = card(game.top, symbols) if game.top.kind else "-"
    lines.append(
        f"Top card: {top}   Wish: {wish}   Deck: {plural(game.deck_size, 'card')}   "
        f"Pile: {plural(game.pile_size, 'card')}"
    )
    if game.called_colour and not view.game_over:
        waiting = join_names([seat_name(s, me) for s in game.answering])
        called = f"Called colour: {colour_name(game.called_colour)}"
        lines.append(called + (f" (to show: {waiting})" if waiting else ""))
    for shown in game.shown_to_you:
        lines.append(f"  {seat_name(shown.seat, me)} showed you {a_card(shown.card, symbols)}")
    lines.extend(_seat_lines(view, game, me))
    lines.extend(ABILITY_LEGEND)
    if me is not None:
        lines.append(f"Your hand ({len(game.hand)}): {format_hand(list(game.hand), symbols)}")
    lines.extend(_score_lines(view, game, me))
    if me is not None and game.last_hand and not view.game_over and game.hand_number > 1:
        last = format_hand(list(game.last_hand), symbols)
        lines.append(f"Your cards at the end of the last hand: {last}")
    options = f"Options: announcements {game.announcements or 'required'}"
    options += f", characters {game.characters_option or 'keep'}"
    if game.first_game:
        options += ", first game"
    lines.append(options)
    if view.game_over and view.results:
        winners = [r.seat for r in view.results if r.rank == 1]
        names = join_names([seat_name(s, me) for s in winners])
        lines.append(f"Winner{'s' if len(winners) > 1 else ''}: {names}")
    return "\n".join(lines)


def redraw_for_spectator(event: referee_pb2.Event, view: referee_pb2.View) -> bool:
    """A spectator sees the table when a new hand begins (after the last one's scores)."""
    e = event.mau_mau_vampires
    return e.WhichOneof("kind") == "hand_started" and e.hand_started.hand_number > 1


TEXT = GameText(
    name=NAME,
    field="mau_mau_vampires",
    render_view=render_view,
    describe_event=describe_event,
    describe_command=describe_command,
    redraw_for_spectator=redraw_for_spectator,
)
