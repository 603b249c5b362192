"""The terms of a game a challenge or a pairing request asks for (``referee.v1.GameTerms``).

A challenge and a pairing ticket both name a game before it exists: its type, seats,
options, clock and whether it is rated. :func:`check_terms` checks them as ``CreateGame``
would check the same fields, at the time they are asked for, so a challenge that could never
be played is refused when it is made (naming ``terms.<field>``), not when it is accepted.
The options are stored *normalised* (every default filled in): two pairing requests that
ask for the same game in different words pair with each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.application.tables import errors
from referee.application.tables.clocks import Clock
from referee.engine.game import SetupRefused
from referee.engine.registry import get_game

#: Longest game type id accepted (as CreateGame).
MAX_TYPE_LENGTH = 128


@dataclass(frozen=True, slots=True)
class Terms:
    """A game asked for: type, seats, options (normalised), clock, rated."""

    game_type: str
    players: int
    options: Mapping[str, str] = field(default_factory=dict)
    clock: Clock = field(default_factory=Clock)
    rated: bool = False

    @property
    def key(self) -> tuple[Any, ...]:
        """What two requests must share to be paired with each other."""
        clock = (self.clock.decision_ms, self.clock.bank_ms, self.clock.forfeit_after_timeouts)
        options = tuple(sorted(self.options.items()))
        return (self.game_type, self.players, options, clock, self.rated)

    def to_json(self) -> dict[str, Any]:
        return {
            "game_type": self.game_type,
            "players": self.players,
            "options": dict(self.options),
            "clock": {
                "decision_ms": self.clock.decision_ms,
                "bank_ms": self.clock.bank_ms,
                "forfeit_after_timeouts": self.clock.forfeit_after_timeouts,
            },
            "rated": self.rated,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Terms:
        clock = data.get("clock") or {}
        return cls(
            game_type=str(data["game_type"]),
            players=int(data["players"]),
            options={str(k): str(v) for k, v in (data.get("options") or {}).items()},
            clock=Clock(
                int(clock.get("decision_ms", 0)),
                int(clock.get("bank_ms", 0)),
                int(clock.get("forfeit_after_timeouts", 0)),
            ),
            rated=bool(data.get("rated", False)),
        )


def check_terms(terms: Terms, prefix: str = "terms") -> Terms:
    """``terms`` checked and normalised (players 0: the game type's fewest; every option's
    default filled in), or INVALID_ARGUMENT naming ``<prefix>.<field>`` as CreateGame names
    its own fields (and the rule, where a rule decides)."""
    if not terms.game_type:
        raise errors.bad_request(f"{prefix}.game_type", "required (see ListGameTypes)")
    if len(terms.game_type) > MAX_TYPE_LENGTH:
        raise errors.bad_request(f"{prefix}.game_type", "unknown game type (see ListGameTypes)")
    try:
        game = get_game(terms.game_type)
    except KeyError as error:
        raise errors.bad_request(f"{prefix}.game_type", str(error.args[0])) from None
    info = game.info
    players = terms.players or info.min_players
    try:
        if not info.min_players <= players <= info.max_players:
            raise SetupRefused(
                "players",
                f"{info.type_id} is for {info.min_players} to {info.max_players} players, "
                f"got {players}",
                info.players_rule,
            )
        options = info.normalise_options(dict(terms.options))
    except SetupRefused as error:
        raise errors.setup_refused(f"{prefix}.{error.field}", str(error), error.rule_id) from None
    try:
        terms.clock.check()
    except ValueError as error:
        field_name, _, description = str(error).partition(": ")
        raise errors.bad_request(f"{prefix}.{field_name}", description) from None
    return Terms(info.type_id, players, options, terms.clock, terms.rated)


__all__ = ["Terms", "check_terms"]
