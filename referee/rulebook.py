"""The rules pages of the games (``docs/rules/<game>.md``) and the rule ids they define.

The pages are documentation of the repository: a checkout (the usual editable install) reads
them from ``docs/rules/``, a wheel built by ``make wheels`` or ``make compiled`` from its own
copy (:mod:`referee.shipped`). An install that has neither (a wheel built by hand) serves an
empty text, with the path still set.
"""

from __future__ import annotations

import re
from functools import cache

from referee import shipped

#: The rules pages' path relative to the repository root (what ``GameInfo.rules`` is served
#: under), and the folder this install reads them from.
RULES_FOLDER = "docs/rules"
RULES_DIR = shipped.location("rules", RULES_FOLDER)

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
