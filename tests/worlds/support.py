"""Shared helpers of the world-sampler tests: random positions and a chi-square check."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from scipy.stats import chisquare

from referee.engine import Table, TableSettings
from referee.search.worlds import Knowledge, World, knowledge_of, sample_world


def random_position(
    game_type: str,
    players: int,
    seed: int,
    steps: int,
    options: Mapping[str, str] | None = None,
    *,
    refereed: bool = False,
) -> Table[Any]:
    """A table after up to ``steps`` random legal commands (and, refereed, a few timeouts)."""
    rng = random.Random(seed)
    settings = TableSettings(forfeit_after_timeouts=3) if refereed else None
    table = Table.create(
        game_type, players, options or {}, seed.to_bytes(8, "big"), settings=settings
    )
    for _ in range(steps):
        if table.over:
            break
        pending = table.pending()
        if not pending:
            events = table.forfeited_play()
            if events is None:
                break
            table.extend(events)
            continue
        seat = rng.choice(pending)
        if refereed and rng.random() < 0.05:
            table.extend(table.time_out(seat))
            continue
        legal = table.legal_commands(seat)
        if not legal:
            events = table.forfeited_play()
            if events is None:
                break
            table.extend(events)
            continue
        table.submit(seat, rng.choice(legal))
    return table


def worlds(knowledge: Knowledge, count: int, salt: int = 0) -> list[World]:
    return [sample_world(knowledge, salt * 1_000_003 + i, check=False) for i in range(count)]


def assert_matches(
    observed: Counter[Hashable], expected: Mapping[Hashable, float], *, alpha: float = 1e-3
) -> None:
    """Chi-square goodness of fit of ``observed`` counts to the probabilities ``expected``
    (categories with an expected count below 5 are pooled); fails below ``alpha``."""
    total = sum(observed.values())
    assert set(observed) <= {k for k, p in expected.items() if p > 0}, (observed, expected)
    cells: list[tuple[float, int]] = []
    small_e, small_o = 0.0, 0
    for key, p in sorted(expected.items(), key=lambda kv: repr(kv[0])):
        e = p * total
        if e < 5:
            small_e += e
            small_o += observed.get(key, 0)
        else:
            cells.append((e, observed.get(key, 0)))
    if small_e > 0:
        cells.append((small_e, small_o))
    if len(cells) < 2:
        return
    result = chisquare([o for _, o in cells], [e for e, _ in cells])
    assert result.pvalue > alpha, (result, observed, expected)


def knowledge(table: Table[Any], seat: int) -> Knowledge:
    return knowledge_of(table, seat)


Check = Callable[[World], None]
