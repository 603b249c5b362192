"""``referee scenario run``: the command line, the files it names, one report line per file."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import structlog

from referee.scenario.drivers import Driver, LibraryDriver
from referee.scenario.model import SCENARIO_SUFFIXES, ScenarioError
from referee.scenario.report import Report
from referee.scenario.run import DriverFactory, run_scenario
from referee.server.app import configure_logging


def scenario_files(paths: Sequence[str | os.PathLike[str]]) -> Iterator[str]:
    """Each path as given, or for a directory every scenario file below it, sorted."""
    for path in paths:
        name = os.fspath(path)
        if os.path.isdir(name):
            found = sorted(
                str(p)
                for p in Path(name).rglob("*")
                if p.is_file() and p.suffix in SCENARIO_SUFFIXES
            )
            yield from found
        else:
            yield name


USAGE = """usage: referee scenario run [--server HOST:PORT] [--keep-going] [--junit FILE] FILE...

Play each scenario file (YAML or JSON; a directory means every *.yaml, *.yml and *.json file
below it) against an in-process table, or with --server against a running referee over gRPC
(real seat tokens and streams). Prints `ok  FILE  (N steps)` per passing file, or the file's
first mismatch (--keep-going: every mismatch, one per line); --junit FILE also writes a JUnit
XML report. Exits 0 when every file passes, else 1. Format: docs/scenarios.md."""


@dataclass
class Options:
    files: list[str]
    server: str | None = None
    keep_going: bool = False
    junit: str | None = None


def parse_args(argv: list[str]) -> Options | str:
    """The command line, or the reason it is wrong."""
    options = Options(files=[])
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("--server", "--junit"):
            if not args:
                return f"{arg} needs a value"
            value = args.pop(0)
            if arg == "--server":
                options.server = value
            else:
                options.junit = value
        elif arg.startswith("--server=") or arg.startswith("--junit="):
            name, _, value = arg.partition("=")
            setattr(options, name[2:], value)
        elif arg == "--keep-going":
            options.keep_going = True
        elif arg.startswith("--"):
            return f"unknown option {arg}"
        else:
            options.files.append(arg)
    return options


def main(argv: list[str]) -> int:
    """``referee scenario run ...``: run each file, print its report, return 0/1."""
    if any(arg in ("-h", "--help") for arg in argv):
        print(USAGE)
        return 0
    options = parse_args(argv)
    if isinstance(options, str):
        print(f"referee scenario run: {options}\n{USAGE}")
        return 1
    files = list(scenario_files(options.files))
    if not files:
        print(USAGE)
        return 1
    if not structlog.is_configured():
        # The in-process referee logs as a server does: its warnings as JSON lines on stderr,
        # never its info lines among the report's lines on stdout.
        configure_logging(logging.WARNING)
    factory: DriverFactory = LibraryDriver
    mode = "library"
    if options.server is not None:
        from referee.scenario.remote import ServerDriver

        target = options.server

        def factory() -> Driver:
            return ServerDriver(target)

        mode = f"server {target}"
    report = Report(mode)
    for name in files:
        try:
            result = run_scenario(name, factory, keep_going=options.keep_going, mode=mode)
            lines = result.lines()
            report.add(name, result=result)
        except ScenarioError as error:
            lines = [f"ERROR  {error.path or name}  {error.detail}"]
            report.add(name, error=error.detail)
        except Exception as error:  # an engine or server bug: report it and keep going
            text = f"internal error: {type(error).__name__}: {error}"
            lines = [f"ERROR  {name}  {text}"]
            report.add(name, error=text)
        print("\n".join(lines), flush=True)
    if options.junit:
        report.write_junit(options.junit)
    return 0 if report.ok else 1


__all__ = [
    "USAGE",
    "Options",
    "main",
    "parse_args",
    "scenario_files",
]
