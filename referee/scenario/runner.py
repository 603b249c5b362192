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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FileDescriptor

from referee import codec
from referee.engine.game import FixedDeal, Viewer
from referee.engine.registry import get_game
from referee.engine.table import Table
from referee.scenario import match as schema
from referee.scenario.deals import DealError, build_deal
from referee.scenario.drivers import (
    FAILED_PRECONDITION,
    GAME_ID,
    INVALID_ARGUMENT,
    OK,
    DealRefused,
    Driver,
    LibraryDriver,
    Outcome,
    Setup,
    SetupRefused,
)
from referee.v1 import referee_pb2 as pb

#: The status codes a step may expect: the library's refusals are INVALID_ARGUMENT (an illegal
#: command) and FAILED_PRECONDITION (not now); a server may also answer the others.
CODES = (
    OK,
    INVALID_ARGUMENT,
    FAILED_PRECONDITION,
    "PERMISSION_DENIED",
    "UNAUTHENTICATED",
    "NOT_FOUND",
    "ABORTED",
    "RESOURCE_EXHAUSTED",
)
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

#: Who a view or events check is for: a seat, ``None`` for the spectator, ``"step"`` for the
#: seat of the step, or ``"all"`` for every seat and the spectator.
ViewerSpec = int | None | Literal["step", "all"]


@dataclass(frozen=True, slots=True)
class Expect:
    """The expected outcome of a command or setup: ``OK`` or a status code (or one of several),
    maybe a rule id (or one of several) and a text the message contains."""

    codes: tuple[str, ...] = (OK,)
    rules: tuple[str, ...] | None = None
    message: str | None = None

    @property
    def code(self) -> str:
        return self.codes[0]

    @property
    def rule(self) -> str | None:
        return self.rules[0] if self.rules else None

    def describe(self) -> str:
        text = " or ".join("ok" if code == OK else code for code in self.codes)
        if self.rules is not None:
            text += " " + " or ".join(self.rules)
        if self.message is not None:
            text += f" (message containing {self.message!r})"
        return text


@dataclass(frozen=True, slots=True)
class Check:
    """A match against views, or the events a step appended, for one or more viewers."""

    viewers: tuple[ViewerSpec, ...]
    match: Any

    @property
    def viewer(self) -> ViewerSpec:
        return self.viewers[0]


@dataclass(frozen=True, slots=True)
class Step:
    """One step: an optional command by ``seat`` with its expected outcome, then checks.

    ``label`` says where the step comes from (``steps[4] (line 30)``, or inside a repeat
    ``steps[4] (line 30) repeat 2/12 > steps[0] (line 8)``); ``unchanged`` asks, for an
    expected refusal, that nothing changed."""

    index: int
    line: int | None
    seat: int | None
    command: Any  # the proto JSON form; None for a check-only step
    expect: Expect
    views: tuple[Check, ...] = ()
    events_checks: tuple[Check, ...] = ()
    note: str | None = None
    name: str | None = None
    unchanged: bool = True
    label: str = ""

    @property
    def events(self) -> Check | None:
        return self.events_checks[0] if self.events_checks else None

    def where(self) -> str:
        if self.label:
            return self.label
        return f"steps[{self.index}]" + (f" (line {self.line})" if self.line else "")


@dataclass(frozen=True, slots=True)
class Alternative:
    """An indistinguishability check: the same commands on another deal (or seed) must look
    byte-identical to ``viewers`` up to and including step ``until`` (an index of the run)."""

    index: int
    name: str
    seed: str
    deal: FixedDeal | None
    viewers: tuple[Viewer, ...]
    until: int

    def where(self) -> str:
        return f"indistinguishable[{self.index}] ({self.name})"


@dataclass(frozen=True, slots=True)
class Scenario:
    path: str
    game: str
    players: int
    options: dict[str, str]
    seed: str
    deal: FixedDeal | None
    steps: tuple[Step, ...]
    expect_setup: Expect | None = None
    game_type_checks: tuple[Any, ...] = ()
    game_checks: tuple[Any, ...] = ()
    alternatives: tuple[Alternative, ...] = ()


