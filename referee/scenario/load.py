"""Loading a scenario file: YAML or JSON read, every key and expectation checked against the
format and the proto schema, ``repeat`` blocks and ``sequences`` expanded into steps.

:func:`load_scenario` raises :class:`~referee.scenario.model.ScenarioError` naming the file,
the place (``steps[2] (line 14)``) and what is wrong.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from referee.engine.game import FixedDeal, Viewer
from referee.engine.registry import get_game
from referee.scenario import match as schema
from referee.scenario.deals import DealError, build_deal
from referee.scenario.drivers import OK
from referee.scenario.model import (
    CODES,
    DEFAULT_SEED,
    EVENTS,
    GAME_SUMMARY,
    GAME_TYPE,
    VIEW,
    Alternative,
    Check,
    Expect,
    Scenario,
    ScenarioError,
    Step,
    ViewerSpec,
    all_viewers,
)

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
            for viewer in (all_viewers(players) if spec == "all" else (spec,))
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


__all__ = [
    "MAX_STEPS",
    "load_scenario",
]
