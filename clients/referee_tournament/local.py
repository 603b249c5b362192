"""``--local``: the same games in-process, on the engine's :class:`Table`, without a network.

Every bot must name a built-in ``strategy``. A seat is asked exactly when a networked bot would
be: in the settled view of each version where its seat is pending, with the same
:class:`referee_pb2.View` the server would stream (built by the same codec), and with the same
random generator (seeded ``{seed}`` of the game, seat and bot). So deterministic bots give the
same games, results and ratings as over the network. Each seat's result is the engine's one
rule (:func:`referee.engine.outcomes.rank_outcomes`, finishers first, as every networked
tournament game ranks): nobody leaves a game here, so it is the rules' ranking.
"""

from __future__ import annotations

import random
import time
from typing import Any

from referee.codec import CodecError, command_from_proto, event_to_proto, view_to_proto
from referee.engine.game import Rejection
from referee.engine.outcomes import Ranking, rank_outcomes
from referee.engine.registry import get_game
from referee.engine.table import Table, make_config
from referee.v1.referee_pb2 import StreamGameResponse
from referee_bot.sdk import StrategyBot
from referee_bot.strategies import make_strategy
from referee_tournament.config import TournamentConfig
from referee_tournament.processes import message_json
from referee_tournament.records import Fault, GameRecord, SeatRecord
from referee_tournament.schedule import GameSpec

#: A game asking for more decisions than this is stopped (a loop no real game has).
MAX_COMMANDS = 200_000


class LocalRunner:
    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        missing = [bot.name for bot in config.bots if bot.strategy is None]
        if missing:
            raise ValueError(
                f"--local plays built-in strategies only; bot {missing[0]!r} has no strategy "
                "(give it strategy: NAME, or run the tournament over the network)"
            )

    def check(self) -> None:
        """Fail early (ValueError) on an unknown game, a table size or options it refuses."""
        for index, entry in enumerate(self.config.games):
            try:
                game = get_game(entry.game)
            except KeyError as error:
                raise ValueError(f"games[{index}].game: {error.args[0]}") from None
            try:
                make_config(game, entry.players, entry.options, b"check", None)
            except ValueError as error:
                raise ValueError(f"games[{index}]: {error}") from None

    def finish(self, records: list[GameRecord]) -> None:
        pass

    def close(self) -> None:
        pass

    def play(self, spec: GameSpec, *, final: bool = False) -> tuple[GameRecord, dict[str, Any]]:
        started = time.monotonic()
        game_id = f"local-{spec.index:04d}"
        table = Table.create(spec.game, spec.players, spec.options, seed=spec.seed.encode())
        bots = []
        for seat, name in enumerate(spec.seating):
            strategy = self.config.bot(name).strategy
            assert strategy is not None
            chosen = make_strategy(strategy, spec.game)
            if hasattr(chosen, "options"):
                chosen.options = dict(spec.options)  # a search samples worlds under them
            bots.append(StrategyBot(chosen, random.Random(spec.bot_seed(seat))))
        fed = [0] * spec.players  # events each seat's bot was fed (a search reads them)
        events: list[dict[str, Any]] = []
        faults: list[Fault] = []

        def record_batch(start: int) -> None:
            end = table.version
            for offset, event in enumerate(table.redacted_log(None, start)):
                message = event_to_proto(spec.game, event, start + offset + 1)
                message.batch_end_sequence = end
                events.append(message_json(message))

        record_batch(0)
        commands = 0
        while table.results() is None:
            pending = sorted(table.pending())
            if not pending or commands >= MAX_COMMANDS:
                # No game asks this much: a bug of the game, not of a bot; not scored.
                record = GameRecord(
                    spec=spec,
                    status="failed",
                    faults=faults,
                    game_id=game_id,
                    commands=commands,
                    seconds=time.monotonic() - started,
                    detail=f"no end in sight after {commands} commands",
                )
                return record, self._replay(game_id, spec, events, table)
            seat = pending[0]
            view = view_to_proto(game_id, spec.players, table.view(seat))
            start = table.version
            if getattr(bots[seat].strategy, "feed", None) is not None:
                # What the seat's stream would have carried since it was last asked.
                seen = table.redacted_log(seat, fed[seat])
                bots[seat].feed(
                    StreamGameResponse(
                        view=view,
                        events=[
                            event_to_proto(spec.game, event, fed[seat] + offset + 1)
                            for offset, event in enumerate(seen)
                        ],
                    )
                )
                fed[seat] = start
            choice = bots[seat].choose(view)
            try:
                _, command = command_from_proto(choice)
                table.submit(seat, command)
            except (CodecError, Rejection) as error:
                faults.append(Fault(spec.seating[seat], seat, "rejected", detail=str(error)))
                table.submit(seat, table.legal_commands(seat)[0])  # as the SDK does
            commands += 1
            record_batch(start)
        outcomes = rank_outcomes(table.results() or (), {}, Ranking.FINISHERS_FIRST)
        seats = [
            SeatRecord(
                seat=o.seat,
                bot=spec.seating[o.seat],
                rank=o.rank,
                score=o.score,
                rules_rank=o.rules_rank,
            )
            for o in outcomes
        ]
        record = GameRecord(
            spec=spec,
            status="ok",
            seats=seats,
            faults=faults,
            game_id=game_id,
            commands=commands,
            seconds=time.monotonic() - started,
        )
        return record, self._replay(game_id, spec, events, table)

    @staticmethod
    def _replay(
        game_id: str, spec: GameSpec, events: list[dict[str, Any]], table: Table[Any]
    ) -> dict[str, Any]:
        view = view_to_proto(game_id, spec.players, table.view(None))
        return {
            "game_id": game_id,
            **spec.to_json(),
            "events": events,
            "final_view": message_json(view),
        }