@dataclass(frozen=True, slots=True)
class Failure:
    """A mismatch of a scenario: ``step`` is ``None`` for one at setup (or of a whole-run
    check, then ``where`` names it)."""

    step: Step | None
    message: str
    where: str = ""

    def describe(self) -> str:
        where = self.step.where() if self.step else (self.where or "setup")
        note = f" [note: {self.step.note}]" if self.step is not None and self.step.note else ""
        return f"{where}: {self.message}{note}"


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    path: str
    steps: int
    failures: tuple[Failure, ...] = ()
    steps_run: int = 0
    mode: str = "library"

    @property
    def failure(self) -> Failure | None:
        return self.failures[0] if self.failures else None

    @property
    def ok(self) -> bool:
        return not self.failures

    def line(self) -> str:
        """The one-line report of ``referee scenario run`` (the first mismatch)."""
        if not self.failures:
            return f"ok  {self.path}  ({self.steps} steps)"
        more = f"  (+{len(self.failures) - 1} more)" if len(self.failures) > 1 else ""
        return f"FAIL  {self.path}  {self.failures[0].describe()}{more}"

    def lines(self) -> list[str]:
        """Every mismatch: the report line, then one indented line per further mismatch."""
        if len(self.failures) <= 1:
            return [self.line()]
        first = f"FAIL  {self.path}  {self.failures[0].describe()}"
        return [first, *(f"      {failure.describe()}" for failure in self.failures[1:])]


# --- loading ----------------------------------------------------------------------------------

_TOP_KEYS = {
    "game",
    "players",
    "options",
    "seed",
    "deal",
    "steps",
    "description",
    "expect_setup",
    "expect_game_type",
    "expect_game",
    "indistinguishable",
    "sequences",
}
_STEP_KEYS = {
    "seat",
    "command",
    "expect",
    "view",
    "events",
    "expect_view",
    "note",
    "name",
    "unchanged",
}
_BLOCK_KEYS = {"repeat", "steps", "use", "note", "name"}
_CHECK_KEYS = {"seat", "match"}
_EVENTS_KEYS = {"as", "match"}
_EXPECT_KEYS = {"code", "rule", "message"}
_ALTERNATIVE_KEYS = {"name", "deal", "seed", "viewers", "until", "note"}
#: Most steps a file may expand to (repeat and sequences), so a typo cannot hang a run.
MAX_STEPS = 20_000

#: The schema a view check matches: a ``referee.v1.View`` in proto JSON form.
VIEW = schema.message_type(pb.View.DESCRIPTOR)
#: The schema an events check matches: a list of ``referee.v1.Event``.
EVENTS = schema.list_of(pb.Event.DESCRIPTOR)
#: The schema of ``expect_game_type``: the game type as ``ListGameTypes`` describes it.
GAME_TYPE = schema.message_type(pb.GameType.DESCRIPTOR)
#: The schema of ``expect_game``: the table's public ``GameSummary``.
GAME_SUMMARY = schema.message_type(pb.GameSummary.DESCRIPTOR)


def _check_spec(expected: Any, kind: schema.Type, path: str, where: str) -> None:
    """Fail the file when ``expected`` names a key (or a value) that the schema has not."""
    try:
        schema.check_spec(expected, kind)
    except schema.SpecError as error:
        joined = error.path if error.path.startswith("[") else f".{error.path}"
        raise _fail(path, where + (joined if error.path else ""), error.message) from None


def _fail(path: str, where: str, message: str) -> ScenarioError:
    return ScenarioError(path, f"{where}: {message}" if where else message)


def _keys(value: Mapping[str, Any], allowed: set[str], path: str, where: str) -> None:
    unknown = sorted(str(key) for key in value if key not in allowed)
    if unknown:
        raise _fail(
            path,
            where,
            f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}",
        )


Lines = dict[tuple[Any, ...], int]


def _node_lines(text: str) -> Lines:
    """1-based line of every item of every list and every value of every mapping, by its path
    from the top (``("steps", 3)``, ``("sequences", "draw", 0)``); empty when unreadable."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    lines: Lines = {}
    stack: list[tuple[tuple[Any, ...], Any]] = [((), node)]
    while stack:
        path, current = stack.pop()
        if isinstance(current, yaml.MappingNode):
            for key, value in current.value:
                sub = (*path, getattr(key, "value", None))
                lines[sub] = value.start_mark.line + 1
                stack.append((sub, value))
        elif isinstance(current, yaml.SequenceNode):
            for index, value in enumerate(current.value):
                sub = (*path, index)
                lines[sub] = value.start_mark.line + 1
                stack.append((sub, value))
    return lines


def _read(path: str) -> tuple[Any, Lines]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioError(path, f"cannot read: {error.strerror or error}") from None
    if path.endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ScenarioError(path, f"invalid JSON: {error}") from None
        return data, _node_lines(text)  # JSON is YAML, so this finds the lines too
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ScenarioError(path, f"invalid YAML: {error}") from None
    return data, _node_lines(text)


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


def _viewers(value: Any, players: int, path: str, where: str) -> tuple[ViewerSpec, ...]:
    """A viewer, a list of viewers, or ``all`` (every seat and the spectator)."""
    if value == "all":
        return ("all",)
    if isinstance(value, list):
        if not value:
            raise _fail(path, where, "expected at least one viewer")
        return tuple(_viewer(v, players, path, f"{where}[{i}]") for i, v in enumerate(value))
    return (_viewer(value, players, path, where),)


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


def _deal(
    value: Any, game: str, players: int, path: str, seed: str = "", options: Any = None
) -> FixedDeal | None:
    """``deal:`` as the engine's fixed deal (``referee.scenario.deals``)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _fail(path, "deal", "expected a mapping with decks, picks, hands, ...")
    try:
        normalised = get_game(game).info.normalise_options(options or {})
    except (KeyError, ValueError):  # the setup refuses these; the deal uses what was given
        normalised = dict(options or {})
    try:
        return build_deal(value, game, players, seed.encode("utf-8"), normalised)
    except DealError as error:
        raise _fail(path, error.where, error.message) from None


