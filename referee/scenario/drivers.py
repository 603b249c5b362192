"""Where a scenario is played: the referee in-process (:class:`LibraryDriver`) or a live
server over gRPC (:class:`referee.scenario.remote.ServerDriver`).

A driver creates one game, submits commands as seats and answers what a viewer sees, in the
proto's JSON form, so the runner checks both the same way. The library mode runs the referee
application itself (:mod:`referee.application`) with the adapters' mapping of its values and
refusals (:mod:`referee.server.convert`, :mod:`referee.server.errors`): the same log (the seed
commitment, per-card commitments, the seed reveal as a batch of its own), versions, sequence
numbers, descriptions and refusals as a server; only the transport is left out.
"""

from __future__ import annotations

import abc
import asyncio
import uuid
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from google.protobuf import json_format

from referee import codec
from referee.application import GameSettings, Referee, RefereeError, Unreadable
from referee.application.tables.errors import clip
from referee.application.tables.live import LiveGame
from referee.engine.game import FixedDeal, Viewer
from referee.engine.registry import get_game
from referee.engine.table import Table
from referee.server import convert
from referee.server import errors as server_errors
from referee.store import MemoryEventStore
from referee.v1 import referee_pb2 as pb

T = TypeVar("T")

OK = "OK"
INVALID_ARGUMENT = "INVALID_ARGUMENT"
FAILED_PRECONDITION = "FAILED_PRECONDITION"

#: ``game_id`` of a library table (it appears as ``gameId`` in views).
GAME_ID = "scenario"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of a command (or of a setup): a status code, the rule id and message of a
    refusal, and the sequence numbers of the events an accepted command appended.

    ``problem`` is set when the refusal itself is malformed (a server's status without the
    ``google.rpc`` details the contract promises)."""

    code: str
    rule: str | None = None
    message: str = ""
    first: int = 0
    last: int = -1
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class Setup:
    """What a table is created with: game type, seats, options, seed and fixed deal."""

    game_type: str
    players: int
    options: dict[str, str]
    seed: str
    deal: FixedDeal | None = None


class DealRefused(Exception):
    """A fixed deal the game cannot deal when it comes to a shuffle (a later shuffle whose
    cards depend on the play, written wrongly)."""


class SetupRefused(Exception):
    """The table was not created: ``outcome`` says how it was refused."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


def to_json(message: Any) -> dict[str, Any]:
    """A message in proto JSON form (camelCase keys, defaults left out)."""
    return json_format.MessageToDict(message, preserving_proto_field_name=False)


def parse_command(command: Any) -> pb.Command | Outcome:
    """A step's command (proto JSON) as the message a client sends, or, when ``json_format``
    cannot read it (an unknown field), the refusal: it cannot be sent at all."""
    message = pb.Command()
    try:
        json_format.ParseDict(command, message)
    except json_format.ParseError as error:
        return Outcome(INVALID_ARGUMENT, None, f"command: {error}")
    return message


def seat_token(tokens: Sequence[str], seat: int) -> str:
    """``seat``'s token; a seat outside the table has none: a made-up one, which is refused."""
    return tokens[seat] if 0 <= seat < len(tokens) else f"seat-none-{seat}"


def refusal_message(rule: str | None, message: str) -> str:
    """A refusal's message without the rule id in front (the rule id is shown apart)."""
    if rule is not None and message.startswith(f"{rule}: "):
        return message[len(rule) + 2 :]
    return message


def outcome_of(error: RefereeError) -> Outcome:
    """The outcome of a refusal of the application, as a server answers it (its status code,
    the rule id, the message as the status carries it)."""
    rule = error.rule_id
    code = server_errors.code_name(server_errors.status_code(error))
    return Outcome(code, rule, refusal_message(rule, clip(error.message)))


#: Events the referee adds for per-card commitments (docs/fairness.md section 6): its
#: bookkeeping, not the rules a scenario describes; left out of the events a step checks.
_CARD_COMMITMENTS = {"deckCommitted", "cardsOpened"}


def rules_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``events`` without the per-card commitments."""
    return [e for e in events if not _CARD_COMMITMENTS & set(e.get("referee", {}))]


class Driver(abc.ABC):
    """One table of a scenario, created by :meth:`create`; viewers are seats or ``None``."""

    players = 0

    @abc.abstractmethod
    def game_type(self, game_type: str) -> dict[str, Any] | None:
        """The game type's public description (``GameType``), or None when it is unknown."""

    @abc.abstractmethod
    def create(self, setup: Setup) -> None:
        """Create the table; raises :class:`SetupRefused`."""

    @abc.abstractmethod
    def submit(self, seat: int, command: Any) -> Outcome:
        """Send ``command`` (proto JSON) as ``seat``."""

    @abc.abstractmethod
    def version(self) -> int:
        """Sequence number of the last event of the log."""

    @abc.abstractmethod
    def view(self, viewer: Viewer) -> dict[str, Any]:
        """The view ``viewer`` has now (on a server: the last one its stream delivered)."""

    def current_view(self, viewer: Viewer) -> dict[str, Any]:
        """The view ``viewer`` is given when it asks now (on a server: ``GetView``)."""
        return self.view(viewer)

    @abc.abstractmethod
    def events(self, first: int, last: int, viewer: Viewer) -> list[dict[str, Any]]:
        """Events ``first..last`` (sequence numbers) as ``viewer`` receives them."""

    @abc.abstractmethod
    def summary(self) -> dict[str, Any]:
        """The table's public ``GameSummary``."""

    def close(self) -> None:  # noqa: B027 - most drivers hold nothing to release
        """Release what the driver holds (channels, streams)."""


