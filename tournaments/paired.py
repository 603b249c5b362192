"""Paired duplicate-deal comparison of one bot with the others, from a tournament's games/.

    python tournaments/paired.py OUT_DIR [BOT]

Per deal, the bot's mean over its seatings minus the others' mean (win: rank 1; points: the
seat's rank scaled to [0, 1]; score: the game's score), then the mean of those differences
over the deals with a 95% normal interval (1.96 standard errors): the deal's luck cancels.
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from pathlib import Path


def main() -> None:
    out = Path(sys.argv[1])
    bot = sys.argv[2] if len(sys.argv) > 2 else "search"
    by_deal: dict[int, dict[str, list[list[float]]]] = defaultdict(
        lambda: {"bot": [], "others": []}
    )
    for path in sorted((out / "games").glob("*.json")):
        game = json.loads(path.read_text())
        results = game["final_view"].get("results") or []
        players = game["players"]
        for seat, name in enumerate(game["seating"]):
            got = next(
                (r for r in results if r.get("seat", 0) == seat), {"rank": players, "score": 0}
            )
            rank = got.get("rank", 0)
            row = [
                1.0 if rank == 1 else 0.0,
                (players - rank) / (players - 1),
                float(got.get("score", 0)),
            ]
            by_deal[game["deal"]]["bot" if name == bot else "others"].append(row)
    games = sum(len(d["bot"]) for d in by_deal.values())
    print(f"{out.name}: {len(by_deal)} deals, {games} games of {bot}")
    for i, label in enumerate(("win", "points", "score")):
        diffs, mine = [], []
        for deal in by_deal.values():
            if deal["bot"] and deal["others"]:
                a = sum(r[i] for r in deal["bot"]) / len(deal["bot"])
                b = sum(r[i] for r in deal["others"]) / len(deal["others"])
                diffs.append(a - b)
                mine.append(a)
        n = len(diffs)
        if n < 2:
            continue
        mean = sum(diffs) / n
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
        half = 1.96 * sd / math.sqrt(n)
        print(
            f"  {label:6} {bot} {sum(mine) / n:.3f}, minus the others {mean:+.3f} "
            f"[{mean - half:+.3f}, {mean + half:+.3f}]"
        )


if __name__ == "__main__":
    main()
