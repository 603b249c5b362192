"""Scenario files: scripted games with expected outcomes, run against the in-process Table.

A scenario (YAML or JSON, format in ``docs/scenarios.md``) sets up a table (game type, seats,
options, seed, optional fixed deal) and lists steps: a seat sends a command in the proto's JSON
form, and the step states the expected outcome (accepted, or rejected with a status code and
rule id), optionally a subset of some seat's view afterwards and of the events the step
appended.

>>> subset_mismatch({"a": [1, 2], "b": 0}, {"a": [1, 2], "c": "x"}) is None
True
>>> subset_mismatch({"a": [1, 2]}, {"a": [1, 3]})
'at a[1]: expected 2, got 3'
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FileDescriptor

from referee import codec
from referee.engine.game import FixedDeal, Rejection, Viewer
from referee.engine.table import Table
from referee.scenario import match as schema
from referee.v1 import referee_pb2 as pb

OK = "OK"
INVALID_ARGUMENT = "INVALID_ARGUMENT"
FAILED_PRECONDITION = "FAILED_PRECONDITION"
CODES = (OK, INVALID_ARGUMENT, FAILED_PRECONDITION)
_KIND_CODES = {"illegal": INVALID_ARGUMENT, "precondition": FAILED_PRECONDITION}

#: ``game_id`` of the table a scenario plays (it appears as ``gameId`` in views).
GAME_ID = "scenario"
#: Seed used when a scenario gives none, so every scenario is reproducible.
DEFAULT_SEED = "scenario"

SCENARIO_SUFFIXES = (".yaml", ".yml", ".json")


class ScenarioError(ValueError):
    """A scenario file that cannot be read or does not follow the format.

    ``path`` is the file, ``detail`` what is wrong and where (``steps[2] (line 14): ...``).
    """

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}" if path else detail)
        self.path = path
        self.detail = detail


# --- per-game deck builders -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeckBuilder:
    """How to turn per-seat hands into a full fixed deck for one game type.

    ``cards`` is the whole deck that the game shuffles, in a fixed canonical order;
    ``hand_size(players)`` is the number of cards each seat is dealt, taken from the top of the
    deck seat by seat; ``card`` normalises one card as written in a scenario to the deck
    notation, raising :class:`ValueError` with a reason.
    """

    cards: tuple[str, ...]
    hand_size: Callable[[int], int]
    card: Callable[[object], str]

    def build(self, hands: Sequence[Sequence[object]], players: int) -> tuple[str, ...]:
        """The deck: the given hands first, in seat order, then the rest in canonical order."""
        if len(hands) > players:
            raise ValueError(f"{len(hands)} hands given for {players} players")
        size = self.hand_size(players)
        top: list[str] = []
        for seat, hand in enumerate(hands):
            if not isinstance(hand, list):
                raise ValueError(f"hands[{seat}] must be a list of cards")
            if len(hand) != size:
                raise ValueError(
                    f"hands[{seat}] has {len(hand)} cards; each seat is dealt {size} "
                    f"with {players} players"
                )
            for index, card in enumerate(hand):
                try:
                    top.append(self.card(card))
                except ValueError as error:
                    raise ValueError(f"hands[{seat}][{index}]: {error}") from None
        rest = Counter(self.cards)
        rest.subtract(top)
        over = sorted(card for card, left in rest.items() if left < 0)
        if over:
            have = Counter(self.cards)
            raise ValueError(
                "the hands use more cards than the deck holds: "
                + ", ".join(f'{-rest[c] + have[c]} x "{c}" (deck has {have[c]})' for c in over)
            )
        remaining: list[str] = []
        for card in self.cards:
            if rest[card] > 0:
                remaining.append(card)
                rest[card] -= 1
        return tuple(top + remaining)


def _vampire_queen_builder() -> DeckBuilder:
    from referee.games.vampire_queen.rules import DECK, hand_size_for

    names = {str(v): str(v) for v in range(1, 14)} | {"Q": "Q", "14": "Q"}

    def card(value: object) -> str:
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ValueError(f"a card is 1-13 or Q, got {value!r}")
        text = str(value).strip().upper()
        if text in ("15", "20"):
            raise ValueError("Hunters are not dealt from the deck (VQ-4); choose them with picks")
        if text not in names:
            raise ValueError(f"a card is 1-13 or Q (14), got {value!r}")
        return names[text]

    return DeckBuilder(cards=DECK, hand_size=hand_size_for, card=card)


def _dracula_vs_van_helsing_builder() -> DeckBuilder:
    """Dracula vs Van Helsing: ``hands`` are the 5 slots of each seat, districts 1-5 in order;
    the draw deck is the rest in canonical order (give ``decks`` to choose the draws)."""
    from referee.games.dracula_vs_van_helsing.model import DECK, DISTRICTS, card_code, notation

    def card(value: object) -> str:
        if not isinstance(value, str):
            raise ValueError(f'a card is a colour letter and a value 1-8 ("Y3"), got {value!r}')
        return notation(card_code(value))

    return DeckBuilder(cards=DECK, hand_size=lambda players: DISTRICTS, card=card)


def _mau_mau_vampires_builder() -> DeckBuilder:
    """Mau Mau Vampires: cards "R1".."P11" (or "red:S1"), "CLOCK", "WOLF"; after the hands
    the next card starts the discard pile, then the draws, all in canonical order."""
    from referee.games.mau_mau_vampires.model import FULL_DECK_NOTATION, read_card
    from referee.games.mau_mau_vampires.rules import hand_size_for as mm_hand_size

    return DeckBuilder(cards=FULL_DECK_NOTATION, hand_size=mm_hand_size, card=read_card)


#: Game type id -> a function returning its deck builder (lazy: games load on first use).
DECK_BUILDERS: dict[str, Callable[[], DeckBuilder]] = {
    "vampire-queen": _vampire_queen_builder,
    "dracula-vs-van-helsing": _dracula_vs_van_helsing_builder,
    "mau-mau-vampires": _mau_mau_vampires_builder,
}


def deck_builder(game_type: str) -> DeckBuilder:
    """The deck builder of ``game_type``; :class:`ValueError` when it has none."""
    factory = DECK_BUILDERS.get(game_type)
    if factory is None:
        known = ", ".join(sorted(DECK_BUILDERS))
        raise ValueError(f"hands are not supported for {game_type} (deck builders: {known})")
    return factory()


# --- subset matching --------------------------------------------------------------------------


def _enum_zero_names(file: FileDescriptor) -> set[str]:
    names: set[str] = set()

    def walk_enum(enum: EnumDescriptor) -> None:
        names.update(v.name for v in enum.values if v.number == 0)

    def walk_message(message: Descriptor) -> None:
        for enum in message.enum_types:
            walk_enum(enum)
        for nested in message.nested_types:
            walk_message(nested)

    seen: set[str] = set()
    stack = [file]
    while stack:
        current = stack.pop()
        if current.name in seen:
            continue
        seen.add(current.name)
        for enum in current.enum_types_by_name.values():
            walk_enum(enum)
        for message in current.message_types_by_name.values():
            walk_message(message)
        stack.extend(current.dependencies)
    return names


@cache
def default_enum_names() -> frozenset[str]:
    """Names of the zero value of every enum in ``referee.v1`` (proto3 JSON omits them)."""
    return frozenset(_enum_zero_names(pb.DESCRIPTOR))


_MISSING = object()


def _is_default(expected: Any) -> bool:
    """Whether ``expected`` matches a field that proto3 JSON left out (its default value)."""
    if expected is None or expected is False or expected == "" or expected == []:
        return True
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        return expected == 0
    if isinstance(expected, str):
        return expected in default_enum_names()
    if isinstance(expected, dict):
        return all(_is_default(value) for value in expected.values())
    return False


def _show(value: Any) -> str:
    if value is _MISSING:
        return "(absent)"
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def subset_mismatch(expected: Any, actual: Any, path: str = "") -> str | None:
    """``None`` when ``actual`` matches ``expected``, else where and how the first mismatch is.

    * a dict matches when every key of ``expected`` matches the same key of ``actual``
      (extra keys in ``actual`` are ignored); a key absent from ``actual`` matches a default
      value (0, "", false, null, [], an enum's zero name, or a dict of defaults), because
      proto3 JSON leaves defaults out;
    * a list matches a list of the same length element by element;
    * scalars are equal (an integer also equals its decimal string: 64-bit fields).

    >>> subset_mismatch({"x": {"y": 0, "z": []}}, {})
    >>> subset_mismatch({"turn": None}, {"turn": 2})
    'at turn: expected null, got 2'
    """
    where = f"at {path or '(top)'}"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where}: expected an object {_show(expected)}, got {_show(actual)}"
        for key, value in expected.items():
            sub = f"{path}.{key}" if path else str(key)
            if key not in actual:
                if _is_default(value):
                    continue
                return f"at {sub}: expected {_show(value)}, got {_show(_MISSING)}"
            problem = subset_mismatch(value, actual[key], sub)
            if problem is not None:
                return problem
        return None
    if isinstance(expected, list):
        return schema.list_mismatch(expected, actual, path, subset_mismatch)
    if not schema.scalar_equal(expected, actual):
        return f"{where}: expected {_show(expected)}, got {_show(actual)}"
    return None


# --- the scenario model -----------------------------------------------------------------------

#: Who a view or events check is for: a seat, ``None`` for the spectator, or ``"step"`` for the
#: seat of the step.
ViewerSpec = int | None | Literal["step"]


@dataclass(frozen=True, slots=True)
class Expect:
    """The expected outcome of a command: ``OK`` or a status code, maybe a rule id and text."""

    code: str = OK
    rule: str | None = None
    message: str | None = None

    def describe(self) -> str:
        text = self.code if self.code != OK else "ok"
        if self.rule is not None:
            text += f" {self.rule}"
        if self.message is not None:
            text += f" (message containing {self.message!r})"
        return text


@dataclass(frozen=True, slots=True)
class Check:
    """A subset match against a viewer's view, or the events a step appended."""

    viewer: ViewerSpec
    match: Any


@dataclass(frozen=True, slots=True)
class Step:
    """One step: an optional command by ``seat`` with its expected outcome, then checks."""

    index: int
    line: int | None
    seat: int | None
    command: Any  # the proto JSON form; None for a check-only step
    expect: Expect
    views: tuple[Check, ...] = ()
    events: Check | None = None

    def where(self) -> str:
        return f"steps[{self.index}]" + (f" (line {self.line})" if self.line else "")


@dataclass(frozen=True, slots=True)
class Scenario:
    path: str
    game: str
    players: int
    options: dict[str, str]
    seed: str
    deal: FixedDeal | None
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class Failure:
    """The first mismatch of a scenario: ``step`` is ``None`` for a setup error."""

    step: Step | None
    message: str

    def describe(self) -> str:
        return f"{self.step.where() if self.step else 'setup'}: {self.message}"


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    path: str
    steps: int
    failure: Failure | None = None
    steps_run: int = 0

    @property
    def ok(self) -> bool:
        return self.failure is None

    def line(self) -> str:
        """The one-line report of ``referee scenario run``."""
        if self.failure is None:
            return f"ok  {self.path}  ({self.steps} steps)"
        return f"FAIL  {self.path}  {self.failure.describe()}"


# --- loading ----------------------------------------------------------------------------------

_TOP_KEYS = {"game", "players", "options", "seed", "deal", "steps", "description"}
_DEAL_KEYS = {"decks", "picks", "hands"}
_STEP_KEYS = {"seat", "command", "expect", "view", "events", "expect_view", "note"}
_CHECK_KEYS = {"seat", "match"}
_EVENTS_KEYS = {"as", "match"}
_EXPECT_KEYS = {"code", "rule", "message"}


#: The schema a view check matches: a ``referee.v1.View`` in proto JSON form.
VIEW = schema.message_type(pb.View.DESCRIPTOR)
#: The schema an events check matches: a list of ``referee.v1.Event``.
EVENTS = schema.list_of(pb.Event.DESCRIPTOR)


def _check_spec(expected: Any, kind: schema.Type, path: str, where: str) -> None:
    """Fail the file when ``expected`` names a key (or a value) that the schema has not."""
    try:
        schema.check_spec(expected, kind)
    except schema.SpecError as error:
        sub = (
            f"{where}.{error.path}"
            if error.path and not error.path.startswith("[")
            else (where + error.path)
        )
        raise _fail(path, sub, error.message) from None


def _fail(path: str, where: str, message: str) -> ScenarioError:
    return ScenarioError(path, f"{where}: {message}" if where else message)


def _keys(value: Mapping[str, Any], allowed: set[str], path: str, where: str) -> None:
    unknown = sorted(str(k) for k in value if k not in allowed)
    if unknown:
        raise _fail(
            path,
            where,
            f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}",
        )


