"""The character data of Mau Mau Vampires, loaded from ``characters.json`` (MM-4).

The symbol names and which symbols and colour trigger which ability were printed only on the
cards, so they live in a data file shipped with the package; the real cards' data replaces the
provisional table without a code change. The file is read and checked once, when the game is
imported (server start-up): a malformed file fails there with a message naming the entry.

Format (JSON)::

    {
      "comment": "free text (optional)",
      "symbols": [{"id": "S1", "name": "skull"}, ... exactly S1 .. S11 ...],
      "characters": [
        {"id": "C1", "name": "The Count", "ability": "give_left",
         "day_symbols": ["S1", "S2"], "vampire_symbol": "S8", "vampire_colour": "green",
         "first_game": true},
        ... at least 6 (one per seat at the largest table), ids unique ...
      ]
    }

``ability`` is the human ability (MM-22): ``give_left`` (a), ``call_colour`` (b),
``wish_and_play_again`` (c), ``swap_and_play_again`` (d), ``opponents_draw_one`` (e),
``fewest_draw_two`` (f), ``draw_two_and_share`` (g), ``set_aside_pot`` (h). Colours are
``red``, ``blue``, ``green``, ``purple``. The order of ``characters`` is the order random
character picks index into (see :mod:`referee.games.mau_mau_vampires.model`).

>>> table = parse_characters(
...     {"symbols": [{"id": f"S{i}", "name": f"s{i}"} for i in range(1, 12)],
...      "characters": [{"id": "X", "name": "x", "ability": "teleport"}]}, "demo.json")
Traceback (most recent call last):
...
referee.games.mau_mau_vampires.characters.CharacterDataError: demo.json: characters[0] (id "X"): \
unknown ability 'teleport'; known: give_left, call_colour, wish_and_play_again, \
swap_and_play_again, opponents_draw_one, fewest_draw_two, draw_two_and_share, set_aside_pot
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from referee.games.mau_mau_vampires.model import SYMBOLS, Ability, Colour

#: Data-file names of the human abilities (MM-22 a-h).
ABILITY_NAMES: dict[str, Ability] = {
    "give_left": Ability.GIVE_LEFT,
    "call_colour": Ability.CALL_COLOUR,
    "wish_and_play_again": Ability.WISH_AND_PLAY_AGAIN,
    "swap_and_play_again": Ability.SWAP_AND_PLAY_AGAIN,
    "opponents_draw_one": Ability.OPPONENTS_DRAW_ONE,
    "fewest_draw_two": Ability.FEWEST_DRAW_TWO,
    "draw_two_and_share": Ability.DRAW_TWO_AND_SHARE,
    "set_aside_pot": Ability.SET_ASIDE_POT,
}
COLOUR_NAMES: dict[str, Colour] = {
    "red": Colour.RED,
    "blue": Colour.BLUE,
    "green": Colour.GREEN,
    "purple": Colour.PURPLE,
}
#: Characters needed: one per seat at the largest table (MM-5).
MIN_CHARACTERS = 6
DATA_FILE = "characters.json"
_PACKAGE = "referee.games.mau_mau_vampires"

_CHARACTER_KEYS = (
    "id",
    "name",
    "ability",
    "day_symbols",
    "vampire_symbol",
    "vampire_colour",
    "first_game",
)


class CharacterDataError(ValueError):
    """The character data file is malformed; the message names the file and the entry."""


@dataclass(frozen=True, slots=True)
class CharacterData:
    """One character card (MM-3, MM-4): symbols are numbers 1-11 (S1 .. S11)."""

    id: str
    name: str
    ability: Ability
    day_symbols: tuple[int, int]
    vampire_symbol: int
    vampire_colour: Colour
    first_game: bool


@dataclass(frozen=True, slots=True)
class CharacterTable:
    """The whole data file: symbol names (index 0 = S1) and the characters in file order."""

    symbols: tuple[str, ...]
    characters: tuple[CharacterData, ...]

    def index_of(self, character_id: str) -> int:
        """Position of a character by id; :class:`KeyError` if there is none."""
        for index, character in enumerate(self.characters):
            if character.id == character_id:
                return index
        raise KeyError(character_id)


def _symbol_number(value: Any) -> int | None:
    """``"S7"`` -> 7; ``None`` if ``value`` is not one of S1 .. S11."""
    if isinstance(value, str) and value.startswith("S") and value[1:].isdigit():
        number = int(value[1:])
        if 1 <= number <= SYMBOLS and value == f"S{number}":
            return number
    return None


def _parse_symbols(raw: Any, where: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or len(raw) != SYMBOLS:
        raise CharacterDataError(
            f"{where}: symbols must be a list of exactly {SYMBOLS} entries S1 .. S{SYMBOLS} (MM-1)"
        )
    names: dict[int, str] = {}
    for index, entry in enumerate(raw):
        label = f"{where}: symbols[{index}]"
        if not isinstance(entry, dict) or set(entry) != {"id", "name"}:
            raise CharacterDataError(f'{label}: expected {{"id": "S1", "name": "..."}}')
        number = _symbol_number(entry["id"])
        if number is None:
            raise CharacterDataError(f"{label}: id must be S1 .. S{SYMBOLS}, got {entry['id']!r}")
        if number in names:
            raise CharacterDataError(f"{label}: symbol {entry['id']} is listed twice")
        name = entry["name"]
        if not isinstance(name, str) or not name.strip():
            raise CharacterDataError(f"{label} ({entry['id']}): name must be a non-empty string")
        names[number] = name
    return tuple(names[number] for number in range(1, SYMBOLS + 1))


def _parse_character(raw: Any, label: str) -> CharacterData:
    if not isinstance(raw, dict):
        raise CharacterDataError(f"{label}: expected an object with {', '.join(_CHARACTER_KEYS)}")
    if isinstance(raw.get("id"), str):
        label = f'{label} (id "{raw["id"]}")'
    unknown = sorted(set(raw) - set(_CHARACTER_KEYS))
    if unknown:
        raise CharacterDataError(f"{label}: unknown key(s) {', '.join(unknown)}")
    ability = raw.get("ability")
    if ability not in ABILITY_NAMES:
        raise CharacterDataError(
            f"{label}: unknown ability {ability!r}; known: {', '.join(ABILITY_NAMES)}"
        )
    missing = [key for key in _CHARACTER_KEYS if key not in raw]
    if missing:
        raise CharacterDataError(f"{label}: missing key(s) {', '.join(missing)}")
    character_id, name = raw["id"], raw["name"]
    if not isinstance(character_id, str) or not character_id.strip():
        raise CharacterDataError(f"{label}: id must be a non-empty string")
    if not isinstance(name, str) or not name.strip():
        raise CharacterDataError(f"{label}: name must be a non-empty string")
    day = raw["day_symbols"]
    numbers = [_symbol_number(s) for s in day] if isinstance(day, list) else []
    if len(numbers) != 2 or None in numbers or numbers[0] == numbers[1]:
        raise CharacterDataError(
            f"{label}: day_symbols must be 2 different symbol ids S1 .. S{SYMBOLS} (MM-20), "
            f"got {day!r}"
        )
    vampire_symbol = _symbol_number(raw["vampire_symbol"])
    if vampire_symbol is None:
        raise CharacterDataError(
            f"{label}: vampire_symbol must be a symbol id S1 .. S{SYMBOLS}, "
            f"got {raw['vampire_symbol']!r}"
        )
    colour = raw["vampire_colour"]
    if colour not in COLOUR_NAMES:
        raise CharacterDataError(
            f"{label}: vampire_colour must be one of {', '.join(COLOUR_NAMES)}, got {colour!r}"
        )
    if not isinstance(raw["first_game"], bool):
        raise CharacterDataError(
            f"{label}: first_game must be true or false, got {raw['first_game']!r}"
        )
    first, second = numbers
    assert first is not None and second is not None
    return CharacterData(
        id=character_id,
        name=name,
        ability=ABILITY_NAMES[ability],
        day_symbols=(first, second),
        vampire_symbol=vampire_symbol,
        vampire_colour=COLOUR_NAMES[colour],
        first_game=raw["first_game"],
    )


def parse_characters(data: Any, where: str) -> CharacterTable:
    """Check decoded JSON ``data`` and build the table; ``where`` names the source in errors."""
    if not isinstance(data, dict):
        raise CharacterDataError(f"{where}: expected an object with symbols and characters")
    unknown = sorted(set(data) - {"comment", "symbols", "characters"})
    if unknown:
        raise CharacterDataError(
            f"{where}: unknown top-level key(s) {', '.join(unknown)}; "
            "allowed: comment, symbols, characters"
        )
    if "symbols" not in data or "characters" not in data:
        raise CharacterDataError(f"{where}: needs both symbols and characters")
    symbols = _parse_symbols(data["symbols"], where)
    raw = data["characters"]
    if not isinstance(raw, list):
        raise CharacterDataError(f"{where}: characters must be a list")
    characters = []
    seen: set[str] = set()
    for index, entry in enumerate(raw):
        character = _parse_character(entry, f"{where}: characters[{index}]")
        if character.id in seen:
            raise CharacterDataError(
                f'{where}: characters[{index}] (id "{character.id}"): id is used twice'
            )
        seen.add(character.id)
        characters.append(character)
    if len(characters) < MIN_CHARACTERS:
        raise CharacterDataError(
            f"{where}: characters lists {len(characters)}; at least {MIN_CHARACTERS} are needed "
            "(one per seat at a table of 6, MM-5)"
        )
    return CharacterTable(symbols=symbols, characters=tuple(characters))


def load_characters(path: str | Path) -> CharacterTable:
    """Read and check a character data file (e.g. a replacement for the shipped one)."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise CharacterDataError(f"{where}: cannot read: {error}") from None
    return _parse_text(text, where)


def _parse_text(text: str, where: str) -> CharacterTable:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CharacterDataError(f"{where}: not valid JSON: {error}") from None
    return parse_characters(data, where)


def load_shipped() -> CharacterTable:
    """The data file shipped in this package (``characters.json``)."""
    source = resources.files(_PACKAGE).joinpath(DATA_FILE)
    return _parse_text(source.read_text(encoding="utf-8"), f"{_PACKAGE}/{DATA_FILE}")


#: The shipped table, read once at import (start-up).
CHARACTERS: CharacterTable = load_shipped()
