"""What a player touches on a drawn table to make each legal command
(``View.legal_command_parts``): the cards of the seat's hand, then the targets. A client builds
its play-on-the-table from these alone, so every command but a few plain buttons must be
reachable by them, and the parts with the label must tell any two legal commands apart."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import codec
from referee.engine.parts import CommandParts, Target, legal_command_parts
from referee.engine.registry import all_games
from referee.engine.table import Table
from referee.v1 import referee_pb2 as pb

GAMES = {game.info.type_id: game for game in all_games()}
PLAYERS = {"vampire-queen": 4, "sleeping-queens": 3, "dracula-vs-van-helsing": 2,
           "mau-mau-vampires": 4}  # fmt: skip
OPTIONS = {"vampire-queen": {"rounds": "1"}, "mau-mau-vampires": {"hands": "1"}}
#: The commands made without touching the table: a button beside it (its label).
BUTTONS = {
    "vampire-queen": {"Pass"},
    "sleeping-queens": {"DeclineBlock"},
    "mau-mau-vampires": {"EndTurn", "NoWish", "UseAbility", "DeclineAbility"},
    "dracula-vs-van-helsing": {"CallEnd"},
}
KINDS = {"seat", "pile", "position", "queen", "district", "slot", "colour", "shared"}


def _key(game_view: Any, parts: CommandParts) -> tuple[Any, ...]:
    """What a player picks: the faces of the cards (equal cards are interchangeable) and the
    targets (as a set where their order is free)."""
    faces = tuple(sorted(repr(game_view.hand[i]) for i in parts.hand))
    targets = frozenset(parts.targets) if parts.any_order else parts.targets
    return faces, targets


def _check_view(game_type: str, players: int, view: Any, seen: Counter[str]) -> None:
    game = GAMES[game_type]
    legal = view.legal_commands
    all_parts = legal_command_parts(game_type, view.game, legal)
    assert len(all_parts) == len(legal)
    hand = getattr(view.game, "hand", ())
    picks: dict[tuple[Any, ...], set[str]] = {}
    for command, parts in zip(legal, all_parts, strict=True):
        name = type(command).__name__
        seen[name] += 1
        assert list(parts.hand) == sorted(set(parts.hand)), (command, parts)
        assert all(0 <= i < len(hand) for i in parts.hand), (command, parts)
        for target in parts.targets:
            assert target.kind in KINDS and target.id and target.label, target
            if target.kind == "seat":
                assert 0 <= int(target.id) < players
        touches = bool(parts.hand or parts.targets)
        assert touches != (name in BUTTONS[game_type]), (command, parts)
        label = game.command_label(command, view.game)
        labels = picks.setdefault(_key(view.game, parts), set())
        assert label not in labels, f"two commands picked alike, labelled {label!r}"
        labels.add(label)


def _table(game_type: str, seed: str) -> Table:
    return Table.create(
        game_type, players=PLAYERS[game_type], seed=seed.encode(),
        options=OPTIONS.get(game_type, {}),
    )  # fmt: skip


def _play(game_type: str, seed: int, seen: Counter[str]) -> None:
    players = PLAYERS[game_type]
    table = _table(game_type, f"parts-{seed}")
    rng = random.Random(seed)
    while not table.over:
        seat = rng.choice(table.pending())
        view = table.view(seat)
        _check_view(game_type, players, view, seen)
        table.submit(seat, rng.choice(view.legal_commands))


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_every_command_type_is_met_and_picked_apart(game_type: str) -> None:
    seen: Counter[str] = Counter()
    for seed in range(8):
        _play(game_type, seed, seen)
        if set(seen) == {t.__name__ for t in GAMES[game_type].command_types}:
            break
    assert set(seen) == {t.__name__ for t in GAMES[game_type].command_types}


@pytest.mark.parametrize("game_type", sorted(GAMES))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=10, max_value=10**6))
def test_parts_pick_every_legal_command_apart(game_type: str, seed: int) -> None:
    _play(game_type, seed, Counter())


def _view_with(game_type: str, wanted: str, seed_range: range = range(40)) -> Any:
    """A seat's view (engine values) in which some legal command is of type ``wanted``."""
    for seed in seed_range:
        table = _table(game_type, f"want-{seed}")
        rng = random.Random(seed)
        while not table.over:
            seat = rng.choice(table.pending())
            view = table.view(seat)
            if any(type(c).__name__ == wanted for c in view.legal_commands):
                return view
            table.submit(seat, rng.choice(view.legal_commands))
    raise AssertionError(f"no {wanted} met")


