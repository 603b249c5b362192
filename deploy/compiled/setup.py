"""The compiled build (``make compiled``): the same source, with the rules modules of every game
and the engine's per-command path compiled by mypyc, as a wheel.

``make compiled`` copies the working tree into ``build/compiled/src`` with this file as its
``setup.py`` and builds the wheel there, never in place: no extension lies beside a ``.py`` of
the working tree to outlive an edit of it. The wheel holds each compiled module's ``.py`` as
well (``referee.engine.fields`` reads the field annotations of a compiled dataclass from it).
The package's metadata is ``pyproject.toml``'s; this adds the extension modules only.
"""

from __future__ import annotations

import os
from pathlib import Path

from mypyc.build import mypycify
from setuptools import setup

#: What is compiled: the engine's per-command path and every game's rules (its values, state,
#: decisions, events applied, views and sampled worlds); the rest stays Python. Not
#: ``openings.py``: a compiled dataclass's ``ClassVar`` (its ``WIRE_FIELDS``) reaches
#: ``dataclasses`` as a field with a default, which refuses the class; nor, as its events
#: subclass them, ``table_events.py`` (an interpreted class cannot subclass a compiled one).
ENGINE = [
    "referee/engine/chance.py",
    "referee/engine/endings.py",
    "referee/engine/fields.py",
    "referee/engine/game.py",
    "referee/engine/leaving.py",
    "referee/engine/merkle.py",
    "referee/engine/outcomes.py",
    "referee/engine/parts.py",
    "referee/engine/search_table.py",
    "referee/engine/seatings.py",
    "referee/engine/table.py",
]
#: A game's modules that are not compiled: its bot, its protobuf encoder and its labels.
NOT_RULES = {"__init__.py", "bot.py", "encoder.py", "labels.py"}
#: Nor Mau Mau Vampires' values: a compiled module binds none of the names of a star import
#: (``from .cards import *``, its re-export of the cards).
NOT_COMPILED = {"referee/games/mau_mau_vampires/model.py"}


def rules_modules() -> list[str]:
    games = sorted(Path("referee/games").glob("*/**/*.py"))
    return [
        str(path)
        for path in games
        if path.name not in NOT_RULES and path.as_posix() not in NOT_COMPILED
    ]


modules = os.environ.get("REFEREE_COMPILE")  # a smaller set, for a quick try
setup(
    ext_modules=mypycify(
        modules.split() if modules else ENGINE + rules_modules(),
        opt_level=os.environ.get("REFEREE_MYPYC_OPT", "3"),
        debug_level="0",
    )
)