def _alternatives_of(
    value: Any, allowed: tuple[str, ...], path: str, where: str
) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise _fail(path, where, "expected at least one value")
    for index, item in enumerate(items):
        if not isinstance(item, str) or (allowed and item not in allowed):
            at = f"{where}[{index}]" if isinstance(value, list) else where
            choice = f"one of {', '.join(allowed)}" if allowed else "a string"
            raise _fail(path, at, f"expected {choice}, got {item!r}")
    return tuple(items)


def _expect(value: Any, path: str, where: str, *, setup: bool = False) -> Expect:
    if setup and (value is None or value in ("ok", OK)):
        raise _fail(path, where, "expect_setup expects a refusal: give its code")
    if value is None or value == "ok" or value == OK:
        return Expect()
    if isinstance(value, str):
        if value in CODES:
            return Expect(codes=(value,))
        raise _fail(path, where, f"expected ok or {{code: ..., rule: ...}}, got {value!r}")
    if not isinstance(value, dict):
        raise _fail(path, where, "expected ok or a mapping {code, rule, message}")
    _keys(value, _EXPECT_KEYS, path, where)
    if "code" not in value:
        raise _fail(path, f"{where}.code", f"expected one of {', '.join(CODES)}, got None")
    codes = _alternatives_of(value["code"], CODES, path, f"{where}.code")
    rules = _alternatives_of(value["rule"], (), path, f"{where}.rule") if "rule" in value else None
    message = value.get("message")
    if message is not None and not isinstance(message, str):
        raise _fail(path, f"{where}.message", f"expected a string, got {message!r}")
    if OK in codes and (rules is not None or message is not None):
        raise _fail(path, where, "rule and message only go with a rejection code")
    if setup and OK in codes:
        raise _fail(path, where, "expect_setup expects a refusal: give its code")
    return Expect(codes=codes, rules=rules, message=message)


def _view_checks(value: Any, players: int, path: str, where: str) -> tuple[Check, ...]:
    items = value if isinstance(value, list) else [value]
    checks = []
    for index, item in enumerate(items):
        at = f"{where}[{index}]" if isinstance(value, list) else where
        if not isinstance(item, dict) or "match" not in item:
            raise _fail(path, at, "expected {seat: N | spectator (optional), match: {...}}")
        _keys(item, _CHECK_KEYS, path, at)
        viewers: tuple[ViewerSpec, ...] = (
            _viewers(item["seat"], players, path, f"{at}.seat") if "seat" in item else ("step",)
        )
        _check_spec(item["match"], VIEW, path, f"{at}.match")
        checks.append(Check(viewers, item["match"]))
    return tuple(checks)


def _is_events_check(item: Any) -> bool:
    return isinstance(item, dict) and "match" in item


def _events_checks(value: Any, players: int, path: str, where: str) -> tuple[Check, ...]:
    """A list of events, an operator mapping, ``{as, match}``, or a list of ``{as, match}``."""
    if isinstance(value, list) and value and all(_is_events_check(item) for item in value):
        return tuple(
            check
            for index, item in enumerate(value)
            for check in _events_checks(item, players, path, f"{where}[{index}]")
        )
    if isinstance(value, list) or (isinstance(value, dict) and "match" not in value):
        _check_spec(value, EVENTS, path, where)
        return (Check(("step",), value),)
    if not isinstance(value, dict):
        raise _fail(path, where, "expected a list of events or {as: seat|spectator, match: [...]}")
    _keys(value, _EVENTS_KEYS, path, where)
    if not isinstance(value["match"], list | dict):
        raise _fail(path, where, "expected a list of events or {as: seat|spectator, match: [...]}")
    viewers: tuple[ViewerSpec, ...] = (
        _viewers(value["as"], players, path, f"{where}.as") if "as" in value else ("step",)
    )
    _check_spec(value["match"], EVENTS, path, f"{where}.match")
    return (Check(viewers, value["match"]),)


