"""The seats that leave a table before its end: resigned, abandoned, absent (a forfeit on time
is the clock's: :meth:`referee.engine.table.Table.time_out`).

A mixin of :class:`~referee.engine.table.Table`: the events of a seat leaving, and what the
seats that left change in what the table asks (never a seat that left: the referee plays its
default commands, :meth:`~referee.engine.table.Table.forfeited_play`, and while the game
waits for one of them, the referee is to move) and in its results (the one rule,
:mod:`referee.engine.outcomes`: :meth:`SeatsLeaving.outcomes`).
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.engine.game import (
    GAME_OVER,
    Decision,
    Event,
    GameConfig,
    Rejection,
    Seat,
    SeatResult,
)
from referee.engine.outcomes import Ranking, SeatEnd, SeatLeft, SeatOutcome, rank_outcomes
from referee.engine.table_events import (
    SeatAbandoned,
    SeatResigned,
    SeatsAbsent,
    TableSettings,
    TableStatus,
    absent_results,
)

#: The reason of the refusal of a command from a seat that left, by how it left.
LEFT_REASONS = {SeatEnd.FORFEITED: "SEAT_FORFEITED", SeatEnd.ABANDONED: "SEAT_ABANDONED"}


class SeatsLeaving:
    """What a table does with the seats that leave it (see the module's docstring). The
    table provides its config, status, decisions and state of play."""

    # What the table provides (it overrides each of these).
    config: GameConfig
    status: TableStatus
    settings: TableSettings | None

    def results(self) -> tuple[SeatResult, ...] | None:
        raise NotImplementedError

    @property
    def over(self) -> bool:
        raise NotImplementedError

    @property
    def started(self) -> bool:
        raise NotImplementedError

    @property
    def _idle(self) -> bool:
        raise NotImplementedError

    def decisions(self) -> tuple[Decision, ...]:
        raise NotImplementedError

    @property
    def ranking(self) -> Ranking:
        """The ranking the results follow (a table's settings; the rules' without)."""
        return self.settings.ranking if self.settings is not None else Ranking.RULES

    def outcomes(self) -> tuple[SeatOutcome, ...] | None:
        """Every seat's result by the one rule (:func:`~referee.engine.outcomes.rank_outcomes`):
        how it ended and the rank of the ranking that applies; ``None`` before the end and
        after an abort."""
        results = self.results()
        if results is None or self.status.aborted is not None:
            return None
        return rank_outcomes(results, self.status.left, self.ranking)

    def resign(self, seat: Seat) -> list[Event]:
        """The events of ``seat`` resigning: :class:`SeatResigned` (the referee then plays its
        default commands, as :meth:`forfeited_play` does for a forfeited seat). Raises
        Rejection (``GAME_OVER``, ``GAME_NOT_STARTED``, ``ALREADY_RESIGNED``)."""
        self._in_play(seat, "nothing to resign")
        if seat in self.status.resigned:
            raise Rejection(
                "ALREADY_RESIGNED",
                f"seat {seat} has resigned already",
                "precondition",
                "ALREADY_RESIGNED",
            )
        return [SeatResigned(seat)]

    def abandon(self, seat: Seat, reason: str) -> list[Event]:
        """The events of ``seat`` being abandoned (:class:`SeatAbandoned`: its player went
        away, or the organiser removed it, as ``reason`` says); the referee then plays its
        default commands. Raises Rejection (``GAME_OVER``, ``GAME_NOT_STARTED``, ``ALREADY_LEFT``
        for a seat that left already)."""
        self._in_play(seat, "no seat can leave")
        gone = self.status.left.get(seat)
        if gone is not None:
            raise Rejection(
                "ALREADY_LEFT", f"{gone.reason} already", "precondition", "ALREADY_LEFT"
            )
        return [SeatAbandoned(seat, reason)]

    def no_show(self, absent: Sequence[Seat]) -> list[Event]:
        """The end of a table that never started because ``absent`` never claimed their
        reserved seats (:class:`SeatsAbsent`; the reveal follows when due). Raises Rejection
        once the game started or ended."""
        if self.started or self.over:
            raise Rejection(
                "NO-SHOW", "only a game that never started ends so", "precondition", GAME_OVER
            )
        seats = tuple(sorted(set(absent)))
        if not seats or not all(0 <= seat < self.config.players for seat in seats):
            raise Rejection(
                "SEAT", f"no such absent seats: {seats}", "precondition", "NO_SUCH_SEAT"
            )
        return [SeatsAbsent(seats, absent_results(self.config.players, seats))]

    def _in_play(self, seat: Seat, nothing: str) -> None:
        """Refuse (Rejection) a seat leaving a table that has no such seat, is over, or has
        not started (``nothing`` says what the seat cannot do then)."""
        if not 0 <= seat < self.config.players:
            raise Rejection("SEAT", f"no seat {seat} at this table", "precondition", "NO_SUCH_SEAT")
        if self.over:
            raise Rejection("GAME_OVER", "the game is over", "precondition", GAME_OVER)
        if not self.started:
            raise Rejection(
                "GAME_NOT_STARTED",
                f"the game has not started: {nothing}",
                "precondition",
                "GAME_NOT_STARTED",
            )

    def seats_left(self) -> tuple[SeatLeft, ...]:
        """The seats that left before the end, by seat."""
        left = self.status.left
        return tuple(left[seat] for seat in sorted(left)) if left else ()

    def asked(self) -> tuple[Decision, ...]:
        """The decisions the game waits for from seats that play: :meth:`decisions` without
        the seats that left (the referee decides for them)."""
        decisions = self.decisions()
        left = self.status.left
        return tuple(d for d in decisions if d.seat not in left) if left else decisions

    @property
    def referee_to_move(self) -> bool:
        """True when the game waits for a seat that left: the referee plays its default
        command next (no seat is asked)."""
        left = self.status.left
        return bool(left) and not self._idle and any(d.seat in left for d in self.decisions())


__all__ = ["LEFT_REASONS", "SeatsLeaving"]
