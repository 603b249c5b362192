"""Any value in plain words, from its class and fields: the text of a command or an event
of a game with no text of its own.

It lives below :mod:`referee.engine.game`, which uses it, and imports nothing of the engine
(:mod:`referee.engine.labels` imports the table's events, which import the game interface).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any


def plain_words(value: Any) -> str:
    """A value in plain words from its class and fields, for a game with no text of its own
    (``Game.command_label``'s default).

    >>> from dataclasses import make_dataclass
    >>> Decision = make_dataclass("Decision", [("seat", int), ("kind", str), ("rule_id", str)])
    >>> plain_words(Decision(seat=2, kind="follow", rule_id="VQ-7"))
    'decision (seat 2, kind follow, rule id VQ-7)'
    """
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", type(value).__name__.lstrip("_")).lower()
    if not dataclasses.is_dataclass(value):
        return words
    parts = [
        f"{each.name.replace('_', ' ')} {_plain_value(getattr(value, each.name))}"
        for each in dataclasses.fields(value)
    ]
    return f"{words} ({', '.join(parts)})" if parts else words


def _plain_value(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(map(_plain_value, value)) + "]"
    name = getattr(value, "name", None)  # an enum member: its name, in lower case
    return name.lower().replace("_", " ") if isinstance(name, str) else str(value)
