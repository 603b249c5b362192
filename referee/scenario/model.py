r"""The scenario model: what a scenario file says, once loaded, and what a run found.

A :class:`Scenario` is a table setup and a flat list of :class:`Step` (``repeat`` blocks and
``sequences`` expanded); a step's command has an :class:`Expect`\ ed outcome and its
:class:`Check`\ s match views and events. A run's :class:`ScenarioResult` lists its
:class:`Failure`\ s. The schemas the checks match (``VIEW``, ``EVENTS``...) are the proto's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from referee.engine.game import FixedDeal, Viewer
from referee.scenario import match as schema
from referee.scenario.drivers import FAILED_PRECONDITION, INVALID_ARGUMENT, OK
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


#: The schema a view check matches: a ``referee.v1.View`` in proto JSON form.
VIEW = schema.message_type(pb.View.DESCRIPTOR)
#: The schema an events check matches: a list of ``referee.v1.Event``.
EVENTS = schema.list_of(pb.Event.DESCRIPTOR)
#: The schema of ``expect_game_type``: the game type as ``ListGameTypes`` describes it.
GAME_TYPE = schema.message_type(pb.GameType.DESCRIPTOR)
#: The schema of ``expect_game``: the table's public ``GameSummary``.
GAME_SUMMARY = schema.message_type(pb.GameSummary.DESCRIPTOR)


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


def viewer_name(viewer: Viewer) -> str:
    return "the spectator" if viewer is None else f"seat {viewer}"


def all_viewers(players: int) -> tuple[Viewer, ...]:
    """Every seat, then the spectator."""
    return (*range(players), None)


__all__ = [
    "CODES",
    "DEFAULT_SEED",
    "EVENTS",
    "GAME_SUMMARY",
    "GAME_TYPE",
    "SCENARIO_SUFFIXES",
    "VIEW",
    "Alternative",
    "Check",
    "Expect",
    "Failure",
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "Step",
    "ViewerSpec",
    "all_viewers",
    "viewer_name",
]
