"""A running game in memory: the library mode of the referee (no server, no I/O).

>>> from referee.engine.table import Table
>>> table = Table.create("vampire-queen", players=3, seed=b"doc")
>>> table.version > 0 and table.pending() == (table.view(None).pending[0],)
True
>>> seat = table.pending()[0]
>>> command = table.legal_commands(seat)[0]
>>> events = table.submit(seat, command)
>>> len(table.log) == table.version
True
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic

from referee.engine.game import (
    Command,
    Decision,
    Event,
    FixedDeal,
    Game,
    GameConfig,
    Rejection,
    Seat,
    SeatResult,
    StateT,
    Viewer,
)
from referee.engine.registry import get_game


@dataclass(frozen=True, slots=True)
class View:
    """Everything ``viewer`` may know now, plus its legal commands.

    ``version`` is the sequence number of the last event folded in (0 before any event).
    ``pending`` lists every seat whose decision the game waits for.
    """

    game_type: str
    viewer: Viewer
    version: int
    pending: tuple[Seat, ...]
    decisions: tuple[Decision, ...]
    legal_commands: tuple[Command, ...]
    game: Any
    results: tuple[SeatResult, ...] | None

    @property
    def over(self) -> bool:
        return self.results is not None


class Table(Generic[StateT]):
    """One game: its config, current state and full (unredacted) event log."""

    def __init__(self, game: Game[StateT], config: GameConfig) -> None:
        self.game = game
        self.config = config
        self.state: StateT = game.new_state(config)
        self.log: list[Event] = []

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        game_type: str,
        players: int,
        options: Mapping[str, str] | None = None,
        seed: bytes | None = None,
        deal: FixedDeal | None = None,
    ) -> Table[Any]:
        """A new game with its opening events already applied. Raises ValueError on bad setup."""
        game = get_game(game_type)
        config = make_config(game, players, options or {}, seed, deal)
        table: Table[Any] = Table(game, config)
        table.extend(game.start(table.state))
        return table

    @classmethod
    def replay(cls, config: GameConfig, events: Sequence[Event]) -> Table[Any]:
        """Rebuild a game from its config and event log; needs no randomness."""
        table: Table[Any] = Table(get_game(config.game_type), config)
        table.extend(events)
        return table

    # --- play -----------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return len(self.log)

    def pending(self) -> tuple[Seat, ...]:
        return self.game.pending(self.state)

    def legal_commands(self, seat: Seat) -> list[Command]:
        return self.game.legal_commands(self.state, seat)

    def results(self) -> tuple[SeatResult, ...] | None:
        return self.game.results(self.state)

    def decisions(self) -> tuple[Decision, ...]:
        return self.game.decisions(self.state)

    def decide(self, seat: Seat, command: Command) -> list[Event]:
        """The events ``command`` would cause; raises Rejection. Changes nothing."""
        if not 0 <= seat < self.config.players:
            raise Rejection("SEAT", f"no seat {seat} at this table", "precondition")
        return self.game.decide(self.state, seat, command)

    def submit(self, seat: Seat, command: Command) -> list[Event]:
        """Decide and apply ``command``; returns the new events. Raises Rejection."""
        events = self.decide(seat, command)
        self.extend(events)
        return events

    def extend(self, events: Sequence[Event]) -> None:
        apply = self.game.apply
        state = self.state
        for event in events:
            state = apply(state, event)
        self.state = state
        self.log.extend(events)

    def view(self, viewer: Viewer) -> View:
        game = self.game
        state = self.state
        legal = tuple(game.legal_commands(state, viewer)) if viewer is not None else ()
        decisions = game.decisions(state)
        return View(
            game_type=game.info.type_id,
            viewer=viewer,
            version=len(self.log),
            pending=tuple(d.seat for d in decisions),
            decisions=decisions,
            legal_commands=legal,
            game=game.view(state, viewer),
            results=game.results(state),
        )

    def redacted_log(self, viewer: Viewer, start: int = 0) -> list[Event]:
        """Events from sequence number ``start + 1`` on, as ``viewer`` may see them."""
        redact = self.game.redact
        return [redact(event, viewer) for event in self.log[start:]]


def make_config(
    game: Game[Any],
    players: int,
    options: Mapping[str, str],
    seed: bytes | None,
    deal: FixedDeal | None,
) -> GameConfig:
    """Check the setup parameters and build a config (a fresh secret seed if none given)."""
    info = game.info
    if not info.min_players <= players <= info.max_players:
        raise ValueError(
            f"{info.type_id} is for {info.min_players} to {info.max_players} players, got {players}"
        )
    return GameConfig(
        game_type=info.type_id,
        players=players,
        options=info.normalise_options(options),
        seed=seed if seed is not None else secrets.token_bytes(32),
        deal=deal,
    )
