"""The Python examples in docs/ run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _blocks(name: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / name).read_text(), flags=re.S)


@pytest.mark.parametrize("block", _blocks("embedding.md"))
def test_embedding_examples_run(block: str) -> None:
    exec(compile(block, "docs/embedding.md", "exec"), {})
