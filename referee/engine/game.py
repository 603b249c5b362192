"""The one interface every game implements (sans-I/O: no gRPC, database, clock or asyncio).

A game is a set of pure functions over a mutable *state* object:

* ``new_state(config)``  the table before anything happened (seats, options, secret seed);
* ``start(state)``       the opening events (the first deal);
* ``decide(state, seat, command)`` the events a command causes, or a :class:`Rejection`
  (the engine's: it checks who may act and the command's shape, then calls the game's
  handler for the phase and the command's type, from the game's ``handlers`` table);
* ``apply(state, event)`` folds one event into the state (the only function that mutates);
* ``legal_commands(state, seat)`` what ``seat`` may send now, compact and complete;
* ``view(state, viewer)`` everything ``viewer`` may know now;
* ``redact(event, viewer)`` the version of an event ``viewer`` may see;
* ``results(state)`` the final score and rank of every seat, or ``None`` while playing;
* ``ending(state)`` why it ended: the rule and the reason in words, from public information.

Commands, events and views are frozen dataclasses. Their class and field names are the wire
names: :mod:`referee.server.codec` maps them onto the game's proto messages by name, so a game
never imports protobuf.
"""

from __future__ import annotations

import abc
import re
import typing
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar

from referee.engine.compiling import mypyc_attr
from referee.engine.endings import Ending
from referee.engine.fields import MalformedValue, check_shape
from referee.engine.words import plain_words

Seat = int
#: A viewer is a seat index, or ``None`` for a spectator (public information only).
Viewer = int | None

StateT = TypeVar("StateT")
#: A game's commands and its events: the unions its model declares (``Command = A | B | C``).
CommandT = TypeVar("CommandT")
EventT = TypeVar("EventT")

#: A command or an event where the engine handles every game alike (a table and its log, a
#: search table): some game's, whichever the table plays, of which the engine reads nothing but
#: its class (a command's checked against the game's ``command_types`` when it arrives).
Command = object
Event = object


class SetupRefused(ValueError):
    """A setup the game refuses (bad players, options or fixed deal); nothing is created.

    ``field`` names what is wrong as a request field path (``players``, ``options.rounds``,
    ``deal.decks[3]``, ``deal.picks[0]``); ``rule_id`` is the rule that says so, ``""`` when
    no rule does (a malformed value). The server answers INVALID_ARGUMENT with these in the
    same ``google.rpc`` details as a command's rejection.

    >>> str(SetupRefused("players", "3 to 12 players, got 2", "VQ-2"))
    'VQ-2: 3 to 12 players, got 2'
    """

    def __init__(self, field: str, message: str, rule_id: str = "") -> None:
        super().__init__(f"{rule_id}: {message}" if rule_id else message)
        self.field = field
        self.message = message
        self.rule_id = rule_id


