"""``referee bench --quick --only P8`` writes its figures (a smoke test: no speed asserted)."""

from __future__ import annotations

import json
from pathlib import Path

from referee.cli import main
from referee.rl import games


def test_quick_p8_writes_json_and_markdown(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    assert main(["bench", "--quick", "--only", "P8", "--out", str(out)]) == 0
    report = json.loads((out / "bench.json").read_text())
    assert report["meta"]["parts"] == ["P8"]
    p8 = report["results"]["P8"]
    assert {row["game"] for row in p8["games"]} == set(games())
    for row in p8["games"]:
        assert row["steps"] > 0 and row["steps_per_second"] > 0
        assert row["encode_us"] > 0 and row["mask_us"] > 0
        # Both drivers: the docs' loop (the target's) and the bench's cheap pick.
        assert row["cheap_steps_per_second"] > 0
    # Each peer is measured or skipped with a note (rlcard and pygame come with `bench`).
    assert len(p8["peers"]) + len(p8["notes"]) >= 1
    if p8["peers"]:
        assert p8["drivers"] == ["user", "cheap"]
        assert p8["min_ratio"] == min(row["ratio_to_target_peer"] for row in p8["games"])
        for row in p8["games"]:
            assert row["ratio"].keys() == row["cheap_ratio"].keys()
    markdown = (out / "bench.md").read_text()
    assert "| P8 |" in markdown and "## P8 learning environments" in markdown
