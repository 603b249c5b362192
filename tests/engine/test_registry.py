"""Adding a game touches its own package: the registry finds every package under
``referee/games``, the wheel ships it, the conformance suite covers it, and its encoder and bot
give it a learning environment and a heuristic player.

A throwaway game (``tests/engine/example_game.py``, High Card, with its
``example_encoder.py`` and ``example_bot.py``) is put into a temporary game package and must be
found, registered, shipped, pass the conformance suite, get an environment (``referee.rl``) and
be played by the ``heuristic`` strategy (``referee.bots``, ``referee-bot``) with no edit to the
registry, ``pyproject.toml``, ``referee/rl``, the bot SDK or the tests. What a new game adds
besides its package (its proto file and the ``oneof`` lines) is checked for every game by
``tests/test_codec.py::test_the_proto_and_the_model_name_the_same_commands_and_events``.

On the wire (the last tests): a copy of the repository with High Card's package, a proto file
and the oneof lines only (tests/engine/fifth_game.py) is served, and ``referee-cli`` and the
web page built from that copy play it.
"""

from __future__ import annotations

import fnmatch
import inspect
import json
import os
import random
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from setuptools.config.pyprojecttoml import read_configuration

import referee.games
from referee import bots
from referee.engine import Game, Table, all_games, get_game, labels, registry
from tests.engine import fifth_game, test_conformance
from tests.engine.fifth_game import Served

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = Path(__file__).with_name("example_game.py")
#: The temporary package's optional modules (referee/engine/registry.py) and their sources.
PARTS = {
    registry.ENCODER: Path(__file__).with_name("example_encoder.py"),
    registry.BOT: Path(__file__).with_name("example_bot.py"),
}
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
def new_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Game[Any, Any, Any]]:
    """High Card as the package ``referee.games.high_card`` (in a temporary folder that is
    part of ``referee.games``), found by a fresh registry; everything restored afterwards."""
    package = tmp_path / NEW
    package.mkdir()
    shutil.copy(EXAMPLE, package / "__init__.py")
    for name, source in PARTS.items():
        shutil.copy(source, package / f"{name}.py")
    monkeypatch.setattr(referee.games, "__path__", [*referee.games.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_games", {})
    monkeypatch.setattr(registry, "_packages", {})
    monkeypatch.setattr(registry, "_loaded", False)
    try:
        yield get_game("high-card")
    finally:
        for name in [f"referee.games.{NEW}", *(f"referee.games.{NEW}.{p}" for p in PARTS)]:
            sys.modules.pop(name, None)
        if hasattr(referee.games, NEW):
            delattr(referee.games, NEW)


def test_a_new_game_package_is_found_and_registered(new_game: Game[Any, Any, Any]) -> None:
    assert f"referee.games.{NEW}" in registry.game_packages()
    assert type(new_game).__module__ == f"referee.games.{NEW}"
    assert [g.info.type_id for g in all_games()].count("high-card") == 1
    table = Table.create("high-card", 3, seed=b"found")
    while table.pending():
        seat = table.pending()[0]
        table.submit(seat, table.legal_commands(seat)[0])
    assert table.results() is not None


def test_a_new_game_package_gets_a_learning_environment(new_game: Game[Any, Any, Any]) -> None:
    """``referee.rl`` finds the package's encoder module: the game is listed, its spec comes
    from that module and PettingZoo's own API test passes on its environment."""
    rl = pytest.importorskip("referee.rl")
    import numpy as np
    from pettingzoo.test import api_test

    assert "high-card" in rl.games()
    spec = rl.spec("high-card", 3)
    assert spec.actions.module == f"referee.games.{NEW}.encoder"
    assert spec.reward_name == "rank" and spec.actions.size == 9
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Dict observations (as in tests/rl)
        api_test(rl.env("high-card", 3, seed=1), num_cycles=50, verbose_progress=False)
    aec = rl.env("high-card", 3, seed=2)
    aec.reset()
    final: dict[str, float] = {}
    for agent in aec.agent_iter():
        observation, reward, terminated, truncated, _ = aec.last()
        assert observation["observation"].shape == (spec.encoder.size,)
        if terminated or truncated:
            final[agent] = reward
            aec.step(None)
        else:
            aec.step(int(np.flatnonzero(observation["action_mask"])[0]))
    ranks = {f"seat_{r.seat}": r.rank for r in aec.table.results()}
    assert final == {agent: 1.0 - (rank - 1) for agent, rank in ranks.items()}  # rank reward


def test_a_new_game_package_gets_its_heuristic_bot(new_game: Game[Any, Any, Any]) -> None:
    """The package's bot is the ``heuristic`` strategy of the engine-level players, of the
    learning environments' opponents and of ``referee-bot``; it plays its highest card where
    ``random`` would not always."""
    strategy = bots.make_strategy("heuristic", "high-card")
    assert isinstance(strategy, bots.BotStrategy)
    assert type(strategy.bot).__module__ == f"referee.games.{NEW}.bot"
    assert bots.effective_name("heuristic", "high-card") == "heuristic"
    rng = random.Random(0)
    for seed in range(20):
        table = Table.create("high-card", 2, seed=b"bot %d" % seed)
        while table.pending():
            seat = table.pending()[0]
            view = table.view(seat)
            command = strategy.choose(view, 2, rng)
            assert command == max(view.legal_commands, key=lambda c: c.card)
            table.submit(seat, command)
    from referee_bot.strategies import GameBot, known_games, make_strategy

    sdk = make_strategy("heuristic", "high-card")
    assert isinstance(sdk, GameBot) and sdk.bot is strategy.bot
    assert "high-card" in known_games()
    rl = pytest.importorskip("referee.rl")
    result = rl.evaluate("heuristic", "high-card", deals=4, seed="registry", baseline=None)
    assert result.games == 8 and result.opponents == ["random"]


def test_a_game_without_encoder_or_bot_has_no_environment_and_plays_at_random(
    new_game: Game[Any, Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both parts are optional to the registry: without them the game has no environment (a
    clear error) and ``heuristic`` plays it at random (docs/writing-a-game.md)."""
    monkeypatch.setattr(registry, "_packages", {})  # as if registered without its package
    assert registry.game_module("high-card", registry.BOT) is None
    # Nor does the registry need its labels: a game without ``view_text`` sends no view lines.
    assert (
        labels.view_lines("high-card", Table.create("high-card", 2, seed=b"x").view(0).game) == ()
    )
    assert isinstance(bots.make_strategy("heuristic", "high-card"), bots.RandomStrategy)
    assert bots.effective_name("heuristic", "high-card") == "random"
    rl = pytest.importorskip("referee.rl")
    assert "high-card" not in rl.games()
    with pytest.raises(ValueError, match="no environment for game 'high-card'"):
        rl.spec("high-card", 2)


def _conformance_tests() -> list[Any]:
    return [
        test
        for name, test in vars(test_conformance).items()
        if name.startswith("test_") and "game" in inspect.signature(test).parameters
    ]


@pytest.mark.parametrize("test", _conformance_tests(), ids=lambda t: t.__name__)
def test_the_conformance_suite_covers_a_new_game(new_game: Game[Any, Any, Any], test: Any) -> None:
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


# --- on the wire: the CLI and the web page (tests/engine/fifth_game.py) -----------------------


@pytest.fixture(scope="module")
def wire_game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Served]]:
    """A copy of the repository with High Card, its proto and oneof lines, served."""
    root = fifth_game.build(tmp_path_factory.mktemp("fifth") / "repo")
    served = Served(root, root.parent / "server.log")
    try:
        yield root, served
    finally:
        served.stop()


def test_the_copy_differs_only_by_what_a_new_game_adds(wire_game: tuple[Path, Served]) -> None:
    root, _ = wire_game
    built = {"__pycache__", "node_modules", "dist", "gen"}  # what builds and runs leave

    def differs(path: Path) -> bool:
        original = ROOT / path.relative_to(root)
        return not original.is_file() or original.read_bytes() != path.read_bytes()

    changed = {
        str(path.relative_to(root))
        for path in root.rglob("*")
        if path.is_file() and not built & set(path.parts) and differs(path)
    }
    generated = {p for p in changed if p.startswith("referee/v1/") and "_pb2" in p}
    assert changed - generated == {
        "referee/games/high_card/__init__.py",
        "protos/referee/v1/high_card.proto",
        "protos/referee/v1/referee.proto",
    }


def test_the_cli_plays_a_new_game_with_no_other_file_touched(
    wire_game: tuple[Path, Served],
) -> None:
    root, served = wire_game
    argv = ["new", "--server", served.address, "--game", "high-card", "--players", "2"]
    argv += ["--bots", "1", "--bot-strategy", "random", "--seed", "fifth-game"]
    out = subprocess.run(
        [sys.executable, "-m", "referee_cli", *argv],
        input="1\n" * 20,
        capture_output=True,
        text=True,
        cwd=root,
        env=fifth_game.environment(root),
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    screen = out.stdout
    assert "== High Card | game " in screen, "the name from ListGameTypes"
    assert re.search(r"\nYour hand \(2\): \d \d\n", screen), "the view's hand"
    assert re.search(r"\n> seat 0 \(you\) +2 +0\n  seat 1 +2 +0\n", screen), "sizes, scores"
    labels = re.findall(r"\n1\) (.+)\n", screen)
    assert labels and all(re.fullmatch(r"play \(card \d\)", label) for label in labels)
    assert re.search(r"\nseat 0 is dealt|\nhand dealt", screen), "the server's event lines"
    assert "\nFinal standings: 1. seat " in screen


NODE_MODULES = ROOT / "clients" / "web" / "node_modules"
SDK_NODE_MODULES = ROOT / "clients" / "ts-sdk" / "node_modules"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

#: Plays High Card from the copy's web page (its own test helpers, clients/web/tests).
PLAY_IN_CHROMIUM = """
import { BASE, createFromHome, launch, playToEnd } from "%(browser)s";
const browser = await launch();
const page = await browser.newPage();
const errors = [];
page.on("pageerror", (e) => errors.push(e.message));
await page.goto(`${BASE}/#/`);
const listed = await page.locator("#type-high-card h2").innerText();
await createFromHome(page, "high-card", { players: 2 });
const hand = await page.locator("[data-hand] .card").count();
const made = await playToEnd(page);
await page.locator("table.results").waitFor();
const heading = await page.locator("h1").innerText();
console.log(JSON.stringify({ listed, hand, made, heading, errors }));
await browser.close();
"""


def test_the_web_page_plays_a_new_game_with_no_other_file_touched(
    wire_game: tuple[Path, Served],
) -> None:
    missing = [
        what
        for what, there in [
            ("node", shutil.which("node") is not None),
            ("clients/web/node_modules", (NODE_MODULES / "playwright-core").is_dir()),
            ("clients/ts-sdk/node_modules", (SDK_NODE_MODULES / "@bufbuild").is_dir()),
            (f"Chromium at {CHROMIUM}", Path(CHROMIUM).exists()),
        ]
        if not there
    ]
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the web page of a new game cannot be tried in CI: no {missing}")
        pytest.skip(f"no {', '.join(missing)}")
    root, served = wire_game
    web, sdk = root / "clients" / "web", root / "clients" / "ts-sdk"
    (web / "node_modules").symlink_to(NODE_MODULES)
    (sdk / "node_modules").symlink_to(SDK_NODE_MODULES)
    env = dict(fifth_game.environment(root), PYTHON=sys.executable)
    # As `make web` does: the SDK's code generated from the copy's protos (High Card's
    # included), then the page's re-exports of it, its type check and its build.
    for command, folder in (
        (["npm", "run", "--silent", "gen"], sdk),
        (["node", "scripts/gen.mjs"], web),
        (["npx", "tsc", "--noEmit"], web),
        (["npx", "vite", "build"], web),
    ):
        built = subprocess.run(
            command, cwd=folder, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert built.returncode == 0, f"{command}: {built.stdout}{built.stderr}"
    script = root.parent / "play.mjs"
    script.write_text(PLAY_IN_CHROMIUM % {"browser": (web / "tests" / "browser.mjs").as_uri()})
    played = subprocess.run(
        ["node", str(script)],
        cwd=web,
        env=dict(env, REFEREE_URL=f"http://{served.http}", CHROMIUM=CHROMIUM),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert played.returncode == 0, played.stdout + played.stderr
    result = json.loads(played.stdout.strip().splitlines()[-1])
    assert result["listed"] == "High Card"
    assert result["hand"] == 2, "the view's hand, as cards"
    assert result["made"] >= 1 and result["heading"].startswith("High Card")
    assert result["errors"] == []
