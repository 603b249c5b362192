"""Vampire Queen as text: views, events and commands (pure functions, no I/O).

Card notation: ``1``-``13`` number cards, ``Q`` a Vampire Queen, ``H15`` / ``H20`` the Hunters.

>>> format_hand([3, 3, 5, 8, 8, 14, 14, 15])
'3 3 5 8 8 Q Q [H15]'
>>> describe_set(8, 3, 1)
'three 8s (1 queen)'
"""

from __future__ import annotations

from google.protobuf import text_format

from referee.v1 import referee_pb2, vampire_queen_pb2
from referee_cli.render_common import GameText, render_results, seat_name

VQView = vampire_queen_pb2.VampireQueenView
QUEEN = 14
HUNTERS = (15, 20)
_NUMBERS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
)
NAME = "Vampire Queen"


# --- cards and sets ------------------------------------------------------------------------


def card(value: int) -> str:
    """``14`` -> ``Q``, ``20`` -> ``H20``, numbers as themselves."""
    if value == QUEEN:
        return "Q"
    if value in HUNTERS:
        return f"H{value}"
    return str(value)


def format_hand(hand: list[int]) -> str:
    """A hand sorted and grouped: numbers, then queens, then Hunters in brackets."""
    cards = sorted(v for v in hand if v not in HUNTERS)
    hunters = sorted(v for v in hand if v in HUNTERS)
    return " ".join([card(v) for v in cards] + [f"[{card(h)}]" for h in hunters]) or "(empty)"


def number_word(count: int) -> str:
    return _NUMBERS[count] if 0 <= count < len(_NUMBERS) else str(count)


def describe_set(value: int, count: int, queens: int) -> str:
    """``describe_set(8, 2, 0)`` -> ``two 8s``; ``(14, 2, 2)`` -> ``two queens``.

    >>> describe_set(14, 1, 1), describe_set(5, 1, 0), describe_set(13, 4, 2)
    ('one queen', 'one 5', 'four 13s (2 queens)')
    """
    if value == QUEEN:
        return f"{number_word(count)} queen{'s' if count != 1 else ''}"
    text = f"{number_word(count)} {value}{'s' if count != 1 else ''}"
    if queens:
        text += f" ({queens} queen{'s' if queens != 1 else ''})"
    return text


def describe_card(value: int) -> str:
    """One card in words: ``a 7``, ``an 8``, ``a queen``, ``the 20 Hunter``."""
    if value == QUEEN:
        return "a queen"
    if value in HUNTERS:
        return f"the {value} Hunter"
    return f"an {value}" if value in (8, 11) else f"a {value}"


# --- commands ------------------------------------------------------------------------------


def describe_command(command: referee_pb2.Command, view: referee_pb2.View | None = None) -> str:
    """A legal command in words, for a menu: ``play three 8s using 1 queen``, ``pass``."""
    if command.WhichOneof("game") != "vampire_queen":
        return text_format.MessageToString(command, as_one_line=True)
    vq = command.vampire_queen
    kind = vq.WhichOneof("kind")
    if kind == "play_set":
        s = vq.play_set
        text = f"play {describe_set(s.value, s.count, 0)}"
        if s.queens and s.value != QUEEN:
            text += f" using {s.queens} queen{'s' if s.queens != 1 else ''}"
        return text
    if kind == "lead_hunter":
        return f"lead the {vq.lead_hunter.hunter} Hunter"
    if kind == "pass":
        return "pass"
    if kind == "play_card":
        value = vq.play_card.value
        text = f"play {describe_card(value)}"
        if value == QUEEN and view is not None and view.HasField("vampire_queen"):
            text += f" (counts {view.vampire_queen.hunter_queen or 1} here)"
        return text
    return text_format.MessageToString(command, as_one_line=True)


def menu_group(command: referee_pb2.Command, view: referee_pb2.View | None = None) -> str | None:
    """Sets group by value (the second step picks how many cards and queens); a Hunter lead,
    a pass and a Hunter-trick card are choices of their own.

    >>> c = referee_pb2.Command()
    >>> c.vampire_queen.play_set.value = 8
    >>> menu_group(c)
    'play 8s'
    """
    vq = command.vampire_queen
    if vq.WhichOneof("kind") != "play_set":
        return None
    value = vq.play_set.value
    return "play queens only" if value == QUEEN else f"play {value}s"


