"""Fixed deals written like the rules: the hands, the card that starts the discard pile, the
top of the draw deck, and the named choices ``dealer`` and ``characters`` (protocol:
``vampire_queen/deal.py``).

>>> read_card("red:S1"), hand_size(5)
('R1', 7)
>>> picks(2, {"first_game": "true"}, {"dealer": 1, "characters": ["C2", "C1"]})
(1, 1, 0)
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.games.mau_mau_vampires.characters import CHARACTERS
from referee.games.mau_mau_vampires.model import FULL_DECK_NOTATION, read_card
from referee.games.mau_mau_vampires.rules import hand_size_for

DECK = FULL_DECK_NOTATION
#: MM-6: after the hands the next card starts the discard pile; the rest is the draw deck.
AFTER_HANDS = ("discard", "draw")
#: ``dealer``: the first dealer's seat (MM-6); ``characters``: each seat's character by id,
#: seat 0 first (MM-5).
CHOICES = ("dealer", "characters")


def hand_size(players: int) -> int:
    return hand_size_for(players)


def shuffle_pool(index: int) -> tuple[str, ...] | None:
    """The first shuffle is of all 55 cards; which cards later shuffles hold (a special card
    turned up, the discard pile, the next hand) depends on the play."""
    return DECK if index == 0 else None


def picks(
    players: int, options: Mapping[str, str], choices: Mapping[str, object]
) -> tuple[int, ...]:
    dealer = choices.get("dealer", 0)
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        raise ValueError(f"dealer: expected a seat 0..{players - 1}, got {dealer!r}")
    first_game = options.get("first_game", "true") == "true"
    pool = [c.id for c in CHARACTERS.characters if c.first_game or not first_game]
    wanted = choices.get("characters")
    if wanted is None:
        return (dealer, *[0] * players)
    if not isinstance(wanted, list) or len(wanted) != players:
        raise ValueError(f"characters: expected {players} character ids, seat 0 first")
    found = [dealer]
    for seat, character in enumerate(wanted):
        if character not in pool:
            given = "given out already" if character in wanted[:seat] else "not available"
            raise ValueError(
                f"characters[{seat}]: {character!r} is {given}; left: {', '.join(pool)}"
            )
        found.append(pool.index(str(character)))
        pool.remove(str(character))
    return tuple(found)


__all__ = ["AFTER_HANDS", "CHOICES", "DECK", "hand_size", "picks", "read_card", "shuffle_pool"]
