"""``--version`` and ``--help`` of every command: every flag described, its default
shown, the game ids listed where a flag takes one, no raw markup."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import referee
from referee import build as builds
from referee import cli
from referee.engine.registry import all_games
from referee_bot import __main__ as bot_main
from referee_cli import app as cli_app
from referee_tournament import __main__ as tournament_main

BIN = Path(sys.executable).parent
GAME_IDS = sorted(game.info.type_id for game in all_games())
PARSERS: dict[str, Callable[[], argparse.ArgumentParser]] = {
    "referee": cli.build_parser,
    "referee-cli": cli_app.build_parser,
    "referee-bot": bot_main._parser,
    "referee-tournament": tournament_main._parser,
}
#: Markup of docstrings that must not reach a terminal.
MARKUP = ("``", ":mod:", ":func:", ":class:", "**", "](")


def walk(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from walk(sub)


def every_parser() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for build in PARSERS.values():
        for parser in walk(build()):
            yield parser.prog, parser


ALL = list(every_parser())


@pytest.mark.parametrize("program", sorted(PARSERS))
def test_version_on_every_command(program: str) -> None:
    script = BIN / program
    if not script.exists():
        pytest.skip(f"{program} is not installed beside {sys.executable}")
    done = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    # The first line, then the build (one line for the pure source, the compiled build's
    # module list on the lines after its own).
    version, described = done.stdout.split("\n", 1)
    assert version == f"{program} {referee.__version__} (game-referee, protocol referee.v1)"
    assert described == builds.current().describe() + "\n"


@pytest.mark.parametrize(("prog", "parser"), ALL, ids=[prog for prog, _ in ALL])
def test_every_flag_is_described_with_its_default(
    prog: str, parser: argparse.ArgumentParser
) -> None:
    text = parser.format_help()
    assert parser.description, f"{prog} has no description"
    for marker in MARKUP:
        assert marker not in text, f"{prog} --help shows raw markup {marker!r}"
    assert "--version" in text
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
            continue
        name = "/".join(action.option_strings) or action.dest
        assert action.help, f"{prog} {name}: no description"
        shown = action.default not in (None, False, "", argparse.SUPPRESS) and not (
            isinstance(action, argparse._VersionAction)
        )
        if shown and action.option_strings:
            flat = re.sub(r"\s+", " ", text)
            assert f"default: {action.default}" in flat or "default:" in action.help, (
                f"{prog} {name}: default {action.default!r} not shown"
            )


@pytest.mark.parametrize(("prog", "parser"), ALL, ids=[prog for prog, _ in ALL])
def test_flags_that_take_a_game_list_the_game_ids(
    prog: str, parser: argparse.ArgumentParser
) -> None:
    for action in parser._actions:
        if action.dest != "game":
            continue
        help_text = action.help or ""
        for game_id in GAME_IDS:
            assert game_id in help_text, f"{prog} {action.option_strings}: {game_id} missing"
    # Game ids stay whole in the wrapped text (never split at their hyphens).
    text = parser.format_help()
    if any(action.dest == "game" for action in parser._actions):
        for game_id in GAME_IDS:
            assert game_id in text, f"{prog}: {game_id} is broken across lines"


def test_the_default_shown_is_the_default_used() -> None:
    help_text = re.sub(r"\s+", " ", dict(ALL)["referee serve"].format_help())
    assert "(default: info)" in help_text
    assert "(default: 127.0.0.1:50051)" in help_text
    parsed = cli.build_parser().parse_args(["serve"])
    assert parsed.log_level == "info" and parsed.listen == "127.0.0.1:50051"
