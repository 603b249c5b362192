"""Fixed deals written like the rules: each seat's five district cards, the top of the draw
deck, and the named choices ``dracula`` and ``track`` (protocol: ``vampire_queen/deal.py``).

>>> read_card("y3"), hand_size(2)
('Y3', 5)
>>> picks(2, {"dracula": "random"}, {"dracula": 1, "track": ["red", "yellow", "purple"]})
(1, 2, 0, 1)
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.games.dracula_vs_van_helsing.model import (
    COLOURS,
    DECK,
    DISTRICTS,
    card_code,
    notation,
)

#: DV-5: five cards to each seat by district, the rest is the draw deck.
AFTER_HANDS = ("draw",)
#: ``dracula``: Dracula's seat (when option ``dracula`` is ``random``); ``track``: the colour
#: track, trump first (DV-4), as colour names: three or all four.
CHOICES = ("dracula", "track")


def hand_size(players: int) -> int:
    return DISTRICTS


def read_card(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f'a card is a colour letter and a value 1-8 ("Y3"), got {value!r}')
    return notation(card_code(value))


def shuffle_pool(index: int) -> tuple[str, ...] | None:
    """Every round shuffles all 32 cards (DV-5)."""
    return DECK


def picks(
    players: int, options: Mapping[str, str], choices: Mapping[str, object]
) -> tuple[int, ...]:
    dracula = choices.get("dracula", 0)
    if "dracula" in choices and options.get("dracula", "random") != "random":
        raise ValueError("dracula: option dracula already names Dracula's seat")
    if isinstance(dracula, bool) or dracula not in (0, 1):
        raise ValueError(f"dracula: expected seat 0 or 1, got {dracula!r}")
    names = [colour.name.lower() for colour in COLOURS]
    track = choices.get("track", names)
    if not isinstance(track, list) or len(track) not in (3, 4):
        raise ValueError(f"track: expected three or four colours ({', '.join(names)})")
    left = list(names)
    found = [dracula]
    for index, colour in enumerate(track[:3]):
        name = str(colour).strip().lower()
        if name not in left:
            raise ValueError(f"track[{index}]: expected one of {', '.join(left)}, got {colour!r}")
        found.append(left.index(name))
        left.remove(name)
    if len(track) == 4 and str(track[3]).strip().lower() != left[0]:
        raise ValueError(f"track[3]: the last colour is what is left, {left[0]}")
    return tuple(found)


__all__ = ["AFTER_HANDS", "CHOICES", "DECK", "hand_size", "picks", "read_card", "shuffle_pool"]
