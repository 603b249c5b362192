"""The tournament's outputs: the standings as text, the chart (PNG) and the HTML report."""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

FAULT_ORDER = (
    "crash",
    "hang",
    "game_timeout",
    "absent",
    "rejected",
    "timeout",
    "disconnect",
)


def fault_text(faults: Mapping[str, int]) -> str:
    """``crash 1, hang 2`` (known kinds first), ``-`` for none."""
    kinds = [k for k in FAULT_ORDER if faults.get(k)] + sorted(
        k for k in faults if k not in FAULT_ORDER and faults[k]
    )
    return ", ".join(f"{k} {faults[k]}" for k in kinds) or "-"


def _percent(value: float) -> str:
    return f"{100 * value:.1f}"


def standings_rows(standings: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """Header and one row per bot, as text cells."""
    swiss = any(row.get("points") is not None for row in standings)
    header = ["#", "bot", "games", "win %", "95% CI", "mean rank", "mu", "sigma", "ordinal"]
    if swiss:
        header.insert(2, "points")
    # How often it left a game before the end (each ranked below every finisher), its
    # timeouts, absences and the referee's default moves, then every fault by kind.
    header += ["left", "timeouts", "absent", "default moves", "faults"]
    rows = [header]
    for row in standings:
        low, high = row["win_rate_ci95"]
        rating = row["rating"]
        cells = [
            str(row["place"]),
            str(row["bot"]),
            str(row["games"]),
            _percent(row["win_rate"]),
            f"{_percent(low)}-{_percent(high)}",
            "-" if row["mean_rank"] is None else f"{row['mean_rank']:.2f}",
            f"{rating['mu']:.2f}",
            f"{rating['sigma']:.2f}",
            f"{rating['ordinal']:.2f}",
        ]
        if swiss:
            cells.insert(2, f"{row['points']:.2f}")
        cells += [
            left_text(row.get("left", 0), row.get("ends", {})),
            str(row.get("timeouts", 0)),
            str(row.get("absences", 0)),
            str(row.get("default_moves", 0)),
            fault_text(row["faults"]),
        ]
        rows.append(cells)
    return rows


def standings_text(standings: Sequence[Mapping[str, Any]]) -> str:
    """A plain-text table of the standings."""
    rows = standings_rows(standings)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [
            c.ljust(w) if i in (1, len(r) - 1) else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def left_text(count: int, ends: Mapping[str, int]) -> str:
    """``3 (resigned 1, abandoned 2)``, ``0``."""
    if not count:
        return "0"
    kinds = ", ".join(f"{end} {n}" for end, n in sorted(ends.items()) if n)
    return f"{count} ({kinds})" if kinds else str(count)


def chart_png(standings: Sequence[Mapping[str, Any]], title: str) -> bytes:
    """Two panels: each bot's rating (mu, with mu - 3 sigma .. mu + 3 sigma) and its win rate
    with the 95% Wilson interval; best bot on top."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    names = [str(row["bot"]) for row in standings][::-1]
    mus = [row["rating"]["mu"] for row in standings][::-1]
    sigmas = [3 * row["rating"]["sigma"] for row in standings][::-1]
    rates = [100 * row["win_rate"] for row in standings][::-1]
    lows = [100 * (row["win_rate"] - row["win_rate_ci95"][0]) for row in standings][::-1]
    highs = [100 * (row["win_rate_ci95"][1] - row["win_rate"]) for row in standings][::-1]
    height = 1.2 + 0.45 * len(names)
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, height), sharey=True)
    positions = list(range(len(names)))
    left.errorbar(mus, positions, xerr=sigmas, fmt="o", color="#1f5f9f", capsize=4)
    left.set_yticks(positions, names)
    left.set_xlabel("rating: mu and mu ± 3 sigma (ordinal = left end)")
    left.grid(axis="x", alpha=0.3)
    right.barh(positions, rates, color="#8fb3d9")
    right.errorbar(rates, positions, xerr=[lows, highs], fmt="none", color="#333333", capsize=4)
    right.set_xlim(0, 100)
    right.set_xlabel("win rate % with 95% Wilson interval")
    right.grid(axis="x", alpha=0.3)
    figure.suptitle(title)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    return buffer.getvalue()


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #ddd; text-align: right; }
th { background: #f2f2f2; }
td.text, th.text { text-align: left; }
.status-ok { color: #2a7a2a; } .status-no_show { color: #a06000; }
.status-failed, .status-void { color: #b00020; }
small { color: #666; }
"""


def _table(rows: list[list[str]], text_columns: Sequence[int] = (1,)) -> str:
    def cell(tag: str, i: int, value: str) -> str:
        cls = ' class="text"' if i in text_columns or i == len(rows[0]) - 1 else ""
        return f"<{tag}{cls}>{value}</{tag}>"

    head = "".join(cell("th", i, html.escape(v)) for i, v in enumerate(rows[0]))
    body = "".join(
        "<tr>" + "".join(cell("td", i, html.escape(v)) for i, v in enumerate(r)) + "</tr>"
        for r in rows[1:]
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_report(results: Mapping[str, Any], chart: bytes) -> str:
    """A self-contained page: standings, the chart (inline PNG), standings per game, faults,
    and every game with a link to its replay data (JSON next to the report)."""
    esc = html.escape
    name = esc(str(results["name"]))
    summary = results["summary"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{name}: tournament report</title><style>{_STYLE}</style></head><body>",
        f"<h1>{name}</h1>",
        "<p>"
        + esc(
            f"format {results['format']}, {results['mode']} mode, seed {results['seed']!r}; "
            f"{summary['games']} games ({summary['ok']} ok, {summary['no_show']} ended by a "
            f"no-show, {summary['failed']} failed, {summary.get('void', 0)} void: a bot absent) "
            f"in {results['seconds']:.1f} s"
        )
        + "</p>",
        "<h2>Standings</h2>",
        _table(standings_rows(results["standings"])),
        "<p><small>Sorted by the rating's ordinal (mu - 3 sigma, openskill Plackett-Luce)"
        + (", after Swiss points" if results["format"] == "swiss" else "")
        + "; a win is a first place (shared or not); 95% Wilson intervals. Every rank is the "
        "referee's: a seat that left a game before its end (resigned, forfeited on time, "
        "abandoned, absent) ranks below every seat that finished it.</small></p>",
        '<img alt="standings chart" src="data:image/png;base64,'
        + base64.b64encode(chart).decode("ascii")
        + '">',
    ]
    left = [
        [
            str(g["index"]),
            g["game"],
            str(s["bot"]),
            str(s["seat"]),
            str(s["end"]),
            str(s.get("end_rule_id") or "-"),
            str(s["rank"]),
            "-" if s.get("rules_rank") is None else str(s["rules_rank"]),
            str(s.get("end_reason") or ""),
        ]
        for g in results["games"]
        for s in g["seats"]
        if s.get("end", "finished") != "finished"
    ]
    if left:
        parts += [
            "<h2>Seats that left before the end</h2>",
            "<p>"
            + esc(
                "How each seat that did not finish ended, and why, as the referee recorded it. "
                "Its rank is below every seat that finished; the rules' rank is what the "
                "referee's default moves made of its hand, never credited to the bot."
            )
            + "</p>",
            _table(
                [
                    ["game", "type", "bot", "seat", "end", "rule", "rank", "rules' rank", "reason"],
                    *left,
                ],
                text_columns=(1, 2, 4, 5, 8),
            ),
        ]
    for label, rows in results["by_game"].items():
        parts += [f"<h2>{esc(label)}</h2>", _table(standings_rows(rows))]
    faults = [
        [
            str(g["index"]),
            g["game"],
            f["bot"],
            str(f["seat"]),
            f["kind"],
            str(f["count"]),
            f["detail"],
        ]
        for g in results["games"]
        for f in g["faults"]
    ]
    if faults:
        parts += [
            "<h2>Faults</h2>",
            _table(
                [["game", "type", "bot", "seat", "kind", "count", "detail"], *faults],
                text_columns=(1, 2, 4, 6),
            ),
        ]
    parts += ["<h2>Games</h2>", _games_table(results["games"])]
    parts.append("</body></html>")
    return "\n".join(parts)


def _games_table(games: Sequence[Mapping[str, Any]]) -> str:
    esc = html.escape
    rows = [
        "<table><thead><tr><th>#</th><th class='text'>game</th><th>deal</th><th>round</th>"
        "<th class='text'>seats: bot (rank, score, end)</th><th class='text'>status</th>"
        "<th>commands</th><th>s</th><th class='text'>replay</th></tr></thead><tbody>"
    ]
    for game in games:
        seats = ", ".join(
            f"{s['seat']}: {s['bot']} ({s['rank']}, {'-' if s['score'] is None else s['score']}"
            + ("" if s.get("end", "finished") == "finished" else f", {s['end']}")
            + ")"
            for s in game["seats"]
        )
        replay = game.get("replay")
        link = f'<a href="{esc(replay)}">{esc(Path(replay).name)}</a>' if replay else "-"
        rows.append(
            f"<tr><td>{game['index']}</td><td class='text'>{esc(game['game'])}</td>"
            f"<td>{game['deal']}</td><td>{game['round'] or '-'}</td>"
            f"<td class='text'>{esc(seats)}</td>"
            f"<td class='text status-{esc(game['status'])}'>{esc(game['status'])}</td>"
            f"<td>{game['commands']}</td><td>{game['seconds']:.2f}</td>"
            f"<td class='text'>{link}</td></tr>"
        )
    rows.append(
        "</tbody></table><p><small>A seat that resigned, forfeited on time, was abandoned or "
        "was absent is named so; the referee played its default commands from then on, and "
        "ranked it below every seat that finished.</small></p>"
    )
    return "".join(rows)


def write_outputs(results: Mapping[str, Any], out: Path) -> dict[str, Path]:
    """results.json, standings.png and report.html in ``out``."""
    import json

    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out / "results.json",
        "chart": out / "standings.png",
        "html": out / "report.html",
    }
    paths["json"].write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    chart = chart_png(results["standings"], f"{results['name']} ({results['format']})")
    paths["chart"].write_bytes(chart)
    paths["html"].write_text(html_report(results, chart), encoding="utf-8")
    return paths