def _step_lines(text: str) -> list[int]:
    """1-based line of each item of the top-level ``steps`` list (empty when not found)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    if not isinstance(node, yaml.MappingNode):
        return []
    for key, value in node.value:
        if getattr(key, "value", None) == "steps" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def _read(path: str) -> tuple[Any, list[int]]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioError(path, f"cannot read: {error.strerror or error}") from None
    if path.endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ScenarioError(path, f"invalid JSON: {error}") from None
        return data, _step_lines(text)  # JSON is YAML, so this finds the lines too
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ScenarioError(path, f"invalid YAML: {error}") from None
    return data, _step_lines(text)


def _int(value: Any, path: str, where: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _fail(path, where, f"expected an integer >= {minimum}, got {value!r}")
    return value


def _viewer(value: Any, players: int, path: str, where: str) -> Viewer:
    if value == "spectator":
        return None
    seat = _int(value, path, where)
    if seat >= players:
        raise _fail(path, where, f"no seat {seat}: seats are 0..{players - 1} or 'spectator'")
    return seat


def _options(value: Any, path: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _fail(path, "options", "expected a mapping of option name to value")
    options: dict[str, str] = {}
    for name, option in value.items():
        if isinstance(option, bool) or not isinstance(option, str | int):
            raise _fail(
                path, f"options.{name}", f"expected a string or integer, got {option!r} (quote it)"
            )
        options[str(name)] = str(option)
    return options


def _deck(
    value: Any, builder: Callable[[], DeckBuilder], players: int, path: str, where: str
) -> tuple[str, ...]:
    if isinstance(value, dict):
        _keys(value, {"hands"}, path, where)
        if "hands" not in value or not isinstance(value["hands"], list):
            raise _fail(path, where, "expected {hands: [[cards of seat 0], [seat 1], ...]}")
        try:
            return builder().build(value["hands"], players)
        except ValueError as error:
            raise _fail(path, where, str(error)) from None
    if not isinstance(value, list):
        raise _fail(path, where, "expected a list of cards (top first) or {hands: [...]}")
    try:
        make = builder()
    except ValueError:  # no deck builder: pass the cards on as written; the game checks them
        return tuple(str(card) for card in value)
    cards: list[str] = []
    for index, card in enumerate(value):
        try:
            cards.append(make.card(card))
        except ValueError as error:
            raise _fail(path, f"{where}[{index}]", str(error)) from None
    if Counter(cards) != Counter(make.cards):
        missing = Counter(make.cards)
        missing.subtract(cards)
        diff = ", ".join(
            f'{"missing" if n > 0 else "extra"} {abs(n)} x "{c}"'
            for c, n in sorted(missing.items())
            if n
        )
        raise _fail(path, where, f"not a permutation of the {len(make.cards)}-card deck: {diff}")
    return tuple(cards)


def _deal(value: Any, game: str, players: int, path: str) -> FixedDeal | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _fail(path, "deal", "expected a mapping with decks, picks and/or hands")
    _keys(value, _DEAL_KEYS, path, "deal")
    if "hands" in value and "decks" in value:
        raise _fail(
            path, "deal", "give either hands (the first deal) or decks (with {hands: ...} items)"
        )

    def builder() -> DeckBuilder:
        return deck_builder(game)

    decks: list[tuple[str, ...]] = []
    if "hands" in value:
        decks.append(_deck({"hands": value["hands"]}, builder, players, path, "deal.hands"))
    raw_decks = value.get("decks") or []
    if not isinstance(raw_decks, list):
        raise _fail(path, "deal.decks", "expected a list of decks")
    for index, deck in enumerate(raw_decks):
        decks.append(_deck(deck, builder, players, path, f"deal.decks[{index}]"))
    picks_raw = value.get("picks") or []
    if not isinstance(picks_raw, list):
        raise _fail(path, "deal.picks", "expected a list of integers")
    picks = tuple(_int(p, path, f"deal.picks[{i}]") for i, p in enumerate(picks_raw))
    return FixedDeal(decks=tuple(decks), picks=picks)


def _expect(value: Any, path: str, where: str) -> Expect:
    if value is None or value == "ok" or value == OK:
        return Expect()
    if isinstance(value, str):
        if value in CODES:
            return Expect(code=value)
        raise _fail(path, where, f"expected ok or {{code: ..., rule: ...}}, got {value!r}")
    if not isinstance(value, dict):
        raise _fail(path, where, "expected ok or a mapping {code, rule, message}")
    _keys(value, _EXPECT_KEYS, path, where)
    code = value.get("code")
    if code not in CODES:
        raise _fail(path, f"{where}.code", f"expected one of {', '.join(CODES)}, got {code!r}")
    rule, message = value.get("rule"), value.get("message")
    for name, item in (("rule", rule), ("message", message)):
        if item is not None and not isinstance(item, str):
            raise _fail(path, f"{where}.{name}", f"expected a string, got {item!r}")
    if code == OK and (rule is not None or message is not None):
        raise _fail(path, where, "rule and message only go with a rejection code")
    return Expect(code=code, rule=rule, message=message)


def _view_checks(value: Any, players: int, path: str, where: str) -> tuple[Check, ...]:
    items = value if isinstance(value, list) else [value]
    checks = []
    for index, item in enumerate(items):
        at = f"{where}[{index}]" if isinstance(value, list) else where
        if not isinstance(item, dict) or "match" not in item:
            raise _fail(path, at, "expected {seat: N | spectator (optional), match: {...}}")
        _keys(item, _CHECK_KEYS, path, at)
        viewer: ViewerSpec = (
            _viewer(item["seat"], players, path, f"{at}.seat") if "seat" in item else "step"
        )
        _check_spec(item["match"], VIEW, path, f"{at}.match")
        checks.append(Check(viewer, item["match"]))
    return tuple(checks)


def _events_check(value: Any, players: int, path: str, where: str) -> Check:
    if isinstance(value, list):
        _check_spec(value, EVENTS, path, where)
        return Check("step", value)
    if not isinstance(value, dict) or not isinstance(value.get("match"), list):
        raise _fail(path, where, "expected a list of events or {as: seat|spectator, match: [...]}")
    _keys(value, _EVENTS_KEYS, path, where)
    viewer: ViewerSpec = (
        _viewer(value["as"], players, path, f"{where}.as") if "as" in value else ("step")
    )
    _check_spec(value["match"], EVENTS, path, f"{where}.match")
    return Check(viewer, value["match"])


def _step(raw: Any, index: int, line: int | None, players: int, path: str) -> Step:
    where = f"steps[{index}]" + (f" (line {line})" if line else "")
    if not isinstance(raw, dict):
        raise _fail(path, where, "expected a mapping")
    _keys(raw, _STEP_KEYS, path, where)
    if "view" in raw and "expect_view" in raw:
        raise _fail(path, where, "give view or expect_view, not both")
    seat = _int(raw["seat"], path, f"{where}.seat") if "seat" in raw else None
    command = raw.get("command")
    view_raw = raw.get("view", raw.get("expect_view"))
    if command is None:
        for key in ("expect", "events"):
            if key in raw:
                raise _fail(path, where, f"{key} needs a command")
        if view_raw is None:
            raise _fail(path, where, "a step needs a command or a view check")
    elif seat is None:
        raise _fail(path, where, "a command needs the seat that sends it")
    elif not isinstance(command, dict):
        raise _fail(
            path,
            f"{where}.command",
            f"expected the proto JSON form, e.g. {{vampireQueen: {{pass: {{}}}}}}, got {command!r}",
        )
    views = _view_checks(view_raw, players, path, f"{where}.view") if view_raw is not None else ()
    for check in views:
        if check.viewer == "step" and seat is None:
            raise _fail(path, f"{where}.view", "say whose view to check (seat: N or spectator)")
    if seat is not None and seat >= players and any(c.viewer == "step" for c in views):
        raise _fail(path, f"{where}.view", f"no seat {seat} to view; give the view's seat")
    events = (
        _events_check(raw["events"], players, path, f"{where}.events") if "events" in raw else None
    )
    if events is not None and events.viewer == "step" and seat is not None and seat >= players:
        raise _fail(path, f"{where}.events", f"no seat {seat}; give as: seat or spectator")
    return Step(
        index=index,
        line=line,
        seat=seat,
        command=command,
        expect=_expect(raw.get("expect"), path, f"{where}.expect"),
        views=views,
        events=events,
    )


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and check a scenario file; :class:`ScenarioError` says what is wrong and where."""
    name = os.fspath(path)
    data, lines = _read(name)
    if not isinstance(data, dict):
        raise _fail(name, "", "a scenario is a mapping with game, players and steps")
    _keys(data, _TOP_KEYS, name, "")
    for key in ("game", "players", "steps"):
        if key not in data:
            raise _fail(name, "", f"missing required key {key!r}")
    game = data["game"]
    if not isinstance(game, str):
        raise _fail(name, "game", f"expected a game type id such as vampire-queen, got {game!r}")
    players = _int(data["players"], name, "players", minimum=1)
    seed = data.get("seed", DEFAULT_SEED)
    if isinstance(seed, bool) or not isinstance(seed, str | int):
        raise _fail(name, "seed", f"expected a string, got {seed!r}")
    steps_raw = data["steps"]
    if not isinstance(steps_raw, list):
        raise _fail(name, "steps", "expected a list of steps")
    steps = tuple(
        _step(raw, index, lines[index] if index < len(lines) else None, players, name)
        for index, raw in enumerate(steps_raw)
    )
    return Scenario(
        path=name,
        game=game,
        players=players,
        options=_options(data.get("options"), name),
        seed=str(seed),
        deal=_deal(data.get("deal"), game, players, name),
        steps=steps,
    )