def _parts_of(game_type: str, view: Any, wanted: str) -> list[tuple[Any, CommandParts]]:
    parts = legal_command_parts(game_type, view.game, view.legal_commands)
    return [(c, p) for c, p in zip(view.legal_commands, parts, strict=True)
            if type(c).__name__ == wanted]  # fmt: skip


def test_vq_7_a_set_uses_its_cards_and_its_queens_from_the_hand() -> None:
    from referee.games.vampire_queen.model import QUEEN

    view = _view_with("vampire-queen", "PlaySet")
    for command, parts in _parts_of("vampire-queen", view, "PlaySet"):
        faces = Counter(view.game.hand[i] for i in parts.hand)
        assert sum(faces.values()) == command.count
        assert faces[QUEEN] == (command.count if command.value == QUEEN else command.queens)
        assert not parts.targets  # every play goes on the trick


def test_sq_5_a_king_wakes_the_queen_at_the_position_picked() -> None:
    from referee.games.sleeping_queens.model import KING

    view = _view_with("sleeping-queens", "PlayKing")
    for command, parts in _parts_of("sleeping-queens", view, "PlayKing"):
        assert [view.game.hand[i] for i in parts.hand] == [KING]
        (target,) = parts.targets
        assert (target.kind, target.id) == ("position", str(command.position))


def test_sq_9_a_discard_is_its_cards_then_the_discard_pile() -> None:
    view = _view_with("sleeping-queens", "Discard")
    for command, parts in _parts_of("sleeping-queens", view, "Discard"):
        assert sorted(view.game.hand[i] for i in parts.hand) == sorted(command.cards)
        assert parts.targets == (Target("pile", "discard", "the discard pile"),)


def test_dv_13_a_swap_picks_two_own_cards_in_any_order() -> None:
    view = _view_with("dracula-vs-van-helsing", "SwapSlots", range(200))
    own = next(r.seat for r in view.game.racks if r.role == view.game.role)
    for command, parts in _parts_of("dracula-vs-van-helsing", view, "SwapSlots"):
        assert parts.any_order
        assert [t.id for t in parts.targets] == [
            f"{own}:{command.first}",
            f"{own}:{command.second}",
        ]


def test_mm_22_g_each_drawn_card_is_handed_to_a_seat_in_turn() -> None:
    view = _view_with("mau-mau-vampires", "ShareDrawn", range(200))
    for command, parts in _parts_of("mau-mau-vampires", view, "ShareDrawn"):
        kinds = [(t.kind, t.id) for t in parts.targets]
        expected = [pair for i, to in enumerate(command.to_seats)
                    for pair in (("shared", str(i)), ("seat", str(to)))]  # fmt: skip
        assert kinds == expected


def test_a_view_on_the_wire_carries_the_parts_of_each_legal_command() -> None:
    view = _view_with("sleeping-queens", "PlayKing")
    message = pb.View.FromString(codec.view_bytes("g", 3, view))
    assert len(message.legal_command_parts) == len(message.legal_commands) > 0
    parts = legal_command_parts("sleeping-queens", view.game, view.legal_commands)
    for sent, made in zip(message.legal_command_parts, parts, strict=True):
        assert list(sent.hand) == list(made.hand) and sent.any_order == made.any_order
        assert [(t.kind, t.id, t.label) for t in sent.targets] == [
            (t.kind, t.id, t.label) for t in made.targets
        ]
    # A seat with nothing to decide: no parts, as no labels.
    waiting = next(s for s in range(3) if s not in view.pending)
    table_view = pb.View.FromString(codec.view_bytes("g", 3, _other_view(view, waiting)))
    assert not table_view.legal_command_parts


def _other_view(view: Any, seat: int) -> Any:
    import dataclasses

    return dataclasses.replace(view, viewer=seat, legal_commands=())


def test_events_a_log_may_fold_are_marked_bookkeeping() -> None:
    from referee.engine.table_events import SeedCommitted
    from referee.games.sleeping_queens.model import KingPlayed, TurnStarted

    def sent(event: Any) -> pb.Event:
        return codec.event_to_proto("sleeping-queens", event, 1, describe=True)

    assert sent(SeedCommitted("ab" * 32)).bookkeeping
    assert sent(TurnStarted(seat=1)).bookkeeping
    assert not sent(KingPlayed(seat=1, position=3)).bookkeeping
    # The stored log carries no display text, and so no hint.
    stored = codec.event_to_proto("sleeping-queens", TurnStarted(seat=1), 1)
    assert not stored.description and not stored.bookkeeping
