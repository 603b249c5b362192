"""What every command line of the project shares: ``--version`` and a help formatter that
shows each flag's default (when it has one worth showing) and keeps descriptions as written."""

from __future__ import annotations

import argparse
import re
import textwrap
from typing import Any

import referee
from referee import build

#: The protocol every command speaks; shown by --version with the package version.
PROTOCOL = "referee.v1"


def version_text(prog: str) -> str:
    return f"{prog} {referee.__version__} (game-referee, protocol {PROTOCOL})"


def version_lines(prog: str) -> str:
    """What ``--version`` prints: the version, then the build that runs (pure, or compiled and
    which modules: :mod:`referee.build`)."""
    return f"{version_text(prog)}\n{build.current().describe()}"


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs as written (line breaks kept); ``(default: X)`` after a flag's
    help when the flag has a default that is not empty, None or False."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        # Never break inside an id such as mau-mau-vampires: it must stay copyable.
        return textwrap.wrap(re.sub(r"\s+", " ", text).strip(), width, break_on_hyphens=False)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "%(default)" in text
            or "default:" in text
            or default in (None, False, "", [], argparse.SUPPRESS)
            or action.option_strings == []
        ):
            return text
        return f"{text} (default: %(default)s)"


def parser(prog: str, description: str, **kwargs: Any) -> argparse.ArgumentParser:
    """An ArgumentParser with the shared formatter and ``--version``."""
    made = argparse.ArgumentParser(
        prog=prog, description=description, formatter_class=HelpFormatter, **kwargs
    )
    add_version(made, prog)
    return made


def add_version(target: argparse.ArgumentParser, prog: str) -> None:
    target.add_argument(
        "--version",
        action="version",
        version=version_lines(prog),
        help="print the version and the build that runs (pure or compiled)",
    )


def subcommands(target: argparse.ArgumentParser, **kwargs: Any) -> Any:
    """``add_subparsers`` whose parsers use the shared formatter (and have ``--version``)."""
    commands = target.add_subparsers(**kwargs)
    original = commands.add_parser

    def add_parser(name: str, **options: Any) -> argparse.ArgumentParser:
        options.setdefault("formatter_class", HelpFormatter)
        if "help" in options and "description" not in options:
            options["description"] = options["help"][:1].upper() + options["help"][1:] + "."
        made: argparse.ArgumentParser = original(name, **options)
        add_version(made, target.prog.split()[0])
        return made

    commands.add_parser = add_parser  # type: ignore[method-assign]
    return commands