#: An integer option value as written: ASCII digits, no sign, spaces or leading zeros.
_INTEGER = re.compile(r"0|-?[1-9][0-9]*")
#: The rule id an option's description starts with (``"VQ-19: rounds in the game"``).
_RULE_PREFIX = re.compile(r"([A-Z]+-[0-9]+)[a-z]?:")


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """A game option chosen at creation: a name, its default and the values it allows.

    ``allowed`` lists the allowed values; when it is empty the value is an integer between
    ``minimum`` and ``maximum``, written in ASCII decimal digits without sign (unless
    negative), spaces or leading zeros. ``description`` starts with the id of the rule that
    defines the option (``"VQ-19: ..."``), which a refused value cites.
    """

    name: str
    default: str
    description: str
    allowed: tuple[str, ...] = ()
    minimum: int = 0
    maximum: int = 0

    @property
    def rule_id(self) -> str:
        """The rule that defines the option (the start of its description), or ``""``.

        >>> OptionSpec("rounds", "5", "VQ-19: rounds in the game", minimum=1, maximum=50).rule_id
        'VQ-19'
        """
        match = _RULE_PREFIX.match(self.description)
        return match.group(1) if match else ""

    def check(self, value: str) -> str:
        """Return the value, or raise :class:`SetupRefused` saying what is allowed.

        >>> OptionSpec("rounds", "5", "rounds to play", minimum=1, maximum=20).check("7")
        '7'
        >>> OptionSpec("rounds", "5", "VQ-19: rounds", minimum=1, maximum=20).check("07")
        Traceback (most recent call last):
        ...
        referee.engine.game.SetupRefused: VQ-19: option 'rounds' must be an integer \
written in digits 0-9 without sign, spaces or leading zeros, got '07'
        """
        where = f"options.{self.name}"
        if self.allowed:
            if value not in self.allowed:
                raise SetupRefused(
                    where,
                    f"option {self.name!r} must be one of {', '.join(self.allowed)}, got {value!r}",
                    self.rule_id,
                )
            return value
        if not _INTEGER.fullmatch(value):
            raise SetupRefused(
                where,
                f"option {self.name!r} must be an integer written in digits 0-9 without sign, "
                f"spaces or leading zeros, got {value!r}",
                self.rule_id,
            )
        number = int(value)
        if not self.minimum <= number <= self.maximum:
            raise SetupRefused(
                where,
                f"option {self.name!r} must be between {self.minimum} and {self.maximum}, "
                f"got {number}",
                self.rule_id,
            )
        return value


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Public description of a game type."""

    type_id: str
    name: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...]
    rules: str  # path of the authoritative rules file, relative to the rules folder
    summary: str
    #: The rule that sets the number of players (cited when a count is refused).
    players_rule: str = ""
    #: The default event limit of a game of this type (``TableSettings.max_events``): far
    #: above any game played by its rules, it ends one that never would (0: no limit).
    max_events: int = 0
    #: What ``SeatResult.score`` counts, in words ("penalty points, lower is better"), for
    #: every client's score column (``GameType.score_meaning``).
    score_meaning: str = ""

    def normalise_options(self, given: Mapping[str, str]) -> dict[str, str]:
        """Fill defaults and check every option; unknown names are an error."""
        specs = {spec.name: spec for spec in self.options}
        unknown = sorted(set(given) - set(specs))
        if unknown:
            raise SetupRefused(
                f"options.{unknown[0]}",
                f"unknown option(s) {', '.join(unknown)} for {self.type_id}; "
                f"known: {', '.join(specs) or 'none'}",
            )
        return {
            name: spec.check(given[name]) if name in given else spec.default
            for name, spec in specs.items()
        }


@dataclass(frozen=True, slots=True)
class FixedDeal:
    """An explicit outcome for the game's chance events, used instead of the seed.

    ``decks`` gives card orders for successive shuffles (top card first), in the game's card
    notation; ``picks`` gives the results of successive random choices (e.g. a seat index).
    Shuffles or picks beyond those given fall back to the seed. The game checks every part at
    creation (:class:`SetupRefused`); a deck for a shuffle whose cards are known only when it
    happens gives its top cards only (:func:`referee.engine.chance.deck_for`).
    """

    decks: tuple[tuple[str, ...], ...] = ()
    picks: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything needed to rebuild a game from its event log: the log is config + events."""

    game_type: str
    players: int
    options: Mapping[str, str]
    seed: bytes = field(repr=False)
    deal: FixedDeal | None = None
    #: The referee's own secret randomness, mixed into every commitment (never into the
    #: shuffles, which stay reproducible from the seed); ``b""`` for games from before salts.
    salt: bytes = field(default=b"", repr=False)


@dataclass(frozen=True, slots=True)
class DeckOrder:
    """A step of :meth:`Game.chance_steps`: shuffle ``shuffle`` gave ``cards`` (top first, in
    the fixed-deal notation). ``pile``: later :class:`CardsTaken` without a shuffle take from
    it (a draw pile), not from an earlier one."""

    shuffle: int
    cards: tuple[str, ...]
    pile: bool = True


