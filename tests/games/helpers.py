"""Helpers shared by the per-game tests (``tests/games/test_*.py``): playing moves, asserting
a refusal changed nothing, picking events, the command space against ``decide``.

Game-specific helpers (card notation, fixed decks) stay with their game's tests
(``vq_helpers.py`` for Vampire Queen, the top of each other test file).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from referee.engine import Rejection, Table
from referee.engine.game import Viewer


def play(table: Table[Any], *moves: tuple[int, Any]) -> list[Any]:
    """Submit ``(seat, command)`` moves in order; all the events they caused."""
    events: list[Any] = []
    for seat, command in moves:
        events.extend(table.submit(seat, command))
    return events


def rejected(table: Table[Any], seat: int, command: Any) -> Rejection:
    """Submit a command that must be refused; checks that nothing changed (state, version)
    and returns the rejection (for its rule id and kind)."""
    version = table.version
    before = table.game.copy_state(table.state)
    try:
        table.submit(seat, command)
    except Rejection as error:
        assert table.version == version
        assert table.state == before
        return error
    raise AssertionError(f"{command!r} by seat {seat} was accepted")


def of_type(events: Iterable[Any], kind: type) -> list[Any]:
    """The events of exactly type ``kind``."""
    return [e for e in events if type(e) is kind]


def names(events: Iterable[Any]) -> list[str]:
    """The class names of ``events``, in order."""
    return [type(e).__name__ for e in events]


def seen_by(table: Table[Any], events: Iterable[Any], viewer: Viewer) -> list[Any]:
    """``events`` as ``viewer`` receives them (redacted)."""
    return [table.game.redact(e, viewer) for e in events]


def game_view(table: Table[Any], viewer: Viewer) -> Any:
    """The game's own part of ``viewer``'s view."""
    return table.view(viewer).game


def accepted_commands(table: Table[Any], seat: int) -> list[Any]:
    """Every command of the command space that ``decide`` accepts now (in the space's order)."""
    game, state = table.game, table.state
    accepted = []
    for command in game.command_space(state, seat):
        try:
            game.decide(state, seat, command)
        except Rejection:
            continue
        accepted.append(command)
    return accepted


def same_commands(legal: list[Any], accepted: list[Any]) -> bool:
    """The legal list holds each command once and exactly the accepted ones."""
    return len(legal) == len(set(legal)) and set(legal) == set(accepted)


def says_why(table: Table[Any], rule_id: str, reason: str) -> None:
    """The game ended by ``rule_id`` and says so in ``reason`` everywhere:
    ``table.ending()``, every viewer's view (engine and wire), the end event's own fields and
    its display text; and an end event stored before those fields (written without them)
    reads back with the same words, so old logs say why too."""
    from referee import codec
    from referee.engine.endings import Ending

    ending = Ending(rule_id, reason)
    assert table.ending() == ending
    players = table.config.players
    for viewer in [*range(players), None]:
        assert table.view(viewer).ending == ending
        wire = codec.view_to_proto("g", players, table.view(viewer))
        assert (wire.end_rule_id, wire.end_reason) == (rule_id, reason)
    game_type = table.config.game_type
    last = next(e for e in reversed(table.log) if hasattr(e, "end_reason"))
    assert (last.end_rule_id, last.end_reason) == (rule_id, reason)
    assert codec.event_text(game_type, last) == f"game over: {reason} ({rule_id})"
    old = codec.event_to_proto(game_type, last, 1)
    inner = getattr(old, codec.game_field(game_type)).game_ended
    inner.ClearField("end_rule_id")
    inner.ClearField("end_reason")
    assert codec.event_from_proto(old) == last