# --- running ----------------------------------------------------------------------------------


def _resolve(viewer: ViewerSpec, step: Step) -> Viewer:
    return step.seat if viewer == "step" else viewer


def _viewer_name(viewer: Viewer) -> str:
    return "the spectator" if viewer is None else f"seat {viewer}"


def view_json(table: Table[Any], viewer: Viewer) -> dict[str, Any]:
    """``viewer``'s view in the proto's JSON form (what a view check is matched against)."""
    message = codec.view_to_proto(GAME_ID, table.config.players, table.view(viewer))
    return json_format.MessageToDict(message, preserving_proto_field_name=False)


def events_json(table: Table[Any], first: int, viewer: Viewer) -> list[dict[str, Any]]:
    """The events from index ``first`` of the log, redacted for ``viewer``, in proto JSON form."""
    game_type = table.game.info.type_id
    return [
        json_format.MessageToDict(
            codec.event_to_proto(game_type, table.game.redact(event, viewer), first + i + 1),
            preserving_proto_field_name=False,
        )
        for i, event in enumerate(table.log[first:])
    ]


def _outcome(table: Table[Any], step: Step) -> tuple[str, str | None, str]:
    """Submit the step's command: (code, rule id, message)."""
    assert step.seat is not None
    try:
        game_type, command = codec.command_from_json(step.command)
    except codec.CodecError as error:
        return INVALID_ARGUMENT, None, str(error)
    if game_type != table.game.info.type_id:
        return INVALID_ARGUMENT, None, f"command is for {game_type}, not {table.game.info.type_id}"
    try:
        table.submit(step.seat, command)
    except Rejection as rejection:
        return _KIND_CODES[rejection.kind], rejection.rule_id, rejection.message
    return OK, None, ""


