"""The rules pages of the games (``docs/rules/<game>.md``) and the rule ids they define.

The pages are documentation of the repository, not package data: the server serves them from
the source tree it runs from (the usual editable install) and serves an empty text, with the
path still set, when it was installed without them.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

#: The repository's rules folder, and its path relative to the repository root.
RULES_DIR = Path(__file__).resolve().parent.parent / "docs" / "rules"
RULES_FOLDER = "docs/rules"

#: A rule is a list item that starts with its id in bold: ``- **VQ-7** ...``.
RULE_ID_LINE = re.compile(r"^- \*\*([A-Z]+-\d+)\*\*", flags=re.M)


def rules_path(rules_file: str) -> str:
    """Where a game's page is, relative to the repository root (``GameInfo.rules`` names
    the file)."""
    return f"{RULES_FOLDER}/{rules_file}"


@cache
def rules_text(rules_file: str) -> str:
    """The page's Markdown, or ``""`` when this install has no docs folder."""
    try:
        return (RULES_DIR / rules_file).read_text(encoding="utf-8")
    except OSError:
        return ""


def rule_ids(text: str) -> list[str]:
    """The rule ids a page defines, in the order it defines them."""
    return RULE_ID_LINE.findall(text)