@dataclass(frozen=True, slots=True)
class CardsTaken:
    """``count`` cards left the top of a shuffled deck (``shuffle``, else the current pile),
    seen by the seats ``to`` (``None``: by everyone; ``()``: by no one)."""

    count: int
    to: tuple[int, ...] | None
    shuffle: int | None = None


@dataclass(frozen=True, slots=True)
class CardShown:
    """The card at ``position`` of a shuffled deck (``None``: the next to be taken) became
    visible to ``to`` (``None``: everyone) without leaving its place."""

    to: tuple[int, ...] | None
    position: int | None = None
    shuffle: int | None = None


ChanceStep = DeckOrder | CardsTaken | CardShown


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision the game waits for: which seat decides, what about, under which rule.

    >>> Decision(seat=2, kind="follow", rule_id="VQ-7")
    Decision(seat=2, kind='follow', rule_id='VQ-7')
    """

    seat: int
    kind: str
    rule_id: str


@dataclass(frozen=True, slots=True)
class SeatResult:
    """Final standing of a seat: score (as the game counts it), rank (1 = best; ties share)."""

    seat: int
    score: int
    rank: int


class Rejection(Exception):
    """A command broke a rule. Nothing changes.

    ``kind`` is ``"illegal"`` for a move the rules forbid or a malformed command
    (INVALID_ARGUMENT on the wire) and ``"precondition"`` for a command that is fine in
    itself but not now: not your turn, game over (FAILED_PRECONDITION). ``reason`` says
    which "not now" it is, for a client that handles each differently (a precondition's
    default: :data:`NOT_YOUR_TURN`).
    """

    def __init__(
        self,
        rule_id: str,
        message: str,
        kind: Literal["illegal", "precondition"] = "illegal",
        reason: str = "",
    ) -> None:
        super().__init__(f"{rule_id}: {message}")
        self.rule_id = rule_id
        self.message = message
        self.kind = kind
        self.reason = reason or (NOT_YOUR_TURN if kind == "precondition" else "")


#: The reasons of a precondition rejection (the ErrorInfo reason a client switches on): the
#: seat has no decision to make now, but the game goes on; the game is over (ended by its
#: rules, aborted, or at its event limit): stop playing it.
NOT_YOUR_TURN = "NOT_YOUR_TURN"
GAME_OVER = "GAME_OVER"


def not_your_turn(seat: Seat, pending: Sequence[Seat], rule_id: str) -> Rejection:
    """The standard rejection for a command from a seat with no pending decision."""
    if not pending:
        return Rejection(rule_id, "the game is over", "precondition", GAME_OVER)
    waiting = ", ".join(str(s) for s in pending)
    return Rejection(
        rule_id, f"seat {seat} has no decision to make; waiting for seat {waiting}", "precondition"
    )


#: A game's handler: the events ``command`` (of the handler's type) by ``seat`` causes in
#: ``state`` (of the handler's phase), or a :class:`Rejection` for a move the rules forbid.
#: The engine calls it only for the seat asked to decide and a well-formed command.
#: The command is typed ``Any`` here because each handler takes its own command class, which
#: the handler's key in the table names; its state and its events are the game's.
Handler = Callable[[StateT, Seat, Any], list[EventT]]


def refuse(rule_id: str, message: str) -> Callable[[object, Seat, object], list[EventT]]:
    """A handler that refuses: a command the game knows, wrong in this phase, refused by the
    rule that says so (more telling than the engine's rejection of an unknown pair).

    >>> refuse("VQ-6", "the leader must lead a set or a Hunter")(None, 0, None)
    Traceback (most recent call last):
    ...
    referee.engine.game.Rejection: VQ-6: the leader must lead a set or a Hunter
    """

    def refused(state: object, seat: Seat, command: object) -> list[EventT]:
        raise Rejection(rule_id, message)

    return refused


def union_members(union: Any) -> tuple[type, ...]:
    """The classes of a union alias, in order: a game's ``Command = A | B | C`` (its model)
    gives its ``command_types``, so each game lists its commands and events once.

    >>> from dataclasses import make_dataclass
    >>> A, B = make_dataclass("A", []), make_dataclass("B", [])
    >>> [cls.__name__ for cls in union_members(A | B)]
    ['A', 'B']
    """
    members = typing.get_args(union) or (union,)  # a game with a single command
    if not all(isinstance(member, type) for member in members):
        raise TypeError(f"not a union of classes: {union!r}")
    return members


def rank_by_score(scores: Sequence[int], *, lower_wins: bool) -> tuple[SeatResult, ...]:
    """Competition ranking ("1224"): equal scores share a rank.

    >>> [r.rank for r in rank_by_score([10, 3, 10, 7], lower_wins=True)]
    [3, 1, 3, 2]
    """
    results = []
    for seat, score in enumerate(scores):
        better = sum(1 for other in scores if (other < score if lower_wins else other > score))
        results.append(SeatResult(seat=seat, score=score, rank=better + 1))
    return tuple(results)


# A game of a library user's (or a test's) subclasses Game in Python: in the compiled build a
# compiled class refuses interpreted subclasses unless told so.
@mypyc_attr(allow_interpreted_subclasses=True)
class Game(abc.ABC, Generic[StateT, CommandT, EventT]):
    """A game's rules over its state, its commands and its events (``Game[State, Command,
    Event]``, the last two its model's unions). Subclasses are stateless; all state lives in
    ``StateT``.

    A game decides by declaring ``handlers``, a table from (phase, command type) to the
    function that decides that command in that phase (as h11 declares its protocol), and
    ``phase(state)``; the engine's :meth:`decide` does the rest, the same for every game.
    """

    info: ClassVar[GameInfo]
    #: Every command, event and view dataclass of the game (the codec maps them by name);
    #: ``union_members(Command)`` and ``union_members(Event)`` of the game's model.
    command_types: ClassVar[tuple[type, ...]]
    event_types: ClassVar[tuple[type, ...]]
    view_type: ClassVar[type]

    @abc.abstractmethod
    def new_state(self, config: GameConfig) -> StateT:
        """The table before the first event. ``config.options`` are already normalised."""

    @abc.abstractmethod
    def start(self, state: StateT) -> list[EventT]:
        """The opening events (deal, first player). Called once, right after ``new_state``."""

    #: (phase, command type) -> the handler deciding that command in that phase. A pair
    #: missing from the table is refused by the engine under the pending decision's rule. A
    #: class variable (a game declares it with its own state and events): an attribute with
    #: a default would be an instance slot in the compiled build, where a game's table in
    #: an interpreted subclass would not be seen.
    handlers: ClassVar[Mapping[tuple[Any, type], Handler[Any, Any]]] = {}
    #: The rule a malformed command cites; ``""``: the rule of the seat's pending decision.
    shape_rule: ClassVar[str] = ""

    def phase(self, state: StateT) -> Hashable:
        """The phase of ``state``: the first half of the :attr:`handlers` keys."""
        raise NotImplementedError(f"{type(self).__name__} declares no phase for its handlers")

    def end_rule(self, state: StateT) -> str:
        """The rule a command cites once the game is over (the one that ended it)."""
        return ""

    def refuse_seat(self, state: StateT, seat: Seat, command: CommandT) -> Rejection:
        """The rejection of a command from a seat that has no decision to make: the standard
        "not now" (FAILED_PRECONDITION) naming the rule of a pending decision, or
        :meth:`end_rule` once the game is over. A game may say more (which rule bars it)."""
        decisions = self.decisions(state)
        rule = decisions[0].rule_id if decisions else self.end_rule(state)
        return not_your_turn(seat, tuple(d.seat for d in decisions), rule)

    def decide(self, state: StateT, seat: Seat, command: CommandT) -> list[EventT]:
        """The events ``command`` by ``seat`` causes. Raises :class:`Rejection`. Never mutates.

        The house pattern, once for every game: who may act (:meth:`may_decide`, else
        :meth:`refuse_seat`), the command's shape (one of the game's ``command_types``, its
        fields as annotated: :func:`~referee.engine.fields.check_shape`; refused under
        :attr:`shape_rule`), then the handler of (:meth:`phase`, command type). Refusals that
        are not the handler's cite the rule of the seat's pending decision.
        """
        if not self.may_decide(state, seat):
            raise self.refuse_seat(state, seat, command)
        kind = type(command)
        handler = self.handlers.get((self.phase(state), kind))
        if handler is None and kind not in self.command_types:
            raise Rejection(
                self._rule_of(state, seat), f"not a {self.info.name} command: {kind.__name__}"
            )
        try:
            check_shape(command)
        except MalformedValue as error:
            raise Rejection(self.shape_rule or self._rule_of(state, seat), str(error)) from None
        if handler is None:
            raise self._unexpected(state, seat, kind)
        return handler(state, seat, command)

    def decide_legal(self, state: StateT, seat: Seat, command: CommandT) -> list[EventT]:
        """The events of ``command``, one of the commands :meth:`legal_commands` listed for
        ``seat`` in ``state`` (that very object, passed back): the handler of (:meth:`phase`,
        its type) alone, the same events as :meth:`decide`. What :meth:`decide` checks before
        the handler was settled when the game listed it: the seat is asked to decide, and a
        game lists only its own commands, well formed (the conformance suite holds every game
        to it). The handler's own rules still run. A game without handlers is decided in full.
        """
        handlers = self.handlers
        handler = handlers.get((self.phase(state), type(command))) if handlers else None
        if handler is None:
            return self.decide(state, seat, command)
        return handler(state, seat, command)

    def may_decide(self, state: StateT, seat: Seat) -> bool:
        """Whether ``seat`` has a decision to make now (a game may answer more cheaply)."""
        return self.decision_for(state, seat) is not None

    def _rule_of(self, state: StateT, seat: Seat) -> str:
        decision = self.decision_for(state, seat)
        assert decision is not None, "called for a seat that may decide"
        return decision.rule_id

    def _unexpected(self, state: StateT, seat: Seat, kind: type) -> Rejection:
        """The engine's rejection of a (phase, command) pair the game has no handler for."""
        decision = self.decision_for(state, seat)
        assert decision is not None, "called for a seat that may decide"
        phase = self.phase(state)
        expected = [cls.__name__ for (at, cls) in self.handlers if at == phase]
        return Rejection(
            decision.rule_id,
            f"{kind.__name__} does not answer the pending decision ({decision.kind}); "
            f"send {' or '.join(expected) or 'nothing'}",
        )

    @abc.abstractmethod
    def apply(self, state: StateT, event: EventT) -> StateT:
        """Fold ``event`` into ``state`` (in place) and return it."""

    @abc.abstractmethod
    def decisions(self, state: StateT) -> tuple[Decision, ...]:
        """Every decision the game waits for now, at most one per seat (empty when over).

        Several seats may be asked at once, and not only the seat whose turn it is (a block,
        a count that lands on another player): clocks and default actions treat them alike.
        """

    def pending(self, state: StateT) -> tuple[Seat, ...]:
        """Seats whose decision the game is waiting for (empty when the game is over)."""
        return tuple(decision.seat for decision in self.decisions(state))

    def decision_for(self, state: StateT, seat: Seat) -> Decision | None:
        """The decision ``seat`` is asked for now, if any."""
        for decision in self.decisions(state):
            if decision.seat == seat:
                return decision
        return None

    def limit_results(self, state: StateT, players: int) -> tuple[SeatResult, ...]:
        """The results of a game that reached its event limit: a draw (every seat scores 0
        and ranks 1) unless the game ranks its standing (its scores so far, by its rules)."""
        return tuple(SeatResult(seat, 0, 1) for seat in range(players))

    def default_command(self, state: StateT, seat: Seat) -> CommandT | None:
        """The command a seat's clock plays for it: the first legal one in canonical order
        (games list the gentlest first, e.g. a pass). ``None`` if the seat has no decision."""
        legal = self.legal_commands(state, seat)
        return legal[0] if legal else None

    @abc.abstractmethod
    def legal_commands(self, state: StateT, seat: Seat) -> list[CommandT]:
        """Every command ``seat`` may send now, in a canonical order (empty if none, and
        always empty for a seat without a decision in :meth:`decisions`: the views of a seat
        the game does not wait for do not ask; the conformance suite checks it)."""

    # --- display text (for people, not for parsing; see referee/engine/labels.py) ----------

    def command_label(self, command: CommandT, view: Any) -> str:
        """A short English label for ``command``, one of the legal commands of the seat whose
        game view is ``view`` ("play three 8s using one queen"). It may use only the command
        and that view, so it never tells the seat more than it may know. Games override this
        in their ``labels`` module; the default is built from the command's type and fields."""
        return plain_words(command)

    def event_text(self, event: EventT) -> str:
        """One line describing ``event`` as its viewer received it (already redacted, so it
        shows only what that viewer may see): "seat 2 played three 8s"."""
        return plain_words(event)

    @abc.abstractmethod
    def view(self, state: StateT, viewer: Viewer) -> Any:
        """The game-specific view for ``viewer``: only what the rules let it see.

        Every viewer's view of one state is asked for after each batch: a game builds the
        part every viewer sees alike once per state (kept on the state until the next event)
        and each view adds the viewer's own fields (:attr:`seat_fields`)."""

    #: The fields of the game's view that may differ from one viewer to another (a seat's
    #: hand); every other field is the same for every viewer of one state. The views a batch
    #: sends write the others' bytes once and each view its own fields only; empty (a game
    #: that does not say): every field of each view is written unless it is the very object
    #: the first view holds. A class variable, as :attr:`handlers`.
    seat_fields: ClassVar[tuple[str, ...]] = ()

    @abc.abstractmethod
    def redact(self, event: EventT, viewer: Viewer) -> EventT:
        """``event`` as ``viewer`` may see it (the event itself when nothing is hidden)."""

    @abc.abstractmethod
    def results(self, state: StateT) -> tuple[SeatResult, ...] | None:
        """Final results when the game is over, else ``None``."""

    def ending(self, state: StateT) -> Ending | None:
        """Why the game ended by its rules (the rule id and the reason in words, "seat 2 woke
        5 queens"), ``None`` while playing. Every game implements it (the conformance suite
        asks for one at every end); the words use public information only (the leak test
        compares them across hidden variants), since every viewer receives them."""
        return None

    def chance_steps(self, config: GameConfig, event: EventT) -> Sequence[ChanceStep]:
        """What ``event`` does to the shuffled decks, for the per-card commitments
        (``docs/fairness.md`` section 6): a shuffle's order, cards taken from the top and who
        sees them, a card shown in place. Only the game knows which deck position a card it
        deals came from; a game without it has no per-card openings (the default)."""
        return ()

    # --- support for the generic conformance suite -------------------------------------------

    @abc.abstractmethod
    def command_space(self, state: StateT, seat: Seat) -> list[CommandT]:
        """A finite superset of the legal commands (used to check that illegal ones are refused)."""

    @abc.abstractmethod
    def hidden_variant(self, state: StateT, viewer: Viewer, salt: int) -> StateT:
        """A copy of ``state`` that differs only in what ``viewer`` may not see.

        Used by the leak test: ``viewer``'s view of both states must be identical.
        """

    def copy_state(self, state: StateT) -> StateT:
        """A deep, independent copy of ``state``."""
        import copy

        return copy.deepcopy(state)


__all__ = [
    "GAME_OVER",
    "NOT_YOUR_TURN",
    "CardShown",
    "CardsTaken",
    "ChanceStep",
    "Command",
    "CommandT",
    "Decision",
    "DeckOrder",
    "Ending",
    "Event",
    "EventT",
    "FixedDeal",
    "Game",
    "GameConfig",
    "GameInfo",
    "Handler",
    "OptionSpec",
    "Rejection",
    "Seat",
    "SeatResult",
    "SetupRefused",
    "Viewer",
    "not_your_turn",
    "rank_by_score",
    "refuse",
    "union_members",
]
