"""Prometheus metrics (names of go-grpc-prometheus for the RPC series), one registry per server."""

from __future__ import annotations

import time
from typing import Any

import structlog
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

import referee
from referee import build

log = structlog.get_logger("referee")

SERVICE = "referee.v1.RefereeService"
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)


class Children:
    """One family's children by their label values, each looked up in the family once.

    ``prometheus_client``'s ``labels`` checks its values and takes the family's lock on every
    call; the series a command touches (its game type's, its method's) are few and live as
    long as the registry, so the :class:`Metrics` that owns the family holds them here and a
    command finds its child by one dict lookup. A child is made when first asked for, as
    ``labels`` makes it: the exposition shows the same series."""

    __slots__ = ("_family", "_found")

    def __init__(self, family: Any) -> None:
        self._family = family
        self._found: dict[tuple[str, ...], Any] = {}

    def __call__(self, *values: str) -> Any:
        found = self._found.get(values)
        if found is None:
            found = self._found[values] = self._family.labels(*values)
        return found


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        labels = ["grpc_type", "grpc_service", "grpc_method"]
        self.started = Counter(
            "grpc_server_started_total",
            "RPCs started.",
            labels,
            registry=self.registry,
        )
        self.handled = Counter(
            "grpc_server_handled_total",
            "RPCs completed on the server, by status code.",
            [*labels, "grpc_code"],
            registry=self.registry,
        )
        self.handling = Histogram(
            "grpc_server_handling_seconds",
            "Time to handle an RPC (whole stream for streaming RPCs).",
            labels,
            buckets=_BUCKETS,
            registry=self.registry,
        )
        self.msg_sent = Counter(
            "grpc_server_msg_sent_total", "Stream messages sent.", labels, registry=self.registry
        )
        self.http_refused = Counter(
            "referee_http_refused_total",
            "HTTP requests refused before or while reading them (unknown method, content "
            "type, encoding, envelope, size), by the code answered and what was wrong.",
            ["grpc_code", "what"],
            registry=self.registry,
        )
        self.commands = Counter(
            "referee_commands_total",
            "Commands by game type, outcome (accepted/rejected/duplicate) and reason (rule id).",
            ["game_type", "outcome", "reason"],
            registry=self.registry,
        )
        self.games_active = Gauge(
            "referee_games_active", "Games in memory that are not over.", registry=self.registry
        )
        self.streams_open = Gauge(
            "referee_streams_open", "Open StreamGame calls.", registry=self.registry
        )
        self.seat_errors = Counter(
            "referee_seat_errors_total",
            "Seat errors by game type and kind (rejected, timeout, forfeit, disconnect).",
            ["game_type", "kind"],
            registry=self.registry,
        )
        self.decision_seconds = Histogram(
            "referee_decision_seconds",
            "Measured decision time of accepted commands (from the decision's start).",
            ["game_type"],
            buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900),
            registry=self.registry,
        )
        self.games_created = Counter(
            "referee_games_created_total",
            "Games created, by game type.",
            ["game_type"],
            registry=self.registry,
        )
        self.games_finished = Counter(
            "referee_games_finished_total",
            "Games that reached their end by the rules, by game type.",
            ["game_type"],
            registry=self.registry,
        )
        self.games_aborted = Counter(
            "referee_games_aborted_total",
            "Games ended by an abort (organiser or referee), by game type.",
            ["game_type"],
            registry=self.registry,
        )
        # Which build serves (referee.build), as an info series: 1 for the build that runs.
        self.build_info = Gauge(
            "referee_build_info",
            "The build that runs: pure (the Python source) or compiled (mypyc), and its version.",
            ["build", "version"],
            registry=self.registry,
        )
        self.build_info.labels(build.current().name, referee.__version__).set(1)
        self.store_append = Histogram(
            "referee_store_append_seconds",
            "Time to durably append a command's events.",
            buckets=_BUCKETS,
            registry=self.registry,
        )

        # The children of the series every command touches (see Children).
        self.started_of = Children(self.started)
        self.handled_of = Children(self.handled)
        self.handling_of = Children(self.handling)
        self.commands_of = Children(self.commands)
        self.decision_seconds_of = Children(self.decision_seconds)

    def game_created(self, game_type: str) -> None:
        self.games_created.labels(game_type).inc()

    def game_ended(self, live: Any) -> None:
        """Count a game (a referee's ``LiveGame``) this process saw end, and log its outcome as
        ``game_ended``: the winners and every seat's score, rank (by the one rule) and how its
        game ended, or the abort's reason."""
        table, game_type = live.table, live.record.game_type
        aborted: str | None = table.status.aborted
        if aborted is not None:
            self.games_aborted.labels(game_type).inc()
            outcome: dict[str, Any] = {"outcome": "aborted", "reason": aborted}
        else:
            self.games_finished.labels(game_type).inc()
            seats = [
                {"seat": r.seat, "score": r.score, "rank": r.rank, "end": r.end.word}
                for r in table.outcomes() or ()
            ]
            outcome = {
                "outcome": "finished",
                "winners": [s["seat"] for s in seats if s["rank"] == 1],
                "results": seats,
            }
        log.info(
            "game_ended",
            game_id=live.game_id,
            game_type=game_type,
            events=table.version,
            seconds=round(max(0.0, time.time() - live.record.created_at), 3),
            **outcome,
        )