# --- events --------------------------------------------------------------------------------


def describe_event(
    event: referee_pb2.Event, view: referee_pb2.View | None = None, me: int | None = None
) -> str | None:
    """One line for an event (``view`` is the view right after it, for context), or None for
    an event not worth a line (another seat's hidden deal)."""
    if event.WhichOneof("game") != "vampire_queen":
        return text_format.MessageToString(event, as_one_line=True)
    e = event.vampire_queen
    kind = e.WhichOneof("kind")
    game = view.vampire_queen if view is not None and view.HasField("vampire_queen") else None
    if kind == "round_started":
        r = e.round_started
        of = f" of {game.rounds}" if game is not None and game.rounds else ""
        return (
            f"--- round {r.round}{of}: {seat_name(r.leader, me)} leads; "
            f"H15 {seat_name(r.hunter_15_holder, me)}, H20 {seat_name(r.hunter_20_holder, me)}"
        )
    if kind == "hand_dealt":
        d = e.hand_dealt
        if d.seat == me and d.cards:
            return f"you are dealt {d.count} cards: {format_hand(list(d.cards))}"
        return None
    if kind == "set_played":
        s = e.set_played
        leads = game is not None and len(game.trick) == 1 and game.trick[0].seat == s.seat
        verb = "leads" if leads else "plays"
        return f"{seat_name(s.seat, me)} {verb} {describe_set(s.value, s.count, s.queens)}"
    if kind == "passed":
        return f"{seat_name(e.passed.seat, me)} passes"
    if kind == "hunter_led":
        return f"{seat_name(e.hunter_led.seat, me)} leads the {e.hunter_led.hunter} Hunter"
    if kind == "card_played":
        c = e.card_played
        return f"{seat_name(c.seat, me)} plays {describe_card(c.value)}"
    if kind == "skipped":
        return f"{seat_name(e.skipped.seat, me)} is skipped (holds only Hunters)"
    if kind == "trick_won":
        t = e.trick_won
        if t.hunter_trick:
            taken = ", ".join(card(v) for v in t.taken)
            return f"{seat_name(t.winner, me)} takes the trick: {taken}"
        if game is not None and 0 in game.hand_sizes:  # VQ-17: the round is over
            return f"{seat_name(t.winner, me)} wins the last trick of the round"
        return f"{seat_name(t.winner, me)} wins the trick and leads"
    if kind == "round_scored":
        scored = e.round_scored
        penalties = ", ".join(f"seat {s} {p}" for s, p in enumerate(scored.penalties))
        totals = ", ".join(f"seat {s} {t}" for s, t in enumerate(scored.totals))
        return f"--- round {scored.round} scored: penalties {penalties}; totals {totals}"
    if kind == "game_ended":
        g = e.game_ended
        winners = [s for s, rank in enumerate(g.ranks) if rank == 1]
        names = " and ".join(seat_name(s, me) for s in winners)
        score = g.totals[winners[0]] if winners else 0
        return f"--- game over: {names} win{'s' if len(winners) == 1 else ''} with {score}"
    return text_format.MessageToString(event, as_one_line=True)


# --- views ---------------------------------------------------------------------------------


def _play_line(play: VQView.TrickPlay, lead: bool, me: int | None) -> str:
    who = seat_name(play.seat, me)
    if play.kind == VQView.PLAY_KIND_SET:
        verb = "leads" if lead else "plays"
        return f"{who} {verb} {describe_set(play.value, play.count, play.queens)}"
    if play.kind == VQView.PLAY_KIND_PASS:
        return f"{who} passes"
    if play.kind == VQView.PLAY_KIND_HUNTER:
        return f"{who} leads the {play.value} Hunter"
    if play.kind == VQView.PLAY_KIND_CARD:
        return f"{who} plays {describe_card(play.value)}"
    if play.kind == VQView.PLAY_KIND_SKIP:
        return f"{who} is skipped"
    return f"{who} ?"