def _step(raw: Any, index: int, line: int | None, players: int, path: str, label: str) -> Step:
    where = label
    if not isinstance(raw, dict):
        raise _fail(path, where, "expected a mapping")
    _keys(raw, _STEP_KEYS, path, where)
    if "view" in raw and "expect_view" in raw:
        raise _fail(path, where, "give view or expect_view, not both")
    seat = _int(raw["seat"], path, f"{where}.seat") if "seat" in raw else None
    command = raw.get("command")
    view_raw = raw.get("view", raw.get("expect_view"))
    if command is None:
        for key in ("expect", "events", "unchanged"):
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
        if "step" in check.viewers and seat is None:
            raise _fail(path, f"{where}.view", "say whose view to check (seat: N or spectator)")
    if seat is not None and seat >= players and any("step" in c.viewers for c in views):
        raise _fail(path, f"{where}.view", f"no seat {seat} to view; give the view's seat")
    events = (
        _events_checks(raw["events"], players, path, f"{where}.events") if "events" in raw else ()
    )
    if seat is not None and seat >= players and any("step" in c.viewers for c in events):
        raise _fail(path, f"{where}.events", f"no seat {seat}; give as: seat or spectator")
    unchanged = raw.get("unchanged", True)
    if not isinstance(unchanged, bool):
        raise _fail(path, f"{where}.unchanged", f"expected true or false, got {unchanged!r}")
    for key in ("note", "name"):
        if key in raw and not isinstance(raw[key], str):
            raise _fail(path, f"{where}.{key}", f"expected a string, got {raw[key]!r}")
    return Step(
        index=index,
        line=line,
        seat=seat,
        command=command,
        expect=_expect(raw.get("expect"), path, f"{where}.expect"),
        views=views,
        events_checks=events,
        note=raw.get("note"),
        name=raw.get("name"),
        unchanged=unchanged,
        label=label,
    )


def _display(source: tuple[Any, ...]) -> str:
    """A path from the top of the file: ``steps[3].steps``, ``sequences.draw``."""
    text = ""
    for part in source:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


@dataclass
class _Expansion:
    """Turns ``steps`` with ``repeat`` blocks and ``use`` of named ``sequences`` into the flat
    list of steps a run plays."""

    path: str
    players: int
    lines: Lines
    sequences: dict[str, tuple[tuple[Any, ...], list[Any]]]
    steps: list[Step]

    def expand(
        self, raws: list[Any], source: tuple[Any, ...], prefix: str, using: tuple[str, ...]
    ) -> None:
        for index, raw in enumerate(raws):
            line = self.lines.get((*source, index))
            here = f"{_display(source)}[{index}]" + (f" (line {line})" if line else "")
            label = f"{prefix} > {here}" if prefix else here
            if isinstance(raw, dict) and ("repeat" in raw or "use" in raw):
                self.block(raw, (*source, index), label, using)
                continue
            if len(self.steps) >= MAX_STEPS:
                raise _fail(self.path, label, f"more than {MAX_STEPS} steps after expansion")
            self.steps.append(_step(raw, len(self.steps), line, self.players, self.path, label))

    def block(
        self, raw: dict[str, Any], source: tuple[Any, ...], label: str, using: tuple[str, ...]
    ) -> None:
        _keys(raw, _BLOCK_KEYS, self.path, label)
        count = _int(raw.get("repeat", 1), self.path, f"{label}.repeat", minimum=1)
        if ("use" in raw) == ("steps" in raw):
            raise _fail(self.path, label, "a block has either use: NAME or steps: [...]")
        if "use" in raw:
            name = raw["use"]
            if name not in self.sequences:
                known = ", ".join(sorted(self.sequences)) or "none"
                raise _fail(self.path, f"{label}.use", f"no sequence {name!r}; sequences: {known}")
            if name in using:
                raise _fail(self.path, f"{label}.use", f"sequence {name!r} uses itself")
            body_source, body = self.sequences[name]
            using = (*using, name)
            title = f"use {name}"
        else:
            body = raw["steps"]
            if not isinstance(body, list) or not body:
                raise _fail(self.path, f"{label}.steps", "expected a non-empty list of steps")
            body_source = (*source, "steps")
            title = "repeat"
        for turn in range(count):
            counter = f" {turn + 1}/{count}" if count > 1 else ""
            self.expand(body, body_source, f"{label} {title}{counter}", using)


