"""``render()``'s text (``referee/rl/text.py``): built from the seat's view with the engine
alone, so it shows nothing the seat may not see, and the referee package imports no client."""

from __future__ import annotations

import ast
import copy
import random
from pathlib import Path
from typing import Any

import pytest

from referee.engine import Table, get_game
from referee.rl import games, spec
from referee.rl.text import render_text

ROOT = Path(__file__).resolve().parents[2]


def test_the_referee_package_imports_no_terminal_client() -> None:
    """Clients may import referee, never the other way round: the rules library and its
    learning environments must work without ``referee_cli`` installed."""
    for path in sorted((ROOT / "referee").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith("referee_cli"), f"{path} imports {name}"


@pytest.mark.parametrize("game_type", games())
def test_the_text_hides_what_the_seat_may_not_see(game_type: str) -> None:
    """Two states that differ only in what a seat may not see give it the same text (the
    views' indistinguishability through the text); the seats' own texts differ."""
    rules = get_game(game_type)
    players = rules.info.min_players
    game = spec(game_type, players)
    table: Table[Any] = Table.create(game_type, players, seed=b"text")
    rng = random.Random(1)
    differing = 0
    for _ in range(30):
        seat = table.pending()[0]
        text = render_text(game, table, seat)
        assert text.startswith(f"seat {seat} (seat_{seat}), {rules.info.name}")
        for salt in range(2):
            clone = copy.copy(table)
            clone.state = rules.hidden_variant(table.state, seat, salt)
            differing += clone.state != table.state
            assert render_text(game, clone, seat) == text
        table.submit(seat, rng.choice(table.legal_commands(seat)))
        if table.results() is not None:
            break
    assert differing > 0, "hidden_variant never changed anything: the test is blind"
    assert len({render_text(game, table, s) for s in range(players)}) == players
