"""Dracula vs Van Helsing as text: views, events and commands (pure functions, no I/O).

Card notation: the colour's initial and the value, ``Y5`` (yellow), ``B7`` (blue), ``R2``
(red), ``P8`` (purple); ``??`` a card you may not see. In a rack, ``*`` marks a card face up
for both players and ``+`` one the other player knows without it being face up (a 6 moved it).

>>> card(Card(colour=DV.COLOUR_BLUE, value=7)), card(Card())
('B7', '??')
>>> describe_track([DV.COLOUR_RED, DV.COLOUR_PURPLE, DV.COLOUR_YELLOW, DV.COLOUR_BLUE])
'Red (trump) > Purple > Yellow > Blue'
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf import text_format

from referee.v1 import dracula_vs_van_helsing_pb2, referee_pb2
from referee_cli.render_common import GameText, join_names, plural, seat_name, viewer

DV = dracula_vs_van_helsing_pb2.DraculaVsVanHelsing
DVView = dracula_vs_van_helsing_pb2.DraculaVsVanHelsingView
DVCommand = dracula_vs_van_helsing_pb2.DraculaVsVanHelsingCommand
Card = DV.Card
Resolved = dracula_vs_van_helsing_pb2.DraculaVsVanHelsingEvent.DistrictResolved

NAME = "Dracula vs Van Helsing"
DISTRICTS = 5
COLOUR_NAMES: dict[int, str] = {
    DV.COLOUR_YELLOW: "Yellow",
    DV.COLOUR_BLUE: "Blue",
    DV.COLOUR_RED: "Red",
    DV.COLOUR_PURPLE: "Purple",
}
ROLE_NAMES: dict[int, str] = {DV.ROLE_DRACULA: "Dracula", DV.ROLE_VAN_HELSING: "Van Helsing"}

#: What a discarded card does, from the point of view of the player who discards it.
EFFECTS = {
    1: "reveal one of your cards",
    2: "reveal the deck's top card",
    3: "reveal one of the opponent's cards",
    4: "swap two of your cards",
    5: "take another turn",
    6: "exchange the cards of a district",
    7: "choose the new trump",
    8: "end the round",
}
#: The choices an effect asks for, said of the other player.
_THEIR_EFFECTS = {
    1: "reveal one of their own cards",
    3: "reveal one of their opponent's cards",
    4: "swap two of their cards",
    6: "exchange the cards of a district",
    7: "choose the new trump",
}
_EFFECT_OF_STEP = {
    DVView.STEP_REVEAL_OWN: 1,
    DVView.STEP_REVEAL_OPPONENT: 3,
    DVView.STEP_SWAP_SLOTS: 4,
    DVView.STEP_EXCHANGE_DISTRICT: 6,
    DVView.STEP_CHOOSE_TRUMP: 7,
}
_ROUND_ENDS: dict[int, str] = {
    DV.ROUND_END_CALL: "the end was called",
    DV.ROUND_END_EIGHT: "an 8 was discarded",
    DV.ROUND_END_DECK_EMPTY: "the deck ran out",
}
_COMPARISONS: dict[int, str] = {
    DV.COMPARISON_TRUMP: "trump",
    DV.COMPARISON_VALUE: "higher value",
    DV.COMPARISON_LADDER: "same value, higher colour",
}


# --- cards ---------------------------------------------------------------------------------


def card(c: DV.Card) -> str:
    """``B7``; ``??`` for a hidden card."""
    if not c.value:
        return "??"
    return f"{COLOUR_NAMES.get(c.colour, '?')[0]}{c.value}"


def colour_name(colour: int) -> str:
    return COLOUR_NAMES.get(colour, "?")


def describe_track(track: Sequence[int]) -> str:
    """The colour track, trump first, then the ladder from strongest to weakest."""
    if not track:
        return "?"
    return " > ".join([f"{colour_name(track[0])} (trump)", *(colour_name(c) for c in track[1:])])


def new_track(track: Sequence[int], colour: int) -> list[int]:
    """The track after ``colour`` becomes trump: the old trump takes its ladder place (DV-16).

    >>> new_track([1, 2, 3, 4], 3)
    [3, 2, 1, 4]
    """
    result = list(track)
    if colour in result and result:
        index = result.index(colour)
        result[0], result[index] = result[index], result[0]
    return result


def _game(view: referee_pb2.View | None) -> DVView | None:
    if view is not None and view.HasField("dracula_vs_van_helsing"):
        return view.dracula_vs_van_helsing
    return None


def player(seat: int, view: referee_pb2.View | None, me: int | None = None) -> str:
    """``Dracula (seat 1)``, ``Van Helsing (you)``; ``seat 1`` when the roles are unknown."""
    game = _game(view)
    if game is None or (game.dracula == game.van_helsing):
        return seat_name(seat, me)
    role = "Dracula" if seat == game.dracula else "Van Helsing"
    return f"{role} ({'you' if seat == me else f'seat {seat}'})"


def _role_seat(game: DVView, role: int) -> int:
    return game.dracula if role == DV.ROLE_DRACULA else game.van_helsing


def _rack(game: DVView, seat: int) -> DVView.Rack | None:
    return next((r for r in game.racks if r.seat == seat), None)


def _slot(game: DVView, seat: int, district: int) -> DVView.Slot | None:
    rack = _rack(game, seat)
    if rack is None:
        return None
    return next((s for s in rack.slots if s.district == district), None)


# --- commands ------------------------------------------------------------------------------


def describe_command(command: referee_pb2.Command, view: referee_pb2.View | None = None) -> str:
    """A legal command in words, e.g. ``place it in district 3 (discarding R2: reveal one of
    your cards)``."""
    if command.WhichOneof("game") != "dracula_vs_van_helsing":
        return text_format.MessageToString(command, as_one_line=True)
    c = command.dracula_vs_van_helsing
    kind = c.WhichOneof("kind")
    game = _game(view)
    me = viewer(view) if view is not None else None
    opponent = None if me is None else 1 - me

    def slot_card(seat: int | None, district: int) -> DV.Card:
        slot = None if game is None or seat is None else _slot(game, seat, district)
        return slot.card if slot is not None else Card()

    def discarding(discarded: DV.Card) -> str:
        if not discarded.value:
            return ""
        return f"{card(discarded)}: {EFFECTS.get(discarded.value, '?')}"

    if kind == "draw":
        return "draw a card"
    if kind == "call_end":
        return "call the end of the round (the opponent takes one last turn)"
    if kind == "discard_drawn":
        drawn = discarding(game.drawn) if game is not None else ""
        return "discard the drawn card" + (f" ({drawn})" if drawn else "")
    if kind == "place_drawn":
        d = c.place_drawn.district
        old = discarding(slot_card(me, d))
        return f"place it in district {d}" + (f" (discarding {old})" if old else "")
    if kind == "reveal_own":
        d = c.reveal_own.district
        mine = slot_card(me, d)
        return f"reveal your card in district {d}" + (f" ({card(mine)})" if mine.value else "")
    if kind == "reveal_opponent":
        return f"reveal the opponent's card in district {c.reveal_opponent.district}"
    if kind == "swap_slots":
        a, b = c.swap_slots.first, c.swap_slots.second
        text = f"swap your cards in districts {a} and {b}"
        if slot_card(me, a).value and slot_card(me, b).value:
            text += f" ({card(slot_card(me, a))} <-> {card(slot_card(me, b))})"
        return text
    if kind == "exchange_district":
        d = c.exchange_district.district
        text = f"exchange the cards of district {d}"
        if slot_card(me, d).value:
            text += f" (give {card(slot_card(me, d))}, take {card(slot_card(opponent, d))})"
        return text
    if kind == "choose_trump":
        colour = c.choose_trump.colour
        text = f"make {colour_name(colour)} trump"
        if game is not None and game.track:
            text += f" ({describe_track(new_track(list(game.track), colour))})"
        return text
    return text_format.MessageToString(command, as_one_line=True)


# --- events --------------------------------------------------------------------------------


def _cards(cards: Sequence[DV.Card]) -> str:
    return " ".join(card(c) for c in cards)


def describe_resolution(r: Resolved) -> str:
    """One district's outcome: ``district 2: Van Helsing's R2 beats B2 (trump): Dracula loses
    1 HP (11 left)``."""
    if r.winner == DV.ROLE_DRACULA:
        won, lost = r.dracula_card, r.van_helsing_card
        left = f"{plural(r.humans, 'human')}, {plural(r.vampires, 'vampire')}"
        result = f"a human becomes a vampire ({left})"
    else:
        won, lost = r.van_helsing_card, r.dracula_card
        result = f"Dracula loses 1 HP ({r.hp} left)"
    why = _COMPARISONS.get(r.comparison, "?")
    who = ROLE_NAMES.get(r.winner, "?")
    return f"district {r.district}: {who}'s {card(won)} beats {card(lost)} ({why}): {result}"


def describe_event(
    event: referee_pb2.Event, view: referee_pb2.View | None = None, me: int | None = None
) -> str | None:
    """One line for an event (``view`` is the view right after it, for the roles), or None
    for an event not worth a line (the opponent's hidden deal, a normal turn's start)."""
    if event.WhichOneof("game") != "dracula_vs_van_helsing":
        return text_format.MessageToString(event, as_one_line=True)
    e = event.dracula_vs_van_helsing
    kind = e.WhichOneof("kind")
    game = _game(view)

    def who(seat: int) -> str:
        return player(seat, view, me)

    def whose(seat: int) -> str:
        return "your" if seat == me else f"{who(seat)}'s"

    if kind == "game_started":
        gs = e.game_started
        picked = ", drawn at random" if gs.dracula_picked else ""
        order = list(gs.resolution_order)
        resolved = (
            ""
            if order in ([], [1, 2, 3, 4, 5])
            else ("; districts resolved " + " > ".join(str(d) for d in order))
        )
        return (
            f"--- Dracula: {seat_name(gs.dracula, me)}{picked}; Van Helsing: "
            f"{seat_name(gs.van_helsing, me)}; track {describe_track(list(gs.track))}{resolved}"
        )
    if kind == "round_started":
        rs = e.round_started
        of = f" of {game.rounds}" if game is not None and game.rounds else ""
        return f"--- round {rs.round}{of}: 5 cards each, {rs.deck_size} in the deck"
    if kind == "slots_dealt":
        sd = e.slots_dealt
        if sd.seat == me and sd.cards:
            return f"you are dealt (districts 1-5): {_cards(sd.cards)}"
        return None
    if kind == "turn_started":
        ts = e.turn_started
        if ts.kind == DV.TURN_KIND_EXTRA:
            return f"{who(ts.seat)} takes another turn (a 5)"
        if ts.kind == DV.TURN_KIND_LAST:
            return f"{who(ts.seat)} takes the last turn of the round"
        return None
    if kind == "end_called":
        return f"{who(e.end_called.seat)} calls the end of the round"
    if kind == "card_drawn":
        cd = e.card_drawn
        left = f"({cd.deck_size} left)"
        if cd.card.value:
            face = "the face-up " if cd.revealed else ""
            return f"{who(cd.seat)} draws {face}{card(cd.card)} {left}"
        return f"{who(cd.seat)} draws a card {left}"
    if kind == "drawn_card_discarded":
        dcd = e.drawn_card_discarded
        return f"{who(dcd.seat)} discards the drawn card: {card(dcd.card)}"
    if kind == "drawn_card_placed":
        dcp = e.drawn_card_placed
        placed = (
            f"{'the face-up ' if dcp.revealed else ''}{card(dcp.card)}" if dcp.card.value else "it"
        )
        return (
            f"{who(dcp.seat)} places {placed} in district {dcp.district} "
            f"and discards {card(dcp.discarded)}"
        )
    if kind == "card_revealed":
        cr = e.card_revealed
        owner = "own" if cr.owner == cr.seat else whose(cr.owner)
        return f"{who(cr.seat)} reveals {owner} card in district {cr.district}: {card(cr.card)}"
    if kind == "deck_top_revealed":
        dtr = e.deck_top_revealed
        return f"{who(dtr.seat)} reveals the deck's top card: {card(dtr.card)}"
    if kind == "slots_swapped":
        ss = e.slots_swapped
        return f"{who(ss.seat)} swaps own cards of districts {ss.first} and {ss.second}"
    if kind == "district_exchanged":
        de = e.district_exchanged
        text = f"{who(de.seat)} exchanges the cards of district {de.district}"
        if de.given.value or de.taken.value:
            text += f": gives {card(de.given)}, takes {card(de.taken)}"
        return text
    if kind == "trump_changed":
        tc = e.trump_changed
        return (
            f"{who(tc.seat)} makes {colour_name(tc.colour)} trump: {describe_track(list(tc.track))}"
        )
    if kind == "effect_skipped":
        es = e.effect_skipped
        reason = f": {es.reason}" if es.reason else ""
        return f"the {es.effect}'s effect is skipped{reason}"
    if kind == "round_ended":
        ended = e.round_ended
        why = _ROUND_ENDS.get(ended.reason, "?")
        return (
            f"--- round {ended.round} ends ({why}): Dracula {_cards(ended.dracula_cards)} | "
            f"Van Helsing {_cards(ended.van_helsing_cards)}"
        )
    if kind == "district_resolved":
        return describe_resolution(e.district_resolved)
    if kind == "game_ended":
        ge = e.game_ended
        seat = "you" if ge.winner_seat == me else f"seat {ge.winner_seat}"
        winner = f"{ROLE_NAMES.get(ge.winner, '?')} ({seat})"
        if ge.reason == DV.GAME_END_VAMPIRES:
            why = f"all 4 humans of district {ge.district} are vampires"
        elif ge.reason == DV.GAME_END_NO_HP:
            why = "Dracula has no HP left"
        else:
            why = f"Dracula survived round {ge.round} with {ge.hp} HP"
        return f"--- game over: {winner} wins: {why}"
    return text_format.MessageToString(event, as_one_line=True)


# --- views ---------------------------------------------------------------------------------


def _mark(slot: DVView.Slot) -> str:
    if slot.revealed:
        return "*"
    if slot.known_to_opponent and slot.card.value:
        return "+"
    return ""


def _rack_cells(game: DVView, seat: int) -> list[str]:
    cells = []
    for district in range(1, DISTRICTS + 1):
        slot = _slot(game, seat, district)
        cells.append("" if slot is None else card(slot.card) + _mark(slot))
    return cells


def _row(label: str, cells: Sequence[str]) -> str:
    return f"{label:<20}" + "".join(f"{cell:>7}" for cell in cells)


def _step_text(game: DVView, own: bool) -> str:
    step = game.step
    if step == DVView.STEP_TURN:
        if game.turn_kind == DV.TURN_KIND_LAST:
            return "draw a card (last turn of the round)"
        can_call = len(game.discard_pile) >= 6 and not game.HasField("called_by")
        return "draw a card or call the end" if can_call else "draw a card"
    if step == DVView.STEP_PLACE:
        return "discard the drawn card or place it in a district"
    if step in _EFFECT_OF_STEP:
        effect = _EFFECT_OF_STEP[step]
        text = EFFECTS[effect] if own else _THEIR_EFFECTS[effect]
        return f"the discarded {effect}'s effect: {text}"
    return "?"


def _resolution_line(game: DVView, over: bool) -> list[str]:
    if not game.last_resolution:
        return []
    which = f"Round {game.round}" if over else "Last round"
    why = _ROUND_ENDS.get(game.last_round_end)
    head = f"{which}'s resolution" + (f" ({why})" if why else "") + ":"
    lines = [head]
    for r in game.last_resolution:
        lines.append(f"  {describe_resolution(r)}")
    return lines


def render_view(view: referee_pb2.View) -> str:
    """The whole screen: track and HP, both racks around the districts, discard pile, deck,
    the drawn card, whose turn and which step, the last round's resolution."""
    me = viewer(view)
    if not view.HasField("dracula_vs_van_helsing"):
        return text_format.MessageToString(view)
    game = view.dracula_vs_van_helsing
    role = ROLE_NAMES.get(game.role)
    who = "spectator" if me is None else f"you are seat {me}" + (f", {role}" if role else "")
    lines = [f"== {NAME} | game {view.game_id} | round {game.round}/{game.rounds} | {who} =="]

    if view.game_over:
        winner = ROLE_NAMES.get(game.winner)
        if winner:
            seat = _role_seat(game, game.winner)
            lines.append(f"Game over: {player(seat, view, me)} wins.")
        else:
            lines.append("Game over.")
    elif game.HasField("turn") and game.step not in (DVView.STEP_UNSPECIFIED, DVView.STEP_OVER):
        own = game.turn == me
        head = "Your turn" if own else f"{player(game.turn, view, me)} to play"
        if game.turn_kind == DV.TURN_KIND_EXTRA:
            head += " (another turn: a 5)"
        lines.append(f"{head}: {_step_text(game, own)}.")
    if game.HasField("called_by") and not view.game_over:
        lines.append(f"{player(game.called_by, view, me)} called the end of the round.")

    order = list(game.resolution_order)
    resolved = (
        ""
        if order in ([], [1, 2, 3, 4, 5])
        else ("   districts resolved " + " > ".join(str(d) for d in order))
    )
    lines.append(f"Track: {describe_track(list(game.track))}   Dracula: {game.hp} HP{resolved}")

    top, bottom = game.dracula, game.van_helsing
    if me is not None:
        top, bottom = 1 - me, me
    districts = {d.district: d for d in game.districts}
    lines.append(_row("", [f"d{d}" for d in range(1, DISTRICTS + 1)]))
    lines.append(_row(player(top, view, me), _rack_cells(game, top)))
    lines.append(
        _row(
            "humans/vampires",
            [
                f"{districts[d].humans}/{districts[d].vampires}" if d in districts else "?"
                for d in range(1, DISTRICTS + 1)
            ],
        )
    )
    lines.append(_row(player(bottom, view, me), _rack_cells(game, bottom)))
    lines.append("  (* face up for both; + known to the other player)")

    pile = list(game.discard_pile)
    pile_text = _cards(pile) if pile else "empty"
    lines.append(f"Discard pile ({len(pile)}): {pile_text}")
    deck = f"Deck: {plural(game.deck_size, 'card')}"
    if game.deck_top.value:
        deck += f", top card face up: {card(game.deck_top)}"
    lines.append(deck)
    if game.step == DVView.STEP_PLACE and game.drawn.value and not view.game_over:
        if game.HasField("turn") and game.turn == me:
            lines.append(f"You drew {card(game.drawn)}.")
        else:
            lines.append(f"The drawn card is face up: {card(game.drawn)}.")

    lines.extend(_resolution_line(game, view.game_over))
    if view.game_over and view.results:
        winners = [r.seat for r in view.results if r.rank == 1]
        names = join_names([player(s, view, me) for s in winners])
        lines.append(f"Winner: {names}")
    return "\n".join(lines)


def redraw_for_spectator(event: referee_pb2.Event, view: referee_pb2.View) -> bool:
    """A spectator sees the table when a new round begins (after the last one's resolution)."""
    e = event.dracula_vs_van_helsing
    return e.WhichOneof("kind") == "round_started" and e.round_started.round > 1


TEXT = GameText(
    name=NAME,
    field="dracula_vs_van_helsing",
    render_view=render_view,
    describe_event=describe_event,
    describe_command=describe_command,
    redraw_for_spectator=redraw_for_spectator,
)