class LibraryDriver(Driver):
    """The referee application in-process: a :class:`~referee.application.Referee` on a
    memory store, called directly (no transport, no network), on an event loop of its own.

    Games are created, commands decided, views, events and summaries given exactly as a server
    gives them (the same application, the adapters' mapping of its values and refusals), so a
    file checks the same things in both modes; only the transport is left out."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self.referee = Referee(MemoryEventStore())
        self._run(self.referee.recover())
        self.game_id = ""
        self.tokens: list[str] = []

    def _run(self, call: Coroutine[Any, Any, T]) -> T:
        return self._loop.run_until_complete(call)

    @property
    def table(self) -> Table[Any] | None:
        """The game's live table (``None`` before :meth:`create`); to read, not to change."""
        live = self.referee.games.get(self.game_id)
        return None if live is None else live.table

    def game_type(self, game_type: str) -> dict[str, Any] | None:
        try:
            return to_json(codec.game_type_to_proto(get_game(game_type).info))
        except KeyError:
            return None

    def create(self, setup: Setup) -> None:
        # As the server's CreateGame with the request ServerDriver sends (docs/scenarios.md).
        settings = GameSettings(card_commitments=True, public_seed=bool(setup.seed))
        call = self.referee.create(
            setup.game_type,
            setup.players,
            setup.options,
            seed=setup.seed,
            deal=setup.deal,
            settings=settings,
        )
        try:
            created = self._run(call)
        except RefereeError as error:
            raise SetupRefused(outcome_of(error)) from None
        self.players = setup.players
        self.game_id = created.game_id
        self.tokens = list(created.seat_tokens)

    def submit(self, seat: int, command: Any) -> Outcome:
        message = parse_command(command)
        if isinstance(message, Outcome):
            return message
        value: Any
        try:
            value = codec.command_from_proto(message)[1]
        except codec.CodecError as error:  # as the server: refused by the referee, counted
            value = Unreadable(error.field, error.description)
        return self.submit_value(seat, value)

    def submit_value(self, seat: int, command: Any) -> Outcome:
        """Send ``command`` (an engine value, or :class:`Unreadable`) as ``seat``."""
        call = self.referee.submit(
            self.game_id, seat_token(self.tokens, seat), uuid.uuid4().hex, command
        )
        try:
            submitted = self._run(call)
        except RefereeError as error:
            return outcome_of(error)
        except ValueError as error:  # a later shuffle of a fixed deal that does not fit
            raise DealRefused(str(error)) from None
        return Outcome(OK, first=submitted.first_sequence, last=submitted.last_sequence)

    def _live(self) -> LiveGame:
        live = self.referee.games.get(self.game_id)
        assert live is not None, "create() first"
        return live

    def version(self) -> int:
        return self._run(self.referee.summary(self.game_id)).version

    def view(self, viewer: Viewer) -> dict[str, Any]:
        if viewer is None:
            call = self.referee.view(self.game_id, spectator=True)
        else:
            call = self.referee.view(self.game_id, seat_token=self.tokens[viewer])
        return to_json(convert.view_to_proto(self._run(call)))

    def events(self, first: int, last: int, viewer: Viewer) -> list[dict[str, Any]]:
        # Each event as a viewer's stream sends it (FanOut.stream's plain form).
        live = self._live()
        events = [
            to_json(convert.event_to_proto(live.stamped(sequence - 1, viewer)))
            for sequence in range(first, last + 1)
        ]
        return rules_events(events)

    def summary(self) -> dict[str, Any]:
        return to_json(convert.summary_to_proto(self._run(self.referee.summary(self.game_id))))

    def close(self) -> None:
        self.referee.close()
        pending = asyncio.all_tasks(self._loop)
        for task in pending:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.close()


__all__ = [
    "FAILED_PRECONDITION",
    "GAME_ID",
    "INVALID_ARGUMENT",
    "OK",
    "DealRefused",
    "Driver",
    "LibraryDriver",
    "Outcome",
    "Setup",
    "SetupRefused",
    "outcome_of",
    "parse_command",
    "refusal_message",
    "rules_events",
    "seat_token",
    "to_json",
]
