"""What a creator may choose about a game's chance: the seed it gives, a fixed deal's size, and
where the referee keeps its secret commitment salt (docs/fairness.md, "Seeds").

A creator's seed decides every shuffle by itself (the same seed deals the same cards, which
duplicate tournaments need), so a seed anyone can guess gives every hand away: a seat tries
candidate seeds against its own hand. The referee cannot measure a seed's randomness; it
refuses the seeds that are certainly weak (short, or made of few different bytes) unless the
creator says the deal is public anyway (``public_reproducible_seed``), and caps the sizes of
everything a creator sends so nobody can make the referee hash megabytes.

>>> check_seed("4711", public=False)
Traceback (most recent call last):
...
ValueError: seed: at least 22 bytes with 8 different ones (e.g. secrets.token_hex(16)), \
or set public_reproducible_seed; got 4 bytes
>>> check_seed("4711", public=True)
b'4711'
"""

from __future__ import annotations

from typing import Any

from referee.engine.game import FixedDeal

#: A creator's seed is refused below this many bytes (UTF-8) unless it is declared public:
#: 128 random bits written in base64 (``secrets.token_urlsafe(16)``) take 22 characters.
MIN_SEED_BYTES = 22
#: ... or when it has fewer different bytes than this (e.g. ``"a" * 40``).
MIN_SEED_DISTINCT = 8
#: Longest seed accepted, public or not (it is hashed for every shuffle).
MAX_SEED_BYTES = 256
#: Most decks, picks, cards per deck and characters per card a fixed deal may give: far more
#: than any of the games uses (Vampire Queen's 108 cards, a few dozen reshuffles).
MAX_DEAL_DECKS = 256
MAX_DEAL_PICKS = 256
MAX_DECK_CARDS = 512
MAX_CARD_CHARS = 16
#: Key of the commitment salt in the stored settings (``GameRecord.settings``), hex. The
#: settings are the server's own record of the game, never sent to a client as such.
SALT_KEY = "commitment_salt"


def check_seed(seed: str, *, public: bool) -> bytes | None:
    """The seed's bytes (``None`` when empty: the referee draws one), or :class:`ValueError`
    ``"seed: ..."``."""
    if not seed:
        return None
    data = seed.encode()
    if len(data) > MAX_SEED_BYTES:
        raise ValueError(f"seed: at most {MAX_SEED_BYTES} bytes, got {len(data)}")
    if not public and (len(data) < MIN_SEED_BYTES or len(set(data)) < MIN_SEED_DISTINCT):
        raise ValueError(
            f"seed: at least {MIN_SEED_BYTES} bytes with {MIN_SEED_DISTINCT} different ones "
            f"(e.g. secrets.token_hex(16)), or set public_reproducible_seed; got {len(data)} bytes"
        )
    return data


def check_deal_size(deal: FixedDeal) -> None:
    """:class:`ValueError` ``"<field>: ..."`` for a fixed deal beyond the caps."""
    if len(deal.decks) > MAX_DEAL_DECKS:
        raise ValueError(f"deal.decks: at most {MAX_DEAL_DECKS} decks, got {len(deal.decks)}")
    if len(deal.picks) > MAX_DEAL_PICKS:
        raise ValueError(f"deal.picks: at most {MAX_DEAL_PICKS} picks, got {len(deal.picks)}")
    for index, deck in enumerate(deal.decks):
        if len(deck) > MAX_DECK_CARDS:
            raise ValueError(
                f"deal.decks[{index}].cards: at most {MAX_DECK_CARDS} cards, got {len(deck)}"
            )
        if any(len(card) > MAX_CARD_CHARS for card in deck):
            raise ValueError(
                f"deal.decks[{index}].cards: a card is at most {MAX_CARD_CHARS} characters"
            )


def stored_salt(settings: dict[str, Any]) -> bytes:
    """The commitment salt kept in a game's stored settings (``b""`` for older games)."""
    return bytes.fromhex(str(settings.get(SALT_KEY, "")))


__all__ = [
    "MAX_SEED_BYTES",
    "MIN_SEED_BYTES",
    "SALT_KEY",
    "check_deal_size",
    "check_seed",
    "stored_salt",
]
