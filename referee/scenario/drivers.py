"""Where a scenario is played: the in-process library (:class:`LibraryDriver`) or a live
server over gRPC (:class:`referee.scenario.remote.ServerDriver`).

A driver creates one table, submits commands as seats and answers what a viewer sees, in the
proto's JSON form, so the runner checks both the same way. The library table is a *refereed*
table, as the server makes them: its log opens with the seed commitment and the seed is
revealed, as a batch of its own, when the game ends; so versions and sequence numbers are the
same in both modes.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format

from referee import codec
from referee.engine.game import FixedDeal, Rejection, Viewer
from referee.engine.registry import get_game
from referee.engine.table import Table
from referee.engine.table_events import TableSettings
from referee.v1 import referee_pb2 as pb

OK = "OK"
INVALID_ARGUMENT = "INVALID_ARGUMENT"
FAILED_PRECONDITION = "FAILED_PRECONDITION"
_KIND_CODES = {"illegal": INVALID_ARGUMENT, "precondition": FAILED_PRECONDITION}

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
    """A refereed in-process :class:`Table` (no server, no I/O)."""

    def __init__(self) -> None:
        self.table: Table[Any] | None = None

    def game_type(self, game_type: str) -> dict[str, Any] | None:
        try:
            return to_json(codec.game_type_to_proto(get_game(game_type).info))
        except KeyError:
            return None

    def create(self, setup: Setup) -> None:
        try:
            self.table = Table.create(
                setup.game_type,
                setup.players,
                setup.options,
                setup.seed.encode("utf-8"),
                setup.deal,
                TableSettings(),
            )
        except (ValueError, KeyError) as error:
            text = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
            # A setup refusal is INVALID_ARGUMENT on the server too; a rule id if it has one.
            rule = getattr(error, "rule_id", None) or None
            text = getattr(error, "message", text)  # the rule id is shown apart
            raise SetupRefused(Outcome(INVALID_ARGUMENT, rule, str(text))) from None
        self.players = setup.players

    @property
    def _table(self) -> Table[Any]:
        assert self.table is not None, "create() first"
        return self.table

    def submit(self, seat: int, command: Any) -> Outcome:
        table = self._table
        try:
            game_type, decoded = codec.command_from_json(command)
        except codec.CodecError as error:
            return Outcome(INVALID_ARGUMENT, None, str(error))
        if game_type != table.game.info.type_id:
            return Outcome(
                INVALID_ARGUMENT, None, f"this game is {table.game.info.type_id}, not {game_type}"
            )
        before = table.version
        try:
            events = table.submit(seat, decoded)
        except Rejection as rejection:
            return Outcome(_KIND_CODES[rejection.kind], rejection.rule_id, rejection.message)
        except ValueError as error:  # a later shuffle of a fixed deal that does not fit
            raise DealRefused(str(error)) from None
        if table.reveal_due():  # as the server: the reveal is a batch of its own
            table.extend(table.reveal())
        return Outcome(OK, first=before + 1, last=before + len(events))

    def version(self) -> int:
        return self._table.version

    def view(self, viewer: Viewer) -> dict[str, Any]:
        table = self._table
        return to_json(codec.view_to_proto(GAME_ID, table.config.players, table.view(viewer)))

    def events(self, first: int, last: int, viewer: Viewer) -> list[dict[str, Any]]:
        table = self._table
        game_type = table.game.info.type_id
        return [
            to_json(codec.event_to_proto(game_type, table.redact(table.log[seq - 1], viewer), seq))
            for seq in range(first, last + 1)
        ]

    def summary(self) -> dict[str, Any]:
        table = self._table
        view = table.view(None)
        message = pb.GameSummary(
            game_id=GAME_ID,
            game_type=table.config.game_type,
            players=table.config.players,
            options=dict(table.config.options),
            version=table.version,
            pending_seats=view.pending,
            game_over=view.over,
            results=codec.results_to_proto(view.results),
            decisions=codec.decisions_to_proto(view.decisions),
            seed_commitment=table.status.commitment,
        )
        return to_json(message)


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
    "to_json",
]