def _sequences(value: Any, path: str) -> dict[str, tuple[tuple[Any, ...], list[Any]]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _fail(path, "sequences", "expected a mapping of name to a list of steps")
    found = {}
    for name, body in value.items():
        if not isinstance(body, list) or not body:
            raise _fail(path, f"sequences.{name}", "expected a non-empty list of steps")
        found[str(name)] = (("sequences", name), body)
    return found


def _matches_of(value: Any, kind: schema.Type, path: str, where: str) -> tuple[Any, ...]:
    """``{match: {...}}`` or a list of them (``expect_game_type``, ``expect_game``)."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    found = []
    for index, item in enumerate(items):
        at = f"{where}[{index}]" if isinstance(value, list) else where
        if not isinstance(item, dict) or "match" not in item:
            raise _fail(path, at, "expected {match: {...}}")
        _keys(item, {"match", "note"}, path, at)
        _check_spec(item["match"], kind, path, f"{at}.match")
        found.append(item["match"])
    return tuple(found)


def _alternatives(
    value: Any, data: dict[str, Any], steps: tuple[Step, ...], path: str
) -> tuple[Alternative, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        raise _fail(path, "indistinguishable", "expected a list of alternatives")
    game, players = data["game"], data["players"]
    base = data.get("deal") or {}
    found = []
    for index, raw in enumerate(value):
        where = f"indistinguishable[{index}]"
        if not isinstance(raw, dict):
            raise _fail(path, where, "expected {name, deal and/or seed, viewers, until}")
        _keys(raw, _ALTERNATIVE_KEYS, path, where)
        if "deal" not in raw and "seed" not in raw:
            raise _fail(path, where, "give the alternative's deal (or deal keys) or seed")
        if "viewers" not in raw:
            raise _fail(path, where, "give the viewers who must not tell the deals apart")
        viewers = tuple(
            viewer
            for spec in _viewers(raw["viewers"], players, path, f"{where}.viewers")
            for viewer in (_all_viewers(players) if spec == "all" else (spec,))
            if viewer != "step"
        )
        deal_raw = raw.get("deal")
        if deal_raw is not None and not isinstance(deal_raw, dict):
            raise _fail(path, f"{where}.deal", "expected a mapping (keys replace the deal's)")
        merged: dict[str, Any] = {**(base if isinstance(base, dict) else {}), **(deal_raw or {})}
        if deal_raw and "hands" in deal_raw:
            merged.pop("decks", None)
        if deal_raw and "decks" in deal_raw:
            merged.pop("hands", None)
        seed = raw.get("seed", data.get("seed", DEFAULT_SEED))
        deal = _deal(
            merged or None, game, players, path, str(seed), _options(data.get("options"), path)
        )
        until = _until(raw.get("until"), steps, path, f"{where}.until")
        name = str(raw.get("name", f"alternative {index}"))
        found.append(Alternative(index, name, str(seed), deal, viewers, until))
    return tuple(found)


def _until(value: Any, steps: tuple[Step, ...], path: str, where: str) -> int:
    """The index of the last step compared: by name, by index, or the last step."""
    if value is None:
        return len(steps) - 1
    if isinstance(value, str):
        for step in steps:
            if step.name == value:
                return step.index
        names = ", ".join(sorted({s.name for s in steps if s.name})) or "none"
        raise _fail(path, where, f"no step named {value!r}; names: {names}")
    index = _int(value, path, where)
    if index >= len(steps):
        raise _fail(path, where, f"no step {index}: the run has {len(steps)} steps")
    return index


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
    expansion = _Expansion(name, players, lines, _sequences(data.get("sequences"), name), [])
    expansion.expand(steps_raw, ("steps",), "", ())
    steps = tuple(expansion.steps)
    expect_setup = (
        _expect(data["expect_setup"], name, "expect_setup", setup=True)
        if "expect_setup" in data
        else None
    )
    if expect_setup is not None and steps:
        raise _fail(name, "steps", "a scenario with expect_setup has no steps (steps: [])")
    options = _options(data.get("options"), name)
    deal = _deal(data.get("deal"), game, players, name, str(seed), options)
    return Scenario(
        path=name,
        game=game,
        players=players,
        options=options,
        seed=str(seed),
        deal=deal,
        steps=steps,
        expect_setup=expect_setup,
        game_type_checks=_matches_of(
            data.get("expect_game_type"), GAME_TYPE, name, "expect_game_type"
        ),
        game_checks=_matches_of(data.get("expect_game"), GAME_SUMMARY, name, "expect_game"),
        alternatives=_alternatives(data.get("indistinguishable"), data, steps, name),
    )


# --- running ----------------------------------------------------------------------------------


def _viewer_name(viewer: Viewer) -> str:
    return "the spectator" if viewer is None else f"seat {viewer}"


def _all_viewers(players: int) -> tuple[Viewer, ...]:
    return (*range(players), None)


def _resolve(viewers: tuple[ViewerSpec, ...], step: Step, players: int) -> list[Viewer]:
    found: list[Viewer] = []
    for viewer in viewers:
        if viewer == "all":
            found.extend(_all_viewers(players))
        elif viewer == "step":
            found.append(step.seat)
        else:
            found.append(viewer)
    return found


def view_json(table: Table[Any], viewer: Viewer) -> dict[str, Any]:
    """``viewer``'s view in the proto's JSON form (what a view check is matched against)."""
    message = codec.view_to_proto(GAME_ID, table.config.players, table.view(viewer))
    return json_format.MessageToDict(message, preserving_proto_field_name=False)


def events_json(table: Table[Any], first: int, viewer: Viewer) -> list[dict[str, Any]]:
    """The events from index ``first`` of the log, redacted for ``viewer``, in proto JSON form."""
    game_type = table.game.info.type_id
    return [
        json_format.MessageToDict(
            codec.event_to_proto(game_type, table.redact(event, viewer), first + i + 1),
            preserving_proto_field_name=False,
        )
        for i, event in enumerate(table.log[first:])
    ]


def _check_outcome(expect: Expect, outcome: Outcome) -> str | None:
    code, rule, message = outcome.code, outcome.rule, outcome.message
    got = "ok" if code == OK else f"{code} {rule or '(no rule)'}: {message}"
    if code not in expect.codes:
        return f"expected {expect.describe()}, got {got}"
    if expect.rules is not None and rule not in expect.rules:
        return f"expected {expect.describe()}, got {got}"
    if expect.message is not None and expect.message not in message:
        return f"expected {expect.describe()}, got {got}"
    if outcome.problem is not None:
        return f"{got}, but {outcome.problem}"
    return None


def _snapshot(driver: Driver, players: int) -> dict[str, Any]:
    """What must not change when a command is refused: the version, and every viewer's view
    (pending decisions, legal commands and the game's part included)."""
    return {
        "version": driver.version(),
        "views": {_viewer_name(v): driver.current_view(v) for v in _all_viewers(players)},
    }


def first_difference(before: Any, after: Any, path: str = "") -> str | None:
    """Where two JSON values first differ (``None`` when they are equal)."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            sub = f"{path}.{key}" if path else str(key)
            problem = first_difference(
                before.get(key, schema.MISSING), after.get(key, schema.MISSING), sub
            )
            if problem is not None:
                return problem
        return None
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (a, b) in enumerate(zip(before, after, strict=True)):
            problem = first_difference(a, b, f"{path}[{index}]")
            if problem is not None:
                return problem
        return None
    if before == after and type(before) is type(after):
        return None
    return f"at {path or '(top)'}: {schema.show(before)} then {schema.show(after)}"


def _unchanged_problem(before: dict[str, Any], after: dict[str, Any]) -> str | None:
    if before["version"] != after["version"]:
        return (
            f"the refusal changed the game: version {before['version']} became "
            f"{after['version']} (events were appended)"
        )
    for viewer, view in before["views"].items():
        problem = first_difference(view, after["views"][viewer])
        if problem is not None:
            return f"the refusal changed the view of {viewer}: {problem}"
    return None


def _run_step(driver: Driver, step: Step, players: int) -> list[str]:
    problems: list[str] = []
    if step.command is not None:
        assert step.seat is not None
        refusal = OK not in step.expect.codes
        before = _snapshot(driver, players) if refusal and step.unchanged else None
        outcome = driver.submit(step.seat, step.command)
        problem = _check_outcome(step.expect, outcome)
        if problem is not None:
            return [problem]  # what was checked next assumes the expected outcome
        if before is not None:
            problem = _unchanged_problem(before, _snapshot(driver, players))
            if problem is not None:
                problems.append(problem)
        for check in step.events_checks:
            for viewer in _resolve(check.viewers, step, players):
                events = driver.events(outcome.first, outcome.last, viewer)
                problem = schema.mismatch(check.match, events, EVENTS)
                if problem is not None:
                    problems.append(f"events as {_viewer_name(viewer)}: {problem}")
    for check in step.views:
        for viewer in _resolve(check.viewers, step, players):
            problem = schema.mismatch(check.match, driver.view(viewer), VIEW)
            if problem is not None:
                problems.append(f"view of {_viewer_name(viewer)}: {problem}")
    return problems


#: Makes the driver a run plays on (the library by default).
DriverFactory = Callable[[], Driver]


def _setup(driver: Driver, scenario: Scenario, failures: list[Failure]) -> bool:
    """Check the game type, create the table and check the setup's outcome; True when the
    steps can run."""
    if scenario.game_type_checks:
        described = driver.game_type(scenario.game)
        for expected in scenario.game_type_checks:
            problem = (
                f"no game type {scenario.game!r}"
                if described is None
                else schema.mismatch(expected, described, GAME_TYPE)
            )
            if problem is not None:
                failures.append(Failure(None, problem, "expect_game_type"))
    try:
        driver.create(
            Setup(scenario.game, scenario.players, scenario.options, scenario.seed, scenario.deal)
        )
    except SetupRefused as refused:
        outcome = refused.outcome
        if scenario.expect_setup is None:
            failures.append(Failure(None, f"table not created: {outcome.message}"))
        else:
            problem = _check_outcome(scenario.expect_setup, outcome)
            if problem is not None:
                failures.append(Failure(None, problem, "expect_setup"))
        return False
    if scenario.expect_setup is not None:
        failures.append(
            Failure(
                None,
                f"expected {scenario.expect_setup.describe()}, but the table was created",
                "expect_setup",
            )
        )
        return False
    for expected in scenario.game_checks:
        problem = schema.mismatch(expected, driver.summary(), GAME_SUMMARY)
        if problem is not None:
            failures.append(Failure(None, problem, "expect_game"))
    return True


def run_loaded(
    scenario: Scenario,
    driver: DriverFactory = LibraryDriver,
    *,
    keep_going: bool = False,
    mode: str = "library",
) -> ScenarioResult:
    """Play ``scenario`` on a fresh table; stop at the first mismatch unless ``keep_going``."""
    total = len(scenario.steps)
    failures: list[Failure] = []
    done = 0
    table = driver()
    try:
        if _setup(table, scenario, failures) and (keep_going or not failures):
            for step in scenario.steps:
                try:
                    problems = _run_step(table, step, scenario.players)
                except DealRefused as refused:
                    failures.append(Failure(step, f"the fixed deal cannot be dealt: {refused}"))
                    break
                failures.extend(Failure(step, problem) for problem in problems)
                if problems and not keep_going:
                    break
                done += 1
    finally:
        table.close()
    if scenario.alternatives and (keep_going or not failures):
        for alternative in scenario.alternatives:
            problem = indistinguishable(scenario, alternative, driver)
            if problem is not None:
                failures.append(Failure(None, problem, alternative.where()))
                if not keep_going:
                    break
    return ScenarioResult(scenario.path, total, tuple(failures), done, mode)


def run_scenario(
    path: str | os.PathLike[str],
    driver: DriverFactory = LibraryDriver,
    *,
    keep_going: bool = False,
    mode: str = "library",
) -> ScenarioResult:
    """Load and play one scenario file. Raises :class:`ScenarioError` for a malformed file."""
    return run_loaded(load_scenario(path), driver, keep_going=keep_going, mode=mode)


# --- indistinguishability ---------------------------------------------------------------------

#: Keys left out when two runs are compared: they differ between any two tables by design
#: (the game id, when a batch was recorded, decision times, clocks) or commit to the deal and
#: seed while hiding them (the seed and deal commitments: SHA-256 of a secret seed), or make
#: both public once the game is over (the seed reveal).
_UNCOMPARED = {
    "seedRevealed",
    "gameId",
    "recordedUnixMs",
    "decided",
    "clocks",
    "seedCommitment",
    "dealCommitment",
    "commitment",
}


def _comparable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if k not in _UNCOMPARED}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    return value


Transcript = list[tuple[str, dict[Viewer, Any]]]


def _transcript(
    scenario: Scenario,
    deal: FixedDeal | None,
    seed: str,
    viewers: tuple[Viewer, ...],
    until: int,
    driver: DriverFactory,
) -> Transcript:
    """What ``viewers`` receive, item by item: the opening events and view, then for every
    step up to ``until`` its outcome (the step's own seat only), events and views."""
    table = driver()
    items: Transcript = []
    try:
        try:
            table.create(Setup(scenario.game, scenario.players, scenario.options, seed, deal))
        except SetupRefused as refused:
            return [("setup", dict.fromkeys(viewers, refused.outcome.message))]
        opening = table.version()
        items.append(("the opening events", {v: table.events(1, opening, v) for v in viewers}))
        items.append(("the opening view", {v: table.view(v) for v in viewers}))
        for step in scenario.steps[: until + 1]:
            if step.command is not None:
                assert step.seat is not None
                outcome = table.submit(step.seat, step.command)
                seen = (outcome.code, outcome.rule, outcome.message)
                if step.seat in viewers:
                    items.append((f"{step.where()}: the outcome", {step.seat: seen}))
                if outcome.code == OK:
                    last = table.version()  # the referee's own batches too (the reveal)
                    events = {v: table.events(outcome.first, last, v) for v in viewers}
                    items.append((f"{step.where()}: the events", events))
            items.append((f"{step.where()}: the view", {v: table.view(v) for v in viewers}))
    finally:
        table.close()
    return items


def indistinguishable(
    scenario: Scenario, alternative: Alternative, driver: DriverFactory = LibraryDriver
) -> str | None:
    """``None`` when the alternative looks the same as the scenario to its viewers, else the
    first difference: which item, for whom, where."""
    base = _transcript(
        scenario, scenario.deal, scenario.seed, alternative.viewers, alternative.until, driver
    )
    other = _transcript(
        scenario, alternative.deal, alternative.seed, alternative.viewers, alternative.until, driver
    )
    for (what, seen), (_, other_seen) in zip(base, other, strict=False):
        for viewer in alternative.viewers:
            if viewer not in seen:
                continue
            a, b = _comparable(seen[viewer]), _comparable(other_seen.get(viewer))
            encoded = (json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True))
            if encoded[0] != encoded[1]:
                where = first_difference(a, b) or ""
                return (
                    f"{_viewer_name(viewer)} can tell the deals apart by {what} "
                    f"({where.replace(' then ', ' in the scenario, ', 1)} in the alternative)"
                )
    if len(base) != len(other):
        return f"the runs differ in length ({len(base)} and {len(other)} items)"
    return None


# --- the command ------------------------------------------------------------------------------


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


USAGE = """usage: referee scenario run [--server HOST:PORT] [--keep-going] [--junit FILE] FILE...

Play each scenario file (YAML or JSON; a directory means every *.yaml, *.yml and *.json file
below it) against an in-process table, or with --server against a running referee over gRPC
(real seat tokens and streams). Prints `ok  FILE  (N steps)` per passing file, or the file's
first mismatch (--keep-going: every mismatch, one per line); --junit FILE also writes a JUnit
XML report. Exits 0 when every file passes, else 1. Format: docs/scenarios.md."""


@dataclass
class Options:
    files: list[str]
    server: str | None = None
    keep_going: bool = False
    junit: str | None = None


def parse_args(argv: list[str]) -> Options | str:
    """The command line, or the reason it is wrong."""
    options = Options(files=[])
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("--server", "--junit"):
            if not args:
                return f"{arg} needs a value"
            value = args.pop(0)
            if arg == "--server":
                options.server = value
            else:
                options.junit = value
        elif arg.startswith("--server=") or arg.startswith("--junit="):
            name, _, value = arg.partition("=")
            setattr(options, name[2:], value)
        elif arg == "--keep-going":
            options.keep_going = True
        elif arg.startswith("--"):
            return f"unknown option {arg}"
        else:
            options.files.append(arg)
    return options


def main(argv: list[str]) -> int:
    """``referee scenario run ...``: run each file, print its report, return 0/1."""
    if any(arg in ("-h", "--help") for arg in argv):
        print(USAGE)
        return 0
    options = parse_args(argv)
    if isinstance(options, str):
        print(f"referee scenario run: {options}\n{USAGE}")
        return 1
    files = list(scenario_files(options.files))
    if not files:
        print(USAGE)
        return 1
    factory: DriverFactory = LibraryDriver
    mode = "library"
    if options.server is not None:
        from referee.scenario.remote import ServerDriver

        target = options.server

        def factory() -> Driver:
            return ServerDriver(target)

        mode = f"server {target}"
    from referee.scenario.report import Report

    report = Report(mode)
    for name in files:
        try:
            result = run_scenario(name, factory, keep_going=options.keep_going, mode=mode)
            lines = result.lines()
            report.add(name, result=result)
        except ScenarioError as error:
            lines = [f"ERROR  {error.path or name}  {error.detail}"]
            report.add(name, error=error.detail)
        except Exception as error:  # an engine or server bug: report it and keep going
            text = f"internal error: {type(error).__name__}: {error}"
            lines = [f"ERROR  {name}  {text}"]
            report.add(name, error=text)
        print("\n".join(lines), flush=True)
    if options.junit:
        report.write_junit(options.junit)
    return 0 if report.ok else 1


__all__ = [
    "FAILED_PRECONDITION",
    "INVALID_ARGUMENT",
    "OK",
    "Alternative",
    "Check",
    "Expect",
    "Failure",
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "Step",
    "events_json",
    "first_difference",
    "indistinguishable",
    "load_scenario",
    "main",
    "run_loaded",
    "run_scenario",
    "scenario_files",
    "subset_mismatch",
    "view_json",
]
