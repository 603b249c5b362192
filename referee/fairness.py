"""Check a finished game against its seed commitment: every event re-derived from the log.

A refereed game commits to its secret seed in its first event (``SeedCommitted``: SHA-256 of
the referee's salt and the seed) and releases both when it is over (``SeedRevealed``, whose
contents only the unredacted log holds: the organiser's, unless the game waived end-of-game
secrecy). :func:`verify` takes the
game's setup (type, seats, options, table settings; no seed), its full log and its recorded
commands, and

1. checks that SHA-256 of the revealed salt and seed is the commitment (and the fixed deal's too);
2. re-creates the game from the revealed seed and compares its opening (the deal) with the
   log's first batch;
3. re-decides every later batch in order: a seat's recorded command, the default command of a
   timeout or of a forfeited seat, the abort, the reveal; and compares the events the rules
   give with the log's, event by event.

The result names the first sequence number where the log and the rules differ. The algorithm
(seed -> shuffles and picks, the commitment) is specified in ``docs/fairness.md`` so anyone can
re-implement the deal check without this code.

Sources: :func:`verify_store` reads a game from an event store (``referee verify --store``),
:func:`verify_export` takes ``ExportGame``'s answer (``referee verify --server``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import text_format

from referee import codec
from referee.engine.game import GameConfig, Rejection
from referee.engine.registry import get_game
from referee.engine.table import Table
from referee.engine.table_events import (
    DefaultPlayed,
    GameAborted,
    SeatAbandoned,
    SeatClaimed,
    SeatResigned,
    SeatsAbsent,
    SeedCommitted,
    SeedRevealed,
    TableEvent,
    TableSettings,
    TimedOut,
    commitment,
    deal_commitment,
)
from referee.stored import StoredFormError, batch_spans, decode_command, decode_deal, decode_events
from referee.v1 import referee_pb2 as pb

__all__ = [
    "CommandRecord",
    "Report",
    "verify",
    "verify_export",
    "verify_store",
]


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """A seat's accepted command and the first event it appended."""

    seat: int
    first_sequence: int
    command: pb.Command
    decision_ms: int = 0


@dataclass
class Report:
    """What :func:`verify` found. ``ok`` only when every check passed."""

    game_type: str
    events: int = 0
    commands: int = 0
    timeouts: int = 0
    default_plays: int = 0
    commitment: str = ""
    seed: bytes = b""
    problems: list[str] = field(default_factory=list)
    #: The first sequence number where the log differs from what the rules give.
    first_bad_sequence: int | None = None
    #: True when there is nothing to check (yet): no commitment, or the seed not revealed.
    unverifiable: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    def fail(self, problem: str, sequence: int | None = None) -> Report:
        self.problems.append(problem)
        if sequence is not None and self.first_bad_sequence is None:
            self.first_bad_sequence = sequence
        return self

    def text(self) -> str:
        """A short human-readable account (what ``referee verify`` prints)."""
        head = (
            f"{self.game_type}: {self.events} events, {self.commands} commands re-decided, "
            f"{self.timeouts} timeouts, {self.default_plays} default plays"
        )
        if self.ok:
            return (
                f"OK {head}\n  seed {self.seed.hex()} (salted, SHA-256 {self.commitment}) "
                "matches the commitment; every event follows from it and the commands"
            )
        lines = [f"FAILED {head}"]
        lines += [f"  {problem}" for problem in self.problems]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "game_type": self.game_type,
            "events": self.events,
            "commands": self.commands,
            "timeouts": self.timeouts,
            "default_plays": self.default_plays,
            "commitment": self.commitment,
            "seed_hex": self.seed.hex(),
            "first_bad_sequence": self.first_bad_sequence,
            "unverifiable": self.unverifiable,
            "problems": list(self.problems),
        }


def _oneof_bytes(message: pb.Event) -> tuple[str | None, bytes]:
    """The event itself (its ``game`` oneof), without sequence numbers and timestamps."""
    which = message.WhichOneof("game")
    if which is None:
        return None, b""
    return which, getattr(message, which).SerializeToString(deterministic=True)


def _describe(message: pb.Event) -> str:
    which = message.WhichOneof("game")
    if which is None:
        return "an empty event"
    text = text_format.MessageToString(getattr(message, which), as_one_line=True)
    return f"{which} {{{text[:300]}}}"