def render_view(view: referee_pb2.View) -> str:
    """The whole screen of a view: header, hand, seats, current trick, standings."""
    me = view.seat if view.HasField("seat") else None
    if not view.HasField("vampire_queen"):
        return text_format.MessageToString(view)
    game = view.vampire_queen
    name = NAME
    who = "spectator" if me is None else f"you are seat {me}"
    lines = [f"== {name} | game {view.game_id} | round {game.round}/{game.rounds} | {who} =="]
    if view.game_over:
        lines.append("Game over.")
    elif game.HasField("turn"):
        lines.append("Your turn." if game.turn == me else f"Turn: seat {game.turn}.")
    if me is not None:
        lines.append(f"Your hand ({len(game.hand)}): {format_hand(list(game.hand))}")

    lines.append("  seat          cards  hunters  total  last round")
    for seat in range(view.players):
        hunters = [
            h
            for h, holder in ((15, game.hunter_15_holder), (20, game.hunter_20_holder))
            if holder == seat
        ]
        barred = game.barred_hunters[seat] if seat < len(game.barred_hunters) else 0
        hunter_text = " ".join(f"H{h}{'*' if h == barred else ''}" for h in hunters) or "-"
        size = game.hand_sizes[seat] if seat < len(game.hand_sizes) else 0
        total = game.totals[seat] if seat < len(game.totals) else 0
        last = str(game.last_penalties[seat]) if seat < len(game.last_penalties) else "-"
        mark = ">" if not view.game_over and game.HasField("turn") and game.turn == seat else " "
        lines.append(
            f"{mark} {seat_name(seat, me):<13} {size:>5}  {hunter_text:<7}  {total:>5}  {last:>10}"
        )
    barred_seats = [(s, h) for s, h in enumerate(game.barred_hunters) if h]
    if barred_seats:
        lines.append(
            "  * barred: "
            + "; ".join(f"{seat_name(s, me)} may not lead H{h} next" for s, h in barred_seats)
        )

    if not view.game_over:
        lines.append(_render_trick(game, me))
    else:
        lines.append(render_results(view))
    return "\n".join(lines)


def _render_trick(game: VQView, me: int | None) -> str:
    if game.trick_kind == VQView.TRICK_KIND_UNSPECIFIED:
        return f"Trick: {seat_name(game.leader, me)} to lead."
    if game.trick_kind == VQView.TRICK_KIND_HUNTER:
        head = (
            f"Trick: Hunter trick led by {seat_name(game.leader, me)}; everyone plays one card, "
            f"the highest takes all (a queen counts {game.hunter_queen or 1}, "
            f"ties: {game.hunter_tie or 'first'} wins)"
        )
    else:
        head = f"Trick: {game.lead_count} card(s) each, led by {seat_name(game.leader, me)}"
    lines = [head]
    lines.extend(f"    {_play_line(p, i == 0, me)}" for i, p in enumerate(game.trick))
    if game.HasField("best_seat"):
        if game.trick_kind == VQView.TRICK_KIND_HUNTER:
            cards = [
                p.value
                for p in game.trick
                if p.kind == VQView.PLAY_KIND_CARD and p.seat == game.best_seat
            ]
            best = card(cards[-1]) if cards else str(game.best_value)
            if cards and cards[-1] == QUEEN:
                best += f" (counts {game.best_value})"
            lines.append(f"  Highest so far: {best} by {seat_name(game.best_seat, me)}")
        else:
            best_set = describe_set(game.best_value, game.lead_count, 0)
            lines.append(f"  Best so far: {best_set} by {seat_name(game.best_seat, me)}")
    return "\n".join(lines)


def redraw_for_spectator(event: referee_pb2.Event, view: referee_pb2.View) -> bool:
    """A spectator sees the table after each round's scores (the last one: the final screen)."""
    if event.vampire_queen.WhichOneof("kind") != "round_scored":
        return False
    return event.vampire_queen.round_scored.round < view.vampire_queen.rounds


TEXT = GameText(
    name=NAME,
    field="vampire_queen",
    render_view=render_view,
    describe_event=describe_event,
    describe_command=describe_command,
    redraw_for_spectator=redraw_for_spectator,
    menu_group=menu_group,
)
