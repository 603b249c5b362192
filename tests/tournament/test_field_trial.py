"""What the field trial of referee-tournament stumbled on (issue 11): the README's --local hint
works on a shipped example."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from referee_tournament.__main__ import main

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_local_hint_runs_on_the_shipped_example(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [
        line.split("#")[0].split()
        for line in readme.splitlines()
        if line.startswith(".venv/bin/referee-tournament") and "--local" in line
    ]
    assert lines, "the README shows no --local tournament"
    for words in lines:
        args = words[1:]
        assert (ROOT / args[0]).is_file(), f"the README names {args[0]}, which is not shipped"
        monkeypatch.chdir(ROOT)
        assert main([*args, "--quiet", "--out", str(tmp_path / "out")]) == 0, shlex.join(words)
        out = capsys.readouterr().out
        assert re.search(r"\d+ games in .* \(\d+ ok, 0 fallback, 0 forfeit, 0 failed\)", out), out