def verify(
    config: GameConfig,
    events: Sequence[pb.Event],
    commands: Sequence[CommandRecord],
    settings: TableSettings | None = None,
) -> Report:
    """Check a game's log: ``config`` gives its type, seats and options (its ``seed`` is not
    used: the seed comes from the log's reveal; a ``deal`` given must be the revealed one),
    ``events`` is the full unredacted log in order, ``commands`` the accepted commands,
    ``settings`` the table settings it was created with."""
    settings = settings if settings is not None else TableSettings()
    game_type = config.game_type
    report = Report(game_type=game_type, events=len(events))
    if not events:
        report.unverifiable = True
        return report.fail("the log is empty")
    decoded: list[Any] = []
    for index, message in enumerate(events, 1):
        if message.sequence != index:
            return report.fail(f"event {index} has sequence number {message.sequence}", index)
        try:
            decoded.append(codec.event_from_proto(message))
        except (codec.CodecError, KeyError, TypeError, ValueError) as error:
            return report.fail(f"sequence {index}: not a valid event ({error})", index)

    committed = decoded[0]
    if not isinstance(committed, SeedCommitted):
        report.unverifiable = True
        return report.fail("sequence 1 is not a seed commitment: nothing to check against", 1)
    report.commitment = committed.commitment
    reveals = [(i, e) for i, e in enumerate(decoded, 1) if isinstance(e, SeedRevealed)]
    if not reveals:
        report.unverifiable = True
        return report.fail("the seed has not been revealed (yet): nothing to check with")
    at, revealed = reveals[0]
    seed, deal, salt = revealed.seed, revealed.deal, revealed.salt
    if not seed:
        report.unverifiable = True
        return report.fail(
            f"sequence {at}: this copy of the log does not hold the seed (only the organiser's "
            "ExportGame, with its token, does)"
        )
    report.seed = seed
    if commitment(seed, salt) != committed.commitment:
        return report.fail(
            f"sequence {at}: SHA-256 of the revealed salt and seed is "
            f"{commitment(seed, salt)}, but the commitment at sequence 1 is "
            f"{committed.commitment}",
            at,
        )
    if deal_commitment(seed, deal, salt) != committed.deal_commitment:
        return report.fail(
            f"sequence {at}: the revealed fixed deal does not match the deal commitment", at
        )
    if config.deal is not None and config.deal != deal:
        return report.fail(f"sequence {at}: the revealed fixed deal is not the game's", at)

    try:
        game = get_game(game_type)
        setup = dataclasses.replace(config, seed=seed, deal=deal, salt=salt)
        table: Table[Any] = Table(game, setup, settings)
        # A table that waited for players opened with its creator's claims and no deal.
        head = decoded[: next(batch_spans(events))[1]]
        claims = [event for event in head if isinstance(event, SeatClaimed)]
        opening = table.opening(start=_deals(head), claims=claims)
    except (KeyError, ValueError) as error:
        return report.fail(f"cannot re-create the game: {error}")

    by_first = {record.first_sequence: record for record in commands}
    used: set[int] = set()
    try:  # batch by batch: the first bad sequence is reported, whatever is wrong there
        for start, end in batch_spans(events):
            if start == 0:
                expected = opening
            else:
                batch = decoded[start:end]
                found = _expected(table, batch, start + 1, by_first, used, report)
                if found is None:
                    return report
                expected = found
            if not _same(game_type, expected, list(events[start:end]), start + 1, report):
                return report
            table.extend(expected)
    except StoredFormError as error:
        return report.fail(str(error), error.sequence)

    unused = sorted(set(by_first) - used)
    if unused:
        return report.fail(f"commands recorded at sequences {unused} are not in the log")
    if not table.over:
        report.fail("the log ends before the game is over")
    return report


def _deals(batch: Sequence[Any]) -> bool:
    """True when ``batch`` holds a game's own event (a batch of claims that starts the game)."""
    return any(not isinstance(event, TableEvent) for event in batch)


