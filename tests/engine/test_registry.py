"""Adding a game touches its own package: the registry finds every package under
``referee/games``, the wheel ships it, the conformance suite covers it.

A throwaway game (``tests/engine/example_game.py``, High Card) is put into a temporary game
package and must be found, registered, shipped and pass the conformance suite with no edit to
the registry, ``pyproject.toml`` or the tests. What a new game adds besides its package (its
proto file and the ``oneof`` lines) is checked for every game by
``tests/test_codec.py::test_the_proto_and_the_model_name_the_same_commands_and_events``.
"""

from __future__ import annotations

import fnmatch
import inspect
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from setuptools.config.pyprojecttoml import read_configuration

import referee.games
from referee.engine import Game, Table, all_games, get_game, registry
from tests.engine import test_conformance

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = Path(__file__).with_name("example_game.py")
NEW = "high_card"


def _packages_on_disk(root: Path) -> set[str]:
    """Every Python package below ``referee/`` and the client packages, by dotted name."""
    found = {
        ".".join(init.parent.relative_to(root).parts)
        for init in (root / "referee").rglob("__init__.py")
    }
    found |= {init.parent.name for init in (root / "clients").glob("*/__init__.py")}
    return found


def shipped(root: Path) -> tuple[set[str], list[str]]:
    """The packages, and the package-data patterns of every package ("*", read as ""), that
    ``pyproject.toml`` at ``root`` gives setuptools."""
    config = read_configuration(root / "pyproject.toml", expand=True)["tool"]["setuptools"]
    return set(config["packages"]), list(config["package-data"][""])


def test_every_package_isshipped() -> None:
    packages, _ = shipped(ROOT)
    assert packages == _packages_on_disk(ROOT)


def test_a_new_game_package_and_its_data_areshipped(tmp_path: Path) -> None:
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    (tmp_path / "README.md").write_text("readme\n")
    game = tmp_path / "referee" / "games" / NEW
    game.mkdir(parents=True)
    for package in [tmp_path / "referee", tmp_path / "referee" / "games", game]:
        (package / "__init__.py").write_text("")
    (game / "cards.json").write_text("{}\n")
    for client in ("referee_cli", "referee_bot", "referee_tournament"):
        (tmp_path / "clients" / client).mkdir(parents=True)
        (tmp_path / "clients" / client / "__init__.py").write_text("")
    packages, data = shipped(tmp_path)
    assert f"referee.games.{NEW}" in packages
    assert any(fnmatch.fnmatch("cards.json", pattern) for pattern in data)


def test_every_game_package_is_registered() -> None:
    on_disk = {p.parent.name for p in (ROOT / "referee" / "games").glob("*/__init__.py")}
    assert registry.game_packages() == [f"referee.games.{name}" for name in sorted(on_disk)]
    assert len(all_games()) == len(on_disk)
    for game in all_games():
        assert type(game).__module__.startswith("referee.games.")


def test_a_type_id_cannot_be_taken_twice() -> None:
    class Impostor(type(get_game("vampire-queen"))):  # type: ignore[misc]
        pass

    with pytest.raises(ValueError, match="is taken by VampireQueen"):
        registry.register(Impostor())
    assert type(get_game("vampire-queen")).__name__ == "VampireQueen"


@pytest.fixture
def new_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Game[Any]]:
    """High Card as the package ``referee.games.high_card`` (in a temporary folder that is
    part of ``referee.games``), found by a fresh registry; everything restored afterwards."""
    package = tmp_path / NEW
    package.mkdir()
    shutil.copy(EXAMPLE, package / "__init__.py")
    monkeypatch.setattr(referee.games, "__path__", [*referee.games.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_games", {})
    monkeypatch.setattr(registry, "_loaded", False)
    try:
        yield get_game("high-card")
    finally:
        sys.modules.pop(f"referee.games.{NEW}", None)
        if hasattr(referee.games, NEW):
            delattr(referee.games, NEW)


def test_a_new_game_package_is_found_and_registered(new_game: Game[Any]) -> None:
    assert f"referee.games.{NEW}" in registry.game_packages()
    assert type(new_game).__module__ == f"referee.games.{NEW}"
    assert [g.info.type_id for g in all_games()].count("high-card") == 1
    table = Table.create("high-card", 3, seed=b"found")
    while table.pending():
        seat = table.pending()[0]
        table.submit(seat, table.legal_commands(seat)[0])
    assert table.results() is not None


def _conformance_tests() -> list[Any]:
    return [
        test
        for name, test in vars(test_conformance).items()
        if name.startswith("test_") and "game" in inspect.signature(test).parameters
    ]


@pytest.mark.parametrize("test", _conformance_tests(), ids=lambda t: t.__name__)
def test_the_conformance_suite_covers_a_new_game(new_game: Game[Any], test: Any) -> None:
    """Every test of the generic suite, on the new game, for its player counts and a few seeds
    (the suite's own hypothesis runs pick seeds for the registered games)."""
    inner = getattr(getattr(test, "hypothesis", None), "inner_test", test)
    parameters = inspect.signature(inner).parameters
    info = new_game.info
    for players in range(info.min_players, info.max_players + 1):
        for seed in (1, 2**40 + 7):
            arguments: dict[str, Any] = {"game": new_game}
            if "players" in parameters:
                arguments["players"] = players
            if "seed" in parameters:
                arguments["seed"] = seed
            inner(**arguments)
            if set(arguments) == {"game"}:
                return