def _check_outcome(expect: Expect, code: str, rule: str | None, message: str) -> str | None:
    got = "ok" if code == OK else f"{code} {rule or '(no rule)'}: {message}"
    if code != expect.code:
        return f"expected {expect.describe()}, got {got}"
    if expect.rule is not None and rule != expect.rule:
        return f"expected {expect.describe()}, got {got}"
    if expect.message is not None and expect.message not in message:
        return f"expected {expect.describe()}, got {got}"
    return None


def _run_step(table: Table[Any], step: Step) -> str | None:
    if step.command is not None:
        before = table.version
        problem = _check_outcome(step.expect, *_outcome(table, step))
        if problem is not None:
            return problem
        if step.events is not None:
            viewer = _resolve(step.events.viewer, step)
            problem = schema.mismatch(step.events.match, events_json(table, before, viewer), EVENTS)
            if problem is not None:
                return f"events as {_viewer_name(viewer)}: {problem}"
    for check in step.views:
        viewer = _resolve(check.viewer, step)
        problem = schema.mismatch(check.match, view_json(table, viewer), VIEW)
        if problem is not None:
            return f"view of {_viewer_name(viewer)}: {problem}"
    return None


def run_loaded(scenario: Scenario) -> ScenarioResult:
    """Play ``scenario`` on a fresh table and stop at the first mismatch."""
    total = len(scenario.steps)
    try:
        table = Table.create(
            scenario.game,
            scenario.players,
            scenario.options,
            scenario.seed.encode("utf-8"),
            scenario.deal,
        )
    except (ValueError, KeyError) as error:
        text = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
        return ScenarioResult(scenario.path, total, Failure(None, f"table not created: {text}"))
    for done, step in enumerate(scenario.steps):
        problem = _run_step(table, step)
        if problem is not None:
            return ScenarioResult(scenario.path, total, Failure(step, problem), done)
    return ScenarioResult(scenario.path, total, None, total)


