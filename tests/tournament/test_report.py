"""The outputs: the standings table, the chart (a real PNG) and the self-contained HTML."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from referee_tournament.config import parse
from referee_tournament.progress import Progress, bar
from referee_tournament.records import Fault, GameRecord, SeatRecord
from referee_tournament.report import chart_png, html_report, standings_text, write_outputs
from referee_tournament.schedule import GameSpec
from referee_tournament.tournament import build_results

PNG = b"\x89PNG\r\n\x1a\n"


def results() -> dict[str, object]:
    config = parse(
        {
            "name": "demo <&>",
            "seed": "x",
            "game": "vampire-queen",
            "players": 3,
            "bots": [{"name": n, "strategy": "random"} for n in ("alpha", "beta", "gamma")],
        }
    )
    records = []
    for index in range(3):
        seating = ("alpha", "beta", "gamma")[index:] + ("alpha", "beta", "gamma")[:index]
        spec = GameSpec(index, 0, "vampire-queen", 3, {}, "s", seating, 0)
        seats = [SeatRecord(i, bot, rank=i + 1, score=i * 5) for i, bot in enumerate(seating)]
        faults = [Fault("beta", 2, "crash", detail="exited with status 3")] if index == 2 else []
        if faults:
            seats[2].end, seats[2].end_rule_id = "abandoned", "ABANDONED"
            seats[2].end_reason = "seat 2 abandoned the game: the organiser removed it: crash"
            seats[2].rules_rank = 1
        records.append(
            GameRecord(
                spec=spec,
                status="ok",
                seats=seats,
                faults=faults,
                game_id=f"g{index}",
                commands=40,
                seconds=1.5,
                replay=f"games/{index:04d}-vampire-queen.json",
            )
        )
    return build_results(config, records, mode="network", features=None, seconds=4.5)


def test_standings_text() -> None:
    text = standings_text(results()["standings"])  # type: ignore[arg-type]
    lines = text.splitlines()
    assert lines[0].split()[:4] == ["#", "bot", "games", "win"]
    assert len(lines) == 4 and "crash 1" in text


def test_chart_is_a_png() -> None:
    png = chart_png(results()["standings"], "demo")  # type: ignore[arg-type]
    assert png.startswith(PNG) and len(png) > 1000


def test_html_is_self_contained_with_links_to_replays() -> None:
    data = results()
    page = html_report(data, b"\x89PNGfake")
    assert page.startswith("<!DOCTYPE html>")
    assert "data:image/png;base64," + base64.b64encode(b"\x89PNGfake").decode() in page
    assert 'href="games/0002-vampire-queen.json"' in page
    assert "demo &lt;&amp;&gt;" in page and "<&>" not in page  # escaped
    assert "exited with status 3" in page
    # Each seat that left, with how and why, as the referee recorded it.
    assert "Seats that left before the end" in page
    assert "seat 2 abandoned the game: the organiser removed it: crash" in page
    assert "beta (3, 10, abandoned)" in page
    assert "<script" not in page and "http" not in page  # nothing fetched


def test_write_outputs(tmp_path: Path) -> None:
    paths = write_outputs(results(), tmp_path)
    assert json.loads(paths["json"].read_text())["name"] == "demo <&>"
    assert paths["chart"].read_bytes().startswith(PNG)
    assert "standings chart" in paths["html"].read_text()


def test_progress_lines_and_bar() -> None:
    import io

    data = results()
    config = parse(
        {
            "game": "vampire-queen",
            "players": 3,
            "bots": [{"name": n, "strategy": "random"} for n in ("alpha", "beta", "gamma")],
        }
    )
    spec = GameSpec(0, 0, "vampire-queen", 3, {}, "s", ("alpha", "beta", "gamma"), 0)
    record = GameRecord(
        spec, "ok", [SeatRecord(i, b, i + 1, 0) for i, b in enumerate(spec.seating)]
    )
    out = io.StringIO()
    Progress(config, out, live=False)(record, 1, 3, [record])
    assert out.getvalue().startswith("[1/3] #0 vampire-queen deal 0: alpha 1, beta 2, gamma 3")
    live = io.StringIO()
    progress = Progress(config, live, live=True, every=0)
    progress(record, 1, 2, [record])
    progress(record, 2, 2, [record, record])
    assert "\x1b[" in live.getvalue() and bar(2, 2) in live.getvalue()
    assert data["summary"] == {"games": 3, "ok": 3, "no_show": 0, "failed": 0, "void": 0}


def test_progress_doctests() -> None:
    import doctest

    from referee_tournament import progress

    assert doctest.testmod(progress).failed == 0
