"""The compiled build (``make compiled``): the same source, with the rules modules of every game
and the engine's per-command path compiled by mypyc, as a wheel.

``make compiled`` copies the working tree into ``build/compiled/src`` with this file as its
``setup.py`` and builds the wheel there, never in place: no extension lies beside a ``.py`` of
the working tree to outlive an edit of it. The wheel holds each compiled module's ``.py`` as
well (``referee.engine.fields`` reads the field annotations of a compiled dataclass from it).
The package's metadata is ``pyproject.toml``'s; this adds the extension modules, and writes
``referee/_compiled.py``, the record :mod:`referee.build` checks at import: which modules are
compiled, the sha256 of each one's source, and mypyc's shared library.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from mypyc.build import mypycify
from setuptools import setup

#: What is compiled: the engine's per-command path, every game's rules (its values, state,
#: decisions, events applied, views and sampled worlds) and the protobuf codec; the rest stays
#: Python.
ENGINE = [
    "referee/codec.py",
    "referee/engine/chance.py",
    "referee/engine/endings.py",
    "referee/engine/fields.py",
    "referee/engine/game.py",
    "referee/engine/leaving.py",
    "referee/engine/merkle.py",
    "referee/engine/openings.py",
    "referee/engine/outcomes.py",
    "referee/engine/parts.py",
    "referee/engine/search_table.py",
    "referee/engine/seatings.py",
    "referee/engine/table.py",
    "referee/engine/table_events.py",
]
#: A game's modules that are not compiled: its bot, its protobuf encoder and its labels.
NOT_RULES = {"__init__.py", "bot.py", "encoder.py", "labels.py"}
#: Nor Mau Mau Vampires' values (compilable): a compiled dataclass refuses, when it is made, a
#: field of another type than annotated, where the pure one is made and the rules refuse it
#: with a rule id (what a library caller gets); the game's tests make such commands when
#: they are collected, so none of them would run on the compiled build.
NOT_COMPILED = {"referee/games/mau_mau_vampires/model.py"}


def rules_modules() -> list[str]:
    games = sorted(Path("referee/games").glob("*/**/*.py"))
    return [
        str(path)
        for path in games
        if path.name not in NOT_RULES and path.as_posix() not in NOT_COMPILED
    ]


def module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def write_record(paths: list[str], extensions: list[object]) -> None:
    """``referee/_compiled.py`` in this copy of the source (never the working tree's)."""
    digests = {module_name(p): hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in paths}
    shared = [name for e in extensions if (name := str(getattr(e, "name", ""))).endswith("__mypyc")]
    lines = [
        '"""Written by deploy/compiled/setup.py when the compiled build was built: the',
        "modules it compiled, each with the sha256 of its source, and mypyc's shared library",
        '(referee.build checks them at import)."""',
        "",
        f"SHARED = {(shared[0] if shared else '')!r}",
        "MODULES = {",
        *(f"    {name!r}: {digest!r}," for name, digest in sorted(digests.items())),
        "}",
        "",
    ]
    Path("referee/_compiled.py").write_text("\n".join(lines), encoding="utf-8")


chosen = os.environ.get("REFEREE_COMPILE")  # a smaller set, for a quick try
paths = chosen.split() if chosen else ENGINE + rules_modules()
extensions = mypycify(
    paths,
    opt_level=os.environ.get("REFEREE_MYPYC_OPT", "3"),
    debug_level="0",
)
write_record(paths, extensions)
setup(ext_modules=extensions)