def run_scenario(path: str | os.PathLike[str]) -> ScenarioResult:
    """Load and play one scenario file. Raises :class:`ScenarioError` for a malformed file."""
    return run_loaded(load_scenario(path))


def scenario_files(paths: Sequence[str | os.PathLike[str]]) -> Iterator[str]:
    """Each path as given, or for a directory every scenario file below it, sorted."""
    for path in paths:
        name = os.fspath(path)
        if os.path.isdir(name):
            found = sorted(
                str(p)
                for p in Path(name).rglob("*")
                if p.is_file() and p.suffix in SCENARIO_SUFFIXES
            )
            yield from found
        else:
            yield name


USAGE = """usage: referee scenario run FILE|DIR...

Play each scenario file (YAML or JSON; a directory means every *.yaml, *.yml and *.json file
below it) against an in-process table. Prints `ok  FILE  (N steps)` per passing file, or the
file's first mismatch; exits 0 when every file passes, else 1. Format: docs/scenarios.md."""


def main(argv: list[str]) -> int:
    """``referee scenario run FILE...``: run each file, print one line per file, return 0/1."""
    if any(arg in ("-h", "--help") for arg in argv):
        print(USAGE)
        return 0
    files = list(scenario_files(argv))
    if not files:
        print(USAGE)
        return 1
    status = 0
    for name in files:
        try:
            line = run_scenario(name).line()
        except ScenarioError as error:
            line = f"ERROR  {error.path or name}  {error.detail}"
        except Exception as error:  # an engine bug: report it and keep going
            line = f"ERROR  {name}  internal error: {type(error).__name__}: {error}"
        print(line, flush=True)
        if not line.startswith("ok  "):
            status = 1
    return status


__all__ = [
    "DECK_BUILDERS",
    "FAILED_PRECONDITION",
    "INVALID_ARGUMENT",
    "OK",
    "Check",
    "DeckBuilder",
    "Expect",
    "Failure",
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "Step",
    "deck_builder",
    "events_json",
    "load_scenario",
    "main",
    "run_loaded",
    "run_scenario",
    "scenario_files",
    "subset_mismatch",
    "view_json",
]
