"""Sleeping Queens as text: views, events and commands (pure functions, no I/O).

Cards: the numbers ``1``-``10``, ``King``, ``Jester``, ``Knight``, ``Potion`` (the Sleeping
Potion), ``Wand``, ``Dragon``. Queens by name, with their points. The 12 positions are drawn
as 4 rows of 3: ``##`` a queen asleep face down, her name when it is known (she was put back
to sleep there), ``--`` an empty position.

>>> format_hand([3, 5, 5, 11, 16])
'3 5 5 King Dragon'
>>> describe_discard([2, 3, 5]), describe_discard([5, 5]), describe_discard([14])
('2 + 3 = 5', 'a pair of 5s', 'a Potion')
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf import text_format

from referee.v1 import referee_pb2, sleeping_queens_pb2
from referee_cli.render_common import GameText, join_names, plural, seat_name, viewer

SQ = sleeping_queens_pb2.SleepingQueens
SQView = sleeping_queens_pb2.SleepingQueensView

NAME = "Sleeping Queens"
KING, JESTER, KNIGHT, POTION, WAND, DRAGON = 11, 12, 13, 14, 15, 16
CARD_NAMES: dict[int, str] = {
    KING: "King",
    JESTER: "Jester",
    KNIGHT: "Knight",
    POTION: "Potion",
    WAND: "Wand",
    DRAGON: "Dragon",
}
#: Queen -> (name, points) (SQ-1).
QUEENS: dict[int, tuple[str, int]] = {
    SQ.QUEEN_ROSE: ("Rose", 5),
    SQ.QUEEN_CAKE: ("Cake", 5),
    SQ.QUEEN_RAINBOW: ("Rainbow", 5),
    SQ.QUEEN_STARFISH: ("Starfish", 5),
    SQ.QUEEN_LADYBUG: ("Ladybug", 10),
    SQ.QUEEN_MOON: ("Moon", 10),
    SQ.QUEEN_SUNFLOWER: ("Sunflower", 10),
    SQ.QUEEN_PEACOCK: ("Peacock", 10),
    SQ.QUEEN_CAT: ("Cat", 15),
    SQ.QUEEN_DOG: ("Dog", 15),
    SQ.QUEEN_PANCAKE: ("Pancake", 15),
    SQ.QUEEN_HEART: ("Heart", 20),
}
POSITIONS = 12
_END_RULES = {
    "SQ-15": " (enough queens or points)",
    "SQ-16": " (no queen left asleep: the most points win)",
}


# --- cards and queens ----------------------------------------------------------------------


def card(value: int) -> str:
    """``7``, ``King``, ``Dragon``."""
    return CARD_NAMES.get(value, str(value))


def format_hand(hand: Sequence[int]) -> str:
    """A hand, numbers first (the server sends it sorted)."""
    return " ".join(card(v) for v in sorted(hand)) or "(empty)"


def a_card(value: int) -> str:
    """``a 7``, ``an 8``, ``a King``."""
    return f"an {value}" if value == 8 else f"a {card(value)}"


def queen_points(queen: int) -> int:
    return QUEENS.get(queen, ("?", 0))[1]


def queen_name(q: int, points: bool = True) -> str:
    """``Cat Queen (15)``."""
    name, value = QUEENS.get(q, ("?", 0))
    return f"{name} Queen" + (f" ({value})" if points else "")


def queen(q: int, points: bool = True) -> str:
    """``the Cat Queen (15)``."""
    return "the " + queen_name(q, points)


def describe_discard(cards: Sequence[int]) -> str:
    """One card, a pair or an equation (SQ-9)."""
    cards = sorted(cards)
    if len(cards) == 1:
        return a_card(cards[0])
    if len(cards) == 2 and cards[0] == cards[1]:
        return f"a pair of {cards[0]}s"
    return " + ".join(str(c) for c in cards[:-1]) + f" = {cards[-1]}"


def _game(view: referee_pb2.View | None) -> SQView | None:
    if view is not None and view.HasField("sleeping_queens"):
        return view.sleeping_queens
    return None


def owner_of(game: SQView | None, q: int) -> int | None:
    """The seat with ``q`` awake, if any."""
    if game is None:
        return None
    return next((a.seat for a in game.awake if q in a.queens), None)


def known_queen(game: SQView | None, position: int) -> int:
    """The queen known to sleep at ``position``, else 0."""
    if game is None:
        return 0
    return next((p.queen for p in game.positions if p.position == position and p.asleep), 0)


def _decision_kind(view: referee_pb2.View | None, seat: int | None) -> str:
    if view is None:
        return ""
    return next((d.kind for d in view.decisions if seat is None or d.seat == seat), "")


def _attack_card(view: referee_pb2.View | None, seat: int | None) -> int:
    """KNIGHT or POTION when a block is pending (from the decision's kind), else 0."""
    kind = _decision_kind(view, seat)
    return {"block_knight": KNIGHT, "block_potion": POTION}.get(kind, 0)


# --- commands ------------------------------------------------------------------------------


def describe_command(command: referee_pb2.Command, view: referee_pb2.View | None = None) -> str:
    """A legal command in words, e.g. ``play a Knight: steal seat 2's Heart Queen (20)``."""
    if command.WhichOneof("game") != "sleeping_queens":
        return text_format.MessageToString(command, as_one_line=True)
    c = command.sleeping_queens
    kind = c.WhichOneof("kind")
    game = _game(view)
    me = viewer(view) if view is not None else None

    def at(position: int) -> str:
        known = known_queen(game, position)
        return f"position {position}" + (f" ({queen(known)})" if known else "")

    def owned(q: int) -> str:
        owner = owner_of(game, q)
        whose = f"{seat_name(owner, me)}'s " if owner is not None else ""
        return f"{whose}{queen_name(q)}" if whose else queen(q)

    if kind == "discard":
        return f"discard {describe_discard(list(c.discard.cards))}"
    if kind == "play_king":
        return f"play a King: wake the queen at {at(c.play_king.position)}"
    if kind == "play_knight":
        return f"play a Knight: steal {owned(c.play_knight.queen)}"
    if kind == "play_potion":
        return f"play a Potion: put {owned(c.play_potion.queen)} to sleep"
    if kind == "play_jester":
        return "play a Jester: turn over the top card of the draw pile"
    target = queen(game.target_queen, points=False) if game and game.target_queen else "your queen"
    attack = _attack_card(view, me)
    if kind == "block":
        if attack == KNIGHT:
            return f"block with a Dragon (keep {target}, draw a card)"
        if attack == POTION:
            return f"block with a Wand (keep {target}, draw a card)"
        return "block (keep the queen, draw a card)"
    if kind == "decline_block":
        if attack == KNIGHT:
            return f"do not block: {target} is stolen"
        if attack == POTION:
            return f"do not block: {target} goes back to sleep"
        return "do not block"
    if kind == "wake_queen":
        return f"wake the queen at {at(c.wake_queen.position)}"
    if kind == "place_queen":
        return f"put {target} to sleep at position {c.place_queen.position}"
    return text_format.MessageToString(command, as_one_line=True)


# --- events --------------------------------------------------------------------------------


def describe_event(
    event: referee_pb2.Event, view: referee_pb2.View | None = None, me: int | None = None
) -> str | None:
    """One line for an event, or None for one not worth a line (the initial shuffle, the
    start of a turn)."""
    if event.WhichOneof("game") != "sleeping_queens":
        return text_format.MessageToString(event, as_one_line=True)
    e = event.sleeping_queens
    kind = e.WhichOneof("kind")

    def who(seat: int) -> str:
        return seat_name(seat, me)

    if kind == "deck_shuffled":
        ds = e.deck_shuffled
        if ds.reshuffle:
            return f"--- the discard pile is shuffled into a new draw pile ({ds.count} cards)"
        return None
    if kind == "queens_laid":
        return "--- 12 queens lie asleep, face down, in positions 0-11"
    if kind == "cards_drawn":
        cd = e.cards_drawn
        if cd.cards:
            return f"{who(cd.seat)} draws {format_hand(list(cd.cards))}"
        return f"{who(cd.seat)} draws {plural(cd.count, 'card')}"
    if kind == "turn_started":
        return None
    if kind == "discarded":
        dis = e.discarded
        return f"{who(dis.seat)} discards {describe_discard(list(dis.cards))}"
    if kind == "king_played":
        kp = e.king_played
        return f"{who(kp.seat)} plays a King on position {kp.position}"
    if kind == "queen_woken":
        qw = e.queen_woken
        return f"{who(qw.seat)} wakes {queen(qw.queen)} at position {qw.position}"
    if kind == "queen_bounced":
        qb = e.queen_bounced
        rival = "Dog" if qb.queen == SQ.QUEEN_CAT else "Cat"
        return (
            f"{queen(qb.queen, points=False)} goes back to sleep at position {qb.position}: "
            f"{who(qb.seat)} holds the {rival} Queen"
        )
    if kind == "rose_bonus":
        rb = e.rose_bonus
        if rb.lost:
            return f"{who(rb.seat)} loses the Rose Queen's bonus: no queen is left asleep"
        return f"the Rose Queen's bonus: {who(rb.seat)} wakes one more queen"
    if kind == "jester_played":
        return f"{who(e.jester_played.seat)} plays a Jester"
    if kind == "jester_turned":
        jt = e.jester_turned
        if jt.HasField("counted"):
            return (
                f"the Jester turns up {a_card(jt.card)}: counting from {who(jt.seat)}, "
                f"{who(jt.counted)} wakes a queen"
            )
        return f"the Jester turns up {a_card(jt.card)}: it goes to {who(jt.seat)}, who plays again"
    if kind == "knight_played":
        kn = e.knight_played
        return f"{who(kn.seat)} plays a Knight on {who(kn.target)}'s {queen_name(kn.queen)}"
    if kind == "potion_played":
        pp = e.potion_played
        return (
            f"{who(pp.seat)} plays a Sleeping Potion on {who(pp.target)}'s {queen_name(pp.queen)}"
        )
    if kind == "blocked":
        bl = e.blocked
        return f"{who(bl.seat)} blocks with {a_card(bl.card)}: the queen stays"
    if kind == "block_declined":
        return f"{who(e.block_declined.seat)} does not block"
    if kind == "queen_stolen":
        qs = e.queen_stolen
        return f"{who(qs.seat)} steals {queen(qs.queen)} from {who(qs.from_seat)}"
    if kind == "knight_wasted":
        kw = e.knight_wasted
        return (
            f"{who(kw.seat)}'s Knight is wasted on {queen(kw.queen, points=False)} "
            "(Cat and Dog never together)"
        )
    if kind == "knight_bounced":
        kb = e.knight_bounced
        return (
            f"{queen(kb.queen, points=False)}, taken by {who(kb.seat)} from {who(kb.from_seat)}, "
            "goes back to sleep (Cat and Dog never together)"
        )
    if kind == "queen_put_to_sleep":
        asleep = e.queen_put_to_sleep
        return (
            f"{who(asleep.seat)}'s {queen_name(asleep.queen, points=False)} goes back to sleep "
            f"at position {asleep.position} (chosen by {who(asleep.by)})"
        )
    if kind == "game_ended":
        ge = e.game_ended
        names = join_names([who(s) for s in ge.winners])
        scores = []
        for s in ge.winners:
            points = ge.points[s] if s < len(ge.points) else 0
            queens = ge.queens[s] if s < len(ge.queens) else 0
            scores.append(f"{plural(queens, 'queen')}, {points} points")
        verb = "wins" if len(ge.winners) == 1 else "win"
        why = _END_RULES.get(ge.rule, "")
        return f"--- game over: {names} {verb} with {'; '.join(scores)}{why}"
    return text_format.MessageToString(event, as_one_line=True)


# --- views ---------------------------------------------------------------------------------


def _position_cell(p: SQView.Position) -> str:
    if not p.asleep:
        label = "--"
    elif p.queen:
        label = QUEENS.get(p.queen, ("?", 0))[0]
    else:
        label = "##"
    return f"{p.position:>2} {label:<9}"


def _pending_text(view: referee_pb2.View, game: SQView, me: int | None) -> str:
    if view.game_over or game.phase == SQView.PHASE_OVER:
        return "Game over."
    if not game.HasField("decider"):
        return ""
    decider = game.decider
    you = decider == me
    name = "You" if you else seat_name(decider, me)
    attacker = seat_name(game.attacker, me) if game.HasField("attacker") else "someone"
    target = queen_name(game.target_queen, points=False) if game.target_queen else "queen"
    if game.phase == SQView.PHASE_TURN:
        return "Your turn." if you else f"Turn: {seat_name(decider, me)}."
    if game.phase == SQView.PHASE_BLOCK:
        attack = _attack_card(view, decider)
        weapon = {KNIGHT: "Knight", POTION: "Sleeping Potion"}.get(attack, "attack")
        blocker = {KNIGHT: "a Dragon", POTION: "a Wand"}.get(attack, "a Dragon or Wand")
        whose = "your" if you else f"{seat_name(decider, me)}'s"
        return f"{attacker} plays a {weapon} on {whose} {target}: {name} may block with {blocker}."
    if game.phase == SQView.PHASE_JESTER_WAKE:
        turned = f" ({a_card(game.jester_card)})" if game.jester_card else ""
        return f"The Jester{turned} counts {seat_name(decider, me)}, who wakes a queen."
    if game.phase == SQView.PHASE_ROSE_WAKE:
        return f"The Rose Queen's bonus: {seat_name(decider, me)} wakes one more queen."
    if game.phase == SQView.PHASE_PLACE_QUEEN:
        return f"{seat_name(decider, me)} puts the {target} back to sleep at an empty position."
    return f"Waiting for {seat_name(decider, me)}."


def render_view(view: referee_pb2.View) -> str:
    """The whole screen: whose decision and what about, your hand, every seat's awake queens
    and points, the 12 positions, the draw and discard piles."""
    me = viewer(view)
    if not view.HasField("sleeping_queens"):
        return text_format.MessageToString(view)
    game = view.sleeping_queens
    who = "spectator" if me is None else f"you are seat {me}"
    goal = f"{game.queens_to_win} queens or {game.points_to_win} points win"
    lines = [f"== {NAME} | game {view.game_id} | {who} | {goal} =="]
    pending = _pending_text(view, game, me)
    if pending:
        lines.append(pending)
    if me is not None:
        lines.append(f"Your hand ({len(game.hand)}): {format_hand(list(game.hand))}")

    lines.append("  seat           cards  points  awake queens")
    awake = {a.seat: a for a in game.awake}
    for seat in range(view.players):
        size = game.hand_sizes[seat] if seat < len(game.hand_sizes) else 0
        queens = awake.get(seat)
        names = ", ".join(queen_name(q) for q in queens.queens) if queens is not None else ""
        points = queens.points if queens is not None else 0
        turn = not view.game_over and game.HasField("turn") and game.turn == seat
        mark = ">" if turn else " "
        lines.append(f"{mark} {seat_name(seat, me):<13} {size:>5}  {points:>6}  {names or '-'}")

    asleep = sum(1 for p in game.positions if p.asleep)
    lines.append(f"Positions ({asleep} asleep; ## face down, -- empty):")
    cells = {p.position: _position_cell(p) for p in game.positions}
    for row in range(0, POSITIONS, 3):
        row_cells = (cells.get(p, f"{p:>2} {'?':<9}") for p in range(row, row + 3))
        lines.append(("  " + "  ".join(row_cells)).rstrip())

    top = card(game.discard_pile[-1]) if game.discard_pile else "-"
    lines.append(
        f"Draw pile: {plural(game.draw_pile_size, 'card')}   "
        f"Discard pile: {plural(len(game.discard_pile), 'card')}, top: {top}"
    )
    if game.jester_card and not view.game_over:
        lines.append(f"The Jester turned up {a_card(game.jester_card)}.")
    if view.game_over and game.winners:
        names = join_names([seat_name(s, me) for s in game.winners])
        lines.append(f"Winner{'s' if len(game.winners) > 1 else ''}: {names}")
    return "\n".join(lines)


TEXT = GameText(
    name=NAME,
    field="sleeping_queens",
    render_view=render_view,
    describe_event=describe_event,
    describe_command=describe_command,
)