def _expected(
    table: Table[Any],
    batch: Sequence[Any],
    sequence: int,
    commands: dict[int, CommandRecord],
    used: set[int],
    report: Report,
) -> list[Any] | None:
    """The events the rules give for ``batch``, which starts at ``sequence``; None (and a
    problem in ``report``) when no rule explains it."""
    first = batch[0]
    try:
        if table.reveal_due():  # the referee must reveal right after the end
            return table.reveal()
        forced = table.forfeited_play()
        if forced is not None:  # a forfeited seat's turn is played at once
            report.default_plays += 1
            return forced
        if isinstance(first, SeedRevealed):  # a deferred reveal
            return table.reveal()
        if isinstance(first, GameAborted):
            return table.abort(first.reason)
        if isinstance(first, TimedOut):
            report.timeouts += 1
            return table.time_out(first.seat)
        if isinstance(first, SeatResigned):
            return table.resign(first.seat)
        if isinstance(first, SeatAbandoned):  # the player went away, or the organiser said so
            return table.abandon(first.seat, first.reason)
        if isinstance(first, SeatsAbsent):  # the join deadline with reserved seats unclaimed
            return table.no_show(first.seats)
        if isinstance(first, SeatClaimed):  # claims, and the deal when they fill the table
            claims = [e for e in batch if isinstance(e, SeatClaimed)]
            return [*claims, *(table.start() if _deals(batch) else [])]
        if isinstance(first, SeedCommitted | DefaultPlayed):
            report.fail(f"sequence {sequence}: {type(first).__name__} is out of place", sequence)
            return None
        record = commands.get(sequence)
        if record is None:
            report.fail(f"sequence {sequence}: no recorded command caused this batch", sequence)
            return None
        try:
            _, command = codec.command_from_proto(record.command)
        except codec.CodecError as error:
            report.fail(f"sequence {sequence}: the recorded command is invalid ({error})", sequence)
            return None
        report.commands += 1
        used.add(sequence)
        return table.decide(record.seat, command)
    except Rejection as rejection:
        report.fail(
            f"sequence {sequence}: the rules refuse what the log shows here ({rejection})",
            sequence,
        )
        return None


def _same(
    game_type: str, expected: list[Any], batch: list[pb.Event], first: int, report: Report
) -> bool:
    """Compare a batch event by event; record the first difference in ``report``."""
    for offset in range(max(len(expected), len(batch))):
        sequence = first + offset
        if offset >= len(batch):
            report.fail(
                f"sequence {sequence}: the rules give more events here than the log has", sequence
            )
            return False
        logged = batch[offset]
        if offset >= len(expected):
            report.fail(
                f"sequence {sequence}: the log has {_describe(logged)}, "
                "which the rules do not give",
                sequence,
            )
            return False
        derived = codec.event_to_proto(game_type, expected[offset], sequence)
        if _oneof_bytes(derived) != _oneof_bytes(logged):
            report.fail(
                f"sequence {sequence}: the log has {_describe(logged)}, "
                f"but the seed and the commands give {_describe(derived)}",
                sequence,
            )
            return False
    return True


# --- sources ----------------------------------------------------------------------------------


def verify_store(store: Any, game_id: str) -> Report:
    """Check a game in an event store (``referee verify --store``)."""
    from referee.application.tables.clocks import GameSettings

    record = store.get_game(game_id)
    settings = GameSettings.from_json(record.settings)
    events = decode_events(e.payload for e in store.read(game_id))
    commands = [
        CommandRecord(c.seat, c.first_sequence, decode_command(c.payload), c.decision_ms)
        for c in store.commands(game_id)
    ]
    config = GameConfig(
        game_type=record.game_type,
        players=record.players,
        options=dict(record.options),
        seed=b"",
        deal=decode_deal(record.deal),
    )
    return verify(config, events, commands, settings.table())


def verify_export(export: pb.ExportGameResponse) -> Report:
    """Check a game from ``ExportGame`` (``referee verify --server``)."""
    summary = export.game
    config = GameConfig(
        game_type=summary.game_type,
        players=summary.players,
        options=dict(summary.options),
        seed=b"",
    )
    settings = TableSettings(
        forfeit_after_timeouts=summary.clock.forfeit_after_timeouts,
        defer_reveal=summary.defer_seed_reveal,
        public_reveal=summary.public_reveal_waives_secrecy,
        card_commitments=summary.card_commitments,
    )
    commands = [
        CommandRecord(c.seat, c.first_sequence, c.command, c.decision_ms) for c in export.commands
    ]
    return verify(config, list(export.events), commands, settings)
